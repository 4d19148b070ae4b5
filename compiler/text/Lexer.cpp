#include "compiler/text/Lexer.h"

#include <cctype>

namespace ptodiff {

std::string describeToken(const Token& t) {
  switch (t.kind) {
    case TokKind::Newline: return "NEWLINE";
    case TokKind::Indent: return "an indented block";
    case TokKind::Dedent: return "the end of the indented block";
    case TokKind::End: return "end of file";
    case TokKind::String: return "string literal " + std::string(t.text);
    default: return "'" + std::string(t.text) + "'";
  }
}

namespace {

bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Operators the format uses or rejects by name; longest match first.
constexpr std::string_view kTwoCharOps[] = {"->", "//", "**", "<=", ">=", "==", "!=", "+=", "-=",
                                            "*=", "/=", "%=", "<<", ">>", ":="};
constexpr std::string_view kOneCharOps = "()[]{},:.=+-*/%<>@&|^~;";

class Lexer {
 public:
  explicit Lexer(const SourceFile& source) : src_(source), text_(source.text) {}

  std::vector<Token> run() {
    // Printed programs hold about one token per three characters; growing the vector token by
    // token moved every token (and its string) again at each doubling.
    tokens_.reserve(text_.size() / 3 + 16);
    while (pos_ < text_.size()) {
      if (atLineStart_ && brackets_.empty()) {
        if (!lexIndentation()) continue;  // blank or comment-only line consumed
      }
      lexOnLine();
    }
    finish();
    return std::move(tokens_);
  }

 private:
  struct OpenBracket {
    char ch;
    SourceLoc loc;
  };

  const SourceFile& src_;
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
  bool atLineStart_ = true;
  std::vector<uint32_t> indents_{0};
  std::vector<OpenBracket> brackets_;
  std::vector<Token> tokens_;
  SourceLoc lastTokenEnd_{1, 1};

  [[noreturn]] void fail(SourceLoc loc, std::string message) { throwError(src_.name, loc, std::move(message)); }
  SourceLoc here() const { return {line_, col_}; }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < text_.size(); ++i) {
      if (text_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
      ++pos_;
    }
  }

  void push(TokKind kind, std::string_view text, SourceLoc loc) { tokens_.push_back(Token{kind, text, loc}); }
  void pushText(TokKind kind, size_t start, SourceLoc loc) {
    push(kind, text_.substr(start, pos_ - start), loc);
    lastTokenEnd_ = here();
  }

