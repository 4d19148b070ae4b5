// Tests of the physical machine (interp/Machine.h) and the pure storage checkers (interp/Hazard.h):
// handle addressing (windows inheriting their parent's pitch, a reshape of a UINT8 byte root, NZ
// handles), dense gather/scatter with per-byte poison, addressless placement, and each placement
// and overlap rule. Expected addresses are computed by hand in the comments.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <vector>

#include "compiler/target/Target.h"
#include "interp/Hazard.h"
#include "interp/Machine.h"

namespace ptodiff {
namespace {

Type bufferType(int64_t rows, int64_t cols, DType dt, MemSpace space) { return Type::buffer(rows, cols, dt, space); }

/// An allocation of `type` at `base`: pitch cols * esize, root its own span, fully valid.
Handle allocation(const Type& type, int64_t base) {
  Handle h = makeHandle(type, base, type.cols() * dtypeSize(type.dtype), ByteRange{}, {type.rows(), type.cols()});
  h.root = h.span();
  return h;
}

DenseElements fp32Elements(int64_t rows, int64_t cols, float first) {
  DenseElements d(DType::FP32, rows, cols, nullptr);
  for (int64_t i = 0; i < rows * cols; ++i) {
    const float v = first + static_cast<float>(i);
    std::memcpy(d.bits.data() + i * 4, &v, 4);
  }
  return d;
}

float f32(const DenseElements& d, int64_t r, int64_t c) {
  float v;
  std::memcpy(&v, d.bitsAt(r, c), 4);
  return v;
}

// ---- addressing ----

TEST(Handle, AllocationAddressesRowMajorWithItsOwnPitch) {
  const Handle h = allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 1024);
  EXPECT_EQ(h.geom.pitchBytes, 128);
  EXPECT_EQ(h.byteAt(0, 0), 1024);
  EXPECT_EQ(h.byteAt(3, 5), 1024 + 3 * 128 + 5 * 4);
  EXPECT_EQ(h.span(), (ByteRange{1024, 1024 + 2048}));
  EXPECT_EQ(h.root, h.span());
  EXPECT_EQ(describeHandle(h), "Vec FP32 [16, 32] ND at 1024");
}

TEST(Handle, WindowInheritsItsParentsPitchThroughNesting) {
  const Handle parent = allocation(bufferType(32, 32, DType::FP32, MemSpace::Vec), 4096);
  // Window [8, 16] at (4, 8): base 4096 + 4 * 128 + 8 * 4 = 4640, rows still 128 bytes apart.
  const Handle w = windowHandle(parent, bufferType(8, 16, DType::FP32, MemSpace::Vec), 4, 8, {8, 16});
  EXPECT_EQ(w.base, 4640);
  EXPECT_EQ(w.geom.pitchBytes, 128);
  EXPECT_EQ(w.byteAt(1, 2), 4640 + 128 + 8);
  EXPECT_EQ(w.byteAt(1, 2), parent.byteAt(5, 10));
  EXPECT_EQ(w.span(), (ByteRange{4640, 4640 + 7 * 128 + 64}));  // the last row holds 16 elements only
  EXPECT_EQ(w.root, parent.root);
  // A window of the window keeps the same pitch: (2, 4) of w is (6, 12) of the parent.
  const Handle ww = windowHandle(w, bufferType(4, 8, DType::FP32, MemSpace::Vec), 2, 4, {4, 8});
  EXPECT_EQ(ww.geom.pitchBytes, 128);
  EXPECT_EQ(ww.byteAt(3, 7), parent.byteAt(9, 19));
}

TEST(Handle, ReshapeOfAUint8RootReinterpretsTheSameBytes) {
  // The seed's planned storage view: capacity 4096 at 8192, an FP32 [16, 32] member at 8256.
  const Handle root = allocation(bufferType(128, 32, DType::UINT8, MemSpace::Vec), 8192);
  EXPECT_EQ(root.geom.pitchBytes, 32);
  const Handle bytes = windowHandle(root, bufferType(64, 32, DType::UINT8, MemSpace::Vec), 2, 0, {64, 32});
  EXPECT_EQ(bytes.base, 8256);
  const Handle value = reinterpretHandle(bytes, bufferType(16, 32, DType::FP32, MemSpace::Vec), {16, 32});
  EXPECT_EQ(value.base, 8256);
  EXPECT_EQ(value.geom.pitchBytes, 128);  // dense for the new type, not the byte root's 32
  EXPECT_EQ(value.byteAt(1, 3), 8256 + 128 + 12);
  EXPECT_EQ(value.span(), bytes.span());
  EXPECT_EQ(value.root, (ByteRange{8192, 8192 + 4096}));
}

TEST(Handle, NZHandleAddressesWholeBoxesColumnBlockFirst) {
  const Handle h = allocation(bufferType(32, 32, DType::FP16, MemSpace::Mat), 0);
  ASSERT_TRUE(h.boxed());
  EXPECT_EQ(describeHandle(h), "Mat FP16 [32, 32] NZ at 0");
  // 16 x 16 FP16 boxes; NZ: sc * R * 16 + sr * 256 + ir * 16 + ic elements.
  EXPECT_EQ(h.byteAt(17, 5), (256 + 16 + 5) * 2);
  EXPECT_EQ(h.byteAt(3, 20), (32 * 16 + 3 * 16 + 4) * 2);
  // A window of the lower-left box keeps NZ addressing from its own base (box aligned: 512 B).
  const Handle lower = windowHandle(h, bufferType(16, 32, DType::FP16, MemSpace::Mat), 16, 0, {16, 32});
  EXPECT_EQ(lower.base, 512);
}

TEST(Handle, AccHandleUses1024ByteBoxes) {
  const Handle acc = allocation(bufferType(32, 32, DType::FP32, MemSpace::Acc), 0);
  // 16 x 16 FP32 boxes (1024 B); (17, 18): sc = 1, sr = 1, ir = 1, ic = 2.
  EXPECT_EQ(acc.byteAt(17, 18), (1 * 32 * 16 + 1 * 256 + 16 + 2) * 4);
}

// ---- gather / scatter ----

TEST(Machine, FreshStorageGathersAsPoisonGarbage) {
  Machine m(targetA2A3(), 7, nullptr);
  const Handle h = allocation(bufferType(2, 8, DType::FP32, MemSpace::Vec), 64);
  const DenseElements d = m.gather(h, 0, 0, 2, 8);
  for (uint8_t p : d.poison) EXPECT_EQ(p, 1);
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(d.bits[static_cast<size_t>(i)], ByteArena::garbageByte(7, MemSpace::Vec, 64 + i));
}

TEST(Machine, ScatterThenGatherRoundTripsThroughAWindow) {
  Machine m(targetA2A3(), 0, nullptr);
  const Handle parent = allocation(bufferType(8, 16, DType::FP32, MemSpace::Vec), 0);
  const Handle w = windowHandle(parent, bufferType(2, 8, DType::FP32, MemSpace::Vec), 3, 4, {2, 8});
  const uint32_t event = m.newEvent();
  m.scatter(w, 0, 0, fp32Elements(2, 8, 100.0f), event);
  // Parent element (4, 6) is window element (1, 2) = 100 + 1 * 8 + 2.
  const DenseElements d = m.gather(parent, 3, 4, 2, 8);
  EXPECT_EQ(f32(d, 1, 2), 110.0f);
  for (uint8_t p : d.poison) EXPECT_EQ(p, 0);
  EXPECT_EQ(m.arena(MemSpace::Vec).eventAt(parent.byteAt(4, 6)), event);
  // Bytes between the window's rows were not touched.
  EXPECT_TRUE(m.arena(MemSpace::Vec).isPoison(parent.byteAt(3, 12)));
  EXPECT_TRUE(m.arena(MemSpace::Vec).isPoison(parent.byteAt(4, 3)));
}

// The write log behind the live-clobber check's skip rule: a scatter counts as the hull of the
// bytes it wrote (a window's row gaps included), in its own space; a storage reset touches
// everything; past kWriteLookback writes the answer is "maybe" (true).
TEST(Machine, WrittenSinceAnswersFromTheHullsOfLaterWrites) {
  Machine m(targetA2A3(), 0, nullptr);
  const Handle parent = allocation(bufferType(8, 16, DType::FP32, MemSpace::Vec), 0);
  const Handle w = windowHandle(parent, bufferType(2, 8, DType::FP32, MemSpace::Vec), 3, 4, {2, 8});
  const uint64_t before = m.writesSoFar();
  EXPECT_FALSE(m.writtenSince(before, MemSpace::Vec, {0, 512}));
  m.scatter(w, 0, 0, fp32Elements(2, 8, 1.0f), m.newEvent());  // bytes [208, 240) and [272, 304)
  EXPECT_EQ(m.writesSoFar(), before + 1);
  EXPECT_TRUE(m.writtenSince(before, MemSpace::Vec, {200, 209}));
  EXPECT_TRUE(m.writtenSince(before, MemSpace::Vec, {240, 272}));  // the gap between the rows: conservative
  EXPECT_FALSE(m.writtenSince(before, MemSpace::Vec, {0, 208}));
  EXPECT_FALSE(m.writtenSince(before, MemSpace::Vec, {304, 512}));
  EXPECT_FALSE(m.writtenSince(before, MemSpace::Mat, {0, 512}));  // another space
  EXPECT_FALSE(m.writtenSince(m.writesSoFar(), MemSpace::Vec, {0, 512}));
  const uint64_t afterScatter = m.writesSoFar();
  m.resetStorage();
  EXPECT_TRUE(m.writtenSince(afterScatter, MemSpace::Mat, {0, 1}));
  const uint64_t afterReset = m.writesSoFar();
  const Handle far = allocation(bufferType(1, 8, DType::FP32, MemSpace::Vec), 4096);
  for (int i = 0; i <= Machine::kWriteLookback; ++i) m.scatter(far, 0, 0, fp32Elements(1, 8, 0.0f), m.newEvent());
  EXPECT_TRUE(m.writtenSince(afterReset, MemSpace::Vec, {0, 32}));  // too many writes to look through
  EXPECT_FALSE(m.writtenSince(m.writesSoFar() - 1, MemSpace::Vec, {0, 32}));
}

TEST(Machine, AnElementIsPoisonWhenAnyOfItsBytesIs) {
  Machine m(targetA2A3(), 0, nullptr);
  const Handle h = allocation(bufferType(1, 8, DType::FP32, MemSpace::Vec), 0);
  m.scatter(h, 0, 0, fp32Elements(1, 8, 1.0f), m.newEvent());
  const uint8_t byte = 0;
  m.arena(MemSpace::Vec).write(h.byteAt(0, 3) + 2, &byte, 1, /*poison=*/true, m.newEvent());
  const DenseElements d = m.gather(h, 0, 0, 1, 8);
  for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(d.poisonAt(0, c), c == 3) << c;
}

TEST(Machine, ScatterKeepsPerElementPoisonAndWritesNZBytesWhereTheFormulaSays) {
  Machine m(targetA2A3(), 0, nullptr);
  const Type t = bufferType(16, 16, DType::FP32, MemSpace::Mat);  // NZ FP32: 16 x 8 boxes
  const Handle h = allocation(t, 0);
  DenseElements d = fp32Elements(16, 16, 0.0f);
  d.poison[static_cast<size_t>(5 * 16 + 9)] = 1;
  m.scatter(h, 0, 0, d, m.newEvent());
  // (5, 9): sc = 1, ic = 1 -> element 1 * 16 * 8 + 5 * 8 + 1 = 169, byte 676.
  EXPECT_EQ(h.byteAt(5, 9), 676);
  float v;
  uint8_t raw[4];
  m.arena(MemSpace::Mat).read(676, raw, 4);
  std::memcpy(&v, raw, 4);
  EXPECT_EQ(v, 5.0f * 16 + 9);
  EXPECT_TRUE(m.arena(MemSpace::Mat).isPoison(676));
  EXPECT_FALSE(m.arena(MemSpace::Mat).isPoison(h.byteAt(5, 8)));
  const DenseElements back = m.gather(h, 0, 0, 16, 16);
  EXPECT_EQ(back.bits, d.bits);
  EXPECT_EQ(back.poison, d.poison);
}

// Gathers and scatters move whole regions at once (a dense ND region as one byte range, else one
// arena read of a region's byte hull and one write when a clean region fills its hull); this law
// holds them to the per-element definition on every layout, element size and region (ND pitches
// dense or padded): after a whole-handle write and a region write, each
// element reads back as the last write of it, with its poison and event, and bytes no element
// occupies (an ND handle's row gaps) are never written.
RC_GTEST_PROP(Machine, GatherAndScatterAgreeWithPerElementAddressing, ()) {
  const std::string name = *rc::gen::element<std::string>("ND", "DN", "NZ", "ZN", "ZZ");
  const DType dt = *rc::gen::element(DType::UINT8, DType::FP16, DType::FP32);
  const int esize = dtypeSize(dt);
  const Layout layout = *layoutShorthand(name, 512);
  const std::optional<BoxShape> box = boxShape(layout, dt);
  const int64_t unitRows = box ? box->rows : 1, unitCols = box ? box->cols : 1;
  const int64_t rows = unitRows * *rc::gen::inRange<int64_t>(1, box ? 3 : 12);
  const int64_t cols = unitCols * *rc::gen::inRange<int64_t>(1, box ? 3 : 12);
  Handle h;
  h.space = MemSpace::Mat;
  h.base = 512 * *rc::gen::inRange<int64_t>(0, 4);
  h.geom = HandleGeometry{rows, cols, dt, layout, (cols + (name == "ND" ? *rc::gen::inRange<int64_t>(0, 3) : 0)) * esize};
  h.root = h.span();

  const auto region = [&] {
    const int64_t r0 = *rc::gen::inRange<int64_t>(0, rows), c0 = *rc::gen::inRange<int64_t>(0, cols);
    return std::array<int64_t, 4>{r0, c0, *rc::gen::inRange<int64_t>(1, rows - r0 + 1),
                                  *rc::gen::inRange<int64_t>(1, cols - c0 + 1)};
  };
  const auto elements = [&](int64_t rr, int64_t cc) {
    DenseElements d(dt, rr, cc, nullptr);
    d.bits = *rc::gen::container<std::vector<uint8_t>>(d.bits.size(), rc::gen::arbitrary<uint8_t>());
    if (*rc::gen::arbitrary<bool>())  // half the writes carry poison elements
      d.poison = *rc::gen::container<std::vector<uint8_t>>(d.poison.size(), rc::gen::inRange<uint8_t>(0, 2));
    return d;
  };
  Machine m(targetA2A3(), 5, nullptr);
  const DenseElements whole = elements(rows, cols);
  const uint32_t first = m.newEvent();
  m.scatter(h, 0, 0, whole, first);
  const auto [r0, c0, rr, cc] = region();
  const DenseElements part = elements(rr, cc);
  const uint32_t second = m.newEvent();
  m.scatter(h, r0, c0, part, second);

  const auto inPart = [&](int64_t r, int64_t c) { return r >= r0 && r < r0 + rr && c >= c0 && c < c0 + cc; };
  const ByteArena& arena = m.arena(MemSpace::Mat);
  std::vector<bool> occupied(static_cast<size_t>(h.span().end - h.base), false);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const bool p = inPart(r, c);
      const uint8_t* bits = p ? part.bitsAt(r - r0, c - c0) : whole.bitsAt(r, c);
      const bool poison = p ? part.poisonAt(r - r0, c - c0) : whole.poisonAt(r, c);
      for (int b = 0; b < esize; ++b) {
        const int64_t addr = h.byteAt(r, c) + b;
        occupied[static_cast<size_t>(addr - h.base)] = true;
        uint8_t byte = 0;
        arena.read(addr, &byte, 1);
        RC_ASSERT(byte == bits[b]);
        RC_ASSERT(arena.isPoison(addr) == poison);
        RC_ASSERT(arena.eventAt(addr) == (p ? second : first));
      }
    }
  for (size_t i = 0; i < occupied.size(); ++i)
    if (!occupied[i]) RC_ASSERT(arena.eventAt(h.base + static_cast<int64_t>(i)) == ByteArena::kNoEvent);

