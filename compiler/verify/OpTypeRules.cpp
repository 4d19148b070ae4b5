// One type rule per OpFamily (semantics.md §2 for Tile ops, text-format.md "Buffer programs" for
// Buffer ops). Tile rules compute the result type exactly; Buffer rules check operand kinds,
// spaces and dtypes and leave extents and addresses to the Buffer interpreter's runtime checks.
#include "compiler/verify/OpTypeRules.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "compiler/ir/ResourceLimits.h"
#include "compiler/verify/TypeRules.h"

namespace ptodiff::verify {

// ---- TensorRef ----

bool TensorRef::writable() const {
  if (params.empty()) return false;
  return std::all_of(params.begin(), params.end(), [](const Param* p) { return p->direction != ParamDirection::In; });
}

std::string TensorRef::describe() const {
  if (params.empty()) return "no parameter";
  auto dir = [](const Param* p) {
    switch (p->direction) {
      case ParamDirection::In: return "In";
      case ParamDirection::Out: return "Out";
      case ParamDirection::InOut: return "InOut";
    }
    return "In";
  };
  if (params.size() == 1) return std::string(dir(params[0])) + " parameter '" + params[0]->name + "'";
  std::string out = "parameters ";
  for (size_t i = 0; i < params.size(); ++i) out += (i ? ", '" : "'") + params[i]->name + "' (" + dir(params[i]) + ")";
  return out;
}

void TensorRef::merge(const TensorRef& other) {
  for (const Param* p : other.params)
    if (std::find(params.begin(), params.end(), p) == params.end()) params.push_back(p);
}

// ---- OpCall ----

const ArgSlot& OpCall::arg(std::string_view name) const {
  for (const ArgSlot& a : args)
    if (a.param == name) return a;
  throw std::logic_error("OpCall::arg: " + std::string(info.spelling) + " has no parameter " + std::string(name));
}

void OpCall::error(const ArgSlot& at, const std::string& message) const {
  report(at.expr ? at.expr->loc : call.loc, message);
}

Extent extentOfExpr(const Expr& e) {
  if (e.kind == Expr::Kind::IntLit) return Extent::constant(e.intValue);
  if (e.kind == Expr::Kind::Unary && e.unop == UnOp::Neg && e.args[0] && e.args[0]->kind == Expr::Kind::IntLit)
    return Extent::constant(-e.args[0]->intValue);
  if (e.kind == Expr::Kind::Name) return Extent::named(e.name);
  return Extent::dynamic();
}

bool opAcceptsDType(Opcode op, DType dt) {
  bool floatOnly = false;
  switch (opInfo(op).family) {
    case OpFamily::Unary:
    case OpFamily::BufUnary: floatOnly = true; break;
    default: break;
  }
  switch (op) {
    case Opcode::TileDiv:
    case Opcode::TileDivs:
    case Opcode::TileLrelu:
    case Opcode::BufDiv:
    case Opcode::BufDivs:
    case Opcode::BufLrelu: floatOnly = true; break;
    default: break;
  }
  if (floatOnly) return dt == DType::FP16 || dt == DType::FP32;
  return dt == DType::FP16 || dt == DType::FP32 || dt == DType::INT32;
}

namespace {

using Inferred = std::optional<Type>;
const std::string kTransfers = "Mat->Left, Mat->Right, Vec->Vec, Vec->Mat, Acc->Mat or Acc->Vec";

std::string dt(DType d) { return std::string(dtypeName(d)); }
std::string sp(MemSpace s) { return std::string(memSpaceName(s)); }
/// "an INT32", "an FP16", "a BF16": the article as the name is spoken.
std::string aDType(DType d) { return (dt(d)[0] == 'I' || dt(d)[0] == 'F' ? "an " : "a ") + dt(d); }

std::string kindText(const Type& t) {
  switch (t.kind) {
    case Type::Kind::None: return "no value";
    case Type::Kind::Scalar: return "a Scalar[" + dt(t.dtype) + "]";
    case Type::Kind::Tensor: return "a Tensor";
    case Type::Kind::Tile: return aSpace(t.space) + " Tile";
    case Type::Kind::Buffer: return aSpace(t.space) + " Buffer";
    case Type::Kind::Ptr: return "a Ptr";
  }
  return "?";
}

std::string kindName(Type::Kind k) {
  switch (k) {
    case Type::Kind::Tensor: return "a Tensor";
    case Type::Kind::Tile: return "a Tile";
    case Type::Kind::Buffer: return "a Buffer";
    case Type::Kind::Ptr: return "a Ptr";
    case Type::Kind::Scalar: return "a scalar";
    case Type::Kind::None: return "a value";
  }
  return "a value";
}

/// The operand in slot `i` if it has `kind`; reports and returns nullptr otherwise.
const Type* operand(const OpCall& c, size_t i, Type::Kind kind) {
  const ArgSlot& a = c.args.at(i);
  if (a.type.kind == kind) return &a.type;
  c.error(a, "operand " + std::string(a.param) + " is " + kindText(a.type) + "; expected " + kindName(kind));
  return nullptr;
}

bool requireSpace(const OpCall& c, size_t i, const Type& t, std::initializer_list<MemSpace> spaces) {
  if (std::find(spaces.begin(), spaces.end(), t.space) != spaces.end()) return true;
  std::string expected;
  size_t k = 0;
  for (MemSpace s : spaces) expected += (k++ == 0 ? "" : (k == spaces.size() ? " or " : ", ")) + sp(s);
  const char* article = *spaces.begin() == MemSpace::Acc ? "an " : "a ";
  c.error(c.args[i], "operand " + std::string(c.args[i].param) + " is in " + sp(t.space) + "; expected " + article +
                         expected + (t.isBuffer() ? " buffer" : " tile"));
  return false;
}

bool requireDType(const OpCall& c, size_t i, const Type& t) {
  if (opAcceptsDType(c.info.code, t.dtype)) return true;
  bool floatOnly = !opAcceptsDType(c.info.code, DType::INT32);
  c.error(c.args[i], "operand " + std::string(c.args[i].param) + " has dtype " + dt(t.dtype) + "; expected " +
                         (floatOnly ? "FP16 or FP32" : "FP16, FP32 or INT32"));
  return false;
}

bool requireScalar(const OpCall& c, size_t i, std::initializer_list<DType> dtypes, const std::string& expected) {
  const ArgSlot& a = c.args.at(i);
  if (!a.present()) return true;
  if (std::find(dtypes.begin(), dtypes.end(), a.type.dtype) != dtypes.end()) return true;
  c.error(a, std::string(a.param) + " has type " + dt(a.type.dtype) + "; expected " + expected);
  return false;
}

bool requireIndex(const OpCall& c, size_t i) { return requireScalar(c, i, {DType::INDEX}, "INDEX"); }
bool requireNumeric(const OpCall& c, size_t i) {
  return requireScalar(c, i, {DType::INDEX, DType::INT32, DType::INT64, DType::FP32},
                       "a numeric scalar (INDEX, INT32, INT64 or FP32)");
}

bool sameDType(const OpCall& c, size_t i, const Type& a, const Type& b) {
  if (a.dtype == b.dtype) return true;
  c.error(c.args[i], "operand dtypes differ (" + dt(a.dtype) + " vs " + dt(b.dtype) + "); expected equal dtypes");
  return false;
}

/// Checks a tile result as storage (TypeRules' tileTypeProblem) and returns it, or reports.
Inferred finishTile(const OpCall& c, Type t, PitchRule pitch) {
  t.memref.reset();
  t.canonicalizeValid();
  std::string problem = tileTypeProblem(t, pitch);
  if (problem.empty()) return t;
  c.error(problem);
  return std::nullopt;
}

std::array<Extent, 2> pairOf(const ArgSlot& a) { return {a.extents.at(0), a.extents.at(1)}; }

/// Constant offsets of a window must keep the whole window inside its source.
bool windowInside(const OpCall& c, const ArgSlot& at, const std::array<Extent, 2>& off, int64_t rows, int64_t cols,
                  const Type& src, const std::string& what, const std::string& container) {
  const int64_t ext[2] = {rows, cols};
  for (int axis = 0; axis < 2; ++axis) {
    bool outside = ext[axis] > src.shape[axis] ||
                   (off[axis].isConst() && (off[axis].value < 0 || off[axis].value + ext[axis] > src.shape[axis]));
    if (outside) {
      c.error(at, what + " at [" + extentText(off[0]) + ", " + extentText(off[1]) + "] of extent " +
                      shapeText(rows, cols) + " lies outside the " + shapeText(src.shape) + " " + container +
                      "; expected it inside on both axes");
      return false;
    }
  }
  return true;
}

/// Constant offsets into a boxed tile must fall on box boundaries (boxed tiles hold whole boxes).
bool boxAligned(const OpCall& c, const ArgSlot& at, const std::array<Extent, 2>& off, const Type& src) {
  std::optional<Box> box = fractalBox(src.layout, src.dtype);
  if (!box) return true;
  const int64_t unit[2] = {box->rows, box->cols};
  for (int axis = 0; axis < 2; ++axis)
    if (off[axis].isConst() && unit[axis] > 0 && off[axis].value % unit[axis] != 0) {
      c.error(at, "offset [" + extentText(off[0]) + ", " + extentText(off[1]) + "] is not on a " +
                      std::to_string(box->rows) + " x " + std::to_string(box->cols) + " box boundary of the " +
                      sp(src.space) + " " + dt(src.dtype) + " tile; expected box-aligned offsets");
      return false;
    }
  return true;
}

bool transferAllowed(MemSpace from, MemSpace to) {
  using M = MemSpace;
  return (from == M::Vec && (to == M::Vec || to == M::Mat)) || (from == M::Mat && (to == M::Left || to == M::Right)) ||
         (from == M::Acc && (to == M::Mat || to == M::Vec));
}

bool requireTransfer(const OpCall& c, MemSpace from, MemSpace to) {
  if (transferAllowed(from, to)) return true;
  c.error("cannot transfer " + aSpace(from) + " tile to " + sp(to) + "; expected " + kTransfers);
  return false;
}

/// The accumulator dtype of a matmul on `operand` elements: FP32, or INT32 for INT8.
DType accumulatorOf(DType operand) { return operand == DType::INT8 ? DType::INT32 : DType::FP32; }

bool storeDTypesAgree(const OpCall& c, const Type& src, const Type& out) {
  bool ok = src.space == MemSpace::Acc
                ? (src.dtype == DType::FP32
                       ? (out.dtype == DType::FP32 || out.dtype == DType::FP16 || out.dtype == DType::BF16)
                       : out.dtype == src.dtype)
                : out.dtype == src.dtype;
  if (ok) return true;
  std::string expected = src.space == MemSpace::Acc && src.dtype == DType::FP32 ? "an FP32, FP16 or BF16 tensor"
                                                                                : aDType(src.dtype) + " tensor";
  c.error("cannot store " + aSpace(src.space) + " " + dt(src.dtype) + " source into " + aDType(out.dtype) +
          " tensor; expected " + expected);
  return false;
}

bool requireWritable(const OpCall& c, size_t i) {
  const ArgSlot& a = c.args[i];
  if (a.tensor.writable()) return true;
  c.error(a, std::string(a.param) + " refers to " + a.tensor.describe() +
                 "; expected an Out or InOut parameter (or a tensor derived from one)");
  return false;
}

// ---- Tile-stage families ----

Inferred scalarConst(OpCall& c) {
  const Expr& v = *c.args[0].expr;
  const DType target = c.args[1].dtype;
  if (!isScalarDType(target)) {
    c.error(c.args[1], "dtype " + dt(target) + " is not a scalar dtype; expected INDEX, INT32, INT64, FP32 or BOOL");
    return std::nullopt;
  }
  const Expr* lit = &v;
  bool negated = false;
  if (v.kind == Expr::Kind::Unary && v.unop == UnOp::Neg && v.args[0]) {
    lit = v.args[0].get();
    negated = true;
  }
  bool isInt = lit->kind == Expr::Kind::IntLit, isFloat = lit->kind == Expr::Kind::FloatLit,
       isBool = lit->kind == Expr::Kind::BoolLit && !negated;
  bool ok = target == DType::BOOL ? isBool : target == DType::FP32 ? (isInt || isFloat) : isInt;
  if (!ok) {
    c.error(c.args[0], "value is not a literal of " + dt(target) + "; expected " +
                           (target == DType::BOOL   ? "True or False"
                            : target == DType::FP32 ? "a number"
                                                    : "an integer literal"));
    return std::nullopt;
  }
  if (target == DType::INT32 && isInt) {
    int64_t value = negated ? -lit->intValue : lit->intValue;
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
      c.error(c.args[0], "value " + std::to_string(value) + " does not fit INT32; expected -2^31 <= value < 2^31");
      return std::nullopt;
    }
  }
  return Type::scalar(target);
}

Inferred load(OpCall& c) {
  const Type* tensor = operand(c, 0, Type::Kind::Tensor);
  if (!tensor) return std::nullopt;
  const std::vector<int64_t>& shape = c.args[2].shape;
  MemSpace space = c.args[4].present() ? c.args[4].space : MemSpace::Vec;
  if (space != MemSpace::Vec && space != MemSpace::Mat) {
    c.error(c.args[4], "target_memory " + sp(space) + " cannot be loaded from GM; expected Vec or Mat");
    return std::nullopt;
  }
  Type t = Type::tile(shape[0], shape[1], tensor->dtype, space);
  if (c.args[3].present()) t.valid = pairOf(c.args[3]);
  return finishTile(c, t, PitchRule::Check);
}

Inferred store(OpCall& c) {
  const Type* tile = operand(c, 0, Type::Kind::Tile);
  const Type* out = operand(c, 2, Type::Kind::Tensor);
  if (!tile || !out) return std::nullopt;
  if (!requireSpace(c, 0, *tile, {MemSpace::Vec, MemSpace::Acc})) return std::nullopt;
  if (!storeDTypesAgree(c, *tile, *out) || !requireWritable(c, 2)) return std::nullopt;
  c.resultTensor = c.args[2].tensor;
  return *out;
}

Inferred binary(OpCall& c) {
  const Type* lhs = operand(c, 0, Type::Kind::Tile);
  const Type* rhs = operand(c, 1, Type::Kind::Tile);
  if (!lhs || !rhs) return std::nullopt;
  if (lhs->shape != rhs->shape) {
    c.error("operand shapes differ (" + shapeText(lhs->shape) + " vs " + shapeText(rhs->shape) +
            "); expected equal physical shapes");
    return std::nullopt;
  }
  if (!sameDType(c, 1, *lhs, *rhs)) return std::nullopt;
  if (lhs->space != rhs->space) {
    c.error("operand spaces differ (" + sp(lhs->space) + " vs " + sp(rhs->space) + "); expected equal memory spaces");
    return std::nullopt;
  }
  if (!requireSpace(c, 0, *lhs, {MemSpace::Vec}) || !requireDType(c, 0, *lhs)) return std::nullopt;
  Type t = Type::tile(lhs->rows(), lhs->cols(), lhs->dtype, MemSpace::Vec);
  t.valid = lhs->valid;  // PyPTO: the lhs's valid region is the iteration domain
  return finishTile(c, t, PitchRule::Check);
}

/// unary and tile-scalar ops: the tile operand in slot 0 gives shape, dtype and valid.
Inferred elementwiseOfFirst(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src) return std::nullopt;
  if (!requireSpace(c, 0, *src, {MemSpace::Vec}) || !requireDType(c, 0, *src)) return std::nullopt;
  Type t = Type::tile(src->rows(), src->cols(), src->dtype, MemSpace::Vec);
  t.valid = src->valid;
  return finishTile(c, t, PitchRule::Check);
}

