// The pass manager: runs an ordered list of passes over a clone of a program (so the input is
// untouched whatever happens), verifies the IR after every pass, and prints it on request.
//
// After every pass the IR verifier runs (the passes rely on the slots and types it fills, so this
// is not optional); with `verifyEach` the pass's own postcondition and the text round trip
// (parse(print(p)) == p, for each program a pass changed) are checked too. A broken invariant
// after a pass is a bug in that pass and is thrown as std::logic_error naming it; a pass rejecting
// its input throws DiagnosticError, to which the manager adds a note naming the pipeline and how
// to reproduce the failing pass's input.
#pragma once

#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/passes/Pass.h"

namespace ptodiff {

struct PassManagerOptions {
  bool verifyEach = false;  // postconditions + round trip after every pass (also on when PassContext::verifyEach is)
  bool printAfterAll = false;         // print the IR after every pass
  std::set<std::string> printAfter;   // print the IR after these passes
  std::string stopAfter;              // stop after this pass (empty: run them all)
  std::ostream* printTo = nullptr;    // where printing goes (required when printing is requested)
};

/// What a run produced.
struct PassRunResult {
  Program program;
  std::string lastPass;      // the last pass that ran (empty when none ran)
  bool lastPassPrinted = false;  // whether the IR after `lastPass` was printed already
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : options_(std::move(options)) {}

  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  std::vector<std::string> passNames() const;

  /// Verifies `input` (its errors are thrown as DiagnosticError: the input is bad), checks the
  /// option names against the passes, then runs the passes in order on a clone.
  PassRunResult run(const Program& input, const PassContext& context) const;

  /// Runs the passes in order on `program` itself: no copy, and no verification of the input, which
  /// the caller vouches for (it is the verified output of an earlier run, e.g. the previous pass of
  /// a pipeline run pass by pass). After a throw `program` holds what the passes made of it so far.
  void runVerifiedInPlace(Program& program, const PassContext& context) const;

 private:
  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;

  void checkOptionNames() const;
  void runPasses(PassRunResult& result, const PassContext& context) const;
  /// After `pass` ran: the IR verifier when it changed the program (its input was verified);
  /// under verify-each always, with the postcondition and, for a pass that changed the program,
  /// the text round trip; for one that reported no change, structural equality with `before`
  /// (its input) instead.
  void verifyAfter(const Pass& pass, Program& program, const PassContext& context, bool changed,
                   const Program* before) const;
};

/// Throws `FILE:LINE:COL: error: PASS: MESSAGE` for a pass rejecting the program (`program`'s
/// source names the file).
[[noreturn]] void failPass(std::string_view pass, const Program& program, SourceLoc loc, std::string message);

/// A pass that only reports that the real one is not available (e.g. a placeholder whose factory
/// throws): running it throws std::logic_error naming the pass and the reason.
std::unique_ptr<Pass> makeUnavailablePass(std::string name, std::string reason);

}  // namespace ptodiff
