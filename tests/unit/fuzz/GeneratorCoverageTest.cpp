// Coverage of the program generator over a fixed set of seeds: every swarm feature is drawn,
// every Tile-stage op (except tile.alloc, which only planned programs have) appears, every
// control-flow form appears, nesting reaches its limit, both contract verdicts occur, and
// assembles of partially valid source windows into fully valid targets are common.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "GenTestSupport.h"

namespace ptodiff::fuzz {
namespace {

using gentest::opsUsed;
using gentest::walkProgram;
using gentest::stmtStats;

struct Coverage {
  std::map<Feature, int> features;
  std::map<Opcode, int> ops;
  std::set<Stmt::Kind> kinds;
  int maxNesting = 0;
  int inContract = 0, outOfContract = 0, multiBlock = 0;
  int withAssemble = 0, partialWindowAssembled = 0;  // programs with the assemble feature, and the shape
  int viewYields = 0;   // programs whose If arms yield a window or a relabel
  int viewCarries = 0;  // programs whose loops carry a window or a relabel
  // Programs with col-major (DN) Vec tiles, out of the contract (docs/lowering.md, "Col-major tiles"):
  int dnSlices = 0, dnReshapes = 0, dnAssembleTargets = 0, dnTransposedBack = 0, dnRegionValues = 0;
  int runtimeValidRegionValues = 0;  // programs where a loop carry or If result has a runtime valid extent
  int runtimeValidWindows = 0;       // programs slicing a tile whose valid extents are known at run time
  int accumulatorPhis = 0;           // programs whose If yields an Acc tile (A15, B13)
  int accumulatorPhisInLoops = 0;    // ... inside a loop carrying an Acc tile
  int nestedAccumulatorLoops = 0;    // programs with a loop carrying an Acc tile inside another
  int whileAccumulators = 0;         // programs with a While carrying an Acc tile
  int sequentialAccumulatorLoops = 0;  // programs with a K loop continuing another's result
  int twoAccumulatorLoops = 0;       // programs with a loop carrying two Acc tiles
  int complementOffsets = 0;         // programs with a window at `M - s * unit`
  int shiftedOffsets = 0;            // programs with a window at `s * unit + c`
  int sumOffsets = 0;                // programs with a window at `(s + t) * unit`
  int halvedOffsets = 0;             // programs with a window at `(s // 2) * unit`
  int matrixOperandCarries = 0;      // programs whose loops carry a Left or Right tile (M11)
  int matrixOperandPrefetches = 0;   // ... yielding back another chunk than the carry
  int matrixOperandPhis = 0;         // programs whose Ifs yield a Left or Right tile
  int matCarries = 0;                // programs whose loops carry a Mat tile (a prefetched B chunk)
  int matPhis = 0;                   // programs whose Ifs yield a Mat tile
  int inOutLoads = 0;                // programs loading back a band of an InOut tensor they stored
  int carrySetters = 0;              // programs with a set_validshape of a loop carry
  int fillLoops = 0;                 // programs filling a `create` in a loop at windows of its index
  int loadedFillLoops = 0;           // ... whose chunks are loaded from GM in the loop
  int columnFillLoops = 0;           // ... at a column offset reading a loop index
  int nestedFillLoops = 0;           // ... tiled in two nested loops
  int whileFillLoops = 0;            // ... by a While
  int scalarBeforeTileCarry = 0;     // programs with a region whose scalar slot precedes a tile slot
  int swappedScalarCarries = 0;      // programs with a loop yielding two scalar carries swapped
  int whileConditionsOnSwaps = 0;    // ... a While whose condition reads one of them
};

bool isAccTile(const Type& t) { return t.isTile() && t.space == MemSpace::Acc; }

/// The accumulator forms of verified `p`: an If whose result is an Acc tile (a phi), one inside a
/// loop carrying an Acc tile, a loop carrying an Acc tile inside another, a While carrying one, and a
/// loop continuing another's Acc result.
struct AccumulatorForms {
  bool phi = false, phiInLoop = false, nestedLoops = false, whileCarriesAcc = false, sequentialLoops = false;
  bool twoAccumulators = false;
};
AccumulatorForms accumulatorForms(const Program& p) {
  AccumulatorForms found;
  auto carriesAcc = [](const std::vector<Binder>& iterArgs) {
    return std::any_of(iterArgs.begin(), iterArgs.end(), [](const Binder& b) { return isAccTile(b.type); });
  };
  std::function<void(const Block&, bool, bool)> walk = [&](const Block& block, bool inIf, bool inAccLoop) {
    std::set<std::string> accLoopResults;  // of the loops of this block carrying an Acc tile
    for (const StmtPtr& s : block) {
      if (s->kind == Stmt::Kind::For) {
        const auto& carries = s->as<ForStmt>().iterArgs;
        found.twoAccumulators = found.twoAccumulators || std::count_if(carries.begin(), carries.end(), [](const Binder& b) {
                                                           return isAccTile(b.type);
                                                         }) >= 2;
      }
      if (s->kind == Stmt::Kind::For && carriesAcc(s->as<ForStmt>().iterArgs)) {
        for (const ExprPtr& init : s->as<ForStmt>().inits)
          found.sequentialLoops = found.sequentialLoops || accLoopResults.count(init->name) > 0;
        for (const Binder* r : resultsOf(*s)) accLoopResults.insert(r->name);
      }
      if (s->kind == Stmt::Kind::Yield && inIf)
        for (const Binder& b : s->as<YieldStmt>().targets)
          if (isAccTile(b.type)) {
            found.phi = true;
            found.phiInLoop = found.phiInLoop || inAccLoop;
          }
      if (s->kind == Stmt::Kind::If) {
        walk(s->as<IfStmt>().thenBody, true, inAccLoop);
        walk(s->as<IfStmt>().elseBody, true, inAccLoop);
      }
      if (s->kind == Stmt::Kind::For) {
        const bool acc = carriesAcc(s->as<ForStmt>().iterArgs);
        found.nestedLoops = found.nestedLoops || (acc && inAccLoop);
        walk(s->as<ForStmt>().body, false, inAccLoop || acc);
      }
      if (s->kind == Stmt::Kind::While) {
        const bool acc = carriesAcc(s->as<WhileStmt>().iterArgs);
        found.whileCarriesAcc = found.whileCarriesAcc || acc;
        walk(s->as<WhileStmt>().body, false, inAccLoop || acc);
      }
    }
  };
  for (const Function& f : p.functions) walk(f.body, false, false);
  return found;
}

bool runtimeValid(const Type& t) {
  return t.isTile() && t.valid &&
         std::any_of(t.valid->begin(), t.valid->end(), [](const Extent& e) { return !e.isConst(); });
}

/// Whether verified `p` slices a tile with a runtime valid extent.
bool slicesARuntimeValidTile(const Program& p) {
  bool found = false;
  walkProgram(
      p, [](const Stmt&) {},
      [&](const Expr& e) {
        found = found || (e.kind == Expr::Kind::Call && e.op == Opcode::TileSlice && runtimeValid(e.args[0]->type));
      });
  return found;
}

/// Runtime window offsets of verified `p` related to another offset of their scalar: a complement
/// `M - s * unit` and a shift `s * unit + c`.
struct RelatedOffsets {
  bool complement = false, shift = false;
  bool sum = false, half = false;  // a term `s + t` of two scalars, or `s // 2`
};
RelatedOffsets relatedOffsets(const Program& p) {
  RelatedOffsets found;
  walkProgram(
      p, [](const Stmt&) {},
      [&](const Expr& e) {
        if (e.kind != Expr::Kind::Call || (e.op != Opcode::TileSlice && e.op != Opcode::TileAssemble)) return;
        const Expr& offsets = *e.args[2];
        std::function<void(const Expr&)> terms = [&](const Expr& t) {
          if (t.kind != Expr::Kind::Binary) return;
          found.sum = found.sum || (t.binop == BinOp::Add && t.args[0]->kind == Expr::Kind::Name &&
                                    t.args[1]->kind == Expr::Kind::Name);
          found.half = found.half || (t.binop == BinOp::FloorDiv && t.args[0]->kind == Expr::Kind::Name);
          for (const ExprPtr& a : t.args) terms(*a);
        };
        for (const ExprPtr& o : offsets.args) {
          terms(*o);
          if (o->kind != Expr::Kind::Binary) continue;
          found.complement = found.complement || (o->binop == BinOp::Sub && o->args[0]->kind == Expr::Kind::IntLit);
          found.shift = found.shift || (o->binop == BinOp::Add && o->args[1]->kind == Expr::Kind::IntLit);
        }
      });
  return found;
}

/// Whether verified `p` sets the valid shape of a loop carry (V4-V6 on the Tile path).
bool setsACarry(const Program& p) {
  std::set<std::string> carries;
  bool found = false;
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind == Stmt::Kind::For)
          for (const Binder& b : s.as<ForStmt>().iterArgs) carries.insert(b.name);
        if (s.kind == Stmt::Kind::While)
          for (const Binder& b : s.as<WhileStmt>().iterArgs) carries.insert(b.name);
        if (s.kind != Stmt::Kind::Assign) return;
        const Expr& v = *s.as<AssignStmt>().value;
        found = found || (v.kind == Expr::Kind::Call && v.op == Opcode::TileSetValidShape &&
                          v.args[0]->kind == Expr::Kind::Name && carries.count(v.args[0]->name) != 0);
      },
      [](const Expr&) {});
  return found;
}

