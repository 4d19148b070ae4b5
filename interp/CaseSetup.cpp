// Kernel-argument set-up from a case.
//
// Every generated value comes from interp/Random.h: xoshiro256** seeded per tensor, a documented
// binary64 mapping, then one round-to-nearest-even conversion to the element dtype. Tensors fill
// in row-major order, one draw per element, so a tensor's values depend only on its seed, dtype
// and shape.
#include "interp/CaseSetup.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include "compiler/ir/ResourceLimits.h"
#include "interp/Npy.h"
#include "interp/Random.h"

namespace ptodiff {

namespace {

/// Where an argument's value came from, for error messages.
struct ArgOrigin {
  std::string file;  // the case file, or empty for the command line
  SourceLoc loc;
  std::string prefix;  // "--input a=x.npy: " for command-line values, else empty
};

[[noreturn]] void fail(const ArgOrigin& origin, const std::string& message) {
  throwError(origin.file, origin.loc, origin.prefix + message);
}

std::string shapeText(int64_t rows, int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

/// The shortest text that reads back as `v` (std::to_string would print 1e-9 as 0.000000).
std::string numberText(double v) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::string paramNames(const Function& kernel, bool tensors) {
  std::string out;
  for (const Param& p : kernel.params) {
    if (p.type.isTensor() != tensors) continue;
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out.empty() ? "none" : out;
}

const Param* findParam(const Function& kernel, const std::string& name) {
  for (const Param& p : kernel.params)
    if (p.name == name) return &p;
  return nullptr;
}

/// Rejects case entries and overrides that name no parameter of the right kind.
void checkArgumentNames(const Function& kernel, const CaseSpec& spec, const ArgOverrides& overrides) {
  auto check = [&](const std::string& name, bool wantTensor, const ArgOrigin& origin) {
    const Param* p = findParam(kernel, name);
    const std::string kind = wantTensor ? "tensor" : "scalar";
    if (!p)
      fail(origin, "kernel \"" + kernel.name + "\" has no " + kind + " parameter \"" + name + "\" (" + kind +
                       " parameters: " + paramNames(kernel, wantTensor) + ")");
    if (p->type.isTensor() != wantTensor)
      fail(origin, "\"" + name + "\" is a " + (wantTensor ? "scalar" : "tensor") + " parameter of kernel \"" +
                       kernel.name + "\", not a " + kind);
  };
  for (const auto& [name, init] : spec.tensors) check(name, true, {spec.sourceName, init.loc, ""});
  for (const auto& [name, value] : spec.scalars) check(name, false, {spec.sourceName, value.loc, ""});
  for (const auto& [name, file] : overrides.inputFiles)
    check(name, true, {"", {}, "--input " + name + "=" + file + ": "});
  for (const auto& [name, text] : overrides.scalars)
    check(name, false, {"", {}, "--scalar " + name + "=" + text + ": "});
}

// ---- tensors ----

/// The integers of [low, high] that `dt` can hold, or nullopt when there are none.
std::optional<IntRange> integerInterval(double low, double high, DType dt) {
  const IntRange limits = intRangeOf(dt);
  const double lo = std::ceil(low), hi = std::floor(high);
  constexpr double kTwo63 = 0x1p63;  // int64 holds [-2^63, 2^63)
  if (lo > hi || lo >= kTwo63 || hi < -kTwo63) return std::nullopt;
  const int64_t first = lo <= -kTwo63 ? limits.min : std::max(static_cast<int64_t>(lo), limits.min);
  const int64_t last = hi >= kTwo63 ? limits.max : std::min(static_cast<int64_t>(hi), limits.max);
  if (first > last) return std::nullopt;
  return IntRange{first, last};
}

/// Uniform integer in [range.min, range.max]: min + floor(count * next53 / 2^53).
int64_t drawInteger(Xoshiro256& rng, IntRange range) {
  const uint64_t span = static_cast<uint64_t>(range.max) - static_cast<uint64_t>(range.min);
  const uint64_t offset = span == UINT64_MAX ? rng.next() : rng.nextBelow(span + 1);
  return static_cast<int64_t>(static_cast<uint64_t>(range.min) + offset);
}

/// The integer nearest `v` (ties to even), saturated to `range`.
int64_t saturateToInteger(double v, IntRange range) {
  const double r = std::nearbyint(v);  // default rounding mode: to nearest even
  if (r <= static_cast<double>(range.min)) return range.min;
  if (r >= static_cast<double>(range.max)) return range.max;
  return static_cast<int64_t>(r);
}

/// Box-Muller in binary64 with the cosine branch only: one standard normal per two draws.
/// Unlike everything else here, this depends on the C library: sqrt is exact IEEE, but log and
/// cos are only "within an ulp" by standard. glibc gives the same bits on every target it runs
/// on; another libm could differ in the last binary64 bit, which changes the stored element only
/// when the value sits on a rounding boundary of the (much narrower) element dtype.
double drawStandardNormal(Xoshiro256& rng) {
  const double u1 = 1.0 - rng.nextUnit();  // (0, 1]: log stays finite
  const double u2 = rng.nextUnit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

void fillUniform(Tensor& t, const TensorInit& init, uint64_t seed, const std::string& name,
                 const ArgOrigin& origin) {
  Xoshiro256 rng(seed);
  if (isFloat(t.dtype)) {
    for (int64_t i = 0; i < t.elements(); ++i)
      t.setBitsAt(i, floatBitsFromDouble(init.low + (init.high - init.low) * rng.nextUnit(), t.dtype));
    return;
  }
  const std::optional<IntRange> range = integerInterval(init.low, init.high, t.dtype);
  if (!range) {
    const IntRange limits = intRangeOf(t.dtype);
    fail(origin, "tensor \"" + name + "\": uniform range [" + numberText(init.low) + ", " +
                     numberText(init.high) + "] holds no " + std::string(dtypeName(t.dtype)) +
                     " value (expected an interval meeting [" + std::to_string(limits.min) + ", " +
                     std::to_string(limits.max) + "])");
  }
  for (int64_t i = 0; i < t.elements(); ++i) t.setBitsAt(i, intBits(drawInteger(rng, *range), t.dtype));
}

void fillNormal(Tensor& t, const TensorInit& init, uint64_t seed) {
  Xoshiro256 rng(seed);
  for (int64_t i = 0; i < t.elements(); ++i) {
    const double v = init.mean + init.stddev * drawStandardNormal(rng);
    t.setBitsAt(i, isFloat(t.dtype) ? floatBitsFromDouble(v, t.dtype)
                                    : intBits(saturateToInteger(v, intRangeOf(t.dtype)), t.dtype));
  }
}

/// Element i = i in the dtype: exact, or rounded to nearest even for floats; integers wrap to
/// the width (INT8 counts -128..127 again after 127); BOOL alternates 0, 1.
void fillIota(Tensor& t) {
  for (int64_t i = 0; i < t.elements(); ++i) {
    uint64_t bits;
    if (isFloat(t.dtype)) bits = floatBitsFromDouble(static_cast<double>(i), t.dtype);
    else if (t.dtype == DType::BOOL) bits = static_cast<uint64_t>(i & 1);
    else bits = intBits(i, t.dtype);
    t.setBitsAt(i, bits);
  }
}

Tensor tensorFromFile(const Param& p, const std::string& path, const ArgOrigin& origin) {
  Tensor t = readNpy(path);
  const int64_t rows = p.type.rows(), cols = p.type.cols();
  if (t.dtype != p.type.dtype || t.rows != rows || t.cols != cols)
    fail(origin, "tensor \"" + p.name + "\": " + path + " holds " + std::string(dtypeName(t.dtype)) + " " +
                     shapeText(t.rows, t.cols) + " but the parameter is " +
                     std::string(dtypeName(p.type.dtype)) + " " + shapeText(rows, cols) +
                     " (a file input must match the parameter's dtype and shape exactly)");
  return t;
}

TensorInit defaultInit(const Param& p) {
  TensorInit init;
  init.kind = p.direction == ParamDirection::Out ? TensorInit::Kind::Sentinel : TensorInit::Kind::Uniform;
  return init;  // uniform defaults: [-1, 1], seed derived from the case seed and the name
}

Tensor makeTensor(const Param& p, const CaseSpec& spec, const ArgOverrides& overrides) {
  if (p.type.shape.size() != 2 || p.type.rows() < 0 || p.type.cols() < 0)
    throwError("", p.loc, "tensor parameter \"" + p.name + "\" is not a rank-2 tensor");
  // The verifier checks the same limits; a built (unverified) kernel is checked here, before allocating.
  const ResourceLimits& limits = resourceLimits();
  requireWithinLimit("", p.loc, "tensor parameter \"" + p.name + "\" " + shapeText(p.type.rows(), p.type.cols()),
                     checkedElements(p.type.rows(), p.type.cols()), dtypeSize(p.type.dtype), limits.maxTensorElements,
                     limits.maxTensorBytes);

  if (auto it = overrides.inputFiles.find(p.name); it != overrides.inputFiles.end())
    return tensorFromFile(p, it->second, {"", {}, "--input " + p.name + "=" + it->second + ": "});
  if (overrides.builtTensors)
    if (auto it = overrides.builtTensors->find(p.name); it != overrides.builtTensors->end()) return it->second;

  TensorInit init = defaultInit(p);
  ArgOrigin origin{spec.sourceName, {}, ""};
  if (auto it = spec.tensors.find(p.name); it != spec.tensors.end()) {
    init = it->second;
    origin.loc = init.loc;
  }
  if (init.kind == TensorInit::Kind::File) return tensorFromFile(p, init.file, origin);

  Tensor t(p.type.dtype, p.type.rows(), p.type.cols());
  const uint64_t seed = init.seed.value_or(deriveTensorSeed(spec.seed, p.name));
  switch (init.kind) {
    case TensorInit::Kind::Uniform: fillUniform(t, init, seed, p.name, origin); break;
    case TensorInit::Kind::Normal: fillNormal(t, init, seed); break;
    case TensorInit::Kind::Iota: fillIota(t); break;
    case TensorInit::Kind::Zeros: break;  // the constructor zeroed the bytes
    case TensorInit::Kind::Sentinel: t.fillBits(sentinelBits(t.dtype)); break;
    case TensorInit::Kind::File: break;   // handled above
  }
  return t;
}

// ---- scalars ----

std::string scalarTypeText(const Param& p) { return "pl.Scalar[pl." + std::string(dtypeName(p.type.dtype)) + "]"; }

ScalarValue integerScalar(const Param& p, int64_t v, const ArgOrigin& origin) {
  const IntRange range = intRangeOf(p.type.dtype);
  if (v < range.min || v > range.max)
    fail(origin, "scalar \"" + p.name + "\" (" + scalarTypeText(p) + "): " + std::to_string(v) +
                     " is out of the " + std::string(dtypeName(p.type.dtype)) + " range [" +
                     std::to_string(range.min) + ", " + std::to_string(range.max) + "]");
  return ScalarValue{p.type.dtype, v, 0.0f};
}

ScalarValue fp32Scalar(const Param& p, double v, const ArgOrigin& origin) {
  const float f = static_cast<float>(v);  // one round-to-nearest-even
  if (std::isinf(f) && std::isfinite(v))
    fail(origin, "scalar \"" + p.name + "\" (" + scalarTypeText(p) + "): " + numberText(v) +
                     " overflows FP32 (expected a magnitude below 3.4028235e38)");
  return ScalarValue::fp32(f);
}

std::string caseScalarText(const CaseScalar& s) {
  switch (s.kind) {
    case CaseScalar::Kind::Bool: return s.b ? "true" : "false";
    case CaseScalar::Kind::Int: return std::to_string(s.i);
    case CaseScalar::Kind::Float: return numberText(s.f);
  }
  return "?";
}

ScalarValue scalarFromCase(const Param& p, const CaseScalar& s, const ArgOrigin& origin) {
  auto mismatch = [&](const std::string& expected) {
    fail(origin, "scalar \"" + p.name + "\" (" + scalarTypeText(p) + ") expects " + expected + ", got " +
                     caseScalarText(s));
  };
  switch (p.type.dtype) {
    case DType::INDEX: case DType::INT64: case DType::INT32:
      if (s.kind != CaseScalar::Kind::Int) mismatch("an integer");
      return integerScalar(p, s.i, origin);
    case DType::FP32:
      if (s.kind == CaseScalar::Kind::Bool) mismatch("a number");
      if (s.kind == CaseScalar::Kind::Int) {
        // An integer literal for an FP32 parameter is accepted only when FP32 holds it exactly.
        const float f = static_cast<float>(s.i);
        if (static_cast<double>(f) != static_cast<double>(s.i) ||
            std::fabs(static_cast<double>(f)) >= 0x1p63)
          mismatch("a number exactly representable in FP32 (write it with a fraction to round it)");
        return ScalarValue::fp32(f);
      }
      return fp32Scalar(p, s.f, origin);
    case DType::BOOL:
      if (s.kind != CaseScalar::Kind::Bool) mismatch("true or false");
      return ScalarValue::boolean(s.b);
    default:
      fail(origin, "parameter \"" + p.name + "\" has dtype " + std::string(dtypeName(p.type.dtype)) +
                       ", which is not a scalar dtype");
  }
}

/// Strict text forms: integers are an optional sign and decimal digits; FP32 is any decimal or
/// hexadecimal floating literal std::from_chars reads in full (also inf and nan), rounded once to
/// nearest even; BOOL is true/false/True/False.
[[noreturn]] void unreadableScalar(const Param& p, const std::string& text, const ArgOrigin& origin,
                                   const std::string& expected) {
  fail(origin, "scalar \"" + p.name + "\" (" + scalarTypeText(p) + "): cannot read \"" + text + "\" as " + expected);
}

ScalarValue scalarFromText(const Param& p, const std::string& text, const ArgOrigin& origin) {
  auto bad = [&](const std::string& expected) { unreadableScalar(p, text, origin, expected); };
  std::string_view body = text;
  if (body.starts_with('+')) body.remove_prefix(1);  // from_chars takes '-' but not '+'
  const char* first = body.data();
  const char* last = body.data() + body.size();
  switch (p.type.dtype) {
    case DType::INDEX: case DType::INT64: case DType::INT32: {
      int64_t v = 0;
      if (body.empty() || (body.front() == '-' && text.front() == '+')) bad("a decimal integer");
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range)
        fail(origin, "scalar \"" + p.name + "\" (" + scalarTypeText(p) + "): \"" + text +
                         "\" is out of the 64-bit integer range");
      if (ec != std::errc() || end != last) bad("a decimal integer");
      return integerScalar(p, v, origin);
    }
    case DType::FP32: {
      float v = 0;
      if (body.empty() || (body.front() == '-' && text.front() == '+')) bad("a floating-point number");
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range)
        fail(origin, "scalar \"" + p.name + "\" (" + scalarTypeText(p) + "): \"" + text +
                         "\" is out of the FP32 range");
      if (ec != std::errc() || end != last) bad("a floating-point number");
      return ScalarValue::fp32(v);
    }
    case DType::BOOL:
      if (text == "true" || text == "True") return ScalarValue::boolean(true);
      if (text == "false" || text == "False") return ScalarValue::boolean(false);
      unreadableScalar(p, text, origin, "a boolean (true, false, True or False)");
    default:
      fail(origin, "parameter \"" + p.name + "\" has dtype " + std::string(dtypeName(p.type.dtype)) +
                       ", which is not a scalar dtype");
  }
}

ScalarValue makeScalar(const Param& p, const CaseSpec& spec, const ArgOverrides& overrides,
                       const std::string& kernelName) {
  if (auto it = overrides.scalars.find(p.name); it != overrides.scalars.end())
    return scalarFromText(p, it->second, {"", {}, "--scalar " + p.name + "=" + it->second + ": "});
  if (auto it = spec.scalars.find(p.name); it != spec.scalars.end())
    return scalarFromCase(p, it->second, {spec.sourceName, it->second.loc, ""});
  throwError(spec.sourceName, {}, "scalar parameter \"" + p.name + "\" (" + scalarTypeText(p) + ") of kernel \"" +
                                      kernelName + "\" has no value (give it in the case's \"scalars\" or with --scalar " +
                                      p.name + "=VALUE)");
}

}  // namespace

bool sameTensorArguments(const CaseSpec& a, const CaseSpec& b) {
  const auto sameInit = [](const TensorInit& x, const TensorInit& y) {
    return x.kind == y.kind && x.file == y.file && x.low == y.low && x.high == y.high && x.mean == y.mean &&
           x.stddev == y.stddev && x.seed == y.seed;
  };
  return a.function == b.function && a.seed == b.seed && a.sourceName == b.sourceName &&
         std::equal(a.tensors.begin(), a.tensors.end(), b.tensors.begin(), b.tensors.end(),
                    [&](const auto& x, const auto& y) { return x.first == y.first && sameInit(x.second, y.second); });
}

KernelArgs buildKernelArgs(const Function& kernel, const CaseSpec& spec, const ArgOverrides& overrides) {
  checkArgumentNames(kernel, spec, overrides);
  KernelArgs args;
  int64_t gmBytes = 0;
  for (const Param& p : kernel.params) {
    if (p.type.isTensor() && p.type.shape.size() == 2) {
      // Each tensor is within maxTensorBytes (makeTensor) before its bytes count here: no overflow.
      const int64_t bytes = checkedElements(p.type.rows(), p.type.cols()) * dtypeSize(p.type.dtype);
      if (bytes > 0 && bytes <= resourceLimits().maxTensorBytes) gmBytes += bytes;
      if (gmBytes > resourceLimits().maxGmBytes)
        throwError("", p.loc, "kernel \"" + kernel.name + "\": its tensor parameters up to \"" + p.name + "\" take " +
                                  std::to_string(gmBytes) + " bytes, over the limit of " +
                                  std::to_string(resourceLimits().maxGmBytes) + " (expected smaller tensors)");
    }
    if (p.type.isTensor()) args.tensors.emplace(p.name, makeTensor(p, spec, overrides));
    else if (p.type.isScalar()) args.scalars.emplace(p.name, makeScalar(p, spec, overrides, kernel.name));
    else throwError("", p.loc, "parameter \"" + p.name + "\" is neither a tensor nor a scalar");
  }
  return args;
}

}  // namespace ptodiff
