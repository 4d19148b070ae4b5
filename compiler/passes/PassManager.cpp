#include "compiler/passes/PassManager.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

std::string fileOf(const Program& p) { return p.source ? p.source->name : std::string(); }

/// All diagnostics in one text block, for an internal error message.
std::string formatAll(const std::vector<Diagnostic>& diags, const Program& p) {
  std::string out;
  for (const Diagnostic& d : diags) out += formatDiagnostic(d, p.source.get());
  return out;
}

class UnavailablePass final : public Pass {
 public:
  UnavailablePass(std::string name, std::string reason) : name_(std::move(name)), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return "not available in this build"; }
  bool run(Program&, const PassContext&) override {
    throw std::logic_error("pass " + name_ + " is not available: " + reason_);
  }

 private:
  std::string name_, reason_;
};

}  // namespace

void failPass(std::string_view pass, const Program& program, SourceLoc loc, std::string message) {
  throwError(fileOf(program), loc, std::string(pass) + ": " + message);
}

std::unique_ptr<Pass> makeUnavailablePass(std::string name, std::string reason) {
  return std::make_unique<UnavailablePass>(std::move(name), std::move(reason));
}

std::vector<std::string> PassManager::passNames() const {
  std::vector<std::string> names;
  for (const auto& p : passes_) names.emplace_back(p->name());
  return names;
}

void PassManager::checkOptionNames() const {
  std::vector<std::string> names = passNames();
  auto known = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  auto reject = [&](const std::string& option, const std::string& n) {
    throwError("ptodiff", {}, option + " " + n + ": no pass of that name; expected one of: " + joined(names));
  };
  if (!options_.stopAfter.empty() && !known(options_.stopAfter)) reject("--stop-after", options_.stopAfter);
  for (const std::string& n : options_.printAfter)
    if (!known(n)) reject("--print-after", n);
  bool printing = options_.printAfterAll || !options_.printAfter.empty();
  if (printing && !options_.printTo) throw std::logic_error("PassManager: printing requested without a stream");
}

void PassManager::verifyAfter(const Pass& pass, Program& program, const PassContext& context, bool changed,
                              const Program* before) const {
  const std::string name(pass.name());
  const bool verifyEach = options_.verifyEach || context.verifyEach;
  if (!changed && before && !structurallyEqual(*before, program))
    throw std::logic_error("pass " + name + " reported no change but changed the program (" +
                           firstDifference(*before, program) + "):\n" + printProgram(program));
  // An unchanged program is the verified input (held to that word above under verify-each): the
  // verifier, a function of the program's structure, would pass it again, so it does not run (a
  // campaign's check-only passes and Tile-path kernels would otherwise pay for it once more).
  // Verify-each still asks the pass for its postcondition.
  if (changed && (verifyEach || !pass.changesOnlyFunctionVerdicts())) {
    std::vector<Diagnostic> problems = verifyProgram(program);
    if (!problems.empty())
      throw std::logic_error("the IR verifier fails after pass " + name + ":\n" + formatAll(problems, program) +
                             "the program after " + name + ":\n" + printProgram(program));
  }
  if (!verifyEach) return;
  std::vector<Diagnostic> post = pass.checkPostcondition(program, context);
  if (!post.empty())
    throw std::logic_error("the postcondition of pass " + name + " fails:\n" + formatAll(post, program) +
                           "the program after " + name + ":\n" + printProgram(program));
  // An unchanged program is, structurally, the pass's input (checked above), whose text was read
  // back after the pass that made it or was parsed from text: printing and parsing it again would
  // repeat that check word for word.
  if (!changed) return;
  const std::string text = printProgram(program);
  Program reparsed;
  try {
    reparsed = parseProgramText(text, "after " + name);
  } catch (const DiagnosticError& e) {
    throw std::logic_error("the program printed after pass " + name + " does not parse: " + e.what() + "\n" + text);
  }
  if (!structurallyEqual(program, reparsed))
    throw std::logic_error("the program printed after pass " + name + " does not read back to the same IR (" +
                           firstDifference(program, reparsed) + "):\n" + text);
}

PassRunResult PassManager::run(const Program& input, const PassContext& context) const {
  checkOptionNames();
  PassRunResult result;
  result.program = input.clone();
  verifyOrThrow(result.program);
  runPasses(result, context);
  return result;
}

void PassManager::runVerifiedInPlace(Program& program, const PassContext& context) const {
  checkOptionNames();
  PassRunResult result;
  result.program = std::move(program);
  try {
    runPasses(result, context);
  } catch (...) {
    program = std::move(result.program);
    throw;
  }
  program = std::move(result.program);
}

void PassManager::runPasses(PassRunResult& result, const PassContext& callerContext) const {
  const std::vector<std::string> names = passNames();
  PassContext context = callerContext;
  context.managedVerification = true;  // the input is verified, and verifyAfter checks every change
  for (size_t i = 0; i < passes_.size(); ++i) {
    Pass& pass = *passes_[i];
    const std::string name(pass.name());
    bool changed = false;
    // Under verify-each the pass's input is kept to hold an "unchanged" report to its word.
    std::optional<Program> before;
    if (options_.verifyEach || context.verifyEach) before = result.program.clone();
    try {
      changed = pass.run(result.program, context);
    } catch (DiagnosticError& e) {
      Diagnostic d = e.diagnostic();
      Diagnostic note;
      note.severity = Severity::Note;
      note.file = "ptodiff";
      note.message = "in pass " + name + " of the pipeline " + joined(names) +
                     (i == 0 ? std::string("; its input is the program as written")
                             : "; its input is printed by `ptodiff compile ... --stop-after " + names[i - 1] + "`");
      d.notes.push_back(std::move(note));
      throw DiagnosticError(std::move(d));
    }
    verifyAfter(pass, result.program, context, changed, before ? &*before : nullptr);
    result.lastPass = name;
    bool print = options_.printAfterAll || options_.printAfter.count(name) != 0;
    result.lastPassPrinted = print;
    if (print) *options_.printTo << "# IR after " << name << (changed ? "" : " (unchanged)") << "\n"
                                 << printProgram(result.program);
    if (name == options_.stopAfter) break;
  }
}

}  // namespace ptodiff