  const auto [g0, d0, gr, gc] = region();
  const DenseElements read = m.gather(h, g0, d0, gr, gc);
  for (int64_t r = 0; r < gr; ++r)
    for (int64_t c = 0; c < gc; ++c) {
      const int64_t R = g0 + r, C = d0 + c;
      const bool p = inPart(R, C);
      const uint8_t* bits = p ? part.bitsAt(R - r0, C - c0) : whole.bitsAt(R, C);
      RC_ASSERT(std::memcmp(read.bitsAt(r, c), bits, static_cast<size_t>(esize)) == 0);
      RC_ASSERT(read.poisonAt(r, c) == (p ? part.poisonAt(R - r0, C - c0) : whole.poisonAt(R, C)));
    }
}

TEST(Machine, PoisonRegionKeepsTheBits) {
  Machine m(targetA2A3(), 0, nullptr);
  const Handle h = allocation(bufferType(2, 8, DType::FP32, MemSpace::Vec), 0);
  m.scatter(h, 0, 0, fp32Elements(2, 8, 3.0f), m.newEvent());
  m.poisonRegion(h, 1, 2, 1, 3, m.newEvent());
  const DenseElements d = m.gather(h, 0, 0, 2, 8);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      EXPECT_EQ(d.poisonAt(r, c), r == 1 && c >= 2 && c < 5) << r << "," << c;
      EXPECT_EQ(f32(d, r, c), 3.0f + static_cast<float>(r * 8 + c));
    }
}

