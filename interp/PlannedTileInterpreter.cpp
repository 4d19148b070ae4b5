// The planned-Tile interpreter: the Tile-stage op hook of a KernelWalker (interp/KernelWalker.h)
// on the physical machine (interp/Machine) the Buffer interpreter runs on. A Tile value is a
// PlannedTile: its type's meta and valid extents, the storage window it lives in (a Handle), and
// the write event it expects per element (the live-clobber checker's half of the bookkeeping;
// the other half is the per-byte event tag of interp/ByteArena).
//
// Each producing op
//   1. places its result in its MemRef window (checkPlacement, the MemRef's own size),
//   2. checks the overlap of that window with what it reads (interp/Hazard's checkOverlap),
//   3. reads its operands from their windows, checking every element that has an expectation,
//   4. computes with the value semantics of interp/TileOps on the operands read back as values,
//   5. writes exactly the region its Buffer counterpart writes, with a fresh event.
// View ops compute their window from their source's current window (the pitch inherited),
// check it against their own MemRef, map the source's expectations and write nothing.
#include "interp/PlannedTileInterpreter.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "interp/Arith.h"
#include "interp/Hazard.h"
#include "interp/KernelWalker.h"
#include "interp/Launch.h"
#include "interp/Machine.h"
#include "interp/OpKinds.h"
#include "interp/ProgramFault.h"
#include "interp/Symbolic.h"
#include "interp/TileOps.h"
#include "interp/TileValue.h"

namespace ptodiff {

namespace {

using walker::operandName;
using walker::pairText;

[[noreturn]] void throwHazard(HazardKind kind, std::string detail) { throw HazardFault::make(kind, std::move(detail)); }

void require(std::optional<Hazard> h) {
  if (h) throw HazardFault{std::move(*h)};
}

std::string rangeText(int64_t begin, int64_t end) { return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")"; }

std::string memRefText(const MemRef& m) {
  const std::string offset = m.offset.isConst() ? std::to_string(m.offset.value) : "-1";
  return "pl.MemRef(" + m.base + ", " + offset + ", " + std::to_string(m.size) + ")";
}

/// A storage root (`pl.tile.alloc`), placed.
struct Root {
  std::string name;
  MemSpace space = MemSpace::Vec;
  int64_t base = 0, size = 0;
  bool addressed = false;  // addr= given: its members' MemRef offsets are absolute
};
using RootRef = std::shared_ptr<const Root>;

/// Per element (row-major over the physical shape) the write event a value expects to find in
/// the element's bytes; ByteArena::kNoEvent where it expects nothing (never written).
using Expectations = std::vector<uint32_t>;

/// A Tile value of a planned program: its elements live in `window`.
struct PlannedTile {
  TileMeta meta;
  int64_t validRows = 0, validCols = 0;
  Handle window;
  std::shared_ptr<const Expectations> expected;
  /// Machine::writesSoFar() when the storage last carried `expected`: the live-clobber check
  /// compares bytes only when a later write may have touched the window (0: always).
  uint64_t expectedAsOf = 0;
  /// The value the result's last write stored when it wrote exactly the valid region: the window
  /// then holds what readTile would gather from that region, until a write that may touch it
  /// (Machine::writtenSince after storedAsOf), so a read of the valid region skips the gather.
  std::optional<TileValue> stored;
  uint64_t storedAsOf = 0;
};
using TileRef = std::shared_ptr<const PlannedTile>;

/// What a frame slot holds. Roots are their own kind of value (pl.Ptr).
using Value = std::variant<std::monostate, ScalarValue, TileRef, TensorRef, RootRef>;

/// Who wrote an event: for the live-clobber message. Views of the op table and of the program's
/// binder names, which outlive the run: an op writes one event, so this stays allocation-free.
struct EventInfo {
  std::string_view op;  // "tile.muls"
  std::string note;     // " (copy of its target)", or empty
  uint32_t line = 0;
  std::string_view binder;
};

/// A handle for a tile of `meta` at `base` (ND pitch in bytes), viewing `root`.
Handle tileHandle(const TileMeta& meta, int64_t base, int64_t pitchBytes, ByteRange root) {
  Handle h;
  h.space = meta.space;
  h.base = base;
  h.geom = HandleGeometry{meta.rows, meta.cols, meta.dtype, meta.layout, pitchBytes};
  h.root = root;
  h.valid = std::make_shared<ValidExtents>(ValidExtents{meta.rows, meta.cols});
  return h;
}

bool isRootCall(const Expr& e) { return e.kind == Expr::Kind::Call && e.op == Opcode::TileAlloc; }

/// Calls `visit` for every assignment of `block`, nested regions included.
template <class Visit>
void forEachAssign(const Block& block, Visit&& visit) {
  for (const StmtPtr& s : block) {
    switch (s->kind) {
      case Stmt::Kind::Assign: visit(s->as<AssignStmt>()); break;
      case Stmt::Kind::For: forEachAssign(s->as<ForStmt>().body, visit); break;
      case Stmt::Kind::If:
        forEachAssign(s->as<IfStmt>().thenBody, visit);
        forEachAssign(s->as<IfStmt>().elseBody, visit);
        break;
      case Stmt::Kind::While: forEachAssign(s->as<WhileStmt>().body, visit); break;
      case Stmt::Kind::Eval:
      case Stmt::Kind::Return:
      case Stmt::Kind::Yield: break;
    }
  }
}

class PlannedMachine : public KernelWalker<PlannedMachine, Value> {
 public:
  static constexpr std::string_view kName = "PlannedMachine";  // prefix of internal errors

