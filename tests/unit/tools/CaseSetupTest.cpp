#include "interp/CaseSetup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <set>

#include "interp/Npy.h"
#include "interp/Random.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;

Param tensorParam(const std::string& name, DType dt, int64_t rows, int64_t cols,
                  ParamDirection dir = ParamDirection::In) {
  Param p;
  p.name = name;
  p.type = Type::tensor({rows, cols}, dt);
  p.direction = dir;
  return p;
}

Param scalarParam(const std::string& name, DType dt) {
  Param p;
  p.name = name;
  p.type = Type::scalar(dt);
  return p;
}

Function kernelWith(std::vector<Param> params) {
  Function f;
  f.name = "kernel";
  f.params = std::move(params);
  return f;
}

/// One In, one InOut and one Out tensor of `dt`, 8 x 16.
Function threeTensorKernel(DType dt = DType::FP32) {
  return kernelWith({tensorParam("a", dt, 8, 16), tensorParam("io", dt, 8, 16, ParamDirection::InOut),
                     tensorParam("out", dt, 8, 16, ParamDirection::Out)});
}

CaseSpec caseWith(std::map<std::string, TensorInit> tensors, uint64_t seed = 0) {
  CaseSpec spec;
  spec.tensors = std::move(tensors);
  spec.seed = seed;
  spec.sourceName = "k.case.json";
  return spec;
}

TensorInit init(TensorInit::Kind kind) {
  TensorInit i;
  i.kind = kind;
  return i;
}

TensorInit uniform(double low, double high, std::optional<uint64_t> seed = std::nullopt) {
  TensorInit i = init(TensorInit::Kind::Uniform);
  i.low = low;
  i.high = high;
  i.seed = seed;
  return i;
}

double fp32At(const Tensor& t, int64_t i) { return std::bit_cast<float>(static_cast<uint32_t>(t.bitsAt(i))); }

double valueAt(const Tensor& t, int64_t i) {
  const uint16_t half = static_cast<uint16_t>(t.bitsAt(i));
  switch (t.dtype) {
    case DType::FP32: return fp32At(t, i);
    case DType::FP16: return static_cast<float>(std::bit_cast<Eigen::half>(half));
    case DType::BF16: return static_cast<float>(std::bit_cast<Eigen::bfloat16>(half));
    case DType::INT32: return static_cast<int32_t>(t.bitsAt(i));
    case DType::INT8: return static_cast<int8_t>(t.bitsAt(i));
    default: return static_cast<double>(t.bitsAt(i));
  }
}

/// Expects `fn` to throw a DiagnosticError whose message contains `what`; returns it.
template <class Fn>
Diagnostic expectError(Fn fn, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << what;
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(e.diagnostic().message, HasSubstr(what));
    return e.diagnostic();
  }
  return {};
}

// ---- the generator itself ----