Inferred tileScalar(OpCall& c) {
  if (!requireNumeric(c, 1)) return std::nullopt;
  return elementwiseOfFirst(c);
}

Inferred full(OpCall& c) {
  if (!requireNumeric(c, 2)) return std::nullopt;
  const std::vector<int64_t>& shape = c.args[0].shape;
  return finishTile(c, Type::tile(shape[0], shape[1], c.args[1].dtype, MemSpace::Vec), PitchRule::Check);
}

Inferred create(OpCall& c) {
  const std::vector<int64_t>& shape = c.args[0].shape;
  MemSpace space = c.args[2].present() ? c.args[2].space : MemSpace::Vec;
  return finishTile(c, Type::tile(shape[0], shape[1], c.args[1].dtype, space), PitchRule::Check);
}

Inferred slice(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src) return std::nullopt;
  const std::vector<int64_t>& shape = c.args[1].shape;
  const std::array<Extent, 2> off = pairOf(c.args[2]);
  if (!windowInside(c, c.args[2], off, shape[0], shape[1], *src, "window", "source") ||
      !boxAligned(c, c.args[2], off, *src))
    return std::nullopt;
  // A col-major (DN) tile is addressed column by column with its own row count as the column
  // stride (semantics.md §3; pto-isa's subview keeps no other), so a window of fewer rows and more
  // than one column would address other elements than the ones it names.
  if (storedColumnByColumn(*src) && shape[0] != src->rows() && shape[1] > 1) {
    c.error(c.args[1], "a window of " + shapeText(shape) + " of the col-major (DN) " + shapeText(src->shape) +
                           " tile drops rows; expected a window of all " + std::to_string(src->rows()) +
                           " rows (or one column): a DN window strides its columns by its own row count");
    return std::nullopt;
  }
  std::optional<std::array<Extent, 2>> requested;
  if (c.args[3].present()) {
    requested = pairOf(c.args[3]);
    for (int axis = 0; axis < 2; ++axis) {
      const Extent& r = (*requested)[axis];
      if (r.isConst() && (r.value < 0 || r.value > shape[axis])) {
        c.error(c.args[3], "valid_shape [" + extentText((*requested)[0]) + ", " + extentText((*requested)[1]) +
                               "] lies outside the window " + shapeText(shape) + "; expected 0 <= valid <= window");
        return std::nullopt;
      }
    }
  }
  // A view: the source's layout (and pitch) carry over, so the Vec pitch rule was the parent's.
  Type t = *src;
  t.shape = Shape(shape);
  t.valid = std::array<Extent, 2>{
      windowValid(src->validExtent(0), src->rows(), off[0], shape[0], requested ? &(*requested)[0] : nullptr),
      windowValid(src->validExtent(1), src->cols(), off[1], shape[1], requested ? &(*requested)[1] : nullptr)};
  return finishTile(c, t, PitchRule::Exempt);
}

