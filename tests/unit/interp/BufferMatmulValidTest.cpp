// Buffer matmul / matmul_acc and the destination's valid region (contract rule M8, semantics.md
// §4, seed 000 "Matrix storage"): PTOAS requires a native matmul destination to match the product,
// so where the Acc is wider the lowering writes through a product-shaped view of the same storage.
// The interpreter checks that the destination handle's valid region is exactly [vr_L, vc_R]; a
// lowering that writes through the wider Acc handle itself is a located `hazard: valid`.
#include <gtest/gtest.h>

#include <string>

#include "InterpTestSupport.h"
#include "interp/BufferInterpreter.h"

namespace ptodiff::testing {
namespace {

/// Ones in FP16 Mat; an [8, 4] x [4, 8] product (each lane 4.0) written through the product view
/// `pv` ([8, 8] valid over the Acc's bytes), then `op` of the same product into `destination` (one
/// of the declarations below), then `pv` stored.
std::string productProgram(const std::string& op, const std::string& destination) {
  return "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
         "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
         "    def kernel(self, a: pl.Tensor[[32, 32], pl.FP16],\n"
         "               out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:\n"
         "        m: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)\n"
         "        l: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[8, 4])] = "
         "pl.buffer.alloc((), 0)\n"
         "        r: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Right, pl.TileView(valid_shape=[32, 8])] = "
         "pl.buffer.alloc((), 0)\n"
         "        acc: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)\n"
         "        pv: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[8, 8])] = "
         "pl.buffer.alloc((), 0)\n"
         "        pl.buffer.load(a, [0, 0], [32, 32], m)\n"
         "        pl.buffer.copy(m, l)\n"
         "        pl.buffer.copy(m, r)\n"
         "        pl.buffer.matmul(l, r, pv)\n"
         "        pl.buffer." + op + "(l, r, " + destination + ")\n"
         "        pl.buffer.store(pv, [0, 0], [8, 8], out)\n"
         "        return out\n";
}

KernelArgs onesArgs() {
  KernelArgs args;
  args.tensors["a"] = bitsTensor(DType::FP16, 32, 32, [](int64_t, int64_t) { return uint64_t{0x3C00}; });  // 1.0
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  return args;
}

RunResult run(const std::string& text) {
  const Program p = compileProgram(text);
  return runBufferKernel(p, *p.defaultKernel(), onesArgs(), RunConfig{});
}

TEST(BufferMatmulValid, ProductShapedViewOfAWiderAccRuns) {
  // M8: both writes go through the [8, 8] view; a product lane is K = 4 ones summed, and
  // matmul_acc adds a second product in place.
  for (const std::string op : {"matmul", "matmul_acc"}) {
    const RunResult r = run(productProgram(op, "pv"));
    ASSERT_EQ(r.status, RunStatus::Ok) << op << ": " << r.diagnostic.message;
    const float expected = op == "matmul" ? 4.0f : 8.0f;
    for (int64_t row = 0; row < 8; ++row)
      for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(f32At(r.final.tensors.at("out"), row, c), expected) << op;
  }
}

TEST(BufferMatmulValid, WritingThroughTheWiderAccHandleIsAValidHazard) {
  // The Acc handle is valid [32, 32] but the product is [8, 8]: the product view was dropped (M8).
  for (const std::string op : {"matmul", "matmul_acc"}) {
    const std::string text = productProgram(op, "acc");
    const RunResult r = run(text);
    ASSERT_EQ(r.status, RunStatus::Hazard) << op << ": " << r.diagnostic.message;
    EXPECT_EQ(r.hazard->kind, HazardKind::Valid);
    EXPECT_EQ(r.hazard->loc, (SourceLoc{lineOf(text, "pl.buffer." + op + "(l, r, acc)"), 9})) << op;
    EXPECT_EQ(r.hazard->detail, "buffer." + op +
                                    ": the destination acc's valid region [32, 32] differs from the product [8, 8]; "
                                    "the lowering must write through a product-shaped view (M8)")
        << op;
    EXPECT_EQ(r.diagnostic.file, kTestFile);
    EXPECT_FALSE(writtenAt(r.final.tensors.at("out"), 0, 0)) << op;  // the run stopped at the hazard
  }
}

TEST(BufferMatmulValid, ADestinationNarrowerThanTheProductIsAValidHazard) {
  // An [8, 8] product into a view valid [4, 8]: the product lanes outside it would be written
  // through a handle that does not claim them.
  const std::string text =
      "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
      "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
      "    def kernel(self, a: pl.Tensor[[32, 32], pl.FP16],\n"
      "               out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:\n"
      "        m: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)\n"
      "        l: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[8, 4])] = pl.buffer.alloc((), 0)\n"
      "        r: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Right, pl.TileView(valid_shape=[32, 8])] = "
      "pl.buffer.alloc((), 0)\n"
      "        c: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[4, 8])] = pl.buffer.alloc((), 0)\n"
      "        pl.buffer.load(a, [0, 0], [32, 32], m)\n"
      "        pl.buffer.copy(m, l)\n"
      "        pl.buffer.copy(m, r)\n"
      "        pl.buffer.matmul(l, r, c)\n"
      "        pl.buffer.store(c, [0, 0], [4, 8], out)\n"
      "        return out\n";
  const RunResult r = run(text);
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  EXPECT_EQ(r.hazard->kind, HazardKind::Valid);
  EXPECT_EQ(r.hazard->loc, (SourceLoc{lineOf(text, "pl.buffer.matmul(l, r, c)"), 9}));
  EXPECT_EQ(r.hazard->detail,
            "buffer.matmul: the destination c's valid region [4, 8] differs from the product [8, 8]; "
            "the lowering must write through a product-shaped view (M8)");
}

}  // namespace
}  // namespace ptodiff::testing
