// The symbolic element domain (issue 11). In this IR control flow, addresses, offsets and valid
// extents depend only on scalars, never on tile contents, so for fixed runtime scalars the tile
// dataflow is the same for every input. A symbolic run carries, next to every element's bits, the
// formula it was computed from: an id in an ExprPool, a hash-consed DAG, so equal formulas are
// equal ids. If the Tile run and a lowered run give every output element the same id, the
// lowering is correct for every input on that runtime path, not only for the sampled one.
//
// The interpreters are not duplicated for this. The numeric run goes on unchanged; each element
// array (tiles, dense temporaries, GM tensors) may carry a parallel array of ExprIds, and each
// storage byte a ByteTag (its element's formula and its byte index), so the op semantics (which
// element feeds which, valid regions, layouts, addresses) stay written once and only the element
// kernels of interp/Arith.h have a symbolic twin (below, called by those kernels).
//
// The node rules, decided here:
// - Operands keep their order (a + b and b + a differ: the lowering never swaps operands, so a swap
//   is a finding, not noise).
// - matmul is one `dot` node per output element over two `vector` nodes, row i of L and column j
//   of R in fold order (printed as the L[i][k]*R[k][j] pairs); reductions are one n-ary node with
//   their operands in fold order.
// - Poison is the id kPoison and absorbs: any node with a poison operand is kPoison. Its lanes are
//   poison in the numeric run too, and a defined output never depends on them.
// - A scalar operand (tile-scalar ops, full) is a constant node of its element bits: scalars are
//   fixed on a runtime path.
// - Reading bytes as an element gives back the element that wrote them when they are its bytes in
//   order and the dtype is its own; any other mix is a `reinterpret` node over the byte tags.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/DType.h"
#include "interp/Arith.h"
#include "interp/KernelMemo.h"

namespace ptodiff {

/// A storage byte's symbolic content: the formula of the element that wrote it and the byte's
/// index inside that element (little-endian), packed as (expr << 8) | byte.
using ByteTag = uint64_t;
inline ByteTag byteTag(ExprId e, int byte) { return (static_cast<uint64_t>(e) << 8) | static_cast<uint64_t>(byte); }
inline ExprId tagExpr(ByteTag t) { return static_cast<ExprId>(t >> 8); }
inline int tagByte(ByteTag t) { return static_cast<int>(t & 0xFF); }

class ExprPool {
 public:
  static constexpr ExprId kPoison = 0;

  ExprPool();
  /// Forgets every formula but kPoison, keeping the tables' capacity (a campaign reuses one pool per
  /// thread). Ids after clear() are those a new pool would give.
  void clear();

  /// Element (row, col) of the initial contents of GM tensor `tensor` (a fresh symbol).
  ExprId input(std::string_view tensor, DType dt, int64_t row, int64_t col);
  /// input() of every element of a rows x cols tensor, row-major. Remembered until clear(): every
  /// run of a case binds the same inputs again.
  const std::vector<ExprId>& inputs(std::string_view tensor, DType dt, int64_t rows, int64_t cols);
  ExprId constant(DType dt, uint64_t bits);
  ExprId binary(arith::BinaryKind k, DType dt, ExprId lhs, ExprId rhs);
  ExprId unary(arith::UnaryKind k, DType dt, ExprId src);
  /// One numeric conversion of `src` (of its own dtype) to `to`.
  ExprId convert(DType to, ExprId src);
  /// The operands of one side of dot(), in fold order: a row of L or a column of R. A matmul's
  /// M x N elements share M row and N column vectors, so each element costs one two-operand node
  /// instead of 2K operands; equal vectors are equal ids, so two dots are equal exactly when their
  /// (L[i][k], R[k][j]) pairs are.
  ExprId vector(std::span<const ExprId> elements);
  /// A matmul output element: the fold over k of lhsRow[k] * rhsColumn[k] (two vector() ids);
  /// `acc` is the accumulator dtype.
  ExprId dot(DType acc, ExprId lhsRow, ExprId rhsColumn);
  /// A reduction's fold of `operands` in order.
  ExprId reduce(arith::ReduceKind k, DType dt, std::span<const ExprId> operands);
  /// The element of dtype `dt` read from bytes carrying `tags` (lowest address first).
  ExprId fromBytes(DType dt, std::span<const ByteTag> tags) {
    // Inline for the common case, bytes read as they were written (every gathered element asks).
    if (const std::optional<ExprId> e = wholeElement(dt, tags)) return *e;
    return fromReinterpretedBytes(dt, tags);
  }

  DType dtypeOf(ExprId e) const { return dtypes_[e]; }
  /// symbolic::matmul's products of this pool's formulas (interp/KernelMemo.h), forgotten by clear().
  KernelMemo& products() { return products_; }
  /// The elementwise kernels' results (binary, tile-scalar, unary, convert), likewise.
  KernelMemo& elementwise() { return elementwise_; }
  /// Distinct formulas so far (kPoison included).
  size_t size() const { return nodes_.size(); }

