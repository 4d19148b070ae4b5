#include "tools/ptodiff/InterpCommand.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/BufferInterpreter.h"
#include "interp/Interpreters.h"
#include "interp/PlannedTileInterpreter.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"
#include "interp/Random.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

namespace fs = std::filesystem;

namespace {

constexpr const char* kInterpSummary = "Run one program as written and report its outputs";
constexpr const char* kInterpDescription =
    "Parses and verifies PROGRAM (every verifier error is printed; exit 2), builds the kernel's\n"
    "arguments from the case, runs the kernel once per block, and prints a summary on stdout: the\n"
    "status (pass, invalid-program, timeout, race, hazard) and, per Out/InOut tensor, its dtype,\n"
    "shape, the number of elements written and of poison elements, and a 64-bit FNV-1a checksum of\n"
    "its bytes.\n"
    "Interpreter: a Buffer-stage function runs on the Buffer interpreter (byte-addressed on-chip\n"
    "memories of the case's target, with the storage checkers), a Tile-stage function whose tiles\n"
    "all carry MemRefs on the planned-Tile interpreter (the same machine, plus the live-clobber\n"
    "checker), any other Tile-stage function on the value interpreter; --interpreter overrides.\n"
    "A hazard prints FILE:LINE:COL: hazard: KIND: details on stderr and exits 1.\n"
    "Programs whose allocations (or planned roots) mix forms with and without an address are judged\n"
    "by the case's first planner: under PYPTO or DSA_RP one without an address is hazard: addressless.\n"
    "Case: --case CASE.json, else PROGRAM's sibling NAME.case.json when it exists (for add.py:\n"
    "add.case.json), else defaults (In/InOut tensors uniform in [-1, 1], Out tensors sentinel).\n"
    "--input and --scalar override the case.";

const Function& selectKernel(const Program& program, const std::string& requested) {
  const Function* kernel = requested.empty() ? program.defaultKernel() : program.findFunction(requested);
  if (kernel) return *kernel;
  std::string names;
  for (const Function& f : program.functions) names += (names.empty() ? "" : ", ") + f.name;
  if (requested.empty())
    usageError("cannot choose the kernel to run: the program has several functions and none is named "
               "\"kernel\" (functions: " + names + "); name one with --function or the case's \"function\"");
  usageError("the program has no function \"" + requested + "\" (functions: " + names + ")");
}

/// The interpreter that runs `kernel`: --interpreter when given, else interp's default rule
/// (Buffer stage: the Buffer interpreter; a Tile function whose tiles all carry MemRefs: the
/// planned-Tile interpreter; any other Tile function: the value interpreter). A request that does
/// not fit the function is refused.
InterpreterKind chooseInterpreter(const Function& kernel, const std::string& requested) {
  if (kernel.type == FunctionType::Orchestration)
    usageError("function \"" + kernel.name + "\" is an Orchestration function, which the interpreters do not run");
  const bool bufferStage = kernel.stage == FunctionStage::Buffer;
  if (requested == "buffer" && !bufferStage)
    usageError("--interpreter buffer: function \"" + kernel.name + "\" is a Tile-stage function; the Buffer " +
               "interpreter runs Buffer-stage functions (stage=pl.FunctionIRStage.Buffer)");
  if ((requested == "value" || requested == "planned") && bufferStage)
    usageError("--interpreter " + requested + ": function \"" + kernel.name + "\" is a Buffer-stage function; the " +
               requested + " interpreter runs Tile-stage functions (use --interpreter buffer, or no --interpreter)");
  if (requested == "planned" && !isPlannedTileKernel(kernel))
    usageError("--interpreter planned: function \"" + kernel.name + "\" has tiles without a MemRef; the planned-Tile " +
               "interpreter runs planned programs (ptodiff compile --stop-after VerifyTileStorage prints one)");
  if (const std::optional<InterpreterKind> k = parseInterpreter(requested)) return *k;
  return defaultInterpreter(kernel);
}

/// Whether a program counts as coming from an addressed planner: only a program whose
/// allocations (Buffer) or roots (planned Tile) mix both forms is ambiguous, and then the case's
/// first planner decides (an all-addressed program is addressed, an all-addressless one PTOAS's).
bool addressedPlannerFor(const Function& kernel, const CaseSpec& spec) {
  if (!mixesAddressForms(kernel) || spec.planners.empty()) return false;
  const std::optional<Planner> first = parsePlanner(spec.planners.front());
  return first && plannerAssignsAddresses(*first);
}

/// Prints every verifier diagnostic; true when there was an error among them.
bool reportVerifierDiagnostics(const std::vector<Diagnostic>& diags, const SourceRegistry& sources) {
  bool anyError = false;
  for (const Diagnostic& d : diags) {
    std::cerr << sources.format(d);
    anyError |= d.severity == Severity::Error;
  }
  return anyError;
}

std::string hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

int64_t countFlags(const std::vector<uint8_t>& flags) {
  int64_t n = 0;
  for (uint8_t f : flags) n += f ? 1 : 0;
  return n;
}

bool isOutput(const Param& p) {
  return p.type.isTensor() && (p.direction == ParamDirection::Out || p.direction == ParamDirection::InOut);
}

const Tensor& finalTensor(const RunResult& result, const Param& p) {
  auto it = result.final.tensors.find(p.name);
  if (it == result.final.tensors.end())
    throw std::logic_error("the interpreter returned no final contents for tensor \"" + p.name + "\"");
  return it->second;
}

void printSummary(const InterpOptions& options, const std::string& casePath, const Function& kernel,
                  int64_t blockNum, const RunResult& result) {
  std::cout << "program: " << options.program << "\n"
            << "function: " << kernel.name << "\n"
            << "case: " << (casePath.empty() ? "none (defaults)" : casePath) << "\n"
            << "blocks: " << blockNum << "\n"
            << "status: " << runStatusName(result.status) << "\n";
  if (result.hazard) std::cout << "hazard: " << hazardKindName(result.hazard->kind) << "\n";
  std::cout
            << "steps: " << result.steps << "\n";
  for (const Param& p : kernel.params) {
    if (!isOutput(p)) continue;
    const Tensor& t = finalTensor(result, p);
    std::cout << "tensor " << p.name << ": " << dtypeName(t.dtype) << " [" << t.rows << ", " << t.cols << "]"
              << " written=" << countFlags(t.written) << " poison=" << countFlags(t.poison)
              << " fnv1a64=" << hex64(fnv1a64({reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()}))
              << "\n";
  }
}

/// DIR/NAME.npy for every Out/InOut tensor, plus DIR/NAME.poison.npy exactly when it has poison
/// (a stale one from an earlier run is removed, so the file's presence always means poison).
void saveOutputs(const std::string& dir, const Function& kernel, const RunResult& result) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throwError(dir, {}, "cannot create the output folder: " + (ec ? ec.message() : "not a directory"));
  for (const Param& p : kernel.params) {
    if (!isOutput(p)) continue;
    const Tensor& t = finalTensor(result, p);
    const std::string values = (fs::path(dir) / (p.name + ".npy")).string();
    const std::string poison = (fs::path(dir) / (p.name + ".poison.npy")).string();
    writeNpy(values, t);
    std::cout << "saved: " << values << "\n";
    if (t.anyPoison()) {
      writeNpyPoison(poison, t);
      std::cout << "saved: " << poison << "\n";
    } else if (fs::exists(poison, ec) && !fs::remove(poison, ec)) {
      throwError(poison, {}, "cannot remove the stale poison file: " + ec.message());
    }
  }
}

