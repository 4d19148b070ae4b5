// The per-op histogram's attribution (device/OutputOps.h): each output tensor's stores traced back
// through views, copies, store chains and loop/branch results to the ops that computed them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "device/OutputOps.h"
#include "device/ScalarMatrix.h"
#include "device/Sources.h"
#include "tests/unit/device/DeviceTestSupport.h"

namespace ptodiff::device {
namespace {

std::map<std::string, std::string> labelsOf(const std::string& text) {
  Program p = parseProgramText(text, "ops.py");
  verifyOrThrow(p);
  return outputOpLabels(*p.findFunction("kernel"));
}

TEST(DeviceOutputOps, TracesViewsCopiesAndStoreChains) {
  const auto labels = labelsOf(R"(import pypto.language as pl


@pl.program
class ops:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               out1: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
               out3: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        e = pl.tile.exp(x)
        m = pl.tile.move(e, target_memory=pl.Mem.Vec)
        s = pl.tile.slice(m, [8, 32], [0, 0])
        o1 = pl.tile.store(s, [0, 0], out1)
        y = pl.tile.add(x, x)
        o2 = pl.tile.store(y, [0, 0], out2)
        o3 = pl.tile.store(x, [16, 0], o2)
        return o1, o3, out3
)");
  EXPECT_EQ(labels.at("out1"), "tile.exp");
  EXPECT_EQ(labels.at("out2"), "tile.add+tile.load") << "a store chain keeps its tensor";
  EXPECT_EQ(labels.at("out3"), "(not stored)");
}

TEST(DeviceOutputOps, FollowsLoopCarriesAndBranchResults) {
  const auto labels = labelsOf(ptodiff::testing::kMatrixProgram);
  EXPECT_EQ(labels.at("out"), "tile.abs+tile.add+tile.exp+tile.muls");
}

TEST(DeviceOutputOps, CubeProgramsNameTheirMatmuls) {
  const std::string path = std::string(PTODIFF_TESTS_DIR) + "/programs/cube_acc_forms.py";
  Program p = parseProgramFile(path);
  verifyOrThrow(p);
  const auto labels = outputOpLabels(*p.findFunction("kernel"));
  EXPECT_EQ(labels.at("out"), "tile.matmul+tile.matmul_acc");
  EXPECT_EQ(labels.at("out16"), "tile.matmul");
}

/// Regression: the judge of 200 generated bundles (seed 1) threw "Expr::arg: no parameter 'tile'"
/// on a stored view whose source operand has another name (tile.extract's `src`).
TEST(DeviceOutputOps, EveryGeneratedKernelOfTheNightlyRunIsAttributed) {
  for (uint64_t index = 0; index < 200; ++index) {
    auto [name, c] = generatedCase(1, index);
    verifyOrThrow(c.program);
    std::map<std::string, std::string> labels;
    ASSERT_NO_THROW(labels = outputOpLabels(*c.program.findFunction("kernel"))) << name;
    for (const auto& [tensor, label] : labels) EXPECT_FALSE(label.empty()) << name << " " << tensor;
  }
}

}  // namespace
}  // namespace ptodiff::device
