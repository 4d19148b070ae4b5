#include "compiler/text/JsonPosition.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace ptodiff {

namespace {

class JsonReader {
 public:
  explicit JsonReader(const SourceFile& source) : source_(source), text_(source.text), lines_(text_) {}

  JsonValue readDocument() {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // UTF-8 byte-order mark
    skipSpace();
    if (atEnd()) fail(pos_, "the file is empty; expected a JSON object {...}");
    JsonValue root = readValue(0);
    skipSpace();
    if (!atEnd()) fail(pos_, "unexpected text after the JSON value; expected the end of the file");
    return root;
  }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    throwError(source_.name, lines_.locate(offset), "invalid JSON: " + message);
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  void expect(char c, const char* what) {
    skipSpace();
    if (peek() != c) fail(pos_, std::string("expected ") + what);
    ++pos_;
  }

  /// The value at pos_, with its span. `depth` counts the values it lies inside (the root: 0).
  JsonValue readValue(int depth) {
    skipSpace();
    if (depth >= kMaxJsonDepth)
      throwError(source_.name, lines_.locate(pos_),
                 "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    JsonValue v;
    v.offset = pos_;
    readValueAt(v, depth);
    v.end = pos_;
    return v;
  }

  void readValueAt(JsonValue& v, int depth) {
    const char c = peek();
    if (c == '{') return readObject(v, depth);
    if (c == '[') return readArray(v, depth);
    if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.string = readString();
      return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::Kind::Number;
      v.number = readNumber();
      return;
    }
    if (readWord("true")) {
      v.kind = JsonValue::Kind::Bool;
      v.boolean = true;
      return;
    }
    if (readWord("false")) {
      v.kind = JsonValue::Kind::Bool;
      return;
    }
    if (readWord("null")) return;
    if (atEnd()) fail(pos_, "unexpected end of file; expected a value");
    fail(pos_, "unexpected character '" + std::string(1, c) + "'; expected a value (object, array, string, number, "
                                                                 "true, false or null)");
  }

  bool readWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  void readObject(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::Object;
    ++pos_;  // '{'
    skipSpace();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      skipSpace();
      if (peek() != '"') fail(pos_, "expected a member name in double quotes");
      JsonMember m;
      m.keyOffset = pos_;
      m.key = readString();
      if (const JsonMember* first = v.find(m.key))
        fail(m.keyOffset, "duplicate key \"" + m.key + "\" (first given at line " +
                              std::to_string(lines_.locate(first->keyOffset).line) + ")");
      expect(':', "':' after the member name");
      m.value = readValue(depth + 1);
      v.members.push_back(std::move(m));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail(pos_, "expected ',' or '}' after an object member");
    }
  }

  void readArray(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::Array;
    ++pos_;  // '['
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      v.elements.push_back(readValue(depth + 1));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail(pos_, "expected ',' or ']' after an array element");
    }
  }

  double readNumber() {
    const size_t start = pos_;
    const auto digits = [&] {
      const size_t from = pos_;
      while (!atEnd() && peek() >= '0' && peek() <= '9') ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail(pos_, "expected a digit in the number");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail(pos_, "expected a digit after the decimal point");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail(pos_, "expected a digit in the exponent");
    }
    double value = 0.0;
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(first, last, value);  // locale-independent
    if (ec != std::errc() || end != last) fail(start, "the number is out of range");
    return value;
  }

  unsigned readHex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      unsigned digit = 0;
      if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
      else fail(pos_, "expected four hex digits after \\u");
      code = code * 16 + digit;
      ++pos_;
    }
    return code;
  }

  static void appendUtf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string readString() {
    const size_t start = pos_;
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (atEnd()) fail(start, "unterminated string");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail(pos_, "control character in a string; expected an escape");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      const char esc = peek();
      ++pos_;
      switch (esc) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = readHex4();
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const unsigned low = readHex4();
            if (low < 0xDC00 || low >= 0xE000) fail(pos_ - 6, "expected a low surrogate after a high surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          appendUtf8(out, code);
          break;
        }
        default: fail(pos_ - 2, "unknown escape in a string");
      }
    }
  }

  const SourceFile& source_;
  std::string_view text_;
  LineMap lines_;
  size_t pos_ = 0;
};

}  // namespace

const JsonMember* JsonValue::find(std::string_view key) const {
  for (const JsonMember& m : members)
    if (m.key == key) return &m;
  return nullptr;
}

std::string_view jsonKindName(JsonValue::Kind k) {
  switch (k) {
    case JsonValue::Kind::Null: return "null";
    case JsonValue::Kind::Bool: return "a boolean";
    case JsonValue::Kind::Number: return "a number";
    case JsonValue::Kind::String: return "a string";
    case JsonValue::Kind::Array: return "an array";
    case JsonValue::Kind::Object: return "an object";
  }
  return "?";
}

JsonValue parsePositionedJson(const SourceFile& source) { return JsonReader(source).readDocument(); }

LineMap::LineMap(std::string_view text) : size_(text.size()) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

SourceLoc LineMap::locate(size_t offset) const {
  offset = std::min(offset, size_);
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const size_t line = static_cast<size_t>(after - starts_.begin());  // >= 1
  return {static_cast<uint32_t>(line), static_cast<uint32_t>(offset - starts_[line - 1] + 1)};
}

SourceLoc locateOffset(std::string_view text, size_t offset) { return LineMap(text).locate(offset); }

}  // namespace ptodiff
