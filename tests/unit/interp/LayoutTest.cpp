// Element addressing of boxed layouts, checked against tables built a different way: by walking
// memory in storage order (outer blocks, then inner box rows/cols) and numbering elements as they
// are laid down, instead of evaluating the closed-form offset.
#include <map>
#include <utility>

#include <gtest/gtest.h>

#include "interp/Layout.h"

namespace ptodiff {
namespace {

using Table = std::map<std::pair<int64_t, int64_t>, int64_t>;  // (r, c) -> element index

// NZ: column blocks outermost, then row blocks, then rows of the box, then columns of the box.
Table layDownNZ(int64_t R, int64_t C, int64_t IR, int64_t IC) {
  Table t;
  int64_t next = 0;
  for (int64_t sc = 0; sc < C / IC; ++sc)
    for (int64_t sr = 0; sr < R / IR; ++sr)
      for (int64_t ir = 0; ir < IR; ++ir)
        for (int64_t ic = 0; ic < IC; ++ic) t[{sr * IR + ir, sc * IC + ic}] = next++;
  return t;
}
// ZN: row blocks outermost, then column blocks, then columns of the box, then rows of the box.
Table layDownZN(int64_t R, int64_t C, int64_t IR, int64_t IC) {
  Table t;
  int64_t next = 0;
  for (int64_t sr = 0; sr < R / IR; ++sr)
    for (int64_t sc = 0; sc < C / IC; ++sc)
      for (int64_t ic = 0; ic < IC; ++ic)
        for (int64_t ir = 0; ir < IR; ++ir) t[{sr * IR + ir, sc * IC + ic}] = next++;
  return t;
}
// ZZ: row blocks outermost, then column blocks, then rows of the box, then columns of the box.
Table layDownZZ(int64_t R, int64_t C, int64_t IR, int64_t IC) {
  Table t;
  int64_t next = 0;
  for (int64_t sr = 0; sr < R / IR; ++sr)
    for (int64_t sc = 0; sc < C / IC; ++sc)
      for (int64_t ir = 0; ir < IR; ++ir)
        for (int64_t ic = 0; ic < IC; ++ic) t[{sr * IR + ir, sc * IC + ic}] = next++;
  return t;
}

void expectMatches(const HandleGeometry& g, const Table& table) {
  ASSERT_EQ(static_cast<int64_t>(table.size()), g.rows * g.cols);
  const int64_t esize = dtypeSize(g.dtype);
  for (const auto& [rc, element] : table)
    ASSERT_EQ(elementByteOffset(g, rc.first, rc.second), element * esize)
        << "element (" << rc.first << ", " << rc.second << ")";
}

const Layout kNZ{TileLayout::col_major, TileLayout::row_major, 512};
const Layout kZN{TileLayout::row_major, TileLayout::col_major, 512};
const Layout kZZ{TileLayout::row_major, TileLayout::row_major, 512};
const Layout kAcc{TileLayout::col_major, TileLayout::row_major, 1024};

TEST(Layout, BoxShapesPerDtype) {
  EXPECT_EQ(boxShape(kNZ, DType::FP16), (BoxShape{16, 16}));
  EXPECT_EQ(boxShape(kNZ, DType::BF16), (BoxShape{16, 16}));
  EXPECT_EQ(boxShape(kNZ, DType::FP32), (BoxShape{16, 8}));
  EXPECT_EQ(boxShape(kNZ, DType::INT8), (BoxShape{16, 32}));
  EXPECT_EQ(boxShape(kZN, DType::FP32), (BoxShape{8, 16}));
  EXPECT_EQ(boxShape(kZN, DType::INT8), (BoxShape{32, 16}));
  EXPECT_EQ(boxShape(kAcc, DType::FP32), (BoxShape{16, 16}));
  EXPECT_EQ(boxShape(kAcc, DType::INT32), (BoxShape{16, 16}));
  std::string why;
  EXPECT_FALSE(boxShape(kAcc, DType::FP16, &why));
  EXPECT_EQ(why, "fractal 1024 needs a 4-byte element type");
  EXPECT_FALSE(boxShape(Layout{}, DType::FP32));
}

TEST(Layout, NZMatchesStorageOrder) {
  expectMatches({32, 48, DType::FP16, kNZ, 0}, layDownNZ(32, 48, 16, 16));
  expectMatches({32, 16, DType::FP32, kNZ, 0}, layDownNZ(32, 16, 16, 8));
  expectMatches({32, 64, DType::INT8, kNZ, 0}, layDownNZ(32, 64, 16, 32));
}

TEST(Layout, ZNMatchesStorageOrder) {
  expectMatches({32, 48, DType::FP16, kZN, 0}, layDownZN(32, 48, 16, 16));
  expectMatches({16, 32, DType::FP32, kZN, 0}, layDownZN(16, 32, 8, 16));
  expectMatches({64, 32, DType::INT8, kZN, 0}, layDownZN(64, 32, 32, 16));
}

TEST(Layout, ZZMatchesStorageOrder) {
  expectMatches({32, 48, DType::FP16, kZZ, 0}, layDownZZ(32, 48, 16, 16));
  expectMatches({32, 16, DType::FP32, kZZ, 0}, layDownZZ(32, 16, 16, 8));
}

TEST(Layout, AccMatchesStorageOrder) {
  expectMatches({32, 48, DType::FP32, kAcc, 0}, layDownNZ(32, 48, 16, 16));
  expectMatches({16, 32, DType::INT32, kAcc, 0}, layDownNZ(16, 32, 16, 16));
}

TEST(Layout, BoxCornersByHand) {
  // FP16 NZ 32x32: box (sr=1, sc=1) starts after two column-1 boxes... worked out by hand:
  // element (16, 16) -> sc=1: 1*32*16 = 512, sr=1: 1*16*16 = 256 -> 768 elements -> byte 1536.
  HandleGeometry g{32, 32, DType::FP16, kNZ, 0};
  EXPECT_EQ(elementByteOffset(g, 0, 0), 0);
  EXPECT_EQ(elementByteOffset(g, 0, 15), 30);
  EXPECT_EQ(elementByteOffset(g, 1, 0), 32);
  EXPECT_EQ(elementByteOffset(g, 16, 0), 512);
  EXPECT_EQ(elementByteOffset(g, 0, 16), 1024);
  EXPECT_EQ(elementByteOffset(g, 16, 16), 1536);
  EXPECT_EQ(elementByteOffset(g, 31, 31), 2046);
  // FP32 ZN 16x32 (box 8x16): element (9, 17): sr=1 -> 1*32*8 = 256; sc=1 -> 128; ic=1 -> 8; ir=1 -> 393.
  HandleGeometry zn{16, 32, DType::FP32, kZN, 0};
  EXPECT_EQ(elementByteOffset(zn, 9, 17), 393 * 4);
}

TEST(Layout, NDUsesThePitchAndDNIsColumnMajor) {
  HandleGeometry nd{4, 8, DType::FP32, Layout{}, 64};  // a window inheriting a 64-byte parent pitch
  EXPECT_EQ(elementByteOffset(nd, 0, 0), 0);
  EXPECT_EQ(elementByteOffset(nd, 1, 0), 64);
  EXPECT_EQ(elementByteOffset(nd, 3, 7), 3 * 64 + 28);
  EXPECT_EQ(handleSpanBytes(nd), 3 * 64 + 32);
  HandleGeometry dn{16, 1, DType::FP32, Layout{TileLayout::col_major, TileLayout::none_box, 512}, 0};
  EXPECT_EQ(elementByteOffset(dn, 5, 0), 20);
  EXPECT_EQ(handleSpanBytes(dn), 64);
}

TEST(Layout, RejectsElementsOutsideAndPartialBoxes) {
  HandleGeometry g{16, 16, DType::FP16, kNZ, 0};
  EXPECT_THROW(elementByteOffset(g, 16, 0), std::logic_error);
  HandleGeometry partial{8, 16, DType::FP16, kNZ, 0};
  EXPECT_THROW(elementByteOffset(partial, 0, 0), std::logic_error);
  HandleGeometry nn{16, 16, DType::FP16, Layout{TileLayout::col_major, TileLayout::col_major, 512}, 0};
  EXPECT_THROW(elementByteOffset(nn, 0, 0), std::logic_error);
}

// ElementAddressing (the per-handle form forEachContiguousRun uses) against the laid-down tables,
// one addressing object per handle, and with elementByteOffset's exact errors.
TEST(Layout, ElementAddressingOnceMatchesTheTablesAndTheErrors) {
  struct Case {
    HandleGeometry g;
    Table table;
  };
  const std::vector<Case> cases = {
      {{32, 16, DType::FP32, kNZ, 0}, layDownNZ(32, 16, 16, 8)},
      {{16, 32, DType::FP32, kZN, 0}, layDownZN(16, 32, 8, 16)},
      {{32, 64, DType::INT8, kZZ, 0}, layDownZZ(32, 64, 16, 32)},
  };
  for (const Case& c : cases) {
    const ElementAddressing addressing(c.g);
    const int64_t esize = dtypeSize(c.g.dtype);
    for (const auto& [rc, element] : c.table)
      ASSERT_EQ(addressing.offset(rc.first, rc.second), element * esize) << "element (" << rc.first << ", " << rc.second << ")";
  }
  const ElementAddressing nd(HandleGeometry{4, 8, DType::FP32, Layout{}, 64});
  EXPECT_EQ(nd.offset(3, 7), 3 * 64 + 28);
  auto message = [](const HandleGeometry& g, int64_t r, int64_t c) {
    try {
      (void)ElementAddressing(g).offset(r, c);
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({16, 16, DType::FP16, kNZ, 0}, 16, 0), "elementByteOffset: element outside the handle");
  EXPECT_EQ(message({8, 16, DType::FP16, kNZ, 0}, 0, 0), "elementByteOffset: boxed handle does not hold whole boxes");
  EXPECT_EQ(message({16, 16, DType::FP16, Layout{TileLayout::col_major, TileLayout::col_major, 512}, 0}, 0, 0),
            "elementByteOffset: layout has no addressing");
}

}  // namespace
}  // namespace ptodiff
