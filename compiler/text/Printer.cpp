// The printer of the program text format: one canonical spelling per IR, read back by the parser
// to a structurally equal program.
//
// Canonical choices: 4-space indentation; op arguments follow the spec's op table (required
// parameters positionally, the optional/space parameters of Tile ops by keyword); types print only
// what differs from the space's implicit view; `pl.range` drops a start of 0 and a step of 1;
// parentheses appear only where precedence needs them; floats print in their shortest
// round-tripping form and always re-lex as floats.
#include "compiler/text/Printer.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "compiler/ir/TypeText.h"

namespace ptodiff {

namespace {

// Longer signatures put one parameter per line; longer op-call statements wrap their arguments.
constexpr size_t kMaxSignatureWidth = 110;
constexpr size_t kMaxLineWidth = 120;

// Python precedence levels of the expressions the format has (higher binds tighter).
enum Prec : int { kOr = 1, kAnd, kNot, kCompare, kAdd, kMul, kUnary, kAtom };

int binaryPrecedence(BinOp op) {
  switch (op) {
    case BinOp::Or: return kOr;
    case BinOp::And: return kAnd;
    case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge: case BinOp::Eq: case BinOp::Ne:
      return kCompare;
    case BinOp::Add: case BinOp::Sub: return kAdd;
    case BinOp::Mul: case BinOp::FloorDiv: case BinOp::Mod: return kMul;
  }
  return kAtom;
}

int precedence(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Binary: return binaryPrecedence(e.binop);
    case Expr::Kind::Unary: return e.unop == UnOp::Neg ? kUnary : kNot;
    // A negative literal prints with a leading '-' and so binds like a unary minus.
    case Expr::Kind::IntLit: return e.intValue < 0 ? kUnary : kAtom;
    case Expr::Kind::FloatLit: return std::signbit(e.floatValue) ? kUnary : kAtom;
    default: return kAtom;
  }
}

std::string formatFloat(double v) {
  if (std::isnan(v)) throw std::invalid_argument("printer: a NaN float literal has no text form");
  // Python reads 1e999 as inf, so infinities stay literals.
  if (std::isinf(v)) return v > 0 ? "1e999" : "-1e999";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) throw std::logic_error("printer: to_chars failed on a float literal");
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // 2 would re-lex as an integer
  return s;
}

/// Whether a Call argument prints as `name=value` (the spec's op table).
bool printsByKeyword(const OpInfo& info, const ParamSpec& param) {
  if (info.stage != OpStage::Tile) return false;
  std::string_view n = param.name;
  if (n == "valid_shape" || n == "target_memory" || n == "init_cond" || n == "addr") return true;
  bool fillOrCreate = info.family == OpFamily::Full || info.family == OpFamily::Create;
  return fillOrCreate && (n == "dtype" || n == "value");
}

class ExprPrinter {
 public:
  std::string out;

  void print(const Expr& e, int contextPrec = 0) {
    bool paren = precedence(e) < contextPrec;
    if (paren) out += '(';
    printBare(e);
    if (paren) out += ')';
  }

  /// `(a, b)`; a one-element tuple keeps its trailing comma.
  void printTuple(const std::vector<ExprPtr>& elems) {
    out += '(';
    printList(elems);
    if (elems.size() == 1) out += ',';
    out += ')';
  }

  void printList(const std::vector<ExprPtr>& elems) {
    for (size_t i = 0; i < elems.size(); ++i) {
      if (i) out += ", ";
      print(*elems[i]);
    }
  }

