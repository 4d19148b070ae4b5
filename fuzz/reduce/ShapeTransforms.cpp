#include "fuzz/reduce/ShapeTransforms.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <utility>

#include "compiler/ir/TypeText.h"
#include "fuzz/reduce/CaseInputs.h"
#include "fuzz/reduce/IRWalk.h"

namespace ptodiff::fuzz {
namespace {

constexpr int64_t kAlignBytes = 32;  // S6 Vec rows, P14 MemRef offsets, W16 window bases
constexpr int64_t kBoxRows = 16;     // M3: fractal boxes are 16 rows high

int64_t ceilDiv(int64_t v, int64_t d) { return (v + d - 1) / d; }

bool shaped(const Type& t) { return (t.isTensor() || t.isTile() || t.isBuffer()) && t.shape.size() == 2; }

/// The alignment rules a tile or buffer type obeys: 32-byte rows for ND Vec (S6), whole fractal
/// boxes for boxed layouts (M3). Tensors have none of their own.
bool alignedShape(const Type& t) {
  if (!(t.isTile() || t.isBuffer()) || t.shape.size() != 2) return true;
  const int64_t rowBytes = t.cols() * dtypeSize(t.dtype);
  if (t.layout.boxed()) return t.rows() % kBoxRows == 0 && rowBytes % kAlignBytes == 0;
  return t.space != MemSpace::Vec || rowBytes % kAlignBytes == 0;
}

/// A per-axis divisor (1 = axis unchanged). Bytes scale by the product.
struct Scale {
  std::array<int64_t, 2> div{1, 1};
  int64_t bytes() const { return div[0] * div[1]; }
};

/// Divides a dimension: exact, except that an extent of 1 stays 1 (a row_sum's [R, 1] result
/// keeps its shape when its source's columns halve).
bool scaleDim(int64_t& v, int64_t d) {
  if (d == 1 || v == 1) return true;
  if (v % d != 0) return false;
  v /= d;
  return true;
}

/// A byte quantity (MemRef offset or size, alloc size or address) divided exactly; one that was a
/// multiple of 32 must stay one (P14).
bool scaleBytes(int64_t& v, int64_t d) {
  if (d == 1) return true;
  if (v % d != 0) return false;
  const bool wasAligned = v % kAlignBytes == 0;
  v /= d;
  return !wasAligned || v % kAlignBytes == 0;
}

bool scaleType(Type& t, const Scale& s) {
  if (!shaped(t)) return true;
  const bool wasAligned = alignedShape(t);
  for (int a = 0; a < 2; ++a)
    if (!scaleDim(t.shape[static_cast<size_t>(a)], s.div[static_cast<size_t>(a)])) return false;
  if (t.valid)
    for (int a = 0; a < 2; ++a) {
      Extent& x = (*t.valid)[static_cast<size_t>(a)];
      if (x.isConst() && x.value > 0) x.value = ceilDiv(x.value, s.div[static_cast<size_t>(a)]);
    }
  if (t.memref) {
    if (t.memref->offset.isConst() && !scaleBytes(t.memref->offset.value, s.bytes())) return false;
    if (!scaleBytes(t.memref->size, s.bytes())) return false;
  }
  return !wasAligned || alignedShape(t);
}

enum class Round : uint8_t { Exact, Up };

/// Divides the integer literals of a linear index expression by `d`: a literal, the literal factor
/// of a product, both sides of a sum or difference. Names are runtime values and stay (the run
/// then decides). `align` (elements): an offset literal that was a multiple of it must stay one.
bool scaleIndex(Expr& e, int64_t d, Round round, int64_t align) {
  if (d == 1) return true;
  switch (e.kind) {
    case Expr::Kind::IntLit: {
      const int64_t v = e.intValue;
      if (round == Round::Up) {
        if (v > 0) e.intValue = ceilDiv(v, d);
        return true;
      }
      if (v % d != 0) return false;
      e.intValue = v / d;
      return align <= 1 || v % align != 0 || e.intValue % align == 0;
    }
    case Expr::Kind::Binary:
      if (e.binop == BinOp::Add || e.binop == BinOp::Sub)
        return scaleIndex(*e.args[0], d, round, align) && scaleIndex(*e.args[1], d, round, align);
      if (e.binop == BinOp::Mul) {
        if (e.args[1]->kind == Expr::Kind::IntLit) return scaleIndex(*e.args[1], d, round, align);
        if (e.args[0]->kind == Expr::Kind::IntLit) return scaleIndex(*e.args[0], d, round, align);
      }
      return round == Round::Up;
    default: return true;
  }
}

/// Alignment (elements) of window offsets into a tile or buffer of type `t`, per axis.
std::array<int64_t, 2> windowAlign(const Type& t) {
  if (!(t.isTile() || t.isBuffer())) return {1, 1};
  const int64_t colAlign = std::max<int64_t>(1, kAlignBytes / dtypeSize(t.dtype));
  if (t.layout.boxed()) return {kBoxRows, colAlign};
  return {1, t.space == MemSpace::Vec ? colAlign : 1};
}

bool scalePair(ExprPtr& list, const Scale& s, Round round, std::array<int64_t, 2> align = {1, 1}) {
  if (!list || list->kind != Expr::Kind::List) return true;
  for (size_t a = 0; a < list->args.size() && a < 2; ++a)
    if (!scaleIndex(*list->args[a], s.div[a], round, align[a])) return false;
  return true;
}

bool scaleShapeList(ExprPtr& list, const Scale& s) {
  if (!list || list->kind != Expr::Kind::List) return true;
  for (size_t a = 0; a < list->args.size() && a < 2; ++a) {
    Expr& e = *list->args[a];
    if (e.kind == Expr::Kind::IntLit && !scaleDim(e.intValue, s.div[a])) return false;
  }
  return true;
}

bool scaleByteArg(ExprPtr& e, const Scale& s) {
  return !e || e->kind != Expr::Kind::IntLit || scaleBytes(e->intValue, s.bytes());
}

/// Scales the shape, offset, valid-extent and byte arguments of one call.
bool scaleCall(Expr& call, const Scale& s) {
  auto& a = call.args;
  const auto alignOf = [&](size_t i) { return a[i] ? windowAlign(a[i]->type) : std::array<int64_t, 2>{1, 1}; };
  switch (opInfo(call.op).family) {
    case OpFamily::Load:
      return scalePair(a[1], s, Round::Exact) && scaleShapeList(a[2], s) && scalePair(a[3], s, Round::Up);
    case OpFamily::Store: return scalePair(a[1], s, Round::Exact);
    case OpFamily::Full:
    case OpFamily::Create: return scaleShapeList(a[0], s);
    case OpFamily::Slice:
      return scaleShapeList(a[1], s) && scalePair(a[2], s, Round::Exact, alignOf(0)) && scalePair(a[3], s, Round::Up);
    case OpFamily::Assemble: return scalePair(a[2], s, Round::Exact, alignOf(0));
    case OpFamily::Reshape: return scaleShapeList(a[1], s);
    case OpFamily::SetValidShape:
      return scaleIndex(*a[1], s.div[0], Round::Up, 1) && scaleIndex(*a[2], s.div[1], Round::Up, 1);
    case OpFamily::Extract: {
      const auto align = alignOf(0);
      return scaleIndex(*a[1], s.div[0], Round::Exact, align[0]) &&
             scaleIndex(*a[2], s.div[1], Round::Exact, align[1]) && scaleShapeList(a[3], s);
    }
    case OpFamily::StorageRoot: return scaleByteArg(a[1], s) && scaleByteArg(a[2], s);
    case OpFamily::BufAlloc: return scalePair(a[0], s, Round::Up) && scaleByteArg(a[1], s);
    case OpFamily::BufSubview: return scalePair(a[1], s, Round::Exact, alignOf(0)) && scalePair(a[2], s, Round::Up);
    case OpFamily::BufSetValidShape: return scalePair(a[1], s, Round::Up);
    case OpFamily::BufLoad:
    case OpFamily::BufStore: return scalePair(a[1], s, Round::Exact) && scalePair(a[2], s, Round::Up);
    case OpFamily::BufExtract: {
      const auto align = alignOf(0);
      return scaleIndex(*a[1], s.div[0], Round::Exact, align[0]) && scaleIndex(*a[2], s.div[1], Round::Exact, align[1]);
    }
    default: return true;
  }
}

/// `state` with every shape of the program scaled by `s`, or nullopt when some quantity does not
/// divide or an alignment rule would break.
std::optional<ReduceState> scaledProgram(const ReduceState& state, const Scale& s) {
  ReduceState next = state.clone();
  bool ok = true;
  forEachType(next.program, [&](Type& t) { ok = ok && scaleType(t, s); });
  if (!ok) return std::nullopt;
  for (ExprPtr* slot : expressionSlots(next.program))
    if ((*slot)->kind == Expr::Kind::Call && !scaleCall(**slot, s)) return std::nullopt;
  if (!cutInputs(state, next)) return std::nullopt;
  return next;
}

/// Every tensor type of shape `from` becomes shape `to` (parameters, results, annotations).
std::optional<ReduceState> retypedTensors(const ReduceState& state, const Shape& from, const Shape& to) {
  ReduceState next = state.clone();
  forEachType(next.program, [&](Type& t) {
    if (t.isTensor() && t.shape == from) t.shape = to;
  });
  if (!cutInputs(state, next)) return std::nullopt;
  return next;
}

// ---- valid extents ----

/// A written valid extent on `axis`: an integer literal argument or a constant in a type.
struct ValidSite {
  int axis;
  int64_t* value;
};

void addListSites(ExprPtr& list, std::vector<ValidSite>& out) {
  if (!list || list->kind != Expr::Kind::List) return;
  for (size_t a = 0; a < list->args.size() && a < 2; ++a)
    if (list->args[a]->kind == Expr::Kind::IntLit) out.push_back({static_cast<int>(a), &list->args[a]->intValue});
}

void addScalarSite(ExprPtr& e, int axis, std::vector<ValidSite>& out) {
  if (e && e->kind == Expr::Kind::IntLit) out.push_back({axis, &e->intValue});
}

/// Every constant valid extent written in `p`, in program order (types before calls).
std::vector<ValidSite> validSites(Program& p) {
  std::vector<ValidSite> out;
  forEachType(p, [&](Type& t) {
    if (shaped(t) && t.valid)
      for (int a = 0; a < 2; ++a)
        if ((*t.valid)[static_cast<size_t>(a)].isConst()) out.push_back({a, &(*t.valid)[static_cast<size_t>(a)].value});
  });
  for (ExprPtr* slot : expressionSlots(p)) {
    Expr& e = **slot;
    if (e.kind != Expr::Kind::Call) continue;
    switch (opInfo(e.op).family) {
      case OpFamily::Load:
      case OpFamily::Slice: addListSites(e.args[3], out); break;
      case OpFamily::SetValidShape:
        addScalarSite(e.args[1], 0, out);
        addScalarSite(e.args[2], 1, out);
        break;
      case OpFamily::BufAlloc: addListSites(e.args[0], out); break;
      case OpFamily::BufSubview: addListSites(e.args[2], out); break;
      case OpFamily::BufSetValidShape: addListSites(e.args[1], out); break;
      case OpFamily::BufLoad:
      case OpFamily::BufStore: addListSites(e.args[2], out); break;
      default: break;
    }
  }
  return out;
}

// ---- blocks ----

/// Replaces every block query of `p`: get_block_idx() by `index`, get_block_num() by `count`.
void replaceBlockQueries(Program& p, int64_t index, int64_t count) {
  for (ExprPtr* slot : expressionSlots(p)) {
    Expr& e = **slot;
    if (e.kind != Expr::Kind::Call) continue;
    if (e.op == Opcode::TileGetBlockIdx || e.op == Opcode::BufGetBlockIdx) *slot = Expr::intLit(index, e.loc);
    else if (e.op == Opcode::TileGetBlockNum || e.op == Opcode::BufGetBlockNum) *slot = Expr::intLit(count, e.loc);
  }
}

}  // namespace

void shrinkShapeCandidates(const ReduceState& state, std::vector<Candidate>& out) {
  const std::string name(transformName(Transform::ShrinkShape));
  const std::array<std::pair<Scale, const char*>, 3> scales = {
      {{Scale{{2, 2}}, "rows/2 cols/2"}, {Scale{{2, 1}}, "rows/2"}, {Scale{{1, 2}}, "cols/2"}}};
  for (const auto& [scale, text] : scales)
    if (std::optional<ReduceState> next = scaledProgram(state, scale))
      out.push_back({name + " " + text, std::move(*next)});

  std::set<Shape> seen;
  for (const Function& f : state.program.functions)
    for (const Param& p : f.params) {
      if (!p.type.isTensor() || p.type.shape.size() != 2 || !seen.insert(p.type.shape).second) continue;
      const Shape& from = p.type.shape;
      for (int axis = 0; axis < 2; ++axis) {
        if (from[static_cast<size_t>(axis)] < 2) continue;
        Shape to = from;
        to[static_cast<size_t>(axis)] /= 2;
        if (std::optional<ReduceState> next = retypedTensors(state, from, to))
          out.push_back({name + " tensors " + shapeText(from) + " -> " + shapeText(to), std::move(*next)});
      }
    }
}

void shrinkValidCandidates(const ReduceState& state, std::vector<Candidate>& out) {
  ReduceState probe = state.clone();
  std::vector<std::pair<int, int64_t>> values;  // (axis, v) in order of first appearance
  for (const ValidSite& site : validSites(probe.program)) {
    const std::pair<int, int64_t> key{site.axis, *site.value};
    if (key.second >= 2 && std::find(values.begin(), values.end(), key) == values.end()) values.push_back(key);
  }
  for (const auto& [axis, v] : values)
    for (const int64_t to : {v / 2, int64_t{1}}) {
      if (to == v / 2 && to < 1) continue;
      if (to == 1 && v / 2 == 1) continue;  // the same candidate as v/2
      ReduceState next = state.clone();
      for (const ValidSite& site : validSites(next.program))
        if (site.axis == axis && *site.value == v) *site.value = to;
      out.push_back({std::string(transformName(Transform::ShrinkValid)) + (axis == 0 ? " rows " : " cols ") +
                         std::to_string(v) + " -> " + std::to_string(to),
                     std::move(next)});
    }
}

void dropBlockCandidates(const ReduceState& state, std::vector<Candidate>& out) {
  const int64_t n = state.spec.blockNum;
  if (n < 2) return;
  const std::string name(transformName(Transform::DropBlocks));
  for (int64_t k = 0; k < n; ++k) {
    ReduceState next = state.clone();
    next.spec.blockNum = 1;
    replaceBlockQueries(next.program, k, n);
    out.push_back({name + " block " + std::to_string(k) + " of " + std::to_string(n) + " alone", std::move(next)});
  }
  ReduceState first = state.clone();
  first.spec.blockNum = 1;
  out.push_back({name + " 1 block", std::move(first)});
  if (n / 2 >= 2) {
    ReduceState half = state.clone();
    half.spec.blockNum = n / 2;
    out.push_back({name + " " + std::to_string(n / 2) + " blocks", std::move(half)});
  }
}

}  // namespace ptodiff::fuzz
