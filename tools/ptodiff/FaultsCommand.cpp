#include "tools/ptodiff/FaultsCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include <nlohmann/json.hpp>

#include "compiler/faults/Faults.h"

namespace ptodiff {

CLI::App* addFaultsCommand(CLI::App& app, FaultsOptions& options) {
  CLI::App* faults = app.add_subcommand(
      "faults", "List the fault catalogue: the miscompiles --inject-fault NAME can inject (docs/faults.md)");
  faults->add_flag("--json", options.json, "Print a JSON array of {name, pass, bug_class, what}");
  return faults;
}

std::string faultCatalogueJson() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const FaultInfo& f : faultCatalogue())
    list.push_back({{"name", f.name}, {"pass", f.pass}, {"bug_class", f.bugClass}, {"what", f.what}});
  return list.dump(2) + "\n";
}

int runFaultsCommand(const FaultsOptions& options) {
  if (options.json) {
    std::cout << faultCatalogueJson();
    return 0;
  }
  // One block per fault: the sentences are too long for a table row on a terminal.
  bool first = true;
  for (const FaultInfo& f : faultCatalogue()) {
    std::cout << (first ? "" : "\n") << f.name << "\n"
              << "  pass:      " << f.pass << "\n"
              << "  bug class: " << f.bugClass << "\n"
              << "  what:      " << f.what << "\n";
    first = false;
  }
  std::cout << "\n" << faultCatalogue().size() << " faults; inject one with --inject-fault NAME "
            << "(compile, run, fuzz)\n";
  return 0;
}

}  // namespace ptodiff