TEST(Random, SplitMix64KnownAnswers) {
  // Published first outputs of splitmix64 from seed 0.
  SplitMix64 mix(0);
  EXPECT_EQ(mix.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(mix.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(mix.next(), 0x06C45D188009454Full);
}

TEST(Random, Xoshiro256StarStarMatchesReferenceAlgorithm) {
  // The reference algorithm (Blackman & Vigna), written out independently of interp/Random.cpp.
  uint64_t s[4];
  SplitMix64 mix(12345);
  for (uint64_t& w : s) w = mix.next();
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  Xoshiro256 rng(12345);
  for (int i = 0; i < 100; ++i) {
    const uint64_t expected = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    ASSERT_EQ(rng.next(), expected) << "draw " << i;
  }
}

TEST(Random, NextBelowStaysInRangeAndCoversIt) {
  Xoshiro256 rng(1);
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = rng.nextBelow(7);
    ASSERT_LT(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(Random, FloatBitsRoundOnceFromDouble) {
  // Just above the midpoint between 1 and the next FP16: correct rounding goes up; rounding to
  // float first would land exactly on the midpoint and then tie to even (down).
  EXPECT_EQ(floatBitsFromDouble(1.0 + 0x1p-11 + 0x1p-40, DType::FP16), 0x3C01u);
  EXPECT_EQ(floatBitsFromDouble(1.0 + 0x1p-11, DType::FP16), 0x3C00u);  // a true tie: to even
  EXPECT_EQ(floatBitsFromDouble(1.0 + 3 * 0x1p-11, DType::FP16), 0x3C02u);  // tie: to even (up)
  EXPECT_EQ(floatBitsFromDouble(1.0 + 0x1p-8 + 0x1p-40, DType::BF16), 0x3F81u);
  EXPECT_EQ(floatBitsFromDouble(1.0 + 0x1p-8, DType::BF16), 0x3F80u);
  EXPECT_EQ(floatBitsFromDouble(-(1.0 + 0x1p-11 + 0x1p-40), DType::FP16), 0xBC01u);
  // Overflow and the FP16 overflow threshold 65520.
  EXPECT_EQ(floatBitsFromDouble(65519.99, DType::FP16), 0x7BFFu);
  EXPECT_EQ(floatBitsFromDouble(65520.0, DType::FP16), 0x7C00u);
  EXPECT_EQ(floatBitsFromDouble(-1e300, DType::FP16), 0xFC00u);
  EXPECT_EQ(floatBitsFromDouble(1e39, DType::BF16), 0x7F80u);
  EXPECT_EQ(floatBitsFromDouble(1e39, DType::FP32), 0x7F800000u);
  // FP16 subnormals: 2^-25 is half the smallest subnormal.
  EXPECT_EQ(floatBitsFromDouble(0x1p-25, DType::FP16), 0x0000u);
  EXPECT_EQ(floatBitsFromDouble(0x1p-25 + 0x1p-60, DType::FP16), 0x0001u);
  EXPECT_EQ(floatBitsFromDouble(0x1p-200, DType::BF16), 0x0000u);
  EXPECT_EQ(floatBitsFromDouble(std::nan(""), DType::FP32), 0x7FC00000u);
  EXPECT_EQ(floatBitsFromDouble(std::nan(""), DType::FP16), 0x7E00u);
  EXPECT_EQ(floatBitsFromDouble(std::nan(""), DType::BF16), 0x7FC0u);
  EXPECT_EQ(floatBitsFromDouble(0.1, DType::FP32), std::bit_cast<uint32_t>(0.1f));
}

// ---- tensors ----

TEST(CaseSetup, DefaultsInUniformOutSentinel) {
  const KernelArgs args = buildKernelArgs(threeTensorKernel(), CaseSpec{}, {});
  ASSERT_EQ(args.tensors.size(), 3u);
  for (const std::string name : {"a", "io"}) {
    const Tensor& t = args.tensors.at(name);
    EXPECT_EQ(t.dtype, DType::FP32);
    EXPECT_EQ(t.rows, 8);
    EXPECT_EQ(t.cols, 16);
    std::set<uint64_t> distinct;
    for (int64_t i = 0; i < t.elements(); ++i) {
      EXPECT_GE(fp32At(t, i), -1.0);
      EXPECT_LE(fp32At(t, i), 1.0);
      distinct.insert(t.bitsAt(i));
    }
    EXPECT_GT(distinct.size(), 100u) << name << " does not look random";
    EXPECT_FALSE(t.anyPoison());
  }
  const Tensor& out = args.tensors.at("out");
  for (int64_t i = 0; i < out.elements(); ++i) ASSERT_EQ(out.bitsAt(i), 0x7FC0DEADu);
}

TEST(CaseSetup, SentinelPerDType) {
  const std::vector<std::pair<DType, uint64_t>> expected = {
      {DType::FP32, 0x7FC0DEAD}, {DType::FP16, 0x7E5A}, {DType::BF16, 0x7FDA},
      {DType::INT32, 0x5EA1DEAD}, {DType::INT8, 0x5A}};
  for (const auto& [dt, bits] : expected) {
    const KernelArgs args = buildKernelArgs(threeTensorKernel(dt), CaseSpec{}, {});
    const Tensor& out = args.tensors.at("out");
    for (int64_t i = 0; i < out.elements(); ++i) ASSERT_EQ(out.bitsAt(i), bits) << dtypeName(dt);
    // An explicit "sentinel" init on an In tensor gives the same bits.
    const KernelArgs explicitArgs =
        buildKernelArgs(threeTensorKernel(dt), caseWith({{"a", init(TensorInit::Kind::Sentinel)}}), {});
    EXPECT_EQ(explicitArgs.tensors.at("a").bytes, out.bytes);
  }
}

TEST(CaseSetup, SameSeedSameBitsDifferentSeedDifferentBits) {
  const Function k = threeTensorKernel();
  const KernelArgs first = buildKernelArgs(k, caseWith({}, 42), {});
  const KernelArgs again = buildKernelArgs(k, caseWith({}, 42), {});
  const KernelArgs other = buildKernelArgs(k, caseWith({}, 43), {});
  EXPECT_EQ(first.tensors.at("a").bytes, again.tensors.at("a").bytes);
  EXPECT_EQ(first.tensors.at("io").bytes, again.tensors.at("io").bytes);
  EXPECT_NE(first.tensors.at("a").bytes, other.tensors.at("a").bytes);
  // Same case seed, different names: different streams.
  EXPECT_NE(first.tensors.at("a").bytes, first.tensors.at("io").bytes);
}

// A campaign case's scalar sets share their inputs: the tensors built for one set are copied for
// the next when the specs agree on everything but scalars, and only for the tensors given.
TEST(CaseSetup, SameTensorArgumentsIgnoreScalarsAndBuiltTensorsAreCopied) {
  CaseSpec a = caseWith({{"a", uniform(-1, 1, 5)}}, 42), b = a;
  b.scalars["n"] = CaseScalar{CaseScalar::Kind::Int, 3, 0.0, false, {}};
  EXPECT_TRUE(sameTensorArguments(a, b));
  CaseSpec otherSeed = a, otherInit = a, otherFunction = a, otherTensors = a;
  otherSeed.seed = 43;
  otherInit.tensors["a"].high = 2.0;
  otherFunction.function = "helper";
  otherTensors.tensors["io"] = init(TensorInit::Kind::Zeros);
  EXPECT_FALSE(sameTensorArguments(a, otherSeed));
  EXPECT_FALSE(sameTensorArguments(a, otherInit));
  EXPECT_FALSE(sameTensorArguments(a, otherFunction));
  EXPECT_FALSE(sameTensorArguments(a, otherTensors));

  const Function k = threeTensorKernel();
  std::map<std::string, Tensor> built;
  built.emplace("a", Tensor(DType::FP32, 8, 16));
  built.at("a").fillBits(0x3F800000u);  // 1.0 everywhere: not what seed 42 generates
  ArgOverrides shared;
  shared.builtTensors = &built;
  const KernelArgs args = buildKernelArgs(k, a, shared);
  EXPECT_EQ(args.tensors.at("a").bytes, built.at("a").bytes);
  EXPECT_EQ(args.tensors.at("io").bytes, buildKernelArgs(k, a, {}).tensors.at("io").bytes);  // not given: built
}

TEST(CaseSetup, DerivedSeedDependsOnNameNotOnOtherTensors) {
  const KernelArgs alone = buildKernelArgs(kernelWith({tensorParam("a", DType::FP32, 4, 4)}), caseWith({}, 7), {});
  const KernelArgs withOthers = buildKernelArgs(
      kernelWith({tensorParam("z", DType::FP32, 2, 2), tensorParam("a", DType::FP32, 4, 4)}), caseWith({}, 7), {});
  EXPECT_EQ(alone.tensors.at("a").bytes, withOthers.tensors.at("a").bytes);
}

TEST(CaseSetup, ExplicitSeedIsUsedAsGiven) {
  const Function k = threeTensorKernel();
  const KernelArgs one = buildKernelArgs(k, caseWith({{"a", uniform(-1, 1, 5)}, {"io", uniform(-1, 1, 5)}}, 1), {});
  const KernelArgs two = buildKernelArgs(k, caseWith({{"a", uniform(-1, 1, 5)}}, 2), {});
  EXPECT_EQ(one.tensors.at("a").bytes, one.tensors.at("io").bytes);  // same seed, same stream
  EXPECT_EQ(one.tensors.at("a").bytes, two.tensors.at("a").bytes);   // case seed does not matter
}

TEST(CaseSetup, UniformFollowsTheDocumentedMapping) {
  // value = low + (high - low) * (next53 / 2^53) in binary64, then one RNE conversion.
  const KernelArgs args = buildKernelArgs(threeTensorKernel(), caseWith({{"a", uniform(-3, 5, 11)}}), {});
  Xoshiro256 rng(11);
  const Tensor& a = args.tensors.at("a");
  for (int64_t i = 0; i < a.elements(); ++i) {
    const double u = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
    ASSERT_EQ(a.bitsAt(i), std::bit_cast<uint32_t>(static_cast<float>(-3.0 + 8.0 * u))) << i;
  }
}

TEST(CaseSetup, UniformRangeForEveryFloatDType) {
  for (DType dt : {DType::FP32, DType::FP16, DType::BF16}) {
    const KernelArgs args = buildKernelArgs(threeTensorKernel(dt), caseWith({{"a", uniform(2, 3)}}), {});
    const Tensor& a = args.tensors.at("a");
    double lo = 1e9, hi = -1e9;
    for (int64_t i = 0; i < a.elements(); ++i) {
      lo = std::min(lo, valueAt(a, i));
      hi = std::max(hi, valueAt(a, i));
    }
    EXPECT_GE(lo, 2.0) << dtypeName(dt);
    EXPECT_LE(hi, 3.0) << dtypeName(dt);
    EXPECT_LT(lo, 2.25) << dtypeName(dt);  // 128 draws spread over the range
    EXPECT_GT(hi, 2.75) << dtypeName(dt);
  }
}

TEST(CaseSetup, IntegerUniformCoversTheClosedRange) {
  const KernelArgs args = buildKernelArgs(threeTensorKernel(DType::INT32), caseWith({{"a", uniform(-3, 3)}}), {});
  const Tensor& a = args.tensors.at("a");
  std::set<double> seen;
  for (int64_t i = 0; i < a.elements(); ++i) seen.insert(valueAt(a, i));
  EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3}));
  // Fractional bounds keep the integers inside them; the default range for INT8 is {-1, 0, 1}.
  const KernelArgs frac =
      buildKernelArgs(threeTensorKernel(DType::INT32), caseWith({{"a", uniform(0.5, 2.5)}}), {});
  std::set<double> fracSeen;
  for (int64_t i = 0; i < 128; ++i) fracSeen.insert(valueAt(frac.tensors.at("a"), i));
  EXPECT_EQ(fracSeen, (std::set<double>{1, 2}));
  const KernelArgs int8 = buildKernelArgs(threeTensorKernel(DType::INT8), CaseSpec{}, {});
  std::set<double> int8Seen;
  for (int64_t i = 0; i < 128; ++i) int8Seen.insert(valueAt(int8.tensors.at("a"), i));
  EXPECT_EQ(int8Seen, (std::set<double>{-1, 0, 1}));
}

TEST(CaseSetup, IntegerUniformWithoutIntegersIsAnError) {
  const Diagnostic d = expectError(
      [] { buildKernelArgs(threeTensorKernel(DType::INT32), caseWith({{"a", uniform(0.2, 0.8)}}), {}); },
      "tensor \"a\": uniform range [0.2, 0.8] holds no INT32 value");
  EXPECT_EQ(d.file, "k.case.json");
  expectError([] { buildKernelArgs(threeTensorKernel(DType::INT8), caseWith({{"a", uniform(300, 400)}}), {}); },
              "holds no INT8 value");
}

TEST(CaseSetup, Normal) {
  TensorInit constant = init(TensorInit::Kind::Normal);
  constant.mean = 10;
  constant.stddev = 0;
  const KernelArgs c = buildKernelArgs(threeTensorKernel(), caseWith({{"a", constant}}), {});
  for (int64_t i = 0; i < 128; ++i) ASSERT_EQ(fp32At(c.tensors.at("a"), i), 10.0);

  const Function big = kernelWith({tensorParam("a", DType::FP32, 64, 64)});
  const KernelArgs n = buildKernelArgs(big, caseWith({{"a", init(TensorInit::Kind::Normal)}}), {});
  double sum = 0, sumSq = 0;
  const Tensor& a = n.tensors.at("a");
  for (int64_t i = 0; i < a.elements(); ++i) {
    sum += fp32At(a, i);
    sumSq += fp32At(a, i) * fp32At(a, i);
  }
  const double mean = sum / 4096, var = sumSq / 4096 - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.1);
  EXPECT_NEAR(var, 1.0, 0.1);
  // Deterministic like uniform.
  EXPECT_EQ(a.bytes, buildKernelArgs(big, caseWith({{"a", init(TensorInit::Kind::Normal)}}), {}).tensors.at("a").bytes);
}

