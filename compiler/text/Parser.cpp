// Recursive-descent parser of the program text format (spec/text-format.md).
//
// The grammar is a strict subset of Python: one `@pl.program` class of `@pl.function` methods,
// SSA assignments, `pl.range` / `pl.while_` loops written as Python `for` statements, `if`/`else`
// and `pl.yield_`. Anything outside the subset is rejected at the offending token with a message
// naming what was found and what was expected. The parser checks syntax only: op arguments are
// bound to the registry's parameter lists and checked for their syntactic kind (a shape is a list
// of integer literals, a space is `pl.Mem.X`, ...); names and types are the verifier's job.
#include "compiler/text/Parser.h"

#include <charconv>
#include <cstdlib>
#include <concepts>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <sstream>

#include "compiler/ir/ResourceLimits.h"
#include "compiler/text/Lexer.h"
#include "compiler/text/Printer.h"

namespace ptodiff {

namespace {

constexpr std::string_view kPythonKeywords[] = {
    "False", "None",   "True",  "and",    "as",     "assert", "async",    "await", "break",
    "class", "continue", "def", "del",    "elif",   "else",   "except",   "finally", "for",
    "from",  "global", "if",    "import", "in",     "is",     "lambda",   "nonlocal", "not",
    "or",    "pass",   "raise", "return", "try",    "while",  "with",     "yield"};

bool isKeyword(std::string_view s) {
  for (auto k : kPythonKeywords)
    if (k == s) return true;
  return false;
}

/// Statements Python has and the format does not, with the advice given when one is written.
std::string unsupportedStatementMessage(std::string_view keyword) {
  if (keyword == "while") return "'while' loops are not supported; write 'for (c1, ...) in pl.while_(init_values=(...)):'";
  if (keyword == "def") return "nested function definitions are not supported";
  if (keyword == "class") return "nested classes are not supported";
  if (keyword == "elif") return "'elif' is not supported; write 'else:' with a nested 'if'";
  if (keyword == "else") return "'else' without a matching 'if'";
  if (keyword == "import" || keyword == "from")
    return "imports are only allowed at the top of the file ('import pypto.language as pl')";
  return "'" + std::string(keyword) + "' statements are not supported in the program text format";
}

std::string joinNames(std::span<const std::string_view> names, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += sep;
    out += names[i];
  }
  return out;
}

std::string allDTypeNames() {
  std::string out;
  for (int i = 0; i <= static_cast<int>(DType::BOOL); ++i) {
    if (i) out += ", ";
    out += "pl." + std::string(dtypeName(static_cast<DType>(i)));
  }
  return out;
}

/// `pl.tile.load(tensor, offsets, shapes, valid_shape=None, target_memory=None)`
std::string opSignature(const OpInfo& info) {
  std::string out = "pl." + std::string(info.spelling) + "(";
  for (size_t i = 0; i < info.params.size(); ++i) {
    if (i) out += ", ";
    out += info.params[i].name;
    if (info.params[i].optional) out += "=None";
  }
  return out + ")";
}

std::string opName(const OpInfo& info) { return "pl." + std::string(info.spelling); }

/// A short description of an expression for "found X" messages.
std::string describeExpr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::IntLit: return "integer literal " + printExpr(e);
    case Expr::Kind::FloatLit: return "float literal " + printExpr(e);
    case Expr::Kind::BoolLit: return "'" + printExpr(e) + "'";
    case Expr::Kind::Name: return "name '" + e.name + "'";
    case Expr::Kind::Unary:
    case Expr::Kind::Binary: return "expression '" + printExpr(e) + "'";
    case Expr::Kind::Call: return "a call of pl." + std::string(opInfo(e.op).spelling);
    case Expr::Kind::List: return "a list";
    case Expr::Kind::DTypeRef: return "dtype pl." + std::string(dtypeName(e.dtype));
    case Expr::Kind::SpaceRef: return "memory space pl.Mem." + std::string(memSpaceName(e.space));
  }
  return "an expression";
}

bool isScalarShaped(const Expr& e) {
  return e.kind != Expr::Kind::List && e.kind != Expr::Kind::DTypeRef && e.kind != Expr::Kind::SpaceRef;
}

/// One argument of a call as written: `value`, `name=value`, or `None` (value == nullptr).
struct RawArg {
  std::string keyword;  // empty for a positional argument
  ExprPtr value;        // nullptr for `None`
  SourceLoc loc;        // the value's (or keyword's) location
};

/// The loop targets of a `for` header: `i`, `i, (c1, c2)` or `(c1, c2)`.
struct LoopTargets {
  std::optional<Binder> inductionVar;
  std::vector<Binder> iterArgs;
};

class Parser {
 public:
  explicit Parser(std::shared_ptr<const SourceFile> source)
      : source_(std::move(source)), toks_(lexProgram(*source_)) {}

  Program parseProgram();

 private:
  std::shared_ptr<const SourceFile> source_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  // Nesting and size are bounded (ResourceLimits) so hostile input cannot overflow the stack of the
  // parser or of the recursive walkers after it (verifier, printer, passes, interpreters).
  int nesting_ = 0;       // expression depth: parentheses, unary operators, calls, operator chains
  int blockDepth_ = 0;    // for/while/if bodies inside the function body
  int64_t statements_ = 0;

  struct NestingGuard {
    Parser& p;
    int levels = 0;
    NestingGuard(Parser& parser, SourceLoc loc) : p(parser) { deeper(loc); }
    explicit NestingGuard(Parser& parser) : p(parser) {}  // levels added by deeper()
    /// One level more (a binary operator chain nests its left operand one level per operator).
    void deeper(SourceLoc loc) {
      ++levels;
      const int64_t limit = resourceLimits().maxExprDepth;
      if (++p.nesting_ > limit) p.fail(loc, "nested too deeply (more than " + std::to_string(limit) + " levels)");
    }
    ~NestingGuard() { p.nesting_ -= levels; }
  };
  struct BlockGuard {
    Parser& p;
    BlockGuard(Parser& parser, SourceLoc loc) : p(parser) {
      const int64_t limit = resourceLimits().maxNestingDepth;
      if (++p.blockDepth_ > limit)
        p.fail(loc, "blocks nested too deeply: more than " + std::to_string(limit) +
                        " levels of for/while/if bodies (expected shallower control flow)");
    }
    ~BlockGuard() { --p.blockDepth_; }
  };

