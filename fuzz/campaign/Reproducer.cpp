#include "fuzz/campaign/Reproducer.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "fuzz/campaign/AtomicFiles.h"
#include "fuzz/campaign/Digest.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"

namespace ptodiff::fuzz {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

void writeText(const fs::path& path, const std::string& text) { writeFileDurably(path, text); }

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}


/// case.json of docs/text-format.md, with every input tensor read from its .npy file.
ordered_json caseJson(const Function& kernel, const CaseSpec& spec) {
  ordered_json j;
  j["function"] = kernel.name;
  j["target"] = spec.target;
  j["planners"] = spec.planners;
  ordered_json scalars = ordered_json::object();
  for (const auto& [name, value] : spec.scalars) scalars[name] = caseScalarJson(value);
  j["scalars"] = scalars;
  ordered_json tensors = ordered_json::object();
  for (const Param& p : kernel.params)
    if (p.type.kind == Type::Kind::Tensor && p.direction != ParamDirection::Out)
      tensors[p.name] = {{"file", p.name + ".npy"}};
  j["tensors"] = tensors;
  j["block_num"] = spec.blockNum;
  j["seed"] = spec.seed;
  if (!spec.injectFault.empty()) j["inject_fault"] = spec.injectFault;
  if (spec.expectBufferPath) j["expect_buffer_path"] = *spec.expectBufferPath;
  if (spec.symbolic) j["symbolic"] = true;
  return j;
}

std::string readme(const fs::path& folder, const ReproducerInfo& info) {
  std::ostringstream md;
  md << "# ptodiff reproducer `" << info.signature << "`\n\n"
     << "- verdict: " << info.verdict.kind << (info.verdict.hazard.empty() ? "" : " (" + info.verdict.hazard + ")")
     << ", stage " << (info.verdict.stage.empty() ? "-" : info.verdict.stage)
     << ", op " << (info.verdict.op.empty() ? "-" : info.verdict.op)
     << ", planner " << (info.verdict.planner.empty() ? "-" : info.verdict.planner) << "\n"
     << "- detail: " << info.verdict.detail << "\n"
     << "- found by: campaign seed " << info.campaignSeed << ", case " << info.caseIndex << " (case seed "
     << info.caseSeed << "), scalar set " << info.verdict.scalarSet << "\n"
     << "- size: " << info.statementsBefore << " statements as generated, " << info.statementsAfter
     << " after shrinking\n\n"
     << "Replay:\n\n```\n" << (info.replay.empty() ? replayCommand(folder) : info.replay) << "\n```\n\n"
     << "`program.py` is the kernel, `case.json` its scalars, block count, planners and target; the `.npy` files\n"
     << "hold the exact input bits. `ptodiff run program.py --case case.json` runs it by hand.\n";
  return md.str();
}

}  // namespace

std::string reproducerName(const std::string& signature) { return "sig-" + hex64(fnv1a(signature)); }

std::string replayCommand(const fs::path& folder, uint64_t stepBudget) {
  std::string command = "ptodiff replay " + folder.string();
  if (stepBudget != 1'000'000) command += " --step-budget " + std::to_string(stepBudget);
  return command;
}

void writeReproducer(const fs::path& folder, const Program& program, const CaseSpec& spec, const ReproducerInfo& info) {
  const Function* kernel = spec.function.empty() ? program.defaultKernel() : program.findFunction(spec.function);
  if (!kernel) throw std::runtime_error("reproducer: the program has no function '" + spec.function + "'");
  // Inputs are built before the folder exists, so a failure leaves nothing behind.
  const KernelArgs args = buildKernelArgs(*kernel, spec, {});
  writeFolderAtomically(folder, [&](const fs::path& dir) {
    writeText(dir / "program.py", printProgram(program));
    writeText(dir / "case.json", caseJson(*kernel, spec).dump(2) + "\n");
    for (const Param& p : kernel->params)
      if (p.type.kind == Type::Kind::Tensor && p.direction != ParamDirection::Out)
        writeNpy((dir / (p.name + ".npy")).string(), args.tensors.at(p.name));
    ordered_json meta;
    meta["signature"] = info.signature;
    meta["kind"] = info.verdict.kind;
    meta["hazard"] = info.verdict.hazard;
    meta["stage"] = info.verdict.stage;
    meta["op"] = info.verdict.op;
    meta["planner"] = info.verdict.planner;
    meta["detail"] = info.verdict.detail;
    meta["campaign_seed"] = info.campaignSeed;
    meta["case_index"] = info.caseIndex;
    meta["case_seed"] = info.caseSeed;
    meta["scalar_set"] = info.verdict.scalarSet;
    meta["statements_before"] = info.statementsBefore;
    meta["statements_after"] = info.statementsAfter;
    writeText(dir / "reproducer.json", meta.dump(2) + "\n");
    writeText(dir / "README.md", readme(folder, info));
  });
}

LoadedReproducer loadReproducer(const fs::path& folder) {
  LoadedReproducer r;
  r.program = parseProgramFile((folder / "program.py").string());
  r.spec = parseCaseFilePath((folder / "case.json").string());
  const fs::path meta = folder / "reproducer.json";
  if (fs::exists(meta)) {
    const ordered_json j = ordered_json::parse(readText(meta), nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("signature") && j["signature"].is_string()) r.signature = j["signature"];
  }
  return r;
}

}  // namespace ptodiff::fuzz
