// The oracle's matmul remembers its last products per thread (interp/KernelMemo.h). A product it
// serves must be the one it would compute: each variant below is computed on this thread, after the
// memo has seen the original, and on a fresh thread, whose memo is empty, and the two must agree in
// every value, bound and integer; variants that change what the product depends on must differ.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <thread>

#include "oracle/ReferenceTile.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::oracle::detail {
namespace {

RefTile operand(DType dt, int64_t rows, int64_t cols, double scale) {
  RefTile t = RefTile::poisoned(TileShape{dt, MemSpace::Left, rows, cols}, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      t.poison(r, c) = 0;
      if (isFloat(dt)) {
        t.set(r, c, {scale * static_cast<double>(r * cols + c) / 7.0, 0x1p-20});
      } else {
        t.integer(r, c) = (r * cols + c) % 11 - 5;  // integer tiles hold no values or bounds
      }
    }
  return t;
}

RefTile fresh(const RefTile& l, const RefTile& r, const TileShape& shape, const ToleranceProfile& profile) {
  RefTile out;
  std::thread([&] { out = refMatmul(l, r, shape, profile); }).join();
  return out;
}

bool sameLanes(const RefTile& a, const RefTile& b) {
  const auto bitsEqual = [](const Grid<double>& x, const Grid<double>& y) {
    if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
    for (Eigen::Index i = 0; i < x.size(); ++i)
      if (std::bit_cast<uint64_t>(x.data()[i]) != std::bit_cast<uint64_t>(y.data()[i])) return false;
    return true;
  };
  return bitsEqual(a.value, b.value) && bitsEqual(a.bound, b.bound) && (a.integer == b.integer).all() &&
         (a.poison == b.poison).all() && (a.chain == b.chain).all();
}

TEST(ReferenceMatmulMemo, ARepeatIsTheComputedProductAndChangedInputsAreNoRepeat) {
  const TileShape acc{DType::FP32, MemSpace::Acc, 4, 8};
  const RefTile l = operand(DType::FP16, 4, 16, 1.0), r = operand(DType::FP16, 16, 8, -0.5);
  const RefTile first = refMatmul(l, r, acc, cpuProfile());
  EXPECT_TRUE(sameLanes(refMatmul(l, r, acc, cpuProfile()), first));
  EXPECT_TRUE(sameLanes(first, fresh(l, r, acc, cpuProfile())));

  RefTile widerBound = r;
  widerBound.bound(3, 5) = 0x1p-10;
  const RefTile b = refMatmul(l, widerBound, acc, cpuProfile());
  EXPECT_TRUE(sameLanes(b, fresh(l, widerBound, acc, cpuProfile())));
  EXPECT_NE(b.bound(0, 5), first.bound(0, 5));

  RefTile otherValue = l;
  otherValue.value(2, 7) = 3.0;
  const RefTile v = refMatmul(otherValue, r, acc, cpuProfile());
  EXPECT_TRUE(sameLanes(v, fresh(otherValue, r, acc, cpuProfile())));
  EXPECT_NE(v.value(2, 0), first.value(2, 0));

  ToleranceProfile looser = cpuProfile();
  looser.setUlps(RoundedOp::Matmul, DType::FP32, 4.0);
  const RefTile loose = refMatmul(l, r, acc, looser);
  EXPECT_TRUE(sameLanes(loose, fresh(l, r, acc, looser)));
  EXPECT_NE(loose.bound(1, 1), first.bound(1, 1));

  const TileShape intAcc{DType::INT32, MemSpace::Acc, 4, 8};
  const RefTile li = operand(DType::INT8, 4, 16, 1.0), ri = operand(DType::INT8, 16, 8, 1.0);
  const RefTile ints = refMatmul(li, ri, intAcc, cpuProfile());
  EXPECT_TRUE(sameLanes(refMatmul(li, ri, intAcc, cpuProfile()), ints));
  EXPECT_TRUE(sameLanes(ints, fresh(li, ri, intAcc, cpuProfile())));
}

}  // namespace
}  // namespace ptodiff::oracle::detail