  // ---- token helpers ----
  const Token& cur() const { return toks_[pos_]; }
  const Token& ahead(size_t n) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  const Token& take() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  [[noreturn]] void fail(SourceLoc loc, std::string message) const {
    throwError(source_->name, loc, std::move(message));
  }
  /// "expected WHAT, found <current token>" at the current token.
  [[noreturn]] void expected(std::string_view what) const {
    if (cur().kind == TokKind::Indent) fail(cur().loc, "unexpected indent");
    fail(cur().loc, "expected " + std::string(what) + ", found " + describeToken(cur()));
  }
  bool acceptPunct(std::string_view p) {
    if (!cur().isPunct(p)) return false;
    take();
    return true;
  }
  const Token& expectPunct(std::string_view p, std::string_view context) {
    if (!cur().isPunct(p)) expected("'" + std::string(p) + "' " + std::string(context));
    return take();
  }
  /// expectPunct with a context built only for the error (it names a type or a callee).
  template <std::invocable Context>
  const Token& expectPunct(std::string_view p, const Context& context) {
    if (!cur().isPunct(p)) expected("'" + std::string(p) + "' " + context());
    return take();
  }
  const Token& expectKeyword(std::string_view k, std::string_view context) {
    if (!cur().isName(k)) expected("'" + std::string(k) + "' " + std::string(context));
    return take();
  }
  void expectNewline(std::string_view context) {
    if (cur().kind != TokKind::Newline) expected("NEWLINE " + std::string(context));
    take();
  }
  /// Consumes the `pl . NAME` of a call already recognised by atPlCall.
  void skipPlName() {
    for (int i = 0; i < 3; ++i) take();
  }
  bool atPlPath(std::string_view name) const {
    return cur().isName("pl") && ahead(1).isPunct(".") && ahead(2).isName(name);
  }
  bool atPlCall(std::string_view name) const { return atPlPath(name) && ahead(3).isPunct("("); }

  /// A name being bound (not a keyword, not `pl`).
  Binder parseBinderName(std::string_view context) {
    if (cur().kind != TokKind::Name || isKeyword(cur().text)) expected("a name " + std::string(context));
    if (cur().text == "pl") fail(cur().loc, "'pl' is reserved for the pypto.language module and cannot be bound");
    Binder b;
    b.name = cur().text;
    b.loc = cur().loc;
    take();
    return b;
  }

  /// `pl.A.B.C` starting at the current `pl` token: returns "A.B.C".
  std::string parsePlPath(std::string_view context) {
    if (!cur().isName("pl")) expected(context);
    take();
    std::string path;
    while (acceptPunct(".")) {
      if (cur().kind != TokKind::Name) expected("a name after '.'");
      if (!path.empty()) path += ".";
      path += take().text;
    }
    if (path.empty()) expected("'.' after 'pl'");
    return path;
  }

  // ---- literals ----
  int64_t parseIntToken(const Token& t) const {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || ptr != t.text.data() + t.text.size())
      fail(t.loc, "integer literal " + std::string(t.text) + " does not fit in 64 bits");
    return v;
  }
  double parseFloatToken(const Token& t) const {
    double v = 0;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec == std::errc::result_out_of_range) {
      // Python reads an out-of-range literal as inf (1e999) or a rounded tiny value (1e-400);
      // strtod rounds the same way.
      return std::strtod(std::string(t.text).c_str(), nullptr);
    }
    if (ec != std::errc() || ptr != t.text.data() + t.text.size()) fail(t.loc, "invalid float literal " + std::string(t.text));
    return v;
  }
  int64_t expectIntLiteral(std::string_view context) {
    if (cur().kind != TokKind::Int) expected("an integer literal " + std::string(context));
    return parseIntToken(take());
  }

  // ---- program structure ----
  void parseImport();
  Function parseFunction();
  void parseFunctionDecorator(Function& f);
  void parseParams(Function& f);
  Type parseParamType(ParamDirection& direction);
  std::vector<Type> parseResultTypes();

  // ---- types ----
  Type parseType(std::string_view context);
  Shape parseTypeShape(std::string_view typeName);
  DType parseDTypeRef(std::string_view context);
  Type parseTileOrBufferType(bool isBuffer);
  MemRef parseMemRef();
  Extent parseExtent(std::string_view context);
  struct TileViewFields {
    std::optional<ValidShape> valid;
    std::optional<TileLayout> blayout, slayout;
    std::optional<int> fractal;
  };
  TileViewFields parseTileView();
  TileLayout parseTileLayoutRef();

  // ---- statements ----
  Block parseIndentedBlock(std::string_view owner, bool functionBody = false);
  void expectBlockStart(std::string_view owner);
  void parseStatement(Block& out, bool functionBody);
  StmtPtr parseFor();
  StmtPtr parseIf();
  StmtPtr parseReturn();
  StmtPtr parseSimpleStatement();
  StmtPtr parseYieldRest(std::vector<Binder> targets, SourceLoc loc);
  LoopTargets parseLoopTargets();
  std::vector<Binder> parseNameTuple(std::string_view context);
  void endStatement();

  // ---- expressions ----
  ExprPtr parseExpr();
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseArith();
  ExprPtr parseTerm();
  ExprPtr parseUnary();
  ExprPtr parsePrimary();
  ExprPtr parseParenthesized();
  ExprPtr parseListLiteral();
  ExprPtr parsePlExpr();
  std::vector<RawArg> parseCallArgs(std::string_view callee);
  ExprPtr bindOpCall(Opcode op, std::vector<RawArg> args, SourceLoc loc);
  void checkArgKind(const OpInfo& info, const ParamSpec& param, const Expr& arg) const;
  void checkScalarArg(std::string_view what, const Expr& e) const;
};

// ============================================================================================
// Program structure
// ============================================================================================

Program Parser::parseProgram() {
  Program p;
  p.source = source_;
  if (cur().isName("import") || cur().isName("from")) parseImport();
  expectPunct("@", "to start the '@pl.program' decorator");
  SourceLoc decoLoc = cur().loc;
  if (parsePlPath("'pl.program' after '@'") != "program")
    fail(decoLoc, "expected '@pl.program' before the program class");
  expectNewline("after '@pl.program'");
  expectKeyword("class", "after '@pl.program'");
  Binder cls = parseBinderName("after 'class'");
  p.name = cls.name;
  if (cur().isPunct("(")) fail(cur().loc, "base classes are not supported; expected ':' after the class name");
  expectPunct(":", "after the class name");
  expectNewline("after 'class " + p.name + ":'");
  if (cur().kind != TokKind::Indent) expected("an indented block of functions after 'class " + p.name + ":'");
  take();
  while (cur().kind != TokKind::Dedent && cur().kind != TokKind::End) {
    if (cur().isName("pass")) {  // the printed form of a program without functions
      take();
      expectNewline("after 'pass'");
      continue;
    }
    p.functions.push_back(parseFunction());
  }
  take();  // the class body's DEDENT
  if (cur().kind != TokKind::End) expected("end of file after the program class");
  return p;
}

void Parser::parseImport() {
  SourceLoc loc = cur().loc;
  bool ok = cur().isName("import") && ahead(1).isName("pypto") && ahead(2).isPunct(".") &&
            ahead(3).isName("language") && ahead(4).isName("as") && ahead(5).isName("pl");
  if (!ok) fail(loc, "expected 'import pypto.language as pl'; no other import is supported");
  for (int i = 0; i < 6; ++i) take();
  expectNewline("after 'import pypto.language as pl'");
}