/// Whether an expression reads the name `n`.
bool reads(const Expr& e, const std::string& n) {
  if (e.kind == Expr::Kind::Name && e.name == n) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return a && reads(*a, n); });
}

/// The fill loops of verified `p`: loops carrying a `tile.create` (or, nested, the carry of a loop
/// carrying one) whose body assembles into the carry at an offset reading a loop index (an
/// induction variable or a While carry); `loaded` when a chunk is a GM load (or abs of one) of
/// the body, `columns` when the column offset reads a loop index (W16 proves its alignment from
/// the loop), `nested` when the assemble reads the indices of two loops, `whileLoop` when one of
/// them is a While.
struct FillLoops {
  bool any = false, loaded = false, columns = false, nested = false, whileLoop = false;
};
FillLoops fillLoops(const Program& p) {
  FillLoops found;
  std::set<std::string> carriers;           // create results and the carries started from one
  std::map<std::string, bool> indexOfWhile;  // loop indices of loops carrying a carrier
  std::map<std::string, const Expr*> defs;   // calls by result name
  walkProgram(
      p,
      [&](const Stmt& s) {
        auto carrierLoop = [&](const std::vector<Binder>& iterArgs, const std::vector<ExprPtr>& inits) {
          bool any = false;
          for (size_t j = 0; j < inits.size(); ++j)
            if (inits[j]->kind == Expr::Kind::Name && carriers.count(inits[j]->name)) {
              carriers.insert(iterArgs[j].name);
              any = true;
            }
          return any;
        };
        if (s.kind == Stmt::Kind::For) {
          const ForStmt& f = s.as<ForStmt>();
          if (carrierLoop(f.iterArgs, f.inits)) indexOfWhile[f.inductionVar.name] = false;
          return;
        }
        if (s.kind == Stmt::Kind::While) {
          const WhileStmt& w = s.as<WhileStmt>();
          if (carrierLoop(w.iterArgs, w.inits))
            for (const Binder& b : w.iterArgs)
              if (b.type.isScalar()) indexOfWhile[b.name] = true;
          return;
        }
        if (s.kind != Stmt::Kind::Assign) return;
        const AssignStmt& a = s.as<AssignStmt>();
        const Expr& v = *a.value;
        if (v.kind != Expr::Kind::Call) return;
        defs[a.target.name] = &v;
        if (v.op == Opcode::TileCreate) carriers.insert(a.target.name);
        if (v.op != Opcode::TileAssemble || v.args[0]->kind != Expr::Kind::Name || !carriers.count(v.args[0]->name))
          return;
        int indices = 0;
        bool viaWhile = false, column = false;
        const Expr& offsets = *v.args[2];
        for (const auto& [index, isWhile] : indexOfWhile)
          if (reads(offsets, index)) {
            ++indices;
            viaWhile = viaWhile || isWhile;
            column = column || (offsets.args.size() == 2 && reads(*offsets.args[1], index));
          }
        if (indices == 0) return;
        found.any = true;
        found.columns = found.columns || column;
        found.nested = found.nested || indices >= 2;
        found.whileLoop = found.whileLoop || viaWhile;
        auto defOf = [&](const Expr& e) -> const Expr* {
          auto d = e.kind == Expr::Kind::Name ? defs.find(e.name) : defs.end();
          return d == defs.end() ? nullptr : d->second;
        };
        const Expr* chunk = defOf(*v.args[1]);
        if (chunk && chunk->op == Opcode::TileAbs) chunk = defOf(*chunk->args[0]);
        found.loaded = found.loaded || (chunk && chunk->op == Opcode::TileLoad);
      },
      [](const Expr&) {});
  return found;
}

