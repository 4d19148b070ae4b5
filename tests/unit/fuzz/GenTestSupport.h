// Helpers for the generator tests: checking a generated case end to end (verify, round-trip,
// interpret every scalar set) and walking a program for the ops and statements it uses.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/gen/ProgramGen.h"
#include "interp/CaseSetup.h"
#include "interp/TileInterpreter.h"

namespace ptodiff::fuzz::gentest {

/// Every diagnostic of verifyProgram on a copy of `c`'s program, formatted; empty when it verifies.
inline std::string verifyProblems(const GeneratedCase& c) {
  Program p = c.program.clone();
  std::string out;
  for (const Diagnostic& d : verifyProgram(p)) out += formatDiagnostic(d) + "\n";
  return out;
}

/// Empty when print -> parse gives a structurally equal program, else the first difference.
inline std::string roundTripProblem(const GeneratedCase& c) {
  const std::string text = printProgram(c.program);
  Program back = parseProgramText(text, "generated.py");
  if (structurallyEqual(c.program, back)) return "";
  return firstDifference(c.program, back) + "\n" + text;
}

/// A non-finite value (Inf or NaN) in `bits` of a float dtype.
inline bool nonFinite(uint64_t bits, DType dt) {
  switch (dt) {
    case DType::FP32: return ((bits >> 23) & 0xFF) == 0xFF;
    case DType::FP16: return ((bits >> 10) & 0x1F) == 0x1F;
    case DType::BF16: return ((bits >> 7) & 0xFF) == 0xFF;
    default: return false;
  }
}

/// Runs every run of `c` (caseSpecsOf: each kernel on each of its scalar sets) with the Tile
/// interpreter; empty when every run passes and every element a store wrote is defined and
/// finite, else what went wrong (with the program).
inline std::string runProblems(const GeneratedCase& c) {
  Program p = c.program.clone();
  verifyOrThrow(p);
  std::ostringstream out;
  const std::vector<CaseSpec> specs = caseSpecsOf(c);
  for (size_t run = 0; run < specs.size(); ++run) {
    const CaseSpec& spec = specs[run];
    const Function& kernel = *p.findFunction(spec.function);
    KernelArgs args = buildKernelArgs(kernel, spec, {});
    RunConfig config;
    config.blockNum = spec.blockNum;
    RunResult r = runTileKernel(p, kernel, args, config);
    if (r.status != RunStatus::Ok) {
      out << "run " << run << " (" << spec.function << "): " << runStatusName(r.status) << ": "
          << formatDiagnostic(r.diagnostic) << "\n";
      break;
    }
    for (const auto& [name, t] : r.final.tensors)
      for (int64_t i = 0; i < t.elements(); ++i)
        if (t.written[static_cast<size_t>(i)] && nonFinite(t.bitsAt(i), t.dtype)) {
          out << "run " << run << " (" << spec.function << "): " << name << " element " << i << " is not finite\n";
          break;
        }
  }
  std::string problems = out.str();
  if (problems.empty()) return "";
  std::ostringstream shown;
  showValue(c, shown);
  return problems + shown.str();
}

/// Calls `onStmt` for every statement of `p` (nested regions included, each before its
/// expressions) and `onExpr` for every expression node: operands, conditions, loop bounds, initial
/// values of carries, yields and returns.
inline void walkProgram(const Program& p, const std::function<void(const Stmt&)>& onStmt,
                        const std::function<void(const Expr&)>& onExpr) {
  std::function<void(const Expr*)> expr = [&](const Expr* e) {
    if (!e) return;
    onExpr(*e);
    for (const ExprPtr& a : e->args) expr(a.get());
  };
  std::function<void(const Block&)> block = [&](const Block& b) {
    for (const StmtPtr& sp : b) {
      const Stmt& s = *sp;
      onStmt(s);
      switch (s.kind) {
        case Stmt::Kind::Assign: expr(s.as<AssignStmt>().value.get()); break;
        case Stmt::Kind::Eval: expr(s.as<EvalStmt>().expr.get()); break;
        case Stmt::Kind::Return:
          for (const ExprPtr& v : s.as<ReturnStmt>().values) expr(v.get());
          break;
        case Stmt::Kind::Yield:
          for (const ExprPtr& v : s.as<YieldStmt>().values) expr(v.get());
          break;
        case Stmt::Kind::For: {
          const auto& f = s.as<ForStmt>();
          expr(f.start.get());
          expr(f.stop.get());
          expr(f.step.get());
          for (const ExprPtr& v : f.inits) expr(v.get());
          block(f.body);
          break;
        }
        case Stmt::Kind::If: {
          const auto& i = s.as<IfStmt>();
          expr(i.cond.get());
          block(i.thenBody);
          block(i.elseBody);
          break;
        }
        case Stmt::Kind::While: {
          const auto& w = s.as<WhileStmt>();
          for (const ExprPtr& v : w.inits) expr(v.get());
          expr(w.cond.get());
          block(w.body);
          break;
        }
      }
    }
  };
  for (const Function& f : p.functions) block(f.body);
}

/// Every op called anywhere in `p` (statements, conditions, loop bounds, nested regions).
inline std::set<Opcode> opsUsed(const Program& p) {
  std::set<Opcode> ops;
  walkProgram(p, [](const Stmt&) {}, [&](const Expr& e) {
    if (e.kind == Expr::Kind::Call) ops.insert(e.op);
  });
  return ops;
}

/// Every statement kind in `p`, with the deepest control-flow nesting seen.
struct StmtStats {
  std::set<Stmt::Kind> kinds;
  int maxNesting = 0;
};

inline StmtStats stmtStats(const Program& p) {
  StmtStats stats;
  struct Walker {
    StmtStats& stats;
    void block(const Block& b, int depth) {
      for (const StmtPtr& s : b) {
        stats.kinds.insert(s->kind);
        switch (s->kind) {
          case Stmt::Kind::For: region(s->as<ForStmt>().body, depth); break;
          case Stmt::Kind::While: region(s->as<WhileStmt>().body, depth); break;
          case Stmt::Kind::If:
            region(s->as<IfStmt>().thenBody, depth);
            region(s->as<IfStmt>().elseBody, depth);
            break;
          default: break;
        }
      }
    }
    void region(const Block& b, int depth) {
      stats.maxNesting = std::max(stats.maxNesting, depth + 1);
      block(b, depth + 1);
    }
  };
  Walker w{stats};
  for (const Function& f : p.functions) w.block(f.body, 0);
  return stats;
}

/// PTODIFF_GEN_COUNT, or `fallback`.
inline int genCount(int fallback) {
  const char* v = std::getenv("PTODIFF_GEN_COUNT");
  return v ? std::atoi(v) : fallback;
}

}  // namespace ptodiff::fuzz::gentest