Function Parser::parseFunction() {
  Function f;
  parseFunctionDecorator(f);
  if (cur().isPunct("@")) fail(cur().loc, "a function takes exactly one decorator, '@pl.function(...)'");
  expectKeyword("def", "after the '@pl.function(...)' decorator");
  Binder name = parseBinderName("after 'def'");
  f.name = name.name;
  f.loc = name.loc;
  parseParams(f);
  if (acceptPunct("->")) f.results = parseResultTypes();
  expectPunct(":", "after the function signature");
  f.body = parseIndentedBlock("the definition of '" + f.name + "'", /*functionBody=*/true);
  return f;
}

void Parser::parseFunctionDecorator(Function& f) {
  if (!cur().isPunct("@")) expected("'@pl.function(...)' before a function");
  take();
  SourceLoc loc = cur().loc;
  if (parsePlPath("'pl.function' after '@'") != "function") fail(loc, "expected '@pl.function(...)' before a function");
  expectPunct("(", "after '@pl.function'");
  bool sawType = false, sawStage = false;
  while (!cur().isPunct(")")) {
    if (cur().kind != TokKind::Name || !ahead(1).isPunct("="))
      expected("a keyword argument type=, stage= or buffer_ir_selected= of @pl.function");
    const Token& key = take();
    take();  // '='
    SourceLoc valueLoc = cur().loc;
    if (key.text == "type") {
      if (sawType) fail(key.loc, "duplicate argument 'type' of @pl.function");
      sawType = true;
      std::string path = parsePlPath("pl.FunctionType.X after 'type='");
      static const std::pair<std::string_view, FunctionType> kTypes[] = {
          {"FunctionType.InCore", FunctionType::InCore}, {"FunctionType.AIC", FunctionType::AIC},
          {"FunctionType.AIV", FunctionType::AIV}, {"FunctionType.Orchestration", FunctionType::Orchestration}};
      bool found = false;
      for (auto [spelling, t] : kTypes) {
        if (path != spelling) continue;
        f.type = t;
        found = true;
      }
      if (!found)
        fail(valueLoc, "unknown function type 'pl." + path +
                           "'; expected pl.FunctionType.InCore, AIC, AIV or Orchestration");
    } else if (key.text == "stage") {
      if (sawStage) fail(key.loc, "duplicate argument 'stage' of @pl.function");
      sawStage = true;
      std::string path = parsePlPath("pl.FunctionIRStage.X after 'stage='");
      if (path == "FunctionIRStage.Tile") f.stage = FunctionStage::Tile;
      else if (path == "FunctionIRStage.Buffer") f.stage = FunctionStage::Buffer;
      else fail(valueLoc, "unknown function stage 'pl." + path + "'; expected pl.FunctionIRStage.Tile or Buffer");
    } else if (key.text == "buffer_ir_selected") {
      if (f.bufferIRSelected) fail(key.loc, "duplicate argument 'buffer_ir_selected' of @pl.function");
      if (!cur().isName("True") && !cur().isName("False"))
        fail(valueLoc, "buffer_ir_selected must be True or False, found " + describeToken(cur()));
      f.bufferIRSelected = take().text == "True";
    } else {
      fail(key.loc, "unknown argument '" + std::string(key.text) +
                        "' of @pl.function; expected type=, stage= or buffer_ir_selected=");
    }
    if (!acceptPunct(",")) break;
  }
  expectPunct(")", "to close '@pl.function('");
  expectNewline("after the '@pl.function(...)' decorator");
}

void Parser::parseParams(Function& f) {
  expectPunct("(", "after the function name");
  if (!cur().isName("self")) expected("'self' as the first parameter of '" + f.name + "'");
  take();
  while (acceptPunct(",")) {
    if (cur().isPunct(")")) break;
    if (cur().isPunct("*") || cur().isPunct("**")) fail(cur().loc, "star-parameters are not supported");
    Binder name = parseBinderName("for a parameter");
    if (!cur().isPunct(":")) expected("':' and a type after parameter '" + name.name + "'");
    take();
    Param p;
    p.name = name.name;
    p.loc = name.loc;
    p.type = parseParamType(p.direction);
    if (cur().isPunct("=")) fail(cur().loc, "default parameter values are not supported");
    f.params.push_back(std::move(p));
  }
  expectPunct(")", "to close the parameter list");
}

Type Parser::parseParamType(ParamDirection& direction) {
  direction = ParamDirection::In;
  if (atPlPath("Out") || atPlPath("InOut")) {
    direction = ahead(2).text == "Out" ? ParamDirection::Out : ParamDirection::InOut;
    std::string wrapper = "pl." + std::string(ahead(2).text);
    skipPlName();
    expectPunct("[", [&] { return "after '" + wrapper + "'"; });
    Type t = parseType("inside " + wrapper + "[...]");
    expectPunct("]", [&] { return "to close '" + wrapper + "['"; });
    return t;
  }
  return parseType("for the parameter");
}

std::vector<Type> Parser::parseResultTypes() {
  if (!cur().isName("tuple")) return {parseType("after '->'")};
  take();
  expectPunct("[", "after 'tuple'");
  std::vector<Type> out;
  do {
    if (cur().isPunct("]")) break;
    out.push_back(parseType("in tuple[...]"));
  } while (acceptPunct(","));
  expectPunct("]", "to close 'tuple['");
  return out;
}

// ============================================================================================
// Types
// ============================================================================================

Type Parser::parseType(std::string_view context) {
  SourceLoc loc = cur().loc;
  if (!cur().isName("pl")) expected("a type like pl.Tile[...] " + std::string(context));
  std::string kind = parsePlPath("a type");
  if (kind == "Tensor") {
    expectPunct("[", "after 'pl.Tensor'");
    Shape shape = parseTypeShape("pl.Tensor");
    expectPunct(",", "after the shape of pl.Tensor");
    DType dt = parseDTypeRef("as the dtype of pl.Tensor");
    expectPunct("]", "to close 'pl.Tensor['");
    return Type::tensor(shape, dt);
  }
  if (kind == "Tile" || kind == "Buffer") return parseTileOrBufferType(kind == "Buffer");
  if (kind == "Scalar") {
    expectPunct("[", "after 'pl.Scalar'");
    DType dt = parseDTypeRef("as the dtype of pl.Scalar");
    expectPunct("]", "to close 'pl.Scalar['");
    return Type::scalar(dt);
  }
  if (kind == "Ptr") return Type::ptr();
  if (kind == "Out" || kind == "InOut") fail(loc, "pl." + kind + "[...] is only allowed on function parameters");
  fail(loc, "unknown type 'pl." + kind + "'; expected pl.Tensor, pl.Tile, pl.Buffer, pl.Scalar or pl.Ptr");
}