/// Whether verified `p` loads from a store's result tensor of an InOut parameter (a band it wrote).
bool loadsBackAStore(const Program& p) {
  std::set<std::string> stores;
  bool found = false;
  for (const Function& f : p.functions)
    found = found || std::any_of(f.params.begin(), f.params.end(),
                                 [](const Param& q) { return q.direction == ParamDirection::InOut; });
  if (!found) return false;
  found = false;
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind != Stmt::Kind::Assign) return;
        const auto& a = s.as<AssignStmt>();
        if (a.value->kind != Expr::Kind::Call) return;
        if (a.value->op == Opcode::TileStore) stores.insert(a.target.name);
        if (a.value->op == Opcode::TileLoad && a.value->args[0]->kind == Expr::Kind::Name)
          found = found || stores.count(a.value->args[0]->name) != 0;
      },
      [](const Expr&) {});
  return found;
}

/// Left and Right tiles crossing the regions of verified `p`: carried by a loop (and yielded back
/// as another value than the carry, a prefetch), or yielded by an If.
struct MatrixOperandCrossings {
  bool carry = false, prefetch = false, phi = false;
  bool matCarry = false;  // a loop carrying a Mat tile
  bool matPhi = false;    // an If yielding a Mat tile
};
MatrixOperandCrossings matrixOperandCrossings(const Program& p) {
  auto operand = [](const Type& t) {
    return t.isTile() && (t.space == MemSpace::Left || t.space == MemSpace::Right);
  };
  MatrixOperandCrossings found;
  auto loop = [&](const std::vector<Binder>& carries, const Block& body) {
    const YieldStmt* y =
        !body.empty() && body.back()->kind == Stmt::Kind::Yield ? &body.back()->as<YieldStmt>() : nullptr;
    for (size_t i = 0; i < carries.size(); ++i) {
      found.matCarry = found.matCarry || (carries[i].type.isTile() && carries[i].type.space == MemSpace::Mat);
      if (!operand(carries[i].type)) continue;
      found.carry = true;
      found.prefetch = found.prefetch || (y && i < y->values.size() && y->values[i]->name != carries[i].name);
    }
  };
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind == Stmt::Kind::For) loop(s.as<ForStmt>().iterArgs, s.as<ForStmt>().body);
        if (s.kind == Stmt::Kind::While) loop(s.as<WhileStmt>().iterArgs, s.as<WhileStmt>().body);
        if (s.kind == Stmt::Kind::If)
          for (const Binder* r : resultsOf(s)) {
            found.phi = found.phi || operand(r->type);
            found.matPhi = found.matPhi || (r->type.isTile() && r->type.space == MemSpace::Mat);
          }
      },
      [](const Expr&) {});
  return found;
}

