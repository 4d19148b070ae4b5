// The catalogue faults of MaterializeSemanticAliases and LowerTileToBuffer through `ptodiff run`
// (docs/faults.md): each kernel of tests/unit/FaultKernels.h passes without its
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

#include "tests/unit/FaultKernels.h"
#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::runPtodiff;
using testing::TempDir;
using testing::writeFileBytes;

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

// ---- LowerTileToBuffer ----

TEST(FaultsRun, AssembleSourceValidOnlyLeavesTheTargetsOldLanesInTheWindow) {
  expectDetected({"assemble-source-valid-only",
                  faultkernels::assembleSourceValidOnly(),
                  "", "buffer   mismatch             out[8, 24]: expected ", "mismatch/-/buffer/-/PYPTO"});
}

TEST(FaultsRun, InitCondInvertedAccumulatesOntoTheUninitialisedAccumulator) {
  expectDetected(
      {"init-cond-inverted",
       faultkernels::initCondInverted(),
       "", "buffer   mismatch             out[0, 0]: expected ", "mismatch/-/buffer/-/PYPTO"});
}

TEST(FaultsRun, NzZnSwappedMakesTheTransposedRelabelReadTheBytesInAnotherOrder) {
  expectDetected(
      {"nz-zn-swapped",
       faultkernels::nzZnSwapped(),
       "", "buffer   mismatch             out[0, 0]: expected ", "mismatch/-/buffer/-/PYPTO"});
}

TEST(FaultsRun, StaleValidShapeStoresThroughAHandleWithTheOldExtents) {
  expectDetected({"stale-valid-shape",
                  faultkernels::staleValidShape(),
                  "",
                  "buffer   hazard: valid        8:13: valid: buffer.store: extents [8, 16] differ from the valid "
                  "region [16, 32] of the source x\n",
                  "hazard/valid/buffer/buffer.store/PYPTO"});
}

TEST(FaultsRun, ReshapeWidensValidStoresLanesTheTileRunNeverWrote) {
  expectDetected({"reshape-widens-valid",
                  faultkernels::reshapeWidensValid(),
                  "", "buffer   sentinel             out[8, 0]: not written by the Tile run, ",
                  "sentinel/-/buffer/-/PYPTO"});
}

// ---- MaterializeSemanticAliases ----

TEST(FaultsRun, BranchTransferDroppedIsCaughtByTheGenerationCheck) {
  expectDetected({"branch-transfer-dropped",
                  faultkernels::branchTransferDropped(),
                  "{\"scalars\": {\"f\": true}}",
                  "planned  compile-error        13:28: VerifyTileStorage [L9]: 'x' may hold an earlier version of "
                  "the storage of 'z' (line 8), which is written again before the read",
                  "compile-error/-/VerifyTileStorage/-/PYPTO"});
}

TEST(FaultsRun, LoopSwapWithoutSnapshotIsCaughtByTheGenerationCheck) {
  expectDetected({"loop-swap-without-snapshot",
                  faultkernels::loopSwapWithoutSnapshot(),
                  "{\"scalars\": {\"n\": 1}}",
                  "planned  compile-error        8:13: VerifyTileStorage [L9]: 'p' may hold an earlier version of the "
                  "storage of 'p_next' (line 8), which is written again before the read",
                  "compile-error/-/VerifyTileStorage/-/PYPTO"});
}

TEST(FaultsRun, ZeroTripEntryCopyMissingIsCaughtByTheGenerationCheck) {
  expectDetected({"zero-trip-entry-copy-missing",
                  faultkernels::zeroTripEntryCopyMissing(),
                  "{\"scalars\": {\"n\": 2}}",
                  "planned  compile-error        10:28: VerifyTileStorage [L9]: 'x' may hold an earlier version of "
                  "the storage of 'd' (line 7), which is written again before the read",
                  "compile-error/-/VerifyTileStorage/-/PYPTO"});
}

TEST(FaultsRun, ACaseFileReplaysUnderItsInjectedFault) {
  // Reproducers carry their fault in case.json ("inject_fault"): the replay needs no flag.
  TempDir dir;
  writeFileBytes(dir.file("k.py"), faultkernels::reshapeWidensValid());
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
