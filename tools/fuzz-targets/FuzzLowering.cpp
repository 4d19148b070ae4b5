// libFuzzer target: program text -> parse -> verify -> the whole lowering pipeline under each
// planner (PYPTO, DSA_RP, PTOAS) with verify-each on, so a pass leaving broken IR (std::logic_error
// from the pass manager) is reported as a crash, and a pass rejecting its input is an expected
// DiagnosticError.
#include <cstddef>
#include <cstdint>

#include "compiler/passes/Pipeline.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "tools/fuzz-targets/FuzzTargetSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptodiff;
  fuzztarget::installFuzzLimits();
  Program program;
  try {
    program = parseProgramText(fuzztarget::inputText(data, size), "fuzz.py");
  } catch (const DiagnosticError&) {
    return 0;
  }
  if (!verifyProgram(program).empty()) return 0;
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    PassManagerOptions options;
    options.verifyEach = true;
    PassContext context;
    context.planner = planner;
    context.verifyEach = true;
    try {
      (void)makeLoweringPassManager(options).run(program, context);
    } catch (const DiagnosticError&) {
      // the pipeline rejected the program (e.g. over capacity under this planner): expected
    }
  }
  return 0;
}