TEST(Machine, ResetStorageMakesEveryBytePoisonAgainButEventsKeepCounting) {
  Machine m(targetA2A3(), 0, nullptr);
  const Handle h = allocation(bufferType(1, 8, DType::FP32, MemSpace::Vec), 0);
  const uint32_t first = m.newEvent();
  m.scatter(h, 0, 0, fp32Elements(1, 8, 0.0f), first);
  m.resetStorage();
  EXPECT_TRUE(m.arena(MemSpace::Vec).isPoison(0));
  EXPECT_EQ(m.arena(MemSpace::Vec).pagesTouched(), 0);
  EXPECT_GT(m.newEvent(), first);
}

TEST(Machine, ArenasAreSizedByTheTarget) {
  EXPECT_EQ(Machine(targetA2A3(), 0, nullptr).arena(MemSpace::Vec).capacity(), 192 * 1024);
  EXPECT_EQ(Machine(targetA2A3(), 0, nullptr).arena(MemSpace::Acc).capacity(), 128 * 1024);
  EXPECT_EQ(Machine(targetA5(), 0, nullptr).arena(MemSpace::Acc).capacity(), 256 * 1024);
}

TEST(Machine, GatherOutsideTheHandleIsAHarnessBug) {
  Machine m(targetA2A3(), 0, nullptr);
  const Handle h = allocation(bufferType(2, 8, DType::FP32, MemSpace::Vec), 0);
  EXPECT_THROW(m.gather(h, 1, 0, 2, 8), std::logic_error);
  const Handle outside = allocation(bufferType(2, 8, DType::FP32, MemSpace::Vec), 192 * 1024);
  EXPECT_THROW(m.gather(outside, 0, 0, 1, 1), std::logic_error);
}