TEST(CaseSetup, IotaConvertsTheIndex) {
  const KernelArgs f = buildKernelArgs(threeTensorKernel(), caseWith({{"a", init(TensorInit::Kind::Iota)}}), {});
  for (int64_t i = 0; i < 128; ++i) ASSERT_EQ(fp32At(f.tensors.at("a"), i), static_cast<double>(i));

  const Function wide = kernelWith({tensorParam("h", DType::FP16, 1, 2050), tensorParam("b", DType::BF16, 1, 300),
                                    tensorParam("i8", DType::INT8, 1, 300)});
  const CaseSpec iotas = caseWith({{"h", init(TensorInit::Kind::Iota)},
                                   {"b", init(TensorInit::Kind::Iota)},
                                   {"i8", init(TensorInit::Kind::Iota)}});
  const KernelArgs w = buildKernelArgs(wide, iotas, {});
  EXPECT_EQ(valueAt(w.tensors.at("h"), 2049), 2048.0);  // 2049 ties to even in FP16
  EXPECT_EQ(valueAt(w.tensors.at("b"), 257), 256.0);    // 257 ties to even in BF16
  EXPECT_EQ(valueAt(w.tensors.at("b"), 259), 260.0);
  EXPECT_EQ(valueAt(w.tensors.at("i8"), 127), 127.0);
  EXPECT_EQ(valueAt(w.tensors.at("i8"), 200), -56.0);  // wraps to the width
}

