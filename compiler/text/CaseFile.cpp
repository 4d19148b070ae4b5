// Case file parsing. nlohmann::json checks the syntax (its parse errors carry a byte offset, turned
// into LINE:COL here) and gives the typed DOM (integer, unsigned, float); the positioned reader of
// compiler/text/JsonPosition then reads the known-valid text again to record where every key and
// value starts, so that semantic errors (unknown field, wrong type, bad value) point at the
// offending text too. nlohmann 3.11 keeps no positions in its DOM, hence the second reading.
#include "compiler/text/CaseFile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "compiler/faults/Faults.h"
#include "compiler/ir/ResourceLimits.h"
#include "compiler/text/JsonPosition.h"

namespace ptodiff {

namespace {

using Json = nlohmann::ordered_json;  // keeps source order, so the first bad field is reported first

/// Where a JSON member's key and value start, keyed by the member's path ("/tensors/a/low";
/// keys are escaped as in a JSON pointer: '~' -> "~0", '/' -> "~1").
struct JsonSpan {
  size_t keyOffset = std::string::npos;  // npos for the root and array elements
  size_t valueOffset = 0;
  size_t valueEnd = 0;
};

std::string childPath(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

/// Every value's span in `root`, keyed by its path (see JsonSpan).
void indexSpans(const JsonValue& v, const std::string& path, size_t keyOffset,
                std::unordered_map<std::string, JsonSpan>& spans) {
  spans[path] = JsonSpan{keyOffset, v.offset, v.end};
  for (const JsonMember& m : v.members) indexSpans(m.value, childPath(path, m.key), m.keyOffset, spans);
  for (size_t i = 0; i < v.elements.size(); ++i)
    indexSpans(v.elements[i], childPath(path, std::to_string(i)), std::string::npos, spans);
}

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parseErrorText(const Json::parse_error& e) {
  std::string_view what = e.what();
  const size_t start = what.find("parse error");
  if (start != std::string_view::npos) {
    const size_t colon = what.find(": ", start);
    if (colon != std::string_view::npos) return std::string(what.substr(colon + 2));
  }
  return std::string(what);
}

std::string jsonKindName(const Json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number_float()) return "a number with a fraction or exponent";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return "null";
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string joinNames(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

/// " (did you mean "x"?)" when one of `names` is a likely typo of `word`.
std::string suggestion(std::string_view word, const std::vector<std::string_view>& names) {
  std::string_view best;
  size_t bestDistance = 3;  // suggest only close matches
  for (auto n : names) {
    const size_t d = editDistance(word, n);
    if (d < bestDistance) best = n, bestDistance = d;
  }
  return best.empty() ? "" : " (did you mean \"" + std::string(best) + "\"?)";
}

const std::vector<std::string_view> kTopFields = {"function", "target",    "planners", "scalars",
                                                  "tensors",  "block_num", "seed",     "inject_fault",
                                                  "expect_buffer_path", "symbolic"};
const std::vector<std::string_view> kTensorFields = {"init", "file", "low", "high",
                                                     "mean", "std",  "seed"};
const std::vector<std::string_view> kInitKinds = {"file", "uniform", "normal", "iota", "zeros", "sentinel"};
const std::vector<std::string_view> kTargets = {"a2a3", "a5"};

}  // namespace

nlohmann::ordered_json caseScalarJson(const CaseScalar& s) {
  switch (s.kind) {
    case CaseScalar::Kind::Bool: return s.b;
    case CaseScalar::Kind::Float: return s.f;
    case CaseScalar::Kind::Int: break;
  }
  return s.i;
}

namespace {

std::vector<std::string_view> faultNameList() {
  std::vector<std::string_view> names;
  for (const FaultInfo& f : faultCatalogue()) names.push_back(f.name);
  return names;
}
const std::vector<std::string_view> kPlanners = {"PYPTO", "DSA_RP", "PTOAS"};

/// The fields each init kind accepts besides "init".
std::vector<std::string_view> fieldsOfKind(TensorInit::Kind kind) {
  switch (kind) {
    case TensorInit::Kind::File: return {"file"};
    case TensorInit::Kind::Uniform: return {"low", "high", "seed"};
    case TensorInit::Kind::Normal: return {"mean", "std", "seed"};
    default: return {};
  }
}

class CaseParser {
 public:
  explicit CaseParser(const SourceFile& source) : source_(source), lines_(source.text) {}

  CaseSpec parse() {
    const int64_t maxBytes = resourceLimits().maxCaseFileBytes;
    if (static_cast<int64_t>(source_.text.size()) > maxBytes)
      throwError(source_.name, {}, "case file too large: " + std::to_string(source_.text.size()) +
                                       " bytes, over the limit of " + std::to_string(maxBytes) +
                                       " (expected a small JSON object)");
    Json root;
    try {
      root = Json::parse(source_.text);
    } catch (const Json::parse_error& e) {
      const size_t offset = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, source_.text.size());
      const std::string message = parseErrorText(e);
      const bool badWord = message.find("invalid literal") != std::string::npos ||
                           message.find("invalid number") != std::string::npos;
      throwError(source_.name, lines_.locate(badWord ? wordStart(offset) : offset), "invalid JSON: " + message);
    } catch (const Json::out_of_range& e) {
      // nlohmann reports a number too large for binary64 (e.g. 1e999) this way, without a position.
      const std::string literal = quotedPart(e.what());
      const size_t at = literal.empty() ? std::string::npos : source_.text.find(literal);
      throwError(source_.name, at == std::string::npos ? SourceLoc{} : lines_.locate(at),
                 "number " + literal + " overflows binary64 (expected a finite number)");
    } catch (const Json::exception& e) {
      throwError(source_.name, {}, std::string("invalid JSON: ") + e.what());
    }
    // The positioned reader accepts whatever nlohmann accepted; what it adds is the positions, and
    // the rejection of a key repeated within one object (JSON leaves that undefined; here it would
    // hide a typo) and of nesting deeper than any case needs.
    indexSpans(parsePositionedJson(source_), "", std::string::npos, spans_);
    if (!root.is_object())
      errorAtValue("", "a case file must be a JSON object {...}, got " + jsonKindName(root));

    CaseSpec spec;
    spec.sourceName = source_.name;
    for (const auto& [key, value] : root.items()) {
      const std::string path = childPath("", key);
      if (key == "function") spec.function = requireString(path, value, "\"function\"");
      else if (key == "target") spec.target = requireChoice(path, value, "\"target\"", kTargets);
      else if (key == "planners") spec.planners = parsePlanners(path, value);
      else if (key == "scalars") spec.scalars = parseScalars(path, value);
      else if (key == "tensors") spec.tensors = parseTensors(path, value);
      else if (key == "block_num") spec.blockNum = parseBlockNum(path, value);
      else if (key == "seed") spec.seed = requireUnsigned(path, value, "\"seed\"");
      else if (key == "inject_fault") spec.injectFault = requireChoice(path, value, "\"inject_fault\"", faultNameList());
      else if (key == "expect_buffer_path") spec.expectBufferPath = requireBool(path, value, "\"expect_buffer_path\"");
      else if (key == "symbolic") spec.symbolic = requireBool(path, value, "\"symbolic\"");
      else errorAtKey(path, "unknown case field \"" + key + "\"" + suggestion(key, kTopFields) +
                                "; expected one of " + joinNames(kTopFields));
    }
    return spec;
  }

 private:
  SourceLoc keyLoc(const std::string& path) const {
    auto it = spans_.find(path);
    if (it == spans_.end()) return {};
    const size_t at = it->second.keyOffset != std::string::npos ? it->second.keyOffset : it->second.valueOffset;
    return lines_.locate(at);
  }
  SourceLoc valueLoc(const std::string& path) const {
    auto it = spans_.find(path);
    return it == spans_.end() ? SourceLoc{} : lines_.locate(it->second.valueOffset);
  }
  std::string_view valueText(const std::string& path) const {
    auto it = spans_.find(path);
    if (it == spans_.end()) return {};
    return std::string_view(source_.text).substr(it->second.valueOffset,
                                                 it->second.valueEnd - it->second.valueOffset);
  }
  /// nlohmann points at the last character it read, which for a bad word (`tru`, `trailing`,
  /// `01x`) is inside it or just after it; the reader should be pointed at the word's start.
  size_t wordStart(size_t offset) const {
    auto isWordChar = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '+';
    };
    const std::string& text = source_.text;
    if (offset > 0 && (offset >= text.size() || !isWordChar(text[offset])) && isWordChar(text[offset - 1]))
      --offset;
    if (offset >= text.size() || !isWordChar(text[offset])) return offset;
    while (offset > 0 && isWordChar(text[offset - 1])) --offset;
    return offset;
  }
  static std::string quotedPart(std::string_view what) {
    const size_t open = what.find('\'');
    const size_t close = open == std::string_view::npos ? open : what.find('\'', open + 1);
    return close == std::string_view::npos ? "" : std::string(what.substr(open + 1, close - open - 1));
  }
  [[noreturn]] void errorAtKey(const std::string& path, std::string message) const {
    throwError(source_.name, keyLoc(path), std::move(message));
  }
  [[noreturn]] void errorAtValue(const std::string& path, std::string message) const {
    throwError(source_.name, valueLoc(path), std::move(message));
  }

  /// A JSON number written without fraction or exponent that nlohmann had to store as a double
  /// because it does not fit 64 bits.
  bool isOversizedInteger(const std::string& path, const Json& v) const {
    if (!v.is_number_float()) return false;
    const std::string_view text = valueText(path);
    return !text.empty() && text.find_first_of(".eE") == std::string_view::npos;
  }

  bool requireBool(const std::string& path, const Json& v, const std::string& what) const {
    if (!v.is_boolean()) errorAtValue(path, what + " must be true or false, got " + jsonKindName(v));
    return v.get<bool>();
  }
  std::string requireString(const std::string& path, const Json& v, const std::string& what) const {
    if (!v.is_string()) errorAtValue(path, what + " must be a string, got " + jsonKindName(v));
    return v.get<std::string>();
  }
  std::string requireChoice(const std::string& path, const Json& v, const std::string& what,
                            const std::vector<std::string_view>& choices) const {
    std::string s = requireString(path, v, what);
    if (std::find(choices.begin(), choices.end(), s) == choices.end())
      errorAtValue(path, "unknown " + what + " value \"" + s + "\"" + suggestion(s, choices) +
                             "; expected one of " + joinNames(choices));
    return s;
  }
  uint64_t requireUnsigned(const std::string& path, const Json& v, const std::string& what) const {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer())
      errorAtValue(path, what + " must be a non-negative integer, got " + v.dump());
    if (isOversizedInteger(path, v))
      errorAtValue(path, what + " does not fit 64 bits (expected an integer in [0, 2^64 - 1])");
    errorAtValue(path, what + " must be a non-negative integer, got " + jsonKindName(v));
  }
  double requireFiniteNumber(const std::string& path, const Json& v, const std::string& what) const {
    if (!v.is_number()) errorAtValue(path, what + " must be a number, got " + jsonKindName(v));
    const double d = v.get<double>();
    if (!std::isfinite(d)) errorAtValue(path, what + " must be a finite number (it overflows binary64)");
    return d;
  }

