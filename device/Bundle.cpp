#include "device/Bundle.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "compiler/text/JsonPosition.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"

namespace ptodiff::device {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

const char* directionName(ParamDirection d) {
  switch (d) {
    case ParamDirection::In: return "in";
    case ParamDirection::Out: return "out";
    case ParamDirection::InOut: return "inout";
  }
  return "in";
}


/// Typed access to a positioned JSON document, every problem located at the offending value.
class ManifestReader {
 public:
  explicit ManifestReader(const SourceFile& source) : source_(source), lines_(source.text) {}

  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    throwError(source_.name, lines_.locate(offset), message);
  }
  const JsonValue& member(const JsonValue& object, const char* key, JsonValue::Kind kind) const {
    const JsonMember* m = object.find(key);
    if (!m) fail(object.offset, std::string("missing key \"") + key + "\"");
    if (m->value.kind != kind)
      fail(m->value.offset, std::string("\"") + key + "\" must be " + std::string(jsonKindName(kind)) + ", not " +
                                std::string(jsonKindName(m->value.kind)));
    return m->value;
  }
  std::string string(const JsonValue& object, const char* key) const {
    return member(object, key, JsonValue::Kind::String).string;
  }
  std::string raw(const JsonValue& v) const { return source_.text.substr(v.offset, v.end - v.offset); }
  /// A non-negative integer, read from its text so 64-bit seeds survive.
  uint64_t unsignedInt(const JsonValue& object, const char* key) const {
    const JsonValue& v = member(object, key, JsonValue::Kind::Number);
    const std::string text = raw(v);
    if (text.find_first_not_of("0123456789") != std::string::npos)
      fail(v.offset, std::string("\"") + key + "\" must be a non-negative integer, not " + text);
    try {
      return std::stoull(text);
    } catch (const std::exception&) {
      fail(v.offset, std::string("\"") + key + "\" is out of range: " + text);
    }
  }
  CaseScalar scalar(const JsonValue& v) const {
    CaseScalar s;
    if (v.kind == JsonValue::Kind::Bool) {
      s.kind = CaseScalar::Kind::Bool;
      s.b = v.boolean;
      return s;
    }
    if (v.kind != JsonValue::Kind::Number) fail(v.offset, "a scalar must be a number or a bool");
    const std::string text = raw(v);
    if (text.find_first_of(".eE") == std::string::npos) {
      s.kind = CaseScalar::Kind::Int;
      try {
        s.i = std::stoll(text);
      } catch (const std::exception&) {
        fail(v.offset, "integer scalar out of range: " + text);
      }
    } else {
      s.kind = CaseScalar::Kind::Float;
      s.f = v.number;
    }
    return s;
  }

 private:
  const SourceFile& source_;
  LineMap lines_;
};

