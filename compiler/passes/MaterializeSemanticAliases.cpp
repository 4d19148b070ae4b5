#include "compiler/passes/MaterializeSemanticAliases.h"

#include "compiler/passes/PassManager.h"
#include "compiler/passes/aliases/AliasPlan.h"
#include "compiler/planners/StorageFacts.h"

namespace ptodiff {

namespace {

using namespace storage;

constexpr std::string_view kPassName = "MaterializeSemanticAliases";

bool isPlannedKernel(const Function& f) {
  return f.stage == FunctionStage::Tile && f.type != FunctionType::Orchestration;
}

class MaterializeSemanticAliasesPass final : public Pass {
 public:
  std::string_view name() const override { return kPassName; }
  std::string_view summary() const override {
    return "gives every Tile loop carry (and, on the Buffer path, branch result) one storage: entry copies, "
           "retargeted producers and parallel yield transfers";
  }

  bool run(Program& program, const PassContext& context) override {
    // Plan every kernel before changing any, so a rejection leaves the program untouched (L11).
    std::vector<std::pair<Function*, aliases::AliasPlan>> plans;
    for (Function& f : program.functions) {
      if (!isPlannedKernel(f)) continue;
      aliases::AliasPlanResult r = aliases::planSemanticAliases(f, f.bufferIRSelected == true, context.faults);
      if (r.rejection)
        failPass(kPassName, program, r.rejection->loc, "[" + r.rejection->rule + "]: " + r.rejection->message);
      plans.emplace_back(&f, std::move(r.plan));
    }
    bool changed = false;
    for (auto& [f, plan] : plans) changed = aliases::applyAliasPlan(*f, plan) || changed;
    return changed;
  }

  std::vector<Diagnostic> checkPostcondition(const Program& program, const PassContext&) const override {
    return checkSemanticAliases(program);
  }
};

}  // namespace

std::vector<Diagnostic> checkSemanticAliases(const Program& program) {
  std::vector<Diagnostic> out;
  const std::string file = program.source ? program.source->name : std::string();
  for (const Function& f : program.functions) {
    if (!isPlannedKernel(f)) continue;
    StorageFacts facts(f);
    const bool selected = f.bufferIRSelected == true;
    auto report = [&](const Binder& b, const std::string& what) {
      out.push_back(Diagnostic{Severity::Error, file, b.loc,
                               "MaterializeSemanticAliases left " + what + " '" + b.name +
                                   "' without one storage shared by everything bound to it",
                               {}});
    };
    for (const TileValue& v : facts.values()) {
      if (v.kind != ValueKind::LoopCarry && v.kind != ValueKind::BranchResult) continue;
      if (v.kind == ValueKind::BranchResult && !selected) continue;
      if (v.kind == ValueKind::LoopCarry && !selected) {
        // An unselected kernel may keep a loop whose carries need a copy it cannot make.
        bool copyable = true;
        for (const TileValue& w : facts.values())
          if (w.kind == ValueKind::LoopCarry && w.stmt == v.stmt)
            copyable = copyable && aliases::copyableWithinSpace(w.type);
        if (!copyable) continue;
      }
      std::optional<MemRef> first;
      bool one = true;
      for (int in : v.incoming) {
        std::optional<MemRef> m = in >= 0 ? facts.staticMemRef(in) : std::nullopt;
        if (!m) one = false;
        else if (!first) first = m;
        else one = one && *first == *m;
      }
      if (!one) report(*v.binder, v.kind == ValueKind::LoopCarry ? "loop carry" : "branch result");
    }
  }
  return out;
}

std::unique_ptr<Pass> createMaterializeSemanticAliasesPass() {
  return std::make_unique<MaterializeSemanticAliasesPass>();
}

}  // namespace ptodiff