/// How the regions of verified `p` order and update their scalar slots (L4, B8): a scalar carry
/// or result before a tile one, two scalar carries the loop swaps, a While condition reading one.
struct ScalarSlots {
  bool scalarBeforeTile = false, swap = false, whileConditionOnSwap = false;
};
ScalarSlots scalarSlots(const Program& p) {
  ScalarSlots found;
  auto scalarFirst = [&](const std::vector<Binder>& slots) {
    bool scalar = false;
    for (const Binder& b : slots) {
      if (b.type.isTile() && scalar) found.scalarBeforeTile = true;
      scalar = scalar || b.type.isScalar();
    }
  };
  // The carries the loop yields back swapped: slots i != j with yield[i] = carry[j], yield[j] = carry[i].
  auto swapped = [](const std::vector<Binder>& carries, const Block& body) {
    std::set<std::string> names;
    if (body.empty() || body.back()->kind != Stmt::Kind::Yield) return names;
    const auto& values = body.back()->as<YieldStmt>().values;
    for (size_t i = 0; i < carries.size() && i < values.size(); ++i)
      for (size_t j = 0; j < carries.size() && j < values.size(); ++j)
        if (i != j && carries[i].type.isScalar() && values[i]->kind == Expr::Kind::Name &&
            values[j]->kind == Expr::Kind::Name && values[i]->name == carries[j].name &&
            values[j]->name == carries[i].name)
          names.insert(carries[i].name);
    return names;
  };
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind == Stmt::Kind::Yield) scalarFirst(s.as<YieldStmt>().targets);
        if (s.kind == Stmt::Kind::For) {
          scalarFirst(s.as<ForStmt>().iterArgs);
          found.swap = found.swap || !swapped(s.as<ForStmt>().iterArgs, s.as<ForStmt>().body).empty();
        }
        if (s.kind == Stmt::Kind::While) {
          const auto& w = s.as<WhileStmt>();
          scalarFirst(w.iterArgs);
          const std::set<std::string> names = swapped(w.iterArgs, w.body);
          found.swap = found.swap || !names.empty();
          std::function<bool(const Expr&)> reads = [&](const Expr& e) {
            if (e.kind == Expr::Kind::Name) return names.count(e.name) != 0;
            return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return a && reads(*a); });
          };
          found.whileConditionOnSwap = found.whileConditionOnSwap || reads(*w.cond);
        }
      },
      [](const Expr&) {});
  return found;
}

/// Whether a loop carry or an If result of verified `p` has a valid extent known only at run time.
bool runtimeValidCrossesARegion(const Program& p) {
  auto runtime = [](const std::vector<Binder>& binders) {
    return std::any_of(binders.begin(), binders.end(), [](const Binder& b) { return runtimeValid(b.type); });
  };
  bool found = false;
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind == Stmt::Kind::For) found = found || runtime(s.as<ForStmt>().iterArgs);
        if (s.kind == Stmt::Kind::While) found = found || runtime(s.as<WhileStmt>().iterArgs);
        if (s.kind == Stmt::Kind::Yield) found = found || runtime(s.as<YieldStmt>().targets);
      },
      [](const Expr&) {});
  return found;
}

/// What a verified program does with col-major (DN) tiles of more than one column.
struct ColMajorUses {
  bool slice = false, reshape = false, assembleTarget = false, transposedBack = false;
  bool regionValue = false;  // a loop carry or an If result is a DN tile
};

ColMajorUses colMajorUses(const Program& p) {
  auto dn = [](const Type& t) {
    return t.isTile() && !t.layout.boxed() && t.layout.blayout == TileLayout::col_major && t.cols() > 1;
  };
  ColMajorUses found;
  auto regionBinders = [&](const std::vector<Binder>& binders) {
    for (const Binder& b : binders) found.regionValue = found.regionValue || dn(b.type);
  };
  walkProgram(
      p,
      [&](const Stmt& s) {
        switch (s.kind) {
          case Stmt::Kind::For: regionBinders(s.as<ForStmt>().iterArgs); return;
          case Stmt::Kind::While: regionBinders(s.as<WhileStmt>().iterArgs); return;
          case Stmt::Kind::Yield: regionBinders(s.as<YieldStmt>().targets); return;
          case Stmt::Kind::Assign: break;
          default: return;
        }
        const Expr& v = *s.as<AssignStmt>().value;
        if (v.kind != Expr::Kind::Call || v.args.empty() || !v.args[0] || !dn(v.args[0]->type)) return;
        found.slice = found.slice || v.op == Opcode::TileSlice;
        found.reshape = found.reshape || (v.op == Opcode::TileReshape && v.args[0]->type.rows() > 1);
        found.assembleTarget = found.assembleTarget || v.op == Opcode::TileAssemble;
        found.transposedBack = found.transposedBack || v.op == Opcode::TileTransposeView;
      },
      [](const Expr&) {});
  return found;
}