Shape Parser::parseTypeShape(std::string_view typeName) {
  SourceLoc loc = cur().loc;
  std::string close = cur().isPunct("(") ? ")" : "]";
  if (!cur().isPunct("[") && !cur().isPunct("("))
    expected("a shape like [16, 32] as the first part of " + std::string(typeName));
  take();
  std::vector<int64_t> shape;
  while (!cur().isPunct(close)) {
    if (cur().kind != TokKind::Int) expected("an integer literal in the shape of " + std::string(typeName));
    shape.push_back(parseIntToken(take()));
    if (!acceptPunct(",")) break;
  }
  expectPunct(close, [&] { return "to close the shape of " + std::string(typeName); });
  if (shape.size() != 2)
    fail(loc, std::string(typeName) + " must have rank 2 ([rows, cols]), found rank " + std::to_string(shape.size()));
  return Shape(shape);
}

DType Parser::parseDTypeRef(std::string_view context) {
  SourceLoc loc = cur().loc;
  if (!cur().isName("pl")) expected("a dtype like pl.FP32 " + std::string(context));
  std::string name = parsePlPath("a dtype");
  auto dt = parseDType(name);
  if (!dt) fail(loc, "unknown dtype 'pl." + name + "'; expected one of " + allDTypeNames());
  return *dt;
}

Type Parser::parseTileOrBufferType(bool isBuffer) {
  const std::string typeName = isBuffer ? "pl.Buffer" : "pl.Tile";
  expectPunct("[", [&] { return "after '" + typeName + "'"; });
  Shape shape = parseTypeShape(typeName);
  expectPunct(",", [&] { return "after the shape of " + typeName; });
  DType dt = parseDTypeRef(isBuffer ? "as the dtype of pl.Buffer" : "as the dtype of pl.Tile");

  std::optional<MemSpace> space;
  std::optional<MemRef> memref;
  std::optional<TileViewFields> view;
  std::optional<std::string> shorthand;
  while (acceptPunct(",")) {
    if (cur().isPunct("]")) break;
    SourceLoc partLoc = cur().loc;
    if (cur().kind == TokKind::Name && ahead(1).isPunct("="))
      fail(partLoc, "keyword arguments are not allowed inside [...]; put '" + std::string(cur().text) +
                        "=' inside pl.TileView(...)");
    if (!cur().isName("pl"))
      expected("a " + typeName + " part (pl.Mem.X, pl.MemRef(...), pl.TileView(...))");
    std::string part = parsePlPath("a type part");
    if (part.starts_with("Mem.") || part.starts_with("MemorySpace.")) {
      std::string name = part.substr(part.find('.') + 1);
      auto s = parseMemSpace(name);
      if (!s) fail(partLoc, "unknown memory space 'pl." + part + "'; expected Vec, Mat, Left, Right or Acc");
      if (space) fail(partLoc, "duplicate memory space in " + typeName + " type");
      space = s;
    } else if (part == "MemRef") {
      if (isBuffer) fail(partLoc, "pl.MemRef(...) is only allowed in pl.Tile types");
      if (memref) fail(partLoc, "duplicate pl.MemRef(...) in pl.Tile type");
      memref = parseMemRef();
    } else if (part == "TileView") {
      if (view) fail(partLoc, "duplicate pl.TileView(...) in " + typeName + " type");
      view = parseTileView();
    } else if (part.starts_with("Layout.")) {
      if (!isBuffer)
        fail(partLoc, "pl." + part + " is only allowed in pl.Buffer types; use pl.TileView(blayout=..., slayout=...) for tiles");
      if (!layoutShorthand(part.substr(7), 512))
        fail(partLoc, "unknown layout 'pl." + part + "'; expected pl.Layout.NZ, ZN, ZZ, ND or DN");
      if (shorthand) fail(partLoc, "duplicate layout in pl.Buffer type");
      shorthand = part.substr(7);
    } else {
      fail(partLoc, "unexpected 'pl." + part + "' in " + typeName + " type; expected pl.Mem.X, " +
                        (isBuffer ? "pl.Layout.X" : "pl.MemRef(...)") + " or pl.TileView(...)");
    }
  }
  if (!space) fail(cur().loc, typeName + " type needs a memory space part such as pl.Mem.Vec, found " + describeToken(cur()));
  expectPunct("]", [&] { return "to close '" + typeName + "['"; });

  Type t = isBuffer ? Type::buffer(shape[0], shape[1], dt, *space) : Type::tile(shape[0], shape[1], dt, *space);
  if (shorthand) t.layout = *layoutShorthand(*shorthand, t.layout.fractal);
  if (view) {
    if (view->valid) t.valid = *view->valid;
    if (view->blayout) t.layout.blayout = *view->blayout;
    if (view->slayout) t.layout.slayout = *view->slayout;
    if (view->fractal) t.layout.fractal = *view->fractal;
  }
  t.memref = memref;
  t.canonicalizeValid();
  return t;
}

Extent Parser::parseExtent(std::string_view context) {
  if (cur().kind == TokKind::Int) return Extent::constant(parseIntToken(take()));
  if (cur().isPunct("-") && ahead(1).kind == TokKind::Int) {
    SourceLoc loc = take().loc;
    if (parseIntToken(take()) != 1) fail(loc, "negative extents other than -1 (dynamic) are not allowed " + std::string(context));
    return Extent::dynamic();
  }
  if (cur().kind == TokKind::Name && !isKeyword(cur().text) && cur().text != "pl") return Extent::named(std::string(take().text));
  expected("an integer literal, -1 or a scalar name " + std::string(context));
}

MemRef Parser::parseMemRef() {
  expectPunct("(", "after 'pl.MemRef'");
  MemRef m;
  m.base = parseBinderName("as the base of pl.MemRef(BASE, OFFSET, SIZE)").name;
  expectPunct(",", "after the base of pl.MemRef(BASE, OFFSET, SIZE)");
  m.offset = parseExtent("as the offset of pl.MemRef(BASE, OFFSET, SIZE)");
  expectPunct(",", "after the offset of pl.MemRef(BASE, OFFSET, SIZE)");
  m.size = expectIntLiteral("as the size of pl.MemRef(BASE, OFFSET, SIZE)");
  expectPunct(")", "to close 'pl.MemRef('");
  return m;
}

TileLayout Parser::parseTileLayoutRef() {
  SourceLoc loc = cur().loc;
  std::string path = parsePlPath("pl.TileLayout.X");
  std::optional<TileLayout> l;
  if (path.starts_with("TileLayout.")) l = parseTileLayout(path.substr(11));
  if (!l) fail(loc, "unknown tile layout 'pl." + path + "'; expected pl.TileLayout.none_box, row_major or col_major");
  return *l;
}

