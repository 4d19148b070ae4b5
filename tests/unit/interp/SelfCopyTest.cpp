// Exact self-copies and the overlap checker (docs/decisions.md, "Exact self-copies pass the
// overlap checker"): a transfer (move, copy, extract, assemble's source write, an in-place
// result's input copy) whose every lane lands on the byte address it is read from copies bits onto
// themselves, a no-op, so checkTransferOverlap accepts it; any other shared byte stays `hazard:
// overlap` (semantics.md §5: transfers cannot run in place), and the ops that compute (recip,
// matmul, reductions) keep the plain check. The lowering produces such self-copies only where it
// proves them exact and then removes them (seed 000, W6/W10); planned inputs keep them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/BufferInterpreter.h"
#include "interp/CaseSetup.h"
#include "interp/Hazard.h"
#include "interp/Machine.h"
#include "interp/PlannedTileInterpreter.h"
#include "interp/TileInterpreter.h"
#include "tests/unit/interp/InterpTestSupport.h"

namespace ptodiff {
namespace {

using testing::compileProgram;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::lineOf;
using testing::sentinelTensor;
using testing::smallValue;

Type vecType(int64_t rows, int64_t cols, DType dt = DType::FP32) { return Type::buffer(rows, cols, dt, MemSpace::Vec); }

/// An allocation of `type` at `base`: pitch cols * esize, root its own span, fully valid.
Handle allocation(const Type& type, int64_t base) {
  Handle h = makeHandle(type, base, type.cols() * dtypeSize(type.dtype), ByteRange{}, {type.rows(), type.cols()});
  h.root = h.span();
  return h;
}

// ---- the checker ----

TEST(CheckTransferOverlap, TheIdenticalWindowIsAnExactSelfCopy) {
  const Handle a = allocation(vecType(16, 32), 0);
  const Handle b = allocation(vecType(16, 32), 0);  // the same window again (another handle)
  const OperandFootprint dst{&a, "d", 0, 0, 16, 32}, src{&b, "s", 0, 0, 16, 32};
  EXPECT_TRUE(exactSelfCopy(dst, src));
  EXPECT_EQ(checkTransferOverlap("buffer.copy", dst, src), std::nullopt);
  // The plain check for an op that computes is unchanged: recip over the same window is a hazard.
  ASSERT_TRUE(checkOverlap("buffer.recip", dst, {src}, /*inPlaceSafe=*/false));
}

TEST(CheckTransferOverlap, AWindowShiftedByOneRowIsStillAnOverlap) {
  const Handle whole = allocation(vecType(32, 32), 0);
  const Handle top = windowHandle(whole, vecType(16, 32), 0, 0, {16, 32});
  const Handle down1 = windowHandle(whole, vecType(16, 32), 1, 0, {16, 32});
  const OperandFootprint dst{&down1, "dst", 0, 0, 16, 32}, src{&top, "src", 0, 0, 16, 32};
  EXPECT_FALSE(exactSelfCopy(dst, src));
  const std::optional<Hazard> h = checkTransferOverlap("buffer.copy", dst, src);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->kind, HazardKind::Overlap);
  EXPECT_EQ(h->detail,
            "buffer.copy: destination dst (bytes [128, 2176)) overlaps source src (bytes [0, 2048)) first at bytes "
            "[128, 2048); buffer.copy cannot run in place");
}

TEST(CheckTransferOverlap, SameBaseButAnotherPitchOrDtypeIsNotASelfCopy) {
  // A [16, 32] window of a [16, 64] parent (pitch 256 B) against a dense [16, 32] at the same base
  // (pitch 128 B): row 0 coincides, row 1 does not.
  const Handle wide = allocation(vecType(16, 64), 0);
  const Handle narrowView = windowHandle(wide, vecType(16, 32), 0, 0, {16, 32});
  const Handle dense = allocation(vecType(16, 32), 0);
  EXPECT_FALSE(exactSelfCopy({&dense, "d", 0, 0, 16, 32}, {&narrowView, "s", 0, 0, 16, 32}));
  ASSERT_TRUE(checkTransferOverlap("buffer.copy", {&dense, "d", 0, 0, 16, 32}, {&narrowView, "s", 0, 0, 16, 32}));
  // One row only: those lanes do coincide.
  EXPECT_EQ(checkTransferOverlap("buffer.copy", {&dense, "d", 0, 0, 1, 32}, {&narrowView, "s", 0, 0, 1, 32}),
            std::nullopt);
  // Same bytes, another element type: a copy never converts, so it is not a self-copy.
  const Handle halves = allocation(vecType(16, 64, DType::FP16), 0);
  EXPECT_FALSE(exactSelfCopy({&dense, "d", 0, 0, 16, 32}, {&halves, "s", 0, 0, 16, 32}));
}

TEST(CheckTransferOverlap, AnExtractOrAssembleThroughAnOffsetOntoTheSameLanesIsASelfCopy) {
  // Rows [16, 32) of a [32, 32] tile, read at offset 16 and written through a [16, 32] window
  // placed at row 16 (assemble_grow's `assemble(canvas, win, [16, 0])`).
  const Handle canvas = allocation(vecType(32, 32), 4096);
  const Handle win = windowHandle(canvas, vecType(16, 32), 16, 0, {16, 32});
  EXPECT_EQ(checkTransferOverlap("tile.assemble", {&canvas, "same", 16, 0, 16, 32}, {&win, "win", 0, 0, 16, 32}),
            std::nullopt);
  EXPECT_EQ(checkTransferOverlap("buffer.extract", {&win, "w", 0, 0, 16, 32}, {&canvas, "c", 16, 0, 16, 32}),
            std::nullopt);
  // The same window at offset 15 instead: every lane one row off.
  ASSERT_TRUE(checkTransferOverlap("buffer.extract", {&win, "w", 0, 0, 16, 32}, {&canvas, "c", 15, 0, 16, 32}));
}

TEST(CheckTransferOverlap, BoxedLayoutsCompareLaneAddresses) {
  // An NZ FP16 Mat tile (16 x 16 boxes, column block first) copied onto itself is a self-copy.
  const Handle a = allocation(Type::buffer(32, 32, DType::FP16, MemSpace::Mat), 0);
  const Handle b = allocation(Type::buffer(32, 32, DType::FP16, MemSpace::Mat), 0);
  ASSERT_TRUE(a.boxed());
  EXPECT_TRUE(exactSelfCopy({&a, "d", 0, 0, 32, 32}, {&b, "s", 0, 0, 32, 32}));
  EXPECT_EQ(checkTransferOverlap("buffer.copy", {&a, "d", 0, 0, 32, 32}, {&b, "s", 0, 0, 32, 32}), std::nullopt);
  // Rows [0, 16) of `a` (bytes [0, 512) and [1024, 1536)) against a [16, 32] NZ tile based at byte
  // 512 (bytes [512, 1536)): both put lanes (r, 16..31) in [1024, 1536), but lanes (r, 0..15) sit
  // at different bytes, so the copy is not onto itself and the shared box is an overlap.
  const Handle c = allocation(Type::buffer(16, 32, DType::FP16, MemSpace::Mat), 512);
  EXPECT_FALSE(exactSelfCopy({&a, "d", 0, 0, 16, 32}, {&c, "s", 0, 0, 16, 32}));
  const std::optional<Hazard> h = checkTransferOverlap("buffer.copy", {&a, "d", 0, 0, 16, 32}, {&c, "s", 0, 0, 16, 32});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->detail,
            "buffer.copy: destination d (bytes [0, 1536)) overlaps source s (bytes [512, 1536)) first at bytes "
            "[1024, 1536); buffer.copy cannot run in place");
}

