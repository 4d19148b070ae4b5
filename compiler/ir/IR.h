// The IR of Tile-stage and Buffer-stage programs.
//
// Semantics in brief (semantics.md): tiles are immutable values with a physical shape, a valid
// prefix rectangle and per-element poison; GM tensors are mutable arrays shared by all blocks;
// every name is bound once per scope (SSA); control flow carries values through iter_args and
// yields. INDEX arithmetic is exact (overflow, division by zero: invalid program); `//` and `%`
// floor as in Python. Buffer-stage ops write a destination handle and return nothing; Buffer
// control flow carries scalars only.
//
// Ownership: a Program owns its functions, a function its statements, a statement its
// expressions (unique_ptr trees). Every node keeps its source location. `slot` and `type` fields
// are filled by the verifier (`verifyProgram`) and ignored by structural equality.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/DType.h"
#include "compiler/ir/Op.h"
#include "compiler/ir/SourceLoc.h"
#include "compiler/ir/Type.h"

namespace ptodiff {

enum class BinOp : uint8_t { Add, Sub, Mul, FloorDiv, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
enum class UnOp : uint8_t { Neg, Not };
std::string_view binOpSpelling(BinOp op);  // "+", "//", "and", ...

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind : uint8_t {
    IntLit,    // 3 (INDEX)
    FloatLit,  // 1.5 (FP32)
    BoolLit,   // True
    Name,      // a reference to a bound value
    Unary,     // -x, not x
    Binary,    // x + y, x < y, x and y
    Call,      // pl.tile.add(a, b), pl.const(3, pl.INT32)
    List,      // [a, b] or (a, b): interchangeable
    DTypeRef,  // pl.FP32
    SpaceRef,  // pl.Mem.Vec
  };
  Kind kind;
  SourceLoc loc;

  int64_t intValue = 0;   // IntLit
  double floatValue = 0;  // FloatLit
  bool boolValue = false; // BoolLit
  std::string name;       // Name
  UnOp unop = UnOp::Neg;  // Unary
  BinOp binop = BinOp::Add;  // Binary
  Opcode op = Opcode::Const; // Call
  DType dtype = DType::FP32;        // DTypeRef
  MemSpace space = MemSpace::Vec;   // SpaceRef
  /// Unary: 1, Binary: 2, List: the elements, Call: one slot per op parameter in parameter
  /// order (nullptr where an optional parameter was omitted).
  std::vector<ExprPtr> args;

  // ---- filled by the verifier ----
  int slot = -1;  // Name: frame slot of the referenced value
  Type type;      // every expression's inferred type (None for List/DTypeRef/SpaceRef)

  explicit Expr(Kind k, SourceLoc l = {}) : kind(k), loc(l) {}
  static ExprPtr intLit(int64_t v, SourceLoc l = {});
  static ExprPtr floatLit(double v, SourceLoc l = {});
  static ExprPtr boolLit(bool v, SourceLoc l = {});
  static ExprPtr nameRef(std::string n, SourceLoc l = {});
  static ExprPtr unary(UnOp op, ExprPtr a, SourceLoc l = {});
  static ExprPtr binary(BinOp op, ExprPtr a, ExprPtr b, SourceLoc l = {});
  static ExprPtr call(Opcode op, std::vector<ExprPtr> args, SourceLoc l = {});
  static ExprPtr list(std::vector<ExprPtr> elems, SourceLoc l = {});
  static ExprPtr dtypeRef(DType d, SourceLoc l = {});
  static ExprPtr spaceRef(MemSpace s, SourceLoc l = {});