  std::vector<std::string> parsePlanners(const std::string& path, const Json& v) const {
    if (!v.is_array())
      errorAtValue(path, "\"planners\" must be an array of planner names, got " + jsonKindName(v));
    if (v.empty())
      errorAtValue(path, "\"planners\" must name at least one planner (" + joinNames(kPlanners) + ")");
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string elem = childPath(path, std::to_string(i));
      std::string name = requireChoice(elem, v[i], "planner", kPlanners);
      if (std::find(out.begin(), out.end(), name) != out.end())
        errorAtValue(elem, "planner \"" + name + "\" is listed twice");
      out.push_back(std::move(name));
    }
    return out;
  }

  std::map<std::string, CaseScalar> parseScalars(const std::string& path, const Json& v) const {
    if (!v.is_object())
      errorAtValue(path, "\"scalars\" must be an object {\"NAME\": value, ...}, got " + jsonKindName(v));
    std::map<std::string, CaseScalar> out;
    for (const auto& [name, value] : v.items()) {
      const std::string member = childPath(path, name);
      CaseScalar s;
      s.loc = valueLoc(member);
      if (value.is_boolean()) {
        s.kind = CaseScalar::Kind::Bool;
        s.b = value.get<bool>();
      } else if (value.is_number_unsigned()) {
        const uint64_t u = value.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          errorAtValue(member, "scalar \"" + name + "\" = " + value.dump() +
                                   " is out of the 64-bit signed integer range");
        s.kind = CaseScalar::Kind::Int;
        s.i = static_cast<int64_t>(u);
      } else if (value.is_number_integer()) {
        s.kind = CaseScalar::Kind::Int;
        s.i = value.get<int64_t>();
      } else if (isOversizedInteger(member, value)) {
        errorAtValue(member, "scalar \"" + name + "\" = " + std::string(valueText(member)) +
                                 " is out of the 64-bit signed integer range");
      } else if (value.is_number_float()) {
        s.kind = CaseScalar::Kind::Float;
        s.f = requireFiniteNumber(member, value, "scalar \"" + name + "\"");
      } else {
        errorAtValue(member, "scalar \"" + name + "\" must be a number or a boolean, got " +
                                 jsonKindName(value));
      }
      out.emplace(name, s);
    }
    return out;
  }

