// Runs the ptodiff binary as a subprocess: exit statuses, messages, summaries and saved outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <bit>
#include <cstdlib>
#include <filesystem>

#include "compiler/ir/SourceLoc.h"
#include "interp/Npy.h"
#include "interp/Random.h"
#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::TempDir;
using testing::writeFileBytes;

using testing::Outcome;
using testing::runPtodiff;

// A kernel adding two tensors' first 8 rows plus a scalar into `out`; rows 8..15 stay sentinel.
constexpr const char* kAddProgram = R"(import pypto.language as pl


@pl.program
class add_half:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [8, 32])
        y = pl.tile.load(b, [0, 0], [8, 32])
        t = pl.tile.add(x, y)
        u = pl.tile.adds(t, s)
        r = pl.tile.store(u, [0, 0], out)
        return r
)";

// Stores an uninitialised tile (all poison) to GM: invalid-program at line 9.
constexpr const char* kPoisonProgram = R"(import pypto.language as pl


@pl.program
class poison_store:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        c = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        r = pl.tile.store(c, [0, 0], out)
        return r
)";

// Uses an undefined name on line 10.
constexpr const char* kUnverifiableProgram = R"(import pypto.language as pl


@pl.program
class unverifiable:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        t = pl.tile.add(x, nope)
        r = pl.tile.store(t, [0, 0], out)
        return r
)";

// A 100-trip loop: far more statements than a budget of 5.
constexpr const char* kLoopProgram = R"(import pypto.language as pl


@pl.program
class loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 100, 1, init_values=(x,)):
            nxt = pl.tile.adds(acc, 1.0)
            res = pl.yield_(nxt)
        r = pl.tile.store(res, [0, 0], out)
        return r
)";

// Every block stores the same window: a race as soon as there are two blocks.
constexpr const char* kSameWindowProgram = R"(import pypto.language as pl


@pl.program
class same_window:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        r = pl.tile.store(x, [0, 0], out)
        return r
)";

constexpr const char* kBufferProgram = R"(import pypto.language as pl


@pl.program
class buffer_add:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        b_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        r_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        pl.buffer.load(b, [0, 0], [16, 32], b_buf)
        pl.buffer.add(a_buf, b_buf, r_buf)
        pl.buffer.store(r_buf, [0, 0], [16, 32], out)
        return out
)";

uint32_t fp32Bits(float v) { return std::bit_cast<uint32_t>(v); }

/// out = a + b + s over rows 0..7 with a = iota and b filled with `bValue`; rows 8..15 sentinel.
Tensor expectedAddOutput(float bValue, float s) {
  Tensor t(DType::FP32, 16, 32);
  t.fillBits(0x7FC0DEADu);
  for (int64_t i = 0; i < 8 * 32; ++i) t.setBitsAt(i, fp32Bits(static_cast<float>(i) + bValue + s));
  return t;
}

std::string checksumText(const Tensor& t) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx",
                static_cast<unsigned long long>(
                    fnv1a64({reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()})));
  return buf;
}

class Cli : public ::testing::Test {
 protected:
  void writeAddCase(const std::string& caseName, const std::string& scalars = R"("s": 0.25)") {
    Tensor b(DType::FP32, 16, 32);
    b.fillBits(fp32Bits(0.5f));
    writeNpy(dir.file("b.npy"), b);
    writeFileBytes(dir.file(caseName), R"({"tensors": {"a": {"init": "iota"}, "b": {"file": "b.npy"}}, "scalars": {)" +
                                           scalars + "}}");
  }
  TempDir dir;
};

// ---- usage ----

TEST_F(Cli, HelpListsInterp) {
  const Outcome o = runPtodiff(dir, "--help");
  EXPECT_EQ(o.exitCode, 0);
  EXPECT_THAT(o.out, HasSubstr("interp"));
  EXPECT_THAT(o.out, HasSubstr("Exit status"));
}

TEST_F(Cli, InterpHelpDescribesEveryOption) {
  const Outcome o = runPtodiff(dir, "interp --help");
  EXPECT_EQ(o.exitCode, 0);
  for (const char* option : {"PROGRAM", "--case", "--input", "--scalar", "--block-num", "--function",
                             "--step-budget", "--save-outputs", "--interpreter", "NAME.case.json", "Exit status"})
    EXPECT_THAT(o.out, HasSubstr(option));
}

TEST_F(Cli, BadUsageExits2) {
  Outcome o = runPtodiff(dir, "");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("ptodiff: error: A subcommand is required"));
  o = runPtodiff(dir, "interp");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("PROGRAM is required"));
  o = runPtodiff(dir, "frobnicate");
  EXPECT_EQ(o.exitCode, 2);
  o = runPtodiff(dir, "interp x.py --block-num 0");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--block-num"));
  o = runPtodiff(dir, "interp x.py --interpreter magic");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--interpreter"));
}

