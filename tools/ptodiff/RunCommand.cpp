#include "tools/ptodiff/RunCommand.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"
#include "oracle/Differential.h"
#include "oracle/ToleranceProfile.h"
#include "tools/ptodiff/CommandSupport.h"

namespace ptodiff {

namespace fs = std::filesystem;
using oracle::DifferentialReport;
using oracle::StageVerdict;
using oracle::VerdictKind;

namespace {

constexpr const char* kRunSummary = "Run one differential case and print the verdict table";
constexpr const char* kRunDescription =
    "Parses and verifies PROGRAM (every verifier error is printed; exit 2) and builds the kernel's\n"
    "arguments from the case. A Tile program runs on the value interpreter and the oracle (stage\n"
    "'tile', 'oracle'); then, per planner, the reference lowering runs, the planned Tile program\n"
    "(after VerifyTileStorage) runs on the planned-Tile interpreter (stage 'planned') and, when the\n"
    "kernel is selected for the Buffer path, the Buffer program on the Buffer interpreter (stage\n"
    "'buffer'). Each physical run is compared with the Tile run (semantics.md section 7) and judged by\n"
    "its checkers. A planned Tile file compares its value run with its planned run; a Buffer file is\n"
    "compared with the Tile program given by --reference, else only the checkers judge it.\n"
    "Each (planner, stage) gets the first verdict of: invalid-program, crash, compile-error, timeout,\n"
    "hazard, race, sentinel, mismatch, symbolic-mismatch (only with --symbolic), oracle (else pass;\n"
    "'skipped' when the stage did not run), with\n"
    "a signature kind/hazard/stage/op/planner and a replay command. Located failures also print as\n"
    "FILE:LINE:COL: hazard|error: ... on stderr.\n"
    "Planners and target default to the case's (else all three planners, a2a3).";

/// Parses and verifies a program file; false (diagnostics printed) when it does not verify.
bool loadProgram(const std::string& path, const std::string& what, Program& out, SourceRegistry& sources) {
  auto source = loadSource(path, what);
  sources.add(source);
  out = parseProgram(source);
  bool anyError = false;
  for (const Diagnostic& d : verifyProgram(out)) {
    std::cerr << sources.format(d);
    anyError |= d.severity == Severity::Error;
  }
  return !anyError;
}

const Function& selectKernel(const Program& program, const std::string& requested, const std::string& file) {
  const Function* kernel = requested.empty() ? program.defaultKernel() : program.findFunction(requested);
  if (kernel && kernel->type != FunctionType::Orchestration) return *kernel;
  std::string names;
  for (const Function& f : program.functions) names += (names.empty() ? "" : ", ") + f.name;
  if (kernel) usageError(file + ": function \"" + kernel->name + "\" is an Orchestration function, which ptodiff run does not run");
  if (requested.empty())
    usageError(file + ": cannot choose the kernel: several functions and none is named \"kernel\" (functions: " + names +
               "); name one with --function or the case's \"function\"");
  usageError(file + ": no function \"" + requested + "\" (functions: " + names + ")");
}

std::vector<Planner> plannersOf(const RunOptions& o, const CaseSpec& spec) {
  std::vector<std::string> names;
  if (o.planner.empty()) names = spec.planners;
  else if (o.planner == "all") names = {"PYPTO", "DSA_RP", "PTOAS"};
  else names = {o.planner};
  std::vector<Planner> out;
  for (const std::string& n : names) {
    const std::optional<Planner> p = parsePlanner(n);
    if (!p) usageError("planner " + n + ": expected PYPTO, DSA_RP or PTOAS");
    out.push_back(*p);
  }
  return out;
}

std::string quoted(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$\\;&|<>()*?") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The replay command up to the options that pick a row (added by the differential library).
std::string replayBase(const RunOptions& o, const std::string& casePath) {
  std::string r = "ptodiff run " + quoted(o.program);
  if (!casePath.empty()) r += " --case " + quoted(casePath);
  for (const std::string& i : o.inputs) r += " --input " + quoted(i);
  for (const std::string& s : o.scalars) r += " --scalar " + quoted(s);
  if (!o.function.empty()) r += " --function " + quoted(o.function);
  if (o.blockNum) r += " --block-num " + std::to_string(*o.blockNum);
  if (o.stepBudget != 1'000'000) r += " --step-budget " + std::to_string(o.stepBudget);
  if (!o.reference.empty()) r += " --reference " + quoted(o.reference);
  if (o.toleranceProfile != "cpu") r += " --tolerance-profile " + quoted(o.toleranceProfile);
  if (!o.injectFault.empty()) r += " --inject-fault " + quoted(o.injectFault);
  if (o.symbolic) r += " --symbolic";
  return r;
}

std::string hazardName(const StageVerdict& v) {
  return v.hazard ? std::string(hazardKindName(*v.hazard)) : std::string();
}

/// "hazard: overlap" / "mismatch".
std::string verdictLabel(const StageVerdict& v) {
  std::string s(oracle::verdictKindName(v.kind));
  if (v.hazard) s += ": " + hazardName(v);
  return s;
}

void printTable(const DifferentialReport& r, const std::string& header) {
  std::cout << header;
  std::cout << std::left << std::setw(8) << "planner" << " " << std::setw(8) << "stage" << " " << std::setw(20)
            << "verdict" << " detail\n";
  for (const StageVerdict& v : r.verdicts) {
    std::cout << std::left << std::setw(8) << (v.planner.empty() ? "-" : v.planner) << " " << std::setw(8) << v.stage
              << " " << std::setw(20) << verdictLabel(v) << " " << v.detail << "\n";
    if (!v.failed()) continue;
    std::cout << "    signature: " << v.signature() << "\n"
              << "    replay: " << v.replay << "\n";
  }
  std::cout << "result: " << oracle::verdictKindName(r.overall()) << "\n";
}

nlohmann::json differenceJson(const oracle::ElementDifference& d) {
  auto hex = [&](uint64_t bits) {
    std::ostringstream s;
    s << "0x" << std::hex << std::setw(dtypeSize(d.dtype) * 2) << std::setfill('0') << bits;
    return s.str();
  };
  nlohmann::json j = {{"tensor", d.tensor},
          {"dtype", std::string(dtypeName(d.dtype))},
          {"row", d.row},
          {"col", d.col},
          {"expected_bits", hex(d.expectedBits)},
          {"actual_bits", hex(d.actualBits)},
          {"expected", oracle::describeElement(d.dtype, d.expectedBits)},
          {"actual", oracle::describeElement(d.dtype, d.actualBits, d.actualPoison)},
          {"actual_poison", d.actualPoison},
          {"ulps", std::isinf(d.ulps) ? nlohmann::json(nullptr) : nlohmann::json(d.ulps)},
          {"count", d.count}};
  if (!d.expectedFormula.empty()) {  // symbolic-mismatch
    j["expected_formula"] = d.expectedFormula;
    j["actual_formula"] = d.actualFormula;
  }
  return j;
}

void printJson(const DifferentialReport& r, const nlohmann::json& header) {
  nlohmann::json out = header;
  out["result"] = std::string(oracle::verdictKindName(r.overall()));
  nlohmann::json rows = nlohmann::json::array();
  for (const StageVerdict& v : r.verdicts) {
    nlohmann::json row = {{"planner", v.planner.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.planner)},
                          {"stage", v.stage},
                          {"verdict", std::string(oracle::verdictKindName(v.kind))},
                          {"hazard", v.hazard ? nlohmann::json(hazardName(v)) : nlohmann::json(nullptr)},
                          {"failing_at", v.failingAt},
                          {"op", v.op},
                          {"detail", v.detail},
                          {"signature", v.failed() ? nlohmann::json(v.signature()) : nlohmann::json(nullptr)},
                          {"replay", v.replay}};
    if (v.diagnostic && v.diagnostic->loc.known())
      row["location"] = {{"file", v.diagnostic->file}, {"line", v.diagnostic->loc.line}, {"col", v.diagnostic->loc.col}};
    if (v.difference) row["difference"] = differenceJson(*v.difference);
    rows.push_back(std::move(row));
  }
  out["verdicts"] = std::move(rows);
  std::cout << out.dump(2) << "\n";
}

/// DIR/RUN/NAME.npy (+ NAME.poison.npy when the tensor holds poison) for every run's Out/InOut tensors.
void saveOutputs(const std::string& dir, const Function& kernel, const DifferentialReport& r, bool announce) {
  for (const oracle::RunOutputs& run : r.outputs) {
    const fs::path folder = fs::path(dir) / run.name;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec || !fs::is_directory(folder))
      throwError(folder.string(), {}, "cannot create the output folder: " + (ec ? ec.message() : "not a directory"));
    for (const Param& p : kernel.params) {
      if (!p.type.isTensor() || p.direction == ParamDirection::In) continue;
      const Tensor& t = run.final.tensors.at(p.name);
      const std::string values = (folder / (p.name + ".npy")).string();
      const std::string poison = (folder / (p.name + ".poison.npy")).string();
      writeNpy(values, t);
      if (announce) std::cout << "saved: " << values << "\n";
      if (t.anyPoison()) {
        writeNpyPoison(poison, t);
        if (announce) std::cout << "saved: " << poison << "\n";
      } else if (fs::exists(poison, ec)) {
        fs::remove(poison, ec);
      }
    }
  }
}

/// Located failures on stderr, as `FILE:LINE:COL: hazard: KIND: ...` or `... error: KIND: ...`.
void reportLocated(const DifferentialReport& r, const SourceRegistry& sources) {
  for (const StageVerdict& v : r.verdicts) {
    if (!v.failed() || !v.diagnostic || !v.diagnostic->loc.known()) continue;
    Diagnostic d = *v.diagnostic;
    d.notes.clear();
    const std::string row = " [" + (v.planner.empty() ? "" : v.planner + " ") + v.stage + "]";
    const std::string prefix = std::string(oracle::verdictKindName(v.kind)) + ": ";
    d.severity = v.kind == VerdictKind::Hazard ? Severity::Hazard : Severity::Error;
    if (v.kind != VerdictKind::Hazard && !d.message.starts_with(prefix)) d.message = prefix + d.message;
    d.message += row;
    std::cerr << sources.format(d);
  }
}

}  // namespace

