// The program suite of tests/programs/: every NAME.py runs on the Tile interpreter under its case
// NAME.case.json, and each Out/InOut tensor must match, bit for bit, the expected outputs that
// tests/programs/make_expected.py computed independently (a hand-written Python model per
// program; see tests/programs/README.md). A second test asserts that the suite as a whole uses
// every Tile-stage op and every control-flow form, so coverage cannot silently erode.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/ir/IR.h"
#include "compiler/ir/Op.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;

fs::path programsDir() { return fs::path(PTODIFF_TESTS_DIR) / "programs"; }

/// Every NAME.py of tests/programs/ except the generator script, sorted.
std::vector<std::string> programNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(programsDir(), ec)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".py" && p.filename() != "make_expected.py") names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string hexBits(uint64_t bits, int esize) {
  std::ostringstream os;
  os << "0x" << std::hex << std::uppercase << std::setw(2 * esize) << std::setfill('0') << bits;
  return os.str();
}

/// Parses and verifies a program file; a DiagnosticError becomes a test failure with its text.
Program loadVerified(const std::string& name) {
  Program program = parseProgramFile((programsDir() / (name + ".py")).string());
  verifyOrThrow(program);
  return program;
}

const Function& kernelOf(const Program& program, const CaseSpec& spec) {
  const Function* kernel =
      spec.function.empty() ? program.defaultKernel() : program.findFunction(spec.function);
  if (kernel == nullptr) throw std::runtime_error("no kernel '" + spec.function + "' in " + program.name);
  return *kernel;
}

/// Compares the final contents of one tensor with its expected bits and poison mask; returns an
/// empty string when they agree, else the first difference (row-major) and the number of them.
std::string compareTensor(const std::string& tensorName, const Tensor& actual, const fs::path& expectedDir) {
  const fs::path bitsFile = expectedDir / (tensorName + ".npy");
  const fs::path poisonFile = expectedDir / (tensorName + ".poison.npy");
  if (!fs::exists(bitsFile)) return "no expected file " + bitsFile.string();
  const Tensor expected = readNpy(bitsFile.string());
  if (expected.dtype != actual.dtype || expected.rows != actual.rows || expected.cols != actual.cols) {
    std::ostringstream os;
    os << tensorName << ": expected " << dtypeName(expected.dtype) << "[" << expected.rows << ", "
       << expected.cols << "], got " << dtypeName(actual.dtype) << "[" << actual.rows << ", " << actual.cols
       << "]";
    return os.str();
  }
  std::vector<uint8_t> expectedPoison(static_cast<size_t>(expected.elements()), 0);
  if (fs::exists(poisonFile)) {
    const Tensor mask = readNpy(poisonFile.string());
    if (mask.rows != expected.rows || mask.cols != expected.cols)
      return poisonFile.string() + " has a different shape than " + bitsFile.string();
    for (int64_t i = 0; i < mask.elements(); ++i)
      expectedPoison[static_cast<size_t>(i)] = mask.bitsAt(i) != 0 ? 1 : 0;
  }

  int64_t differing = 0, first = -1;
  for (int64_t i = 0; i < expected.elements(); ++i) {
    const auto at = static_cast<size_t>(i);
    const bool poisonDiffers = (actual.poison[at] != 0) != (expectedPoison[at] != 0);
    if (expected.bitsAt(i) != actual.bitsAt(i) || poisonDiffers) {
      if (first < 0) first = i;
      ++differing;
    }
  }
  if (differing == 0) return {};
  const auto idx = static_cast<size_t>(first);
  std::ostringstream os;
  os << tensorName << ": " << differing << " of " << expected.elements() << " elements differ; first at (row "
     << first / expected.cols << ", col " << first % expected.cols << "): expected "
     << hexBits(expected.bitsAt(first), expected.esize()) << (expectedPoison[idx] ? " (poison)" : "")
     << ", got " << hexBits(actual.bitsAt(first), actual.esize()) << (actual.poison[idx] ? " (poison)" : "");
  return os.str();
}