Inferred assemble(OpCall& c) {
  const Type* target = operand(c, 0, Type::Kind::Tile);
  const Type* source = operand(c, 1, Type::Kind::Tile);
  if (!target || !source) return std::nullopt;
  if (!sameDType(c, 1, *target, *source)) return std::nullopt;
  if (target->space != source->space) {
    c.error("operand spaces differ (" + sp(target->space) + " vs " + sp(source->space) +
            "); expected the source in the target's memory space");
    return std::nullopt;
  }
  const std::array<Extent, 2> off = pairOf(c.args[2]);
  if (!windowInside(c, c.args[2], off, source->rows(), source->cols(), *target, "source window", "target") ||
      !boxAligned(c, c.args[2], off, *target))
    return std::nullopt;
  ValidOrError v = assembleValid(*target, *source, off);
  if (!v.error.empty()) {
    c.error(v.error);
    return std::nullopt;
  }
  Type t = *target;
  t.valid = v.valid;
  return finishTile(c, t, PitchRule::Exempt);
}

Inferred reshape(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src) return std::nullopt;
  const int64_t rows = c.args[1].shape[0], cols = c.args[1].shape[1];
  if (rows * cols != src->rows() * src->cols()) {
    c.error("element count changes (" + shapeText(src->shape) + " has " + std::to_string(src->rows() * src->cols()) +
            ", " + shapeText(rows, cols) + " has " + std::to_string(rows * cols) +
            "); expected the same number of elements");
    return std::nullopt;
  }
  if (src->layout.boxed() && (rows != src->rows() || cols != src->cols())) {
    c.error("a boxed " + sp(src->space) + " tile cannot change shape (" + shapeText(src->shape) + " to " +
            shapeText(rows, cols) + "); expected " + shapeText(src->shape));
    return std::nullopt;
  }
  // A col-major (DN) tile holds its elements column by column and a reshape reads them row by row,
  // through a row-major copy of the tile's own shape (docs/lowering.md, "Col-major tiles"): a Vec
  // tile, whose rows must be 32-byte multiples.
  const int64_t rowBytes = src->cols() * dtypeSize(src->dtype);
  if (src->space == MemSpace::Vec && storedColumnByColumn(*src) && rowBytes % 32 != 0) {
    c.error("a reshape reads the col-major (DN) " + shapeText(src->shape) + " " + dt(src->dtype) +
            " tile through a row-major copy, whose rows of " + std::to_string(rowBytes) +
            " bytes break the Vec 32-byte row rule; expected columns filling 32-byte rows");
    return std::nullopt;
  }
  ValidOrError v = reshapeValid(*src, rows, cols);
  if (!v.error.empty()) {
    c.error(v.error);
    return std::nullopt;
  }
  Type t = src->layout.boxed() ? *src : Type::tile(rows, cols, src->dtype, src->space);
  t.valid = v.valid;
  return finishTile(c, t, PitchRule::Check);  // the reshaped tile's rows are its own (dense pitch)
}