Parser::TileViewFields Parser::parseTileView() {
  expectPunct("(", "after 'pl.TileView'");
  TileViewFields v;
  std::vector<std::string> seen;
  while (!cur().isPunct(")")) {
    if (cur().kind != TokKind::Name || !ahead(1).isPunct("="))
      expected("a keyword argument (valid_shape=, blayout=, slayout=, fractal=) of pl.TileView");
    const Token& key = take();
    take();  // '='
    for (const auto& s : seen)
      if (s == key.text) fail(key.loc, "duplicate argument '" + std::string(key.text) + "' of pl.TileView");
    seen.push_back(std::string(key.text));
    if (key.text == "valid_shape") {
      std::string close = cur().isPunct("(") ? ")" : "]";
      SourceLoc loc = cur().loc;
      if (!cur().isPunct("[") && !cur().isPunct("(")) expected("a list [vr, vc] after 'valid_shape='");
      take();
      std::vector<Extent> ext;
      while (!cur().isPunct(close)) {
        ext.push_back(parseExtent("in valid_shape"));
        if (!acceptPunct(",")) break;
      }
      expectPunct(close, "to close valid_shape");
      if (ext.size() != 2) fail(loc, "valid_shape must have 2 entries [rows, cols], found " + std::to_string(ext.size()));
      v.valid = ValidShape(std::array<Extent, 2>{ext[0], ext[1]});
    } else if (key.text == "blayout") {
      v.blayout = parseTileLayoutRef();
    } else if (key.text == "slayout") {
      v.slayout = parseTileLayoutRef();
    } else if (key.text == "fractal") {
      int64_t f = expectIntLiteral("after 'fractal='");
      if (f <= 0 || f > std::numeric_limits<int>::max()) fail(key.loc, "fractal must be a positive byte count");
      v.fractal = static_cast<int>(f);
    } else if (key.text == "pad" || key.text == "compact") {
      // Only the null setting is supported; anything else would change semantics we do not model.
      SourceLoc loc = cur().loc;
      std::string value;
      if (cur().isName("None")) value = take().text;
      else value = "pl." + parsePlPath("a value after '" + std::string(key.text) + "='");
      if (value != "None" && !value.ends_with(".null"))
        fail(loc, std::string(key.text) + "=" + value + " is not supported; only a null " + std::string(key.text) + " is");
    } else {
      fail(key.loc, "unknown argument '" + std::string(key.text) + "' of pl.TileView; expected valid_shape, blayout, slayout or fractal");
    }
    if (!acceptPunct(",")) break;
  }
  expectPunct(")", "to close 'pl.TileView('");
  return v;
}

// ============================================================================================
// Statements
// ============================================================================================

Block Parser::parseIndentedBlock(std::string_view owner, bool functionBody) {
  std::optional<BlockGuard> guard;
  if (!functionBody) guard.emplace(*this, cur().loc);
  expectBlockStart(owner);
  Block body;
  while (cur().kind != TokKind::Dedent && cur().kind != TokKind::End) parseStatement(body, functionBody);
  take();
  return body;
}

/// NEWLINE INDENT after a header's ':'. A missing block is reported at the end of the header line,
/// where the user has to add it (the next token may be lines away, or the end of the file).
void Parser::expectBlockStart(std::string_view owner) {
  expectNewline("after ':' of " + std::string(owner));
  if (cur().kind != TokKind::Indent)
    fail(toks_[pos_ - 1].loc, "expected an indented block after " + std::string(owner) + ", found " + describeToken(cur()));
  take();
}

void Parser::parseStatement(Block& out, bool functionBody) {
  const Token& t = cur();
  if (++statements_ > resourceLimits().maxStatements)
    fail(t.loc, "program too large: more than " + std::to_string(resourceLimits().maxStatements) +
                    " statements (expected a smaller program)");
  if (t.kind == TokKind::Indent) fail(t.loc, "unexpected indent");
  if (t.isName("for")) return out.push_back(parseFor());
  if (t.isName("if")) return out.push_back(parseIf());
  if (t.isName("pass")) {
    take();
    return endStatement();
  }
  if (t.isName("return")) {
    SourceLoc loc = t.loc;
    out.push_back(parseReturn());
    if (!functionBody) fail(loc, "'return' is only allowed as the last statement of the function body");
    if (cur().kind != TokKind::Dedent) fail(loc, "'return' must be the last statement of the function");
    return;
  }
  if (t.isPunct("@")) fail(t.loc, "decorators are only allowed on functions and the program class");
  if (t.kind == TokKind::Name && isKeyword(t.text) && !t.isName("not") && !t.isName("True") &&
      !t.isName("False") && !t.isName("None") && !t.isName("lambda"))
    fail(t.loc, unsupportedStatementMessage(t.text));
  if (atPlCall("cond")) fail(t.loc, "pl.cond(...) is only allowed as the first statement of a pl.while_ loop body");
  out.push_back(parseSimpleStatement());
}

void Parser::endStatement() {
  if (cur().isPunct(";")) fail(cur().loc, "';' is not supported; write one statement per line");
  expectNewline("at the end of the statement");
}

StmtPtr Parser::parseSimpleStatement() {
  SourceLoc loc = cur().loc;
  if (atPlCall("yield_")) return parseYieldRest({}, loc);

  bool nameFirst = cur().kind == TokKind::Name && !isKeyword(cur().text) && cur().text != "pl";
  if (nameFirst && (ahead(1).isPunct(":") || ahead(1).isPunct("=") || ahead(1).isPunct(","))) {
    std::vector<Binder> targets{parseBinderName("as an assignment target")};
    if (cur().isPunct(":")) {
      take();
      targets[0].annotation = parseType("after ':' of the annotation");
      if (!cur().isPunct("=")) expected("'=' after the annotation of '" + targets[0].name + "'");
    }
    while (acceptPunct(",")) {
      if (cur().isPunct("=")) break;
      targets.push_back(parseBinderName("as an assignment target"));
    }
    expectPunct("=", "after the assignment targets");
    if (atPlCall("yield_")) return parseYieldRest(std::move(targets), loc);
    if (targets.size() > 1) fail(loc, "several assignment targets are only allowed with pl.yield_(...)");
    if (atPlCall("cond")) fail(cur().loc, "pl.cond(...) is only allowed as the first statement of a pl.while_ loop body");
    auto s = std::make_unique<AssignStmt>(loc);
    s->target = std::move(targets[0]);
    s->value = parseExpr();
    if (cur().isPunct("=")) fail(cur().loc, "chained assignment is not supported");
    endStatement();
    return s;
  }

  auto s = std::make_unique<EvalStmt>(loc);
  s->expr = parseExpr();
  if (cur().isPunct("=")) fail(cur().loc, "cannot assign to " + describeExpr(*s->expr) + "; expected a name before '='");
  for (std::string_view op : {"+=", "-=", "*=", "/=", "%=", ":="})
    if (cur().isPunct(op)) fail(cur().loc, "'" + std::string(op) + "' is not supported; bind a new name with '='");
  endStatement();
  return s;
}

