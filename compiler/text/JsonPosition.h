// JSON with source positions, for input files whose *meaningful* problems (an unknown field, a
// negative allowance, a wrong type) must be reported as `FILE:LINE:COL: error: ...` at the offending
// key or value, not only their syntax errors: the case file (compiler/text/CaseFile) and the
// tolerance profiles (oracle/ToleranceProfile). nlohmann::json keeps no positions in its DOM, hence
// this reader. Strict RFC 8259: no comments, no trailing commas, no NaN; a UTF-8 byte-order mark
// at the start is skipped, as nlohmann does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

struct JsonMember;

struct JsonValue {
  enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<JsonValue> elements;   // Array
  std::vector<JsonMember> members;   // Object, in source order (duplicate keys are an error)
  size_t offset = 0;                 // byte offset of the value's first character
  size_t end = 0;                    // byte offset just past its last character

  /// The member named `key`, or nullptr.
  const JsonMember* find(std::string_view key) const;
};

struct JsonMember {
  std::string key;
  size_t keyOffset = 0;  // byte offset of the key's opening quote
  JsonValue value;
};

/// "an object", "a number", ... for messages.
std::string_view jsonKindName(JsonValue::Kind k);

/// Deeper nesting than any of our files needs; keeps hostile input from exhausting the stack.
constexpr int kMaxJsonDepth = 64;

/// Parses `source.text`. A syntax error throws DiagnosticError `invalid JSON: ...` located at its
/// line and column; so do a key repeated within one object (JSON leaves that undefined; here it
/// would hide a typo) and nesting deeper than kMaxJsonDepth.
JsonValue parsePositionedJson(const SourceFile& source);

/// Byte offsets -> 1-based line and column (columns count bytes, like the program parser's).
class LineMap {
 public:
  explicit LineMap(std::string_view text);
  /// An offset past the end is located at the end.
  SourceLoc locate(size_t offset) const;

 private:
  std::vector<size_t> starts_;  // offset of each line's first byte
  size_t size_ = 0;
};

/// 1-based line and byte column of `offset` in `text` (one lookup; build a LineMap for many).
SourceLoc locateOffset(std::string_view text, size_t offset);

}  // namespace ptodiff
