#include "device/OutputOps.h"

#include <set>
#include <vector>

namespace ptodiff::device {

namespace {

class Tracer {
 public:
  explicit Tracer(const Function& kernel) {
    for (const Param& p : kernel.params) params_.insert(p.name);
    block(kernel.body);
  }

  std::map<std::string, std::set<std::string>> labels;  // tensor parameter -> ops

 private:
  std::set<std::string> params_;
  std::map<std::string, const Expr*> defs_;                  // name -> its defining expression
  std::map<std::string, std::vector<const Expr*>> aliases_;  // loop/branch results and carries -> sources
  std::vector<std::pair<const Expr*, const Expr*>> stores_;  // (stored tile, output tensor)

  void block(const Block& b) {
    for (const StmtPtr& s : b) stmt(*s);
  }
  void expr(const Expr& e) {
    if (e.kind == Expr::Kind::Call && opInfo(e.op).family == OpFamily::Store)
      stores_.push_back({e.arg("tile"), e.arg("output_tensor")});
    for (const ExprPtr& a : e.args)
      if (a) expr(*a);
  }
  void yields(const Stmt& compound, const Block& body) {
    const YieldStmt* y = trailingYield(body);
    if (!y) return;
    const std::vector<const Binder*> results = resultsOf(compound);
    for (size_t i = 0; i < results.size() && i < y->values.size(); ++i)
      aliases_[results[i]->name].push_back(y->values[i].get());
  }
  void stmt(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: {
        const auto& a = s.as<AssignStmt>();
        defs_[a.target.name] = a.value.get();
        expr(*a.value);
        break;
      }
      case Stmt::Kind::Eval: expr(*s.as<EvalStmt>().expr); break;
      case Stmt::Kind::Return:
      case Stmt::Kind::Yield: break;
      case Stmt::Kind::For: {
        const auto& f = s.as<ForStmt>();
        for (size_t i = 0; i < f.iterArgs.size() && i < f.inits.size(); ++i)
          aliases_[f.iterArgs[i].name].push_back(f.inits[i].get());
        block(f.body);
        yields(s, f.body);
        if (const YieldStmt* y = trailingYield(f.body))  // a carry also holds what the body yields
          for (size_t i = 0; i < f.iterArgs.size() && i < y->values.size(); ++i)
            aliases_[f.iterArgs[i].name].push_back(y->values[i].get());
        break;
      }
      case Stmt::Kind::If: {
        const auto& i = s.as<IfStmt>();
        block(i.thenBody);
        block(i.elseBody);
        yields(s, i.thenBody);
        if (const YieldStmt* y = trailingYield(i.elseBody)) {
          const std::vector<const Binder*> results = resultsOf(s);
          for (size_t k = 0; k < results.size() && k < y->values.size(); ++k)
            aliases_[results[k]->name].push_back(y->values[k].get());
        }
        break;
      }
      case Stmt::Kind::While: {
        const auto& w = s.as<WhileStmt>();
        for (size_t i = 0; i < w.iterArgs.size() && i < w.inits.size(); ++i)
          aliases_[w.iterArgs[i].name].push_back(w.inits[i].get());
        block(w.body);
        yields(s, w.body);
        break;
      }
    }
  }

 public:
  /// The tensor parameters a tensor-valued expression may be (store results chain to their input).
  void tensorsOf(const Expr* e, std::set<std::string>& out, std::set<std::string>& seen) const {
    if (!e || e->kind != Expr::Kind::Name || !seen.insert(e->name).second) return;
    if (params_.count(e->name)) out.insert(e->name);
    if (auto d = defs_.find(e->name); d != defs_.end() && d->second->kind == Expr::Kind::Call &&
                                      opInfo(d->second->op).family == OpFamily::Store)
      tensorsOf(d->second->arg("output_tensor"), out, seen);
    if (auto a = aliases_.find(e->name); a != aliases_.end())
      for (const Expr* src : a->second) tensorsOf(src, out, seen);
  }
  /// The ops that computed a tile-valued expression's elements.
  void opsOf(const Expr* e, std::set<std::string>& out, std::set<std::string>& seen) const {
    if (!e) return;
    if (e->kind == Expr::Kind::Call) {
      switch (opInfo(e->op).family) {
        case OpFamily::Slice: case OpFamily::Reshape: case OpFamily::SetValidShape: case OpFamily::Move:
        case OpFamily::Extract: case OpFamily::TransposeView:
          // Their first operand is the tile they view or copy (named tile, src, ... per op).
          opsOf(e->args.empty() ? nullptr : e->args[0].get(), out, seen);
          return;
        case OpFamily::Assemble:
          opsOf(e->arg("source"), out, seen);
          return;
        default:
          out.insert(std::string(opInfo(e->op).spelling));
          return;
      }
    }
    if (e->kind != Expr::Kind::Name || !seen.insert(e->name).second) return;
    if (auto d = defs_.find(e->name); d != defs_.end()) opsOf(d->second, out, seen);
    if (auto a = aliases_.find(e->name); a != aliases_.end())
      for (const Expr* src : a->second) opsOf(src, out, seen);
  }
  void collect() {
    for (const auto& [tile, tensor] : stores_) {
      std::set<std::string> tensors, seenT, ops, seenO;
      tensorsOf(tensor, tensors, seenT);
      opsOf(tile, ops, seenO);
      for (const std::string& t : tensors) labels[t].insert(ops.begin(), ops.end());
    }
  }
};

}  // namespace

std::map<std::string, std::string> outputOpLabels(const Function& kernel) {
  Tracer t(kernel);
  t.collect();
  std::map<std::string, std::string> out;
  for (const Param& p : kernel.params) {
    if (!p.type.isTensor() || p.direction == ParamDirection::In) continue;
    std::string label;
    for (const std::string& op : t.labels[p.name]) label += (label.empty() ? "" : "+") + op;
    out[p.name] = label.empty() ? "(not stored)" : label;
  }
  return out;
}

}  // namespace ptodiff::device
