// Writing case bundles (Bundle.h) from a Tile program and its case: the reference lowering under
// one planner and target, the sub-cases of matrix mode (ScalarMatrix.h), and per sub-case the
// oracle's values, bounds under the target's tolerance profile and written mask.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/IR.h"
#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/text/CaseFile.h"
#include "device/ScalarMatrix.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::device {

struct ExportCase {
  Program program;  // the Tile program as given (verified by the exporter)
  CaseSpec spec;    // the base case: kernel, tensors, block count, seed, the first sub-case's scalars
  std::vector<ScalarSet> sets;  // prepared sub-cases (generated cases); empty: derived or the case's
  nlohmann::ordered_json origin = nlohmann::ordered_json::object();
};

struct ExportOptions {
  Planner planner = Planner::PYPTO;
  const Target* target = &targetA2A3();
  oracle::ToleranceProfile profile;  // the target's: what bound/ holds
  uint64_t stepBudget = 1'000'000;
  bool matrix = true;       // derive sub-cases when the case brings none
  size_t maxSubcases = 8;
  /// Skip a case on which ptodiff's own differential run (Tile, oracle, planned, Buffer under the
  /// planner) fails: such a case judges ptodiff, not the device (generated cases).
  bool skipSelfFailures = false;
  std::string replay;  // the export command, recorded in the manifest
};

struct ExportOutcome {
  bool written = false;
  std::string skipped;                    // why no bundle was written
  std::optional<Diagnostic> rejection;    // the lowering's or the Tile semantics' located reason
  size_t subcases = 0;
  size_t dropped = 0;                     // derived sets the program rejects
  std::string selfCheck;                  // the first failing signature of ptodiff's own run, if any
};

/// Writes bundle `folder` (replacing it atomically). Bad input (a program that does not verify, a
/// case whose arguments do not fit) throws DiagnosticError; a case that cannot be a bundle (the
/// lowering rejects it, no sub-case runs) returns written = false with the reason.
ExportOutcome exportBundle(const std::filesystem::path& folder, const ExportCase& c, const ExportOptions& o);

/// ptodiff's version as recorded in manifests.
std::string ptodiffVersion();

}  // namespace ptodiff::device