// ---- addressless placement ----

TEST(Machine, AddresslessPlacementIsFirstRequestOrderAlignedAndStable) {
  Machine m(targetA2A3(), 0, nullptr);
  int siteA = 0, siteB = 0, siteC = 0;
  EXPECT_EQ(m.placeAddressless(&siteA, MemSpace::Acc, 100, 32), 0);
  EXPECT_EQ(m.placeAddressless(&siteB, MemSpace::Acc, 4096, 1024), 1024);  // 100 rounded up to a 1024-byte box
  EXPECT_EQ(m.placeAddressless(&siteA, MemSpace::Acc, 100, 32), 0);        // the same site, the same address
  EXPECT_EQ(m.placeAddressless(&siteC, MemSpace::Vec, 64, 32), 0);         // spaces are independent
  EXPECT_EQ(m.addresslessEnd(MemSpace::Acc), 1024 + 4096);
  m.resetStorage();
  EXPECT_EQ(m.placeAddressless(&siteB, MemSpace::Acc, 4096, 1024), 1024);  // kept across blocks
}

TEST(Machine, AddresslessPlacementPastTheUsableCapacityIsACapacityHazard) {
  Machine m(targetA2A3(), 0, nullptr);
  int a = 0, b = 0;
  m.placeAddressless(&a, MemSpace::Vec, 184 * 1024 - 32, 32);  // [0, 188384): room for 32 more bytes
  try {
    m.placeAddressless(&b, MemSpace::Vec, 64, 32);
    FAIL() << "expected a capacity hazard";
  } catch (const HazardFault& f) {
    EXPECT_EQ(f.hazard.kind, HazardKind::Capacity);
    EXPECT_EQ(f.hazard.detail,
              "addressless allocations need 188448 B of Vec (this one: 64 B at 188384); the usable capacity of a2a3 Vec "
              "is 188416 B");
  }
}