/// Where the regions of a program meet views (windows and relabels): each makes a region's value
/// name another storage (or pitch) per arm or per trip on the Tile path, and a copy in a selected
/// kernel.
struct ViewCrossings {
  bool ifYield = false;    // an If arm yields a view
  bool loopCarry = false;  // a For or While starts a carry from a view or yields one back
};

ViewCrossings viewCrossings(const Program& p) {
  std::set<std::string> views;
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind != Stmt::Kind::Assign) return;
        const auto& a = s.as<AssignStmt>();
        const bool call = a.value->kind == Expr::Kind::Call;
        if (call && (a.value->op == Opcode::TileSlice || a.value->op == Opcode::TileReshape ||
                     a.value->op == Opcode::TileTransposeView))
          views.insert(a.target.name);
      },
      [](const Expr&) {});
  auto namesView = [&](const std::vector<ExprPtr>& values) {
    return std::any_of(values.begin(), values.end(),
                       [&](const ExprPtr& v) { return v->kind == Expr::Kind::Name && views.count(v->name) != 0; });
  };
  auto yieldsView = [&](const Block& body) {
    return !body.empty() && body.back()->kind == Stmt::Kind::Yield && namesView(body.back()->as<YieldStmt>().values);
  };
  ViewCrossings found;
  std::function<void(const Block&)> walk = [&](const Block& block) {
    for (const StmtPtr& s : block) {
      switch (s->kind) {
        case Stmt::Kind::If: {
          const auto& i = s->as<IfStmt>();
          found.ifYield = found.ifYield || yieldsView(i.thenBody) || yieldsView(i.elseBody);
          walk(i.thenBody);
          walk(i.elseBody);
          break;
        }
        case Stmt::Kind::For: {
          const auto& f = s->as<ForStmt>();
          found.loopCarry = found.loopCarry || namesView(f.inits) || yieldsView(f.body);
          walk(f.body);
          break;
        }
        case Stmt::Kind::While: {
          const auto& w = s->as<WhileStmt>();
          found.loopCarry = found.loopCarry || namesView(w.inits) || yieldsView(w.body);
          walk(w.body);
          break;
        }
        default: break;
      }
    }
  };
  for (const Function& f : p.functions) walk(f.body);
  return found;
}

/// True when `p` (verified) assembles a tile.slice window whose static valid region is smaller
/// than its shape into a fully valid target, and the assembled result is used afterwards. The
/// whole window lands (semantics.md §2), so the source's lanes outside its valid region become
/// valid target lanes: the shape that catches a lowering copying only the source's valid region.
bool assemblesPartialWindowIntoFullTarget(const Program& p) {
  struct Bound {
    const Type* type = nullptr;
    const Expr* value = nullptr;
  };
  std::map<std::string, Bound> bound;
  std::map<std::string, int> uses;
  std::vector<const Expr*> assembles;
  walkProgram(
      p,
      [&](const Stmt& s) {
        if (s.kind != Stmt::Kind::Assign) return;
        const auto& a = s.as<AssignStmt>();
        bound[a.target.name] = {&a.target.type, a.value.get()};
        if (a.value->kind == Expr::Kind::Call && a.value->op == Opcode::TileAssemble) assembles.push_back(a.value.get());
      },
      [&](const Expr& e) {
        if (e.kind == Expr::Kind::Name) ++uses[e.name];
      });

  auto fullyValid = [](const Type& t) { return !t.valid.has_value(); };
  auto partiallyValid = [](const Type& t) {
    if (!t.valid) return false;
    const Extent r = t.validExtent(0), c = t.validExtent(1);
    return r.isConst() && c.isConst() && r.value > 0 && c.value > 0 && (r.value < t.rows() || c.value < t.cols());
  };
  for (const Expr* a : assembles) {
    const Expr* target = a->args[0].get();
    const Expr* source = a->args[1].get();
    if (target->kind != Expr::Kind::Name || source->kind != Expr::Kind::Name) continue;
    const auto t = bound.find(target->name), src = bound.find(source->name);
    if (t == bound.end() || src == bound.end()) continue;
    const bool sliced = src->second.value->kind == Expr::Kind::Call && src->second.value->op == Opcode::TileSlice;
    if (!sliced || !fullyValid(*t->second.type) || !partiallyValid(*src->second.type)) continue;
    // The result is observed: its binder is named by a later statement.
    for (const auto& [name, b] : bound)
      if (b.value == a && uses[name] > 0) return true;
  }
  return false;
}