Inferred setValidShape(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src || !requireIndex(c, 1) || !requireIndex(c, 2)) return std::nullopt;
  Type t = *src;
  t.valid = std::array<Extent, 2>{extentOfExpr(*c.args[1].expr), extentOfExpr(*c.args[2].expr)};
  return finishTile(c, t, PitchRule::Exempt);
}

Inferred move(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src || !requireTransfer(c, src->space, c.args[1].space)) return std::nullopt;
  Type t = Type::tile(src->rows(), src->cols(), src->dtype, c.args[1].space);
  t.valid = src->valid;
  return finishTile(c, t, PitchRule::Check);
}

Inferred extract(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src || !requireIndex(c, 1) || !requireIndex(c, 2)) return std::nullopt;
  MemSpace space = c.args[4].space;
  if (!requireTransfer(c, src->space, space)) return std::nullopt;
  const std::vector<int64_t>& shape = c.args[3].shape;
  const std::array<Extent, 2> off = {extentOfExpr(*c.args[1].expr), extentOfExpr(*c.args[2].expr)};
  if (!windowInside(c, c.args[1], off, shape[0], shape[1], *src, "window", "source") ||
      !boxAligned(c, c.args[1], off, *src))
    return std::nullopt;
  Type t = Type::tile(shape[0], shape[1], src->dtype, space);
  t.valid = std::array<Extent, 2>{windowValid(src->validExtent(0), src->rows(), off[0], shape[0], nullptr),
                                  windowValid(src->validExtent(1), src->cols(), off[1], shape[1], nullptr)};
  return finishTile(c, t, PitchRule::Check);
}

