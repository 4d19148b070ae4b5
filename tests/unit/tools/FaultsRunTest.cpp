// The catalogue faults of MaterializeSemanticAliases and LowerTileToBuffer through `ptodiff run`
// (docs/faults.md): each kernel of tests/unit/compiler/FaultsLoweringTest.cpp passes without its
// fault (exit 0) and fails with it (exit 1) under the signature the fault's bug class produces. The
// MaterializeSemanticAliases faults are caught before execution, by VerifyTileStorage's L9
// generation check; the LowerTileToBuffer faults by comparing the Buffer run with the Tile run.
// acc-product-view-dropped is caught by the Buffer interpreter's M8 check (a matmul destination's
// valid region must be the product); its campaign reproducer is in tests/faults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compiler/faults/Faults.h"

#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::runPtodiff;
using testing::TempDir;
using testing::writeFileBytes;

std::string kernel(const std::string& params, const std::string& result, const std::string& body) {
  return "@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " + params +
         ") -> " + result + ":\n" + body;
}

struct FaultCase {
  std::string fault;
  std::string program;
  std::string caseJson;   // empty: defaults
  std::string verdict;    // the PYPTO row's verdict and detail start, e.g. "buffer   mismatch "
  std::string signature;  // under the PYPTO planner
};

/// Runs the kernel with the fault (exit 1, the signature) and without it (exit 0, every row passes).
void expectDetected(const FaultCase& c) {
  TempDir dir;
  writeFileBytes(dir.file("k.py"), c.program);
  std::string caseArg;
  if (!c.caseJson.empty()) {
    writeFileBytes(dir.file("k.case.json"), c.caseJson);
    caseArg = " --case k.case.json";
  }
  const Outcome clean = runPtodiff(dir, "run k.py" + caseArg + " --planner PYPTO");
  EXPECT_EQ(clean.exitCode, 0) << clean.out << clean.err;
  EXPECT_THAT(clean.out, HasSubstr("\nresult: pass\n"));

  const Outcome faulty = runPtodiff(dir, "run k.py" + caseArg + " --planner PYPTO --inject-fault " + c.fault);
  EXPECT_EQ(faulty.exitCode, 1) << faulty.out << faulty.err;
  EXPECT_THAT(faulty.out, HasSubstr("injected fault: " + c.fault + "\n"));
  EXPECT_THAT(faulty.out, HasSubstr("\nPYPTO    " + c.verdict));
  EXPECT_THAT(faulty.out, HasSubstr("    signature: " + c.signature + "\n"));
  EXPECT_THAT(faulty.out, HasSubstr("    replay: ptodiff run k.py" + caseArg + " --inject-fault " + c.fault +
                                    " --planner PYPTO --target a2a3\n"));
}

const std::string kVec2 =
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]";

// ---- LowerTileToBuffer ----

TEST(FaultsRun, AssembleSourceValidOnlyLeavesTheTargetsOldLanesInTheWindow) {
  expectDetected({"assemble-source-valid-only",
                  kernel(kVec2, "pl.Tensor[[16, 32], pl.FP32]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                         "        s = pl.tile.slice(y, [8, 16], [0, 0], [4, 8])\n"
                         "        r = pl.tile.assemble(x, s, [8, 16])\n"
                         "        o = pl.tile.store(r, [0, 0], out)\n"
                         "        return o\n"),
                  "", "buffer   mismatch             out[8, 24]: expected ", "mismatch/-/buffer/-/PYPTO"});
}

TEST(FaultsRun, InitCondInvertedAccumulatesOntoTheUninitialisedAccumulator) {
  expectDetected(
      {"init-cond-inverted",
       kernel("a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], "
              "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
              "pl.Tensor[[16, 16], pl.FP32]",
              "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
              "        bm = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)\n"
              "        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
              "        for k, (acc,) in pl.range(2, init_values=(acc0,)):\n"
              "            lhs = pl.tile.extract(am, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)\n"
              "            rhs = pl.tile.extract(bm, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
              "            acc1 = pl.tile.matmul_acc(acc, lhs, rhs, init_cond=k == 0)\n"
              "            acc_out = pl.yield_(acc1)\n"
              "        o = pl.tile.store(acc_out, [0, 0], out)\n"
              "        return o\n"),
       "", "buffer   mismatch             out[0, 0]: expected ", "mismatch/-/buffer/-/PYPTO"});
}