TEST(CaseSetup, ZerosAreZeroBits) {
  const KernelArgs z = buildKernelArgs(threeTensorKernel(DType::BF16), caseWith({{"out", init(TensorInit::Kind::Zeros)}}), {});
  for (uint8_t b : z.tensors.at("out").bytes) ASSERT_EQ(b, 0);
}

// ---- file inputs and overrides ----

class CaseSetupFiles : public ::testing::Test {
 protected:
  std::string writeTensor(const std::string& name, DType dt, int64_t rows, int64_t cols, uint64_t fill) {
    Tensor t(dt, rows, cols);
    t.fillBits(fill);
    const std::string path = dir.file(name);
    writeNpy(path, t);
    return path;
  }
  TensorInit fileInit(const std::string& path) {
    TensorInit i = init(TensorInit::Kind::File);
    i.file = path;
    i.loc = {3, 5};
    return i;
  }
  testing::TempDir dir;
};

TEST_F(CaseSetupFiles, FileInitCopiesBits) {
  const std::string path = writeTensor("a.npy", DType::FP32, 8, 16, 0x3FC00000);
  const KernelArgs args = buildKernelArgs(threeTensorKernel(), caseWith({{"a", fileInit(path)}}), {});
  for (int64_t i = 0; i < 128; ++i) ASSERT_EQ(args.tensors.at("a").bitsAt(i), 0x3FC00000u);
}