Inferred transposeView(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src) return std::nullopt;
  return finishTile(c, transposedType(*src), PitchRule::Exempt);
}

/// Checks matmul's Left x Right operands in slots `l` and `r`; returns the product's Acc type.
Inferred product(OpCall& c, size_t l, size_t r) {
  const Type* lhs = operand(c, l, Type::Kind::Tile);
  const Type* rhs = operand(c, r, Type::Kind::Tile);
  if (!lhs || !rhs) return std::nullopt;
  if (!requireSpace(c, l, *lhs, {MemSpace::Left}) || !requireSpace(c, r, *rhs, {MemSpace::Right})) return std::nullopt;
  if (!sameDType(c, r, *lhs, *rhs)) return std::nullopt;
  if (lhs->cols() != rhs->rows()) {
    c.error("contraction extents differ (lhs " + shapeText(lhs->shape) + ", rhs " + shapeText(rhs->shape) +
            "); expected lhs columns = rhs rows");
    return std::nullopt;
  }
  Type t = Type::tile(lhs->rows(), rhs->cols(), accumulatorOf(lhs->dtype), MemSpace::Acc);
  t.valid = std::array<Extent, 2>{lhs->validExtent(0), rhs->validExtent(1)};
  return finishTile(c, t, PitchRule::Check);
}