const Coverage& coverage() {
  static const Coverage c = [] {
    Coverage cov;
    for (uint64_t i = 0; i < 2000; ++i) {
      const GeneratedCase g = generateCase(caseSeed(1, i), 100);
      for (Feature f : g.features.list()) ++cov.features[f];
      for (Opcode op : opsUsed(g.program)) ++cov.ops[op];
      const gentest::StmtStats stats = stmtStats(g.program);
      cov.kinds.insert(stats.kinds.begin(), stats.kinds.end());
      cov.maxNesting = std::max(cov.maxNesting, stats.maxNesting);
      ++(g.inContract ? cov.inContract : cov.outOfContract);
      if (g.blockNum > 1) ++cov.multiBlock;
      const ViewCrossings crossings = viewCrossings(g.program);
      if (crossings.ifYield) ++cov.viewYields;
      if (crossings.loopCarry) ++cov.viewCarries;
      Program p = g.program.clone();
      verifyOrThrow(p);
      if (g.features.has(Feature::Assemble)) {
        ++cov.withAssemble;
        if (assemblesPartialWindowIntoFullTarget(p)) ++cov.partialWindowAssembled;
      }
      const ColMajorUses dn = colMajorUses(p);
      cov.dnSlices += dn.slice;
      cov.dnReshapes += dn.reshape;
      cov.dnAssembleTargets += dn.assembleTarget;
      cov.dnTransposedBack += dn.transposedBack;
      cov.dnRegionValues += dn.regionValue;
      cov.runtimeValidRegionValues += runtimeValidCrossesARegion(p);
      cov.runtimeValidWindows += slicesARuntimeValidTile(p);
      const RelatedOffsets related = relatedOffsets(p);
      cov.complementOffsets += related.complement;
      cov.shiftedOffsets += related.shift;
      cov.sumOffsets += related.sum;
      cov.halvedOffsets += related.half;
      const MatrixOperandCrossings matrix = matrixOperandCrossings(p);
      cov.matrixOperandCarries += matrix.carry;
      cov.matrixOperandPrefetches += matrix.prefetch;
      cov.matrixOperandPhis += matrix.phi;
      cov.matCarries += matrix.matCarry;
      cov.matPhis += matrix.matPhi;
      cov.inOutLoads += loadsBackAStore(p);
      cov.carrySetters += setsACarry(p);
      const FillLoops fill = fillLoops(p);
      cov.fillLoops += fill.any;
      cov.loadedFillLoops += fill.loaded;
      cov.columnFillLoops += fill.columns;
      cov.nestedFillLoops += fill.nested;
      cov.whileFillLoops += fill.whileLoop;
      const ScalarSlots slots = scalarSlots(p);
      cov.scalarBeforeTileCarry += slots.scalarBeforeTile;
      cov.swappedScalarCarries += slots.swap;
      cov.whileConditionsOnSwaps += slots.whileConditionOnSwap;
      const AccumulatorForms acc = accumulatorForms(p);
      cov.accumulatorPhis += acc.phi;
      cov.accumulatorPhisInLoops += acc.phiInLoop;
      cov.nestedAccumulatorLoops += acc.nestedLoops;
      cov.whileAccumulators += acc.whileCarriesAcc;
      cov.sequentialAccumulatorLoops += acc.sequentialLoops;
      cov.twoAccumulatorLoops += acc.twoAccumulators;
    }
    return cov;
  }();
  return c;
}

TEST(GeneratorCoverage, EveryFeatureIsDrawn) {
  for (Feature f : allFeatures()) {
    const int n = coverage().features.count(f) ? coverage().features.at(f) : 0;
    // Each feature joins a subset with probability 1/2: about 1000 of 2000.
    EXPECT_GT(n, 800) << featureName(f);
    EXPECT_LT(n, 1200) << featureName(f);
  }
}

TEST(GeneratorCoverage, EveryTileOpAppears) {
  for (const OpInfo& info : allOps()) {
    if (info.stage != OpStage::Tile || info.code == Opcode::TileAlloc) continue;
    EXPECT_TRUE(coverage().ops.count(info.code)) << info.spelling << " never generated";
  }
  // Distribution, for the record.
  std::string line;
  for (const auto& [op, n] : coverage().ops) line += std::string(opInfo(op).spelling) + "=" + std::to_string(n) + " ";
  std::printf("[ ops      ] %s\n", line.c_str());
}

TEST(GeneratorCoverage, EveryStatementFormAndNestingAppear) {
  for (Stmt::Kind k : {Stmt::Kind::Assign, Stmt::Kind::Return, Stmt::Kind::Yield, Stmt::Kind::For, Stmt::Kind::If,
                       Stmt::Kind::While})
    EXPECT_TRUE(coverage().kinds.count(k)) << static_cast<int>(k);
  EXPECT_EQ(coverage().maxNesting, GenConfig{}.maxDepth);
}

TEST(GeneratorCoverage, BothContractVerdictsAndMultipleBlocksOccur) {
  EXPECT_GT(coverage().inContract, 500);
  EXPECT_GT(coverage().outOfContract, 300);
  EXPECT_GT(coverage().multiBlock, 500);
}

