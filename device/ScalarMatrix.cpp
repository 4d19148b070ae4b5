#include "device/ScalarMatrix.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace ptodiff::device {

namespace {

/// Per scalar parameter: its candidate values in first-found order and the roles that gave them.
struct Candidates {
  std::vector<int64_t> values;
  std::set<std::string> roles;
  void add(int64_t v, const std::string& role) {
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    roles.insert(role);
  }
};

class UseCollector {
 public:
  explicit UseCollector(const Function& kernel) {
    for (const Param& p : kernel.params)
      if (p.type.isScalar()) scalarTypes_[p.name] = p.type.dtype;
  }

  void block(const Block& b) {
    for (const StmtPtr& s : b) stmt(*s);
  }

  std::map<std::string, Candidates> found;

 private:
  std::map<std::string, DType> scalarTypes_;

  void namesIn(const Expr& e, std::set<std::string>& out) const {
    if (e.kind == Expr::Kind::Name && scalarTypes_.count(e.name)) out.insert(e.name);
    for (const ExprPtr& a : e.args)
      if (a) namesIn(*a, out);
  }
  void literalsIn(const Expr& e, std::vector<int64_t>& out) const {
    if (e.kind == Expr::Kind::IntLit) out.push_back(e.intValue);
    for (const ExprPtr& a : e.args)
      if (a) literalsIn(*a, out);
  }

  void loopCount(const Expr& stop, const Expr* start, const Expr* step) {
    std::set<std::string> names;
    namesIn(stop, names);
    const bool direct = stop.kind == Expr::Kind::Name;
    const int64_t s0 = start && start->kind == Expr::Kind::IntLit ? start->intValue : 0;
    const int64_t st = step && step->kind == Expr::Kind::IntLit && step->intValue > 0 ? step->intValue : 1;
    for (const std::string& n : names)
      for (int64_t k = 0; k <= 3; ++k) found[n].add(direct ? s0 + k * st : k, "loop count");
  }

  void branch(const Expr& cond) {
    std::set<std::string> names;
    namesIn(cond, names);
    std::vector<int64_t> literals;
    literalsIn(cond, literals);
    for (const std::string& n : names) {
      Candidates& c = found[n];
      if (scalarTypes_.at(n) == DType::BOOL) {
        c.add(0, "branch");
        c.add(1, "branch");
        continue;
      }
      if (scalarTypes_.at(n) == DType::FP32) continue;
      for (int64_t l : literals)
        for (int64_t v : {l - 1, l, l + 1}) c.add(v, "branch");
      c.add(0, "branch");
      c.add(1, "branch");
    }
  }

  /// The full extent of dimension `d` of a valid-shape argument of `call`, or -1 when unknown.
  static int64_t fullExtent(const Expr& call, int d) {
    const OpInfo& info = opInfo(call.op);
    for (const char* shapeParam : {"shapes", "shape"}) {
      if (paramIndex(info, shapeParam) < 0) continue;
      const Expr* shape = call.arg(shapeParam);
      if (shape && shape->kind == Expr::Kind::List && shape->args.size() == 2 &&
          shape->args[static_cast<size_t>(d)]->kind == Expr::Kind::IntLit)
        return shape->args[static_cast<size_t>(d)]->intValue;
    }
    if (paramIndex(info, "tile") >= 0) {
      const Expr* tile = call.arg("tile");
      if (tile && tile->type.isTile() && tile->type.shape.size() == 2) return tile->type.shape[static_cast<size_t>(d)];
    }
    return -1;
  }

  void validExtent(const Expr& extent, int64_t full) {
    if (full < 0) return;
    std::set<std::string> names;
    namesIn(extent, names);
    for (const std::string& n : names)
      if (scalarTypes_.at(n) != DType::BOOL && scalarTypes_.at(n) != DType::FP32)
        for (int64_t v : {int64_t{0}, full / 2, full}) found[n].add(v, "valid extent");
  }

