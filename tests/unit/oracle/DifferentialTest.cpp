// The differential library (oracle/Differential.h): one verdict per (planner, stage), each the
// first failing kind of DESIGN.md's order, with its signature. Every failure here is provoked by
// a real program (a hand-written wrong Buffer program against its Tile reference, a real storage
// bug, a real lowering rejection, a real tolerance), never by editing a result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/text/CaseFile.h"
#include "interp/CaseSetup.h"
#include "oracle/Differential.h"
#include "tests/unit/oracle/OracleTestSupport.h"

namespace ptodiff::oracle {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::compileProgram;
using testing::fp32Bits;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::sentinelTensor;

constexpr const char* kBufferHeader =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
    "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
    "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n";
constexpr const char* kTileSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], "
    "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]";

// out = maximum(a, b) over the whole tile.
const std::string kMaxTile = kernelProgram(kTileSignature,
                                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                           "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                           "        m = pl.tile.maximum(x, y)\n"
                                           "        r = pl.tile.store(m, [0, 0], out)\n"
                                           "        return r\n");

/// a(r, c) = r + c / 64; b equals a except b(3, 5) = a(3, 5) + 1 (so max and min differ only there).
KernelArgs maxMinArgs() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return float(r) + float(c) / 64.0f; });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) {
    return float(r) + float(c) / 64.0f + ((r == 3 && c == 5) ? 1.0f : 0.0f);
  });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  return args;
}

std::string bufferProgram(const std::string& body) { return std::string(kBufferHeader) + body; }

const StageVerdict& rowOf(const DifferentialReport& r, const std::string& planner, const std::string& stage) {
  for (const StageVerdict& v : r.verdicts)
    if (v.planner == planner && v.stage == stage) return v;
  throw std::logic_error("no row " + planner + "/" + stage);
}

DifferentialOptions options(std::vector<Planner> planners = {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
  DifferentialOptions o;
  o.planners = std::move(planners);
  o.replayBase = "ptodiff run test.py";
  return o;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DifferentialVerdicts, CorrectTileProgramPassesEveryPlannerAndStage) {
  const Program p = compileProgram(kMaxTile);
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), options());
  ASSERT_EQ(r.verdicts.size(), 8u);  // tile, oracle, 3 x (planned, buffer)
  EXPECT_EQ(r.overall(), VerdictKind::Pass);
  EXPECT_EQ(rowOf(r, "", "tile").kind, VerdictKind::Pass);
  EXPECT_EQ(rowOf(r, "", "oracle").kind, VerdictKind::Pass);
  for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"}) {
    EXPECT_EQ(rowOf(r, planner, "planned").kind, VerdictKind::Pass) << planner << ": " << rowOf(r, planner, "planned").detail;
    EXPECT_EQ(rowOf(r, planner, "buffer").kind, VerdictKind::Pass) << planner << ": " << rowOf(r, planner, "buffer").detail;
  }
  EXPECT_EQ(rowOf(r, "DSA_RP", "buffer").replay, "ptodiff run test.py --planner DSA_RP --target a2a3");
  // Runs: tile, then planned and buffer per planner.
  ASSERT_EQ(r.outputs.size(), 7u);
  EXPECT_EQ(r.outputs[0].name, "tile");
  EXPECT_EQ(r.outputs[1].name, "PYPTO-planned");
  EXPECT_EQ(r.outputs[2].name, "PYPTO-buffer");
}

TEST(DifferentialVerdicts, NoBufferIRSkipsTheBufferStage) {
  const Program p = compileProgram(kMaxTile);
  DifferentialOptions o = options({Planner::PTOAS});
  o.enableBufferIR = false;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o);
  EXPECT_EQ(r.overall(), VerdictKind::Pass);
  EXPECT_EQ(rowOf(r, "PTOAS", "planned").kind, VerdictKind::Pass);
  const StageVerdict& buffer = rowOf(r, "PTOAS", "buffer");
  EXPECT_EQ(buffer.kind, VerdictKind::Skipped);
  EXPECT_EQ(buffer.detail, "not run: --no-buffer-ir keeps every kernel on Tile (S1)");
  EXPECT_EQ(buffer.replay, "ptodiff run test.py --planner PTOAS --target a2a3 --no-buffer-ir");
}

