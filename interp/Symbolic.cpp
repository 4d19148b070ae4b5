#include "interp/Symbolic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>

namespace ptodiff {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

std::string_view binarySymbol(arith::BinaryKind k) {
  switch (k) {
    case arith::BinaryKind::Add: return " + ";
    case arith::BinaryKind::Sub: return " - ";
    case arith::BinaryKind::Mul: return " * ";
    case arith::BinaryKind::Div: return " / ";
    default: return {};  // printed as a call
  }
}

std::string_view reduceName(arith::ReduceKind k) {
  switch (k) {
    case arith::ReduceKind::Sum: return "sum";
    case arith::ReduceKind::Max: return "max";
    case arith::ReduceKind::Min: return "min";
  }
  return "?";
}

std::string lowerName(std::string_view name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string constantText(DType dt, uint64_t bits) {
  const double v = arith::elementToDouble(dt, bits);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

ExprPool::ExprPool() {
  nodes_.push_back(Node{});  // kPoison
  dtypes_.push_back(Node{}.dtype);
  slots_.resize(1024);
}

void ExprPool::clear() {
  // A pool that once held a huge case gives its memory back rather than keeping it for small ones.
  constexpr size_t kKeptNodes = size_t{1} << 20;
  if (nodes_.capacity() > kKeptNodes) {
    *this = ExprPool();
    return;
  }
  nodes_.resize(1);
  dtypes_.resize(1);
  operands_.clear();
  std::fill(slots_.begin(), slots_.end(), Slot{});
  tensorNames_.clear();
  inputTensors_.clear();
  inputBlocks_.clear();
  inputsInterned_.clear();
  products_.clear();
  elementwise_.clear();
  interned_ = 1;
}

bool ExprPool::same(const Node& n, Kind kind, DType dt, uint8_t op, uint64_t payload,
                    std::span<const uint32_t> operands) const {
  return n.kind == kind && n.dtype == dt && n.op == op && n.payload == payload && n.count == operands.size() &&
         std::equal(operands.begin(), operands.end(), operands_.begin() + n.first);
}

void ExprPool::grow() {
  std::vector<Slot> slots(slots_.size() * 2);
  const size_t mask = slots.size() - 1;
  for (const Slot& old : slots_) {
    if (old.id == 0) continue;
    size_t i = nodes_[old.id - 1].hash & mask;
    while (slots[i].id != 0) i = (i + 1) & mask;
    slots[i] = old;
  }
  slots_ = std::move(slots);
}

ExprId ExprPool::intern(Kind kind, DType dt, uint8_t op, uint64_t payload, std::span<const uint32_t> operands) {
  uint64_t h = mix(mix(mix(static_cast<uint64_t>(kind), static_cast<uint64_t>(dt)), op), payload);
  for (uint32_t o : operands) h = mix(h, o);
  const size_t mask = slots_.size() - 1;
  size_t slot = h & mask;
  for (; slots_[slot].id != 0; slot = (slot + 1) & mask) {
    if (slots_[slot].hash != static_cast<uint32_t>(h)) continue;
    const ExprId id = slots_[slot].id - 1;
    if (same(nodes_[id], kind, dt, op, payload, operands)) return id;
  }
  if (nodes_.size() >= 0xFFFFFFF0u || operands_.size() + operands.size() >= 0xFFFFFFF0u)
    throw std::length_error("ExprPool: more than 2^32 formulas or operands in one symbolic run");
  const auto id = static_cast<ExprId>(nodes_.size());
  Node n;
  n.kind = kind;
  n.dtype = dt;
  n.op = op;
  n.first = static_cast<uint32_t>(operands_.size());
  n.count = static_cast<uint32_t>(operands.size());
  n.payload = payload;
  n.hash = h;
  operands_.insert(operands_.end(), operands.begin(), operands.end());
  nodes_.push_back(n);
  dtypes_.push_back(dt);
  slots_[slot] = Slot{static_cast<uint32_t>(h), id + 1};
  if (++interned_ * 2 > slots_.size()) grow();
  return id;
}

uint64_t ExprPool::tensorIndex(std::string_view tensor) {
  auto it = std::find(tensorNames_.begin(), tensorNames_.end(), tensor);
  if (it == tensorNames_.end()) it = tensorNames_.insert(tensorNames_.end(), std::string(tensor));
  return static_cast<uint64_t>(it - tensorNames_.begin());
}

namespace {
uint64_t inputPayload(uint64_t name, int64_t row, int64_t col) {
  if (name >= (1u << 16) || row < 0 || col < 0 || row >= (1 << 24) || col >= (1 << 24))
    throw std::length_error("ExprPool: a symbolic input beyond 2^16 tensors or 2^24 rows or columns");
  return (name << 48) | (static_cast<uint64_t>(row) << 24) | static_cast<uint64_t>(col);
}
}  // namespace

ExprId ExprPool::input(std::string_view tensor, DType dt, int64_t row, int64_t col) {
  const uint64_t name = tensorIndex(tensor);
  const uint64_t payload = inputPayload(name, row, col);
  for (const InputBlock& b : inputBlocks_)
    if (b.name == name && b.dtype == dt && row < b.rows && col < b.cols)
      return b.first + static_cast<ExprId>(row * b.cols + col);
  if (std::find(inputsInterned_.begin(), inputsInterned_.end(), std::pair(name, dt)) == inputsInterned_.end())
    inputsInterned_.emplace_back(name, dt);
  return intern(Kind::Input, dt, 0, payload, {});
}

const std::vector<ExprId>& ExprPool::inputs(std::string_view tensor, DType dt, int64_t rows, int64_t cols) {
  for (const InputTensor& t : inputTensors_)
    if (t.name == tensor && t.dtype == dt && t.rows == rows && t.cols == cols) return t.ids;
  const uint64_t name = tensorIndex(tensor);
  const bool fresh =
      std::none_of(inputBlocks_.begin(), inputBlocks_.end(),
                   [&](const InputBlock& b) { return b.name == name && b.dtype == dt; }) &&
      std::find(inputsInterned_.begin(), inputsInterned_.end(), std::pair(name, dt)) == inputsInterned_.end();
  std::vector<ExprId> ids(static_cast<size_t>(rows * cols));
  if (fresh && rows > 0 && cols > 0) {
    inputPayload(name, rows - 1, cols - 1);  // the bounds check
    if (nodes_.size() + ids.size() >= 0xFFFFFFF0u)
      throw std::length_error("ExprPool: more than 2^32 formulas or operands in one symbolic run");
    const auto first = static_cast<ExprId>(nodes_.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        Node n;
        n.kind = Kind::Input;
        n.dtype = dt;
        n.first = static_cast<uint32_t>(operands_.size());
        n.payload = inputPayload(name, r, c);
        nodes_.push_back(n);
        dtypes_.push_back(dt);
        ids[static_cast<size_t>(r * cols + c)] = first + static_cast<ExprId>(r * cols + c);
      }
    inputBlocks_.push_back(InputBlock{name, dt, rows, cols, first});
  } else {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) ids[static_cast<size_t>(r * cols + c)] = input(tensor, dt, r, c);
  }
  inputTensors_.push_back(InputTensor{std::string(tensor), dt, rows, cols, std::move(ids)});
  return inputTensors_.back().ids;
}

ExprId ExprPool::constant(DType dt, uint64_t bits) { return intern(Kind::Const, dt, 0, bits, {}); }

ExprId ExprPool::binary(arith::BinaryKind k, DType dt, ExprId lhs, ExprId rhs) {
  if (lhs == kPoison || rhs == kPoison) return kPoison;
  const uint32_t ops[2] = {lhs, rhs};
  return intern(Kind::Binary, dt, static_cast<uint8_t>(k), 0, ops);
}

ExprId ExprPool::unary(arith::UnaryKind k, DType dt, ExprId src) {
  if (src == kPoison) return kPoison;
  const uint32_t ops[1] = {src};
  return intern(Kind::Unary, dt, static_cast<uint8_t>(k), 0, ops);
}

ExprId ExprPool::convert(DType to, ExprId src) {
  if (src == kPoison || dtypeOf(src) == to) return src;
  const uint32_t ops[1] = {src};
  return intern(Kind::Convert, to, 0, 0, ops);
}

ExprId ExprPool::vector(std::span<const ExprId> elements) {
  if (std::find(elements.begin(), elements.end(), kPoison) != elements.end()) return kPoison;
  return intern(Kind::Vector, DType::FP32, 0, 0, elements);
}

ExprId ExprPool::dot(DType acc, ExprId lhsRow, ExprId rhsColumn) {
  if (lhsRow == kPoison || rhsColumn == kPoison) return kPoison;
  const uint32_t ops[2] = {lhsRow, rhsColumn};
  return intern(Kind::Dot, acc, 0, 0, ops);
}

ExprId ExprPool::reduce(arith::ReduceKind k, DType dt, std::span<const ExprId> operands) {
  if (std::find(operands.begin(), operands.end(), kPoison) != operands.end()) return kPoison;
  if (operands.size() == 1) return operands[0];  // a fold of one element is that element
  return intern(Kind::Reduce, dt, static_cast<uint8_t>(k), 0, operands);
}

ExprId ExprPool::fromReinterpretedBytes(DType dt, std::span<const ByteTag> tags) {
  // A byte written as part of a reinterpretation is the byte it was read from: a UINT8 view of an
  // FP32 tile written back and read as FP32 gives the FP32 formula again.
  scratch_.clear();
  for (ByteTag t : tags) {
    if (tagExpr(t) == kPoison) return kPoison;
    const Node& n = nodes_[tagExpr(t)];
    const auto byte = static_cast<uint32_t>(tagByte(t));
    const bool fromReinterpretation = n.kind == Kind::Reinterpret && byte * 2 + 1 < n.count;
    scratch_.push_back(fromReinterpretation ? byteTag(operands_[n.first + byte * 2],
                                                      static_cast<int>(operands_[n.first + byte * 2 + 1]))
                                            : t);
  }
  if (const std::optional<ExprId> e = wholeElement(dt, scratch_)) return *e;
  std::vector<uint32_t> operands;  // (expr, byte) per byte
  operands.reserve(2 * scratch_.size());
  for (ByteTag t : scratch_) {
    operands.push_back(tagExpr(t));
    operands.push_back(static_cast<uint32_t>(tagByte(t)));
  }
  return intern(Kind::Reinterpret, dt, 0, 0, operands);
}

std::string ExprPool::text(ExprId e, size_t maxChars) const {
  std::string out;
  print(e, /*top=*/true, out, maxChars);
  if (out.size() > maxChars) out = out.substr(0, maxChars) + "...";
  return out;
}

void ExprPool::print(ExprId e, bool top, std::string& out, size_t maxChars) const {
  if (out.size() > maxChars) return;
  const Node& n = nodes_[e];
  const auto operand = [&](uint32_t i) { return operands_[n.first + i]; };
  const auto list = [&](std::string_view name, uint32_t from, auto each) {
    out += name;
    out += '(';
    for (uint32_t i = from; i < n.count && out.size() <= maxChars; ++i) {
      if (i > from) out += ", ";
      each(i);
    }
    out += ')';
  };
  switch (n.kind) {
    case Kind::Poison: out += "poison"; return;
    case Kind::Input: {
      const uint64_t p = n.payload;
      out += tensorNames_[p >> 48] + "[" + std::to_string((p >> 24) & 0xFFFFFF) + ", " + std::to_string(p & 0xFFFFFF) +
             "]";
      return;
    }
    case Kind::Const: out += constantText(n.dtype, n.payload); return;
    case Kind::Binary: {
      const auto k = static_cast<arith::BinaryKind>(n.op);
      const std::string_view infix = binarySymbol(k);
      if (infix.empty()) {
        list(arith::binaryKindName(k), 0, [&](uint32_t i) { print(operand(i), true, out, maxChars); });
        return;
      }
      if (!top) out += '(';
      print(operand(0), false, out, maxChars);
      out += infix;
      print(operand(1), false, out, maxChars);
      if (!top) out += ')';
      return;
    }
    case Kind::Unary:
      list(arith::unaryKindName(static_cast<arith::UnaryKind>(n.op)), 0,
           [&](uint32_t i) { print(operand(i), true, out, maxChars); });
      return;
    case Kind::Convert:
      list(lowerName(dtypeName(n.dtype)), 0, [&](uint32_t i) { print(operand(i), true, out, maxChars); });
      return;
    case Kind::Dot: {
      const Node &lhs = nodes_[operand(0)], &rhs = nodes_[operand(1)];
      out += "dot(";
      for (uint32_t k = 0; k < lhs.count && k < rhs.count && out.size() <= maxChars; ++k) {
        if (k > 0) out += ", ";
        print(operands_[lhs.first + k], false, out, maxChars);
        out += '*';
        print(operands_[rhs.first + k], false, out, maxChars);
      }
      out += ')';
      return;
    }
    case Kind::Vector:
      list("", 0, [&](uint32_t i) { print(operand(i), true, out, maxChars); });
      return;
    case Kind::Reduce:
      list(reduceName(static_cast<arith::ReduceKind>(n.op)), 0, [&](uint32_t i) { print(operand(i), true, out, maxChars); });
      return;
    case Kind::Reinterpret:
      out += "as_" + lowerName(dtypeName(n.dtype)) + "(";
      for (uint32_t i = 0; i + 1 < n.count && out.size() <= maxChars; i += 2) {
        if (i > 0) out += ", ";
        print(operand(i), false, out, maxChars);
        out += ".byte" + std::to_string(operand(i + 1));
      }
      out += ')';
      return;
  }
}

namespace symbolic {

namespace {

ExprId symAt(const arith::ConstElems& e, int64_t r, int64_t c) { return e.sym[r * e.rowStride + c]; }
ExprId& symAt(const arith::MutElems& e, int64_t r, int64_t c) { return e.sym[r * e.rowStride + c]; }

void requireSymbolic(const arith::ConstElems& operand, const arith::MutElems& dst, const char* kernel) {
  if (!operand.sym || !dst.pool)
    throw std::logic_error(std::string("symbolic ") + kernel + ": a symbolic destination with a numeric operand");
}

enum class ElementKernel : int64_t { Binary, BinaryScalar, Unary, Convert };

/// Sets each element of `dst` to `element(r, c)`, unless the pool remembers this kernel (`kernel`,
/// `op`, `dt`: whatever else the result depends on) on operands with the same ids.
template <class Element>
void memoized(ElementKernel kernel, int64_t op, DType dt, std::initializer_list<arith::ConstElems> operands,
              const arith::MutElems& dst, Element element) {
  std::array<KernelMemo::Matrix, 2> matrices;
  size_t n = 0;
  for (const arith::ConstElems& o : operands)
    matrices.at(n++) = {o.sym, dst.rows, dst.cols, o.rowStride, sizeof(ExprId)};
  KernelMemo::Key key({static_cast<int64_t>(kernel), op, static_cast<int64_t>(dt), dst.rows, dst.cols},
                      std::span<const KernelMemo::Matrix>(matrices.data(), n));
  KernelMemo& memo = dst.pool->elementwise();
  if (memo.recall(key, {{dst.sym, dst.rows, dst.cols, dst.rowStride, sizeof(ExprId)}})) return;
  for (int64_t r = 0; r < dst.rows; ++r)
    for (int64_t c = 0; c < dst.cols; ++c) symAt(dst, r, c) = element(r, c);
  memo.store(std::move(key), {{dst.sym, dst.rows, dst.cols, dst.rowStride, sizeof(ExprId)}});
}

}  // namespace

void binary(arith::BinaryKind k, DType dt, arith::ConstElems lhs, arith::ConstElems rhs, arith::MutElems dst) {
  requireSymbolic(lhs, dst, "binary");
  requireSymbolic(rhs, dst, "binary");
  memoized(ElementKernel::Binary, static_cast<int64_t>(k), dt, {lhs, rhs}, dst,
           [&](int64_t r, int64_t c) { return dst.pool->binary(k, dt, symAt(lhs, r, c), symAt(rhs, r, c)); });
}

void binaryScalar(arith::BinaryKind k, DType dt, arith::ConstElems lhs, uint64_t rhsBits, arith::MutElems dst) {
  requireSymbolic(lhs, dst, "tile-scalar");
  const ExprId s = dst.pool->constant(dt, rhsBits);
  // The scalar's constant id joins the kernel's op: its operand that is not an array.
  memoized(ElementKernel::BinaryScalar, static_cast<int64_t>(k) | (static_cast<int64_t>(s) << 8), dt, {lhs}, dst,
           [&](int64_t r, int64_t c) { return dst.pool->binary(k, dt, symAt(lhs, r, c), s); });
}

void unary(arith::UnaryKind k, DType dt, arith::ConstElems src, arith::MutElems dst) {
  requireSymbolic(src, dst, "unary");
  memoized(ElementKernel::Unary, static_cast<int64_t>(k), dt, {src}, dst,
           [&](int64_t r, int64_t c) { return dst.pool->unary(k, dt, symAt(src, r, c)); });
}

void convert(DType from, DType to, arith::ConstElems src, arith::MutElems dst) {
  requireSymbolic(src, dst, "convert");
  (void)from;  // a node's dtype says what it converts from
  memoized(ElementKernel::Convert, 0, to, {src}, dst,
           [&](int64_t r, int64_t c) { return dst.pool->convert(to, symAt(src, r, c)); });
}

void matmul(DType operand, arith::ConstElems lhs, arith::ConstElems rhs, arith::MutElems dst) {
  requireSymbolic(lhs, dst, "matmul");
  requireSymbolic(rhs, dst, "matmul");
  const DType acc = arith::accumulatorDType(operand);
  const int64_t K = lhs.cols;
  KernelMemo::Key key({static_cast<int64_t>(operand), lhs.rows, K, rhs.cols},
                      {{lhs.sym, lhs.rows, K, lhs.rowStride, sizeof(ExprId)},
                       {rhs.sym, rhs.rows, rhs.cols, rhs.rowStride, sizeof(ExprId)}});
  if (dst.pool->products().recall(key, {{dst.sym, dst.rows, dst.cols, dst.rowStride, sizeof(ExprId)}})) return;
  std::vector<ExprId> scratch(static_cast<size_t>(K));
  std::vector<ExprId> rows(static_cast<size_t>(dst.rows)), columns(static_cast<size_t>(dst.cols));
  for (int64_t i = 0; i < dst.rows; ++i) {
    for (int64_t k = 0; k < K; ++k) scratch[static_cast<size_t>(k)] = symAt(lhs, i, k);
    rows[static_cast<size_t>(i)] = dst.pool->vector(scratch);
  }
  for (int64_t j = 0; j < dst.cols; ++j) {
    for (int64_t k = 0; k < K; ++k) scratch[static_cast<size_t>(k)] = symAt(rhs, k, j);
    columns[static_cast<size_t>(j)] = dst.pool->vector(scratch);
  }
  for (int64_t i = 0; i < dst.rows; ++i)
    for (int64_t j = 0; j < dst.cols; ++j)
      symAt(dst, i, j) = dst.pool->dot(acc, rows[static_cast<size_t>(i)], columns[static_cast<size_t>(j)]);
  dst.pool->products().store(std::move(key), {{dst.sym, dst.rows, dst.cols, dst.rowStride, sizeof(ExprId)}});
}

void rowReduce(arith::ReduceKind k, DType dt, arith::ConstElems src, arith::MutElems dst) {
  requireSymbolic(src, dst, "row reduction");
  std::vector<ExprId> row(static_cast<size_t>(src.cols));
  for (int64_t r = 0; r < dst.rows; ++r) {
    for (int64_t c = 0; c < src.cols; ++c) row[static_cast<size_t>(c)] = symAt(src, r, c);
    symAt(dst, r, 0) = dst.pool->reduce(k, dt, row);
  }
}

void colReduce(arith::ReduceKind k, DType dt, arith::ConstElems src, arith::MutElems dst) {
  requireSymbolic(src, dst, "column reduction");
  std::vector<ExprId> col(static_cast<size_t>(src.rows));
  for (int64_t c = 0; c < dst.cols; ++c) {
    for (int64_t r = 0; r < src.rows; ++r) col[static_cast<size_t>(r)] = symAt(src, r, c);
    symAt(dst, 0, c) = dst.pool->reduce(k, dt, col);
  }
}

}  // namespace symbolic

}  // namespace ptodiff
