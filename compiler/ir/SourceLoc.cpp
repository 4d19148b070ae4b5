#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0) return {};
  size_t start = 0;
  for (uint32_t l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  size_t end = text.find('\n', start);
  std::string_view v(text);
  v = v.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

namespace {
std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Hazard: return "hazard";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

void formatOne(std::string& out, const Diagnostic& d, const SourceFile* source) {
  if (!d.file.empty()) out += d.file + ":";
  if (d.loc.known()) out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ":";
  if (!out.empty() && out.back() == ':') out += " ";
  out += std::string(severityName(d.severity)) + ": " + d.message + "\n";
  if (source && d.loc.known() && (d.file.empty() || d.file == source->name)) {
    std::string_view line = source->lineText(d.loc.line);
    if (!line.empty()) {
      out += "  " + std::string(line) + "\n  ";
      // Keep tabs so the caret lines up under the column in a terminal.
      for (uint32_t i = 1; i < d.loc.col && i - 1 < line.size(); ++i) out += line[i - 1] == '\t' ? '\t' : ' ';
      out += "^\n";
    }
  }
}
}  // namespace

std::string formatDiagnostic(const Diagnostic& d, const SourceFile* source) {
  std::string out;
  formatOne(out, d, source);
  for (const auto& n : d.notes) {
    std::string note;
    formatOne(note, n, source);
    out += note;
  }
  return out;
}

DiagnosticError::DiagnosticError(Diagnostic d)
    : std::runtime_error(formatDiagnostic(d)), diag_(std::move(d)) {}

void throwError(std::string_view file, SourceLoc loc, std::string message) {
  Diagnostic d;
  d.file = std::string(file);
  d.loc = loc;
  d.message = std::move(message);
  throw DiagnosticError(std::move(d));
}

}  // namespace ptodiff