// A Buffer program computing minimum where its Tile reference computes maximum: the two agree
// everywhere except (3, 5), where b = a + 1.
TEST(DifferentialVerdicts, WrongBufferProgramIsAMismatchAtTheRightElement) {
  const Program ref = compileProgram(kMaxTile);
  const Program buf = compileProgram(bufferProgram(
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
      "        m: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.load(b, [0, 0], [16, 32], y)\n"
      "        pl.buffer.minimum(x, y, m)\n"
      "        pl.buffer.store(m, [0, 0], [16, 32], out)\n"
      "        return out\n"));
  const DifferentialReport r =
      runDifferential({&buf, buf.defaultKernel(), &ref, ref.defaultKernel()}, maxMinArgs(), options({Planner::PYPTO}));
  ASSERT_EQ(r.verdicts.size(), 3u);  // reference tile, oracle, buffer
  EXPECT_EQ(rowOf(r, "", "tile").kind, VerdictKind::Pass);
  EXPECT_EQ(rowOf(r, "", "oracle").kind, VerdictKind::Pass);
  const StageVerdict& v = rowOf(r, "", "buffer");
  ASSERT_EQ(v.kind, VerdictKind::Mismatch);
  ASSERT_TRUE(v.difference);
  EXPECT_EQ(v.difference->tensor, "out");
  EXPECT_EQ(v.difference->row, 3);
  EXPECT_EQ(v.difference->col, 5);
  EXPECT_EQ(v.difference->expectedBits, fp32Bits(3.0f + 5.0f / 64.0f + 1.0f));
  EXPECT_EQ(v.difference->actualBits, fp32Bits(3.0f + 5.0f / 64.0f));
  EXPECT_EQ(v.difference->count, 1);
  // 3.078125 -> 4: 0.921875 / 2^-22 = 3866624 ulps of [2, 4); 4 -> 4.078125: 0.078125 / 2^-21 = 163840.
  EXPECT_EQ(v.difference->ulps, 3866624.0 + 163840.0);
  EXPECT_EQ(v.detail,
            "out[3, 5]: expected 4.078125 (0x40828000) (Tile run), got 3.078125 (0x40450000), 4030464 ulps; "
            "1 element(s) of out differ");
  EXPECT_EQ(v.signature(), "mismatch/-/buffer/-/-");
  EXPECT_EQ(r.overall(), VerdictKind::Mismatch);
}

// The Tile program stores rows 0..7 only; the Buffer program stores all 16 rows.
TEST(DifferentialVerdicts, StoreOutsideTheTileRunsStoredRegionIsASentinel) {
  const Program ref = compileProgram(kernelProgram(kTileSignature,
                                                   "        x = pl.tile.load(a, [0, 0], [8, 32])\n"
                                                   "        r = pl.tile.store(x, [0, 0], out)\n"
                                                   "        return r\n"));
  const Program buf = compileProgram(bufferProgram(
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
      "        return out\n"));
  const DifferentialReport r =
      runDifferential({&buf, buf.defaultKernel(), &ref, ref.defaultKernel()}, maxMinArgs(), options({Planner::PYPTO}));
  const StageVerdict& v = rowOf(r, "", "buffer");
  ASSERT_EQ(v.kind, VerdictKind::Sentinel) << v.detail;
  ASSERT_TRUE(v.difference);
  EXPECT_EQ(v.difference->row, 8);
  EXPECT_EQ(v.difference->col, 0);
  EXPECT_EQ(v.difference->expectedBits, 0x7FC0DEADu);
  EXPECT_EQ(v.difference->count, 8 * 32);
  EXPECT_EQ(v.detail,
            "out[8, 0]: not written by the Tile run, initial nan (0x7fc0dead), now 8 (0x41000000); 256 element(s) of "
            "out changed");
  EXPECT_EQ(v.signature(), "sentinel/-/buffer/-/-");
}

// The Buffer program stores a buffer it never wrote: poison where the Tile run defines every
// element. The Buffer run itself ends invalid-program (poison to GM); the comparison names it.
TEST(DifferentialVerdicts, PoisonWhereTheTileRunDefinesIsHazardUninit) {
  const Program ref = compileProgram(kMaxTile);
  const Program buf = compileProgram(bufferProgram(
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.store(y, [0, 0], [16, 32], out)\n"
      "        return out\n"));
  const DifferentialReport r =
      runDifferential({&buf, buf.defaultKernel(), &ref, ref.defaultKernel()}, maxMinArgs(), options({Planner::PYPTO}));
  const StageVerdict& v = rowOf(r, "", "buffer");
  ASSERT_EQ(v.kind, VerdictKind::Hazard) << v.detail;
  EXPECT_EQ(v.hazard, HazardKind::Uninit);
  ASSERT_TRUE(v.difference);
  EXPECT_EQ(v.difference->row, 0);
  EXPECT_EQ(v.difference->col, 0);
  EXPECT_TRUE(v.difference->actualPoison);
  EXPECT_EQ(v.difference->count, 16 * 32);
  EXPECT_THAT(v.detail, HasSubstr("uninit: out[0, 0]: poison (bits "));
  EXPECT_THAT(v.detail, HasSubstr(") where the Tile run defines 0 (0x00000000); 512 element(s) of out"));
  EXPECT_EQ(v.signature(), "hazard/uninit/buffer/-/-");
  EXPECT_EQ(r.overall(), VerdictKind::Hazard);  // not invalid-program: the Tile program is valid
}

