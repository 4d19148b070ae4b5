// A program fault found while interpreting: the program broke a precondition of the semantics
// (invalid-program), ran out of steps (timeout), or raced on GM. It is a run result, not an
// error of ptodiff (STYLE rule 5): interpreters throw it internally and turn it into a RunResult.
#pragma once

#include <string>
#include <utility>

#include "compiler/ir/SourceLoc.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

struct ProgramFault {
  RunStatus status = RunStatus::InvalidProgram;
  std::string message;  // "tile.load: window rows [8, 24) exceed tensor rows 16"
  SourceLoc loc;        // filled by the innermost statement when unknown at the throw site

  static ProgramFault invalid(std::string message) { return {RunStatus::InvalidProgram, std::move(message), {}}; }
};

}  // namespace ptodiff