TEST(FaultsRun, NzZnSwappedMakesTheTransposedRelabelReadTheBytesInAnotherOrder) {
  expectDetected(
      {"nz-zn-swapped",
       kernel("a: pl.Tensor[[16, 32], pl.FP16], bt: pl.Tensor[[16, 32], pl.FP16], "
              "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
              "pl.Tensor[[16, 16], pl.FP32]",
              "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
              "        btm = pl.tile.load(bt, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
              "        bm = pl.tile.transpose_view(btm)\n"
              "        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
              "        rhs = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
              "        c = pl.tile.matmul(lhs, rhs)\n"
              "        o = pl.tile.store(c, [0, 0], out)\n"
              "        return o\n"),
       "", "buffer   mismatch             out[0, 0]: expected ", "mismatch/-/buffer/-/PYPTO"});
}

TEST(FaultsRun, StaleValidShapeStoresThroughAHandleWithTheOldExtents) {
  expectDetected({"stale-valid-shape",
                  kernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                         "pl.Tensor[[16, 32], pl.FP32]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y = pl.tile.set_validshape(x, 8, 16)\n"
                         "        z = pl.tile.adds(y, 1.0)\n"
                         "        o = pl.tile.store(z, [0, 0], out)\n"
                         "        return o\n"),
                  "",
                  "buffer   hazard: valid        8:13: valid: buffer.store: extents [8, 16] differ from the valid "
                  "region [16, 32] of the source x\n",
                  "hazard/valid/buffer/buffer.store/PYPTO"});
}

TEST(FaultsRun, ReshapeWidensValidStoresLanesTheTileRunNeverWrote) {
  expectDetected({"reshape-widens-valid",
                  kernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]",
                         "pl.Tensor[[32, 16], pl.FP32]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])\n"
                         "        y = pl.tile.reshape(x, [32, 16])\n"
                         "        o = pl.tile.store(y, [0, 0], out)\n"
                         "        return o\n"),
                  "", "buffer   sentinel             out[8, 0]: not written by the Tile run, ",
                  "sentinel/-/buffer/-/PYPTO"});
}

// ---- MaterializeSemanticAliases ----

TEST(FaultsRun, BranchTransferDroppedIsCaughtByTheGenerationCheck) {
  expectDetected({"branch-transfer-dropped",
                  kernel("a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], f: pl.Scalar[pl.BOOL], "
                         "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
                         "pl.Tensor[[32, 32], pl.FP32]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                         "        if f:\n"
                         "            z = pl.tile.add(x, y)\n"
                         "            r = pl.yield_(z)\n"
                         "        else:\n"
                         "            r = pl.yield_(x)\n"
                         "        o0 = pl.tile.store(r, [0, 0], out)\n"
                         "        o1 = pl.tile.store(x, [16, 0], o0)\n"
                         "        return o1\n"),
                  "{\"scalars\": {\"f\": true}}",
                  "planned  compile-error        12:28: VerifyTileStorage [L9]: 'r' may hold an earlier version of "
                  "the storage of 'z' (line 8), which is written again before the read",
                  "compile-error/-/VerifyTileStorage/-/PYPTO"});
}

TEST(FaultsRun, LoopSwapWithoutSnapshotIsCaughtByTheGenerationCheck) {
  expectDetected({"loop-swap-without-snapshot",
                  kernel("a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
                         "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
                         "pl.Tensor[[32, 32], pl.FP32]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                         "        for i, (p, q) in pl.range(n, init_values=(x, y)):\n"
                         "            p1, q1 = pl.yield_(q, p)\n"
                         "        o0 = pl.tile.store(p1, [0, 0], out)\n"
                         "        o1 = pl.tile.store(q1, [16, 0], o0)\n"
                         "        return o1\n"),
                  "{\"scalars\": {\"n\": 1}}",
                  "planned  compile-error        8:13: VerifyTileStorage [L9]: 'p' may hold an earlier version of the "
                  "storage of 'p_next' (line 8), which is written again before the read",
                  "compile-error/-/VerifyTileStorage/-/PYPTO"});
}