CLI::App* addRunCommand(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", kRunSummary);
  cmd->footer(std::string(kRunDescription) + "\n\n" + app.get_footer());
  cmd->add_option("PROGRAM", o.program, "Program file in the text format: Tile, planned Tile or Buffer")->required();
  cmd->add_option("--case", o.casePath,
                  "Case file (JSON). Default: PROGRAM's sibling NAME.case.json if it exists, else defaults");
  cmd->add_option("--planner", o.planner, "PYPTO, DSA_RP, PTOAS or all (default: the case's planners, else all)")
      ->check(CLI::IsMember({"PYPTO", "DSA_RP", "PTOAS", "all"}));
  cmd->add_option("--target", o.target, "a2a3 or a5 (default: the case's target, else a2a3)")
      ->check(CLI::IsMember({"a2a3", "a5"}));
  cmd->add_flag("--no-buffer-ir", o.noBufferIR, "enable_buffer_ir=False: every kernel stays on the Tile path (S1)");
  addInjectFaultOption(cmd, o.injectFault);
  cmd->add_option("--input", o.inputs, "NAME=FILE.npy: initialise tensor NAME from a .npy file; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--scalar", o.scalars, "NAME=VALUE: value of scalar parameter NAME; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--block-num", o.blockNum, "Number of blocks to launch (>= 1); overrides the case's block_num")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--function", o.function, "Kernel to run; overrides the case's \"function\"");
  cmd->add_option("--step-budget", o.stepBudget, "Executed statements allowed per run before timeout")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--save-outputs", o.saveOutputs,
                  "Folder receiving RUN/NAME.npy (+ NAME.poison.npy where poison) for every run: tile, "
                  "PLANNER-planned, PLANNER-buffer (planned, buffer for a planned or Buffer file)");
  cmd->add_flag("--json", o.json, "Print the verdict table as JSON");
  cmd->add_flag("--symbolic", o.symbolic,
                "Also prove each lowered run equal to the Tile run formula for formula on this runtime path "
                "(symbolic-mismatch otherwise)");
  cmd->add_option("--reference", o.reference, "Tile program judging a Buffer PROGRAM (same kernel parameters)");
  cmd->add_option("--tolerance-profile", o.toleranceProfile,
                  "Oracle tolerance profile: cpu, a2a3, a5 or a profile JSON file")
      ->capture_default_str();
  return cmd;
}