// ---- placement checker ----

std::optional<HazardKind> placementKind(const Handle& h, const Target& t = targetA2A3()) {
  const std::optional<Hazard> found = checkPlacement(h, t, "x");
  return found ? std::optional<HazardKind>(found->kind) : std::nullopt;
}

TEST(CheckPlacement, AcceptsWellPlacedHandles) {
  EXPECT_EQ(placementKind(allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 0)), std::nullopt);
  EXPECT_EQ(placementKind(allocation(bufferType(64, 64, DType::FP16, MemSpace::Mat), 512 * 1024 - 8192)), std::nullopt);
  EXPECT_EQ(placementKind(allocation(bufferType(16, 16, DType::FP32, MemSpace::Acc), 1024)), std::nullopt);
  // The last usable UB bytes end exactly where the reserved range starts.
  EXPECT_EQ(placementKind(allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 184 * 1024 - 2048)), std::nullopt);
}

TEST(CheckPlacement, AlignRules) {
  const std::optional<Hazard> base = checkPlacement(allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 8200),
                                                    targetA2A3(), "y");
  ASSERT_TRUE(base);
  EXPECT_EQ(base->kind, HazardKind::Align);
  EXPECT_EQ(base->detail, "y: base address 8200 is not 32-byte aligned");
  // Vec rows of 16 bytes; a col-major Vec [R, 1] column of 3 x 4 = 12 bytes.
  EXPECT_EQ(placementKind(allocation(bufferType(16, 4, DType::FP32, MemSpace::Vec), 0)), HazardKind::Align);
  const Type column = bufferType(3, 1, DType::FP32, MemSpace::Vec);
  ASSERT_EQ(column.layout.blayout, TileLayout::col_major);
  EXPECT_EQ(placementKind(allocation(column, 0)), HazardKind::Align);
  EXPECT_EQ(placementKind(allocation(bufferType(8, 1, DType::FP32, MemSpace::Vec), 0)), std::nullopt);
  // Boxed: not box-aligned, or not whole boxes.
  EXPECT_EQ(placementKind(allocation(bufferType(16, 16, DType::FP32, MemSpace::Acc), 512)), HazardKind::Align);
  EXPECT_EQ(placementKind(allocation(bufferType(15, 16, DType::FP16, MemSpace::Mat), 0)), HazardKind::Align);
  // Mat ND rows need not be 32-byte multiples (the pitch rule is UB's).
  Type matNd = bufferType(4, 4, DType::FP32, MemSpace::Mat);
  matNd.layout = Layout{};
  EXPECT_EQ(placementKind(allocation(matNd, 0)), std::nullopt);
}