TEST_F(CaseSetupFiles, FileMustMatchDtypeAndShape) {
  const std::string wrongType = writeTensor("t.npy", DType::INT32, 8, 16, 1);
  const Diagnostic d = expectError(
      [&] { buildKernelArgs(threeTensorKernel(), caseWith({{"a", fileInit(wrongType)}}), {}); },
      "tensor \"a\": " + wrongType + " holds INT32 [8, 16] but the parameter is FP32 [8, 16]");
  EXPECT_EQ(d.file, "k.case.json");
  EXPECT_EQ(d.loc, (SourceLoc{3, 5}));
  const std::string wrongShape = writeTensor("s.npy", DType::FP32, 16, 8, 1);
  expectError([&] { buildKernelArgs(threeTensorKernel(), caseWith({{"a", fileInit(wrongShape)}}), {}); },
              "holds FP32 [16, 8] but the parameter is FP32 [8, 16]");
}

TEST_F(CaseSetupFiles, InputOverrideBeatsCase) {
  const std::string path = writeTensor("o.npy", DType::FP32, 8, 16, 0x40000000);
  ArgOverrides o;
  o.inputFiles["a"] = path;
  const KernelArgs args = buildKernelArgs(threeTensorKernel(), caseWith({{"a", init(TensorInit::Kind::Zeros)}}), o);
  EXPECT_EQ(args.tensors.at("a").bitsAt(5), 0x40000000u);
  // An Out tensor may be initialised from a file too.
  ArgOverrides out;
  out.inputFiles["out"] = path;
  EXPECT_EQ(buildKernelArgs(threeTensorKernel(), CaseSpec{}, out).tensors.at("out").bitsAt(0), 0x40000000u);
}