TEST(FaultsRun, ZeroTripEntryCopyMissingIsCaughtByTheGenerationCheck) {
  expectDetected({"zero-trip-entry-copy-missing",
                  kernel("a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
                         "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
                         "pl.Tensor[[32, 32], pl.FP32]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
                         "            d = pl.tile.adds(c, 1.0)\n"
                         "            c1 = pl.yield_(d)\n"
                         "        o0 = pl.tile.store(c1, [0, 0], out)\n"
                         "        o1 = pl.tile.store(x, [16, 0], o0)\n"
                         "        return o1\n"),
                  "{\"scalars\": {\"n\": 2}}",
                  "planned  compile-error        10:28: VerifyTileStorage [L9]: 'x' may hold an earlier version of "
                  "the storage of 'd' (line 7), which is written again before the read",
                  "compile-error/-/VerifyTileStorage/-/PYPTO"});
}

TEST(FaultsRun, ACaseFileReplaysUnderItsInjectedFault) {
  // Reproducers carry their fault in case.json ("inject_fault"): the replay needs no flag.
  TempDir dir;
  writeFileBytes(dir.file("k.py"), kernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]",
                                          "pl.Tensor[[32, 16], pl.FP32]",
                                          "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])\n"
                                          "        y = pl.tile.reshape(x, [32, 16])\n"
                                          "        o = pl.tile.store(y, [0, 0], out)\n"
                                          "        return o\n"));
  writeFileBytes(dir.file("k.case.json"), "{\"inject_fault\": \"reshape-widens-valid\"}");
  const Outcome o = runPtodiff(dir, "run k.py --case k.case.json --planner PYPTO");
  EXPECT_EQ(o.exitCode, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("    signature: sentinel/-/buffer/-/PYPTO\n"));
}

// ---- tests/faults: one campaign-found, reduced reproducer per catalogue fault ----------------

namespace fs = std::filesystem;

std::vector<std::string> faultFolders() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(PTODIFF_TESTS_DIR) / "faults"))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FaultReproducers, EveryCatalogueFaultHasOne) {
  const std::vector<std::string> folders = faultFolders();
  for (const FaultInfo& f : faultCatalogue())
    EXPECT_TRUE(std::count(folders.begin(), folders.end(), std::string(f.name))) << f.name;
  EXPECT_EQ(folders.size(), faultCatalogue().size());
}

class FaultReproducer : public ::testing::TestWithParam<std::string> {};

/// The reproducer the random campaign saved for the fault (its case.json names the fault) fails with
/// the saved signature; the same case without `"inject_fault"` passes under every planner.
TEST_P(FaultReproducer, FailsWithItsFaultAndPassesWithout) {
  const fs::path folder = fs::path(PTODIFF_TESTS_DIR) / "faults" / GetParam();
  const nlohmann::json saved = nlohmann::json::parse(std::ifstream(folder / "reproducer.json"));
  nlohmann::json caseJson = nlohmann::json::parse(std::ifstream(folder / "case.json"));
  ASSERT_EQ(caseJson.value("inject_fault", ""), GetParam());
  TempDir scratch;
  const Outcome faulty = runPtodiff(folder, "run program.py --case case.json --planner all", scratch.path());
  EXPECT_EQ(faulty.exitCode, 1) << faulty.out << faulty.err;
  EXPECT_THAT(faulty.out, HasSubstr("signature: " + saved.at("signature").get<std::string>())) << faulty.out;

  caseJson.erase("inject_fault");
  for (auto& [name, tensor] : caseJson["tensors"].items())
    if (tensor.contains("file")) tensor["file"] = (folder / tensor["file"].get<std::string>()).string();
  writeFileBytes(scratch.file("clean.case.json"), caseJson.dump(2));
  const Outcome clean = runPtodiff(folder, "run program.py --case " + scratch.file("clean.case.json") +
                                               " --planner all", scratch.path());
  EXPECT_EQ(clean.exitCode, 0) << clean.out << clean.err;
  EXPECT_THAT(clean.out, HasSubstr("\nresult: pass\n"));
}

INSTANTIATE_TEST_SUITE_P(Catalogue, FaultReproducer, ::testing::ValuesIn(faultFolders()), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace ptodiff