// Without --reference only the checkers judge a Buffer program: the hazard suite's misaligned base.
TEST(DifferentialVerdicts, BufferFileWithoutReferenceIsJudgedByItsCheckers) {
  const std::string path = std::string(PTODIFF_TESTS_DIR) + "/hazards/misaligned_base.py";
  Program p = parseProgramText(readFile(path), "misaligned_base.py");
  verifyOrThrow(p);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return float(r - c) / 8.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, options({Planner::PYPTO}));
  ASSERT_EQ(r.verdicts.size(), 1u);
  const StageVerdict& v = r.verdicts[0];
  EXPECT_EQ(v.kind, VerdictKind::Hazard);
  EXPECT_EQ(v.hazard, HazardKind::Align);
  // The header's `# expect:` line of tests/hazards/misaligned_base.py.
  EXPECT_EQ(v.detail, "13:9: align: buffer.alloc: y: base address 8200 is not 32-byte aligned");
  EXPECT_EQ(v.signature(), "hazard/align/buffer/buffer.alloc/-");
  ASSERT_TRUE(v.diagnostic);
  EXPECT_EQ(v.diagnostic->file, "misaligned_base.py");
  EXPECT_EQ(v.replay, "ptodiff run test.py --target a2a3");
}

// 1 + 2^-30 is not representable in FP32: the correctly rounded sum (1) is half an ulp away, inside
// the cpu profile's 0.5-ulp bound, outside a profile that allows add no error at all.
TEST(DifferentialVerdicts, ZeroAllowanceProfileGivesAnOracleVerdictOnAnInexactSum) {
  const Program p = compileProgram(kernelProgram(kTileSignature,
                                                 "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                 "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                                 "        s = pl.tile.add(x, y)\n"
                                                 "        r = pl.tile.store(s, [0, 0], out)\n"
                                                 "        return r\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t, int64_t) { return 1.0f; });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return (r == 2 && c == 7) ? std::ldexp(1.0f, -30) : 0.5f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);

  DifferentialOptions cpu = options({Planner::PYPTO});
  EXPECT_EQ(runDifferential({&p, p.defaultKernel()}, args, cpu).overall(), VerdictKind::Pass);

  DifferentialOptions strict = options({Planner::PYPTO});
  strict.profile = parseToleranceProfile(R"({"profile": "exact-add", "ulps": {"add": 0}})", "exact-add.json");
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, strict);
  const StageVerdict& v = rowOf(r, "", "oracle");
  ASSERT_EQ(v.kind, VerdictKind::Oracle) << v.detail;
  EXPECT_THAT(v.detail, HasSubstr("out: 1 of 512"));
  EXPECT_THAT(v.detail, HasSubstr("(row 2, col 7)"));
  EXPECT_EQ(v.signature(), "oracle/-/oracle/-/-");
  // The interpreters still agree bit for bit.
  EXPECT_EQ(rowOf(r, "PYPTO", "planned").kind, VerdictKind::Pass);
  EXPECT_EQ(rowOf(r, "PYPTO", "buffer").kind, VerdictKind::Pass);
  EXPECT_EQ(r.overall(), VerdictKind::Oracle);
}

// oracle.md, "Verdict detail": every failing tensor is reported, not only the first. Two sums
// fail a zero add allowance (out1 at (2, 7), out2 at (9, 3)); out3, a plain copy, passes and is
// not listed.
TEST(DifferentialVerdicts, OracleRowReportsEveryFailingTensor) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], c: pl.Tensor[[16, 32], pl.FP32], "
      "out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]], "
      "out3: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
      "tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        z = pl.tile.load(c, [0, 0], [16, 32])\n"
      "        s = pl.tile.add(x, y)\n"
      "        t = pl.tile.add(x, z)\n"
      "        r1 = pl.tile.store(s, [0, 0], out1)\n"
      "        r2 = pl.tile.store(t, [0, 0], out2)\n"
      "        r3 = pl.tile.store(x, [0, 0], out3)\n"
      "        return r1, r2, r3\n"));
  const auto tiny = [](int64_t row, int64_t col) {
    return [row, col](int64_t r, int64_t c) { return (r == row && c == col) ? std::ldexp(1.0f, -30) : 0.5f; };
  };
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t, int64_t) { return 1.0f; });
  args.tensors["b"] = fp32Tensor(16, 32, tiny(2, 7));
  args.tensors["c"] = fp32Tensor(16, 32, tiny(9, 3));
  for (const char* out : {"out1", "out2", "out3"}) args.tensors[out] = sentinelTensor(DType::FP32, 16, 32);

  DifferentialOptions strict = options({Planner::PYPTO});
  strict.profile = parseToleranceProfile(R"({"profile": "exact-add", "ulps": {"add": 0}})", "exact-add.json");
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, strict);
  const StageVerdict& v = rowOf(r, "", "oracle");
  ASSERT_EQ(v.kind, VerdictKind::Oracle) << v.detail;
  ASSERT_EQ(v.tensorDetails.size(), 2u) << v.detail;
  EXPECT_THAT(v.tensorDetails[0], ::testing::StartsWith("out1: 1 of 512 judged element(s) fail the oracle (FP32); first at (row 2, col 7)"));
  EXPECT_THAT(v.tensorDetails[1], ::testing::StartsWith("out2: 1 of 512 judged element(s) fail the oracle (FP32); first at (row 9, col 3)"));
  EXPECT_EQ(v.detail, v.tensorDetails[0] + "; " + v.tensorDetails[1]);
  EXPECT_THAT(v.detail, ::testing::Not(HasSubstr("out3")));
  EXPECT_EQ(v.signature(), "oracle/-/oracle/-/-");
  EXPECT_EQ(r.overall(), VerdictKind::Oracle);

  // Under the cpu profile nothing fails and no tensor detail is kept.
  const DifferentialReport cpuReport = runDifferential({&p, p.defaultKernel()}, args, options({Planner::PYPTO}));
  const StageVerdict& cpu = rowOf(cpuReport, "", "oracle");
  EXPECT_EQ(cpu.kind, VerdictKind::Pass) << cpu.detail;
  EXPECT_TRUE(cpu.tensorDetails.empty());
}

