// The second traversal of LowerTileToBuffer (seed 000 "Conversion contract"): replaces every Tile
// use with its Buffer handle and rewrites each supported call into destination-passing Buffer ops,
// using the handles StorageIndex planned. Control flow keeps only scalar carries and results
// (B8, L4); runtime valid extents become set_validshape plus guards (V7, V11, V12).
//
// Internal to compiler/passes.
#pragma once

#include <functional>
#include <map>

#include "compiler/passes/lower/StorageIndex.h"

namespace ptodiff::lower {

class BufferRewriter {
 public:
  /// `faults`: the catalogue fault the rewrite injects, if one of its own (compiler/faults).
  BufferRewriter(const Function& fn, StorageIndex& index, const Failure& failure, const FaultSwitch& faults)
      : fn_(fn), index_(index), failure_(failure), faults_(faults) {}

  /// The converted function body. Throws the pass's failure.
  Block run();

 private:
  const Function& fn_;
  StorageIndex& index_;
  const Failure& failure_;
  const FaultSwitch faults_;
  /// V4: the Tile value whose metadata a dynamic descriptor's handle currently holds.
  std::map<int, int> currentVersion_;
  /// V7: the valid extents (validKey) a dynamic descriptor's handle holds at this point.
  std::map<int, std::string> currentValid_;

  Block block(const Block& in, const std::vector<bool>* keepYield);
  void stmt(const Stmt& s, Block& out, const std::vector<bool>* keepYield);
  void assign(const AssignStmt& s, Block& out);
  void eval(const EvalStmt& s, Block& out);
  void tileOp(const Expr& call, const Binder* target, Block& out);
  StmtPtr forStmt(const ForStmt& s);
  StmtPtr whileStmt(const WhileStmt& s);
  StmtPtr ifStmt(const IfStmt& s);
  StmtPtr returnStmt(const ReturnStmt& s);
  StmtPtr yieldStmt(const YieldStmt& y, const std::vector<bool>& keep);

  // ---- op families ----
  void load(const Expr& call, const Binder& b, Block& out);
  void store(const Expr& call, Block& out);
  void elementwise(const Expr& call, const Binder& b, Block& out);
  void full(const Expr& call, const Binder& b, Block& out);
  void slice(const Expr& call, const Binder& b, Block& out);
  void assemble(const Expr& call, const Binder& b, Block& out);
  void setValidShape(const Expr& call, const Binder& b, Block& out);
  void move(const Expr& call, const Binder& b, Block& out);
  void extract(const Expr& call, const Binder& b, Block& out);
  void matmul(const Expr& call, const Binder& b, Block& out);

  // ---- handles ----
  /// A handle reading operand `slot` with valid rectangle `want` (V10 bridge views and dynamic
  /// windows are bound into `out`, which is inside the consumer's guard).
  std::string readHandle(int slot, const Valid2& want, Block& out, const Expr& call);
  /// Binds a window's subview where the slice is written (static valid) or at a consumer.
  std::string materializeWindow(int windowIndex, Block& out, SourceLoc loc);
  /// V7: states the extents a dynamic descriptor's next version has, before the op defining it.
  void setValid(int slot, Block& out, SourceLoc loc);
  /// V11/V12: runs `body` only when the domain's runtime extents are positive; deletes a
  /// constant-empty op.
  void guarded(const Valid2& domain, SourceLoc loc, Block& out, const std::function<void(Block&)>& body);
  /// W13/W14/S13: a destination overlapping an operand must be its identical window, and only for
  /// ops that run in place.
  void checkDisjoint(const Expr& call, const ByteSpan& dst, const std::string& dstName, int srcSlot,
                     bool inPlaceSafe, std::string_view overlapRule) const;

  // ---- values ----
  std::string tensorName(const Expr& name) const;
  ExprPtr scalarFor(const Expr& e, DType to, const Expr& call) const;
};

}  // namespace ptodiff::lower
