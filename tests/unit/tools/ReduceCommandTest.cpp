// `ptodiff reduce` through the binary: a padded hazard program reduced by its signature and by a
// `--test` shell script that greps ptodiff's output, the reproducer folder it writes (replayed by
// `ptodiff replay`), and its usage errors with their exact text.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff::testing {
namespace {

namespace fs = std::filesystem;

const std::string kRecipInPlace =
    "import pypto.language as pl\n\n\n@pl.program\nclass recip_in_place:\n"
    "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
    "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
    "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
    "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
    "PADDING"
    "        pl.buffer.recip(x, x)\n"
    "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
    "        return out\n";

/// 33 statements (three units of an assignment, a For with two carries and an If with a result)
/// nothing of which reaches a tensor.
std::string padding() {
  std::string text;
  for (int k = 0; k < 3; ++k) {
    const std::string s = std::to_string(k);
    text += "        pa" + s + " = 3 + " + s + "\n" +
            "        for pi" + s + ", (pb" + s + ", pc" + s + ") in pl.range(0, 2, 1, init_values=(pa" + s + ", 1)):\n" +
            "            pd" + s + " = pb" + s + " + pi" + s + "\n" +
            "            pe" + s + " = pc" + s + " * 2\n" +
            "            pf" + s + ", pg" + s + " = pl.yield_(pd" + s + ", pe" + s + ")\n" +
            "        if pf" + s + " > 4:\n" +
            "            ph" + s + " = pf" + s + " + pg" + s + "\n" +
            "            pj" + s + " = pl.yield_(ph" + s + ")\n" +
            "        else:\n" +
            "            pk" + s + " = pf" + s + " - 1\n" +
            "            pj" + s + " = pl.yield_(pk" + s + ")\n" +
            "        pm" + s + " = pj" + s + " // 2\n";
  }
  return text;
}

std::string paddedRecip() {
  std::string text = kRecipInPlace;
  text.replace(text.find("PADDING"), 7, padding());
  return text;
}

const std::string kSignature = "hazard/overlap/buffer/buffer.recip/-";

TEST(ReduceCommand, ReducesAPaddedHazardProgramToAtMostFourStatementsAndWritesAReplayableFolder) {
  TempDir dir;
  writeFileBytes(dir.file("recip.py"), paddedRecip());
  const Outcome o = runPtodiff(dir, "reduce recip.py --time 60s");
  ASSERT_EQ(o.exitCode, 0) << o.err << o.out;
  EXPECT_EQ(o.err, "");
  EXPECT_NE(o.out.find("reduce: recip.py keeps " + kSignature + "; writing recip.reduced\n"), std::string::npos) << o.out;
  // Progress lines show the size now against the start.
  EXPECT_NE(o.out.find("reduce: statements 38 -> "), std::string::npos) << o.out;
  // At most the unpadded alloc, load, recip, return (the store goes: the hazard fires before it).
  EXPECT_TRUE(std::regex_search(o.out, std::regex("ptodiff reduce: statements 38 -> [1-4], ops 4 -> [1-3], tensor "
                                                  "elements 1024 -> [0-9]+; [0-9]+ candidates tried \\([0-9]+ invalid, "
                                                  "never run\\), [0-9]+ accepted, [0-9.]+ s\n")))
      << o.out;
  EXPECT_NE(o.out.find("signature: " + kSignature + "\nreduced reproducer: recip.reduced\nreplay: ptodiff replay "
                       "recip.reduced\n"),
            std::string::npos)
      << o.out;
  for (const char* f : {"program.py", "case.json", "reproducer.json", "README.md"})
    EXPECT_TRUE(fs::exists(dir.path() / "recip.reduced" / f)) << f;
  const std::string reduced = readFileBytes(dir.file("recip.reduced/program.py"));
  EXPECT_EQ(reduced.find("pa0"), std::string::npos) << reduced;
  EXPECT_NE(reduced.find("pl.buffer.recip(x, x)"), std::string::npos) << reduced;

  const Outcome replay = runPtodiff(dir, "replay recip.reduced");
  EXPECT_EQ(replay.exitCode, 1) << replay.err;
  EXPECT_NE(replay.out.find("reproduced: " + kSignature), std::string::npos) << replay.out;

  // A reproducer folder is an input too: its reproducer.json names the signature to keep.
  const Outcome again = runPtodiff(dir, "reduce recip.reduced --out again");
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.out.find("reduce: recip.reduced keeps " + kSignature + "; writing again\n"), std::string::npos)
      << again.out;
  EXPECT_TRUE(fs::exists(dir.path() / "again" / "program.py"));
}