TEST(GeneratorCoverage, IfArmsYieldWindowsAndRelabels) {
  // On the Tile path such an If result names the storage of the arm that ran (C13): the case of
  // InitMemRef's per-arm planning (docs/lowering.md, in-place ops and relabels of branch results).
  // A selected kernel's arms copy into a root of the result's own (B1, B4).
  std::printf("[ if ] an arm yields a window or relabel: %d of 2000 programs\n", coverage().viewYields);
  EXPECT_GE(coverage().viewYields, 20);
}

TEST(GeneratorCoverage, LoopsCarryWindowsAndRelabels) {
  // A carry names its init's storage and each trip's yield must land there: MaterializeSemanticAliases'
  // entry copies, transfers and retargets (docs/lowering.md) must handle windows of other pitches
  // and relabels, on the Tile path and, in a selected kernel, for the Buffer path.
  std::printf("[ loop ] a carry starts from or yields a window or relabel: %d of 2000 programs\n",
              coverage().viewCarries);
  EXPECT_GE(coverage().viewCarries, 20);
}

TEST(GeneratorCoverage, TransposedVecTilesAreSlicedReshapedAssembledAndCarried) {
  // A Vec transpose_view makes a col-major (DN) tile, addressed column by column: its windows,
  // reshapes, assembles and the copies regions make of it each took a lowering decision of their
  // own (docs/lowering.md, "Col-major tiles"). Out of the contract only, so rare in the default
  // distribution (measured 9 to 86 of 2000 at seed 1); `--features` campaigns aim at them.
  const Coverage& c = coverage();
  std::printf("[ DN ] slice %d, reshape %d, assemble target %d, transposed back %d, carried or yielded %d of 2000\n",
              c.dnSlices, c.dnReshapes, c.dnAssembleTargets, c.dnTransposedBack, c.dnRegionValues);
  for (int n : {c.dnSlices, c.dnReshapes, c.dnAssembleTargets, c.dnTransposedBack, c.dnRegionValues}) EXPECT_GE(n, 5);
}

TEST(GeneratorCoverage, RuntimeValidTilesCrossRegionsAndAreSlicedOutsideTheContract) {
  // V5 keeps runtime valid extents out of regions of a kernel in the contract only; on the Tile
  // path a carry or If result may have them, and its copies must keep them.
  std::printf("[ V5 ] a carry or If result with a runtime valid extent: %d, a window of one: %d of 2000 programs\n",
              coverage().runtimeValidRegionValues, coverage().runtimeValidWindows);
  EXPECT_GE(coverage().runtimeValidRegionValues, 20);
  EXPECT_GE(coverage().runtimeValidWindows, 20);
}

TEST(GeneratorCoverage, AccumulatorPhisOccur) {
  // One arm of an If continues the accumulator in place, the other keeps it (A15, the Buffer path)
  // or, outside the contract, computes another product (B13, the Tile path).
  std::printf("[ A15 ] an If yields an Acc tile: %d of 2000 programs\n", coverage().accumulatorPhis);
  EXPECT_GE(coverage().accumulatorPhis, 20);
}

TEST(GeneratorCoverage, AccumulatorsAreCarriedThroughNestedLoopsAndPhis) {
  // K tiled twice (an outer For or While carrying the accumulator through an inner K loop) and a
  // phi inside a loop carrying the accumulator (A15 in a loop): both reach the Buffer path in the
  // contract.
  std::printf("[ A15 ] an Acc carry inside an Acc-carrying loop: %d, an Acc phi inside one: %d, a While carrying an "
              "Acc: %d of 2000 programs\n",
              coverage().nestedAccumulatorLoops, coverage().accumulatorPhisInLoops, coverage().whileAccumulators);
  EXPECT_GE(coverage().nestedAccumulatorLoops, 5);
  EXPECT_GE(coverage().accumulatorPhisInLoops, 5);
  EXPECT_GE(coverage().whileAccumulators, 5);
  // Two K loops in sequence on one accumulator (A7, L8).
  std::printf("[ A7 ] a K loop continuing another's result: %d of 2000 programs\n",
              coverage().sequentialAccumulatorLoops);
  EXPECT_GE(coverage().sequentialAccumulatorLoops, 5);
  // Two accumulators carried by one K loop, each in storage of its own (L1).
  std::printf("[ L1 ] a loop carrying two Acc tiles: %d of 2000 programs\n", coverage().twoAccumulatorLoops);
  EXPECT_GE(coverage().twoAccumulatorLoops, 5);
}

TEST(GeneratorCoverage, RuntimeOffsetsTakeRelatedForms) {
  // W6, W11, W16: equal, overlapping and aligned windows of related runtime offsets.
  std::printf("[ W16 ] a window at M - s * unit: %d, at s * unit + c: %d of 2000 programs\n",
              coverage().complementOffsets, coverage().shiftedOffsets);
  EXPECT_GE(coverage().complementOffsets, 20);
  EXPECT_GE(coverage().shiftedOffsets, 20);
  // W6, W16 through compound terms: the sum of two scalars in scope, half of one.
  std::printf("[ W16 ] a window at (s + t) * unit: %d, at (s // 2) * unit: %d of 2000 programs\n",
              coverage().sumOffsets, coverage().halvedOffsets);
  EXPECT_GE(coverage().sumOffsets, 20);
  EXPECT_GE(coverage().halvedOffsets, 20);
}