TEST_F(Cli, UnknownOptionExits2) {
  const Outcome o = runPtodiff(dir, "interp --frobnicate x.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--frobnicate"));
}

TEST_F(Cli, MissingProgramFileExits2) {
  const Outcome o = runPtodiff(dir, "interp missing.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("missing.py: error: cannot read program file: No such file or directory"));
  EXPECT_THAT(o.out, IsEmpty());
}

TEST_F(Cli, MalformedAssignmentOptionsExit2) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeAddCase("add.case.json");
  Outcome o = runPtodiff(dir, "interp add.py --scalar s");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("ptodiff: error: --scalar s: expected NAME=VALUE"));
  o = runPtodiff(dir, "interp add.py --scalar s=1 --scalar s=2");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("\"s\" is given more than once"));
  o = runPtodiff(dir, "interp add.py --scalar s=abc");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("cannot read \"abc\" as a floating-point number"));
}

// ---- runs ----

TEST_F(Cli, RunsWithSiblingCaseAndSavesOutputs) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeAddCase("add.case.json");
  const Outcome o = runPtodiff(dir, "interp add.py --save-outputs outs/deep");
  ASSERT_EQ(o.exitCode, 0) << o.err;
  EXPECT_THAT(o.err, IsEmpty());
  const Tensor expected = expectedAddOutput(0.5f, 0.25f);
  EXPECT_THAT(o.out, HasSubstr("case: add.case.json\n"));
  EXPECT_THAT(o.out, HasSubstr("status: pass\n"));
  EXPECT_THAT(o.out, HasSubstr("tensor out: FP32 [16, 32] written=256 poison=0 fnv1a64=" + checksumText(expected)));

  const Tensor saved = readNpy(dir.file("outs/deep/out.npy"));
  EXPECT_EQ(saved.dtype, DType::FP32);
  EXPECT_EQ(saved.rows, 16);
  EXPECT_EQ(saved.cols, 32);
  EXPECT_EQ(saved.bytes, expected.bytes);
  EXPECT_FALSE(std::filesystem::exists(dir.file("outs/deep/out.poison.npy")));
  // Only Out/InOut tensors are saved.
  EXPECT_FALSE(std::filesystem::exists(dir.file("outs/deep/a.npy")));
}

TEST_F(Cli, OverridesBeatTheCase) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeAddCase("other.json");
  Tensor b(DType::FP32, 16, 32);
  b.fillBits(fp32Bits(2.0f));
  writeNpy(dir.file("two.npy"), b);
  const Outcome o =
      runPtodiff(dir, "interp add.py --case other.json --input b=two.npy --scalar s=-1.5 --save-outputs o");
  ASSERT_EQ(o.exitCode, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("case: other.json\n"));
  EXPECT_EQ(readNpy(dir.file("o/out.npy")).bytes, expectedAddOutput(2.0f, -1.5f).bytes);
}

TEST_F(Cli, MissingScalarExits2) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeAddCase("add.case.json", "");
  const Outcome o = runPtodiff(dir, "interp add.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("scalar parameter \"s\" (pl.Scalar[pl.FP32]) of kernel \"kernel\" has no value"));
}

TEST_F(Cli, InvalidProgramExits2AndStillSavesOutputs) {
  writeFileBytes(dir.file("poison.py"), kPoisonProgram);
  const Outcome o = runPtodiff(dir, "interp poison.py --save-outputs o");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.out, HasSubstr("status: invalid-program\n"));
  EXPECT_THAT(o.err, ContainsRegex("poison\\.py:9:[0-9]+: error: invalid-program: "));
  EXPECT_THAT(o.err, HasSubstr("r = pl.tile.store(c, [0, 0], out)"));  // the quoted source line
  const Tensor values = readNpy(dir.file("o/out.npy"));
  EXPECT_EQ(values.rows, 16);
  const Tensor poison = readNpy(dir.file("o/out.poison.npy"));
  EXPECT_EQ(poison.dtype, DType::BOOL);
  EXPECT_EQ(poison.rows, 16);
  EXPECT_EQ(poison.cols, 32);
  for (uint8_t flag : poison.bytes) ASSERT_EQ(flag, 1);
}

TEST_F(Cli, StalePoisonFileIsRemoved) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeAddCase("add.case.json");
  std::filesystem::create_directories(dir.file("o"));
  writeFileBytes(dir.file("o/out.poison.npy"), "stale");
  const Outcome o = runPtodiff(dir, "interp add.py --save-outputs o");
  ASSERT_EQ(o.exitCode, 0) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o/out.poison.npy")));
}

