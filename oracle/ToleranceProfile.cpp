#include "oracle/ToleranceProfile.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "compiler/ir/SourceLoc.h"
#include "compiler/text/JsonPosition.h"
#include "oracle/BuiltinProfiles.h"

namespace ptodiff::oracle {

namespace {

constexpr std::array<DType, 3> kFloatDTypes = {DType::FP32, DType::FP16, DType::BF16};
/// Larger allowances are certainly typos (2^20 ulps of FP32 is already 6% relative).
constexpr double kMaxUlps = 1e9;

int floatIndex(DType dt) {
  for (size_t i = 0; i < kFloatDTypes.size(); ++i)
    if (kFloatDTypes[i] == dt) return static_cast<int>(i);
  return -1;
}

std::string opKeyList() {
  std::string out;
  for (int i = 0; i < kRoundedOpCount; ++i) {
    if (i) out += ", ";
    out += roundedOpName(static_cast<RoundedOp>(i));
  }
  return out;
}

/// Checks a parsed profile document and fills a ToleranceProfile; every error is located.
class ProfileReader {
 public:
  explicit ProfileReader(const SourceFile& source) : source_(source) {}

  ToleranceProfile read() {
    const JsonValue root = parsePositionedJson(source_);
    if (root.kind != JsonValue::Kind::Object)
      fail(root.offset, "a tolerance profile must be a JSON object {...}, got " + std::string(jsonKindName(root.kind)));
    ToleranceProfile p;
    p.origin = source_.name;
    const JsonValue* overrides = nullptr;
    for (const JsonMember& m : root.members) {
      if (m.key == "profile") p.name = stringOf(m, "\"profile\"");
      else if (m.key == "description") p.description = stringOf(m, "\"description\"");
      else if (m.key == "ulps") readUlps(m.value, p, std::nullopt);
      else if (m.key == "dtype_ulps") overrides = &m.value;
      else if (m.key == "sources") readSources(m.value, p);
      else
        fail(m.keyOffset, "unknown key \"" + m.key +
                              "\"; expected one of \"profile\", \"description\", \"ulps\", \"dtype_ulps\", \"sources\"");
    }
    // Per-dtype overrides win over "ulps" whatever their order in the file.
    if (overrides) readDTypeUlps(*overrides, p);
    if (!root.find("profile")) fail(root.offset, "missing \"profile\": every profile names itself, e.g. \"profile\": \"a2a3\"");
    if (p.name.empty()) fail(root.find("profile")->value.offset, "\"profile\" must not be empty");
    return p;
  }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    throwError(source_.name, locateOffset(source_.text, offset), message);
  }

  std::string stringOf(const JsonMember& m, const std::string& what) const {
    if (m.value.kind != JsonValue::Kind::String)
      fail(m.value.offset, what + " must be a string, got " + std::string(jsonKindName(m.value.kind)));
    return m.value.string;
  }

  RoundedOp opOf(const JsonMember& m) const {
    if (auto op = parseRoundedOp(m.key)) return *op;
    fail(m.keyOffset, "unknown op \"" + m.key + "\"; expected one of " + opKeyList() +
                          " (abs, neg, max, min and relu do not round)");
  }

  double ulpsOf(const JsonMember& m) const {
    const JsonValue& v = m.value;
    if (v.kind != JsonValue::Kind::Number)
      fail(v.offset, "the allowance of \"" + m.key + "\" must be a number of ulps, got " +
                         std::string(jsonKindName(v.kind)));
    if (!(v.number >= 0.0) || v.number > kMaxUlps)
      fail(v.offset, "the allowance of \"" + m.key + "\" is " + std::to_string(v.number) +
                         " ulps; expected a number in [0, 1e9]");
    return v.number;
  }

  /// `{"op": k, ...}` applied to one dtype, or to every float dtype when `only` is empty.
  void readUlps(const JsonValue& obj, ToleranceProfile& p, std::optional<DType> only) const {
    if (obj.kind != JsonValue::Kind::Object)
      fail(obj.offset, "ulps must be an object {\"add\": 0.5, ...}, got " + std::string(jsonKindName(obj.kind)));
    for (const JsonMember& m : obj.members) {
      const RoundedOp op = opOf(m);
      const double k = ulpsOf(m);
      if (only) {
        p.setUlps(op, *only, k);
      } else {
        for (DType dt : kFloatDTypes) p.setUlps(op, dt, k);
      }
    }
  }

  void readDTypeUlps(const JsonValue& obj, ToleranceProfile& p) const {
    if (obj.kind != JsonValue::Kind::Object)
      fail(obj.offset, "\"dtype_ulps\" must be an object {\"FP16\": {...}, ...}, got " +
                           std::string(jsonKindName(obj.kind)));
    for (const JsonMember& m : obj.members) {
      const std::optional<DType> dt = parseDType(m.key);
      if (!dt || floatIndex(*dt) < 0)
        fail(m.keyOffset, "unknown float dtype \"" + m.key + "\"; expected FP32, FP16 or BF16");
      readUlps(m.value, p, dt);
    }
  }

