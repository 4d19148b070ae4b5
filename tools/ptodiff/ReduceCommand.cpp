#include "tools/ptodiff/ReduceCommand.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/campaign/Reproducer.h"
#include "fuzz/reduce/Interestingness.h"
#include "fuzz/reduce/Reducer.h"
#include "interp/CaseSetup.h"
#include "tools/ptodiff/FuzzCommand.h"

namespace ptodiff {

namespace fs = std::filesystem;

namespace {

constexpr const char* kReduceSummary = "Minimise a failing program or reproducer, keeping its failure";
constexpr const char* kReduceDescription =
    "Reduces INPUT (a program file, Tile, planned Tile or Buffer stage, or a reproducer folder) to a\n"
    "smaller program that still fails the same way: by default it must still show the same signature\n"
    "kind/hazard/stage/op/planner when run as 'ptodiff run' runs it (against --reference when given): the\n"
    "folder's signature, --signature, else the input's first failing row. With --test CMD it must make\n"
    "'CMD CANDIDATE.py' exit 0 (the candidate's folder also holds case.json, program.case.json and the\n"
    ".npy inputs; a run past --test-timeout is not interesting).\n"
    "Transformations, greedily to a fixpoint: drop functions, run one block of a multi-block launch\n"
    "(its get_block_idx() a constant), delete statements (uses become a same-typed live value, a loop's\n"
    "initial value, an operand or a literal), inline an If arm or one loop trip, drop loop carries,\n"
    "halve shapes (every tile, window, offset and tensor of an axis at once, keeping 32-byte rows and\n"
    "aligned offsets; the inputs are cut, not regenerated) and constant valid extents, turn scalar\n"
    "parameters into the case's constants, turn Tile ops into pl.tile.full, simplify scalar expressions,\n"
    "switch FP16/BF16 to FP32, drop unused parameters. Every candidate is printed, re-parsed and\n"
    "verified first; invalid candidates are never run.\n"
    "The best program so far is written (atomically) to --out as a reproducer folder after every step.\n"
    "Exit status: 0 reduced; 2 bad usage, a bad input, or an input that does not fail as required.";

std::string statsLine(const fuzz::ProgramSize& before, const fuzz::ProgramSize& after) {
  return "statements " + std::to_string(before.statements) + " -> " + std::to_string(after.statements) + ", ops " +
         std::to_string(before.ops) + " -> " + std::to_string(after.ops);
}

std::string secondsText(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << s << " s";
  return out.str();
}

/// The verdict fields of a signature "kind/hazard/stage/op/planner" ("-" = empty).
fuzz::Verdict verdictOf(const std::string& signature) {
  std::vector<std::string> fields;
  std::stringstream in(signature);
  for (std::string f; std::getline(in, f, '/');) fields.push_back(f == "-" ? "" : f);
  fields.resize(5);
  fuzz::Verdict v;
  v.kind = fields[0];
  v.hazard = fields[1];
  v.stage = fields[2];
  v.op = fields[3];
  v.planner = fields[4];
  v.detail = "reduced by ptodiff reduce";
  return v;
}

std::string defaultOut(const std::string& input) {
  fs::path p = fs::path(input).lexically_normal();
  if (p.has_filename() == false) p = p.parent_path();
  if (fs::is_directory(p)) return p.string() + ".reduced";
  return (p.parent_path() / (p.stem().string() + ".reduced")).string();
}

/// The program and case to reduce, and the signature a reproducer folder was saved for.
struct Input {
  fuzz::ReduceState state;
  std::string savedSignature;
};

Input loadInput(const ReduceCommandOptions& o, SourceRegistry& sources) {
  Input in;
  if (fs::is_directory(o.input)) {
    sources.setProgramFile((fs::path(o.input) / "program.py").string());
    fuzz::LoadedReproducer repro = fuzz::loadReproducer(o.input);
    if (repro.program.source) sources.add(repro.program.source);
    in.state.program = std::move(repro.program);
    in.state.spec = std::move(repro.spec);
    in.savedSignature = repro.signature;
    if (!o.casePath.empty()) {
      auto caseSource = loadSource(o.casePath, "case file");
      sources.add(caseSource);
      in.state.spec = parseCaseFile(*caseSource);
    }
  } else {
    sources.setProgramFile(o.input);
    auto source = loadSource(o.input, "program file");
    sources.add(source);
    in.state.program = parseProgram(source);
    const std::string casePath = findCaseFile(o.input, o.casePath);
    if (!casePath.empty()) {
      auto caseSource = loadSource(casePath, "case file");
      sources.add(caseSource);
      in.state.spec = parseCaseFile(*caseSource);
    }
  }
  verifyOrThrow(in.state.program);
  if (!o.planner.empty()) {
    if (o.planner == "all") {
      in.state.spec.planners = {"PYPTO", "DSA_RP", "PTOAS"};
    } else {
      if (!parsePlanner(o.planner)) usageError("--planner " + o.planner + ": expected PYPTO, DSA_RP, PTOAS or all");
      in.state.spec.planners = {o.planner};
    }
  }
  if (!o.target.empty()) {
    if (!findTarget(o.target)) usageError("--target " + o.target + ": expected a2a3 or a5");
    in.state.spec.target = o.target;
  }
  const Program& p = in.state.program;
  const Function* kernel = in.state.spec.function.empty() ? p.defaultKernel() : p.findFunction(in.state.spec.function);
  if (!kernel || kernel->type == FunctionType::Orchestration)
    usageError(o.input + ": no kernel to run (name one with the case's \"function\")");
  buildKernelArgs(*kernel, in.state.spec, {});  // a case that does not fit the kernel is bad input, reported now
  return in;
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

}  // namespace

CLI::App* addReduceCommand(CLI::App& app, ReduceCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand("reduce", kReduceSummary);
  cmd->description(std::string(kReduceSummary) + "\n\n" + kReduceDescription);
  cmd->add_option("INPUT", o.input, "Program file (.py) or reproducer folder")->required();
  cmd->add_option("--case", o.casePath, "Case file (default: the folder's case.json or PROGRAM's NAME.case.json)");
  cmd->add_option("--planner", o.planner, "PYPTO, DSA_RP, PTOAS or all (default: the case's planners)");
  cmd->add_option("--target", o.target, "a2a3 or a5 (default: the case's target)");
  cmd->add_option("--reference", o.reference, "A Tile program judging a Buffer INPUT (as 'ptodiff run --reference')");
  cmd->add_option("--signature", o.signature, "The signature to keep (default: the input's first failing row)");
  cmd->add_option("--test", o.test, "Interestingness command: 'CMD CANDIDATE.py' exits 0 = still interesting");
  cmd->add_option("--test-timeout", o.testTimeout, "Seconds per --test run before it counts as not interesting")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time", o.time, "Time cap: 60s, 5m, 1h (default 60s); the best result so far is kept");
  cmd->add_option("--jobs", o.jobs, "Candidates tested in parallel (default 1)")->check(CLI::Range(1, 256));
  cmd->add_option("--out", o.out, "Reduced reproducer folder (default: INPUT's sibling NAME.reduced)");
  cmd->add_option("--step-budget", o.stepBudget, "Executed statements per interpreter run before `timeout`")
      ->check(CLI::PositiveNumber);
  return cmd;
}

int runReduceCommand(const ReduceCommandOptions& o, SourceRegistry& sources) {
  const std::optional<double> seconds = parseDuration(o.time);
  if (!seconds) usageError("--time: '" + o.time + "' is not a duration such as 60s, 5m or 1h");
  Input in = loadInput(o, sources);
  const std::string out = o.out.empty() ? defaultOut(o.input) : o.out;
  const uint64_t budget = static_cast<uint64_t>(o.stepBudget);

  std::shared_ptr<Program> reference;
  if (!o.reference.empty()) {
    auto source = loadSource(o.reference, "reference program");
    sources.add(source);
    reference = std::make_shared<Program>(parseProgram(source));
    verifyOrThrow(*reference);
  }

  fuzz::Interestingness interesting;
  std::string signature;
  fs::path workDir;
  if (!o.test.empty()) {
    workDir = fs::temp_directory_path() / ("ptodiff-reduce-" + std::to_string(getpid()));
    fs::create_directories(workDir);
    interesting = fuzz::externalCommand(o.test, o.testTimeout, workDir);
    signature = "external-test";
    if (!interesting(in.state))
      usageError(o.input + ": the --test command does not exit 0 on the input: nothing to reduce");
  } else {
    const std::vector<std::string> found = fuzz::failureSignatures(in.state, budget, reference);
    signature = !o.signature.empty() ? o.signature : !in.savedSignature.empty() ? in.savedSignature
                                                   : found.empty()             ? std::string()
                                                                               : found.front();
    if (found.empty()) usageError(o.input + ": the program passes under its case: nothing to reduce");
    if (std::find(found.begin(), found.end(), signature) == found.end())
      usageError(o.input + ": the program does not show " + signature + " (it shows: " + joined(found) + ")");
    interesting = fuzz::sameSignature(signature, budget, reference);
  }

  const int64_t statementsBefore = fuzz::measureProgram(in.state.program).statements;
  const auto save = [&](const fuzz::ReduceState& best) {
    fuzz::ReproducerInfo info;
    info.signature = signature;
    info.verdict = verdictOf(signature);
    info.statementsBefore = statementsBefore;
    info.statementsAfter = fuzz::measureProgram(best.program).statements;
    info.replay = fuzz::replayCommand(out, budget);
    fuzz::writeReproducer(out, best.program, best.spec, info);
  };
  try {
    save(in.state);
  } catch (const std::runtime_error& e) {
    usageError("--out " + out + ": " + e.what());
  }
  std::cout << "reduce: " << o.input << " keeps " << signature << "; writing " << out << "\n" << std::flush;

  fuzz::ReduceOptions options;
  options.seconds = *seconds;
  options.jobs = o.jobs;
  options.onImproved = [&](const fuzz::ReduceState& best, const fuzz::ReduceProgress& p) {
    save(best);
    std::cout << "reduce: " << statsLine(p.start, p.now) << " (" << p.candidatesTried << " candidates, "
              << secondsText(p.seconds) << "): " << p.lastChange << "\n"
              << std::flush;
  };
  const fuzz::ReduceResult result = fuzz::reduceProgram(in.state, interesting, options);
  if (!workDir.empty()) {
    std::error_code ec;
    fs::remove_all(workDir, ec);
  }
  const fuzz::ReduceStats& s = result.stats;
  std::cout << "ptodiff reduce: " << statsLine(s.before, s.after) << ", tensor elements " << s.tensorElementsBefore
            << " -> " << s.tensorElementsAfter
            << (s.before.blocks != s.after.blocks
                    ? ", blocks " + std::to_string(s.before.blocks) + " -> " + std::to_string(s.after.blocks)
                    : std::string())
            << "; " << s.candidatesTried << " candidates tried ("
            << s.candidatesInvalid << " invalid, never run), " << s.accepted << " accepted, " << secondsText(s.seconds)
            << (s.timedOut ? " (time cap reached)" : "") << "\n"
            << "signature: " << signature << "\n"
            << "reduced reproducer: " << out << "\n"
            << "replay: " << fuzz::replayCommand(out, budget) << "\n";
  return kExitPass;
}

}  // namespace ptodiff
