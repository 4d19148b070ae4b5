#include "tools/ptodiff/CommandSupport.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ptodiff {

namespace fs = std::filesystem;

const SourceFile* SourceRegistry::find(const std::string& name) const {
  auto it = sources_.find(name);
  return it == sources_.end() ? nullptr : it->second.get();
}

std::string SourceRegistry::format(const Diagnostic& d) const {
  if (!d.file.empty()) return formatDiagnostic(d, find(d.file));
  // No file: located in the program when it has a position (kernel parameters do not record their
  // file), else a problem with the command line itself.
  Diagnostic named = d;
  named.file = d.loc.known() && !programFile_.empty() ? programFile_ : "ptodiff";
  return formatDiagnostic(named, find(named.file));
}

void usageError(std::string message) { throwError("ptodiff", {}, std::move(message)); }

std::shared_ptr<const SourceFile> loadSource(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throwError(path, {}, "cannot read " + what + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(path, {}, "cannot read " + what + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throwError(path, {}, "cannot read " + what + ": read failed");
  return std::make_shared<const SourceFile>(SourceFile{path, text.str()});
}

std::map<std::string, std::string> splitAssignments(const std::vector<std::string>& items, const std::string& option,
                                                    const std::string& valueName) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) usageError(option + " " + item + ": expected NAME=" + valueName);
    const std::string name = item.substr(0, eq);
    if (!out.emplace(name, item.substr(eq + 1)).second)
      usageError(option + " " + item + ": \"" + name + "\" is given more than once");
  }
  return out;
}

std::string findCaseFile(const std::string& program, const std::string& casePath) {
  if (!casePath.empty()) return casePath;
  fs::path sibling(program);
  sibling.replace_extension(".case.json");
  std::error_code ec;
  return fs::is_regular_file(sibling, ec) ? sibling.string() : std::string();
}

CLI::Option* addInjectFaultOption(CLI::App* command, std::string& name) {
  return command->add_option("--inject-fault", name,
                             "Inject the catalogue miscompile NAME into the lowering (docs/faults.md; off by default)");
}

std::optional<Fault> faultOption(const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::optional<Fault> f = parseFault(name);
  if (!f) usageError("--inject-fault " + name + ": unknown fault; expected one of " + faultNames());
  return f;
}

}  // namespace ptodiff