TEST_F(CaseSetupFiles, MissingOverrideFileNamesIt) {
  ArgOverrides o;
  o.inputFiles["a"] = dir.file("nope.npy");
  const Diagnostic d = expectError([&] { buildKernelArgs(threeTensorKernel(), CaseSpec{}, o); }, "no such file");
  EXPECT_EQ(d.file, dir.file("nope.npy"));
}

TEST(CaseSetup, UnknownNamesAreErrors) {
  TensorInit located = init(TensorInit::Kind::Zeros);
  located.loc = {4, 7};
  Diagnostic d = expectError([&] { buildKernelArgs(threeTensorKernel(), caseWith({{"b", located}}), {}); },
                             "kernel \"kernel\" has no tensor parameter \"b\" (tensor parameters: a, io, out)");
  EXPECT_EQ(d.file, "k.case.json");
  EXPECT_EQ(d.loc, (SourceLoc{4, 7}));

  const Function mixed = kernelWith({tensorParam("a", DType::FP32, 1, 8), scalarParam("n", DType::INDEX)});
  CaseSpec scalars = caseWith({});
  scalars.scalars["m"] = CaseScalar{CaseScalar::Kind::Int, 1, 0, false, {2, 9}};
  scalars.scalars["n"] = CaseScalar{CaseScalar::Kind::Int, 1, 0, false, {}};
  d = expectError([&] { buildKernelArgs(mixed, scalars, {}); }, "has no scalar parameter \"m\" (scalar parameters: n)");
  EXPECT_EQ(d.loc, (SourceLoc{2, 9}));

  expectError([&] { buildKernelArgs(mixed, caseWith({{"n", located}}), {}); },
              "\"n\" is a scalar parameter of kernel \"kernel\", not a tensor");
  CaseSpec ok = caseWith({});
  ok.scalars["n"] = CaseScalar{};
  ArgOverrides badInput;
  badInput.inputFiles["zz"] = "x.npy";
  expectError([&] { buildKernelArgs(mixed, ok, badInput); }, "--input zz=x.npy: kernel \"kernel\" has no tensor");
  ArgOverrides badScalar;
  badScalar.scalars["a"] = "1";
  expectError([&] { buildKernelArgs(mixed, ok, badScalar); }, "--scalar a=1: \"a\" is a tensor parameter");
}

// ---- scalars ----

ScalarValue caseScalar(DType dt, CaseScalar value) {
  CaseSpec spec;
  spec.scalars["s"] = value;
  return buildKernelArgs(kernelWith({scalarParam("s", dt)}), spec, {}).scalars.at("s");
}

ScalarValue textScalar(DType dt, const std::string& text) {
  ArgOverrides o;
  o.scalars["s"] = text;
  return buildKernelArgs(kernelWith({scalarParam("s", dt)}), CaseSpec{}, o).scalars.at("s");
}

CaseScalar intValue(int64_t v) { return CaseScalar{CaseScalar::Kind::Int, v, 0, false, {}}; }
CaseScalar floatValue(double v) { return CaseScalar{CaseScalar::Kind::Float, 0, v, false, {}}; }
CaseScalar boolValue(bool v) { return CaseScalar{CaseScalar::Kind::Bool, 0, 0, v, {}}; }