TEST(CheckPlacement, BoundsOfTheSpaceAndOfTheRoot) {
  const std::optional<Hazard> past =
      checkPlacement(allocation(bufferType(64, 64, DType::FP16, MemSpace::Mat), 520192), targetA2A3(), "m");
  ASSERT_TRUE(past);
  EXPECT_EQ(past->kind, HazardKind::Bounds);
  EXPECT_EQ(past->detail, "m: bytes [520192, 528384) leave a2a3 Mat [0, 524288)");
  EXPECT_EQ(placementKind(allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), -32)), HazardKind::Bounds);
  // A reinterpretation bigger than its root leaves the root.
  const Handle root = allocation(bufferType(16, 32, DType::UINT8, MemSpace::Vec), 0);
  const Handle big = reinterpretHandle(root, bufferType(16, 32, DType::FP32, MemSpace::Vec), {16, 32});
  const std::optional<Hazard> leaves = checkPlacement(big, targetA2A3(), "v");
  ASSERT_TRUE(leaves);
  EXPECT_EQ(leaves->kind, HazardKind::Bounds);
  EXPECT_EQ(leaves->detail, "v: bytes [0, 2048) leave the root allocation [0, 512)");
}

TEST(CheckPlacement, ReservedScratchPerTarget) {
  const Handle h = allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 187392);
  const std::optional<Hazard> found = checkPlacement(h, targetA2A3(), "x");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->kind, HazardKind::Reserved);
  EXPECT_EQ(found->detail, "x: bytes [187392, 189440) touch the reserved scratch range [188416, 196608) of a2a3 Vec");
  EXPECT_EQ(placementKind(h, targetA5()), std::nullopt);  // a5 reserves [240 KiB, 248 KiB)
  EXPECT_EQ(placementKind(allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 240 * 1024), targetA5()),
            HazardKind::Reserved);
}

