#include "device/Export.h"

#include <fstream>
#include <stdexcept>

#include "compiler/passes/Pipeline.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "device/Bundle.h"
#include "device/NpyFloat64.h"
#include "fuzz/campaign/AtomicFiles.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"
#include "oracle/Differential.h"
#include "oracle/Oracle.h"

#ifndef PTODIFF_VERSION
#define PTODIFF_VERSION "unknown"
#endif

namespace ptodiff::device {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::string quoted(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$\\;&|<>()*?`") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
}


std::string scalarText(const CaseScalar& s) {
  switch (s.kind) {
    case CaseScalar::Kind::Bool: return s.b ? "true" : "false";
    case CaseScalar::Kind::Float: return ordered_json(s.f).dump();
    case CaseScalar::Kind::Int: break;
  }
  return std::to_string(s.i);
}

/// case.json of docs/text-format.md: every tensor by file, so the case needs no random generator.
ordered_json caseJson(const Function& kernel, const CaseSpec& spec, const std::map<std::string, CaseScalar>& first, Planner planner,
                      const Target& target) {
  ordered_json j;
  j["function"] = kernel.name;
  j["target"] = std::string(target.name);
  j["planners"] = {std::string(plannerName(planner))};
  ordered_json scalars = ordered_json::object();
  for (const auto& [name, value] : first) scalars[name] = caseScalarJson(value);
  j["scalars"] = std::move(scalars);
  ordered_json tensors = ordered_json::object();
  for (const Param& p : kernel.params)
    if (p.type.isTensor())
      tensors[p.name] = {{"file", p.direction == ParamDirection::Out ? initialPath(p.name) : inputPath(p.name)}};
  j["tensors"] = std::move(tensors);
  j["block_num"] = spec.blockNum;
  j["seed"] = spec.seed;
  return j;
}

Tensor writtenMask(const oracle::OracleTensor& ref) {
  Tensor mask(DType::BOOL, ref.rows, ref.cols);
  for (int64_t i = 0; i < ref.elements(); ++i) mask.setBitsAt(i, ref.written[static_cast<size_t>(i)] ? 1 : 0);
  return mask;
}

/// A sub-case that made it: its scalars, arguments and the oracle's reference.
struct KeptSubcase {
  Subcase sub;
  oracle::OracleResult reference;
};

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

std::string ptodiffVersion() { return PTODIFF_VERSION; }

ExportOutcome exportBundle(const fs::path& folder, const ExportCase& c, const ExportOptions& o) {
  ExportOutcome outcome;
  Program program = c.program.clone();
  program.source = c.program.source;
  verifyOrThrow(program);
  const Function* kernelPtr = c.spec.function.empty() ? program.defaultKernel() : program.findFunction(c.spec.function);
  if (!kernelPtr || kernelPtr->type == FunctionType::Orchestration)
    throwError(c.spec.sourceName.empty() ? "ptodiff" : c.spec.sourceName, {},
               "cannot choose the kernel to export" +
                   (c.spec.function.empty() ? std::string() : " (no InCore function \"" + c.spec.function + "\")"));
  const Function& kernel = *kernelPtr;

  std::vector<ScalarSet> sets = c.sets;
  if (sets.empty()) {
    if (o.matrix) {
      sets = deriveScalarSets(kernel, c.spec.scalars, o.maxSubcases);
    } else {
      ScalarSet only;
      only.scalars = c.spec.scalars;
      for (const auto& [name, value] : only.scalars) only.covers.push_back(describeScalar(name, value) + " (case)");
      sets.push_back(std::move(only));
    }
  }

  // The reference lowering, once: the sub-cases are runtime paths through one compiled program.
  PassContext context;
  context.planner = o.planner;
  context.target = o.target;
  context.enableBufferIR = true;
  Program lowered;
  try {
    lowered = makeLoweringPassManager({}).run(program, context).program;
  } catch (const DiagnosticError& e) {
    outcome.skipped = "the reference lowering rejects it: " + firstLine(e.diagnostic().message);
    outcome.rejection = e.diagnostic();
    return outcome;
  }
  const Function* loweredKernel = lowered.findFunction(kernel.name);
  if (!loweredKernel) throw std::logic_error("the lowering lost kernel \"" + kernel.name + "\"");

  RunConfig config;
  config.blockNum = c.spec.blockNum;
  config.stepBudget = o.stepBudget;
  config.seed = c.spec.seed;
  config.target = o.target->kind;

  oracle::DifferentialOptions self;
  self.planners = {o.planner};
  self.target = o.target;
  self.stepBudget = o.stepBudget;
  self.blockNum = c.spec.blockNum;
  self.seed = c.spec.seed;
  oracle::LoweringCache lowerings;
  self.lowerings = &lowerings;

  ordered_json dropped = ordered_json::array();
  std::vector<KeptSubcase> kept;
  KernelArgs firstArgs;
  for (const ScalarSet& set : sets) {
    CaseSpec spec = c.spec;
    spec.scalars = set.scalars;
    auto drop = [&](const std::string& reason) {
      ordered_json scalars = ordered_json::object();
      for (const auto& [name, value] : set.scalars) scalars[name] = caseScalarJson(value);
      dropped.push_back({{"scalars", scalars}, {"reason", reason}});
    };
    KernelArgs args;
    try {
      args = buildKernelArgs(kernel, spec, {});
    } catch (const DiagnosticError& e) {
      if (kept.empty() && &set == &sets.front()) throw;  // the case's own set: bad input
      drop(firstLine(e.diagnostic().message));
      continue;
    }
    oracle::OracleResult ref = oracle::evaluateOracle(program, kernel, args, config, o.profile);
    if (ref.status != RunStatus::Ok) {
      drop("the Tile semantics reject it: " + firstLine(formatDiagnostic(ref.diagnostic)));
      if (!outcome.rejection) outcome.rejection = ref.diagnostic;
      continue;
    }
    bool poison = false;
    for (const auto& [name, t] : ref.tensors)
      for (size_t i = 0; i < t.written.size(); ++i) poison |= t.written[i] && t.poison[i];
    if (poison) {
      drop("the program stores poison (invalid-program)");
      continue;
    }
    const oracle::DifferentialReport report = oracle::runDifferential({&program, &kernel}, args, self);
    if (!report.pass() && outcome.selfCheck.empty()) {
      for (const oracle::StageVerdict& v : report.verdicts)
        if (v.failed()) {
          outcome.selfCheck = v.signature() + ": " + v.detail;
          break;
        }
      if (o.skipSelfFailures) {
        outcome.skipped = "ptodiff's own differential run fails: " + outcome.selfCheck;
        return outcome;
      }
    }
    KeptSubcase k;
    k.sub.name = "s" + std::to_string(kept.size());
    k.sub.scalars = set.scalars;
    k.sub.covers = set.covers;
    std::string replay = "ptodiff run " + quoted((folder / "program.py").string()) + " --case " +
                         quoted((folder / "case.json").string()) + " --planner " +
                         std::string(plannerName(o.planner)) + " --target " + std::string(o.target->name) +
                         " --tolerance-profile " + quoted(o.profile.name);
    for (const auto& [name, value] : set.scalars) replay += " --scalar " + quoted(name + "=" + scalarText(value));
    k.sub.replay = replay;
    k.reference = std::move(ref);
    if (kept.empty()) firstArgs = std::move(args);
    kept.push_back(std::move(k));
  }
  outcome.dropped = dropped.size();
  if (kept.empty()) {
    outcome.skipped = "no sub-case runs under the Tile semantics" +
                      (dropped.empty() ? std::string() : ": " + dropped[0]["reason"].get<std::string>());
    return outcome;
  }

  Manifest m;
  m.ptodiffVersion = ptodiffVersion();
  m.bundle = folder.filename().string();
  m.origin = c.origin;
  m.kernel = kernel.name;
  m.planner = std::string(plannerName(o.planner));
  m.target = std::string(o.target->name);
  m.profile = o.profile.name;
  m.loweredStage = loweredKernel->stage == FunctionStage::Buffer ? "buffer" : "tile";
  m.blockNum = c.spec.blockNum;
  m.seed = c.spec.seed;
  m.stepBudget = o.stepBudget;
  for (const Param& p : kernel.params)
    if (p.type.isTensor()) m.tensors.push_back({p.name, p.direction, p.type.dtype, p.type.rows(), p.type.cols()});
  for (const KeptSubcase& k : kept) m.subcases.push_back(k.sub);
  m.dropped = dropped;
  m.replay = o.replay;

  fuzz::writeFolderAtomically(folder, [&](const fs::path& dir) {
    writeText(dir / "program.py", printProgram(c.program));
    writeText(dir / "lowered.py", printProgram(lowered));
    writeText(dir / "case.json", caseJson(kernel, c.spec, kept.front().sub.scalars, o.planner, *o.target).dump(2) + "\n");
    fs::create_directories(dir / "inputs");
    fs::create_directories(dir / "initial");
    for (const BundleTensor& t : m.tensors) {
      if (t.direction != ParamDirection::Out) writeNpy((dir / inputPath(t.name)).string(), firstArgs.tensors.at(t.name));
      if (t.direction != ParamDirection::In) writeNpy((dir / initialPath(t.name)).string(), firstArgs.tensors.at(t.name));
    }
    for (const KeptSubcase& k : kept) {
      for (const char* kind : {"expected", "bound", "written"}) fs::create_directories(dir / kind / k.sub.name);
      for (const BundleTensor& t : m.tensors) {
        if (t.direction == ParamDirection::In) continue;
        const oracle::OracleTensor& ref = k.reference.tensors.at(t.name);
        writeNpyFloat64((dir / subcasePath("expected", k.sub.name, t.name)).string(), {ref.rows, ref.cols, ref.value});
        writeNpyFloat64((dir / subcasePath("bound", k.sub.name, t.name)).string(), {ref.rows, ref.cols, ref.bound});
        writeNpy((dir / subcasePath("written", k.sub.name, t.name)).string(), writtenMask(ref));
      }
    }
    writeText(dir / "manifest.json", manifestJson(m).dump(2) + "\n");
  });
  outcome.written = true;
  outcome.subcases = kept.size();
  return outcome;
}

}  // namespace ptodiff::device