// ---- the planned-Tile interpreter ----

const char* kSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]";

KernelArgs argsFor() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  return args;
}

/// x loaded at byte 0 of a 4096-byte root at addr 0, y = move(x) at byte `yOffset` of the same
/// root, y stored.
std::string selfMoveProgram(int64_t yOffset) {
  return kernelProgram(kSignature,
                       "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n"
                       "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = "
                       "pl.tile.load(a, [0, 0], [16, 32])\n"
                       "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, " + std::to_string(yOffset) +
                           ", 2048), pl.Mem.Vec] = pl.tile.move(x, target_memory=pl.Mem.Vec)\n"
                       "        o = pl.tile.store(y, [0, 0], out)\n"
                       "        return o\n");
}

TEST(PlannedSelfCopy, AMoveOntoItsIdenticalWindowRunsAndLeavesTheBitsUnchanged) {
  const Program p = compileProgram(selfMoveProgram(0));
  const RunResult planned = runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
  ASSERT_EQ(planned.status, RunStatus::Ok) << planned.diagnostic.message;
  // out holds a's bits, element for element: the self-copy changed nothing.
  const KernelArgs args = argsFor();
  const Tensor& in = args.tensors.at("a");
  const Tensor& out = planned.final.tensors.at("out");
  for (int64_t i = 0; i < in.elements(); ++i) {
    ASSERT_EQ(out.bitsAt(i), in.bitsAt(i)) << "element " << i;
    ASSERT_EQ(out.poison[static_cast<size_t>(i)], 0) << "element " << i;
  }
}

TEST(PlannedSelfCopy, AMoveOntoTheWindowOneRowDownIsStillAnOverlap) {
  const std::string text = selfMoveProgram(128);  // one FP32 row of 32 elements
  const Program p = compileProgram(text);
  const RunResult r = runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  EXPECT_EQ(r.hazard->loc.line, lineOf(text, "y: "));
  EXPECT_EQ(r.hazard->message(),
            "overlap: tile.move: destination y (bytes [128, 2176)) overlaps source x (bytes [0, 2048)) first at bytes "
            "[128, 2048); tile.move cannot run in place");
}

