// Parser of the program text format (docs/text-format.md): a strict subset of Python syntax,
// PyPTO's printer notation for Tile and Buffer stage programs.
#pragma once

#include "compiler/ir/IR.h"

namespace ptodiff {

/// Parses a whole program. Throws DiagnosticError (`FILE:LINE:COL: error: ...`, naming what was
/// expected) on the first syntax error; names and types are checked by verifyProgram, not here.
/// The returned Program keeps a reference to `source` for diagnostics.
Program parseProgram(std::shared_ptr<const SourceFile> source);

/// Convenience: parses text held in memory under the display name `fileName`.
Program parseProgramText(std::string text, std::string fileName = "<input>");

/// Reads and parses a file; an unreadable file is a DiagnosticError naming it.
Program parseProgramFile(const std::string& path);

}  // namespace ptodiff