// ---- footprints and overlap ----

TEST(Footprint, WindowRowsAreSeparateRangesAndBoxesMerge) {
  const Handle parent = allocation(bufferType(4, 32, DType::FP32, MemSpace::Vec), 0);
  const Handle w = windowHandle(parent, bufferType(2, 8, DType::FP32, MemSpace::Vec), 1, 4, {2, 8});
  EXPECT_EQ(footprint(w, 0, 0, 2, 8), (std::vector<ByteRange>{{144, 176}, {272, 304}}));
  // A whole NZ handle is one dense range.
  const Handle nz = allocation(bufferType(16, 32, DType::FP16, MemSpace::Mat), 1024);
  EXPECT_EQ(footprint(nz, 0, 0, 16, 32), (std::vector<ByteRange>{{1024, 1024 + 1024}}));
  // Its left column block only: the first 512-byte box.
  EXPECT_EQ(footprint(nz, 0, 0, 16, 16), (std::vector<ByteRange>{{1024, 1536}}));
}

TEST(Footprint, RangesOverlapReportsTheFirstSharedRange) {
  ByteRange where;
  EXPECT_TRUE(rangesOverlap({{0, 10}, {20, 30}}, {{12, 18}, {25, 40}}, &where));
  EXPECT_EQ(where, (ByteRange{25, 30}));
  EXPECT_FALSE(rangesOverlap({{0, 10}, {20, 30}}, {{10, 20}, {30, 40}}));
}

