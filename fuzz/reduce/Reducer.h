// The structural reducer (spec/fuzz.md, "Reduction"; `ptodiff reduce`): greedy, to a fixpoint,
// over the transformations of Transforms.h in their order. Every candidate is printed, re-parsed
// and verified first — an invalid candidate is counted and skipped, never run — and kept when it
// is strictly smaller (ProgramSize) and still interesting. The result is a function of the input
// and the interestingness test only: candidates are tried in a fixed order and, with several jobs,
// a batch's first interesting candidate in that order wins.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fuzz/reduce/Transforms.h"

namespace ptodiff::fuzz {

/// Whether a (verified) candidate still shows the failure. Called from several threads at once
/// when jobs > 1.
using Interestingness = std::function<bool(const ReduceState&)>;

struct ReduceProgress {
  ProgramSize start, now;
  int64_t candidatesTried = 0;  // run through the interestingness test
  double seconds = 0;
  std::string lastChange;       // the accepted candidate's description
};

struct ReduceOptions {
  double seconds = 60.0;  // time cap; the best result so far is returned when it runs out
  int jobs = 1;           // candidates tested in parallel
  /// Called after every accepted candidate with the new best state (write it out, print progress).
  std::function<void(const ReduceState& best, const ReduceProgress&)> onImproved;
};

struct ReduceStats {
  ProgramSize before, after;
  int64_t tensorElementsBefore = 0, tensorElementsAfter = 0;
  int64_t candidatesTried = 0;    // verified candidates run through the test
  int64_t candidatesInvalid = 0;  // rejected by the parser or verifier (never run)
  int64_t accepted = 0;
  double seconds = 0;
  bool timedOut = false;
};

struct ReduceResult {
  ReduceState best;
  ReduceStats stats;
};

/// Reduces `start` (its program need not carry verifier annotations; it must verify). Throws
/// DiagnosticError when it does not verify. The caller checks that `start` is interesting.
ReduceResult reduceProgram(const ReduceState& start, const Interestingness& interesting, const ReduceOptions& options);

/// Prints, re-parses and verifies `candidate` as the reducer does; the re-parsed, verified program
/// replaces the candidate's when it is valid.
bool reparseAndVerify(ReduceState& candidate);

}  // namespace ptodiff::fuzz
