// A reproducer folder (spec/fuzz.md, "Campaign"): everything needed to replay one failure by hand
// or with `ptodiff replay DIR`, written atomically (AtomicFiles.h).
//
//   program.py       the kernel in the text format
//   case.json        the failing scalar set, block count, planners, target; inputs by file
//   NAME.npy         every In/InOut tensor's exact input bits
//   reproducer.json  the signature, the verdict, the campaign case it came from, sizes
//   README.md        what failed and the one-line replay command
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"
#include "fuzz/campaign/CaseRunner.h"

namespace ptodiff::fuzz {

struct ReproducerInfo {
  std::string signature;
  Verdict verdict;
  uint64_t campaignSeed = 0;
  uint64_t caseIndex = 0;   // global case index in the campaign
  uint64_t caseSeed = 0;    // caseSeed(campaignSeed, caseIndex)
  int64_t statementsBefore = 0, statementsAfter = 0;  // before and after shrinking
  std::string replay;       // the replay command (replayCommand(folder) plus non-default options)
};

/// The folder name of a signature's reproducer: "sig-" and 16 hex digits of its hash.
std::string reproducerName(const std::string& signature);

/// The replay command printed in README.md, report.json and junit.xml; a campaign's non-default
/// step budget is repeated so the replay runs under the same budget.
std::string replayCommand(const std::filesystem::path& folder, uint64_t stepBudget = 1'000'000);

/// Writes the reproducer of `program` run with `spec` into `folder` atomically (replacing an older
/// copy). Input tensors are materialised as .npy files so the case does not depend on ptodiff's
/// random generator. Throws std::runtime_error or DiagnosticError on failure.
void writeReproducer(const std::filesystem::path& folder, const Program& program, const CaseSpec& spec,
                     const ReproducerInfo& info);

/// What `ptodiff replay` needs: the program, the case and the signature the folder was saved for.
struct LoadedReproducer {
  Program program;
  CaseSpec spec;
  std::string signature;  // empty when reproducer.json is missing (a hand-made folder)
};
/// Reads program.py, case.json and reproducer.json of `folder`. Bad files throw DiagnosticError.
LoadedReproducer loadReproducer(const std::filesystem::path& folder);

}  // namespace ptodiff::fuzz