  std::map<std::string, TensorInit> parseTensors(const std::string& path, const Json& v) const {
    if (!v.is_object())
      errorAtValue(path, "\"tensors\" must be an object {\"NAME\": {...}, ...}, got " + jsonKindName(v));
    std::map<std::string, TensorInit> out;
    for (const auto& [name, value] : v.items()) out.emplace(name, parseTensor(childPath(path, name), name, value));
    return out;
  }

  TensorInit::Kind parseInitKind(const std::string& path, const std::string& tensor, const Json& v) const {
    if (!v.contains("init")) {
      if (v.contains("file")) return TensorInit::Kind::File;  // {"file": "x.npy"} is enough
      errorAtKey(path, "tensor \"" + tensor + "\" needs \"init\" (one of " + joinNames(kInitKinds) +
                           ") or \"file\"");
    }
    const std::string initPath = childPath(path, "init");
    const std::string kind = requireChoice(initPath, v.at("init"), "\"init\"", kInitKinds);
    return static_cast<TensorInit::Kind>(
        std::find(kInitKinds.begin(), kInitKinds.end(), kind) - kInitKinds.begin());
  }

  TensorInit parseTensor(const std::string& path, const std::string& tensor, const Json& v) const {
    if (!v.is_object())
      errorAtValue(path, "tensor \"" + tensor + "\" must be an object such as {\"init\": \"uniform\"}, got " +
                             jsonKindName(v));
    TensorInit init;
    init.loc = keyLoc(path);
    init.kind = parseInitKind(path, tensor, v);
    const std::vector<std::string_view> allowed = fieldsOfKind(init.kind);
    const std::string_view kindName = kInitKinds[static_cast<size_t>(init.kind)];
    for (const auto& [field, value] : v.items()) {
      const std::string member = childPath(path, field);
      if (field == "init") continue;
      if (std::find(kTensorFields.begin(), kTensorFields.end(), field) == kTensorFields.end())
        errorAtKey(member, "unknown tensor field \"" + field + "\"" + suggestion(field, kTensorFields) +
                               "; expected one of " + joinNames(kTensorFields));
      if (std::find(allowed.begin(), allowed.end(), field) == allowed.end())
        errorAtKey(member, "field \"" + field + "\" does not apply to init \"" + std::string(kindName) +
                               "\"" +
                               (allowed.empty() ? std::string(" (it takes no fields)")
                                                : " (its fields: " + joinNames(allowed) + ")"));
      const std::string what = "\"" + field + "\" of tensor \"" + tensor + "\"";
      if (field == "file") init.file = resolveFile(member, requireString(member, value, what));
      else if (field == "low") init.low = requireFiniteNumber(member, value, what);
      else if (field == "high") init.high = requireFiniteNumber(member, value, what);
      else if (field == "mean") init.mean = requireFiniteNumber(member, value, what);
      else if (field == "std") init.stddev = requireFiniteNumber(member, value, what);
      else if (field == "seed") init.seed = requireUnsigned(member, value, what);
    }
    checkTensorInit(path, tensor, init, v);
    return init;
  }