int exitCodeOf(RunStatus status) {
  switch (status) {
    case RunStatus::Ok: return kExitPass;
    case RunStatus::InvalidProgram: return kExitBadInput;
    case RunStatus::Timeout: case RunStatus::Race: case RunStatus::Hazard: return kExitFailingVerdict;
  }
  return kExitInternalError;
}

/// `FILE:LINE:COL: error: STATUS: message` for a run that did not pass, or
/// `FILE:LINE:COL: hazard: KIND: details` for a hazard.
void reportRunFailure(const RunResult& result, const std::string& programPath, const SourceRegistry& sources) {
  Diagnostic d = result.diagnostic;
  const std::string prefix = std::string(runStatusName(result.status)) + ": ";
  if (result.status != RunStatus::Hazard && !d.message.starts_with(prefix)) d.message = prefix + d.message;
  if (d.file.empty()) d.file = programPath;
  std::cerr << sources.format(d);
}

}  // namespace

CLI::App* addInterpCommand(CLI::App& app, InterpOptions& o) {
  CLI::App* cmd = app.add_subcommand("interp", kInterpSummary);
  cmd->footer(std::string(kInterpDescription) + "\n\n" + app.get_footer());
  cmd->add_option("PROGRAM", o.program, "Program file in the text format (a .py file)")->required();
  cmd->add_option("--case", o.casePath,
                  "Case file (JSON). Default: PROGRAM's sibling NAME.case.json if it exists, else defaults");
  cmd->add_option("--input", o.inputs,
                  "NAME=FILE.npy: initialise tensor NAME from a .npy file (dtype and shape must match the "
                  "parameter exactly); repeatable; overrides the case")
      ->allow_extra_args(false);
  cmd->add_option("--scalar", o.scalars,
                  "NAME=VALUE: value of scalar parameter NAME, read strictly against its dtype (integers in "
                  "decimal, FP32 as a float literal, BOOL as true/false); repeatable; overrides the case")
      ->allow_extra_args(false);
  cmd->add_option("--block-num", o.blockNum, "Number of blocks to launch (>= 1); overrides the case's block_num")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--function", o.function,
                  "Function to run; overrides the case's \"function\" (default: the only kernel, or \"kernel\")");
  cmd->add_option("--step-budget", o.stepBudget,
                  "Executed statements allowed over all blocks before the run stops with timeout")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--save-outputs", o.saveOutputs,
                  "Folder (created with its parents if missing) receiving NAME.npy for every Out/InOut tensor "
                  "(BF16 as <u2 raw bits) and NAME.poison.npy (bool) where the tensor holds poison");
  cmd->add_option("--interpreter", o.interpreter,
                  "Interpreter: value (Tile-stage functions, MemRefs ignored), planned (Tile-stage functions "
                  "whose tiles all carry MemRefs) or buffer (Buffer-stage functions); default: chosen from the "
                  "function")
      ->check(CLI::IsMember({"value", "planned", "buffer"}));
  return cmd;
}