int runRunCommand(const RunOptions& options, SourceRegistry& sources) {
  sources.setProgramFile(options.program);
  Program program;
  if (!loadProgram(options.program, "program file", program, sources)) return kExitBadInput;

  const std::string casePath = findCaseFile(options.program, options.casePath);
  CaseSpec spec;
  if (!casePath.empty()) {
    auto caseSource = loadSource(casePath, "case file");
    sources.add(caseSource);
    spec = parseCaseFile(*caseSource);
  }
  const std::string functionName = options.function.empty() ? spec.function : options.function;
  const Function& kernel = selectKernel(program, functionName, options.program);

  Program reference;
  const Function* referenceKernel = nullptr;
  if (!options.reference.empty()) {
    if (kernel.stage != FunctionStage::Buffer)
      usageError("--reference " + options.reference + ": PROGRAM's kernel \"" + kernel.name +
                 "\" is a Tile-stage function; --reference judges a Buffer program");
    if (!loadProgram(options.reference, "reference program", reference, sources)) return kExitBadInput;
    referenceKernel = reference.findFunction(kernel.name);
    if (!referenceKernel) referenceKernel = &selectKernel(reference, functionName, options.reference);
    if (referenceKernel->stage != FunctionStage::Tile)
      usageError("--reference " + options.reference + ": kernel \"" + referenceKernel->name +
                 "\" is not a Tile-stage function");
  }

  ArgOverrides overrides;
  overrides.inputFiles = splitAssignments(options.inputs, "--input", "FILE.npy");
  overrides.scalars = splitAssignments(options.scalars, "--scalar", "VALUE");
  const KernelArgs args = buildKernelArgs(kernel, spec, overrides);

  oracle::DifferentialOptions d;
  d.planners = plannersOf(options, spec);
  const std::string targetName = options.target.empty() ? spec.target : options.target;
  d.target = findTarget(targetName);
  if (!d.target) usageError("target " + targetName + ": expected a2a3 or a5");
  d.enableBufferIR = !options.noBufferIR;
  d.profile = oracle::resolveToleranceProfile(options.toleranceProfile);
  d.stepBudget = static_cast<uint64_t>(options.stepBudget);
  d.blockNum = options.blockNum.value_or(spec.blockNum);
  d.seed = spec.seed;
  d.faults.active = faultOption(options.injectFault.empty() ? spec.injectFault : options.injectFault);
  d.replayBase = replayBase(options, casePath);
  d.expectSelected = spec.expectBufferPath;  // a campaign reproducer's contract verdict (property 1)
  d.checkLoweringLaws = true;                // verify-each and idempotence (property 2), as campaigns do
  d.symbolic = options.symbolic || spec.symbolic;  // issue 11: formula-for-formula equivalence

  oracle::DifferentialInput input{&program, &kernel, nullptr, nullptr};
  if (referenceKernel) input = {&program, &kernel, &reference, referenceKernel};
  const DifferentialReport report = oracle::runDifferential(input, args, d);

  std::string planners;
  for (Planner p : d.planners) planners += (planners.empty() ? "" : ",") + std::string(plannerName(p));
  if (options.json) {
    nlohmann::json header = {{"program", options.program},
                             {"kernel", kernel.name},
                             {"case", casePath.empty() ? nlohmann::json(nullptr) : nlohmann::json(casePath)},
                             {"reference", options.reference.empty() ? nlohmann::json(nullptr)
                                                                      : nlohmann::json(options.reference)},
                             {"target", std::string(d.target->name)},
                             {"planners", planners},
                             {"buffer_ir", d.enableBufferIR},
                             {"profile", d.profile.name}};
    printJson(report, header);
  } else {
    std::ostringstream header;
    header << "program: " << options.program << "\n"
           << "kernel: " << kernel.name << "\n"
           << "case: " << (casePath.empty() ? "none (defaults)" : casePath) << "\n";
    if (!options.reference.empty()) header << "reference: " << options.reference << "\n";
    header << "target: " << d.target->name << ", planners: " << planners
           << ", buffer IR: " << (d.enableBufferIR ? "on" : "off") << ", profile: " << d.profile.name
           << (d.faults.any() ? ", injected fault: " + std::string(faultInfo(*d.faults.active).name) : std::string())
           << "\n";
    printTable(report, header.str());
  }
  if (!options.saveOutputs.empty()) saveOutputs(options.saveOutputs, kernel, report, !options.json);
  std::cout.flush();
  reportLocated(report, sources);

  switch (report.overall()) {
    case VerdictKind::Pass: return kExitPass;
    case VerdictKind::InvalidProgram: return kExitBadInput;
    default: return kExitFailingVerdict;
  }
}

}  // namespace ptodiff