StmtPtr Parser::parseYieldRest(std::vector<Binder> targets, SourceLoc loc) {
  skipPlName();
  std::vector<RawArg> args = parseCallArgs("pl.yield_");
  auto y = std::make_unique<YieldStmt>(loc);
  y->targets = std::move(targets);
  for (auto& a : args) {
    if (!a.keyword.empty()) fail(a.loc, "pl.yield_ takes positional arguments only, found keyword '" + a.keyword + "'");
    if (!a.value) fail(a.loc, "pl.yield_ cannot yield None");
    y->values.push_back(std::move(a.value));
  }
  endStatement();
  return y;
}

StmtPtr Parser::parseReturn() {
  SourceLoc loc = take().loc;
  auto r = std::make_unique<ReturnStmt>(loc);
  if (cur().kind != TokKind::Newline) {
    do {
      if (cur().kind == TokKind::Newline) break;
      r->values.push_back(parseExpr());
    } while (acceptPunct(","));
  }
  endStatement();
  return r;
}

std::vector<Binder> Parser::parseNameTuple(std::string_view context) {
  expectPunct("(", context);
  std::vector<Binder> names;
  while (!cur().isPunct(")")) {
    names.push_back(parseBinderName("in the loop-carried names"));
    if (!acceptPunct(",")) break;
  }
  expectPunct(")", "to close the loop-carried names");
  return names;
}

LoopTargets Parser::parseLoopTargets() {
  LoopTargets t;
  if (cur().isPunct("(")) {
    t.iterArgs = parseNameTuple("");
    return t;
  }
  t.inductionVar = parseBinderName("as the loop variable after 'for'");
  if (acceptPunct(",")) {
    t.iterArgs = parseNameTuple("around the loop-carried names: 'for i, (c1, c2) in ...'");
  }
  return t;
}

StmtPtr Parser::parseFor() {
  SourceLoc loc = take().loc;
  LoopTargets targets = parseLoopTargets();
  expectKeyword("in", "after the loop targets");
  SourceLoc iterLoc = cur().loc;
  bool isRange = atPlCall("range"), isWhile = atPlCall("while_");
  if (!isRange && !isWhile) expected("pl.range(...) or pl.while_(...) after 'in'");
  skipPlName();
  std::vector<RawArg> args = parseCallArgs(isRange ? "pl.range" : "pl.while_");

  std::vector<ExprPtr> positional, inits;
  bool sawInits = false;
  for (auto& a : args) {
    if (!a.value) fail(a.loc, "None is not a valid loop bound");
    if (a.keyword.empty()) {
      if (sawInits) fail(a.loc, "positional argument follows keyword argument");
      positional.push_back(std::move(a.value));
      continue;
    }
    if (a.keyword != "init_values")
      fail(a.loc, "unknown keyword argument '" + a.keyword + "' of " + (isRange ? "pl.range" : "pl.while_") +
                      "; expected init_values=");
    if (sawInits) fail(a.loc, "duplicate argument 'init_values'");
    if (a.value->kind != Expr::Kind::List)
      fail(a.loc, "init_values= must be a tuple like (x1, x2), found " + describeExpr(*a.value));
    sawInits = true;
    inits = std::move(a.value->args);
  }

  if (isWhile) {
    if (!positional.empty()) fail(positional[0]->loc, "pl.while_ takes only init_values=(...), found a positional argument");
    if (targets.inductionVar)
      fail(targets.inductionVar->loc, "a pl.while_ loop has no induction variable; write 'for (c1, ...) in pl.while_(...)'");
    expectPunct(":", "after the for header");
    auto w = std::make_unique<WhileStmt>(loc);
    w->iterArgs = std::move(targets.iterArgs);
    w->inits = std::move(inits);
    expectBlockStart("the pl.while_ header");
    if (!atPlCall("cond"))
      fail(cur().loc, "the body of a pl.while_ loop must start with pl.cond(CONDITION), found " + describeToken(cur()));
    w->condLoc = cur().loc;
    skipPlName();
    std::vector<RawArg> condArgs = parseCallArgs("pl.cond");
    if (condArgs.size() != 1 || !condArgs[0].keyword.empty() || !condArgs[0].value)
      fail(w->condLoc, "pl.cond takes exactly one positional argument, the loop condition");
    w->cond = std::move(condArgs[0].value);
    checkScalarArg("the condition of pl.cond", *w->cond);
    endStatement();
    while (cur().kind != TokKind::Dedent && cur().kind != TokKind::End) parseStatement(w->body, false);
    take();
    return w;
  }

  if (!targets.inductionVar)
    fail(loc, "a pl.range loop needs an induction variable: 'for i in pl.range(...)' or 'for i, (c1, ...) in pl.range(...)'");
  if (positional.empty() || positional.size() > 3)
    fail(iterLoc, "pl.range takes 1 to 3 positional arguments (start, stop, step), found " +
                      std::to_string(positional.size()));
  for (const auto& p : positional) checkScalarArg("a pl.range bound", *p);
  auto f = std::make_unique<ForStmt>(loc);
  f->inductionVar = std::move(*targets.inductionVar);
  f->iterArgs = std::move(targets.iterArgs);
  f->inits = std::move(inits);
  // pl.range(stop) and pl.range(start, stop) mean start 0 and step 1; the IR always holds all three.
  SourceLoc boundLoc = positional[0]->loc;
  if (positional.size() == 1) {
    f->start = Expr::intLit(0, boundLoc);
    f->stop = std::move(positional[0]);
  } else {
    f->start = std::move(positional[0]);
    f->stop = std::move(positional[1]);
  }
  f->step = positional.size() == 3 ? std::move(positional[2]) : Expr::intLit(1, boundLoc);
  expectPunct(":", "after the for header");
  f->body = parseIndentedBlock("the for header");
  return f;
}

StmtPtr Parser::parseIf() {
  SourceLoc loc = take().loc;
  auto s = std::make_unique<IfStmt>(loc);
  s->cond = parseExpr();
  checkScalarArg("an if condition", *s->cond);
  expectPunct(":", "after the if condition");
  s->thenBody = parseIndentedBlock("'if'");
  if (cur().isName("elif")) fail(cur().loc, unsupportedStatementMessage("elif"));
  if (cur().isName("else")) {
    take();
    expectPunct(":", "after 'else'");
    s->elseBody = parseIndentedBlock("'else'");
  }
  return s;
}

// ============================================================================================
// Expressions
// ============================================================================================

ExprPtr Parser::parseExpr() {
  NestingGuard guard(*this, cur().loc);
  return parseOr();
}

ExprPtr Parser::parseOr() {
  ExprPtr lhs = parseAnd();
  NestingGuard chain(*this);
  while (cur().isName("or")) {
    chain.deeper(cur().loc);
    take();
    SourceLoc loc = lhs->loc;
    lhs = Expr::binary(BinOp::Or, std::move(lhs), parseAnd(), loc);
  }
  return lhs;
}

ExprPtr Parser::parseAnd() {
  ExprPtr lhs = parseNot();
  NestingGuard chain(*this);
  while (cur().isName("and")) {
    chain.deeper(cur().loc);
    take();
    SourceLoc loc = lhs->loc;
    lhs = Expr::binary(BinOp::And, std::move(lhs), parseNot(), loc);
  }
  return lhs;
}