  void expr(const Expr& e) {
    if (e.kind == Expr::Kind::Call) {
      const OpInfo& info = opInfo(e.op);
      if (paramIndex(info, "valid_shape") >= 0) {
        const Expr* vs = e.arg("valid_shape");
        if (vs && vs->kind == Expr::Kind::List && vs->args.size() == 2)
          for (int d = 0; d < 2; ++d) validExtent(*vs->args[static_cast<size_t>(d)], fullExtent(e, d));
      }
      if (paramIndex(info, "valid_rows") >= 0) validExtent(*e.arg("valid_rows"), fullExtent(e, 0));
      if (paramIndex(info, "valid_cols") >= 0) validExtent(*e.arg("valid_cols"), fullExtent(e, 1));
    }
    for (const ExprPtr& a : e.args)
      if (a) expr(*a);
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: expr(*s.as<AssignStmt>().value); break;
      case Stmt::Kind::Eval: expr(*s.as<EvalStmt>().expr); break;
      case Stmt::Kind::Return:
        for (const ExprPtr& v : s.as<ReturnStmt>().values) expr(*v);
        break;
      case Stmt::Kind::Yield:
        for (const ExprPtr& v : s.as<YieldStmt>().values) expr(*v);
        break;
      case Stmt::Kind::For: {
        const auto& f = s.as<ForStmt>();
        loopCount(*f.stop, f.start.get(), f.step.get());
        for (const ExprPtr& i : f.inits) expr(*i);
        block(f.body);
        break;
      }
      case Stmt::Kind::If: {
        const auto& i = s.as<IfStmt>();
        branch(*i.cond);
        expr(*i.cond);
        block(i.thenBody);
        block(i.elseBody);
        break;
      }
      case Stmt::Kind::While: {
        const auto& w = s.as<WhileStmt>();
        loopCount(*w.cond, nullptr, nullptr);
        for (const ExprPtr& i : w.inits) expr(*i);
        block(w.body);
        break;
      }
    }
  }
};

CaseScalar scalarOf(DType dt, int64_t v) {
  CaseScalar s;
  if (dt == DType::BOOL) {
    s.kind = CaseScalar::Kind::Bool;
    s.b = v != 0;
  } else {
    s.kind = CaseScalar::Kind::Int;
    s.i = v;
  }
  return s;
}

bool sameScalars(const std::map<std::string, CaseScalar>& a, const std::map<std::string, CaseScalar>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, x] : a) {
    auto it = b.find(name);
    if (it == b.end()) return false;
    const CaseScalar& y = it->second;
    if (x.kind != y.kind || x.i != y.i || x.b != y.b || x.f != y.f) return false;
  }
  return true;
}

}  // namespace

std::string describeScalar(const std::string& name, const CaseScalar& value) {
  std::ostringstream s;
  s << name << "=";
  switch (value.kind) {
    case CaseScalar::Kind::Bool: s << (value.b ? "true" : "false"); break;
    case CaseScalar::Kind::Float: s << value.f; break;
    case CaseScalar::Kind::Int: s << value.i; break;
  }
  return s.str();
}

std::vector<ScalarSet> deriveScalarSets(const Function& kernel, const std::map<std::string, CaseScalar>& base,
                                        size_t maxSets) {
  UseCollector uses(kernel);
  uses.block(kernel.body);
  std::map<std::string, DType> types;
  for (const Param& p : kernel.params)
    if (p.type.isScalar()) types[p.name] = p.type.dtype;

  ScalarSet first;
  first.scalars = base;
  for (const auto& [name, c] : uses.found)
    if (!first.scalars.count(name) && !c.values.empty()) first.scalars[name] = scalarOf(types.at(name), c.values[0]);
  for (const auto& [name, value] : first.scalars) first.covers.push_back(describeScalar(name, value) + " (case)");

  std::vector<ScalarSet> sets{first};
  size_t rounds = 0;
  for (const auto& [name, c] : uses.found) rounds = std::max(rounds, c.values.size());
  for (size_t i = 0; i < rounds && sets.size() < maxSets; ++i) {
    ScalarSet s;
    s.scalars = first.scalars;
    for (const auto& [name, c] : uses.found) {
      if (c.values.empty()) continue;
      s.scalars[name] = scalarOf(types.at(name), c.values[i % c.values.size()]);
      std::string roles;
      for (const std::string& r : c.roles) roles += (roles.empty() ? "" : ", ") + r;
      s.covers.push_back(describeScalar(name, s.scalars[name]) + " (" + roles + ")");
    }
    const bool duplicate =
        std::any_of(sets.begin(), sets.end(), [&](const ScalarSet& o) { return sameScalars(o.scalars, s.scalars); });
    if (!duplicate) sets.push_back(std::move(s));
  }
  return sets;
}

ScalarSet scalarSetOf(const std::map<std::string, ScalarValue>& values) {
  ScalarSet s;
  for (const auto& [name, v] : values) {
    CaseScalar c;
    if (v.dtype == DType::BOOL) {
      c.kind = CaseScalar::Kind::Bool;
      c.b = v.i != 0;
    } else if (v.dtype == DType::FP32) {
      c.kind = CaseScalar::Kind::Float;
      c.f = v.f;
    } else {
      c.kind = CaseScalar::Kind::Int;
      c.i = v.i;
    }
    s.scalars[name] = c;
    s.covers.push_back(describeScalar(name, c) + " (generated)");
  }
  return s;
}

}  // namespace ptodiff::device
