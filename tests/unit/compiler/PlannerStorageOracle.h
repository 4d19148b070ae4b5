// An independent check of planned storage for the planner tests: it *executes* a planned Tile kernel
// on storage tags only and reports every read of a value whose bytes were overwritten since the
// value was made (the static twin of semantics.md's live-clobber checker).
//
// It shares no code with compiler/planners: no liveness, no alias families. Each byte range of a
// space carries the id of the last write event; a value remembers the events it expects (a fresh
// producer or in-place result: its own write over its MemRef window; a view: its source's events
// inside the view's window; a carry or branch result: whatever value was bound to it). Every Tile
// operand read is checked against the current events. Control flow is explored path by path:
// constant For bounds run exactly, runtime bounds take 0..3 trips, While loops 0..3 trips, and both
// arms of every If, up to a cap on the number of paths.
//
// Roots placed with addr= use their absolute MemRef offsets; addressless (PTOAS) roots get disjoint
// virtual ranges. A view's window is its source's window at run time plus the view's static offset
// relative to its source's (seed 003 A20; a carry's static MemRef is its init's, a branch result's
// its then-arm value's): so a view of a carry follows the storage the carry holds on that trip. A
// runtime-offset slice is taken to cover its whole source.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff::oracle_test {

struct Segment {
  int64_t begin = 0, end = 0;
  int event = 0;
};

/// The last write event of every byte of one space, as disjoint segments (absent = event 0).
class EventMemory {
 public:
  void write(int64_t begin, int64_t end, int event) {
    cut(begin);
    cut(end);
    segments_.erase(segments_.lower_bound(begin), segments_.lower_bound(end));
    segments_[begin] = Segment{begin, end, event};
  }
  std::vector<Segment> read(int64_t begin, int64_t end) const {
    std::vector<Segment> out;
    int64_t at = begin;
    auto it = segments_.upper_bound(begin);
    if (it != segments_.begin()) --it;
    for (; it != segments_.end() && it->second.begin < end; ++it) {
      const Segment& s = it->second;
      if (s.end <= at) continue;
      if (s.begin > at) out.push_back(Segment{at, s.begin, 0});
      out.push_back(Segment{std::max(s.begin, at), std::min(s.end, end), s.event});
      at = std::min(s.end, end);
    }
    if (at < end) out.push_back(Segment{at, end, 0});
    return out;
  }

 private:
  std::map<int64_t, Segment> segments_;
  void cut(int64_t at) {
    auto it = segments_.upper_bound(at);
    if (it == segments_.begin()) return;
    --it;
    Segment s = it->second;
    if (s.begin < at && at < s.end) {
      it->second.end = at;
      segments_[at] = Segment{at, s.end, s.event};
    }
  }
};

class StorageOracle {
 public:
  explicit StorageOracle(const Function& kernel, int maxPaths = 256) : kernel_(kernel), maxPaths_(maxPaths) {}

  /// Problems found on all explored paths (deduplicated), empty when storage is sound.
  std::vector<std::string> run() {
    placeRoots();
    std::vector<int> script;
    for (int path = 0; path < maxPaths_; ++path) {
      choices_.clear();
      script_ = script;
      runPath();
      // Next path: the last choice that still has an untried option, earlier choices kept.
      while (!choices_.empty() && choices_.back().first + 1 >= choices_.back().second) choices_.pop_back();
      if (choices_.empty()) break;
      script.clear();
      for (size_t i = 0; i + 1 < choices_.size(); ++i) script.push_back(choices_[i].first);
      script.push_back(choices_.back().first + 1);
    }
    return problems_;
  }

 private:
  struct Value {
    int space = 0;
    int64_t begin = 0, end = 0;
    std::vector<Segment> expects;
    std::string name;
    uint32_t line = 0;
  };
  struct RootInfo {
    int space;
    int64_t base;
    bool addressed;
  };

  const Function& kernel_;
  int maxPaths_;
  std::map<std::string, RootInfo> roots_;
  std::map<int, MemRef> static_;  // slot -> the MemRef the text gives its storage
  std::vector<int> script_;
  std::vector<std::pair<int, int>> choices_;  // (taken, options)
  std::map<int, EventMemory> memory_;
  std::map<int, Value> env_;
  std::map<int, std::string> eventOwner_;
  int nextEvent_ = 1;
  std::vector<std::string> problems_;

  int choose(int options) {
    size_t k = choices_.size();
    int taken = k < script_.size() ? script_[k] : 0;
    choices_.push_back({taken, options});
    return taken;
  }

  void report(const std::string& p) {
    if (std::find(problems_.begin(), problems_.end(), p) == problems_.end()) problems_.push_back(p);
  }

  void noteStatic(const Binder& b, const Expr* from) {
    if (!b.type.isTile()) return;
    if (b.type.memref) static_[b.slot] = *b.type.memref;
    else if (from && from->kind == Expr::Kind::Name && static_.count(from->slot)) static_[b.slot] = static_[from->slot];
  }