// A planned Tile file (as `ptodiff compile --stop-after VerifyTileStorage` prints one) whose y was
// placed over x while x is still live: its value run passes, its planned run names the clobber.
TEST(DifferentialVerdicts, PlannedFileReusingALiveBufferIsALiveClobber) {
  const auto planned = [](const std::string& yRef) {
    return kernelProgram(kTileSignature,
                         "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                         "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
                         "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y: pl.Tile[[16, 32], pl.FP32, " + yRef + ", pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])\n"
                         "        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, y)\n"
                         "        r = pl.tile.store(s, [0, 0], out)\n"
                         "        return r\n");
  };
  const Program good = compileProgram(planned("pl.MemRef(m1, 2048, 2048)"));
  const DifferentialReport ok = runDifferential({&good, good.defaultKernel()}, maxMinArgs(), options());
  ASSERT_EQ(ok.verdicts.size(), 3u);  // tile, oracle, planned
  EXPECT_EQ(ok.overall(), VerdictKind::Pass) << rowOf(ok, "", "planned").detail;

  const Program bad = compileProgram(planned("pl.MemRef(m0, 0, 2048)"));
  const DifferentialReport r = runDifferential({&bad, bad.defaultKernel()}, maxMinArgs(), options());
  const StageVerdict& v = rowOf(r, "", "planned");
  ASSERT_EQ(v.kind, VerdictKind::Hazard) << v.detail;
  EXPECT_EQ(v.hazard, HazardKind::LiveClobber);
  EXPECT_EQ(v.detail,
            "12:9: live-clobber: tile.add: reads x[0, 0] (Vec bytes [0, 4)), overwritten by tile.load at line 11 (y) "
            "after tile.load at line 10 (x) wrote it; x is still live");
  EXPECT_EQ(v.signature(), "hazard/live-clobber/planned/tile.add/-");
  EXPECT_EQ(rowOf(r, "", "tile").kind, VerdictKind::Pass);
}