  /// Measures the indentation of a new logical line and emits INDENT/DEDENT. Returns false when the
  /// line is blank or holds only a comment (such lines do not affect indentation).
  bool lexIndentation() {
    uint32_t width = 0;
    while (peek() == ' ') {
      advance();
      ++width;
    }
    if (peek() == '\t') fail(here(), "tab characters in indentation are not supported; indent with spaces");
    if (peek() == '\r' && peek(1) == '\n') advance();
    if (peek() == '#') skipComment();
    if (peek() == '\n' || pos_ >= text_.size()) {
      advance();
      return false;
    }
    atLineStart_ = false;
    SourceLoc loc = here();
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(TokKind::Indent, "", loc);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(TokKind::Dedent, "", loc);
      }
      if (width != indents_.back()) fail(loc, "unindent does not match any outer indentation level");
    }
    return true;
  }

  void skipComment() {
    while (pos_ < text_.size() && peek() != '\n') advance();
  }

  /// Lexes tokens up to and including the end of the current physical line.
  void lexOnLine() {
    while (pos_ < text_.size()) {
      char c = peek();
      if (c == '\n') {
        endPhysicalLine();
        return;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
      } else if (c == '#') {
        skipComment();
      } else if (c == '\\') {
        if (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))
          fail(here(), "backslash line continuation is not supported; wrap the expression in brackets");
        fail(here(), "unexpected character '\\'");
      } else if (isNameStart(c)) {
        lexName();
      } else if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
        lexNumber();
      } else if (c == '"' || c == '\'') {
        lexString();
      } else {
        lexPunct();
      }
    }
  }

  void endPhysicalLine() {
    if (brackets_.empty()) {
      push(TokKind::Newline, "", lastTokenEnd_);
      atLineStart_ = true;
    }
    advance();
  }

  void lexName() {
    size_t start = pos_;
    SourceLoc loc = here();
    while (isNameChar(peek())) advance();
    pushText(TokKind::Name, start, loc);
  }

  void lexNumber() {
    size_t start = pos_;
    SourceLoc loc = here();
    bool isFloat = false;
    while (isDigit(peek())) advance();
    if (peek() == '.') {
      isFloat = true;
      advance();
      while (isDigit(peek())) advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
      isFloat = true;
      advance(2);
      while (isDigit(peek())) advance();
    }
    if (isNameChar(peek()) || peek() == '.') {
      while (isNameChar(peek()) || peek() == '.') advance();
      fail(loc, "invalid numeric literal '" + std::string(text_.substr(start, pos_ - start)) +
                    "'; expected a decimal integer or float");
    }
    std::string_view spelling = text_.substr(start, pos_ - start);
    if (!isFloat && spelling.size() > 1 && spelling[0] == '0' && spelling.find_first_not_of('0') != std::string_view::npos)
      fail(loc, "leading zeros in integer literal '" + std::string(spelling) + "' are not allowed");
    pushText(isFloat ? TokKind::Float : TokKind::Int, start, loc);
  }

  void lexString() {
    size_t start = pos_;
    SourceLoc loc = here();
    char quote = peek();
    advance();
    while (pos_ < text_.size() && peek() != quote && peek() != '\n') advance(peek() == '\\' ? 2 : 1);
    if (peek() != quote) fail(loc, "unterminated string literal");
    advance();
    pushText(TokKind::String, start, loc);
  }

  void lexPunct() {
    size_t start = pos_;
    SourceLoc loc = here();
    std::string_view rest = text_.substr(pos_);
    for (std::string_view op : kTwoCharOps) {
      if (rest.size() >= 2 && rest[0] == op[0] && rest[1] == op[1]) {  // not starts_with: a memcmp call per op
        advance(2);
        pushText(TokKind::Punct, start, loc);
        return;
      }
    }
    char c = peek();
    if (kOneCharOps.find(c) == std::string_view::npos) {
      if (static_cast<unsigned char>(c) >= 0x80) fail(loc, "unexpected non-ASCII character");
      fail(loc, std::string("unexpected character '") + c + "'");
    }
    trackBracket(c, loc);
    advance();
    pushText(TokKind::Punct, start, loc);
  }

  void trackBracket(char c, SourceLoc loc) {
    if (c == '(' || c == '[' || c == '{') {
      brackets_.push_back({c, loc});
      return;
    }
    if (c != ')' && c != ']' && c != '}') return;
    if (brackets_.empty()) fail(loc, std::string("unmatched '") + c + "'");
    char open = brackets_.back().ch;
    char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
    if (c != expected) {
      Diagnostic d{Severity::Error, src_.name, loc, std::string("closing '") + c + "' does not match opening '" + open + "'", {}};
      d.notes.push_back({Severity::Note, src_.name, brackets_.back().loc, std::string("'") + open + "' opened here", {}});
      throw DiagnosticError(std::move(d));
    }
    brackets_.pop_back();
  }

  void finish() {
    if (!brackets_.empty())
      fail(brackets_.back().loc, std::string("'") + brackets_.back().ch + "' was never closed");
    if (!tokens_.empty() && tokens_.back().kind != TokKind::Newline && tokens_.back().kind != TokKind::Dedent)
      push(TokKind::Newline, "", lastTokenEnd_);
    SourceLoc end = here();
    for (size_t i = 1; i < indents_.size(); ++i) push(TokKind::Dedent, "", end);
    push(TokKind::End, "", end);
  }
};

}  // namespace

std::vector<Token> lexProgram(const SourceFile& source) { return Lexer(source).run(); }

}  // namespace ptodiff