  void placeRoots() {
    int64_t virtualBase = 0;
    auto visit = [&](const Block& body, auto&& self) -> void {
      for (const StmtPtr& s : body) {
        if (s->kind == Stmt::Kind::For || s->kind == Stmt::Kind::While) {
          const bool isFor = s->kind == Stmt::Kind::For;
          const auto& args = isFor ? s->as<ForStmt>().iterArgs : s->as<WhileStmt>().iterArgs;
          const auto& inits = isFor ? s->as<ForStmt>().inits : s->as<WhileStmt>().inits;
          for (size_t k = 0; k < args.size() && k < inits.size(); ++k) noteStatic(args[k], inits[k].get());
          const Block& body2 = isFor ? s->as<ForStmt>().body : s->as<WhileStmt>().body;
          self(body2, self);
          if (const YieldStmt* y = trailingYield(body2))
            for (size_t k = 0; k < y->targets.size() && k < inits.size(); ++k) noteStatic(y->targets[k], inits[k].get());
          continue;
        }
        if (s->kind == Stmt::Kind::If) {
          self(s->as<IfStmt>().thenBody, self);
          self(s->as<IfStmt>().elseBody, self);
          if (const YieldStmt* y = trailingYield(s->as<IfStmt>().thenBody))
            for (size_t k = 0; k < y->targets.size(); ++k) noteStatic(y->targets[k], y->values[k].get());
          continue;
        }
        if (s->kind == Stmt::Kind::Assign) {
          const auto& a = s->as<AssignStmt>();
          noteStatic(a.target, nullptr);
          if (a.value->kind == Expr::Kind::Call && a.value->op == Opcode::TileAlloc) {
            const Expr* addr = a.value->args.size() > 2 ? a.value->args[2].get() : nullptr;
            int space = static_cast<int>(a.value->args[0]->space);
            if (addr) roots_[a.target.name] = RootInfo{space, 0, true};
            else {
              roots_[a.target.name] = RootInfo{space, virtualBase, false};
              virtualBase += int64_t{1} << 32;
            }
          }
        }
      }
    };
    visit(kernel_.body, visit);
  }

  void runPath() {
    memory_.clear();
    env_.clear();
    block(kernel_.body);
  }

  std::optional<Value> windowOf(const Binder& b) {
    const Type& t = b.type;
    if (!t.memref) return std::nullopt;
    auto root = roots_.find(t.memref->base);
    if (root == roots_.end()) {
      report("'" + b.name + "' names unknown root " + t.memref->base);
      return std::nullopt;
    }
    Value v;
    v.space = root->second.space;
    v.name = b.name;
    v.line = b.loc.line;
    if (!t.memref->offset.isConst()) {
      v.begin = -1;  // resolved from the source
      v.end = -1;
      return v;
    }
    v.begin = root->second.base + t.memref->offset.value;
    v.end = v.begin + t.memref->size;
    return v;
  }

  void checkRead(const Expr* e, uint32_t line) {
    if (!e || e->kind != Expr::Kind::Name) return;
    auto it = env_.find(e->slot);
    if (it == env_.end()) return;
    const Value& v = it->second;
    for (const Segment& want : v.expects)
      for (const Segment& have : memory_[v.space].read(want.begin, want.end))
        if (have.event != want.event) {
          auto owner = eventOwner_.find(have.event);
          report("'" + v.name + "' (line " + std::to_string(v.line) + ") read at line " + std::to_string(line) +
                 " was overwritten by " + (owner == eventOwner_.end() ? std::string("?") : owner->second));
          return;
        }
  }

  /// Every Tile operand is read except a row reduction's tmp_tile, which is only written (semantics.md §5).
  void readAll(const Expr& call, uint32_t line) {
    const Expr* scratch = opInfo(call.op).family == OpFamily::RowReduce ? call.arg("tmp_tile") : nullptr;
    for (const ExprPtr& a : call.args)
      if (a && a.get() != scratch && a->kind == Expr::Kind::Name && a->type.isTile()) checkRead(a.get(), line);
  }

  Value written(Value v, const std::string& by) {
    int event = nextEvent_++;
    eventOwner_[event] = by;
    memory_[v.space].write(v.begin, v.end, event);
    v.expects = {Segment{v.begin, v.end, event}};
    return v;
  }

  /// A view `b` of `source` (slot `sourceSlot`): the source's window at run time, moved by the
  /// view's static offset relative to the source's static offset.
  Value viewOf(const Binder& b, int sourceSlot, const Value& source) {
    Value window;
    window.space = source.space;
    window.name = b.name;
    window.line = b.loc.line;
    auto own = static_.find(b.slot);
    auto src = static_.find(sourceSlot);
    if (own == static_.end() || src == static_.end() || !own->second.offset.isConst() || !src->second.offset.isConst()) {
      window.begin = source.begin;  // a runtime window: anywhere in its source
      window.end = source.end;
    } else {
      window.begin = source.begin + own->second.offset.value - src->second.offset.value;
      window.end = window.begin + own->second.size;
    }
    if (window.begin < source.begin || window.end > source.end)
      report("view '" + window.name + "' [" + std::to_string(window.begin) + ", " + std::to_string(window.end) +
             ") leaves its source '" + source.name + "'");
    for (const Segment& s : source.expects) {
      int64_t lo = std::max(s.begin, window.begin), hi = std::min(s.end, window.end);
      if (lo < hi) window.expects.push_back(Segment{lo, hi, s.event});
    }
    return window;
  }