 private:
  void printBare(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::IntLit: out += std::to_string(e.intValue); return;
      case Expr::Kind::FloatLit: out += formatFloat(e.floatValue); return;
      case Expr::Kind::BoolLit: out += e.boolValue ? "True" : "False"; return;
      case Expr::Kind::Name: out += e.name; return;
      case Expr::Kind::Unary:
        out += e.unop == UnOp::Neg ? "-" : "not ";
        print(*e.args[0], precedence(e));
        return;
      case Expr::Kind::Binary: {
        int p = binaryPrecedence(e.binop);
        // Left-associative: the right operand at the same level needs parentheses. Comparisons do
        // not chain, so both of their operands must bind tighter.
        print(*e.args[0], p == kCompare ? p + 1 : p);
        out += " ";
        out += binOpSpelling(e.binop);
        out += " ";
        print(*e.args[1], p + 1);
        return;
      }
      case Expr::Kind::Call: printCall(e); return;
      case Expr::Kind::List:
        out += '[';
        printList(e.args);
        out += ']';
        return;
      case Expr::Kind::DTypeRef: out += "pl." + std::string(dtypeName(e.dtype)); return;
      case Expr::Kind::SpaceRef: out += "pl.Mem." + std::string(memSpaceName(e.space)); return;
    }
  }

  void printCall(const Expr& e) {
    out += "pl.";
    out += opInfo(e.op).spelling;
    out += '(';
    printCallArguments(e);
    out += ')';
  }

 public:
  /// The arguments of a call, without the parentheses.
  void printCallArguments(const Expr& e) {
    const OpInfo& info = opInfo(e.op);
    bool first = true, keywordsOnly = false;
    for (size_t i = 0; i < info.params.size(); ++i) {
      const Expr* arg = i < e.args.size() ? e.args[i].get() : nullptr;
      if (!arg) {  // omitted: every later argument must name its parameter
        keywordsOnly = true;
        continue;
      }
      if (!first) out += ", ";
      first = false;
      const ParamSpec& param = info.params[i];
      keywordsOnly = keywordsOnly || printsByKeyword(info, param);
      if (keywordsOnly) out += std::string(param.name) + "=";
      if (param.kind == ParamKind::ValidTuple && arg->kind == Expr::Kind::List) printTuple(arg->args);
      else print(*arg);
    }
  }
};

/// The `pl.TileView(...)` fields of a tile or buffer type that differ from the implicit view
/// (layout fields already covered by a buffer's `pl.Layout.X` shorthand excluded).
std::string tileViewText(const Type& t, bool layoutPairPrinted) {
  Layout implicit = implicitLayout(t.space, t.rows(), t.cols());
  std::vector<std::string> fields;
  Type canonical = t;
  canonical.canonicalizeValid();
  if (canonical.valid)
    fields.push_back("valid_shape=[" + extentText((*canonical.valid)[0], "-1") + ", " +
                     extentText((*canonical.valid)[1], "-1") + "]");
  if (!layoutPairPrinted) {
    if (t.layout.blayout != implicit.blayout)
      fields.push_back("blayout=pl.TileLayout." + std::string(tileLayoutName(t.layout.blayout)));
    if (t.layout.slayout != implicit.slayout)
      fields.push_back("slayout=pl.TileLayout." + std::string(tileLayoutName(t.layout.slayout)));
  }
  if (t.layout.fractal != implicit.fractal) fields.push_back("fractal=" + std::to_string(t.layout.fractal));
  if (fields.empty()) return "";
  std::string s = "pl.TileView(";
  for (size_t i = 0; i < fields.size(); ++i) s += (i ? ", " : "") + fields[i];
  return s + ")";
}

std::string tileOrBufferText(const Type& t) {
  bool isBuffer = t.isBuffer();
  std::string s = isBuffer ? "pl.Buffer[" : "pl.Tile[";
  s += shapeText(t.shape) + ", pl." + std::string(dtypeName(t.dtype));
  if (t.memref)
    s += ", pl.MemRef(" + t.memref->base + ", " + extentText(t.memref->offset, "-1") + ", " +
         std::to_string(t.memref->size) + ")";
  s += ", pl.Mem." + std::string(memSpaceName(t.space));
  bool layoutPairPrinted = false;
  if (isBuffer) {
    Layout implicit = implicitLayout(t.space, t.rows(), t.cols());
    bool pairDiffers = t.layout.blayout != implicit.blayout || t.layout.slayout != implicit.slayout;
    if (auto name = layoutShorthandName(t.layout); name && pairDiffers) {
      s += ", pl.Layout." + std::string(*name);
      layoutPairPrinted = true;
    }
  }
  std::string view = tileViewText(t, layoutPairPrinted);
  if (!view.empty()) s += ", " + view;
  return s + "]";
}

class ProgramPrinter {
 public:
  std::string out;