// Two live 128 KiB FP32 tiles cannot fit a2a3's 184 KiB of usable UB: every planner rejects the
// program in PlanMemory, at the statement whose root does not fit.
TEST(DifferentialVerdicts, PlannerRejectionIsACompileErrorNamingThePass) {
  const std::string t = "pl.Tensor[[128, 256], pl.FP32]";
  const Program p = compileProgram(kernelProgram("a: " + t + ", b: " + t + ", out: pl.Out[" + t + "]) -> " + t,
                                                 "        x = pl.tile.load(a, [0, 0], [128, 256])\n"
                                                 "        y = pl.tile.load(b, [0, 0], [128, 256])\n"
                                                 "        s = pl.tile.add(x, y)\n"
                                                 "        r = pl.tile.store(s, [0, 0], out)\n"
                                                 "        return r\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(128, 256, [](int64_t r, int64_t c) { return float(r - c); });
  args.tensors["b"] = fp32Tensor(128, 256, [](int64_t r, int64_t c) { return float(r + c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 128, 256);
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, options());
  EXPECT_EQ(rowOf(r, "", "tile").kind, VerdictKind::Pass);
  const StageVerdict& pypto = rowOf(r, "PYPTO", "planned");
  ASSERT_EQ(pypto.kind, VerdictKind::CompileError) << pypto.detail;
  EXPECT_EQ(pypto.signature(), "compile-error/-/PlanMemory/tile.load/PYPTO");
  EXPECT_THAT(pypto.detail, ::testing::StartsWith("9:9: PlanMemory: PYPTO: [P1] tile.alloc: Vec storage needs 262144 bytes after reuse"));
  EXPECT_EQ(rowOf(r, "DSA_RP", "planned").signature(), "compile-error/-/PlanMemory/tile.load/DSA_RP");
  EXPECT_EQ(rowOf(r, "PTOAS", "planned").signature(), "compile-error/-/PlanMemory/tile.add/PTOAS");
  EXPECT_EQ(rowOf(r, "PTOAS", "buffer").kind, VerdictKind::Skipped);
  EXPECT_EQ(rowOf(r, "PTOAS", "buffer").detail, "not run: the lowering failed before the planned Tile program");
  EXPECT_EQ(r.overall(), VerdictKind::CompileError);
}

TEST(DifferentialVerdicts, PoisonStoredByTheTileProgramIsInvalidProgramAndNothingElseRuns) {
  const Program p = compileProgram(kernelProgram(kTileSignature,
                                                 "        c = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                                                 "        r = pl.tile.store(c, [0, 0], out)\n"
                                                 "        return r\n"));
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), options({Planner::PYPTO}));
  ASSERT_EQ(r.verdicts.size(), 3u);
  const StageVerdict& tile = rowOf(r, "", "tile");
  EXPECT_EQ(tile.kind, VerdictKind::InvalidProgram);
  EXPECT_EQ(tile.signature(), "invalid-program/-/tile/tile.store/-");
  EXPECT_EQ(rowOf(r, "PYPTO", "planned").kind, VerdictKind::Skipped);
  EXPECT_EQ(rowOf(r, "PYPTO", "buffer").detail, "not run: the Tile run did not pass");
  EXPECT_EQ(r.overall(), VerdictKind::InvalidProgram);
}

TEST(DifferentialVerdicts, StepBudgetGivesTimeout) {
  const Program p = compileProgram(kMaxTile);
  DifferentialOptions o = options({Planner::PYPTO});
  o.stepBudget = 2;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o);
  const StageVerdict& tile = rowOf(r, "", "tile");
  EXPECT_EQ(tile.kind, VerdictKind::Timeout);
  EXPECT_EQ(tile.signature(), "timeout/-/tile/tile.maximum/-");
  EXPECT_EQ(r.overall(), VerdictKind::Timeout);
}

TEST(DifferentialVerdicts, TwoBlocksStoringTheSameWindowRace) {
  const Program p = compileProgram(kMaxTile);
  DifferentialOptions o = options({Planner::PYPTO});
  o.blockNum = 2;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o);
  const StageVerdict& tile = rowOf(r, "", "tile");
  EXPECT_EQ(tile.kind, VerdictKind::Race) << tile.detail;
  EXPECT_EQ(tile.signature(), "race/-/tile/tile.store/-");
}

TEST(DifferentialVerdicts, ReferenceWithOtherParametersIsBadInput) {
  const Program ref = compileProgram(kernelProgram("a: pl.Tensor[[16, 32], pl.FP32], "
                                                   "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
                                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                   "        r = pl.tile.store(x, [0, 0], out)\n"
                                                   "        return r\n"));
  const Program buf = compileProgram(bufferProgram(
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
      "        return out\n"));
  try {
    runDifferential({&buf, buf.defaultKernel(), &ref, ref.defaultKernel()}, maxMinArgs(), options());
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "--reference: kernel \"kernel\" must have the same parameters (names, types, directions, order) as "
              "kernel \"kernel\" of the program under test");
  }
}

TEST(DifferentialVerdicts, SameCaseGivesTheSameReport) {
  const Program ref = compileProgram(kMaxTile);
  const DifferentialReport a = runDifferential({&ref, ref.defaultKernel()}, maxMinArgs(), options());
  const DifferentialReport b = runDifferential({&ref, ref.defaultKernel()}, maxMinArgs(), options());
  ASSERT_EQ(a.verdicts.size(), b.verdicts.size());
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    EXPECT_EQ(a.verdicts[i].signature(), b.verdicts[i].signature());
    EXPECT_EQ(a.verdicts[i].detail, b.verdicts[i].detail);
  }
}