TEST(PlannedSelfCopy, RecipOnItsIdenticalWindowStaysAHazard) {
  // The exemption is for transfers only: recip computes, and reads lanes it has already written.
  const std::string text = kernelProgram(kSignature,
                                         "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                                         "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = "
                                         "pl.tile.load(a, [0, 0], [16, 32])\n"
                                         "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = "
                                         "pl.tile.recip(x)\n"
                                         "        o = pl.tile.store(y, [0, 0], out)\n"
                                         "        return o\n");
  const Program p = compileProgram(text);
  const RunResult r = runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  EXPECT_EQ(r.hazard->message(),
            "overlap: tile.recip: destination y (bytes [0, 2048)) overlaps source x (bytes [0, 2048)) first at bytes "
            "[0, 2048); tile.recip cannot run in place");
}

// The two lower-buffer golden inputs the audit found flagged (N1): each holds an exact self-copy
// (assemble_grow: `assemble(canvas, win, [16, 0])` with win canvas's own rows [16, 32);
// runtime_valid_windows: `move(e)` onto e's window). They now run clean and give the value
// interpreter's outputs.
void expectGoldenInputMatchesTheValueRun(const std::string& name, const std::map<std::string, std::string>& scalars) {
  const std::filesystem::path path = std::filesystem::path(PTODIFF_TESTS_DIR) / "golden" / "lower-buffer" / name;
  Program p = parseProgramFile(path.string());
  verifyOrThrow(p);
  const Function& kernel = *p.defaultKernel();
  ASSERT_TRUE(isPlannedTileKernel(kernel)) << name;
  ArgOverrides overrides;
  overrides.scalars = scalars;
  const KernelArgs args = buildKernelArgs(kernel, CaseSpec{}, overrides);
  const RunResult planned = runPlannedTileKernel(p, kernel, args);
  ASSERT_EQ(planned.status, RunStatus::Ok) << name << ": " << planned.diagnostic.message;
  const RunResult value = runTileKernel(p, kernel, args);
  ASSERT_EQ(value.status, RunStatus::Ok) << name << ": " << value.diagnostic.message;
  for (const auto& [tensor, expected] : value.final.tensors) {
    const Tensor& actual = planned.final.tensors.at(tensor);
    for (int64_t i = 0; i < expected.elements(); ++i) {
      const auto k = static_cast<size_t>(i);
      ASSERT_TRUE(actual.bitsAt(i) == expected.bitsAt(i) && actual.poison[k] == expected.poison[k] &&
                  actual.written[k] == expected.written[k])
          << name << ": " << tensor << " element " << i;
    }
  }
}

TEST(PlannedSelfCopy, LowerBufferGoldenInputsWithExactSelfCopiesRunClean) {
  expectGoldenInputMatchesTheValueRun("assemble_grow.py", {});
  expectGoldenInputMatchesTheValueRun("runtime_valid_windows.py", {{"n", "4"}, {"m", "3"}, {"r", "0"}});
}

// ---- the Buffer interpreter ----

constexpr const char* kBufferKernel =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
    "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
    "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
    "        root: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
    "        src: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(root, [0, 0])\n";

TEST(BufferSelfCopy, ACopyOntoTheSameWindowRunsAndOneRowOffIsAnOverlap) {
  const auto run = [](const std::string& dstRow) {
    // Appended piece by piece: GCC 12 misreads a chain of `+` on temporaries here as an
    // out-of-bounds copy (-Warray-bounds) once the test headers are precompiled.
    std::string text = kBufferKernel;
    text += "        dst: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(root, [";
    text += dstRow;
    text += ", 0])\n"
            "        pl.buffer.load(a, [0, 0], [16, 32], src)\n"
            "        pl.buffer.copy(src, dst)\n"
            "        pl.buffer.store(dst, [0, 0], [16, 32], out)\n"
            "        return out\n";
    const Program p = compileProgram(text);
    return runBufferKernel(p, *p.defaultKernel(), argsFor());
  };
  const RunResult same = run("0");
  ASSERT_EQ(same.status, RunStatus::Ok) << same.diagnostic.message;
  const KernelArgs args = argsFor();
  const Tensor& in = args.tensors.at("a");
  for (int64_t i = 0; i < in.elements(); ++i) ASSERT_EQ(same.final.tensors.at("out").bitsAt(i), in.bitsAt(i));

  const RunResult shifted = run("1");
  ASSERT_EQ(shifted.status, RunStatus::Hazard) << shifted.diagnostic.message;
  EXPECT_EQ(shifted.hazard->message(),
            "overlap: buffer.copy: destination dst (bytes [128, 2176)) overlaps source src (bytes [0, 2048)) first at "
            "bytes [128, 2048); buffer.copy cannot run in place");
}

}  // namespace
}  // namespace ptodiff