TEST(CheckOverlap, IdenticalWindowIsInPlaceSafeOnlyForOpsThatAllowIt) {
  const Handle a = allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 0);
  const Handle b = allocation(bufferType(16, 32, DType::FP32, MemSpace::Vec), 0);  // the same window again
  ASSERT_TRUE(identicalWindow(a, b));
  const OperandFootprint dst{&a, "d", 0, 0, 16, 32}, src{&b, "s", 0, 0, 16, 32};
  EXPECT_EQ(checkOverlap("buffer.exp", dst, {src}, /*inPlaceSafe=*/true), std::nullopt);
  const std::optional<Hazard> recip = checkOverlap("buffer.recip", dst, {src}, /*inPlaceSafe=*/false);
  ASSERT_TRUE(recip);
  EXPECT_EQ(recip->kind, HazardKind::Overlap);
  EXPECT_EQ(recip->detail,
            "buffer.recip: destination d (bytes [0, 2048)) overlaps source s (bytes [0, 2048)) first at bytes [0, 2048); "
            "buffer.recip cannot run in place");
}

TEST(CheckOverlap, PartialOverlapAndNearMissesAndOtherSpaces) {
  const Handle whole = allocation(bufferType(32, 32, DType::FP32, MemSpace::Vec), 0);
  const Handle top = windowHandle(whole, bufferType(16, 32, DType::FP32, MemSpace::Vec), 0, 0, {16, 32});
  const Handle mid = windowHandle(whole, bufferType(16, 32, DType::FP32, MemSpace::Vec), 8, 0, {16, 32});
  const Handle bottom = windowHandle(whole, bufferType(16, 32, DType::FP32, MemSpace::Vec), 16, 0, {16, 32});
  EXPECT_FALSE(identicalWindow(top, whole));  // same base and pitch, different shape
  const std::optional<Hazard> partial =
      checkOverlap("buffer.add", {&top, "top", 0, 0, 16, 32}, {{&mid, "mid", 0, 0, 16, 32}}, true);
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->detail,
            "buffer.add: destination top (bytes [0, 2048)) overlaps source mid (bytes [1024, 3072)) first at bytes "
            "[1024, 2048) without being the identical window");
  EXPECT_EQ(checkOverlap("buffer.add", {&top, "top", 0, 0, 16, 32}, {{&bottom, "bottom", 0, 0, 16, 32}}, true),
            std::nullopt);
  // Only the region an op touches counts: 8 valid rows of `top` stay clear of `mid`.
  EXPECT_EQ(checkOverlap("buffer.add", {&top, "top", 0, 0, 8, 32}, {{&mid, "mid", 0, 0, 16, 32}}, true), std::nullopt);
  // Different spaces never overlap.
  const Handle acc = allocation(bufferType(16, 16, DType::FP32, MemSpace::Acc), 0);
  const Handle left = allocation(bufferType(16, 16, DType::FP16, MemSpace::Left), 0);
  EXPECT_EQ(checkOverlap("buffer.matmul", {&acc, "c", 0, 0, 16, 16}, {{&left, "l", 0, 0, 16, 16}}, false), std::nullopt);
}

TEST(Hazard, KindNamesRoundTrip) {
  for (HazardKind k : {HazardKind::Bounds, HazardKind::Align, HazardKind::Reserved, HazardKind::Overlap,
                       HazardKind::LiveClobber, HazardKind::Capacity, HazardKind::Valid, HazardKind::EmptyOp,
                       HazardKind::Uninit, HazardKind::Addressless})
    EXPECT_EQ(parseHazardKind(hazardKindName(k)), k);
  EXPECT_EQ(hazardKindName(HazardKind::LiveClobber), "live-clobber");
  EXPECT_EQ(hazardKindName(HazardKind::EmptyOp), "empty-op");
  EXPECT_EQ(parseHazardKind("nonsense"), std::nullopt);
  EXPECT_EQ((Hazard{HazardKind::Valid, "buffer.load: x", {}}.message()), "valid: buffer.load: x");
}

}  // namespace
}  // namespace ptodiff