// The campaign's scalar sets share one program: a LoweringCache compiles each planner once and
// the later calls give the rows and outputs an uncached call gives (spec/fuzz.md: one compiled
// artifact run on several runtime paths).
TEST(DifferentialLoweringCache, SecondCallReusesEveryLoweringWithTheSameReport) {
  const Program p = compileProgram(kMaxTile);
  KernelArgs other = maxMinArgs();
  other.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return float(c) - float(r); });
  LoweringCache cache;
  std::map<std::string, double> first, second;
  DifferentialOptions cached = options();
  cached.lowerings = &cache;
  cached.phaseSeconds = &first;
  const DifferentialReport a = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), cached);
  EXPECT_EQ(cache.entries.size(), 3u);
  EXPECT_TRUE(first.count("compile"));
  cached.phaseSeconds = &second;
  const DifferentialReport b = runDifferential({&p, p.defaultKernel()}, other, cached);
  EXPECT_EQ(cache.entries.size(), 3u);
  EXPECT_FALSE(second.count("compile")) << "the second call compiled again";
  EXPECT_TRUE(second.count("planned") && second.count("buffer") && second.count("tile") && second.count("oracle"));
  for (const auto& [args, report] : {std::pair{maxMinArgs(), &a}, std::pair{other, &b}}) {
    const DifferentialReport fresh = runDifferential({&p, p.defaultKernel()}, args, options());
    ASSERT_EQ(report->verdicts.size(), fresh.verdicts.size());
    for (size_t i = 0; i < fresh.verdicts.size(); ++i) {
      EXPECT_EQ(report->verdicts[i].signature(), fresh.verdicts[i].signature());
      EXPECT_EQ(report->verdicts[i].detail, fresh.verdicts[i].detail);
    }
    ASSERT_EQ(report->outputs.size(), fresh.outputs.size());
    for (size_t i = 0; i < fresh.outputs.size(); ++i) {
      EXPECT_EQ(report->outputs[i].name, fresh.outputs[i].name);
      EXPECT_EQ(report->outputs[i].final.tensors.at("out").bytes, fresh.outputs[i].final.tensors.at("out").bytes);
    }
  }
  // Another enable_buffer_ir is another lowering.
  cached.enableBufferIR = false;
  (void)runDifferential({&p, p.defaultKernel()}, maxMinArgs(), cached);
  EXPECT_EQ(cache.entries.size(), 6u);
}

TEST(DifferentialLoweringCache, CachedCompileErrorGivesTheSameRows) {
  const std::string t = "pl.Tensor[[128, 256], pl.FP32]";
  const Program p = compileProgram(kernelProgram("a: " + t + ", b: " + t + ", out: pl.Out[" + t + "]) -> " + t,
                                                 "        x = pl.tile.load(a, [0, 0], [128, 256])\n"
                                                 "        y = pl.tile.load(b, [0, 0], [128, 256])\n"
                                                 "        s = pl.tile.add(x, y)\n"
                                                 "        r = pl.tile.store(s, [0, 0], out)\n"
                                                 "        return r\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(128, 256, [](int64_t r, int64_t c) { return float(r - c); });
  args.tensors["b"] = fp32Tensor(128, 256, [](int64_t r, int64_t c) { return float(r + c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 128, 256);
  LoweringCache cache;
  DifferentialOptions cached = options();
  cached.lowerings = &cache;
  (void)runDifferential({&p, p.defaultKernel()}, args, cached);
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, cached);
  EXPECT_EQ(cache.entries.size(), 3u);
  const StageVerdict& pypto = rowOf(r, "PYPTO", "planned");
  EXPECT_EQ(pypto.signature(), "compile-error/-/PlanMemory/tile.load/PYPTO");
  EXPECT_THAT(pypto.detail, ::testing::StartsWith("9:9: PlanMemory: PYPTO: [P1] tile.alloc: Vec storage needs 262144 bytes after reuse"));
  ASSERT_TRUE(pypto.diagnostic.has_value());
  EXPECT_EQ(pypto.diagnostic->loc.line, 9);
  EXPECT_EQ(rowOf(r, "PTOAS", "planned").signature(), "compile-error/-/PlanMemory/tile.add/PTOAS");
  EXPECT_EQ(rowOf(r, "PTOAS", "buffer").detail, "not run: the lowering failed before the planned Tile program");
}

/// kMaxTile's kernel and, after it, `kernel_b` with `bBody` over the same parameters.
std::string twoKernels(const std::string& bBody) {
  return kMaxTile + "\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel_b(self, " + kTileSignature + ":\n" +
         bBody;
}

// The lowering converts every kernel of a program (C9), so the kernels of a two-kernel case share
// one lowering per planner: running the second kernel compiles nothing, and gives the rows an
// uncached run gives.
TEST(DifferentialLoweringCache, KernelsOfOneProgramShareItsLowerings) {
  const Program p = compileProgram(twoKernels("        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                              "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                              "        m = pl.tile.minimum(x, y)\n"
                                              "        r = pl.tile.store(m, [0, 0], out)\n"
                                              "        return r\n"));
  LoweringCache cache;
  std::map<std::string, double> second;
  DifferentialOptions cached = options();
  cached.lowerings = &cache;
  (void)runDifferential({&p, p.findFunction("kernel")}, maxMinArgs(), cached);
  EXPECT_EQ(cache.entries.size(), 3u);
  cached.phaseSeconds = &second;
  const DifferentialReport b = runDifferential({&p, p.findFunction("kernel_b")}, maxMinArgs(), cached);
  EXPECT_EQ(cache.entries.size(), 3u);
  EXPECT_FALSE(second.count("compile")) << "kernel_b's run compiled the program again";
  const DifferentialReport fresh = runDifferential({&p, p.findFunction("kernel_b")}, maxMinArgs(), options());
  EXPECT_EQ(b.overall(), VerdictKind::Pass);
  ASSERT_EQ(b.verdicts.size(), fresh.verdicts.size());
  for (size_t i = 0; i < fresh.verdicts.size(); ++i) {
    EXPECT_EQ(b.verdicts[i].signature(), fresh.verdicts[i].signature());
    EXPECT_EQ(b.verdicts[i].detail, fresh.verdicts[i].detail);
  }
  // Checking the lowering laws (verify-each, idempotence) is another lowering.
  cached.checkLoweringLaws = !cached.checkLoweringLaws;
  (void)runDifferential({&p, p.findFunction("kernel_b")}, maxMinArgs(), cached);
  EXPECT_EQ(cache.entries.size(), 6u);
}

// A pass rejecting the other kernel fails this kernel's lowering too, and the signature names the
// op it rejected there.
TEST(DifferentialLoweringCache, ACompileErrorInTheOtherKernelNamesItsOp) {
  const Program p = compileProgram(twoKernels("        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                              "        s = pl.tile.slice(x, [16, 8], [0, 4])\n"
                                              "        r = pl.tile.store(s, [0, 0], out)\n"
                                              "        return r\n"));
  const DifferentialReport r = runDifferential({&p, p.findFunction("kernel")}, maxMinArgs(), options());
  const StageVerdict& pypto = rowOf(r, "PYPTO", "planned");
  EXPECT_EQ(pypto.kind, VerdictKind::CompileError) << pypto.detail;
  EXPECT_EQ(pypto.signature(), "compile-error/-/VerifyTileStorage/tile.slice/PYPTO") << pypto.detail;
}

// spec/fuzz.md property 1: the generator's contract verdict against the lowering's selection.
TEST(DifferentialProperties, SelectedKernelExpectedOnTileIsACompileErrorAtSelection) {
  const Program p = compileProgram(kMaxTile);
  DifferentialOptions o = options();
  o.expectSelected = true;
  EXPECT_EQ(runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o).overall(), VerdictKind::Pass);
  o.expectSelected = false;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o);
  for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"}) {
    const StageVerdict& buffer = rowOf(r, planner, "buffer");
    EXPECT_EQ(buffer.kind, VerdictKind::CompileError) << planner;
    EXPECT_EQ(buffer.failingAt, "SelectBufferIRFunctions");
    EXPECT_EQ(buffer.detail, "kernel \"kernel\" is outside the contract but reaches the Buffer path (spec/fuzz.md property 1)");
    EXPECT_EQ(rowOf(r, planner, "planned").kind, VerdictKind::Pass) << planner;
  }
  EXPECT_EQ(rowOf(r, "PTOAS", "buffer").signature(), "compile-error/-/SelectBufferIRFunctions/-/PTOAS");
}

