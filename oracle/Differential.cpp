#include "oracle/Differential.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>

#include "compiler/passes/PassManager.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/passes/SelectBufferIRFunctions.h"
#include "compiler/text/Printer.h"
#include "compiler/passes/LowerTileToBuffer.h"
#include "interp/BufferInterpreter.h"
#include "interp/PlannedTileInterpreter.h"
#include "interp/Symbolic.h"
#include "interp/TileInterpreter.h"
#include "oracle/Compare.h"
#include "oracle/ElementDecode.h"
#include "oracle/Oracle.h"

namespace ptodiff::oracle {

namespace {

constexpr const char* kPlannedStopPass = "VerifyTileStorage";  // the planned Tile program's last pass
constexpr const char* kPlannedWithoutBufferIRStage = "planned-no-buffer-ir";
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fileOf(const Program& p) { return p.source ? p.source->name : std::string(); }

bool isOutput(const Param& p) {
  return p.type.isTensor() && (p.direction == ParamDirection::Out || p.direction == ParamDirection::InOut);
}

// ---- locating the op of a diagnostic ----------------------------------------------------------

const Expr* callOf(const Stmt& s) {
  const Expr* e = nullptr;
  if (s.kind == Stmt::Kind::Assign) e = s.as<AssignStmt>().value.get();
  if (s.kind == Stmt::Kind::Eval) e = s.as<EvalStmt>().expr.get();
  return e && e->kind == Expr::Kind::Call ? e : nullptr;
}

const Expr* findCallAt(const Block& block, SourceLoc loc) {
  for (const StmtPtr& s : block) {
    const Expr* call = callOf(*s);
    if (call && (s->loc == loc || call->loc == loc)) return call;
    const Expr* inner = nullptr;
    switch (s->kind) {
      case Stmt::Kind::For: inner = findCallAt(s->as<ForStmt>().body, loc); break;
      case Stmt::Kind::While: inner = findCallAt(s->as<WhileStmt>().body, loc); break;
      case Stmt::Kind::If:
        inner = findCallAt(s->as<IfStmt>().thenBody, loc);
        if (!inner) inner = findCallAt(s->as<IfStmt>().elseBody, loc);
        break;
      default: break;
    }
    if (inner) return inner;
  }
  return nullptr;
}

/// The spelling of the op called by the statement at `loc` ("tile.add"), or empty.
std::string opAt(const Function& f, SourceLoc loc) {
  if (!loc.known()) return {};
  const Expr* call = findCallAt(f.body, loc);
  return call ? std::string(opInfo(call->op).spelling) : std::string();
}

std::string opAt(const Program& p, SourceLoc loc) {
  for (const Function& f : p.functions)
    if (std::string op = opAt(f, loc); !op.empty()) return op;
  return {};
}

std::string located(const Diagnostic& d) {
  if (!d.loc.known()) return d.message;
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
}

// ---- element comparison ------------------------------------------------------------------------

struct Comparison {
  std::optional<ElementDifference> uninit, sentinel, mismatch;
  std::optional<ElementDifference> formula;  // equal bits, different formulas (a symbolic run's pool given)
};

bool isClean(const Comparison& c) { return !c.uninit && !c.sentinel && !c.mismatch && !c.formula; }

void note(std::optional<ElementDifference>& slot, const std::string& tensor, const Tensor& t, int64_t index,
          uint64_t expected, uint64_t actual, bool actualPoison) {
  if (slot) {
    if (slot->tensor == tensor) ++slot->count;
    return;
  }
  ElementDifference d;
  d.tensor = tensor;
  d.dtype = t.dtype;
  d.row = index / t.cols;
  d.col = index % t.cols;
  d.expectedBits = expected;
  d.actualBits = actual;
  d.actualPoison = actualPoison;
  d.ulps = ulpDistance(t.dtype, expected, actual);
  d.count = 1;
  slot = d;
}

/// semantics.md §7 for every Out/InOut tensor, in parameter order, row-major: an element the Tile
/// run did not write must keep its initial bits and state (sentinel); a written, defined one must
/// be defined (uninit) with the same bits (mismatch). Written poison cannot reach here: the Tile
/// run is then invalid-program and nothing is compared. With the symbolic run's `pool` (issue 11), a
/// written element with equal bits must also have the Tile run's formula (`formula`, with both
/// formulas filled in).
///
/// `tileIsClean` says the Tile run compared with itself finds nothing (computed once per Tile run):
/// then a tensor whose bits, poison and formulas all equal the Tile run's contributes nothing, and
/// its element loop is skipped.
Comparison compareWithTileRun(const Function& kernel, const KernelArgs& initial, const KernelArgs& tile,
                              const KernelArgs& actual, const ExprPool* pool, bool tileIsClean = false) {
  Comparison c;
  for (const Param& p : kernel.params) {
    if (!isOutput(p)) continue;
    const Tensor& t0 = initial.tensors.at(p.name);
    const Tensor& tt = tile.tensors.at(p.name);
    const Tensor& ta = actual.tensors.at(p.name);
    if (ta.dtype != tt.dtype || ta.rows != tt.rows || ta.cols != tt.cols)
      throw std::logic_error("tensor \"" + p.name + "\" changed dtype or shape between runs");
    if (pool && (tt.sym.size() != static_cast<size_t>(tt.elements()) || ta.sym.size() != tt.sym.size()))
      throw std::logic_error("tensor \"" + p.name + "\" has no formulas after a symbolic run");
    if (tileIsClean && ta.bytes == tt.bytes && ta.poison == tt.poison && (!pool || ta.sym == tt.sym)) continue;
    withElementWord(tt.esize(), [&](auto word) {
      auto bitsOf = [](const Tensor& t, size_t k) {
        decltype(word) w;
        std::memcpy(&w, t.bytes.data() + k * sizeof w, sizeof w);
        return static_cast<uint64_t>(w);
      };
      for (int64_t i = 0; i < tt.elements(); ++i) {
        const auto k = static_cast<size_t>(i);
        const bool poison = ta.poison[k] != 0;
        if (!tt.written[k]) {
          if (bitsOf(ta, k) != bitsOf(t0, k) || poison != (t0.poison[k] != 0))
            note(c.sentinel, p.name, tt, i, bitsOf(t0, k), bitsOf(ta, k), poison);
        } else if (poison) {
          note(c.uninit, p.name, tt, i, bitsOf(tt, k), bitsOf(ta, k), true);
        } else if (bitsOf(ta, k) != bitsOf(tt, k)) {
          note(c.mismatch, p.name, tt, i, bitsOf(tt, k), bitsOf(ta, k), false);
        } else if (pool && tt.sym[k] != ta.sym[k]) {
          note(c.formula, p.name, tt, i, bitsOf(tt, k), bitsOf(ta, k), false);
        }
      }
    });
  }
  if (c.formula) {
    const int64_t k = c.formula->row * tile.tensors.at(c.formula->tensor).cols + c.formula->col;
    c.formula->expectedFormula = pool->text(tile.tensors.at(c.formula->tensor).sym[static_cast<size_t>(k)]);
    c.formula->actualFormula = pool->text(actual.tensors.at(c.formula->tensor).sym[static_cast<size_t>(k)]);
  }
  return c;
}

std::string where(const ElementDifference& d) {
  return d.tensor + "[" + std::to_string(d.row) + ", " + std::to_string(d.col) + "]";
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string mismatchDetail(const ElementDifference& d) {
  return where(d) + ": expected " + describeElement(d.dtype, d.expectedBits) + " (Tile run), got " +
         describeElement(d.dtype, d.actualBits) + ", " + (std::isinf(d.ulps) ? std::string("NaN involved") : number(d.ulps) + " ulps") +
         "; " + std::to_string(d.count) + " element(s) of " + d.tensor + " differ";
}

std::string uninitDetail(const ElementDifference& d) {
  return "uninit: " + where(d) + ": poison (bits " + describeElement(d.dtype, d.actualBits) +
         ") where the Tile run defines " + describeElement(d.dtype, d.expectedBits) + "; " + std::to_string(d.count) +
         " element(s) of " + d.tensor;
}

std::string sentinelDetail(const ElementDifference& d) {
  return where(d) + ": not written by the Tile run, initial " + describeElement(d.dtype, d.expectedBits) + ", now " +
         describeElement(d.dtype, d.actualBits, d.actualPoison) + "; " + std::to_string(d.count) + " element(s) of " +
         d.tensor + " changed";
}

/// "out[3, 5]: Tile (a[3, 5] + b[3, 5]) * b[3, 5]  vs  Buffer (a[3, 5] + a[3, 5]) * b[3, 5]; ...".
std::string formulaDetail(const ElementDifference& d, const std::string& stage) {
  const std::string run = stage == "buffer" ? "Buffer" : stage == "planned" ? "planned Tile" : stage;
  return where(d) + ": Tile " + d.expectedFormula + "  vs  " + run + " " + d.actualFormula + "; both " +
         describeElement(d.dtype, d.actualBits) + "; " + std::to_string(d.count) + " element(s) of " + d.tensor +
         " differ symbolically";
}

// ---- running ------------------------------------------------------------------------------------

/// Adds the steady-clock time of its scope to `(*sink)[phase]` (no-op without a sink).
class PhaseTimer {
 public:
  PhaseTimer(std::map<std::string, double>* sink, const char* phase)
      : sink_(sink), phase_(phase), start_(sink ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point()) {}
  ~PhaseTimer() {
    if (sink_) (*sink_)[phase_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  std::map<std::string, double>* sink_;
  const char* phase_;
  std::chrono::steady_clock::time_point start_;
};

/// One interpreter run, or the exception it threw (a crash).
struct Attempt {
  std::optional<RunResult> result;
  std::string crash;
};

template <class Fn>
Attempt attempt(Fn fn) {
  Attempt a;
  try {
    a.result = fn();
  } catch (const DiagnosticError& e) {
    a.crash = formatDiagnostic(e.diagnostic());
    while (!a.crash.empty() && a.crash.back() == '\n') a.crash.pop_back();
  } catch (const std::exception& e) {
    a.crash = e.what();
  }
  return a;
}

/// The first line of a possibly multi-line message.
std::string firstLine(std::string s) {
  const size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

/// A failing pass of a lowering: the fields of the row it fails (planned or buffer).
struct CompileFailure {
  VerdictKind kind = VerdictKind::Pass;
  std::string failingAt, op, detail;
  std::optional<Diagnostic> diagnostic;
};

namespace {

/// What a lowering depends on besides its planner: the Head and every Entry of a LoweringCache are
/// looked up by it.
struct LoweringKey {
  const Program* program = nullptr;
  bool checkLoweringLaws = false;  // verify-each and the idempotence check ran
  const Target* target = nullptr;
  bool enableBufferIR = true;
  std::optional<Fault> fault;
  bool operator==(const LoweringKey&) const = default;
};

}  // namespace

struct LoweringCache::Entry {
  LoweringKey key;
  Planner planner = Planner::PYPTO;
  std::optional<CompileFailure> failure;   // the first pass that failed, if one did
  std::shared_ptr<const Program> planned;  // after kPlannedStopPass, when the pipeline reached it
  std::shared_ptr<const Program> lowered;  // the whole pipeline's result, when no pass failed
};

/// The planner-independent head of the pipeline (kPlannerIndependentPasses), run once per program
/// for all planners.
struct LoweringCache::Head {
  LoweringKey key;
  std::optional<CompileFailure> failure;  // the first pass of the head that failed, if one did
  /// After the head, when no pass of it failed. The last planner of the options lowers this
  /// program itself rather than a copy (`taken`): a later lowering from the head makes it again.
  std::optional<Program> result;
  bool taken = false;
};

namespace {

class CaseRunner {
 public:
  CaseRunner(const DifferentialInput& in, const KernelArgs& args, const DifferentialOptions& o)
      : in_(in), args_(args), o_(o) {}

  DifferentialReport run();

 private:
  const DifferentialInput& in_;
  const KernelArgs& args_;
  const DifferentialOptions& o_;
  DifferentialReport report_;
  std::shared_ptr<const KernelArgs> tileFinal_;  // the reference outputs, when the Tile run passed
  bool tileIsClean_ = false;              // tileFinal_ compared with itself finds nothing
  /// The case's formulas when o_.symbolic: one pool for every run, so equal formulas are equal ids.
  std::shared_ptr<ExprPool> symbols_ = o_.symbolic ? threadPool() : nullptr;

  /// This thread's pool, emptied: its tables keep their capacity from case to case, so a campaign does
  /// not fault fresh pages in for every case (ids depend only on what the case interns). A pool still
  /// held by a runner on this thread is never handed out twice.
  static std::shared_ptr<ExprPool> threadPool() {
    thread_local std::shared_ptr<ExprPool> pool = std::make_shared<ExprPool>();
    if (pool.use_count() > 1) return std::make_shared<ExprPool>();
    pool->clear();
    return pool;
  }

  RunConfig config(std::optional<Planner> planner, bool addressed) const {
    RunConfig c;
    c.blockNum = o_.blockNum;
    c.stepBudget = o_.stepBudget;
    c.seed = o_.seed;
    c.target = o_.target->kind;
    c.addressedPlanner = planner ? plannerAssignsAddresses(*planner) : addressed;
    c.symbols = symbols_.get();
    return c;
  }

  StageVerdict row(std::string stage, std::optional<Planner> planner) const {
    StageVerdict v;
    v.stage = stage;
    v.failingAt = std::move(stage);
    if (planner) v.planner = std::string(plannerName(*planner));
    v.replay = o_.replayBase;
    if (planner) v.replay += " --planner " + v.planner;
    v.replay += " --target " + std::string(o_.target->name);
    if (!o_.enableBufferIR) v.replay += " --no-buffer-ir";
    return v;
  }

  void runTileAndOracle(const Program& program, const Function& kernel);
  /// Counts a run that produced outputs, and keeps them when the options ask for it.
  void recordRun(const std::string& name, const KernelArgs& final) {
    ++report_.runs;
    if (o_.keepOutputs) report_.outputs.push_back({name, final});
  }
  void judgePhysical(StageVerdict& v, const Attempt& a, const Program& program, const Function& kernel,
                     const std::string& outputsName);
  void runPlanner(Planner planner);
  /// DifferentialOptions::alsoWithoutBufferIR: every planner's planned Tile run with buffer IR off.
  void runPlannersWithoutBufferIR();
  /// Why SelectBufferIRFunctions keeps the kernel on Tile (its first reason).
  SelectionReason firstSelectionReason(Planner planner) const;
  /// The lowering under `planner`: from o_.lowerings when it holds it, else compiled (and stored).
  std::shared_ptr<const LoweringCache::Entry> lower(Planner planner);
  /// The lowering's context under `planner` (the options' faults, target, buffer IR, laws).
  PassContext passContext(Planner planner) const {
    PassContext c;
    c.faults = o_.faults;
    c.planner = planner;
    c.target = o_.target;
    c.enableBufferIR = o_.enableBufferIR;
    c.verifyEach = o_.checkLoweringLaws;
    return c;
  }
  LoweringKey loweringKey() const {
    return {in_.program, o_.checkLoweringLaws, o_.target, o_.enableBufferIR, o_.faults.active};
  }
  /// The planner-independent head of the lowering: from o_.lowerings when it holds it, else run.
  std::shared_ptr<LoweringCache::Head> lowerHead();
  /// Runs passes [first, last) of the pipeline on `current`; the first failing pass's verdict, if any.
  /// `onPass` sees each pass's name and result, and the passes still to run.
  using PassObserver =
      std::function<void(const std::string&, const Program&, std::span<const std::unique_ptr<Pass>> later)>;
  std::optional<CompileFailure> runPasses(Program& current, size_t first, size_t last, const PassContext& context,
                                          const PassObserver& onPass);
  void skip(StageVerdict v, std::string why) {
    v.kind = VerdictKind::Skipped;
    v.detail = std::move(why);
    report_.verdicts.push_back(std::move(v));
  }
};

void CaseRunner::runTileAndOracle(const Program& program, const Function& kernel) {
  const RunConfig cfg = config(std::nullopt, false);
  StageVerdict tile = row("tile", std::nullopt);
  Attempt a = attempt([&] {
    PhaseTimer timer(o_.phaseSeconds, "tile");
    return runTileKernel(program, kernel, args_, cfg);
  });
  if (!a.result) {
    tile.kind = VerdictKind::Crash;
    tile.detail = "the Tile interpreter threw: " + firstLine(a.crash);
    report_.verdicts.push_back(std::move(tile));
    return;
  }
  RunResult& r = *a.result;
  recordRun("tile", r.final);
  if (r.status != RunStatus::Ok) {
    switch (r.status) {
      case RunStatus::InvalidProgram: tile.kind = VerdictKind::InvalidProgram; break;
      case RunStatus::Timeout: tile.kind = VerdictKind::Timeout; break;
      case RunStatus::Race: tile.kind = VerdictKind::Race; break;
      default:  // the value interpreter has no storage checkers
        tile.kind = VerdictKind::Crash;
        break;
    }
    Diagnostic d = r.diagnostic;
    if (d.file.empty()) d.file = fileOf(program);
    tile.op = opAt(kernel, d.loc);
    tile.detail = located(d);
    tile.diagnostic = d;
    report_.verdicts.push_back(std::move(tile));
    return;
  }
  tile.detail = std::to_string(r.steps) + " steps";
  report_.verdicts.push_back(std::move(tile));
  tileFinal_ = std::make_shared<const KernelArgs>(std::move(r.final));
  tileIsClean_ = isClean(compareWithTileRun(kernel, args_, *tileFinal_, *tileFinal_, nullptr));

  StageVerdict oracle = row("oracle", std::nullopt);
  PhaseTimer oracleTimer(o_.phaseSeconds, "oracle");
  try {
    OracleResult ref = evaluateOracle(program, kernel, args_, cfg, o_.profile);
    if (ref.status != RunStatus::Ok) {
      oracle.kind = VerdictKind::Crash;
      oracle.detail = "the oracle's run ends in " + std::string(runStatusName(ref.status)) +
                      " where the Tile interpreter passes: " + located(ref.diagnostic);
    } else {
      // Every failing tensor is reported (oracle.md, "Verdict detail"), in parameter order; the
      // row's kind is the first of DESIGN.md's order among them (invalid-program before oracle).
      int64_t judged = 0;
      for (const TensorVerdict& tv : compareOutputs(kernel, *tileFinal_, ref.tensors)) {
        judged += tv.judged;
        if (tv.pass()) continue;
        if (tv.invalidProgram()) oracle.kind = VerdictKind::InvalidProgram;
        else if (oracle.kind == VerdictKind::Pass) oracle.kind = VerdictKind::Oracle;
        oracle.tensorDetails.push_back(describeVerdict(tv));
      }
      if (oracle.kind == VerdictKind::Pass) {
        oracle.detail = std::to_string(judged) + " element(s) within the " + ref.profile + " bound";
      } else {
        for (const std::string& d : oracle.tensorDetails) oracle.detail += (oracle.detail.empty() ? "" : "; ") + d;
      }
    }
  } catch (const std::exception& e) {
    oracle.kind = VerdictKind::Crash;
    oracle.detail = "the oracle threw: " + firstLine(e.what());
  }
  report_.verdicts.push_back(std::move(oracle));
}

void CaseRunner::judgePhysical(StageVerdict& v, const Attempt& a, const Program& program, const Function& kernel,
                               const std::string& outputsName) {
  if (!a.result) {
    v.kind = VerdictKind::Crash;
    v.detail = "the " + v.stage + " interpreter threw: " + firstLine(a.crash);
    return;
  }
  const RunResult& r = *a.result;
  recordRun(outputsName, r.final);
  Diagnostic d = r.diagnostic;
  if (d.file.empty()) d.file = fileOf(program);
  auto fromRun = [&](VerdictKind k) {
    v.kind = k;
    v.op = opAt(kernel, d.loc);
    v.diagnostic = d;
    v.detail = located(d);
    if (k == VerdictKind::Hazard && r.hazard) v.hazard = r.hazard->kind;
  };
  if (r.status == RunStatus::Timeout) return fromRun(VerdictKind::Timeout);
  if (r.status == RunStatus::Hazard) return fromRun(VerdictKind::Hazard);
  if (!tileFinal_) {  // no reference: only the checkers (and the program's own faults) judge
    if (r.status == RunStatus::Race) return fromRun(VerdictKind::Race);
    if (r.status == RunStatus::InvalidProgram) return fromRun(VerdictKind::InvalidProgram);
    v.detail = std::to_string(r.steps) + " steps; no reference: only the checkers judged";
    return;
  }
  const Comparison c = compareWithTileRun(kernel, args_, *tileFinal_, r.final, symbols_.get(), tileIsClean_);
  if (c.uninit) {
    v.kind = VerdictKind::Hazard;
    v.hazard = HazardKind::Uninit;
    v.difference = c.uninit;
    v.detail = uninitDetail(*c.uninit);
    return;
  }
  if (r.status == RunStatus::Race) return fromRun(VerdictKind::Race);
  if (c.sentinel) {
    v.kind = VerdictKind::Sentinel;
    v.difference = c.sentinel;
    v.detail = sentinelDetail(*c.sentinel);
    return;
  }
  if (c.mismatch) {
    v.kind = VerdictKind::Mismatch;
    v.difference = c.mismatch;
    v.detail = mismatchDetail(*c.mismatch);
    return;
  }
  if (r.status == RunStatus::InvalidProgram) {
    // The lowered program faults where the Tile program does not, and no output shows it (a poison
    // store would): it cannot complete, which is a crash of the lowered program (docs/oracle.md).
    fromRun(VerdictKind::Crash);
    v.detail = "the " + v.stage + " run faults where the Tile run does not: " + located(d);
    return;
  }
  if (c.formula) {
    v.kind = VerdictKind::SymbolicMismatch;
    v.difference = c.formula;
    v.detail = formulaDetail(*c.formula, v.stage);
    return;
  }
  v.detail = std::to_string(r.steps) + " steps, outputs equal the Tile run's" +
             (symbols_ ? " formula for formula" : "");
}

/// C8: LowerTileToBuffer run again on its own output changes nothing.
std::optional<CompileFailure> checkLowerIdempotent(const Program& lowered, const PassContext& context) {
  CompileFailure failure;
  failure.failingAt = "LowerTileToBuffer";
  try {
    PassManager pm;
    pm.add(createLowerTileToBufferPass());
    if (printProgram(pm.run(lowered, context).program) == printProgram(lowered)) return std::nullopt;
    failure.kind = VerdictKind::CompileError;
    failure.detail = "LowerTileToBuffer is not idempotent (C8): run again on its own output, it changes the program";
  } catch (const std::exception& e) {
    failure.kind = VerdictKind::Crash;
    failure.detail = "LowerTileToBuffer run again on its own output (C8) threw: " + firstLine(e.what());
  }
  return failure;
}

std::optional<CompileFailure> CaseRunner::runPasses(Program& current, size_t first, size_t last,
                                                   const PassContext& context, const PassObserver& onPass) {
  const Program& program = *in_.program;
  std::vector<std::unique_ptr<Pass>> pipeline = buildLoweringPipeline();
  last = std::min(last, pipeline.size());
  // One PassManager per pass, so a rejection names its pass without parsing messages.
  for (size_t i = first; i < last; ++i) {
    const std::string name(pipeline[i]->name());
    PassManager pm;
    pm.add(std::move(pipeline[i]));
    CompileFailure failure;
    try {
      pm.runVerifiedInPlace(current, context);  // `current` is verified: the input, or the last pass's output
    } catch (const DiagnosticError& e) {
      failure.kind = VerdictKind::CompileError;
      failure.failingAt = name;
      Diagnostic d = e.diagnostic();
      if (d.file.empty()) d.file = fileOf(program);
      failure.op = opAt(program, d.loc);  // the pass may reject any kernel of the program
      failure.diagnostic = d;
      failure.detail = located(d);
    } catch (const std::exception& e) {
      failure.kind = VerdictKind::Crash;
      failure.failingAt = name;
      failure.detail = "pass " + name + " threw: " + firstLine(e.what());
    }
    if (failure.kind != VerdictKind::Pass) return failure;
    onPass(name, current, std::span<const std::unique_ptr<Pass>>(pipeline.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                                                  pipeline.begin() + static_cast<std::ptrdiff_t>(last)));
  }
  return std::nullopt;
}

std::shared_ptr<LoweringCache::Head> CaseRunner::lowerHead() {
  const Program& program = *in_.program;
  const LoweringKey key = loweringKey();
  if (o_.lowerings) {
    std::vector<std::shared_ptr<LoweringCache::Head>>& heads = o_.lowerings->heads;
    std::erase_if(heads, [](const std::shared_ptr<LoweringCache::Head>& h) { return h->taken; });
    for (const std::shared_ptr<LoweringCache::Head>& h : heads)
      if (h->key == key) return h;
  }
  auto head = std::make_shared<LoweringCache::Head>();
  head->key = key;
  const PassContext context = passContext(Planner::PYPTO);  // the planner: read by no pass of the head

  PhaseTimer timer(o_.phaseSeconds, "compile");
  Program current = program.clone();
  head->failure = runPasses(current, 0, kPlannerIndependentPasses, context,
                            [](const std::string&, const Program&, std::span<const std::unique_ptr<Pass>>) {});
  if (!head->failure) head->result = std::move(current);
  if (o_.lowerings) o_.lowerings->heads.push_back(head);
  return head;
}

std::shared_ptr<const LoweringCache::Entry> CaseRunner::lower(Planner planner) {
  const LoweringKey key = loweringKey();
  if (o_.lowerings)
    for (const std::shared_ptr<const LoweringCache::Entry>& e : o_.lowerings->entries)
      if (e->key == key && e->planner == planner) return e;
  const std::shared_ptr<LoweringCache::Head> head = lowerHead();
  auto entry = std::make_shared<LoweringCache::Entry>();
  entry->key = key;
  entry->planner = planner;
  entry->failure = head->failure;
  if (!entry->failure) {
    const PassContext context = passContext(planner);

    PhaseTimer timer(o_.phaseSeconds, "compile");
    // Planners lower in the options' order and each lowering is cached, so the last planner is
    // the head's last user: it takes the program instead of copying it.
    const bool lastUser = !o_.planners.empty() && planner == o_.planners.back();
    Program current = lastUser ? std::move(*head->result) : head->result->clone();
    head->taken = lastUser;
    // When every later pass leaves the planned program as it is (LowerTileToBuffer with no selected
    // kernel: three cases in four), the planned and lowered programs are one object, not a copy.
    bool plannedIsLowered = false;
    entry->failure = runPasses(
        current, kPlannerIndependentPasses, std::numeric_limits<size_t>::max(), context,
        [&](const std::string& name, const Program& after, std::span<const std::unique_ptr<Pass>> later) {
          if (name != kPlannedStopPass) return;
          plannedIsLowered = std::all_of(later.begin(), later.end(), [&](const std::unique_ptr<Pass>& p) {
            return p->leavesUnchanged(after, context);
          });
          if (!plannedIsLowered) entry->planned = std::make_shared<const Program>(after.clone());
        });
    if (plannedIsLowered) entry->planned = std::make_shared<const Program>(std::move(current));
    if (!entry->failure) {
      if (!entry->planned) throw std::logic_error("the lowering pipeline has no pass " + std::string(kPlannedStopPass));
      entry->lowered = plannedIsLowered ? entry->planned : std::make_shared<const Program>(std::move(current));
      if (o_.checkLoweringLaws) entry->failure = checkLowerIdempotent(*entry->lowered, context);
    }
  }
  if (o_.lowerings) o_.lowerings->entries.push_back(entry);
  return entry;
}

void CaseRunner::runPlanner(Planner planner) {
  const Function& kernel = *in_.kernel;
  const std::shared_ptr<const LoweringCache::Entry> lowering = lower(planner);
  StageVerdict planned = row("planned", planner);
  StageVerdict buffer = row("buffer", planner);
  auto failAt = [](StageVerdict& v, const CompileFailure& f) {
    v.kind = f.kind;
    v.failingAt = f.failingAt;
    v.op = f.op;
    v.diagnostic = f.diagnostic;
    v.detail = f.detail;
  };
  if (!lowering->planned) {  // a pass before the planned Tile program failed
    failAt(planned, *lowering->failure);
    report_.verdicts.push_back(std::move(planned));
    skip(std::move(buffer), "not run: the lowering failed before the planned Tile program");
    return;
  }
  const Program& plannedProgram = *lowering->planned;
  const Function* pf = plannedProgram.findFunction(kernel.name);
  if (!pf) {
    planned.kind = VerdictKind::Crash;
    planned.failingAt = kPlannedStopPass;
    planned.detail = "the lowering lost kernel \"" + kernel.name + "\"";
    report_.verdicts.push_back(std::move(planned));
    skip(std::move(buffer), "not run: the planned Tile program has no kernel");
    return;
  }
  {
    const RunConfig cfg = config(planner, true);
    Attempt a = attempt([&] {
      PhaseTimer timer(o_.phaseSeconds, "planned");
      return runPlannedTileKernel(plannedProgram, *pf, args_, cfg);
    });
    judgePhysical(planned, a, plannedProgram, *pf, planned.planner + "-planned");
    report_.verdicts.push_back(planned);
  }
  if (lowering->failure) {  // a pass after the planned Tile program failed
    failAt(buffer, *lowering->failure);
    report_.verdicts.push_back(std::move(buffer));
    return;
  }
  const Program& current = *lowering->lowered;
  const Function* f = current.findFunction(kernel.name);
  if (!f) {
    buffer.kind = VerdictKind::Crash;
    buffer.failingAt = "LowerTileToBuffer";
    buffer.detail = "the lowering lost kernel \"" + kernel.name + "\"";
    report_.verdicts.push_back(std::move(buffer));
    return;
  }
  const bool selected = f->stage == FunctionStage::Buffer;
  if (o_.enableBufferIR && o_.expectSelected && *o_.expectSelected != selected) {
    buffer.kind = VerdictKind::CompileError;
    buffer.failingAt = "SelectBufferIRFunctions";
    buffer.detail = "kernel \"" + kernel.name + (selected ? "\" is outside the contract but reaches the Buffer path"
                                                          : "\" is inside the contract but stays on the Tile path") +
                    " (spec/fuzz.md property 1)";
    if (!selected) {
      // The selection's first reason names the op, so each rejecting op is its own signature.
      const SelectionReason why = firstSelectionReason(planner);
      buffer.op = opAt(kernel, why.loc);
      buffer.detail += ": " + why.rule + " at " + std::to_string(why.loc.line) + ":" + std::to_string(why.loc.col) +
                       ": " + why.message;
    }
    report_.verdicts.push_back(std::move(buffer));
    return;
  }
  if (!selected) {
    skip(std::move(buffer), o_.enableBufferIR ? "not run: kernel \"" + kernel.name +
                                                    "\" stays on the Tile path (SelectBufferIRFunctions, S2)"
                                              : std::string("not run: --no-buffer-ir keeps every kernel on Tile (S1)"));
    return;
  }
  const RunConfig cfg = config(planner, true);
  Attempt a = attempt([&] {
    PhaseTimer timer(o_.phaseSeconds, "buffer");
    return runBufferKernel(current, *f, args_, cfg);
  });
  judgePhysical(buffer, a, current, *f, buffer.planner + "-buffer");
  report_.verdicts.push_back(std::move(buffer));
}

/// Whether a planned or Buffer program given as a file counts as coming from an addressed planner:
/// only one that mixes both address forms is ambiguous, and then the first planner decides (the
/// rule of `ptodiff interp`).
bool addressedAsWritten(bool mixed, const DifferentialOptions& o) {
  return mixed && !o.planners.empty() && plannerAssignsAddresses(o.planners.front());
}

void checkSameParams(const Function& a, const Function& b, const Program& bProgram) {
  bool same = a.params.size() == b.params.size();
  for (size_t i = 0; same && i < a.params.size(); ++i)
    same = a.params[i].name == b.params[i].name && a.params[i].type == b.params[i].type &&
           a.params[i].direction == b.params[i].direction;
  if (!same)
    throwError(fileOf(bProgram), b.loc,
               "--reference: kernel \"" + b.name + "\" must have the same parameters (names, types, directions, " +
                   "order) as kernel \"" + a.name + "\" of the program under test");
}

DifferentialReport CaseRunner::run() {
  const Program& program = *in_.program;
  const Function& kernel = *in_.kernel;
  if (kernel.stage == FunctionStage::Buffer) {
    if (in_.reference) {
      checkSameParams(kernel, *in_.referenceKernel, *in_.reference);
      runTileAndOracle(*in_.reference, *in_.referenceKernel);
    }
    StageVerdict buffer = row("buffer", std::nullopt);
    if (in_.reference && !tileFinal_) {
      skip(std::move(buffer), "not run: the reference's Tile run did not pass");
      return std::move(report_);
    }
    const RunConfig cfg = config(std::nullopt, addressedAsWritten(allocFormsOf(kernel).mixed(), o_));
    Attempt a = attempt([&] { return runBufferKernel(program, kernel, args_, cfg); });
    judgePhysical(buffer, a, program, kernel, "buffer");
    report_.verdicts.push_back(std::move(buffer));
    return std::move(report_);
  }
  runTileAndOracle(program, kernel);
  if (isPlannedTileKernel(kernel)) {  // a planned file: its value run against its planned run
    StageVerdict planned = row("planned", std::nullopt);
    if (!tileFinal_) {
      skip(std::move(planned), "not run: the Tile run did not pass");
      return std::move(report_);
    }
    const RunConfig cfg = config(std::nullopt, addressedAsWritten(rootFormsOf(kernel).mixed(), o_));
    Attempt a = attempt([&] { return runPlannedTileKernel(program, kernel, args_, cfg); });
    judgePhysical(planned, a, program, kernel, "planned");
    report_.verdicts.push_back(std::move(planned));
    return std::move(report_);
  }
  for (Planner p : o_.planners) {
    if (!tileFinal_) {
      skip(row("planned", p), "not run: the Tile run did not pass");
      skip(row("buffer", p), "not run: the Tile run did not pass");
      continue;
    }
    runPlanner(p);
  }
  if (o_.alsoWithoutBufferIR && o_.enableBufferIR && tileFinal_) runPlannersWithoutBufferIR();
  return std::move(report_);
}

SelectionReason CaseRunner::firstSelectionReason(Planner planner) const {
  PassContext context = passContext(planner);
  context.verifyEach = false;  // the reason only, not the laws
  PassManagerOptions upToSelection;
  upToSelection.stopAfter = "InitMemRef";  // SelectBufferIRFunctions decides on InitMemRef's output
  const Program initialized = makeLoweringPassManager(upToSelection).run(*in_.program, context).program;
  const Function* f = initialized.findFunction(in_.kernel->name);
  const SelectionVerdict v = f ? decideBufferIRSelection(*f, context) : SelectionVerdict{};
  return v.reasons.empty() ? SelectionReason{"?", {}, "the selection gives no reason"} : v.reasons.front();
}

void CaseRunner::runPlannersWithoutBufferIR() {
  // Kernels no planner lowered to Buffer are lowered the same way with buffer IR off (S1).
  const bool someBufferRun = std::any_of(report_.verdicts.begin(), report_.verdicts.end(), [](const StageVerdict& v) {
    return v.stage == "buffer" && v.kind != VerdictKind::Skipped;
  });
  if (!someBufferRun) return;
  DifferentialOptions off = o_;
  off.enableBufferIR = false;
  off.symbolic = false;  // it shares this runner's pool (below) rather than taking one of its own
  off.expectSelected.reset();
  off.alsoWithoutBufferIR = false;
  CaseRunner tileOnly(in_, args_, off);
  tileOnly.tileFinal_ = tileFinal_;
  tileOnly.tileIsClean_ = tileIsClean_;
  tileOnly.symbols_ = symbols_;  // the same formulas: ids are comparable across the two runners
  for (Planner p : o_.planners) tileOnly.runPlanner(p);
  for (StageVerdict& v : tileOnly.report_.verdicts) {
    if (v.stage != "planned") continue;  // buffer rows: skipped, nothing reaches Buffer
    if (v.failingAt == v.stage) v.failingAt = kPlannedWithoutBufferIRStage;
    v.stage = kPlannedWithoutBufferIRStage;
    report_.verdicts.push_back(std::move(v));
  }
  for (RunOutputs& out : tileOnly.report_.outputs) {
    out.name += "-no-buffer-ir";
    report_.outputs.push_back(std::move(out));
  }
  report_.runs += tileOnly.report_.runs;
}

uint64_t orderedKey(uint64_t bits, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t magnitude = bits & (sign - 1);
  // Monotonic map to an integer line: negative floats below zero, -0 and +0 both at 0.
  return (bits & sign) ? sign - magnitude : sign + magnitude;
}

bool isNaNBits(DType dt, uint64_t bits) {
  switch (dt) {
    case DType::FP32: return (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0;
    case DType::FP16: return (bits & 0x7C00u) == 0x7C00u && (bits & 0x03FFu) != 0;
    case DType::BF16: return (bits & 0x7F80u) == 0x7F80u && (bits & 0x007Fu) != 0;
    default: return false;
  }
}

}  // namespace

std::string_view verdictKindName(VerdictKind k) {
  switch (k) {
    case VerdictKind::Pass: return "pass";
    case VerdictKind::InvalidProgram: return "invalid-program";
    case VerdictKind::Crash: return "crash";
    case VerdictKind::CompileError: return "compile-error";
    case VerdictKind::Timeout: return "timeout";
    case VerdictKind::Hazard: return "hazard";
    case VerdictKind::Race: return "race";
    case VerdictKind::Sentinel: return "sentinel";
    case VerdictKind::Mismatch: return "mismatch";
    case VerdictKind::SymbolicMismatch: return "symbolic-mismatch";
    case VerdictKind::Oracle: return "oracle";
    case VerdictKind::Skipped: return "skipped";
  }
  return "?";
}

std::string StageVerdict::signature() const {
  auto part = [](std::string_view s) { return s.empty() ? std::string("-") : std::string(s); };
  return part(verdictKindName(kind)) + "/" + part(hazard ? hazardKindName(*hazard) : std::string_view()) + "/" +
         part(failingAt) + "/" + part(op) + "/" + part(planner);
}

VerdictKind DifferentialReport::overall() const {
  VerdictKind first = VerdictKind::Pass;
  for (const StageVerdict& v : verdicts)
    if (v.failed() && (first == VerdictKind::Pass || v.kind < first)) first = v.kind;
  return first;
}

double ulpDistance(DType dt, uint64_t a, uint64_t b) {
  if (isFloat(dt)) {
    if (isNaNBits(dt, a) || isNaNBits(dt, b)) return a == b ? 0.0 : kInf;
    const int width = dtypeSize(dt) * 8;
    const uint64_t ka = orderedKey(a, width), kb = orderedKey(b, width);
    return static_cast<double>(ka > kb ? ka - kb : kb - ka);
  }
  const int64_t x = decodeIntegerBits(dt, a), y = decodeIntegerBits(dt, b);
  return std::fabs(static_cast<double>(x) - static_cast<double>(y));
}

std::string describeElement(DType dt, uint64_t bits, bool poison) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%0*llx", dtypeSize(dt) * 2, static_cast<unsigned long long>(bits));
  if (poison) return std::string("poison (") + hex + ")";
  char value[40];
  if (isFloat(dt)) {
    const double v = decodeFloatBits(dt, bits);
    if (std::isnan(v)) std::snprintf(value, sizeof value, "nan");
    else std::snprintf(value, sizeof value, dt == DType::FP32 ? "%.9g" : "%.6g", v);
  } else {
    std::snprintf(value, sizeof value, "%lld", static_cast<long long>(decodeIntegerBits(dt, bits)));
  }
  return std::string(value) + " (" + hex + ")";
}

DifferentialReport runDifferential(const DifferentialInput& input, const KernelArgs& args,
                                   const DifferentialOptions& options) {
  if (!input.program || !input.kernel) throw std::invalid_argument("runDifferential: no program or kernel");
  if (input.kernel->type == FunctionType::Orchestration)
    throw std::invalid_argument("runDifferential: \"" + input.kernel->name + "\" is an Orchestration function");
  if ((input.reference == nullptr) != (input.referenceKernel == nullptr))
    throw std::invalid_argument("runDifferential: a reference needs both its program and its kernel");
  if (input.reference && input.kernel->stage != FunctionStage::Buffer)
    throw std::invalid_argument("runDifferential: a reference applies to a Buffer-stage kernel only");
  if (input.referenceKernel && input.referenceKernel->stage != FunctionStage::Tile)
    throw std::invalid_argument("runDifferential: the reference kernel must be a Tile-stage function");
  if (!options.target) throw std::invalid_argument("runDifferential: no target");
  CaseRunner runner(input, args, options);
  return runner.run();
}

}  // namespace ptodiff::oracle
