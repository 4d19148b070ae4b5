// Symbolic equivalence in the differential library (DifferentialOptions::symbolic, issue 11): a
// storage bug whose two confused tiles hold equal values passes the numeric comparison and is a
// symbolic-mismatch naming the element and both formulas; correct lowerings of real programs are
// equal formula for formula under every planner; the symbolic option changes no number.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/text/CaseFile.h"
#include "interp/CaseSetup.h"
#include "oracle/Differential.h"
#include "tests/unit/oracle/OracleTestSupport.h"

namespace ptodiff::oracle {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::compileProgram;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::sentinelTensor;

constexpr const char* kTileSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], "
    "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]";

// out = (a + b) * b
const std::string kTile = kernelProgram(kTileSignature,
                                        "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                        "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                        "        s = pl.tile.add(x, y)\n"
                                        "        m = pl.tile.mul(s, y)\n"
                                        "        r = pl.tile.store(m, [0, 0], out)\n"
                                        "        return r\n");

// The planted storage bug: the add reads a's buffer twice where it should read b's, computing
// (a + a) * b. With a == b the numbers cannot tell.
const std::string kConfusedBuffer =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
    "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
    "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
    "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
    "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
    "        s: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)\n"
    "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
    "        pl.buffer.load(b, [0, 0], [16, 32], y)\n"
    "        pl.buffer.add(x, x, s)\n"
    "        pl.buffer.mul(s, y, s)\n"
    "        pl.buffer.store(s, [0, 0], [16, 32], out)\n"
    "        return out\n";

/// a == b elementwise: the confused tiles hold equal values.
KernelArgs equalInputs() {
  KernelArgs args;
  const auto value = [](int64_t r, int64_t c) { return float(r) * 0.5f - float(c) / 16.0f; };
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["b"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  return args;
}

DifferentialOptions options(bool symbolic) {
  DifferentialOptions o;
  o.planners = {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS};
  o.replayBase = "ptodiff run test.py";
  o.symbolic = symbolic;
  return o;
}

const StageVerdict& rowOf(const DifferentialReport& r, const std::string& planner, const std::string& stage) {
  for (const StageVerdict& v : r.verdicts)
    if (v.planner == planner && v.stage == stage) return v;
  throw std::logic_error("no row " + planner + "/" + stage);
}

TEST(SymbolicEquivalence, AStorageBugInvisibleToTheNumbersIsASymbolicMismatchWithBothFormulas) {
  const Program ref = compileProgram(kTile);
  const Program buf = compileProgram(kConfusedBuffer);
  const DifferentialInput input{&buf, buf.defaultKernel(), &ref, ref.defaultKernel()};

  const DifferentialReport numeric = runDifferential(input, equalInputs(), options(false));
  EXPECT_EQ(numeric.overall(), VerdictKind::Pass) << rowOf(numeric, "", "buffer").detail;

  const DifferentialReport symbolic = runDifferential(input, equalInputs(), options(true));
  const StageVerdict& v = rowOf(symbolic, "", "buffer");
  ASSERT_EQ(v.kind, VerdictKind::SymbolicMismatch) << v.detail;
  ASSERT_TRUE(v.difference);
  EXPECT_EQ(v.difference->tensor, "out");
  EXPECT_EQ(v.difference->row, 0);
  EXPECT_EQ(v.difference->col, 0);
  EXPECT_EQ(v.difference->count, 512);
  EXPECT_EQ(v.difference->expectedFormula, "(a[0, 0] + b[0, 0]) * b[0, 0]");
  EXPECT_EQ(v.difference->actualFormula, "(a[0, 0] + a[0, 0]) * b[0, 0]");
  EXPECT_EQ(v.detail,
            "out[0, 0]: Tile (a[0, 0] + b[0, 0]) * b[0, 0]  vs  Buffer (a[0, 0] + a[0, 0]) * b[0, 0]; both 0 "
            "(0x00000000); 512 element(s) of out differ symbolically");
  EXPECT_EQ(v.signature(), "symbolic-mismatch/-/buffer/-/-");
  EXPECT_EQ(symbolic.overall(), VerdictKind::SymbolicMismatch);
  EXPECT_EQ(rowOf(symbolic, "", "tile").kind, VerdictKind::Pass);
  EXPECT_EQ(rowOf(symbolic, "", "oracle").kind, VerdictKind::Pass);
}

TEST(SymbolicEquivalence, ANumericMismatchIsReportedAsSuchNotAsASymbolicOne) {
  // With a != b the same bug changes the numbers: the numeric verdict comes first.
  const Program ref = compileProgram(kTile);
  const Program buf = compileProgram(kConfusedBuffer);
  KernelArgs args = equalInputs();
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return float(r + c) + 1.0f; });
  const DifferentialReport r =
      runDifferential({&buf, buf.defaultKernel(), &ref, ref.defaultKernel()}, args, options(true));
  EXPECT_EQ(rowOf(r, "", "buffer").kind, VerdictKind::Mismatch);
}

TEST(SymbolicEquivalence, TheReferenceLoweringIsEqualFormulaForFormulaUnderEveryPlanner) {
  const Program p = compileProgram(kTile);
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, equalInputs(), options(true));
  EXPECT_EQ(r.overall(), VerdictKind::Pass);
  for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"})
    for (const char* stage : {"planned", "buffer"}) {
      const StageVerdict& v = rowOf(r, planner, stage);
      EXPECT_EQ(v.kind, VerdictKind::Pass) << planner << " " << stage << ": " << v.detail;
      EXPECT_THAT(v.detail, HasSubstr("formula for formula")) << planner << " " << stage;
    }
}

// The option adds formulas and changes no number: every run's outputs of a suite program (views,
// UINT8 storage roots, NZ layouts, matmul, loops) are bit for bit those of the numeric run.
TEST(SymbolicEquivalence, TheSymbolicOptionChangesNoNumberOfAnyRun) {
  for (const char* name : {"cube_kloop", "for_swap", "assemble_grow", "transpose_vec", "fp16_arith"}) {
    const fs::path dir = fs::path(PTODIFF_TESTS_DIR) / "programs";
    Program p = parseProgramFile((dir / (std::string(name) + ".py")).string());
    verifyOrThrow(p);
    const CaseSpec spec = parseCaseFilePath((dir / (std::string(name) + ".case.json")).string());
    const Function& kernel = spec.function.empty() ? *p.defaultKernel() : *p.findFunction(spec.function);
    const KernelArgs args = buildKernelArgs(kernel, spec, {});
    DifferentialOptions o = options(false);
    o.blockNum = spec.blockNum;
    o.seed = spec.seed;
    const DifferentialReport numeric = runDifferential({&p, &kernel}, args, o);
    o.symbolic = true;
    const DifferentialReport symbolic = runDifferential({&p, &kernel}, args, o);
    EXPECT_EQ(symbolic.overall(), VerdictKind::Pass) << name;
    ASSERT_EQ(numeric.outputs.size(), symbolic.outputs.size()) << name;
    for (size_t i = 0; i < numeric.outputs.size(); ++i)
      for (const auto& [tensor, t] : numeric.outputs[i].final.tensors) {
        const Tensor& s = symbolic.outputs[i].final.tensors.at(tensor);
        EXPECT_EQ(t.bytes, s.bytes) << name << " " << numeric.outputs[i].name << " " << tensor;
        EXPECT_EQ(t.poison, s.poison) << name << " " << numeric.outputs[i].name << " " << tensor;
        EXPECT_EQ(s.sym.size(), static_cast<size_t>(s.elements())) << name << " " << tensor;
      }
  }
}

}  // namespace
}  // namespace ptodiff::oracle
