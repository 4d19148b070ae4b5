// The lexer of the program text format: Python's tokenization rules restricted to what the
// format uses. It turns leading whitespace into INDENT/DEDENT tokens, ends each logical line with
// NEWLINE, joins lines inside brackets (implicit continuation) and drops comments and blank lines.
// Lexical errors (a bad character, an unclosed bracket, an indentation that matches no outer
// level) are thrown as DiagnosticError at the offending character.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

enum class TokKind : uint8_t {
  Name,     // identifiers and keywords (`def`, `for`, `pl`, `True`, ...)
  Int,      // 16
  Float,    // 1.5, 1e-3, 2.
  String,   // "..." or '...': lexed only so the parser can reject it with a clear message
  Punct,    // ( ) [ ] , : . = -> + - * / // % ** < <= > >= == != @ and other operators
  Newline,  // end of a logical line
  Indent,
  Dedent,
  End,      // end of file
};

struct Token {
  TokKind kind = TokKind::End;
  /// The spelling (empty for Newline/Indent/Dedent/End): a view of the SourceFile's text, so the
  /// tokens must not outlive the SourceFile they were lexed from.
  std::string_view text;
  SourceLoc loc;

  bool is(TokKind k, std::string_view t) const { return kind == k && text == t; }
  bool isPunct(std::string_view t) const { return is(TokKind::Punct, t); }
  bool isName(std::string_view t) const { return is(TokKind::Name, t); }
};

/// How a token is named in "found X" diagnostics: `'('`, `'foo'`, `NEWLINE`, `end of file`.
std::string describeToken(const Token& t);

/// Tokenizes the whole file (the tokens view `source.text`); the result always ends with an End
/// token, preceded by the NEWLINE and DEDENT tokens that close the last line and every open block.
std::vector<Token> lexProgram(const SourceFile& source);

}  // namespace ptodiff