  /// The formula in readable form, e.g. "(a[3, 5] + b[3, 5]) * b[3, 5]"; past `maxChars`
  /// characters the rest is elided with "...".
  std::string text(ExprId e, size_t maxChars = 240) const;

 private:
  enum class Kind : uint8_t { Poison, Input, Const, Binary, Unary, Convert, Dot, Reduce, Reinterpret, Vector };
  struct Node {
    Kind kind = Kind::Poison;
    DType dtype = DType::FP32;
    uint8_t op = 0;        // the BinaryKind / UnaryKind / ReduceKind
    uint32_t first = 0;    // operands_[first, first + count)
    uint32_t count = 0;
    uint64_t payload = 0;  // Const: bits; Input: (tensor << 48) | (row << 24) | col
    uint64_t hash = 0;
  };

  ExprId intern(Kind kind, DType dt, uint8_t op, uint64_t payload, std::span<const uint32_t> operands);
  bool same(const Node& n, Kind kind, DType dt, uint8_t op, uint64_t payload, std::span<const uint32_t> operands) const;
  void grow();
  void print(ExprId e, bool top, std::string& out, size_t maxChars) const;
  /// The formula whose bytes 0..n-1 `tags` are, in order, when it has dtype `dt` (n its size).
  std::optional<ExprId> wholeElement(DType dt, std::span<const ByteTag> tags) const {
    if (tags.empty() || static_cast<size_t>(dtypeSize(dt)) != tags.size()) return std::nullopt;
    const ExprId e = tagExpr(tags[0]);
    if (e != kPoison && dtypes_[e] != dt) return std::nullopt;
    for (size_t b = 1; b < tags.size(); ++b)
      if (tags[b] != byteTag(e, static_cast<int>(b))) return std::nullopt;
    if (tagByte(tags[0]) != 0) return std::nullopt;
    return e;
  }
  /// fromBytes() of bytes that are not one element as written: reinterpretations resolved.
  ExprId fromReinterpretedBytes(DType dt, std::span<const ByteTag> tags);

  std::vector<Node> nodes_;
  /// nodes_[e].dtype again, densely: every element read checks its formula's dtype, and a byte per
  /// formula keeps those reads in cache where the 32-byte nodes do not.
  std::vector<DType> dtypes_;
  std::vector<uint32_t> operands_;
  struct Slot {
    uint32_t hash = 0;  // the low half of the node's hash: most probes end here without touching the node
    uint32_t id = 0;    // node id + 1; 0 = empty
  };
  std::vector<Slot> slots_;  // open addressing, linear probing, at most half full
  std::vector<std::string> tensorNames_;
  struct InputTensor {
    std::string name;
    DType dtype;
    int64_t rows, cols;
    std::vector<ExprId> ids;
  };
  std::vector<InputTensor> inputTensors_;  // inputs()' memo (a kernel has a few tensors)
  /// The Input nodes of a whole tensor made at once, ids first + row * cols + col. They skip the hash
  /// table (a campaign case binds thousands of input elements and reads a few), so input() looks
  /// here before interning, and a block is made only for a (tensor, dtype) with no Input node yet.
  struct InputBlock {
    uint64_t name;
    DType dtype;
    int64_t rows, cols;
    ExprId first;
  };
  std::vector<InputBlock> inputBlocks_;
  std::vector<std::pair<uint64_t, DType>> inputsInterned_;  // (tensor, dtype) pairs input() interned
  size_t interned_ = 1;  // nodes in the hash table (kPoison counted, as in nodes_): its load
  uint64_t tensorIndex(std::string_view tensor);
  std::vector<ByteTag> scratch_;  // fromBytes' resolved tags
  KernelMemo products_;            // products(): emptied by clear()
  // A long kernel makes a few hundred elementwise calls per run (loops count once per trip); each
  // entry holds ids of at most two operands and the result.
  KernelMemo elementwise_{256};    // elementwise(): emptied by clear()
};

/// The symbolic twins of interp/Arith.h's element kernels: same arguments, writing dst.sym from
/// the operands' sym arrays through dst.pool. The numeric kernels call them when dst.sym is set;
/// an operand without a sym array is then a harness bug (std::logic_error).
namespace symbolic {
void binary(arith::BinaryKind k, DType dt, arith::ConstElems lhs, arith::ConstElems rhs, arith::MutElems dst);
void binaryScalar(arith::BinaryKind k, DType dt, arith::ConstElems lhs, uint64_t rhsBits, arith::MutElems dst);
void unary(arith::UnaryKind k, DType dt, arith::ConstElems src, arith::MutElems dst);
void convert(DType from, DType to, arith::ConstElems src, arith::MutElems dst);
void matmul(DType operand, arith::ConstElems lhs, arith::ConstElems rhs, arith::MutElems dst);
void rowReduce(arith::ReduceKind k, DType dt, arith::ConstElems src, arith::MutElems dst);
void colReduce(arith::ReduceKind k, DType dt, arith::ConstElems src, arith::MutElems dst);
}  // namespace symbolic

}  // namespace ptodiff