TEST(DifferentialProperties, KernelKeptOnTileButExpectedOnBufferIsACompileErrorUnlessBufferIRIsOff) {
  // A row reduction keeps the whole kernel on Tile: its [8, 1] result is a column (DN) Vec tile (S5).
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 16], pl.FP32], rows: pl.Out[pl.Tensor[[8, 1], pl.FP32]]) -> pl.Tensor[[8, 1], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [8, 16])\n"
      "        tmp = pl.tile.create([8, 16], dtype=pl.FP32)\n"
      "        rs = pl.tile.row_sum(x, tmp)\n"
      "        o = pl.tile.store(rs, [0, 0], rows)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 16, [](int64_t r, int64_t c) { return float(r) - float(c) / 8.0f; });
  args.tensors["rows"] = sentinelTensor(DType::FP32, 8, 1);
  DifferentialOptions o = options({Planner::DSA_RP});
  o.expectSelected = true;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, o);
  EXPECT_EQ(rowOf(r, "DSA_RP", "buffer").kind, VerdictKind::CompileError);
  EXPECT_THAT(rowOf(r, "DSA_RP", "buffer").detail,
              StartsWith("kernel \"kernel\" is inside the contract but stays on the Tile path (spec/fuzz.md property 1): "
                         "S5 at 10:9: Vec tile 'rs' is not row-major ND"));
  EXPECT_EQ(rowOf(r, "DSA_RP", "buffer").signature(), "compile-error/-/SelectBufferIRFunctions/tile.row_sum/DSA_RP");
  o.enableBufferIR = false;  // S1: nothing is selected, whatever the contract says
  EXPECT_EQ(runDifferential({&p, p.defaultKernel()}, args, o).overall(), VerdictKind::Pass);
}