Inferred matmul(OpCall& c) { return product(c, 0, 1); }

Inferred matmulAcc(OpCall& c) {
  const Type* acc = operand(c, 0, Type::Kind::Tile);
  Inferred prod = product(c, 1, 2);
  if (!acc || !prod) return std::nullopt;
  if (c.args[3].present() && !requireScalar(c, 3, {DType::BOOL}, "BOOL")) return std::nullopt;
  if (!requireSpace(c, 0, *acc, {MemSpace::Acc})) return std::nullopt;
  if (acc->dtype != prod->dtype || acc->shape != prod->shape) {
    c.error(c.args[0], "accumulator is " + dt(acc->dtype) + " " + shapeText(acc->shape) + " but the product is " +
                           dt(prod->dtype) + " " + shapeText(prod->shape) + "; expected the product's dtype and shape");
    return std::nullopt;
  }
  return finishTile(c, *acc, PitchRule::Exempt);
}

/// Reductions: a Vec input with a non-empty valid region; row reductions also take a scratch tile.
const Type* reductionInput(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Tile);
  if (!src || !requireSpace(c, 0, *src, {MemSpace::Vec}) || !requireDType(c, 0, *src)) return nullptr;
  for (int axis = 0; axis < 2; ++axis)
    if (src->validExtent(axis) == Extent::constant(0)) {
      c.error(c.args[0], "input valid_shape " + validText(*src) + " is empty; expected a non-empty valid region");
      return nullptr;
    }
  return src;
}

Inferred rowReduce(OpCall& c) {
  const Type* src = reductionInput(c);
  const Type* tmp = operand(c, 1, Type::Kind::Tile);
  if (!src || !tmp) return std::nullopt;
  if (!requireSpace(c, 1, *tmp, {MemSpace::Vec}) || !sameDType(c, 1, *src, *tmp)) return std::nullopt;
  if (tmp->rows() < src->rows() || tmp->cols() < src->cols()) {
    c.error(c.args[1], "tmp_tile " + shapeText(tmp->shape) + " is smaller than the input " + shapeText(src->shape) +
                           "; expected at least the input's shape");
    return std::nullopt;
  }
  Type t = Type::tile(src->rows(), 1, src->dtype, MemSpace::Vec);
  t.valid = std::array<Extent, 2>{src->validExtent(0), Extent::constant(1)};
  return finishTile(c, t, PitchRule::Check);
}

Inferred colReduce(OpCall& c) {
  const Type* src = reductionInput(c);
  if (!src) return std::nullopt;
  Type t = Type::tile(1, src->cols(), src->dtype, MemSpace::Vec);
  t.valid = std::array<Extent, 2>{Extent::constant(1), src->validExtent(1)};
  return finishTile(c, t, PitchRule::Check);
}

Inferred blockQuery(OpCall&) { return Type::scalar(DType::INDEX); }

Inferred storageRoot(OpCall& c) {
  if (!requireIndex(c, 1) || !requireIndex(c, 2)) return std::nullopt;
  const Expr& size = *c.args[1].expr;
  if (size.kind != Expr::Kind::IntLit || size.intValue <= 0) {
    c.error(c.args[1], "size must be a positive integer literal; expected the root's capacity in bytes");
    return std::nullopt;
  }
  if (size.intValue > resourceLimits().maxStorageBytes) {
    c.error(c.args[1], "size " + std::to_string(size.intValue) + " is over the limit of " +
                           std::to_string(resourceLimits().maxStorageBytes) +
                           " bytes; expected a smaller storage root");
    return std::nullopt;
  }
  if (c.args[2].present()) {
    Extent addr = extentOfExpr(*c.args[2].expr);
    if (!addr.isConst() || addr.value < 0) {
      c.error(c.args[2], "addr must be a non-negative integer literal; expected the root's byte address");
      return std::nullopt;
    }
  }
  c.resultRootSpace = c.args[0].space;
  return Type::ptr();
}

// ---- Buffer-stage families ----