ExprPtr Parser::parseNot() {
  if (!cur().isName("not")) return parseComparison();
  NestingGuard guard(*this, cur().loc);
  SourceLoc loc = take().loc;
  return Expr::unary(UnOp::Not, parseNot(), loc);
}

namespace {
std::optional<BinOp> comparisonOp(const Token& t) {
  if (t.kind != TokKind::Punct) return std::nullopt;
  if (t.text == "<") return BinOp::Lt;
  if (t.text == "<=") return BinOp::Le;
  if (t.text == ">") return BinOp::Gt;
  if (t.text == ">=") return BinOp::Ge;
  if (t.text == "==") return BinOp::Eq;
  if (t.text == "!=") return BinOp::Ne;
  return std::nullopt;
}
}  // namespace

ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseArith();
  auto rejectMembership = [&] {
    if (cur().isName("in") || cur().isName("is") || (cur().isName("not") && ahead(1).isName("in")))
      fail(cur().loc, "'" + std::string(cur().text) + "' comparisons are not supported; use < <= > >= == !=");
  };
  rejectMembership();
  std::optional<BinOp> op = comparisonOp(cur());
  if (!op) return lhs;
  take();
  SourceLoc loc = lhs->loc;
  ExprPtr rhs = parseArith();
  if (comparisonOp(cur())) fail(cur().loc, "chained comparisons are not supported; combine comparisons with 'and'");
  rejectMembership();
  return Expr::binary(*op, std::move(lhs), std::move(rhs), loc);
}

ExprPtr Parser::parseArith() {
  ExprPtr lhs = parseTerm();
  NestingGuard chain(*this);
  while (cur().isPunct("+") || cur().isPunct("-")) {
    chain.deeper(cur().loc);
    BinOp op = take().text == "+" ? BinOp::Add : BinOp::Sub;
    SourceLoc loc = lhs->loc;
    lhs = Expr::binary(op, std::move(lhs), parseTerm(), loc);
  }
  return lhs;
}

ExprPtr Parser::parseTerm() {
  ExprPtr lhs = parseUnary();
  NestingGuard chain(*this);
  while (true) {
    const Token& t = cur();
    std::optional<BinOp> op;
    if (t.isPunct("*")) op = BinOp::Mul;
    else if (t.isPunct("//")) op = BinOp::FloorDiv;
    else if (t.isPunct("%")) op = BinOp::Mod;
    else if (t.isPunct("/")) fail(t.loc, "'/' is not supported; use '//' (floor division) on scalars");
    else if (t.isPunct("@")) fail(t.loc, "operator '@' is not supported; use pl.tile.matmul");
    else if (t.isPunct("&") || t.isPunct("|") || t.isPunct("^") || t.isPunct("<<") || t.isPunct(">>"))
      fail(t.loc, "operator '" + std::string(t.text) + "' is not supported");
    if (!op) return lhs;
    chain.deeper(t.loc);
    take();
    SourceLoc loc = lhs->loc;
    lhs = Expr::binary(*op, std::move(lhs), parseUnary(), loc);
  }
}

ExprPtr Parser::parseUnary() {
  if (cur().isPunct("-")) {
    NestingGuard guard(*this, cur().loc);
    SourceLoc loc = take().loc;
    return Expr::unary(UnOp::Neg, parseUnary(), loc);
  }
  if (cur().isPunct("+")) fail(cur().loc, "unary '+' is not supported");
  if (cur().isPunct("~")) fail(cur().loc, "operator '~' is not supported");
  ExprPtr e = parsePrimary();
  if (cur().isPunct("**")) fail(cur().loc, "'**' (power) is not supported");
  return e;
}

ExprPtr Parser::parsePrimary() {
  const Token& t = cur();
  switch (t.kind) {
    case TokKind::Int: return Expr::intLit(parseIntToken(take()), t.loc);
    case TokKind::Float: return Expr::floatLit(parseFloatToken(take()), t.loc);
    case TokKind::String: fail(t.loc, "string literals are not supported");
    case TokKind::Punct:
      if (t.text == "(") return parseParenthesized();
      if (t.text == "[") return parseListLiteral();
      if (t.text == "{") fail(t.loc, "dict and set literals are not supported");
      if (t.text == "*" || t.text == "**") fail(t.loc, "star-arguments are not supported");
      expected("an expression");
    case TokKind::Name: break;
    default: expected("an expression");
  }
  if (t.isName("True") || t.isName("False")) {
    bool v = t.text == "True";
    return Expr::boolLit(v, take().loc);
  }
  if (t.isName("lambda")) fail(t.loc, "lambda expressions are not supported");
  if (t.isName("None")) fail(t.loc, "'None' is only allowed as the value of an omitted optional argument");
  if (isKeyword(t.text)) expected("an expression");
  if (t.isName("pl")) return parsePlExpr();
  const Token& name = take();
  if (cur().isPunct("("))
    fail(name.loc, "calls to '" + std::string(name.text) + "' are not supported; only pl. ops can be called");
  if (cur().isPunct("."))
    fail(cur().loc, "attribute access on '" + std::string(name.text) + "' is not supported");
  if (cur().isPunct("[")) fail(cur().loc, "subscripts are not supported in expressions");
  return Expr::nameRef(std::string(name.text), name.loc);
}

ExprPtr Parser::parseParenthesized() {
  SourceLoc loc = take().loc;
  if (acceptPunct(")")) return Expr::list({}, loc);
  ExprPtr first = parseExpr();
  if (acceptPunct(")")) return first;
  std::vector<ExprPtr> elems;
  elems.push_back(std::move(first));
  expectPunct(",", "or ')' in the parenthesized expression");
  while (!cur().isPunct(")")) {
    elems.push_back(parseExpr());
    if (!acceptPunct(",")) break;
  }
  expectPunct(")", "to close the tuple");
  return Expr::list(std::move(elems), loc);
}

ExprPtr Parser::parseListLiteral() {
  SourceLoc loc = take().loc;
  std::vector<ExprPtr> elems;
  while (!cur().isPunct("]")) {
    if (cur().kind == TokKind::Name && ahead(1).isPunct("="))
      fail(cur().loc, "keyword arguments are not allowed inside [...]");
    elems.push_back(parseExpr());
    if (!acceptPunct(",")) break;
  }
  expectPunct("]", "to close the list");
  return Expr::list(std::move(elems), loc);
}

