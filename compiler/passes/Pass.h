// Passes of the reference lowering (spec/lowering.md) and the context they run in.
//
// A pass is one file named after it (compiler/passes/InitMemRef.cpp, ...). It rewrites a verified
// program in place and says whether it changed anything; it reports a failure as a DiagnosticError
// naming the pass, the rule (contract-rules.md ID), the op and the source line, and then leaves the
// program unchanged (passes work on a clone and swap it in only on success where that matters).
// After every pass the pass manager runs the IR verifier and the pass's own postcondition check
// when verify-each is on (always in tests).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/faults/Faults.h"
#include "compiler/ir/IR.h"
#include "compiler/target/Target.h"

namespace ptodiff {

enum class Planner : uint8_t { PYPTO, DSA_RP, PTOAS };
std::string_view plannerName(Planner p);               // "PYPTO", "DSA_RP", "PTOAS"
std::optional<Planner> parsePlanner(std::string_view name);
/// Addressed planners give every allocation a final byte address; PTOAS gives identities only.
inline bool plannerAssignsAddresses(Planner p) { return p != Planner::PTOAS; }

struct PassContext {
  bool enableBufferIR = true;  // S1: false keeps every kernel on the Tile pipeline
  Planner planner = Planner::PYPTO;
  const Target* target = &targetA2A3();
  bool verifyEach = false;     // verifier + postconditions after every pass
  FaultSwitch faults;          // a catalogue miscompile to inject (compiler/faults); none by default
  /// Set by the PassManager for the passes it runs: it verifies every pass's input and every
  /// changed output itself, so a pass that would check either (LowerTileToBuffer's C2, C8) need
  /// not verify them again.
  bool managedVerification = false;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  /// Rewrites `program`; returns true when anything changed. Throws DiagnosticError on failure.
  /// False is a promise the PassManager relies on: it skips the IR verifier after a pass that
  /// changed nothing (its input was verified), and checks the promise under verify-each.
  virtual bool run(Program& program, const PassContext& context) = 0;
  /// True when run() would return false on `program` without touching it, known without running
  /// it; false when unknown. A caller that keeps the pass's input as a snapshot can then share it
  /// with the output instead of copying it.
  virtual bool leavesUnchanged(const Program& program, const PassContext& context) const {
    (void)program;
    (void)context;
    return false;
  }
  /// True when every change run() makes is a function-level verdict the IR verifier does not read
  /// (SelectBufferIRFunctions' buffer_ir_selected): the verifier would pass the changed program as
  /// it passed the input, so the PassManager verifies it again only under verify-each.
  virtual bool changesOnlyFunctionVerdicts() const { return false; }
  /// What must hold after this pass (beyond the IR verifier); empty = holds.
  virtual std::vector<Diagnostic> checkPostcondition(const Program& program, const PassContext& context) const {
    (void)program;
    (void)context;
    return {};
  }
};

}  // namespace ptodiff
