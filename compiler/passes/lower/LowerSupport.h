// Small tools shared by the parts of LowerTileToBuffer (compiler/passes/lower/): the pass's
// diagnostics, valid extents as scalar expressions, Buffer-call and type builders, fresh names, and
// the scalar facts the lowering proves (alignment of offsets).
//
// Internal to compiler/passes.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff::lower {

inline constexpr std::string_view kPassName = "LowerTileToBuffer";

/// Throws the pass's failures: `FILE:LINE:COL: error: LowerTileToBuffer: [RULE] OP: MESSAGE`, where
/// RULE is the contract-rules.md ID that failed and OP the op (or construct) being converted.
class Failure {
 public:
  explicit Failure(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(std::string_view rule, std::string_view op, SourceLoc loc, const std::string& message) const;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

/// "tile.add", "for", ...: what a failure names as the op of a statement.
std::string opName(const Expr& call);

/// One valid extent as the lowering needs it: a constant, or the scalar expression computing it
/// (an extent is never "unknown" here: an op whose extent has no expression cannot be lowered).
/// `key` compares extents structurally (V3): two extents are equal exactly when their keys are.
struct ValidExt {
  std::optional<int64_t> constant;
  std::shared_ptr<const Expr> expr;  // non-constant extents
  std::string key;

  static ValidExt of(int64_t value);
  /// An integer literal becomes a constant, anything else an expression.
  static ValidExt of(const Expr& e);
  bool isConst() const { return constant.has_value(); }
  bool isZero() const { return constant && *constant == 0; }
  /// The extent as a scalar expression (block queries rewritten to their Buffer spelling).
  ExprPtr build(SourceLoc loc) const;
};
using Valid2 = std::array<ValidExt, 2>;

Valid2 fullValid(int64_t rows, int64_t cols);
bool sameValid(const Valid2& a, const Valid2& b);
bool allConst(const Valid2& v);
bool anyZero(const Valid2& v);
/// "8x32" for constants, the expressions otherwise; "full" is never produced here.
std::string validKey(const Valid2& v);
/// "[8, n]" for messages.
std::string validText(const Valid2& v);

// ---- builders (all new nodes carry `loc`) ----

ExprPtr nameExpr(const std::string& name, SourceLoc loc);
ExprPtr intExpr(int64_t v, SourceLoc loc);
ExprPtr pairExpr(ExprPtr a, ExprPtr b, SourceLoc loc);
ExprPtr validPair(const Valid2& v, SourceLoc loc);
ExprPtr callExpr(Opcode op, std::vector<ExprPtr> args, SourceLoc loc);
StmtPtr evalStmt(ExprPtr call, SourceLoc loc);
StmtPtr annotatedAssign(const std::string& name, const Type& type, ExprPtr value, SourceLoc loc);

/// A Buffer type with the tile type's shape, dtype, space and layout; valid as given (nullopt:
/// full; a non-constant extent becomes -1).
Type bufferTypeOf(const Type& tile, const std::optional<Valid2>& valid);
/// A dynamic ([-1, -1]) descriptor of the tile type's storage.
Type dynamicBufferTypeOf(const Type& tile);

/// A copy of scalar expression `e` with Tile block queries replaced by their Buffer spelling (S22).
ExprPtr rewriteScalar(const Expr& e);

/// Fresh names for the handles the lowering binds: never a name already used in the function's
/// output (parameters and scalar binders), never twice.
class NameAllocator {
 public:
  void reserve(const std::string& name) { used_.insert(name); }
  /// `stem` if free, else `stem_1`, `stem_2`, ...
  std::string fresh(const std::string& stem);

 private:
  std::set<std::string> used_;
};

/// Where the values of a kernel's INDEX names come from (frame slot -> origin): the expression a
/// scalar is bound to, or the counted loop whose induction variable it is.
struct ScalarOrigins {
  const std::map<int, const Expr*>* definitions = nullptr;
  const std::map<int, const ForStmt*>* inductionLoops = nullptr;
};

/// Proves that the INDEX expression `e` is a multiple of the power of two `m` for every value of
/// its names: the largest power of two dividing it, from literals, unary -, +, -, *, the names'
/// definitions and an induction variable's start and step (start + k * step). False when no
/// proof is found, or `m` is no power of two (W16: unproven alignment is rejected, never
/// assumed). Selection and the lowering both ask this one prover, so a kernel selected on an
/// alignment proof always lowers.
bool provablyMultipleOf(const Expr& e, int64_t m, const ScalarOrigins& origins);

/// The integer a literal (or a negated literal) denotes.
std::optional<int64_t> literalInt(const Expr& e);

/// S11: whether the Buffer form can state scalar operand `e` of a Tile op writing a `to` tile
/// (BufferRewriter::scalarFor): a literal, converted once at compile time, or a scalar that already
/// has the converted type (FP32 for float tiles, INT32 for INT32 tiles). The IR has no scalar cast,
/// so an INDEX scalar on an FP32 tile has no Buffer form; SelectBufferIRFunctions keeps it on Tile.
bool scalarOperandStatable(const Expr& e, DType to);

}  // namespace ptodiff::lower