TEST_F(Cli, VerifierErrorExits2WithLocation) {
  writeFileBytes(dir.file("unverifiable.py"), kUnverifiableProgram);
  const Outcome o = runPtodiff(dir, "interp unverifiable.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, ContainsRegex("unverifiable\\.py:10:[0-9]+: error: .*nope"));
  EXPECT_THAT(o.err, HasSubstr("t = pl.tile.add(x, nope)"));
  EXPECT_THAT(o.err, HasSubstr("^"));
  EXPECT_THAT(o.out, Not(HasSubstr("status:")));
}

TEST_F(Cli, SyntaxErrorExits2WithLocation) {
  writeFileBytes(dir.file("syntax.py"), "import pypto.language as pl\n\n@pl.program\nclass x:\n    def (\n");
  const Outcome o = runPtodiff(dir, "interp syntax.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, ContainsRegex("syntax\\.py:[0-9]+:[0-9]+: error: "));
  EXPECT_THAT(o.err, Not(HasSubstr("internal error")));
}

TEST_F(Cli, BadCaseFileExits2WithLocation) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeFileBytes(dir.file("add.case.json"), "{\n  \"tensors\": {\"a\": {\"init\": \"uniform\", \"lo\": 0}}\n}\n");
  const Outcome o = runPtodiff(dir, "interp add.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("add.case.json:2:40: error: unknown tensor field \"lo\""));
  EXPECT_THAT(o.err, HasSubstr("  \"tensors\": {\"a\": {\"init\": \"uniform\", \"lo\": 0}}"));  // quoted line
}

TEST_F(Cli, BadNpyInputExits2NamingTheFile) {
  writeFileBytes(dir.file("add.py"), kAddProgram);
  writeAddCase("add.case.json");
  writeFileBytes(dir.file("junk.npy"), "not an npy file at all");
  const Outcome o = runPtodiff(dir, "interp add.py --input a=junk.npy");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("junk.npy: error: not a .npy file: bad magic"));
}

TEST_F(Cli, TimeoutExits1) {
  writeFileBytes(dir.file("loop.py"), kLoopProgram);
  const Outcome o = runPtodiff(dir, "interp loop.py --step-budget 5");
  EXPECT_EQ(o.exitCode, 1);
  EXPECT_THAT(o.out, HasSubstr("status: timeout\n"));
  EXPECT_THAT(o.err, ContainsRegex("loop\\.py:[0-9]+:[0-9]+: error: timeout: "));
  // The default budget is plenty for 100 trips.
  EXPECT_EQ(runPtodiff(dir, "interp loop.py").exitCode, 0);
}

TEST_F(Cli, RaceExits1) {
  writeFileBytes(dir.file("same.py"), kSameWindowProgram);
  EXPECT_EQ(runPtodiff(dir, "interp same.py").exitCode, 0);
  const Outcome o = runPtodiff(dir, "interp same.py --block-num 2");
  EXPECT_EQ(o.exitCode, 1);
  EXPECT_THAT(o.out, HasSubstr("blocks: 2\n"));
  EXPECT_THAT(o.out, HasSubstr("status: race\n"));
  EXPECT_THAT(o.err, ContainsRegex("same\\.py:10:[0-9]+: error: race: "));
}

TEST_F(Cli, BufferStageFunctionsRunOnTheBufferInterpreter) {
  writeFileBytes(dir.file("buf.py"), kBufferProgram);
  writeFileBytes(dir.file("buf.case.json"), R"({"tensors": {"a": {"init": "iota"}, "b": {"init": "iota"}}})");
  Outcome o = runPtodiff(dir, "interp buf.py --save-outputs outs");
  EXPECT_EQ(o.exitCode, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("status: pass\n"));
  EXPECT_THAT(o.out, HasSubstr("tensor out: FP32 [16, 32] written=512 poison=0"));
  const Tensor out = readNpy(dir.file("outs/out.npy"));
  for (int64_t i = 0; i < 512; ++i) EXPECT_EQ(out.bitsAt(i), fp32Bits(2.0f * static_cast<float>(i))) << i;
  // Forcing the Buffer interpreter gives the same run; the other interpreters refuse the function.
  EXPECT_EQ(runPtodiff(dir, "interp buf.py --interpreter buffer").out, runPtodiff(dir, "interp buf.py").out);
  o = runPtodiff(dir, "interp buf.py --interpreter value");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--interpreter value: function \"kernel\" is a Buffer-stage function"));
  o = runPtodiff(dir, "interp buf.py --interpreter planned");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--interpreter planned: function \"kernel\" is a Buffer-stage function"));
  writeFileBytes(dir.file("same.py"), kSameWindowProgram);
  o = runPtodiff(dir, "interp same.py --interpreter buffer");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--interpreter buffer: function \"kernel\" is a Tile-stage function"));
  EXPECT_EQ(runPtodiff(dir, "interp same.py --interpreter value").exitCode, 0);
  const Outcome help = runPtodiff(dir, "interp --help");
  EXPECT_THAT(help.out, HasSubstr("Buffer-stage function runs on the Buffer interpreter"));
  EXPECT_THAT(help.out, HasSubstr("FILE:LINE:COL: hazard: KIND: details"));
  EXPECT_THAT(help.out, HasSubstr("hazard: addressless"));
}

