// A small JSON reader that remembers where every value and key starts, so the tolerance-profile
// loader can say `FILE:LINE:COL: error: ...` about a *meaningful* problem (an unknown op, a negative
// allowance), not only about syntax. Strict RFC 8259: no comments, no trailing commas, no NaN.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff::oracle {

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

/// Parses `source.text`; a syntax error throws DiagnosticError located at its line and column.
JsonValue parsePositionedJson(const SourceFile& source);

/// 1-based line and byte column of `offset` in `text`.
SourceLoc locateOffset(std::string_view text, size_t offset);

}  // namespace ptodiff::oracle