TEST(GeneratorCoverage, LeftAndRightTilesCrossRegions) {
  // M11: a loop may carry a matrix operand only in one storage alias (a prefetch extracted after
  // the last read of the current chunk, or the chunk itself); an If choosing one keeps the kernel
  // on Tile (B13, M14), where its result names the arm that ran (C13).
  const Coverage& c = coverage();
  std::printf("[ M11 ] a loop carrying a Left or Right tile: %d (a prefetch: %d), an If yielding one: %d of 2000 "
              "programs\n",
              c.matrixOperandCarries, c.matrixOperandPrefetches, c.matrixOperandPhis);
  EXPECT_GE(c.matrixOperandCarries, 20);
  EXPECT_GE(c.matrixOperandPrefetches, 10);
  EXPECT_GE(c.matrixOperandPhis, 10);
  std::printf("[ M11 ] a loop carrying a Mat tile: %d, an If yielding one: %d of 2000 programs\n", c.matCarries,
              c.matPhis);
  EXPECT_GE(c.matCarries, 10);
  EXPECT_GE(c.matPhis, 3);
}

TEST(GeneratorCoverage, LoopCarriesAreSetOutsideTheContract) {
  // A setter on a carry (shrunk at the top of the body, set back before the yield) makes the
  // carry's storage dynamic (V6, V11): the Tile path must plan it, InitMemRef and MSA must keep the
  // versions in one storage.
  std::printf("[ V4 ] a set_validshape of a loop carry: %d of 2000 programs\n", coverage().carrySetters);
  EXPECT_GE(coverage().carrySetters, 20);
}

TEST(GeneratorCoverage, CreatedTilesAreFilledInLoopsAtRuntimeWindows) {
  // W4, A21: each trip assembles its chunk in place into the carry, at a window that moves with
  // the loop index (W16 proves a column offset's alignment from the loop's start and step); every
  // path must keep the earlier trips' chunks in the one storage the loops carry.
  const Coverage& c = coverage();
  std::printf("[ W4 ] a create filled in a loop at windows of its index: %d (chunks loaded in the loop: %d, "
              "at column offsets: %d, tiled by two nested loops: %d, by a While: %d) of 2000 programs\n",
              c.fillLoops, c.loadedFillLoops, c.columnFillLoops, c.nestedFillLoops, c.whileFillLoops);
  EXPECT_GE(c.fillLoops, 50);
  EXPECT_GE(c.loadedFillLoops, 20);
  EXPECT_GE(c.columnFillLoops, 20);
  EXPECT_GE(c.nestedFillLoops, 10);
  EXPECT_GE(c.whileFillLoops, 10);
}

TEST(GeneratorCoverage, StoredBandsAreLoadedBackThroughInOutTensors) {
  // GM order: a load of a band a store wrote earlier reads the store's result, so every path must
  // keep the store before the load (and a block reads only its own rows: no race).
  std::printf("[ GM ] a load of a band stored earlier (InOut): %d of 2000 programs\n", coverage().inOutLoads);
  EXPECT_GE(coverage().inOutLoads, 50);
}

TEST(GeneratorCoverage, ScalarSlotsSitBetweenTileSlotsAndSwap) {
  // L4 and B8: the lowering drops a region's tile slots and keeps its scalar ones natively, in
  // their relative order and assigned at once; a scalar slot before a tile one moves position, and
  // a swap (and a While condition reading it) goes wrong if the carries are assigned one by one.
  const Coverage& c = coverage();
  std::printf("[ L4 ] a scalar slot before a tile slot: %d, swapped scalar carries: %d, a While condition on them: "
              "%d of 2000 programs\n",
              c.scalarBeforeTileCarry, c.swappedScalarCarries, c.whileConditionsOnSwaps);
  EXPECT_GE(c.scalarBeforeTileCarry, 20);
  EXPECT_GE(c.swappedScalarCarries, 20);
  EXPECT_GE(c.whileConditionsOnSwaps, 5);
}

TEST(GeneratorCoverage, PartiallyValidWindowsAreAssembledIntoFullTargetsAndObserved) {
  // semantics.md §2: an assemble writes its source's whole physical window. A window cut with a
  // smaller valid_shape, assembled into a fully valid target and then used, is what catches a
  // lowering that copies only the source's valid region (fault assemble-source-valid-only).
  const int n = coverage().partialWindowAssembled, of = coverage().withAssemble;
  std::printf("[ assemble ] partial-window source into a full target: %d of %d programs\n", n, of);
  EXPECT_GE(n * 100, of * 20) << n << " of " << of;  // measured 293 of 977 (30%) at seed 1
}

}  // namespace
}  // namespace ptodiff::fuzz
