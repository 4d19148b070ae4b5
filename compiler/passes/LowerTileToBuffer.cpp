// LowerTileToBuffer (seed 000): planned Tile kernels in, Buffer kernels out.
//
// Every selected kernel is converted before any is replaced, so a failure leaves the input
// unchanged (C9). Run on its own, the pass verifies its input (C2) and its result (C8) on a copy;
// under a PassManager, which verifies both, it converts in place. Per kernel:
// StorageIndex reads the planned MemRefs and decides every handle (first traversal), then
// BufferRewriter rewrites the body (second traversal); the function's stage becomes Buffer (C7).
// Buffer-stage functions are never touched, which makes the pass idempotent (C8).
#include "compiler/passes/LowerTileToBuffer.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "compiler/passes/lower/BufferRewriter.h"
#include "compiler/passes/lower/StorageIndex.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {

namespace {

using lower::Failure;

/// Calls `visit` on every binder of `block`, recursively.
void forEachBinder(const Block& block, const std::function<void(const Binder&)>& visit) {
  for (const StmtPtr& s : block) {
    switch (s->kind) {
      case Stmt::Kind::Assign: visit(s->as<AssignStmt>().target); break;
      case Stmt::Kind::Yield:
        for (const Binder& b : s->as<YieldStmt>().targets) visit(b);
        break;
      case Stmt::Kind::For:
        for (const Binder& b : s->as<ForStmt>().iterArgs) visit(b);
        forEachBinder(s->as<ForStmt>().body, visit);
        break;
      case Stmt::Kind::While:
        for (const Binder& b : s->as<WhileStmt>().iterArgs) visit(b);
        forEachBinder(s->as<WhileStmt>().body, visit);
        break;
      case Stmt::Kind::If:
        forEachBinder(s->as<IfStmt>().thenBody, visit);
        forEachBinder(s->as<IfStmt>().elseBody, visit);
        break;
      case Stmt::Kind::Eval:
      case Stmt::Kind::Return: break;
    }
  }
}

/// Whether the whole-kernel selection chose `f` for Buffer IR (S2, S3): its recorded
/// `buffer_ir_selected` verdict when SelectBufferIRFunctions ran; otherwise (explicit low-level
/// pipelines, hand-written planned programs) a Tile-stage device kernel whose tiles all carry
/// planned MemRefs counts as selected. Needs a verified function (binder types filled).
bool isSelected(const Function& f) {
  if (f.stage != FunctionStage::Tile || f.type == FunctionType::Orchestration) return false;
  if (f.bufferIRSelected) return *f.bufferIRSelected;
  bool planned = true;
  forEachBinder(f.body, [&](const Binder& b) {
    if (b.type.isTile() && !b.type.memref) planned = false;
  });
  return planned;
}

/// The diagnostics of a failed verification as one DiagnosticError of the pass.
[[noreturn]] void failVerification(const Failure& failure, std::string_view rule, const std::string& what,
                                   std::vector<Diagnostic> diags) {
  Diagnostic d = diags.front();
  d.message = std::string(lower::kPassName) + ": [" + std::string(rule) + "] " + what + ": " + d.message;
  for (size_t i = 1; i < diags.size(); ++i) d.notes.push_back(diags[i]);
  if (d.file.empty()) d.file = failure.file();
  throw DiagnosticError(std::move(d));
}

/// The Buffer body of the selected kernel `f`; `f` itself is not touched.
Block lowerBody(const Function& f, const PassContext& context, const Failure& failure) {
  lower::StorageIndex index(f, context, failure);
  index.build();
  return lower::BufferRewriter(f, index, failure, context.faults).run();
}

/// Converts every selected kernel of `program`; none is replaced before all have converted, so a
/// failure leaves the program as it was (C9). Returns whether any kernel was selected.
bool convertSelected(Program& program, const PassContext& context, const Failure& failure) {
  std::vector<std::pair<Function*, Block>> converted;
  for (Function& f : program.functions)
    if (isSelected(f)) converted.emplace_back(&f, lowerBody(f, context, failure));
  for (auto& [f, body] : converted) {
    f->body = std::move(body);
    f->stage = FunctionStage::Buffer;
  }
  return !converted.empty();
}

class LowerTileToBufferPass final : public Pass {
 public:
  std::string_view name() const override { return lower::kPassName; }
  std::string_view summary() const override {
    return "converts selected planned Tile kernels into Buffer kernels (allocations, views, destination-passing ops)";
  }

  /// A program without a selected kernel (every kernel kept on Tile, or buffer IR off) has nothing
  /// to convert.
  bool leavesUnchanged(const Program& program, const PassContext& context) const override {
    (void)context;
    return std::none_of(program.functions.begin(), program.functions.end(), isSelected);
  }

  bool run(Program& program, const PassContext& context) override {
    // Nothing to convert: the program is neither copied nor verified again.
    if (leavesUnchanged(program, context)) return false;
    Failure failure(program.source ? program.source->name : std::string());
    // Under a PassManager the input is verified and so will the output be (C2, C8): no copy to
    // verify, and no second verification of the result.
    if (context.managedVerification) return convertSelected(program, context, failure);
    Program work = program.clone();
    if (std::vector<Diagnostic> diags = verifyProgram(work); !diags.empty())
      failVerification(failure, "C2", "the input program does not verify", std::move(diags));
    if (!convertSelected(work, context, failure)) return false;
    if (std::vector<Diagnostic> diags = verifyProgram(work); !diags.empty())
      failVerification(failure, "C8", "the converted program does not verify (an internal error of the pass)",
                       std::move(diags));
    program = std::move(work);
    return true;
  }

  std::vector<Diagnostic> checkPostcondition(const Program& program, const PassContext& context) const override {
    (void)context;
    std::vector<Diagnostic> out;
    for (const Function& f : program.functions) {
      if (!isSelected(f)) continue;
      Diagnostic d;
      d.file = program.source ? program.source->name : std::string();
      d.loc = f.loc;
      d.message = std::string(lower::kPassName) + ": [C7] function '" + f.name +
                  "' is still a planned Tile kernel; expected every selected kernel at the Buffer stage";
      out.push_back(std::move(d));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Pass> createLowerTileToBufferPass() { return std::make_unique<LowerTileToBufferPass>(); }

}  // namespace ptodiff
