// The reducer's two interestingness tests (spec/fuzz.md, "Reduction"): the same failure signature
// as the input (the campaign's dedup key, run the way `ptodiff run` runs a program: Tile, planned
// Tile or Buffer stage), or a user command as llvm-reduce and C-Reduce use (exit 0 = interesting).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/reduce/Reducer.h"

namespace ptodiff::fuzz {

/// The signatures ("kind/hazard/stage/op/planner") of every failing (planner, stage) of `state`
/// run once through the differential runner (runDifferentialCase), in verdict-table order. With a
/// `reference` (a verified Tile program), a Buffer program is judged against it as `ptodiff run
/// --reference` does; a candidate whose parameters no longer fit the reference shows nothing.
std::vector<std::string> failureSignatures(const ReduceState& state, uint64_t stepBudget,
                                           std::shared_ptr<const Program> reference = nullptr);

/// Interesting = the run still shows `signature` among its failures.
Interestingness sameSignature(std::string signature, uint64_t stepBudget,
                              std::shared_ptr<const Program> reference = nullptr);

/// Interesting = `command CANDIDATE.py` exits 0 within `timeoutSeconds` (run by /bin/sh; its
/// output is discarded). Each candidate is written as a reproducer folder (program.py, case.json
/// and program.case.json, the .npy inputs) under `workDir`, so `ptodiff run "$1"` and
/// `ptodiff interp "$1"` find the case by themselves; the folder is removed afterwards.
Interestingness externalCommand(std::string command, double timeoutSeconds, std::filesystem::path workDir);

/// Runs `sh -c 'COMMAND "$1"' sh ARGUMENT` with stdout/stderr discarded; its exit status, or -1 when
/// it was killed after `timeoutSeconds` (the whole process group is killed) or could not start.
int runShellCommand(const std::string& command, const std::string& argument, double timeoutSeconds);

}  // namespace ptodiff::fuzz
