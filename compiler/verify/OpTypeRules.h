// Per-op type rules: one rule per OpFamily of the registry (compiler/ir/Ops.def), so adding an op
// to an existing family touches no verifier code and a new family adds one rule here.
//
// The verifier's walker first checks each argument slot against the registry's ParamKind (a Value
// slot holds an SSA name, IndexList a list of INDEX expressions, ...) and types it; a rule then sees
// only well-formed, fully typed slots and checks what its family means: operand kinds, dtypes,
// spaces, shapes, valid extents, and computes the result type.
//
// Internal to compiler/verify.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff::verify {

/// The GM parameters a tensor value may refer to (semantics.md §1: a tensor SSA value is a
/// reference to a GM parameter; store returns it, carries and branches pass it on).
struct TensorRef {
  std::vector<const Param*> params;
  /// Every referenced parameter is Out or InOut, so stores through the value are allowed.
  bool writable() const;
  /// "In parameter 'a'" / "parameters 'a', 'b'", for messages.
  std::string describe() const;
  /// Union, keeping first-seen order.
  void merge(const TensorRef& other);
  bool operator==(const TensorRef&) const = default;
};

/// One argument slot of a call after the walker checked its ParamKind.
struct ArgSlot {
  std::string_view param;      // the registry's parameter name
  const Expr* expr = nullptr;  // nullptr: an omitted optional parameter
  Type type;                   // Value and Scalar slots: the argument's type
  TensorRef tensor;            // Value slots holding a tensor: what it references
  /// IndexList and ValidTuple slots: one extent per element (an integer literal is a constant,
  /// a scalar name a symbol, any other expression dynamic).
  std::vector<Extent> extents;
  std::vector<int64_t> shape;      // ShapeList slots
  DType dtype = DType::FP32;       // DType slots
  MemSpace space = MemSpace::Vec;  // Space slots
  bool present() const { return expr != nullptr; }
};

/// What a rule may learn about the program beyond its call.
struct OpCall {
  const Expr& call;
  const OpInfo& info;
  std::vector<ArgSlot> args;  // one per registry parameter
  /// The annotation of the assignment whose value this call is (nullptr otherwise). Buffer
  /// alloc/subview/reshape take their result type from it.
  const std::optional<Type>* annotation = nullptr;
  /// Reports `info.spelling + ": " + message` at `loc`.
  std::function<void(SourceLoc loc, const std::string& message)> report;

  // ---- filled by rules ----
  std::optional<TensorRef> resultTensor;    // the tensor a Tensor-typed result refers to (store)
  std::optional<MemSpace> resultRootSpace;  // tile.alloc: the space of the storage root

  const ArgSlot& arg(std::string_view name) const;
  void error(const ArgSlot& at, const std::string& message) const;
  void error(const std::string& message) const { report(call.loc, message); }
};

/// The extent an index expression denotes: an integer literal (or its negation) is a constant, a
/// name a symbol, anything else dynamic (known only at run time).
Extent extentOfExpr(const Expr& e);

/// Checks `call` against its family's rule and returns its result type: Type::none() for ops
/// without a result, std::nullopt when an error (already reported) leaves the result unknown.
std::optional<Type> inferOpType(OpCall& call);

/// Elementwise dtypes an op accepts (arithmetic families); for messages and generators.
bool opAcceptsDType(Opcode op, DType dt);

}  // namespace ptodiff::verify