  void checkTensorInit(const std::string& path, const std::string& tensor, const TensorInit& init,
                       const Json& v) const {
    switch (init.kind) {
      case TensorInit::Kind::File:
        if (!v.contains("file"))
          errorAtKey(path, "tensor \"" + tensor + "\" has init \"file\" but no \"file\" path");
        break;
      case TensorInit::Kind::Uniform:
        if (!(init.low <= init.high))
          errorAtKey(path, "tensor \"" + tensor + "\": uniform range is empty (low " +
                               Json(init.low).dump() + " > high " + Json(init.high).dump() + ")");
        if (!std::isfinite(init.high - init.low))
          errorAtKey(path, "tensor \"" + tensor + "\": uniform range high - low overflows binary64");
        break;
      case TensorInit::Kind::Normal:
        if (init.stddev < 0)
          errorAtValue(childPath(path, "std"), "\"std\" of tensor \"" + tensor + "\" must be >= 0, got " +
                                                   Json(init.stddev).dump());
        break;
      default: break;
    }
  }

  std::string resolveFile(const std::string& path, const std::string& file) const {
    if (file.empty()) errorAtValue(path, "\"file\" must be a non-empty path to a .npy file");
    const std::filesystem::path folder = std::filesystem::path(source_.name).parent_path();
    return (folder / file).string();  // an absolute `file` stays as it is
  }