std::string readText(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(path.string(), {}, "cannot read " + what + " (is this a bundle folder written by ptodiff device export?)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string inputPath(const std::string& tensor) { return "inputs/" + tensor + ".npy"; }
std::string initialPath(const std::string& tensor) { return "initial/" + tensor + ".npy"; }
std::string subcasePath(const char* kind, const std::string& sub, const std::string& tensor) {
  return std::string(kind) + "/" + sub + "/" + tensor + ".npy";
}

ordered_json manifestJson(const Manifest& m) {
  ordered_json j;
  j["format"] = m.format;
  j["ptodiff_version"] = m.ptodiffVersion;
  j["bundle"] = m.bundle;
  j["origin"] = m.origin;
  j["kernel"] = m.kernel;
  j["planner"] = m.planner;
  j["target"] = m.target;
  j["profile"] = m.profile;
  j["enable_buffer_ir"] = m.enableBufferIR;
  j["lowered_stage"] = m.loweredStage;
  j["block_num"] = m.blockNum;
  j["seed"] = m.seed;
  j["step_budget"] = m.stepBudget;
  ordered_json tensors = ordered_json::array();
  for (const BundleTensor& t : m.tensors) {
    ordered_json e;
    e["name"] = t.name;
    e["direction"] = directionName(t.direction);
    e["dtype"] = std::string(dtypeName(t.dtype));
    e["shape"] = {t.rows, t.cols};
    e["input"] = t.direction != ParamDirection::Out ? ordered_json(inputPath(t.name)) : ordered_json(nullptr);
    e["initial"] = t.direction != ParamDirection::In ? ordered_json(initialPath(t.name)) : ordered_json(nullptr);
    tensors.push_back(std::move(e));
  }
  j["tensors"] = std::move(tensors);
  ordered_json subs = ordered_json::array();
  for (const Subcase& s : m.subcases) {
    ordered_json e;
    e["name"] = s.name;
    ordered_json scalars = ordered_json::object();
    for (const auto& [name, value] : s.scalars) scalars[name] = caseScalarJson(value);
    e["scalars"] = std::move(scalars);
    e["covers"] = s.covers;
    ordered_json files = ordered_json::object();
    for (const BundleTensor& t : m.tensors)
      if (t.direction != ParamDirection::In)
        files[t.name] = {{"expected", subcasePath("expected", s.name, t.name)},
                         {"bound", subcasePath("bound", s.name, t.name)},
                         {"written", subcasePath("written", s.name, t.name)},
                         {"output", s.name + "/" + t.name + ".npy"}};
    e["files"] = std::move(files);
    e["replay"] = s.replay;
    subs.push_back(std::move(e));
  }
  j["subcases"] = std::move(subs);
  j["dropped_subcases"] = m.dropped;
  j["replay"] = m.replay;
  return j;
}

Manifest readManifest(const fs::path& bundle) {
  const fs::path path = bundle / "manifest.json";
  const SourceFile source{path.string(), readText(path, "manifest.json")};
  const JsonValue root = parsePositionedJson(source);
  const ManifestReader r(source);
  if (root.kind != JsonValue::Kind::Object) r.fail(root.offset, "manifest.json must hold an object");
  Manifest m;
  m.format = r.string(root, "format");
  if (m.format != kBundleFormat)
    r.fail(r.member(root, "format", JsonValue::Kind::String).offset,
           "unsupported bundle format \"" + m.format + "\" (this ptodiff reads \"" + kBundleFormat + "\")");
  m.ptodiffVersion = r.string(root, "ptodiff_version");
  m.bundle = r.string(root, "bundle");
  m.kernel = r.string(root, "kernel");
  m.planner = r.string(root, "planner");
  m.target = r.string(root, "target");
  m.profile = r.string(root, "profile");
  m.enableBufferIR = r.member(root, "enable_buffer_ir", JsonValue::Kind::Bool).boolean;
  m.loweredStage = r.string(root, "lowered_stage");
  m.blockNum = static_cast<int64_t>(r.unsignedInt(root, "block_num"));
  m.seed = r.unsignedInt(root, "seed");
  m.stepBudget = r.unsignedInt(root, "step_budget");
  m.replay = r.string(root, "replay");
  for (const JsonValue& t : r.member(root, "tensors", JsonValue::Kind::Array).elements) {
    if (t.kind != JsonValue::Kind::Object) r.fail(t.offset, "a tensor entry must be an object");
    BundleTensor bt;
    bt.name = r.string(t, "name");
    const JsonValue& dir = r.member(t, "direction", JsonValue::Kind::String);
    if (dir.string == "in") bt.direction = ParamDirection::In;
    else if (dir.string == "out") bt.direction = ParamDirection::Out;
    else if (dir.string == "inout") bt.direction = ParamDirection::InOut;
    else r.fail(dir.offset, "\"direction\" must be \"in\", \"out\" or \"inout\", not \"" + dir.string + "\"");
    const JsonValue& dt = r.member(t, "dtype", JsonValue::Kind::String);
    const std::optional<DType> parsed = parseDType(dt.string);
    if (!parsed) r.fail(dt.offset, "unknown dtype \"" + dt.string + "\"");
    bt.dtype = *parsed;
    const JsonValue& shape = r.member(t, "shape", JsonValue::Kind::Array);
    if (shape.elements.size() != 2 || shape.elements[0].kind != JsonValue::Kind::Number ||
        shape.elements[1].kind != JsonValue::Kind::Number)
      r.fail(shape.offset, "\"shape\" must be [rows, cols]");
    bt.rows = static_cast<int64_t>(shape.elements[0].number);
    bt.cols = static_cast<int64_t>(shape.elements[1].number);
    m.tensors.push_back(std::move(bt));
  }
  for (const JsonValue& s : r.member(root, "subcases", JsonValue::Kind::Array).elements) {
    if (s.kind != JsonValue::Kind::Object) r.fail(s.offset, "a sub-case entry must be an object");
    Subcase sub;
    const JsonValue& name = r.member(s, "name", JsonValue::Kind::String);
    sub.name = name.string;
    if (sub.name.empty() || sub.name.find_first_of("/\\") != std::string::npos || sub.name[0] == '.')
      r.fail(name.offset, "a sub-case name must be a plain folder name, not \"" + sub.name + "\"");
    for (const JsonMember& v : r.member(s, "scalars", JsonValue::Kind::Object).members)
      sub.scalars[v.key] = r.scalar(v.value);
    for (const JsonValue& c : r.member(s, "covers", JsonValue::Kind::Array).elements)
      if (c.kind == JsonValue::Kind::String) sub.covers.push_back(c.string);
    sub.replay = r.string(s, "replay");
    m.subcases.push_back(std::move(sub));
  }
  if (m.subcases.empty()) r.fail(r.member(root, "subcases", JsonValue::Kind::Array).offset, "a bundle needs a sub-case");
  const nlohmann::json parsed = nlohmann::json::parse(source.text);
  m.origin = ordered_json::parse(parsed.at("origin").dump());
  if (parsed.contains("dropped_subcases")) m.dropped = ordered_json::parse(parsed.at("dropped_subcases").dump());
  return m;
}

const Function& LoadedBundle::kernel() const {
  const Function* f = program.findFunction(manifest.kernel);
  if (!f) throwError((folder / "manifest.json").string(), {}, "the program has no kernel \"" + manifest.kernel + "\"");
  return *f;
}

KernelArgs LoadedBundle::argsFor(const Subcase& sub) const {
  CaseSpec s = spec;
  s.scalars = sub.scalars;
  return buildKernelArgs(kernel(), s, {});
}

LoadedBundle loadBundle(const fs::path& folder, bool lowered) {
  LoadedBundle b;
  b.folder = folder;
  b.manifest = readManifest(folder);
  const fs::path programPath = folder / (lowered ? "lowered.py" : "program.py");
  b.program = parseProgramFile(programPath.string());
  verifyOrThrow(b.program);
  b.spec = parseCaseFilePath((folder / "case.json").string());
  const Function& k = b.kernel();
  // The manifest's tensors must be the kernel's: a runner and the judge trust them for file names.
  size_t i = 0;
  for (const Param& p : k.params) {
    if (!p.type.isTensor()) continue;
    if (i >= b.manifest.tensors.size() || b.manifest.tensors[i].name != p.name ||
        b.manifest.tensors[i].direction != p.direction || b.manifest.tensors[i].dtype != p.type.dtype ||
        b.manifest.tensors[i].rows != p.type.rows() || b.manifest.tensors[i].cols != p.type.cols())
      throwError((folder / "manifest.json").string(), {},
                 "the manifest's tensors do not match the parameters of kernel \"" + k.name + "\" in " +
                     programPath.filename().string() + " (first difference at tensor parameter \"" + p.name + "\")");
    ++i;
  }
  if (i != b.manifest.tensors.size())
    throwError((folder / "manifest.json").string(), {}, "the manifest lists more tensors than the kernel has");
  return b;
}

std::vector<fs::path> findBundles(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throwError(root.string(), {}, "not a folder of bundles");
  if (fs::exists(root / "manifest.json", ec)) return {root};
  std::vector<fs::path> out;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && e.path().filename().string()[0] != '.' && fs::exists(e.path() / "manifest.json"))
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  if (out.empty()) throwError(root.string(), {}, "holds no bundle (no manifest.json in it or in its sub-folders)");
  return out;
}

}  // namespace ptodiff::device