class ProgramTest : public testing::TestWithParam<std::string> {};

TEST_P(ProgramTest, MatchesIndependentlyComputedOutputs) {
  const std::string name = GetParam();
  const fs::path caseFile = programsDir() / (name + ".case.json");
  ASSERT_TRUE(fs::exists(caseFile)) << "program " << name << " has no case file " << caseFile;

  RunResult result;
  const Function* kernel = nullptr;
  Program program;
  try {
    program = loadVerified(name);
    const CaseSpec spec = parseCaseFilePath(caseFile.string());
    kernel = &kernelOf(program, spec);
    const KernelArgs args = buildKernelArgs(*kernel, spec, {});
    RunConfig config;
    config.blockNum = spec.blockNum;
    result = runTileKernel(program, *kernel, args, config);
  } catch (const DiagnosticError& e) {
    FAIL() << formatDiagnostic(e.diagnostic(), program.source.get());
  }
  ASSERT_EQ(result.status, RunStatus::Ok)
      << runStatusName(result.status) << ": " << formatDiagnostic(result.diagnostic, program.source.get());

  const fs::path expectedDir = programsDir() / "expected" / name;
  std::set<std::string> checked;
  for (const Param& param : kernel->params) {
    if (!param.type.isTensor() || param.direction == ParamDirection::In) continue;
    checked.insert(param.name);
    auto it = result.final.tensors.find(param.name);
    ASSERT_NE(it, result.final.tensors.end()) << "the run returned no final contents for " << param.name;
    const std::string difference = compareTensor(param.name, it->second, expectedDir);
    EXPECT_TRUE(difference.empty()) << name << ": " << difference;
  }
  EXPECT_FALSE(checked.empty()) << name << " has no Out/InOut tensor to check";

  // Every expected file must belong to an output tensor (a stale file means a renamed parameter).
  for (const auto& entry : fs::directory_iterator(expectedDir)) {
    std::string stem = entry.path().stem().string();
    if (stem.ends_with(".poison")) stem.resize(stem.size() - std::string_view(".poison").size());
    EXPECT_TRUE(checked.count(stem)) << "expected file " << entry.path() << " names no Out/InOut tensor";
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, ProgramTest, testing::ValuesIn(programNames()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// ---- coverage of the suite ----

struct Coverage {
  std::set<Opcode> ops;
  bool forLoop = false, ifStmt = false, whileLoop = false;
  bool forTileCarry = false, forScalarCarry = false, forTensorCarry = false;
  bool ifWithResults = false, whileWithCarries = false;
  bool nested = false;      // a For/If/While inside another one
  bool carrySwap = false;   // a For whose yield permutes its own iter_args
};

void collectExpr(const Expr* e, Coverage& cov) {
  if (e == nullptr) return;
  if (e->kind == Expr::Kind::Call) cov.ops.insert(e->op);
  for (const ExprPtr& arg : e->args) collectExpr(arg.get(), cov);
}

bool isCompound(const Stmt& s) {
  return s.kind == Stmt::Kind::For || s.kind == Stmt::Kind::If || s.kind == Stmt::Kind::While;
}

void collectBlock(const Block& block, Coverage& cov, int depth);

/// True when the For's trailing yield returns its iter_args in a different order (a swap).
bool yieldsPermutedCarries(const ForStmt& loop) {
  const YieldStmt* yield = trailingYield(loop.body);
  if (yield == nullptr || yield->values.size() != loop.iterArgs.size()) return false;
  bool permuted = false;
  for (size_t i = 0; i < yield->values.size(); ++i) {
    const Expr& v = *yield->values[i];
    if (v.kind != Expr::Kind::Name) continue;
    for (size_t j = 0; j < loop.iterArgs.size(); ++j)
      if (j != i && loop.iterArgs[j].name == v.name) permuted = true;
  }
  return permuted;
}

void collectStmt(const Stmt& s, Coverage& cov, int depth) {
  if (isCompound(s) && depth > 0) cov.nested = true;
  switch (s.kind) {
    case Stmt::Kind::Assign: collectExpr(s.as<AssignStmt>().value.get(), cov); break;
    case Stmt::Kind::Eval: collectExpr(s.as<EvalStmt>().expr.get(), cov); break;
    case Stmt::Kind::Return:
      for (const ExprPtr& v : s.as<ReturnStmt>().values) collectExpr(v.get(), cov);
      break;
    case Stmt::Kind::Yield:
      for (const ExprPtr& v : s.as<YieldStmt>().values) collectExpr(v.get(), cov);
      break;
    case Stmt::Kind::For: {
      const auto& loop = s.as<ForStmt>();
      cov.forLoop = true;
      for (const Binder& carry : loop.iterArgs) {
        cov.forTileCarry |= carry.type.isTile();
        cov.forScalarCarry |= carry.type.isScalar();
        cov.forTensorCarry |= carry.type.isTensor();
      }
      cov.carrySwap |= yieldsPermutedCarries(loop);
      collectExpr(loop.start.get(), cov);
      collectExpr(loop.stop.get(), cov);
      collectExpr(loop.step.get(), cov);
      for (const ExprPtr& init : loop.inits) collectExpr(init.get(), cov);
      collectBlock(loop.body, cov, depth + 1);
      break;
    }
    case Stmt::Kind::If: {
      const auto& branch = s.as<IfStmt>();
      cov.ifStmt = true;
      cov.ifWithResults |= !resultsOf(s).empty() && !branch.elseBody.empty();
      collectExpr(branch.cond.get(), cov);
      collectBlock(branch.thenBody, cov, depth + 1);
      collectBlock(branch.elseBody, cov, depth + 1);
      break;
    }
    case Stmt::Kind::While: {
      const auto& loop = s.as<WhileStmt>();
      cov.whileLoop = true;
      cov.whileWithCarries |= !loop.iterArgs.empty();
      for (const ExprPtr& init : loop.inits) collectExpr(init.get(), cov);
      collectExpr(loop.cond.get(), cov);
      collectBlock(loop.body, cov, depth + 1);
      break;
    }
  }
}

void collectBlock(const Block& block, Coverage& cov, int depth) {
  for (const StmtPtr& s : block) collectStmt(*s, cov, depth);
}

TEST(ProgramsCoverage, SuiteUsesEveryTileOpAndControlFlowForm) {
  const std::vector<std::string> names = programNames();
  ASSERT_GE(names.size(), 18u) << "the suite should hold at least 18 programs";
  Coverage cov;
  for (const std::string& name : names) {
    try {
      Program program = loadVerified(name);  // verified, so carry types are filled in
      for (const Function& f : program.functions) collectBlock(f.body, cov, 0);
    } catch (const DiagnosticError& e) {
      ADD_FAILURE() << formatDiagnostic(e.diagnostic());
    }
  }
  for (const OpInfo& info : allOps()) {
    if (info.stage != OpStage::Tile || info.code == Opcode::TileAlloc) continue;
    EXPECT_TRUE(cov.ops.count(info.code)) << "no program uses pl." << info.spelling;
  }
  EXPECT_TRUE(cov.forLoop) << "no For loop";
  EXPECT_TRUE(cov.ifStmt) << "no If";
  EXPECT_TRUE(cov.whileLoop) << "no While loop";
  EXPECT_TRUE(cov.forTileCarry) << "no For carrying a tile";
  EXPECT_TRUE(cov.forScalarCarry) << "no For carrying a scalar";
  EXPECT_TRUE(cov.forTensorCarry) << "no For carrying a tensor";
  EXPECT_TRUE(cov.ifWithResults) << "no If with results in both arms";
  EXPECT_TRUE(cov.whileWithCarries) << "no While with carries";
  EXPECT_TRUE(cov.nested) << "no nested control flow";
  EXPECT_TRUE(cov.carrySwap) << "no For swapping two carries";
}

}  // namespace
}  // namespace ptodiff