  void readSources(const JsonValue& obj, ToleranceProfile& p) const {
    if (obj.kind != JsonValue::Kind::Object)
      fail(obj.offset, "\"sources\" must be an object {\"exp\": \"...\"}, got " + std::string(jsonKindName(obj.kind)));
    for (const JsonMember& m : obj.members) {
      const std::optional<DType> dt = parseDType(m.key);
      const bool aboutDType = dt && floatIndex(*dt) >= 0;
      if (m.key != "general" && !aboutDType && !parseRoundedOp(m.key))
        fail(m.keyOffset, "unknown source key \"" + m.key + "\"; expected \"general\", an op (" + opKeyList() +
                              ") or a float dtype (FP32, FP16, BF16)");
      p.sources[m.key] = stringOf(m, "the source note of \"" + m.key + "\"");
    }
  }

  const SourceFile& source_;
};

}  // namespace

std::string_view roundedOpName(RoundedOp op) {
  switch (op) {
    case RoundedOp::Add: return "add";
    case RoundedOp::Sub: return "sub";
    case RoundedOp::Mul: return "mul";
    case RoundedOp::Div: return "div";
    case RoundedOp::Sqrt: return "sqrt";
    case RoundedOp::Exp: return "exp";
    case RoundedOp::Log: return "log";
    case RoundedOp::Recip: return "recip";
    case RoundedOp::Convert: return "convert";
    case RoundedOp::Matmul: return "matmul";
  }
  return "?";
}

std::optional<RoundedOp> parseRoundedOp(std::string_view key) {
  for (int i = 0; i < kRoundedOpCount; ++i)
    if (roundedOpName(static_cast<RoundedOp>(i)) == key) return static_cast<RoundedOp>(i);
  return std::nullopt;
}

double defaultUlps(RoundedOp op) {
  switch (op) {
    case RoundedOp::Exp:
    case RoundedOp::Log:
    case RoundedOp::Recip: return 1.0;
    default: return 0.5;
  }
}

ToleranceProfile::ToleranceProfile() : name("cpu"), origin("built-in") {
  for (auto& perDType : ulps)
    for (int i = 0; i < kRoundedOpCount; ++i) perDType[static_cast<size_t>(i)] = defaultUlps(static_cast<RoundedOp>(i));
}

double ToleranceProfile::ulpsFor(RoundedOp op, DType dt) const {
  const int index = floatIndex(dt);
  if (index < 0) throw std::invalid_argument("no ulp allowance for " + std::string(dtypeName(dt)));
  return ulps[static_cast<size_t>(index)][static_cast<size_t>(op)];
}

void ToleranceProfile::setUlps(RoundedOp op, DType dt, double k) {
  const int index = floatIndex(dt);
  if (index < 0) throw std::invalid_argument("no ulp allowance for " + std::string(dtypeName(dt)));
  ulps[static_cast<size_t>(index)][static_cast<size_t>(op)] = k;
}

Rounding ToleranceProfile::rounding(RoundedOp op, DType dt) const {
  Rounding r;
  r.format = floatFormat(dt);
  r.ulps = ulpsFor(op, dt);
  // exp and log are not computed by a correctly rounded float64 primitive, so a representable
  // float64 value does not prove the dtype result exact.
  r.exactWhenRepresentable = op != RoundedOp::Exp && op != RoundedOp::Log;
  return r;
}

ToleranceProfile parseToleranceProfile(std::string_view text, std::string_view fileName) {
  const SourceFile source{std::string(fileName), std::string(text)};
  return ProfileReader(source).read();
}

ToleranceProfile loadToleranceProfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(path, {}, "cannot read the tolerance profile file; expected a readable JSON file");
  std::ostringstream text;
  text << in.rdbuf();
  return parseToleranceProfile(text.str(), path);
}

std::vector<std::string> builtinProfileNames() {
  std::vector<std::string> names;
  for (const BuiltinProfileText& b : builtinProfileTexts()) names.emplace_back(b.name);
  return names;
}

std::optional<ToleranceProfile> builtinProfile(std::string_view name) {
  for (const BuiltinProfileText& b : builtinProfileTexts()) {
    if (b.name != name) continue;
    ToleranceProfile p = parseToleranceProfile(b.json, "oracle/profiles/" + std::string(b.name) + ".json");
    p.origin = "built-in";
    return p;
  }
  return std::nullopt;
}

const ToleranceProfile& cpuProfile() {
  static const ToleranceProfile profile = [] {
    std::optional<ToleranceProfile> p = builtinProfile("cpu");
    if (!p) throw std::logic_error("the built-in cpu tolerance profile is missing");
    return *p;
  }();
  return profile;
}

ToleranceProfile resolveToleranceProfile(const std::string& nameOrPath) {
  if (std::optional<ToleranceProfile> p = builtinProfile(nameOrPath)) return *p;
  return loadToleranceProfile(nameOrPath);
}

}  // namespace ptodiff::oracle