TEST(CaseSetupScalars, TypedAgainstTheParameter) {
  EXPECT_EQ(caseScalar(DType::INDEX, intValue(-5)), (ScalarValue{DType::INDEX, -5, 0}));
  EXPECT_EQ(caseScalar(DType::INT64, intValue(INT64_MAX)), (ScalarValue{DType::INT64, INT64_MAX, 0}));
  EXPECT_EQ(caseScalar(DType::INT32, intValue(INT32_MIN)), (ScalarValue{DType::INT32, INT32_MIN, 0}));
  EXPECT_EQ(caseScalar(DType::FP32, floatValue(0.1)), ScalarValue::fp32(0.1f));
  EXPECT_EQ(caseScalar(DType::FP32, intValue(3)), ScalarValue::fp32(3.0f));
  EXPECT_EQ(caseScalar(DType::BOOL, boolValue(true)), ScalarValue::boolean(true));
}

TEST(CaseSetupScalars, TypeErrors) {
  expectError([] { caseScalar(DType::INT32, intValue(int64_t{1} << 31)); },
              "scalar \"s\" (pl.Scalar[pl.INT32]): 2147483648 is out of the INT32 range");
  expectError([] { caseScalar(DType::INDEX, floatValue(2.0)); }, "expects an integer, got 2");
  expectError([] { caseScalar(DType::INDEX, boolValue(true)); }, "expects an integer, got true");
  expectError([] { caseScalar(DType::BOOL, intValue(1)); }, "expects true or false, got 1");
  expectError([] { caseScalar(DType::FP32, boolValue(false)); }, "expects a number");
  expectError([] { caseScalar(DType::FP32, intValue(16777217)); }, "exactly representable in FP32");
  expectError([] { caseScalar(DType::FP32, floatValue(1e39)); }, "overflows FP32");
}

TEST(CaseSetupScalars, MissingScalarNamesIt) {
  const Function k = kernelWith({scalarParam("count", DType::INDEX)});
  expectError([&] { buildKernelArgs(k, CaseSpec{}, {}); },
              "scalar parameter \"count\" (pl.Scalar[pl.INDEX]) of kernel \"kernel\" has no value");
}

TEST(CaseSetupScalars, TextIsParsedStrictly) {
  EXPECT_EQ(textScalar(DType::INDEX, "42").i, 42);
  EXPECT_EQ(textScalar(DType::INDEX, "+42").i, 42);
  EXPECT_EQ(textScalar(DType::INT32, "-2147483648").i, INT32_MIN);
  EXPECT_EQ(textScalar(DType::FP32, "0.1"), ScalarValue::fp32(0.1f));
  EXPECT_EQ(textScalar(DType::FP32, "-2.5e3"), ScalarValue::fp32(-2500.0f));
  EXPECT_EQ(textScalar(DType::FP32, "7"), ScalarValue::fp32(7.0f));
  EXPECT_TRUE(std::isinf(textScalar(DType::FP32, "-inf").f));
  EXPECT_EQ(textScalar(DType::BOOL, "true"), ScalarValue::boolean(true));
  EXPECT_EQ(textScalar(DType::BOOL, "False"), ScalarValue::boolean(false));

  for (const std::string bad : {"", " 4", "4 ", "4x", "0x10", "1e3", "4.0", "+-4", "--4"})
    expectError([&] { textScalar(DType::INDEX, bad); }, "cannot read \"" + bad + "\" as a decimal integer");
  expectError([] { textScalar(DType::INDEX, "99999999999999999999"); }, "out of the 64-bit integer range");
  expectError([] { textScalar(DType::INT32, "3000000000"); }, "3000000000 is out of the INT32 range");
  for (const std::string bad : {"", "1.5f", "one", " 1", "+-1"})
    expectError([&] { textScalar(DType::FP32, bad); }, "cannot read \"" + bad + "\" as a floating-point number");
  expectError([] { textScalar(DType::FP32, "1e39"); }, "out of the FP32 range");
  for (const std::string bad : {"1", "0", "yes", "TRUE", ""})
    expectError([&] { textScalar(DType::BOOL, bad); }, "as a boolean");
}

TEST(CaseSetupScalars, OverrideBeatsCase) {
  CaseSpec spec;
  spec.scalars["s"] = intValue(1);
  ArgOverrides o;
  o.scalars["s"] = "9";
  EXPECT_EQ(buildKernelArgs(kernelWith({scalarParam("s", DType::INDEX)}), spec, o).scalars.at("s").i, 9);
}

}  // namespace
}  // namespace ptodiff