  void assign(const AssignStmt& a) {
    const Expr& value = *a.value;
    const uint32_t line = a.loc.line;
    if (!a.target.type.isTile()) {
      if (value.kind == Expr::Kind::Call && opInfo(value.op).stage == OpStage::Tile) readAll(value, line);
      return;
    }
    if (value.kind == Expr::Kind::Name) {
      env_[a.target.slot] = viewOf(a.target, value.slot, env_[value.slot]);
      return;
    }
    const OpInfo& info = opInfo(value.op);
    if (info.effects.isView) {
      env_[a.target.slot] = viewOf(a.target, value.args[0]->slot, env_[value.args[0]->slot]);
      return;
    }
    std::optional<Value> window = windowOf(a.target);
    if (!window) {
      report("'" + a.target.name + "' has no storage");
      return;
    }
    readAll(value, line);
    if (info.family == OpFamily::RowReduce) {
      // The tmp's storage is written too (PT6), but the tmp value is immutable: it keeps expecting
      // the bytes it held, so a later read of it is a clobber.
      const Expr* tmp = value.arg("tmp_tile");
      written(env_[tmp->slot], "the scratch write of line " + std::to_string(line));
    }
    if (window->begin < 0) {
      report("'" + a.target.name + "' writes at a runtime offset");
      return;
    }
    env_[a.target.slot] = written(*window, "'" + a.target.name + "' (line " + std::to_string(line) + ")");
  }

  std::vector<Value> bound(const std::vector<ExprPtr>& values) {
    std::vector<Value> out;
    for (const ExprPtr& e : values)
      out.push_back(e->kind == Expr::Kind::Name && env_.count(e->slot) ? env_[e->slot] : Value{});
    return out;
  }

  void bind(const std::vector<Binder>& binders, const std::vector<Value>& values) {
    for (size_t i = 0; i < binders.size() && i < values.size(); ++i)
      if (binders[i].type.isTile()) env_[binders[i].slot] = values[i];
  }

  int trips(const ForStmt& f) {
    if (f.start->kind == Expr::Kind::IntLit && f.stop->kind == Expr::Kind::IntLit && f.step->kind == Expr::Kind::IntLit &&
        f.step->intValue > 0)
      return static_cast<int>(std::max<int64_t>(0, (f.stop->intValue - f.start->intValue + f.step->intValue - 1) /
                                                        f.step->intValue));
    return choose(4);
  }

  /// Runs a loop body `n` times (n < 0: decide before every trip); returns the final carries.
  std::vector<Value> loop(const std::vector<Binder>& iterArgs, std::vector<Value> carries, const Block& body, int n) {
    for (int trip = 0; n < 0 ? (trip < 3 && choose(2) == 1) : trip < n; ++trip) {
      bind(iterArgs, carries);
      block(body);
      if (const YieldStmt* y = trailingYield(body)) carries = bound(y->values);
    }
    return carries;
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: assign(s.as<AssignStmt>()); return;
      case Stmt::Kind::Eval: {
        const Expr& e = *s.as<EvalStmt>().expr;
        if (e.kind == Expr::Kind::Call) readAll(e, s.loc.line);
        return;
      }
      case Stmt::Kind::Return:
      case Stmt::Kind::Yield: return;
      case Stmt::Kind::For: {
        const auto& f = s.as<ForStmt>();
        std::vector<Value> out = loop(f.iterArgs, bound(f.inits), f.body, trips(f));
        if (const YieldStmt* y = trailingYield(f.body)) bind(y->targets, out);
        return;
      }
      case Stmt::Kind::While: {
        const auto& w = s.as<WhileStmt>();
        std::vector<Value> out = loop(w.iterArgs, bound(w.inits), w.body, -1);
        if (const YieldStmt* y = trailingYield(w.body)) bind(y->targets, out);
        return;
      }
      case Stmt::Kind::If: {
        const auto& i = s.as<IfStmt>();
        const Block& arm = choose(2) == 0 ? i.thenBody : i.elseBody;
        block(arm);
        const YieldStmt* y = trailingYield(arm);
        const YieldStmt* names = trailingYield(i.thenBody);
        if (y && names) bind(names->targets, bound(y->values));
        return;
      }
    }
  }

  void block(const Block& body) {
    for (const StmtPtr& s : body) statement(*s);
  }
};

}  // namespace ptodiff::oracle_test