  PlannedMachine(const Program& program, const Function& kernel, const RunConfig& config, Launch& launch)
      : KernelWalker(program, kernel, config, launch), machine_(targetOf(config.target), config.seed, config.symbols) {
    forEachAssign(kernel.body, [&](const AssignStmt& a) {
      if (isRootCall(*a.value)) rootSlots_[a.target.name] = a.target.slot;
      const Type& t = a.target.type;
      if (t.isTile() && t.memref) {
        int64_t& align = rootAlignment_[t.memref->base];
        align = std::max({align, int64_t{32}, placementAlignment(t.layout, t.dtype)});
      }
    });
    events_.resize(1);  // kNoEvent
  }

  /// Runs the kernel once as block `block` on fresh storage; throws ProgramFault or HazardFault.
  void runBlock(int64_t block) {
    machine_.resetStorage();
    KernelWalker::runBlock(block);
  }

 private:
  friend KernelWalker;

  /// A result under construction: mutable expectations, frozen into a TileRef by `finish`.
  struct Result {
    PlannedTile tile;
    Expectations expected;
    uint64_t inheritedAsOf = std::numeric_limits<uint64_t>::max();  // expectations taken from an input
  };

  // ---- operands ----

  const PlannedTile& tileArg(const Expr& call, size_t i) {
    const Expr& arg = *call.args.at(i);
    if (arg.kind == Expr::Kind::Name)
      if (auto* t = std::get_if<TileRef>(&slot(arg.slot)); t && *t) return **t;
    throw std::logic_error(internal("operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                                    " is not a tile"));
  }

  static TileMeta metaOf(const Expr& call) {
    if (!call.type.isTile())
      throw std::logic_error(internal(std::string(opInfo(call.op).spelling) + " has no tile type (unverified?)"));
    return TileMeta::of(call.type);
  }

  /// The type the statement binds the call's result to: where its MemRef is written.
  const Type& boundType(const Expr& call) const {
    const Type* t = currentBinderType();
    return t && t->isTile() ? *t : call.type;
  }

  // ---- events ----

  uint32_t newEvent(const Expr& call, const std::string& what = "") {
    const uint32_t id = machine_.newEvent();
    if (events_.size() <= id) events_.resize(id + 1);
    events_[id] = EventInfo{opInfo(call.op).spelling, what, call.loc.line, currentBinder()};
    return id;
  }

  std::string describeEvent(uint32_t id) const {
    if (id == ByteArena::kNoEvent || id >= events_.size()) return "no write of this run";
    const EventInfo& ev = events_[id];
    return std::string(ev.op) + ev.note + " at line " + std::to_string(ev.line) +
           (ev.binder.empty() ? "" : " (" + std::string(ev.binder) + ")");
  }

  // ---- the live-clobber checker ----

  /// Every element of the region that `v` expects a write event for must still carry it in
  /// every byte; else `hazard: live-clobber` naming the clobbering write and the value.
  void checkLive(const PlannedTile& v, const std::string& name, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
    // Bytes nothing wrote since they carried the expectations still carry them.
    if (v.expectedAsOf > 0 && !machine_.writtenSince(v.expectedAsOf, v.window.space, v.window.span())) return;
    const ByteArena& arena = machine_.arena(v.window.space);
    const int64_t esize = v.window.esize();
    std::vector<uint32_t> found;
    // The first clobbered element in row-major order is reported, whichever way the layout runs.
    struct Clobber {
      int64_t r, c, addr;
      uint32_t expected, other;
    };
    std::optional<Clobber> first;
    const uint32_t* expectations = v.expected->data();
    withElementWord(static_cast<int>(esize), [&](auto word) {
      constexpr int64_t E = sizeof(word);  // the element width, fixed so the byte loop unrolls
      forEachRun(v.window, r0, c0, rows, cols, [&](const ElementRun& run) {
        found.resize(static_cast<size_t>(run.n * E));
        arena.readEvents(run.addr, found.data(), run.n * E);
        const uint32_t* want = expectations + run.r * v.meta.cols + run.c;
        const int64_t step = run.down ? v.meta.cols : 1;
        for (int64_t k = 0; k < run.n; ++k) {
          const uint32_t expected = want[k * step];
          const uint32_t* bytes = found.data() + k * E;
          bool kept = true;
          for (int64_t b = 0; b < E; ++b) kept &= bytes[b] == expected;
          if (kept || expected == ByteArena::kNoEvent) continue;
          const int64_t r = run.rowOf(k), c = run.colOf(k);
          if (!first || std::pair(r, c) < std::pair(first->r, first->c))
            first = Clobber{r, c, run.addr + k * E, expected,
                            *std::find_if(bytes, bytes + E, [&](uint32_t ev) { return ev != expected; })};
        }
      });
    });
    if (!first) return;
    throwHazard(HazardKind::LiveClobber,
                "reads " + name + pairText(first->r, first->c) + " (" + std::string(memSpaceName(v.window.space)) +
                    " bytes " + rangeText(first->addr, first->addr + esize) + "), overwritten by " +
                    describeEvent(first->other) + " after " + describeEvent(first->expected) + " wrote it; " + name +
                    " is still live");
  }

  /// The rows x cols region at (r0, c0) of `v` read from storage (checked live) as a value of
  /// v's meta and valid extents; elements outside the region are poison.
  TileValue readTile(const PlannedTile& v, const std::string& name, int64_t r0, int64_t c0, int64_t rows,
                     int64_t cols) {
    if (const TileValue* stored = storedIfCurrent(v, r0, c0, rows, cols)) {
      checkLive(v, name, r0, c0, rows, cols);
      return *stored;
    }
    TileBuilder out(v.meta, v.validRows, v.validCols, /*poisoned=*/true, machine_.symbols());
    if (rows <= 0 || cols <= 0) return std::move(out).finish();
    checkLive(v, name, r0, c0, rows, cols);
    machine_.gatherInto(v.window, r0, c0, rows, cols,
                        {out.bitsAt(r0, c0), out.poisonRow(r0) + c0, out.symAt(r0, c0), v.meta.cols});
    return std::move(out).finish();
  }

  /// What a read of the rows x cols region at (r0, c0) of `v` would gather, when it is the valid
  /// region and PlannedTile::stored still holds it; else null.
  const TileValue* storedIfCurrent(const PlannedTile& v, int64_t r0, int64_t c0, int64_t rows, int64_t cols) const {
    if (!v.stored || !(v.stored->meta == v.meta) || r0 != 0 || c0 != 0 || rows != v.validRows ||
        cols != v.validCols)
      return nullptr;
    return machine_.writtenSince(v.storedAsOf, v.window.space, v.window.span()) ? nullptr : &*v.stored;
  }

  TileValue readValid(const PlannedTile& v, const std::string& name) {
    return readTile(v, name, 0, 0, v.validRows, v.validCols);
  }

  // ---- storage of results ----

  const Root& rootNamed(std::string_view name) {
    const auto it = rootSlots_.find(name);
    if (it != rootSlots_.end())
      if (auto* r = std::get_if<RootRef>(&slot(it->second)); r && *r) return **r;
    throw std::invalid_argument("MemRef base '" + std::string(name) +
                                "' is not a storage root allocated before this statement");
  }

  /// The result of a producing op, placed in its MemRef window (checked: placement, the MemRef's
  /// size), with no expectations yet and valid extents `valid`.
  Result produce(const Expr& call, const std::array<int64_t, 2>& valid) {
    const TileMeta meta = metaOf(call);
    const Type& t = boundType(call);
    if (!t.memref)
      throw std::invalid_argument("the result " + currentBinder() +
                                  " has no MemRef; the planned-Tile interpreter runs programs whose tiles all carry "
                                  "planned storage (run it with --interpreter value)");
    if (!t.memref->offset.isConst())
      throw std::invalid_argument("the result " + currentBinder() + " has a runtime MemRef offset; only views may");
    const Root& root = rootNamed(t.memref->base);
    const int64_t base = root.addressed ? t.memref->offset.value : root.base + t.memref->offset.value;
    Result out;
    out.tile.meta = meta;
    out.tile.validRows = valid[0];
    out.tile.validCols = valid[1];
    out.tile.window = tileHandle(meta, base, meta.cols * meta.esize(), ByteRange{root.base, root.base + root.size});
    require(checkPlacement(out.tile.window, machine_.target(), currentBinder()));
    requireInsideMemRef(out.tile.window, ByteRange{base, base + t.memref->size}, *t.memref, {});
    out.expected.assign(static_cast<size_t>(meta.count()), ByteArena::kNoEvent);
    return out;
  }

  /// The window's bytes lie inside the MemRef's [base, base + SIZE), else `hazard: bounds`; a
  /// view's window placed relative to its source names that source (`relativeTo`).
  void requireInsideMemRef(const Handle& h, const ByteRange& memRefBytes, const MemRef& m, std::string_view relativeTo) {
    const ByteRange span = h.span();
    if (span.begin >= memRefBytes.begin && span.end <= memRefBytes.end) return;
    const std::string how = relativeTo.empty() ? "" : ", placed relative to its source " + std::string(relativeTo);
    throwHazard(HazardKind::Bounds, currentBinder() + ": bytes " + rangeText(span.begin, span.end) +
                                        " leave its MemRef window " + rangeText(memRefBytes.begin, memRefBytes.end) +
                                        " (" + memRefText(m) + how + ")");
  }

  /// Writes the region of `value` at (r0, c0) into the result's window as `event`.
  void write(Result& out, const TileValue& value, int64_t r0, int64_t c0, int64_t rows, int64_t cols, uint32_t event) {
    if (rows <= 0 || cols <= 0) return;
    if (value.esize() != out.tile.window.esize())
      throw std::logic_error("PlannedMachine::write: element size differs from the storage's");
    machine_.scatterFrom(out.tile.window, r0, c0, rows, cols,
                         {value.bitsAt(r0, c0), value.poisonRow(r0) + c0, value.symAt(r0, c0), value.meta.cols}, event);
    expect(out, r0, c0, rows, cols, event);
    noteStored(out, value, r0, c0, rows, cols);
  }

  /// Keeps `value` as the window's content (PlannedTile::stored) when it is exactly what readTile
  /// gathers from the valid region right after the write: the write covered exactly the valid
  /// region, the value has the tile's meta and valid extents, bits and poison (0 or 1) as written,
  /// lanes outside the region as a gather leaves them, and in a symbolic run formulas of the tile's
  /// dtype (a gather turns any other into a reinterpretation of its bytes). Any other write forgets
  /// what was kept.
  void noteStored(Result& out, const TileValue& value, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
    PlannedTile& t = out.tile;
    t.stored.reset();
    if (r0 != 0 || c0 != 0 || rows != t.validRows || cols != t.validCols || !(value.meta == t.meta) ||
        value.validRows != rows || value.validCols != cols || !outsideIsUngathered(value))
      return;
    if (const ExprPool* pool = machine_.symbols())
      for (ExprId e : value.elements->sym)
        if (e != ExprPool::kPoison && pool->dtypeOf(e) != t.meta.dtype) return;
    t.stored = value;
    t.storedAsOf = machine_.writesSoFar();
  }

  /// Whether the lanes of `v` outside its valid region are as readTile's TileBuilder leaves them:
  /// poison, bits 0, formula kPoison.
  static bool outsideIsUngathered(const TileValue& v) {
    if (v.fullyValid()) return true;
    const TileElements& el = *v.elements;
    const auto esize = static_cast<size_t>(v.esize());
    for (int64_t r = 0; r < v.rows(); ++r)
      for (int64_t c = r < v.validRows ? v.validCols : 0; c < v.cols(); ++c) {
        const auto i = static_cast<size_t>(r * v.cols() + c);
        if (el.poison[i] != 1 || (!el.sym.empty() && el.sym[i] != ExprPool::kPoison)) return false;
        for (size_t b = 0; b < esize; ++b)
          if (el.bits[i * esize + b] != 0) return false;
      }
    return true;
  }

  static void expect(Result& out, int64_t r0, int64_t c0, int64_t rows, int64_t cols, uint32_t event) {
    for (int64_t r = r0; r < r0 + rows; ++r)
      std::fill_n(out.expected.begin() + r * out.tile.meta.cols + c0, cols, event);
  }

  TileRef finish(Result&& out) {
    out.tile.expected = std::make_shared<const Expectations>(std::move(out.expected));
    // The result's own writes made its expectations true; inherited ones (an in-place result's)
    // are only as recent as its input's.
    out.tile.expectedAsOf = std::min(out.inheritedAsOf, machine_.writesSoFar());
    return std::make_shared<const PlannedTile>(std::move(out.tile));
  }

  OperandFootprint footprintOf(const PlannedTile& v, const std::string& name, int64_t r0, int64_t c0, int64_t rows,
                               int64_t cols) {
    names_.push_back(name);  // OperandFootprint keeps a view of the name
    return OperandFootprint{&v.window, names_.back(), r0, c0, rows, cols};
  }

  void requireNoOverlap(const Expr& call, const OperandFootprint& dst, const std::vector<OperandFootprint>& sources,
                        bool inPlaceSafe) {
    require(checkOverlap(opInfo(call.op).spelling, dst, sources, inPlaceSafe));
    names_.clear();
  }

  /// A transfer's check: no shared byte unless the copy is an exact self-copy (checkTransferOverlap).
  void requireTransferClear(const Expr& call, const OperandFootprint& dst, const OperandFootprint& source) {
    require(checkTransferOverlap(opInfo(call.op).spelling, dst, source));
    names_.clear();
  }

  // ---- views ----

  /// A view's window against its MemRef: the MemRef names its source's storage (on entry, for a
  /// carry), so its offset relative to the source's MemRef offset is where the planner believes
  /// the view lies; the view's bytes must lie inside that window, else `hazard: bounds`.
  void checkViewMemRef(const Expr& call, const Handle& view, const PlannedTile& source) {
    const Type& t = boundType(call);
    if (!t.memref) return;
    const Type& st = call.args.at(0)->type;
    const bool relative = t.memref->offset.isConst() && st.isTile() && st.memref && st.memref->offset.isConst() &&
                          st.memref->base == t.memref->base;
    const int64_t begin = relative ? source.window.base + (t.memref->offset.value - st.memref->offset.value)
                                   : view.span().begin;
    requireInsideMemRef(view, ByteRange{begin, begin + t.memref->size}, *t.memref,
                        relative ? operandName(call, 0) : std::string());
  }

  /// A view result: `window`, valid extents, expectations mapped from the source.
  TileRef viewOf(const Expr& call, const PlannedTile& source, Handle window, const std::array<int64_t, 2>& valid,
                 std::shared_ptr<const Expectations> expected) {
    require(checkPlacementOf(window, machine_.target(),
                             [&] { return currentBinder() + " (view of " + operandName(call, 0) + ")"; }));
    checkViewMemRef(call, window, source);
    PlannedTile v;
    v.meta = metaOf(call);
    v.validRows = valid[0];
    v.validCols = valid[1];
    v.window = std::move(window);
    v.expected = std::move(expected);
    v.expectedAsOf = source.expectedAsOf;  // a view's expectations are its source's
    return std::make_shared<const PlannedTile>(std::move(v));
  }

  // ---- ops (the walker's hook) ----

  Value execOp(const OpInfo& info, const Expr& e) {
    switch (info.family) {
      case OpFamily::StorageRoot: return root(e);
      case OpFamily::Load: return load(e);
      case OpFamily::Store: return store(e);
      case OpFamily::Binary:
      case OpFamily::Unary:
      case OpFamily::TileScalar: return elementwise(e);
      case OpFamily::Full: {
        const TileMeta meta = metaOf(e);
        const TileValue v = tileops::full(meta, elementOf(*e.args[2], meta.dtype), machine_.symbols());
        Result out = produce(e, {meta.rows, meta.cols});
        write(out, v, 0, 0, meta.rows, meta.cols, newEvent(e));
        return finish(std::move(out));
      }
      case OpFamily::Create: {
        const TileMeta meta = metaOf(e);
        return finish(produce(e, {meta.rows, meta.cols}));  // writes nothing: every element is undefined
      }
      case OpFamily::Slice: return slice(e);
      case OpFamily::Assemble: return assemble(e);
      case OpFamily::Reshape: return reshape(e);
      case OpFamily::SetValidShape: {
        const PlannedTile& src = tileArg(e, 0);
        const int64_t vr = evalIndex(*e.args[1]), vc = evalIndex(*e.args[2]);
        tileops::requireValidInside(src.meta.rows, src.meta.cols, vr, vc);
        return viewOf(e, src, src.window, {vr, vc}, src.expected);
      }
      case OpFamily::Move:
      case OpFamily::Extract: return copyOut(e);
      case OpFamily::TransposeView: return transposeView(e);
      case OpFamily::Matmul:
      case OpFamily::MatmulAcc: return matmul(e);
      case OpFamily::RowReduce:
      case OpFamily::ColReduce: return reduce(e);
      case OpFamily::ScalarConst:
      case OpFamily::BlockQuery: throw std::logic_error(internal("the walker evaluates pl.const and block queries"));
      case OpFamily::BufAlloc:
      case OpFamily::BufSubview:
      case OpFamily::BufReshape:
      case OpFamily::BufSetValidShape:
      case OpFamily::BufLoad:
      case OpFamily::BufStore:
      case OpFamily::BufCopy:
      case OpFamily::BufExtract:
      case OpFamily::BufBinary:
      case OpFamily::BufUnary:
      case OpFamily::BufTileScalar:
      case OpFamily::BufFull:
      case OpFamily::BufMatmul: break;
      // No default: a new family without a handler here is a compile error (-Wswitch -Werror).
    }
    throw std::invalid_argument("a Buffer-stage op cannot run in a Tile-stage function");
  }

  // ---- roots ----

  Value root(const Expr& e) {
    Root r;
    r.name = currentBinder();
    r.space = e.args[0]->space;
    r.size = evalIndex(*e.args[1]);
    r.addressed = e.args.size() > 2 && e.args[2];
    auto what = [&] { return r.name + " (" + std::string(memSpaceName(r.space)) + ", " + std::to_string(r.size) + " B)"; };
    if (r.addressed) {
      r.base = evalIndex(*e.args[2]);
    } else {
      if (config().addressedPlanner)
        throwHazard(HazardKind::Addressless,
                    what() + " has no address, but the program comes from an addressed planner (PYPTO, DSA_RP), which "
                           "gives every root its final address");
      const auto align = rootAlignment_.find(r.name);
      r.base = machine_.placeAddressless(&e, r.space, r.size, align == rootAlignment_.end() ? 32 : align->second);
    }
    const Target& target = machine_.target();
    const SpaceDesc& space = target.space(r.space);
    if (r.base % target.baseAlignment != 0)
      throwHazard(HazardKind::Align, what() + ": base address " + std::to_string(r.base) + " is not " +
                                         std::to_string(target.baseAlignment) + "-byte aligned");
    if (r.base < 0 || r.size < 0 || r.base + r.size > space.capacity)
      throwHazard(HazardKind::Bounds, what() + ": bytes " + rangeText(r.base, r.base + r.size) + " leave " +
                                          std::string(target.name) + " " + std::string(memSpaceName(r.space)) +
                                          " [0, " + std::to_string(space.capacity) + ")");
    if (r.space == MemSpace::Vec && space.reserved && ByteRange{r.base, r.base + r.size}.overlaps(*space.reserved))
      throwHazard(HazardKind::Reserved, what() + ": bytes " + rangeText(r.base, r.base + r.size) +
                                            " touch the reserved scratch range " +
                                            rangeText(space.reserved->begin, space.reserved->end) + " of " +
                                            std::string(target.name) + " Vec");
    return std::make_shared<const Root>(std::move(r));
  }

  // ---- GM ----

  Value load(const Expr& e) {
    GmTensor& tensor = gm(tensorArg(e, 0));
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const TileMeta meta = metaOf(e);
    std::array<int64_t, 2> valid{meta.rows, meta.cols};
    if (e.args.size() > 3 && e.args[3]) valid = evalPair(e.args[3].get());
    tileops::requireLoadValid(meta, valid[0], valid[1]);
    if (meta.dtype != tensor.tensor.dtype) throw std::invalid_argument("tile dtype differs from the tensor's");
    requireGmWindow(tensor, off, valid[0], valid[1]);
    checkGmReadRace(tensor, off, valid[0], valid[1], block(), "tile.load");
    Result out = produce(e, valid);
    if (valid[0] > 0 && valid[1] > 0) {
      DenseElements values(meta.dtype, valid[0], valid[1], machine_.symbols());
      readGmWindow(tensor, off, values.mutElems(), values.poison.data(), values.cols);
      const uint32_t event = newEvent(e);
      machine_.scatter(out.tile.window, 0, 0, values, event);
      expect(out, 0, 0, valid[0], valid[1], event);
      noteStored(out, loadedValue(meta, std::move(values)), 0, 0, valid[0], valid[1]);
    }
    return finish(std::move(out));
  }

  /// The tile value a load of `values` (its valid region) makes, as readTile would gather it.
  TileValue loadedValue(const TileMeta& meta, DenseElements&& values) {
    if (values.rows == meta.rows && values.cols == meta.cols)
      return TileValue{meta, values.rows, values.cols,
                       std::make_shared<TileElements>(TileElements{std::move(values.bits), std::move(values.poison),
                                                                   std::move(values.sym), values.pool})};
    TileBuilder out(meta, values.rows, values.cols, /*poisoned=*/true, machine_.symbols());
    const auto esize = static_cast<size_t>(meta.esize());
    for (int64_t r = 0; r < values.rows; ++r) {
      std::memcpy(out.bitsAt(r, 0), values.bitsAt(r, 0), esize * static_cast<size_t>(values.cols));
      std::memcpy(out.poisonRow(r), values.poison.data() + r * values.cols, static_cast<size_t>(values.cols));
      if (ExprId* sym = out.symAt(r, 0)) std::copy_n(values.symAt(r, 0), values.cols, sym);
    }
    return std::move(out).finish();
  }

  Value store(const Expr& e) {
    const PlannedTile& src = tileArg(e, 0);
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const int index = tensorArg(e, 2);
    GmTensor& tensor = gm(index);
    const int64_t vr = src.validRows, vc = src.validCols;
    requireGmWindow(tensor, off, vr, vc);
    checkGmWriteRace(tensor, off, vr, vc, block(), "tile.store");
    if (vr == 0 || vc == 0) return TensorRef{index};
    checkLive(src, operandName(e, 0), 0, 0, vr, vc);
    if (const TileValue* stored = storedIfCurrent(src, 0, 0, vr, vc)) {
      notePoisonStore("tile.store", tensor,
                      writeGmWindow(tensor, off, src.meta.dtype, stored->window(0, 0, vr, vc), stored->poisonRow(0),
                                    stored->meta.cols, block()));
      return TensorRef{index};
    }
    const DenseElements values = machine_.gather(src.window, 0, 0, vr, vc);
    notePoisonStore("tile.store", tensor,
                    writeGmWindow(tensor, off, src.meta.dtype, values.elems(), values.poison.data(), values.cols, block()));
    return TensorRef{index};
  }

  // ---- compute ----

  /// Binary, unary and tile-scalar ops: the domain is the first operand's valid region.
  Value elementwise(const Expr& e) {
    const OpInfo& info = opInfo(e.op);
    const PlannedTile& lhs = tileArg(e, 0);
    const PlannedTile* rhs = info.family == OpFamily::Binary ? &tileArg(e, 1) : nullptr;
    const int64_t vr = lhs.validRows, vc = lhs.validCols;
    if (rhs && (rhs->meta.rows != lhs.meta.rows || rhs->meta.cols != lhs.meta.cols))
      throw std::invalid_argument("operands differ in physical shape");
    Result out = produce(e, {vr, vc});
    std::vector<OperandFootprint> reads{footprintOf(lhs, operandName(e, 0), 0, 0, vr, vc)};
    if (rhs) reads.push_back(footprintOf(*rhs, operandName(e, 1), 0, 0, vr, vc));
    requireNoOverlap(e, footprintOf(out.tile, currentBinder(), 0, 0, vr, vc), reads, info.effects.inPlaceSafe);

    const TileValue a = readValid(lhs, operandName(e, 0));
    TileValue result;
    if (info.family == OpFamily::Binary)
      result = tileops::binary(binaryKindOf(e.op), a, readTile(*rhs, operandName(e, 1), 0, 0, vr, vc));
    else if (info.family == OpFamily::Unary)
      result = tileops::unary(unaryKindOf(e.op), a);
    else
      result = tileops::binaryScalar(binaryKindOf(e.op), a, elementOf(*e.args[1], lhs.meta.dtype));
    write(out, result, 0, 0, vr, vc, newEvent(e));
    return finish(std::move(out));
  }

  /// move and extract: a copy of a region into the result's storage; neither runs in place (an
  /// exact self-copy is a no-op, not an overlap).
  Value copyOut(const Expr& e) {
    const PlannedTile& src = tileArg(e, 0);
    const TileMeta meta = metaOf(e);
    int64_t r0 = 0, c0 = 0;
    std::array<int64_t, 2> valid{src.validRows, src.validCols};
    if (e.op == Opcode::TileExtract) {
      r0 = evalIndex(*e.args[1]);
      c0 = evalIndex(*e.args[2]);
      valid = tileops::sliceValid(src.meta.rows, src.meta.cols, src.validRows, src.validCols, meta, r0, c0, std::nullopt);
    }
    Result out = produce(e, valid);
    requireTransferClear(e, footprintOf(out.tile, currentBinder(), 0, 0, valid[0], valid[1]),
                         footprintOf(src, operandName(e, 0), r0, c0, valid[0], valid[1]));
    const TileValue in = readTile(src, operandName(e, 0), r0, c0, valid[0], valid[1]);
    const TileValue result = e.op == Opcode::TileExtract ? tileops::extract(in, meta, r0, c0) : tileops::move(in, meta);
    write(out, result, 0, 0, valid[0], valid[1], newEvent(e));
    return finish(std::move(out));
  }

  /// An in-place result (assemble, matmul_acc) whose window is not its input's starts with a copy
  /// of the input's valid region; in place, it inherits the input's expectations.
  void startFromInput(const Expr& e, Result& out, const PlannedTile& input, const std::string& inputName,
                      const TileValue& inputValue) {
    if (identicalWindow(out.tile.window, input.window)) {
      out.expected = *input.expected;
      out.inheritedAsOf = input.expectedAsOf;
      return;
    }
    requireTransferClear(e, footprintOf(out.tile, currentBinder(), 0, 0, input.validRows, input.validCols),
                         footprintOf(input, inputName, 0, 0, input.validRows, input.validCols));
    write(out, inputValue, 0, 0, input.validRows, input.validCols, newEvent(e, " (copy of " + inputName + ")"));
  }

  Value assemble(const Expr& e) {
    const PlannedTile &target = tileArg(e, 0), &source = tileArg(e, 1);
    const std::string targetName = operandName(e, 0), sourceName = operandName(e, 1);
    const std::array<int64_t, 2> off = evalPair(e.args[2].get());
    const TileValue t = readValid(target, targetName);
    const TileValue s = readTile(source, sourceName, 0, 0, source.meta.rows, source.meta.cols);
    const TileValue result = tileops::assemble(t, s, off[0], off[1]);  // window fit and valid union
    Result out = produce(e, {result.validRows, result.validCols});
    startFromInput(e, out, target, targetName, t);
    requireTransferClear(e, footprintOf(out.tile, currentBinder(), off[0], off[1], source.meta.rows, source.meta.cols),
                         footprintOf(source, sourceName, 0, 0, source.meta.rows, source.meta.cols));
    write(out, result, off[0], off[1], source.meta.rows, source.meta.cols, newEvent(e));
    return finish(std::move(out));
  }

  /// matmul and matmul_acc: the product lanes [0, vr_L) x [0, vc_R) (the sum onto the result's
  /// bytes for an accumulating matmul_acc) and the touched-box rule, as buffer.matmul writes them.
  Value matmul(const Expr& e) {
    const bool accumulating = e.op == Opcode::TileMatmulAcc;
    const size_t l = accumulating ? 1 : 0;
    const PlannedTile &lhs = tileArg(e, l), &rhs = tileArg(e, l + 1);
    const std::string lName = operandName(e, l), rName = operandName(e, l + 1);
    const int64_t M = lhs.validRows, K = lhs.validCols, N = rhs.validCols;
    if (K > rhs.meta.rows) throw std::invalid_argument("the contraction extent exceeds the right operand's rows");
    const TileValue a = readTile(lhs, lName, 0, 0, M, K), b = readTile(rhs, rName, 0, 0, K, N);
    const PlannedTile* acc = accumulating ? &tileArg(e, 0) : nullptr;
    std::array<int64_t, 2> valid{M, N};
    if (acc) valid = {acc->validRows, acc->validCols};
    if (acc && (M > acc->meta.rows || N > acc->meta.cols))
      throw std::invalid_argument("the product exceeds the accumulator's shape");
    Result out = produce(e, valid);
    requireNoOverlap(e, footprintOf(out.tile, currentBinder(), 0, 0, M, N),
                     {footprintOf(lhs, lName, 0, 0, M, K), footprintOf(rhs, rName, 0, 0, K, N)},
                     opInfo(e.op).effects.inPlaceSafe);
    TileValue result;
    if (acc) {
      startFromInput(e, out, *acc, operandName(e, 0), readValid(*acc, operandName(e, 0)));
      // Accumulate onto the bytes now in the result's window (its own expectations checked).
      PlannedTile current{acc->meta,         acc->validRows,
                          acc->validCols,    out.tile.window,
                          std::make_shared<const Expectations>(out.expected),
                          0,                 out.tile.stored,
                          out.tile.storedAsOf};
      const bool init = e.args.size() > 3 && e.args[3] ? evalBool(*e.args[3]) : false;
      result = tileops::matmulAcc(readTile(current, currentBinder(), 0, 0, M, N), a, b, init);
    } else {
      result = tileops::matmul(a, b, out.tile.meta);
    }
    if (M > 0 && N > 0) {
      const uint32_t event = newEvent(e);
      write(out, result, 0, 0, M, N, event);
      for (const auto& [r0, c0, rows, cols] : machine_.poisonTouchedAccBoxes(out.tile.window, M, N, event))
        expect(out, r0, c0, rows, cols, event);
    }
    return finish(std::move(out));
  }

  /// row_* / col_*: the result's valid region; a row reduction's scratch operand becomes poison.
  Value reduce(const Expr& e) {
    const PlannedTile& src = tileArg(e, 0);
    const bool rows = opInfo(e.op).family == OpFamily::RowReduce;
    const TileMeta meta = metaOf(e);
    const std::array<int64_t, 2> valid = rows ? std::array<int64_t, 2>{src.validRows, 1}
                                              : std::array<int64_t, 2>{1, src.validCols};
    Result out = produce(e, valid);
    const OperandFootprint read = footprintOf(src, operandName(e, 0), 0, 0, src.validRows, src.validCols);
    requireNoOverlap(e, footprintOf(out.tile, currentBinder(), 0, 0, valid[0], valid[1]), {read}, false);
    const PlannedTile* tmp = rows ? &tileArg(e, 1) : nullptr;
    if (tmp) {
      const OperandFootprint scratch = footprintOf(*tmp, operandName(e, 1), 0, 0, tmp->validRows, tmp->validCols);
      requireNoOverlap(e, scratch, {footprintOf(src, operandName(e, 0), 0, 0, src.validRows, src.validCols),
                                    footprintOf(out.tile, currentBinder(), 0, 0, valid[0], valid[1])},
                       false);
    }
    const TileValue in = readValid(src, operandName(e, 0));
    const TileValue result = rows ? tileops::rowReduce(reduceKindOf(e.op), in, meta)
                                  : tileops::colReduce(reduceKindOf(e.op), in, meta);
    const uint32_t event = newEvent(e);
    write(out, result, 0, 0, valid[0], valid[1], event);
    if (tmp && tmp->validRows > 0 && tmp->validCols > 0)
      machine_.poisonRegion(tmp->window, 0, 0, tmp->validRows, tmp->validCols, event);
    return finish(std::move(out));
  }

  // ---- views ----

  Value slice(const Expr& e) {
    const PlannedTile& src = tileArg(e, 0);
    const TileMeta meta = metaOf(e);
    const std::array<int64_t, 2> off = evalPair(e.args[2].get());
    const char* axisName[2] = {"rows", "columns"};
    const int64_t extent[2] = {meta.rows, meta.cols}, parentExtent[2] = {src.meta.rows, src.meta.cols};
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t begin = off[static_cast<size_t>(axis)], end = begin + extent[axis];
      if (begin >= 0 && end <= parentExtent[axis]) continue;
      throwHazard(HazardKind::Valid, "window " + std::string(axisName[axis]) + " " + rangeText(begin, end) +
                                         " do not fit the parent " + operandName(e, 0) + "'s " +
                                         std::to_string(parentExtent[axis]) + " " + axisName[axis]);
    }
    std::optional<std::array<int64_t, 2>> requested;
    if (e.args.size() > 3 && e.args[3]) requested = evalPair(e.args[3].get());
    const std::array<int64_t, 2> valid =
        tileops::sliceValid(src.meta.rows, src.meta.cols, src.validRows, src.validCols, meta, off[0], off[1], requested);
    // A window inherits its source's row pitch and root (W1).
    Handle window = tileHandle(meta, src.window.byteAt(off[0], off[1]), src.window.geom.pitchBytes, src.window.root);
    auto expected = std::make_shared<Expectations>(static_cast<size_t>(meta.count()));
    for (int64_t r = 0; r < meta.rows; ++r)
      for (int64_t c = 0; c < meta.cols; ++c)
        (*expected)[static_cast<size_t>(r * meta.cols + c)] =
            (*src.expected)[static_cast<size_t>((off[0] + r) * src.meta.cols + off[1] + c)];
    return viewOf(e, src, std::move(window), valid, std::move(expected));
  }

  Value reshape(const Expr& e) {
    const PlannedTile& src = tileArg(e, 0);
    const TileMeta meta = metaOf(e);
    const std::array<int64_t, 2> valid = tileops::reshapedValid(src.meta, src.validRows, src.validCols, meta);
    const int64_t densePitch = src.meta.cols * src.meta.esize();
    if (addressingOf(src.window.geom.layout) == AddressingKind::ND && src.window.geom.pitchBytes != densePitch)
      throwHazard(HazardKind::Align, "source " + operandName(e, 0) + " has row pitch " +
                                         std::to_string(src.window.geom.pitchBytes) + " B, not the dense " +
                                         std::to_string(src.meta.cols) + " x " + std::to_string(src.meta.esize()) +
                                         " B = " + std::to_string(densePitch) + " B a reshape reinterprets");
    // Row-major elements reinterpreted: element i of either shape is the i-th of the same bytes.
    return viewOf(e, src, tileHandle(meta, src.window.base, meta.cols * meta.esize(), src.window.root), valid,
                  src.expected);
  }

  Value transposeView(const Expr& e) {
    const PlannedTile& src = tileArg(e, 0);
    const TileMeta meta = metaOf(e);
    const int64_t densePitch = src.meta.cols * src.meta.esize();
    if (addressingOf(src.window.geom.layout) == AddressingKind::ND && src.window.geom.pitchBytes != densePitch)
      throwHazard(HazardKind::Align, "source " + operandName(e, 0) + " has row pitch " +
                                         std::to_string(src.window.geom.pitchBytes) + " B; a transposed view (DN) " +
                                         "addresses its bytes densely (" + std::to_string(densePitch) + " B)");
    auto expected = std::make_shared<Expectations>(static_cast<size_t>(meta.count()));
    for (int64_t r = 0; r < src.meta.rows; ++r)
      for (int64_t c = 0; c < src.meta.cols; ++c)
        (*expected)[static_cast<size_t>(c * meta.cols + r)] = (*src.expected)[static_cast<size_t>(r * src.meta.cols + c)];
    // The swapped layout addresses element (c, r) at the bytes of the source's (r, c).
    return viewOf(e, src, tileHandle(meta, src.window.base, meta.cols * meta.esize(), src.window.root),
                  {src.validCols, src.validRows}, std::move(expected));
  }

  Machine machine_;
  // Keyed by views of the kernel's names, which outlive the run.
  std::unordered_map<std::string_view, int> rootSlots_;          // root name -> frame slot
  std::unordered_map<std::string_view, int64_t> rootAlignment_;  // root name -> placement alignment of its members
  std::vector<EventInfo> events_;                 // by event id
  std::deque<std::string> names_;                 // names the pending overlap check refers to (stable views)
};

bool isTileAssign(const AssignStmt& a) { return a.target.type.isTile(); }

}  // namespace

bool isPlannedTileKernel(const Function& kernel) {
  if (kernel.stage != FunctionStage::Tile) return false;
  int tiles = 0, planned = 0;
  forEachAssign(kernel.body, [&](const AssignStmt& a) {
    if (!isTileAssign(a)) return;
    ++tiles;
    if (a.target.type.memref) ++planned;
  });
  return tiles > 0 && planned == tiles;
}

RootForms rootFormsOf(const Function& kernel) {
  RootForms forms;
  forEachAssign(kernel.body, [&](const AssignStmt& a) {
    if (isRootCall(*a.value)) (a.value->args.size() > 2 && a.value->args[2] ? forms.addressed : forms.addressless)++;
  });
  return forms;
}

RunResult runPlannedTileKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                               const RunConfig& config) {
  const std::string file = program.source ? program.source->name : std::string();
  if (kernel.stage == FunctionStage::Buffer)
    throwError(file, kernel.loc, "function '" + kernel.name +
                                     "' is a Buffer-stage function; the planned-Tile interpreter runs Tile-stage "
                                     "functions with planned storage (run it with --interpreter buffer)");
  checkBlockNum(file, config.blockNum);
  Launch launch = bindKernelArgs(file, kernel, args, config.symbols);
  PlannedMachine machine(program, kernel, config, launch);
  return runLaunch(machine, launch, args, config);
}

}  // namespace ptodiff