ExprPtr Parser::parsePlExpr() {
  SourceLoc loc = cur().loc;
  std::string path = parsePlPath("a pl. name");
  if (cur().isPunct("(")) {
    if (path == "yield_" || path == "cond" || path == "range" || path == "while_") {
      std::string where = path == "yield_" ? "as a statement ('r = pl.yield_(x)')"
                          : path == "cond" ? "as the first statement of a pl.while_ loop body"
                                           : "after 'in' of a for header";
      fail(loc, "pl." + path + "(...) can only be used " + where);
    }
    auto op = lookupOp(path);
    if (!op) fail(loc, "unknown op 'pl." + path + "'");
    std::vector<RawArg> args = parseCallArgs("pl." + path);
    return bindOpCall(*op, std::move(args), loc);
  }
  if (path.starts_with("Mem.") || path.starts_with("MemorySpace.")) {
    std::string name = path.substr(path.find('.') + 1);
    auto s = parseMemSpace(name);
    if (!s) fail(loc, "unknown memory space 'pl." + path + "'; expected Vec, Mat, Left, Right or Acc");
    return Expr::spaceRef(*s, loc);
  }
  if (auto dt = parseDType(path)) return Expr::dtypeRef(*dt, loc);
  bool looksLikeDType = path.find('.') == std::string::npos &&
                        path.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos;
  if (looksLikeDType) fail(loc, "unknown dtype 'pl." + path + "'; expected one of " + allDTypeNames());
  fail(loc, "unknown name 'pl." + path + "'; expected a dtype, pl.Mem.X or a pl. op call");
}

std::vector<RawArg> Parser::parseCallArgs(std::string_view callee) {
  expectPunct("(", [&] { return "after '" + std::string(callee) + "'"; });
  std::vector<RawArg> args;
  while (!cur().isPunct(")")) {
    if (cur().isPunct("*") || cur().isPunct("**")) fail(cur().loc, "star-arguments are not supported");
    RawArg a;
    a.loc = cur().loc;
    if (cur().kind == TokKind::Name && ahead(1).isPunct("=")) {
      a.keyword = take().text;
      take();
    }
    if (cur().isName("None") && (ahead(1).isPunct(",") || ahead(1).isPunct(")"))) {
      take();
    } else {
      a.value = parseExpr();
      if (a.keyword.empty()) a.loc = a.value->loc;
    }
    args.push_back(std::move(a));
    if (!acceptPunct(",")) break;
  }
  expectPunct(")", [&] { return "to close the arguments of '" + std::string(callee) + "'"; });
  return args;
}

ExprPtr Parser::bindOpCall(Opcode op, std::vector<RawArg> args, SourceLoc loc) {
  const OpInfo& info = opInfo(op);
  const size_t n = info.params.size();
  std::vector<ExprPtr> slots(n);
  std::vector<bool> given(n, false);
  bool sawKeyword = false;
  size_t nextPositional = 0;
  for (auto& a : args) {
    size_t index;
    if (a.keyword.empty()) {
      if (sawKeyword) fail(a.loc, "positional argument follows keyword argument in " + opName(info));
      if (nextPositional >= n) {
        size_t positional = 0;
        for (const auto& b : args) positional += b.keyword.empty() ? 1 : 0;
        fail(a.loc, opName(info) + " takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + ", found " +
                        std::to_string(positional) + "; expected " + opSignature(info));
      }
      index = nextPositional++;
    } else {
      sawKeyword = true;
      int i = paramIndex(info, a.keyword);
      if (i < 0 || n == 0) {
        std::vector<std::string_view> names;
        for (const auto& p : info.params) names.push_back(p.name);
        fail(a.loc, "unknown keyword argument '" + a.keyword + "' of " + opName(info) + "; expected one of: " +
                        joinNames(names));
      }
      index = static_cast<size_t>(i);
    }
    const ParamSpec& param = info.params[index];
    if (given[index]) fail(a.loc, "duplicate argument '" + std::string(param.name) + "' of " + opName(info));
    given[index] = true;
    if (!a.value) {
      if (!param.optional)
        fail(a.loc, "argument '" + std::string(param.name) + "' of " + opName(info) + " is required and cannot be None");
      continue;
    }
    checkArgKind(info, param, *a.value);
    slots[index] = std::move(a.value);
  }
  for (size_t i = 0; i < n; ++i)
    if (!given[i] && !info.params[i].optional)
      fail(loc, "missing argument '" + std::string(info.params[i].name) + "' of " + opName(info) +
                         "; expected " + opSignature(info));
  return Expr::call(op, std::move(slots), loc);
}

void Parser::checkScalarArg(std::string_view what, const Expr& e) const {
  if (!isScalarShaped(e)) fail(e.loc, std::string(what) + " must be a scalar expression, found " + describeExpr(e));
}

void Parser::checkArgKind(const OpInfo& info, const ParamSpec& param, const Expr& arg) const {
  auto mismatch = [&](std::string_view expectedShape, const Expr& found) {  // the message built only to fail
    fail(found.loc, "argument '" + std::string(param.name) + "' of " + opName(info) + " must be " +
                        std::string(expectedShape) + ", found " + describeExpr(found));
  };
  switch (param.kind) {
    case ParamKind::Value:
      if (arg.kind != Expr::Kind::Name) mismatch("a value name", arg);
      return;
    case ParamKind::Scalar:
      if (!isScalarShaped(arg)) mismatch("a scalar expression", arg);
      return;
    case ParamKind::IndexList:
      if (arg.kind != Expr::Kind::List) mismatch("a list of scalar expressions like [r0, c0]", arg);
      for (const auto& e : arg.args)
        if (!isScalarShaped(*e)) mismatch("a list of scalar expressions like [r0, c0]", *e);
      return;
    case ParamKind::ShapeList:
      if (arg.kind != Expr::Kind::List) mismatch("a list of integer literals like [16, 32]", arg);
      for (const auto& e : arg.args)
        if (e->kind != Expr::Kind::IntLit) mismatch("a list of integer literals like [16, 32]", *e);
      return;
    case ParamKind::DType:
      if (arg.kind != Expr::Kind::DTypeRef) mismatch("a dtype like pl.FP32", arg);
      return;
    case ParamKind::Space:
      if (arg.kind != Expr::Kind::SpaceRef) mismatch("a memory space like pl.Mem.Vec", arg);
      return;
    case ParamKind::ValidTuple:
      if (arg.kind != Expr::Kind::List) mismatch("a tuple () or (vr, vc)", arg);
      for (const auto& e : arg.args)
        if (!isScalarShaped(*e)) mismatch("a tuple () or (vr, vc)", *e);
      return;
  }
}

}  // namespace

Program parseProgram(std::shared_ptr<const SourceFile> source) {
  const int64_t maxBytes = resourceLimits().maxProgramBytes;
  if (static_cast<int64_t>(source->text.size()) > maxBytes)
    throwError(source->name, {}, "program too large: " + std::to_string(source->text.size()) + " bytes, over the limit of " +
                                     std::to_string(maxBytes) + " (expected a smaller program)");
  return Parser(std::move(source)).parseProgram();
}

Program parseProgramText(std::string text, std::string fileName) {
  auto source = std::make_shared<SourceFile>();
  source->name = std::move(fileName);
  source->text = std::move(text);
  return parseProgram(std::move(source));
}

Program parseProgramFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(path, {}, "cannot open program file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parseProgramText(text.str(), path);
}

}  // namespace ptodiff