// spec/fuzz.md property 3 with enable_buffer_ir off as well.
TEST(DifferentialProperties, SelectedKernelIsAlsoPlannedAndRunWithBufferIROff) {
  const Program p = compileProgram(kMaxTile);
  DifferentialOptions o = options();
  o.alsoWithoutBufferIR = true;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o);
  ASSERT_EQ(r.verdicts.size(), 11u);  // tile, oracle, 3 x (planned, buffer), 3 x planned-no-buffer-ir
  EXPECT_EQ(r.overall(), VerdictKind::Pass);
  for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"}) {
    const StageVerdict& off = rowOf(r, planner, "planned-no-buffer-ir");
    EXPECT_EQ(off.kind, VerdictKind::Pass) << planner << ": " << off.detail;
    EXPECT_EQ(off.replay, "ptodiff run test.py --planner " + std::string(planner) + " --target a2a3 --no-buffer-ir");
  }
  ASSERT_EQ(r.outputs.size(), 10u);
  EXPECT_EQ(r.outputs[7].name, "PYPTO-planned-no-buffer-ir");
  o.enableBufferIR = false;  // already off: no second pass
  EXPECT_EQ(runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o).verdicts.size(), 8u);
}

// spec/fuzz.md property 2 on a case: verify-each and LowerTileToBuffer's idempotence hold for a
// correct lowering, so turning them on changes no row.
TEST(DifferentialProperties, LoweringLawsHoldForACorrectLowering) {
  const Program p = compileProgram(kMaxTile);
  DifferentialOptions o = options();
  o.checkLoweringLaws = true;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, maxMinArgs(), o);
  EXPECT_EQ(r.overall(), VerdictKind::Pass);
  for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"})
    EXPECT_EQ(rowOf(r, planner, "buffer").kind, VerdictKind::Pass) << planner << ": " << rowOf(r, planner, "buffer").detail;
}

TEST(DifferentialSignature, FieldsInOrderWithDashesForEmptyOnes) {
  StageVerdict v;
  v.kind = VerdictKind::CompileError;
  v.stage = "planned";
  v.failingAt = "PlanMemory";
  v.op = "tile.load";
  v.planner = "PYPTO";
  EXPECT_EQ(v.signature(), "compile-error/-/PlanMemory/tile.load/PYPTO");
  v.kind = VerdictKind::Hazard;
  v.hazard = HazardKind::LiveClobber;
  v.failingAt = "planned";
  v.op.clear();
  EXPECT_EQ(v.signature(), "hazard/live-clobber/planned/-/PYPTO");
}

TEST(DifferentialSignature, OverallIsTheFirstFailingKindInDesignOrder) {
  DifferentialReport r;
  r.verdicts.resize(3);
  r.verdicts[0].kind = VerdictKind::Mismatch;
  r.verdicts[1].kind = VerdictKind::Skipped;
  r.verdicts[2].kind = VerdictKind::Hazard;
  EXPECT_EQ(r.overall(), VerdictKind::Hazard);
  r.verdicts[2].kind = VerdictKind::Pass;
  EXPECT_EQ(r.overall(), VerdictKind::Mismatch);
  r.verdicts[0].kind = VerdictKind::Skipped;
  EXPECT_EQ(r.overall(), VerdictKind::Pass);
}

TEST(DifferentialUlps, OrderedDistanceAcrossZeroAndDtypes) {
  EXPECT_EQ(ulpDistance(DType::FP32, fp32Bits(1.0f), fp32Bits(std::nextafter(1.0f, 2.0f))), 1.0);
  EXPECT_EQ(ulpDistance(DType::FP32, fp32Bits(0.0f), fp32Bits(-0.0f)), 0.0);
  // The smallest positive and negative subnormals are two steps apart (through the zeros).
  EXPECT_EQ(ulpDistance(DType::FP32, 0x00000001u, 0x80000001u), 2.0);
  EXPECT_EQ(ulpDistance(DType::FP32, fp32Bits(1.0f), fp32Bits(-1.0f)), 2.0 * 0x3F800000u);
  EXPECT_TRUE(std::isinf(ulpDistance(DType::FP32, 0x7FC00000u, fp32Bits(1.0f))));
  EXPECT_EQ(ulpDistance(DType::FP32, 0x7FC0DEADu, 0x7FC0DEADu), 0.0);
  EXPECT_EQ(ulpDistance(DType::FP16, 0x3C00u, 0x3C03u), 3.0);         // 1.0 and 1.0 + 3 * 2^-10
  EXPECT_EQ(ulpDistance(DType::BF16, 0xBF80u, 0x3F80u), 2.0 * 0x3F80);  // -1 and 1
  EXPECT_EQ(ulpDistance(DType::INT32, 0xFFFFFFFFu, 2u), 3.0);          // -1 and 2
}

TEST(DifferentialUlps, ElementDescriptions) {
  EXPECT_EQ(describeElement(DType::FP32, fp32Bits(1.5f)), "1.5 (0x3fc00000)");
  EXPECT_EQ(describeElement(DType::FP16, 0x3C00u), "1 (0x3c00)");
  EXPECT_EQ(describeElement(DType::INT32, 0xFFFFFFFEu), "-2 (0xfffffffe)");
  EXPECT_EQ(describeElement(DType::FP32, 0x7FC0DEADu), "nan (0x7fc0dead)");
  EXPECT_EQ(describeElement(DType::FP32, 0x12345678u, true), "poison (0x12345678)");
}

}  // namespace
}  // namespace ptodiff::oracle
