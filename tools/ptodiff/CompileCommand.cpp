#include "tools/ptodiff/CompileCommand.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/passes/Pipeline.h"
#include "compiler/passes/SelectBufferIRFunctions.h"
#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "tools/ptodiff/CommandSupport.h"

namespace ptodiff {

namespace {

constexpr const char* kCompileSummary = "Lower a program with the reference pipeline and print the result";

std::string compileDescription() {
  std::string passes;
  for (const auto& pass : buildLoweringPipeline())
    passes += "  " + std::string(pass->name()) + ": " + std::string(pass->summary()) + "\n";
  return "Parses and verifies PROGRAM (every verifier error is printed; exit 2), then runs the pipeline\n" + passes +
         "and prints the resulting program on stdout in the text format. --print-after-all and\n"
         "--print-after print '# IR after PASS' (with '(unchanged)' when the pass changed nothing) and the\n"
         "program after those passes instead; --stop-after ends the pipeline early. A pass rejecting the\n"
         "program is an error (exit 2); a broken pass invariant or a pass not available yet is an internal\n"
         "error (exit 3).";
}

std::shared_ptr<const SourceFile> loadProgram(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throwError(path, {}, "cannot read program file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(path, {}, std::string("cannot read program file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return std::make_shared<const SourceFile>(SourceFile{path, text.str()});
}

PassContext contextOf(const CompileOptions& o) {
  PassContext c;
  std::optional<Planner> planner = parsePlanner(o.planner);
  if (!planner) throwError("ptodiff", {}, "--planner " + o.planner + ": expected PYPTO, DSA_RP or PTOAS");
  const Target* target = findTarget(o.target);
  if (!target) throwError("ptodiff", {}, "--target " + o.target + ": expected a2a3 or a5");
  c.planner = *planner;
  c.target = target;
  c.enableBufferIR = !o.noBufferIR;
  c.verifyEach = o.verifyEach;
  c.faults.active = faultOption(o.injectFault);
  return c;
}

/// --explain-selection: why each kernel stays on Tile (or that it is selected), on stderr.
void explainSelection(const Program& program, const PassContext& context) {
  PassManagerOptions upToInit;
  upToInit.stopAfter = "InitMemRef";
  Program planned = makeLoweringPassManager(upToInit).run(program, context).program;
  for (const Function& f : planned.functions) {
    if (f.stage != FunctionStage::Tile || f.type == FunctionType::Orchestration) continue;
    SelectionVerdict v = decideBufferIRSelection(f, context);
    if (v.selected) {
      std::cerr << "ptodiff: note: kernel '" << f.name << "' is selected for the Buffer path\n";
      continue;
    }
    std::cerr << "ptodiff: note: kernel '" << f.name << "' stays on the Tile path:\n";
    for (const SelectionReason& r : v.reasons)
      std::cerr << "  " << program.source->name << ":" << r.loc.line << ":" << r.loc.col << ": " << r.rule << ": "
                << r.message << "\n";
  }
}

}  // namespace

CLI::App* addCompileCommand(CLI::App& app, CompileOptions& o) {
  CLI::App* cmd = app.add_subcommand("compile", kCompileSummary);
  cmd->footer(compileDescription() + "\n\n" + app.get_footer());
  cmd->add_option("PROGRAM", o.program, "Program file in the text format (a .py file)")->required();
  cmd->add_option("--planner", o.planner, "Memory planner: PYPTO, DSA_RP or PTOAS")
      ->check(CLI::IsMember({"PYPTO", "DSA_RP", "PTOAS"}))
      ->capture_default_str();
  cmd->add_option("--target", o.target, "Target: a2a3 or a5")->check(CLI::IsMember({"a2a3", "a5"}))->capture_default_str();
  cmd->add_flag("--no-buffer-ir", o.noBufferIR, "enable_buffer_ir=False: every kernel stays on the Tile path (S1)");
  addInjectFaultOption(cmd, o.injectFault);
  cmd->add_flag("--print-after-all", o.printAfterAll, "Print the program after every pass");
  cmd->add_option("--print-after", o.printAfter, "Print the program after pass PASS; repeatable")->allow_extra_args(false);
  cmd->add_option("--stop-after", o.stopAfter, "Stop the pipeline after pass PASS and print the program there");
  cmd->add_flag("--verify-each", o.verifyEach,
                "After every pass also check its postcondition and that the printed program reads back unchanged");
  cmd->add_flag("--explain-selection", o.explainSelection,
                "Print on stderr why each kernel stays on the Tile path (the contract rule and the line)");
  return cmd;
}

int runCompileCommand(const CompileOptions& options, SourceRegistry& sources) {
  auto source = loadProgram(options.program);
  sources.add(source);
  sources.setProgramFile(options.program);
  const PassContext context = contextOf(options);
  Program program = parseProgram(source);
  std::vector<Diagnostic> problems = verifyProgram(program);
  if (!problems.empty()) {
    for (const Diagnostic& d : problems) std::cerr << sources.format(d);
    return kExitBadInput;
  }
  if (options.explainSelection) explainSelection(program, context);

  PassManagerOptions pm;
  pm.verifyEach = options.verifyEach;
  pm.printAfterAll = options.printAfterAll;
  pm.printAfter.insert(options.printAfter.begin(), options.printAfter.end());
  pm.stopAfter = options.stopAfter;
  pm.printTo = &std::cout;
  PassRunResult result = makeLoweringPassManager(pm).run(program, context);
  if (!result.lastPassPrinted) std::cout << printProgram(result.program);
  std::cout.flush();
  return kExitPass;
}

}  // namespace ptodiff