/// alloc/subview/reshape: the result type is the assignment's annotation, which must be a Buffer.
const Type* annotatedBuffer(OpCall& c) {
  if (!c.annotation || !c.annotation->has_value()) {
    c.error("result needs a pl.Buffer[...] annotation; expected NAME: pl.Buffer[[R, C], DTYPE, pl.Mem.SPACE] = ...");
    return nullptr;
  }
  const Type& t = **c.annotation;
  if (!t.isBuffer()) {
    c.error("result is annotated " + typeText(t) + "; expected a pl.Buffer type");
    return nullptr;
  }
  std::string problem = bufferTypeProblem(t);
  if (!problem.empty()) {
    c.error(problem);
    return nullptr;
  }
  return &t;
}

Inferred bufAlloc(OpCall& c) {
  if (!requireIndex(c, 1)) return std::nullopt;
  const Type* t = annotatedBuffer(c);
  if (!t) return std::nullopt;
  return *t;
}

Inferred bufSubview(OpCall& c) {
  const Type* parent = operand(c, 0, Type::Kind::Buffer);
  const Type* t = annotatedBuffer(c);
  if (!parent || !t) return std::nullopt;
  if (t->dtype != parent->dtype || t->space != parent->space) {
    c.error("result is annotated " + dt(t->dtype) + " in " + sp(t->space) + " but the parent is " + dt(parent->dtype) +
            " in " + sp(parent->space) + "; expected the parent's dtype and space");
    return std::nullopt;
  }
  const std::array<Extent, 2> off = pairOf(c.args[1]);
  if (!windowInside(c, c.args[1], off, t->rows(), t->cols(), *parent, "window", "parent")) return std::nullopt;
  // W17: a literal valid extent needs the same static annotated extent, a runtime one a dynamic (-1) extent.
  for (int axis = 0; axis < 2; ++axis) {
    Extent annotated = t->validExtent(axis);
    Extent given = c.args[2].present() ? c.args[2].extents[axis] : Extent::constant(t->shape[axis]);
    bool agree = given.isConst() ? annotated == given : annotated.kind != Extent::Kind::Const;
    if (!agree) {
      c.error(c.args[2].present() ? c.args[2] : c.args[1],
              "valid extent " + extentText(given) + " on axis " + std::to_string(axis) +
                  " disagrees with the annotation's " +
                  (annotated.kind == Extent::Kind::Dynamic ? std::string("-1") : extentText(annotated)) +
                  "; expected a literal extent to match a static one and a runtime extent a dynamic (-1) one");
      return std::nullopt;
    }
  }
  return *t;
}

Inferred bufReshape(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Buffer);
  const Type* t = annotatedBuffer(c);
  if (!src || !t) return std::nullopt;
  int64_t from = src->rows() * src->cols() * dtypeSize(src->dtype), to = t->rows() * t->cols() * dtypeSize(t->dtype);
  if (t->space != src->space || from != to) {
    c.error("result " + typeText(*t) + " does not reinterpret the " + std::to_string(from) + " bytes of " +
            typeText(*src) + "; expected the same space and byte count");
    return std::nullopt;
  }
  return *t;
}

Inferred bufSetValidShape(OpCall& c) {
  const Type* buf = operand(c, 0, Type::Kind::Buffer);
  if (!buf) return std::nullopt;
  for (int axis = 0; axis < 2; ++axis)
    if (buf->validExtent(axis).kind != Extent::Kind::Dynamic) {
      c.error(c.args[0], "the buffer's valid descriptor is static (" + validText(*buf) +
                             "); expected a dynamic one (valid_shape=[-1, -1])");
      return std::nullopt;
    }
  return Type::none();
}

Inferred bufLoad(OpCall& c) {
  const Type* tensor = operand(c, 0, Type::Kind::Tensor);
  const Type* dst = operand(c, 3, Type::Kind::Buffer);
  if (!tensor || !dst || !requireSpace(c, 3, *dst, {MemSpace::Vec, MemSpace::Mat})) return std::nullopt;
  if (tensor->dtype != dst->dtype) {
    c.error(c.args[3], "cannot load a " + dt(tensor->dtype) + " tensor into a " + dt(dst->dtype) +
                           " buffer; expected the tensor's dtype");
    return std::nullopt;
  }
  return Type::none();
}

Inferred bufStore(OpCall& c) {
  const Type* src = operand(c, 0, Type::Kind::Buffer);
  const Type* out = operand(c, 3, Type::Kind::Tensor);
  if (!src || !out || !requireSpace(c, 0, *src, {MemSpace::Vec, MemSpace::Acc})) return std::nullopt;
  if (!storeDTypesAgree(c, *src, *out) || !requireWritable(c, 3)) return std::nullopt;
  return Type::none();
}

/// copy/extract: same dtype, a supported space pair.
Inferred bufTransfer(OpCall& c, size_t srcSlot, size_t dstSlot) {
  const Type* src = operand(c, srcSlot, Type::Kind::Buffer);
  const Type* dst = operand(c, dstSlot, Type::Kind::Buffer);
  if (!src || !dst || !sameDType(c, dstSlot, *src, *dst) || !requireTransfer(c, src->space, dst->space))
    return std::nullopt;
  return Type::none();
}