  /// Argument slot `name` of a Call (nullptr if omitted); throws if the op has no such parameter.
  const Expr* arg(std::string_view paramName) const;
  ExprPtr clone() const;
};

/// A name being bound: an assignment target, loop variable, iter_arg or yield target.
struct Binder {
  std::string name;
  std::optional<Type> annotation;  // as written (Tile assignments may omit it)
  SourceLoc loc;
  // ---- filled by the verifier ----
  int slot = -1;
  Type type;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Stmt {
  enum class Kind : uint8_t { Assign, Eval, Return, Yield, For, If, While };
  Kind kind;
  SourceLoc loc;
  explicit Stmt(Kind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Stmt() = default;
  template <class T> T& as() { return static_cast<T&>(*this); }
  template <class T> const T& as() const { return static_cast<const T&>(*this); }
  StmtPtr clone() const;
};

/// `x = EXPR` / `x: TYPE = EXPR`
struct AssignStmt final : Stmt {
  Binder target;
  ExprPtr value;
  AssignStmt(SourceLoc l) : Stmt(Kind::Assign, l) {}
};

/// `EXPR` evaluated for effect (a Buffer op writing its destination).
struct EvalStmt final : Stmt {
  ExprPtr expr;
  EvalStmt(SourceLoc l) : Stmt(Kind::Eval, l) {}
};

/// `return x, y` (the function's last statement).
struct ReturnStmt final : Stmt {
  std::vector<ExprPtr> values;
  ReturnStmt(SourceLoc l) : Stmt(Kind::Return, l) {}
};

/// `r1, r2 = pl.yield_(v1, v2)` or `pl.yield_(v1)`: ends a region that has results. Its targets
/// are the enclosing For/If/While's results, visible after that statement.
struct YieldStmt final : Stmt {
  std::vector<Binder> targets;
  std::vector<ExprPtr> values;
  YieldStmt(SourceLoc l) : Stmt(Kind::Yield, l) {}
};

/// `for i, (c1, c2) in pl.range(START, STOP, STEP, init_values=(x1, x2)):`
struct ForStmt final : Stmt {
  Binder inductionVar;  // INDEX
  ExprPtr start, stop, step;  // always present (parser fills 0 and 1)
  std::vector<Binder> iterArgs;
  std::vector<ExprPtr> inits;
  Block body;
  ForStmt(SourceLoc l) : Stmt(Kind::For, l) {}
};

/// `if COND:` ... `else:` ... (elseBody empty when there is no else).
struct IfStmt final : Stmt {
  ExprPtr cond;
  Block thenBody, elseBody;
  IfStmt(SourceLoc l) : Stmt(Kind::If, l) {}
};

/// `for (c1, c2) in pl.while_(init_values=(x1, x2)):` with first body statement `pl.cond(EXPR)`.
/// The cond is kept apart from the body; condLoc is where `pl.cond` was written.
struct WhileStmt final : Stmt {
  std::vector<Binder> iterArgs;
  std::vector<ExprPtr> inits;
  ExprPtr cond;
  SourceLoc condLoc;
  Block body;
  WhileStmt(SourceLoc l) : Stmt(Kind::While, l) {}
};

/// The yield ending `body`, or nullptr. A compound statement's results are its yield's targets
/// (for an If, the then-arm's yield; the verifier checks the else-arm binds the same names).
const YieldStmt* trailingYield(const Block& body);
std::vector<const Binder*> resultsOf(const Stmt& compound);

enum class FunctionType : uint8_t { InCore, AIC, AIV, Orchestration };
enum class FunctionStage : uint8_t { Tile, Buffer };
std::string_view functionTypeName(FunctionType t);

struct Param {
  std::string name;
  Type type;  // Tensor or Scalar
  ParamDirection direction = ParamDirection::In;
  SourceLoc loc;
  int slot = -1;  // filled by the verifier
};

struct Function {
  std::string name;
  FunctionType type = FunctionType::InCore;
  FunctionStage stage = FunctionStage::Tile;
  /// SelectBufferIRFunctions' verdict (S2), recorded once: true = the kernel takes the Buffer path,
  /// false = it stays on Tile; absent = not decided (e.g. before selection, orchestration).
  /// Printed as `buffer_ir_selected=True|False` in the decorator.
  std::optional<bool> bufferIRSelected;
  std::vector<Param> params;
  std::vector<Type> results;  // `-> T` or `-> tuple[T1, T2]`; empty = no annotation
  Block body;
  SourceLoc loc;
  int numSlots = 0;  // filled by the verifier: frame size for interpreters

  Function() = default;
  Function(Function&&) = default;
  Function& operator=(Function&&) = default;
  Function clone() const;
};

struct Program {
  std::string name;  // the class name
  std::shared_ptr<const SourceFile> source;  // for diagnostics; may be null for built programs
  std::vector<Function> functions;

  Program() = default;
  Program(Program&&) = default;
  Program& operator=(Program&&) = default;
  Program clone() const;
  const Function* findFunction(std::string_view name) const;
  /// The kernel a case runs by default: the only non-Orchestration function, else `kernel`.
  const Function* defaultKernel() const;
};

/// Structural equality: names, ops, literals, annotations and nesting; ignores source locations,
/// the `-> ...` spelling of lists vs tuples, and everything the verifier fills in.
bool structurallyEqual(const Program& a, const Program& b);
/// The first structural difference as a short human-readable path (empty when equal).
std::string firstDifference(const Program& a, const Program& b);

}  // namespace ptodiff
