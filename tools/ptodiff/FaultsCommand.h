// `ptodiff faults`: the fault catalogue (compiler/faults, docs/faults.md) as a table or as JSON, so
// scripts such as ci/qualify take the list of faults from the binary instead of hard-coding it.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ptodiff {

struct FaultsOptions {
  bool json = false;  // a JSON array of {name, pass, bug_class, what} instead of the table
};

/// Declares the `faults` subcommand on `app`, binding its flag to `options`.
CLI::App* addFaultsCommand(CLI::App& app, FaultsOptions& options);

/// Prints the catalogue in catalogue order; returns 0.
int runFaultsCommand(const FaultsOptions& options);

/// The catalogue as `--json` prints it (one object per fault, catalogue order).
std::string faultCatalogueJson();

}  // namespace ptodiff
