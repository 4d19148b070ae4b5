// Source locations and diagnostics.
//
// Every user-facing problem is a Diagnostic: severity, FILE:LINE:COL, one message saying what is
// wrong and what was expected, and optional located notes. Input errors are thrown as
// DiagnosticError; program faults found at run time are result values (see interp/).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ptodiff {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based
  bool known() const { return line != 0; }
  bool operator==(const SourceLoc&) const = default;
};

/// A named text buffer; diagnostics quote its lines under a caret.
struct SourceFile {
  std::string name;
  std::string text;
  /// Line `line` (1-based) without its newline; empty if out of range.
  std::string_view lineText(uint32_t line) const;
};

enum class Severity : uint8_t { Error, Hazard, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;  // may be empty
  SourceLoc loc;
  std::string message;
  std::vector<Diagnostic> notes;
};

/// `FILE:LINE:COL: error: MESSAGE`, then (when `source` is given and the location known) the
/// offending line and a caret under the column; notes follow in the same form.
std::string formatDiagnostic(const Diagnostic& d, const SourceFile* source = nullptr);

class DiagnosticError : public std::runtime_error {
 public:
  explicit DiagnosticError(Diagnostic d);
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

/// Throws DiagnosticError{Error, file, loc, message}.
[[noreturn]] void throwError(std::string_view file, SourceLoc loc, std::string message);

}  // namespace ptodiff