TEST(ReduceCommand, TestModeKeepsWhatAShellScriptGrepsFromPtodiffsOutput) {
  TempDir dir;
  writeFileBytes(dir.file("recip.py"), paddedRecip());
  // The script sees the candidate's path; `ptodiff interp` finds program.case.json beside it.
  writeFileBytes(dir.file("still_overlaps.sh"),
                 "#!/bin/sh\n'" PTODIFF_BINARY "' interp \"$1\" 2>&1 | grep -q 'hazard: overlap: buffer.recip'\n");
  const Outcome o = runPtodiff(dir, "reduce recip.py --test 'sh still_overlaps.sh' --out small --jobs 2");
  ASSERT_EQ(o.exitCode, 0) << o.err << o.out;
  EXPECT_NE(o.out.find("reduce: recip.py keeps external-test; writing small\n"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("ptodiff reduce: statements 38 -> [1-4], ")) ) << o.out;
  const Outcome check = runPtodiff(dir, "interp small/program.py --case small/case.json");
  EXPECT_EQ(check.exitCode, 1);
  EXPECT_NE(check.err.find("hazard: overlap: buffer.recip"), std::string::npos) << check.err;
}

TEST(ReduceCommand, ABufferProgramIsJudgedAgainstItsReferenceTileProgram) {
  // store_touches_sentinel: a Buffer program whose bug only the comparison with its Tile program
  // (tests/programs/partial_store.py) shows; its case reads .npy inputs beside the Tile program.
  TempDir dir;
  const fs::path hazards = fs::path(PTODIFF_TESTS_DIR) / "hazards";
  const Outcome o = runPtodiff(hazards,
                               "reduce store_touches_sentinel.py --reference ../programs/partial_store.py --out '" +
                                   dir.file("st") + "'",
                               dir.path());
  ASSERT_EQ(o.exitCode, 0) << o.err << o.out;
  EXPECT_NE(o.out.find("reduce: store_touches_sentinel.py keeps sentinel/-/buffer/-/-; writing "), std::string::npos)
      << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("ptodiff reduce: statements 10 -> [1-8], "))) << o.out;
  const Outcome without = runPtodiff(hazards, "reduce store_touches_sentinel.py --out '" + dir.file("st2") + "'",
                                     dir.path());
  EXPECT_EQ(without.exitCode, 2);
  EXPECT_EQ(without.err,
            "ptodiff: error: store_touches_sentinel.py: the program passes under its case: nothing to reduce\n");
}

TEST(ReduceCommand, TestModeRejectsAnInputTheScriptDoesNotAccept) {
  TempDir dir;
  writeFileBytes(dir.file("recip.py"), paddedRecip());
  const Outcome o = runPtodiff(dir, "reduce recip.py --test false");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_EQ(o.err, "ptodiff: error: recip.py: the --test command does not exit 0 on the input: nothing to reduce\n");
}

TEST(ReduceCommand, APassingProgramHasNothingToReduce) {
  TempDir dir;
  writeFileBytes(dir.file("copy.py"),
                 "import pypto.language as pl\n\n\n@pl.program\nclass copy:\n"
                 "    @pl.function(type=pl.FunctionType.InCore)\n"
                 "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
                 "pl.Tensor[[16, 32], pl.FP32]:\n"
                 "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                 "        o = pl.tile.store(x, [0, 0], out)\n"
                 "        return o\n");
  const Outcome o = runPtodiff(dir, "reduce copy.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_EQ(o.err, "ptodiff: error: copy.py: the program passes under its case: nothing to reduce\n");
  EXPECT_FALSE(fs::exists(dir.path() / "copy.reduced"));
}

TEST(ReduceCommand, ASignatureTheProgramDoesNotShowIsAnError) {
  TempDir dir;
  writeFileBytes(dir.file("recip.py"), paddedRecip());
  const Outcome o = runPtodiff(dir, "reduce recip.py --signature mismatch/-/buffer/-/-");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_EQ(o.err, "ptodiff: error: recip.py: the program does not show mismatch/-/buffer/-/- (it shows: " +
                       kSignature + ")\n");
}

TEST(ReduceCommand, BadInputIsLocatedAndBadUsageNamed) {
  TempDir dir;
  writeFileBytes(dir.file("bad.py"), "import pypto.language as pl\n\n\n@pl.program\nclass bad:\n    x = 1\n");
  const Outcome syntax = runPtodiff(dir, "reduce bad.py");
  EXPECT_EQ(syntax.exitCode, 2);
  EXPECT_EQ(syntax.err.rfind("bad.py:6:5: error: ", 0), 0u) << syntax.err;

  writeFileBytes(dir.file("recip.py"), paddedRecip());
  const Outcome time = runPtodiff(dir, "reduce recip.py --time soon");
  EXPECT_EQ(time.exitCode, 2);
  EXPECT_EQ(time.err, "ptodiff: error: --time: 'soon' is not a duration such as 60s, 5m or 1h\n");

  const Outcome planner = runPtodiff(dir, "reduce recip.py --planner FAST");
  EXPECT_EQ(planner.exitCode, 2);
  EXPECT_EQ(planner.err, "ptodiff: error: --planner FAST: expected PYPTO, DSA_RP, PTOAS or all\n");

  const Outcome missing = runPtodiff(dir, "reduce nowhere.py");
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("nowhere.py"), std::string::npos) << missing.err;

  const Outcome noInput = runPtodiff(dir, "reduce");
  EXPECT_EQ(noInput.exitCode, 2);
  EXPECT_NE(noInput.err.find("INPUT is required"), std::string::npos) << noInput.err;
}

}  // namespace
}  // namespace ptodiff::testing
