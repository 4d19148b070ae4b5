// What every ptodiff subcommand shares: exit statuses, the registry of files read (so a
// diagnostic quotes its line), and reading the program, case and NAME=VALUE options.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/faults/Faults.h"
#include "compiler/ir/SourceLoc.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ptodiff {

/// Exit statuses of the ptodiff program (DESIGN.md, "Command line").
enum ExitCode : int {
  kExitPass = 0,
  kExitFailingVerdict = 1,  // timeout, race: any failing verdict other than invalid-program
  kExitBadInput = 2,        // bad usage; unreadable or unverifiable program, case or .npy; invalid-program
  kExitInternalError = 3,   // a bug in ptodiff itself
};

/// The text files read so far, so a diagnostic can quote its line under a caret.
class SourceRegistry {
 public:
  void add(std::shared_ptr<const SourceFile> source) { sources_[source->name] = std::move(source); }
  /// The file that located diagnostics without a file name refer to.
  void setProgramFile(std::string name) { programFile_ = std::move(name); }
  const SourceFile* find(const std::string& name) const;
  /// formatDiagnostic with the diagnostic's own file quoted when it was read.
  std::string format(const Diagnostic& d) const;

 private:
  std::map<std::string, std::shared_ptr<const SourceFile>> sources_;
  std::string programFile_;
};

/// A command-line error not tied to any file position (reported as `ptodiff: error: ...`, exit 2).
[[noreturn]] void usageError(std::string message);

/// Reads a whole text file; `what` names it in the error ("program file", "case file").
std::shared_ptr<const SourceFile> loadSource(const std::string& path, const std::string& what);

/// Splits the NAME=VALUE items of a repeated option (--input, --scalar) into a map; a missing `=`
/// or a repeated NAME is a usage error naming `option` and the expected `valueName`.
std::map<std::string, std::string> splitAssignments(const std::vector<std::string>& items, const std::string& option,
                                                    const std::string& valueName);

/// The case file of a command: `casePath` when given, else PROGRAM's sibling NAME.case.json when it
/// exists (add.py: add.case.json), else empty (the defaults).
std::string findCaseFile(const std::string& program, const std::string& casePath);

/// `--inject-fault NAME` (compile, run, fuzz): one catalogue fault (compiler/faults) to inject.
CLI::Option* addInjectFaultOption(CLI::App* command, std::string& name);
/// The fault `name` names (empty: none); an unknown name is a usage error listing the catalogue.
std::optional<Fault> faultOption(const std::string& name);

}  // namespace ptodiff