Inferred bufCopy(OpCall& c) { return bufTransfer(c, 0, 1); }

Inferred bufExtract(OpCall& c) {
  if (!requireIndex(c, 1) || !requireIndex(c, 2)) return std::nullopt;
  return bufTransfer(c, 0, 3);
}

/// Elementwise Buffer ops: every Buffer operand is a Vec buffer of one accepted dtype.
Inferred bufElementwise(OpCall& c) {
  const Type* first = nullptr;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (c.info.params[i].kind != ParamKind::Value) continue;
    const Type* t = operand(c, i, Type::Kind::Buffer);
    if (!t || !requireSpace(c, i, *t, {MemSpace::Vec})) return std::nullopt;
    if (!first) {
      if (!requireDType(c, i, *t)) return std::nullopt;
      first = t;
    } else if (!sameDType(c, i, *first, *t)) {
      return std::nullopt;
    }
  }
  return Type::none();
}

Inferred bufTileScalar(OpCall& c) {
  if (!requireNumeric(c, 1)) return std::nullopt;
  return bufElementwise(c);
}

Inferred bufFull(OpCall& c) {
  const Type* dst = operand(c, 1, Type::Kind::Buffer);
  if (!requireNumeric(c, 0) || !dst || !requireSpace(c, 1, *dst, {MemSpace::Vec})) return std::nullopt;
  return Type::none();
}

Inferred bufMatmul(OpCall& c) {
  const Type* lhs = operand(c, 0, Type::Kind::Buffer);
  const Type* rhs = operand(c, 1, Type::Kind::Buffer);
  const Type* acc = operand(c, 2, Type::Kind::Buffer);
  if (!lhs || !rhs || !acc) return std::nullopt;
  if (!requireSpace(c, 0, *lhs, {MemSpace::Left}) || !requireSpace(c, 1, *rhs, {MemSpace::Right}) ||
      !requireSpace(c, 2, *acc, {MemSpace::Acc}) || !sameDType(c, 1, *lhs, *rhs))
    return std::nullopt;
  if (acc->dtype != accumulatorOf(lhs->dtype)) {
    c.error(c.args[2], "accumulator is " + dt(acc->dtype) + " for " + dt(lhs->dtype) + " operands; expected " +
                           dt(accumulatorOf(lhs->dtype)));
    return std::nullopt;
  }
  return Type::none();
}

using Rule = Inferred (*)(OpCall&);

/// The rule of each family. A switch without default: a new OpFamily that lacks a rule is a
/// compile error (-Wswitch, -Werror).
Rule ruleFor(OpFamily family) {
  switch (family) {
    case OpFamily::ScalarConst: return scalarConst;
    case OpFamily::Load: return load;
    case OpFamily::Store: return store;
    case OpFamily::Binary: return binary;
    case OpFamily::Unary: return elementwiseOfFirst;
    case OpFamily::TileScalar: return tileScalar;
    case OpFamily::Full: return full;
    case OpFamily::Create: return create;
    case OpFamily::Slice: return slice;
    case OpFamily::Assemble: return assemble;
    case OpFamily::Reshape: return reshape;
    case OpFamily::SetValidShape: return setValidShape;
    case OpFamily::Move: return move;
    case OpFamily::Extract: return extract;
    case OpFamily::TransposeView: return transposeView;
    case OpFamily::Matmul: return matmul;
    case OpFamily::MatmulAcc: return matmulAcc;
    case OpFamily::RowReduce: return rowReduce;
    case OpFamily::ColReduce: return colReduce;
    case OpFamily::BlockQuery: return blockQuery;
    case OpFamily::StorageRoot: return storageRoot;
    case OpFamily::BufAlloc: return bufAlloc;
    case OpFamily::BufSubview: return bufSubview;
    case OpFamily::BufReshape: return bufReshape;
    case OpFamily::BufSetValidShape: return bufSetValidShape;
    case OpFamily::BufLoad: return bufLoad;
    case OpFamily::BufStore: return bufStore;
    case OpFamily::BufCopy: return bufCopy;
    case OpFamily::BufExtract: return bufExtract;
    case OpFamily::BufBinary: return bufElementwise;
    case OpFamily::BufUnary: return bufElementwise;
    case OpFamily::BufTileScalar: return bufTileScalar;
    case OpFamily::BufFull: return bufFull;
    case OpFamily::BufMatmul: return bufMatmul;
  }
  throw std::logic_error("ruleFor: unknown op family");
}

}  // namespace

std::optional<Type> inferOpType(OpCall& call) { return ruleFor(call.info.family)(call); }

}  // namespace ptodiff::verify