  void program(const Program& p) {
    out += "# pypto.program: " + p.name + "\n";
    out += "import pypto.language as pl\n\n";
    out += "@pl.program\n";
    out += "class " + p.name + ":\n";
    if (p.functions.empty()) line(1, "pass");
    for (size_t i = 0; i < p.functions.size(); ++i) {
      if (i) out += "\n";
      function(p.functions[i]);
    }
  }

 private:
  void line(int depth, const std::string& text) {
    out.append(static_cast<size_t>(depth) * 4, ' ');
    out += text;
    out += '\n';
  }

  static std::string expr(const Expr& e) {
    ExprPrinter p;
    p.print(e);
    return p.out;
  }
  static std::string exprList(const std::vector<ExprPtr>& v) {
    ExprPrinter p;
    p.printList(v);
    return p.out;
  }
  static std::string tuple(const std::vector<ExprPtr>& v) {
    ExprPrinter p;
    p.printTuple(v);
    return p.out;
  }
  static std::string binderTuple(const std::vector<Binder>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].name;
    if (v.size() == 1) s += ",";
    return s + ")";
  }

  void function(const Function& f) {
    std::string deco = "@pl.function(type=pl.FunctionType." + std::string(functionTypeName(f.type));
    if (f.stage == FunctionStage::Buffer) deco += ", stage=pl.FunctionIRStage.Buffer";
    if (f.bufferIRSelected) deco += std::string(", buffer_ir_selected=") + (*f.bufferIRSelected ? "True" : "False");
    line(1, deco + ")");
    line(1, signature(f));
    block(2, f.body);
  }

  std::string signature(const Function& f) {
    std::vector<std::string> params;
    for (const auto& p : f.params) {
      std::string type = printType(p.type);
      if (p.direction == ParamDirection::Out) type = "pl.Out[" + type + "]";
      if (p.direction == ParamDirection::InOut) type = "pl.InOut[" + type + "]";
      params.push_back(p.name + ": " + type);
    }
    std::string tail = ")";
    if (f.results.size() == 1) tail += " -> " + printType(f.results[0]);
    if (f.results.size() > 1) {
      tail += " -> tuple[";
      for (size_t i = 0; i < f.results.size(); ++i) tail += (i ? ", " : "") + printType(f.results[i]);
      tail += "]";
    }
    tail += ":";
    std::string head = "def " + f.name + "(";
    std::string oneLine = head + "self";
    for (const auto& p : params) oneLine += ", " + p;
    oneLine += tail;
    if (oneLine.size() + 4 <= kMaxSignatureWidth || params.empty()) return oneLine;
    // One parameter per line, aligned after the opening parenthesis (the parser joins lines
    // inside brackets).
    std::string indent(4 + head.size(), ' ');
    std::string s = head + "self,";
    for (size_t i = 0; i < params.size(); ++i) s += "\n" + indent + params[i] + (i + 1 < params.size() ? "," : "");
    return s + tail;
  }

  void block(int depth, const Block& body) {
    if (body.empty()) line(depth, "pass");
    for (const auto& s : body) stmt(depth, *s);
  }

  void stmt(int depth, const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: {
        const auto& a = s.as<AssignStmt>();
        valueLine(depth, binderText(a.target) + " = ", *a.value);
        return;
      }
      case Stmt::Kind::Eval: valueLine(depth, "", *s.as<EvalStmt>().expr); return;
      case Stmt::Kind::Return: {
        const auto& r = s.as<ReturnStmt>();
        line(depth, r.values.empty() ? "return" : "return " + exprList(r.values));
        return;
      }
      case Stmt::Kind::Yield: line(depth, yieldText(s.as<YieldStmt>())); return;
      case Stmt::Kind::For: forStmt(depth, s.as<ForStmt>()); return;
      case Stmt::Kind::If: {
        const auto& i = s.as<IfStmt>();
        line(depth, "if " + expr(*i.cond) + ":");
        block(depth + 1, i.thenBody);
        if (!i.elseBody.empty()) {
          line(depth, "else:");
          block(depth + 1, i.elseBody);
        }
        return;
      }
      case Stmt::Kind::While: {
        const auto& w = s.as<WhileStmt>();
        line(depth, "for " + binderTuple(w.iterArgs) + " in pl.while_(init_values=" + tuple(w.inits) + "):");
        line(depth + 1, "pl.cond(" + expr(*w.cond) + ")");
        for (const auto& b : w.body) stmt(depth + 1, *b);
        return;
      }
    }
  }

  /// `PREFIX VALUE` on one line; a line too long for kMaxLineWidth whose value is an op call is
  /// wrapped inside the call's parentheses when that makes its first line fit (the parser joins
  /// lines inside brackets):
  ///     x: pl.Tile[...] = pl.tile.load(
  ///         a, [0, 0], [16, 32], target_memory=pl.Mem.Mat
  ///     )
  void valueLine(int depth, const std::string& prefix, const Expr& value) {
    std::string oneLine = prefix + expr(value);
    bool tooLong = static_cast<size_t>(depth) * 4 + oneLine.size() > kMaxLineWidth;
    if (!tooLong || value.kind != Expr::Kind::Call) return line(depth, oneLine);
    std::string opening = prefix + "pl." + std::string(opInfo(value.op).spelling) + "(";
    ExprPrinter args;
    args.printCallArguments(value);
    // Wrapping helps only when the opening line itself fits (a long annotation stays as it is).
    bool openingFits = static_cast<size_t>(depth) * 4 + opening.size() <= kMaxLineWidth;
    if (args.out.empty() || !openingFits) return line(depth, oneLine);
    line(depth, opening);
    line(depth + 1, args.out);
    line(depth, ")");
  }

  static std::string binderText(const Binder& b) {
    return b.annotation ? b.name + ": " + printType(*b.annotation) : b.name;
  }

  /// `r1, r2 = pl.yield_(v1, v2)`. Python has no syntax for annotating several targets at once,
  /// so only a single target prints its annotation.
  static std::string yieldText(const YieldStmt& y) {
    std::string s;
    if (y.targets.size() == 1) s = binderText(y.targets[0]) + " = ";
    if (y.targets.size() > 1) {
      for (size_t i = 0; i < y.targets.size(); ++i) s += (i ? ", " : "") + y.targets[i].name;
      s += " = ";
    }
    return s + "pl.yield_(" + exprList(y.values) + ")";
  }

  static bool isIntLit(const Expr& e, int64_t v) { return e.kind == Expr::Kind::IntLit && e.intValue == v; }

  void forStmt(int depth, const ForStmt& f) {
    std::string head = "for " + f.inductionVar.name;
    bool carries = !f.iterArgs.empty() || !f.inits.empty();
    if (carries) head += ", " + binderTuple(f.iterArgs);
    // The short forms pl.range(stop) and pl.range(start, stop) reparse with start 0 / step 1.
    std::string range;
    bool unitStep = isIntLit(*f.step, 1);
    if (unitStep && isIntLit(*f.start, 0)) range = expr(*f.stop);
    else if (unitStep) range = expr(*f.start) + ", " + expr(*f.stop);
    else range = expr(*f.start) + ", " + expr(*f.stop) + ", " + expr(*f.step);
    if (carries) range += ", init_values=" + tuple(f.inits);
    line(depth, head + " in pl.range(" + range + "):");
    block(depth + 1, f.body);
  }
};

}  // namespace

std::string printProgram(const Program& p) {
  ProgramPrinter printer;
  printer.program(p);
  return printer.out;
}

std::string printType(const Type& t) {
  switch (t.kind) {
    case Type::Kind::None: return "None";
    case Type::Kind::Scalar: return "pl.Scalar[pl." + std::string(dtypeName(t.dtype)) + "]";
    case Type::Kind::Tensor: return "pl.Tensor[" + shapeText(t.shape) + ", pl." + std::string(dtypeName(t.dtype)) + "]";
    case Type::Kind::Tile:
    case Type::Kind::Buffer: return tileOrBufferText(t);
    case Type::Kind::Ptr: return "pl.Ptr";
  }
  return "None";
}

std::string printExpr(const Expr& e) {
  ExprPrinter p;
  p.print(e);
  return p.out;
}

}  // namespace ptodiff