int runInterpCommand(const InterpOptions& options, SourceRegistry& sources) {
  auto programSource = loadSource(options.program, "program file");
  sources.add(programSource);
  sources.setProgramFile(options.program);
  Program program = parseProgram(programSource);
  if (reportVerifierDiagnostics(verifyProgram(program), sources)) return kExitBadInput;

  const std::string casePath = findCaseFile(options.program, options.casePath);
  CaseSpec spec;
  if (!casePath.empty()) {
    auto caseSource = loadSource(casePath, "case file");
    sources.add(caseSource);
    spec = parseCaseFile(*caseSource);
  }
  const Function& kernel = selectKernel(program, options.function.empty() ? spec.function : options.function);
  const InterpreterKind interpreter = chooseInterpreter(kernel, options.interpreter);

  ArgOverrides overrides;
  overrides.inputFiles = splitAssignments(options.inputs, "--input", "FILE.npy");
  overrides.scalars = splitAssignments(options.scalars, "--scalar", "VALUE");
  const KernelArgs args = buildKernelArgs(kernel, spec, overrides);

  RunConfig config;
  config.blockNum = options.blockNum.value_or(spec.blockNum);
  config.stepBudget = static_cast<uint64_t>(options.stepBudget);
  config.seed = spec.seed;
  if (const Target* target = findTarget(spec.target)) config.target = target->kind;
  config.addressedPlanner = addressedPlannerFor(kernel, spec);
  const RunResult result = runKernel(interpreter, program, kernel, args, config);

  printSummary(options, casePath, kernel, config.blockNum, result);
  if (!options.saveOutputs.empty()) saveOutputs(options.saveOutputs, kernel, result);
  std::cout.flush();
  if (result.status != RunStatus::Ok) reportRunFailure(result, options.program, sources);
  return exitCodeOf(result.status);
}

}  // namespace ptodiff