// recip over its own input at line 10: an overlap hazard.
constexpr const char* kRecipInPlaceProgram = R"(import pypto.language as pl


@pl.program
class recip_in_place:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.recip(x, x)
        pl.buffer.store(x, [0, 0], [16, 32], out)
        return out
)";

TEST_F(Cli, HazardExits1WithLocationSourceLineAndCaret) {
  writeFileBytes(dir.file("recip.py"), kRecipInPlaceProgram);
  const Outcome o = runPtodiff(dir, "interp recip.py --save-outputs outs");
  EXPECT_EQ(o.exitCode, 1);
  EXPECT_THAT(o.out, HasSubstr("status: hazard\nhazard: overlap\n"));
  EXPECT_THAT(o.out, HasSubstr("tensor out: FP32 [16, 32] written=0 poison=0"));  // stopped before the store
  EXPECT_EQ(o.err,
            "recip.py:10:9: hazard: overlap: buffer.recip: destination x (bytes [0, 2048)) overlaps source x (bytes "
            "[0, 2048)) first at bytes [0, 2048); buffer.recip cannot run in place\n"
            "          pl.buffer.recip(x, x)\n"
            "          ^\n");
  EXPECT_TRUE(std::filesystem::exists(dir.file("outs/out.npy")));  // outputs are saved all the same
}

// One allocation with an address, one without: which planner the program came from decides.
constexpr const char* kMixedAllocProgram = R"(import pypto.language as pl


@pl.program
class mixed:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.exp(x, y)
        pl.buffer.store(y, [0, 0], [16, 32], out)
        return out
)";

TEST_F(Cli, MixedAllocationsAreJudgedByTheCasesFirstPlanner) {
  writeFileBytes(dir.file("mixed.py"), kMixedAllocProgram);
  // No case: the default planner list starts with PYPTO, an addressed planner.
  Outcome o = runPtodiff(dir, "interp mixed.py");
  EXPECT_EQ(o.exitCode, 1);
  EXPECT_THAT(o.err, HasSubstr("mixed.py:9:9: hazard: addressless: buffer.alloc: y: Vec FP32 [16, 32] has no address"));
  writeFileBytes(dir.file("ptoas.json"), R"({"planners": ["PTOAS", "PYPTO"]})");
  o = runPtodiff(dir, "interp mixed.py --case ptoas.json");
  EXPECT_EQ(o.exitCode, 0) << o.err;
  writeFileBytes(dir.file("dsa.json"), R"({"planners": ["DSA_RP"]})");
  EXPECT_EQ(runPtodiff(dir, "interp mixed.py --case dsa.json").exitCode, 1);
}

TEST_F(Cli, TheCaseTargetSizesTheMemories) {
  // A buffer at 192 KiB is past a2a3's UB and inside a5's usable 240 KiB.
  std::string text = kRecipInPlaceProgram;
  text.replace(text.find("pl.buffer.recip(x, x)"), std::string("pl.buffer.recip(x, x)").size(), "pl.buffer.abs(x, x)");
  text.replace(text.find("alloc((), 0)"), std::string("alloc((), 0)").size(), "alloc((), 196608)");
  writeFileBytes(dir.file("far.py"), text);
  Outcome o = runPtodiff(dir, "interp far.py");
  EXPECT_EQ(o.exitCode, 1);
  EXPECT_THAT(o.err, HasSubstr("far.py:8:9: hazard: bounds: buffer.alloc: x: bytes [196608, 198656) leave a2a3 Vec"));
  writeFileBytes(dir.file("a5.json"), R"({"target": "a5"})");
  o = runPtodiff(dir, "interp far.py --case a5.json");
  EXPECT_EQ(o.exitCode, 0) << o.err;
}

TEST_F(Cli, UnknownFunctionExits2) {
  writeFileBytes(dir.file("same.py"), kSameWindowProgram);
  const Outcome o = runPtodiff(dir, "interp same.py --function other");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("the program has no function \"other\" (functions: kernel)"));
}

}  // namespace
}  // namespace ptodiff
