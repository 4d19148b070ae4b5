// The ptodiff command-line program: argument parsing and the mapping of outcomes to exit statuses.
// Everything else lives in the libraries; each subcommand is a thin file of its own.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "tools/ptodiff/CompileCommand.h"
#include "tools/ptodiff/DeviceCommand.h"
#include "tools/ptodiff/FaultsCommand.h"
#include "tools/ptodiff/FuzzCommand.h"
#include "tools/ptodiff/InterpCommand.h"
#include "tools/ptodiff/ReduceCommand.h"
#include "tools/ptodiff/RunCommand.h"

namespace {

constexpr const char* kFooter =
    "Exit status: 0 pass; 1 a failing verdict other than invalid-program (timeout, race); 2 bad usage,\n"
    "an unreadable or unverifiable program, case or .npy file, or invalid-program (outputs are still\n"
    "saved); 3 an internal error in ptodiff itself (please report it).\n"
    "Errors print as FILE:LINE:COL: error: ... on stderr.";

}  // namespace

int main(int argc, char** argv) {
  using namespace ptodiff;
  CLI::App app{"ptodiff: differential testing and reference interpreters for the PTO compiler's\n"
               "Tile -> Buffer lowering. Run 'ptodiff SUBCOMMAND --help' for a subcommand's options.",
               "ptodiff"};
  app.require_subcommand(1);
  app.footer(kFooter);
  InterpOptions interpOptions;
  CLI::App* interp = addInterpCommand(app, interpOptions);
  CompileOptions compileOptions;
  CLI::App* compile = addCompileCommand(app, compileOptions);
  FuzzOptions fuzzOptions;
  ReplayOptions replayOptions;
  const FuzzCommands fuzz = addFuzzCommands(app, fuzzOptions, replayOptions);
  RunOptions runOptions;
  CLI::App* run = addRunCommand(app, runOptions);
  ReduceCommandOptions reduceOptions;
  CLI::App* reduce = addReduceCommand(app, reduceOptions);
  DeviceOptions deviceOptions;
  const DeviceCommands device = addDeviceCommands(app, deviceOptions);
  FaultsOptions faultsOptions;
  CLI::App* faults = addFaultsCommand(app, faultsOptions);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ptodiff: error: " << e.what() << "\n"
              << "Run 'ptodiff --help' or 'ptodiff SUBCOMMAND --help' for usage.\n";
    return kExitBadInput;
  }

  SourceRegistry sources;
  try {
    if (interp->parsed()) return runInterpCommand(interpOptions, sources);
    if (compile->parsed()) return runCompileCommand(compileOptions, sources);
    if (fuzz.merge->parsed()) return runFuzzMergeCommand(fuzzOptions);
    if (fuzz.fuzz->parsed()) return runFuzzCommand(fuzzOptions);
    if (fuzz.replay->parsed()) return runReplayCommand(replayOptions, sources);
    if (run->parsed()) return runRunCommand(runOptions, sources);
    if (reduce->parsed()) return runReduceCommand(reduceOptions, sources);
    if (device.exportCmd->parsed()) return runDeviceExport(deviceOptions, sources);
    if (device.run->parsed()) return runDeviceRun(deviceOptions);
    if (faults->parsed()) return runFaultsCommand(faultsOptions);
    if (device.judge->parsed()) return runDeviceJudge(deviceOptions);
    return kExitBadInput;  // unreachable: CLI11 requires a subcommand
  } catch (const DiagnosticError& e) {
    std::cout.flush();
    std::cerr << sources.format(e.diagnostic());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "ptodiff: internal error: " << e.what() << "\n";
    return kExitInternalError;
  } catch (...) {
    std::cout.flush();
    std::cerr << "ptodiff: internal error: unknown exception\n";
    return kExitInternalError;
  }
}