  int64_t parseBlockNum(const std::string& path, const Json& v) const {
    if (v.is_number_integer() && !v.is_number_unsigned())
      errorAtValue(path, "\"block_num\" must be a positive integer, got " + v.dump());
    const uint64_t n = requireUnsigned(path, v, "\"block_num\"");
    if (n == 0) errorAtValue(path, "\"block_num\" must be a positive integer, got 0");
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      errorAtValue(path, "\"block_num\" is too large");
    if (n > static_cast<uint64_t>(resourceLimits().maxBlockNum))
      errorAtValue(path, "\"block_num\" " + std::to_string(n) + " is over the limit of " +
                             std::to_string(resourceLimits().maxBlockNum) + " blocks; expected a smaller block count");
    return static_cast<int64_t>(n);
  }

  const SourceFile& source_;
  LineMap lines_;
  std::unordered_map<std::string, JsonSpan> spans_;
};

}  // namespace

CaseSpec parseCaseFile(const SourceFile& source) { return CaseParser(source).parse(); }

CaseSpec parseCaseFilePath(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throwError(path, {}, "cannot read case file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(path, {}, std::string("cannot read case file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throwError(path, {}, "cannot read case file: read failed");
  return parseCaseFile(SourceFile{path, text.str()});
}

}  // namespace ptodiff
