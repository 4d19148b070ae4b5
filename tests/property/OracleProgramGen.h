// A generator of random, verifiable Tile programs with their arguments, for the oracle's
// zero-false-alarm property (OracleAgreementTest.cpp).
//
// What it produces (one kernel per case, every tile fully valid):
//   - a vector part in FP32 or FP16 on [R, C] tiles: chains of add, sub, mul, maximum, minimum;
//     cancellation-heavy (a + b) - a; division by a value kept away from zero and raw division;
//     exp of clamped small and large arguments and of raw values; log and sqrt of positives
//     (|x| + c); recip; abs, neg, relu, lrelu; tile-scalar ops with literals and an FP32 scalar
//     parameter; For loops with one or two tile carries (trip counts up to 64, literal or a
//     scalar parameter, long add chains), If on a BOOL parameter, an INDEX comparison or the loop
//     index, nested once; row_sum/col_sum stored to their own outputs;
//   - optionally a cube part: FP16 or FP32 operands with mixed signs, K up to 512, matmul,
//     matmul_acc, or a K loop of extract + matmul_acc(init_cond=k == 0); Acc stored to FP32 and
//     converted to FP16.
// Inputs come from value classes (unit, large, tiny, positive, mixed magnitudes, small integers)
// chosen per tensor. Programs may still overflow, divide by zero or take log of a value that
// computes as zero: the oracle must handle all of it without a false alarm.
//
// The knobs that shape a program are RapidCheck picks (so a failure shrinks toward fewer ops, no
// cube part, no control flow); every finer choice comes from a seed through ptodiff's own
// SplitMix64, so a counterexample replays from its printed knobs.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "interp/Tensor.h"

namespace ptodiff::oracle::testgen {

struct OracleGenKnobs {
  uint64_t seed = 0;
  int ops = 6;           // top-level vector statements (0..14)
  bool fp16 = false;     // the vector part's dtype
  int matmulK = 0;       // 0: no cube part; else the contraction extent (a multiple of 16, <= 512)
  bool control = true;   // For loops and Ifs
};

inline std::ostream& operator<<(std::ostream& os, const OracleGenKnobs& k) {
  return os << "{seed " << k.seed << ", ops " << k.ops << ", " << (k.fp16 ? "FP16" : "FP32") << ", matmul K "
            << k.matmulK << ", control " << (k.control ? "on" : "off") << "}";
}

struct GeneratedCase {
  OracleGenKnobs knobs;
  std::string text;  // the program
  KernelArgs args;
};

namespace detail {

/// SplitMix64: small, fast, and the same sequence everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return unit() < p; }
  template <class T>
  const T& pickFrom(const std::vector<T>& v) { return v[static_cast<size_t>(below(static_cast<int>(v.size())))]; }

 private:
  uint64_t state_;
};

enum class ValueClass { Unit, Large, Tiny, Positive, Mixed, SmallInt };

inline double drawValue(Rng& rng, ValueClass k, bool fp16) {
  switch (k) {
    case ValueClass::Unit: return rng.uniform(-1.0, 1.0);
    case ValueClass::Large: return rng.uniform(-1.0, 1.0) * (fp16 ? 200.0 : 1e4);
    case ValueClass::Tiny: return rng.uniform(-1.0, 1.0) * (fp16 ? 1e-2 : 1e-3);
    case ValueClass::Positive: return rng.uniform(0.5, 4.0);
    case ValueClass::Mixed: {
      const double mag = std::pow(10.0, fp16 ? rng.uniform(-2.0, 2.0) : rng.uniform(-4.0, 4.0));
      return rng.chance(0.5) ? mag : -mag;
    }
    case ValueClass::SmallInt: return static_cast<double>(rng.below(17) - 8);
  }
  return 0.0;
}

inline uint64_t encode(double v, DType dt) {
  if (dt == DType::FP16) return Eigen::numext::bit_cast<uint16_t>(Eigen::half(static_cast<float>(v)));
  return std::bit_cast<uint32_t>(static_cast<float>(v));
}

inline std::string shapeText(int64_t r, int64_t c) { return "[" + std::to_string(r) + ", " + std::to_string(c) + "]"; }
inline std::string dtypeText(DType dt) { return dt == DType::FP16 ? "pl.FP16" : "pl.FP32"; }
inline std::string tensorType(int64_t r, int64_t c, DType dt) {
  return "pl.Tensor[" + shapeText(r, c) + ", " + dtypeText(dt) + "]";
}

/// Writes one program: statements with indentation and scopes, parameters and arguments.
class OracleProgramBuilder {
 public:
  explicit OracleProgramBuilder(const OracleGenKnobs& knobs)
      : knobs_(knobs), rng_(knobs.seed), dt_(knobs.fp16 ? DType::FP16 : DType::FP32) {
    rows_ = std::vector<int64_t>{1, 2, 4, 8, 16}[static_cast<size_t>(rng_.below(5))];
    cols_ = knobs.fp16 ? (rng_.chance(0.5) ? 16 : 32) : std::vector<int64_t>{8, 16, 32}[static_cast<size_t>(rng_.below(3))];
  }

  GeneratedCase build() {
    scopes_.push_back({});
    for (int i = 0; i < 3; ++i) {
      const std::string name = "a" + std::to_string(i);
      addInput(name, rows_, cols_, dt_, randomClass());
      define(emitAssign("pl.tile.load(" + name + ", [0, 0], " + shapeText(rows_, cols_) + ")"));
    }
    // Scalar parameters are always present (an unused parameter is fine).
    params_.push_back("n: pl.Scalar[pl.INDEX]");
    args_.scalars["n"] = ScalarValue::index(rng_.below(49));
    params_.push_back("flag: pl.Scalar[pl.BOOL]");
    args_.scalars["flag"] = ScalarValue::boolean(rng_.chance(0.5));
    params_.push_back("s: pl.Scalar[pl.FP32]");
    args_.scalars["s"] = ScalarValue::fp32(static_cast<float>(rng_.uniform(-2.0, 2.0)));

    for (int i = 0; i < knobs_.ops; ++i) emitStatement(0);
    if (knobs_.matmulK > 0) emitCube();
    emitReductions();
    emitFinalStores();
    return finish();
  }

 private:
  // ---- names, scopes, lines ----

  std::string fresh(const char* prefix) { return prefix + std::to_string(next_++); }
  void line(const std::string& text) { body_ += std::string(static_cast<size_t>(4 * indent_), ' ') + text + "\n"; }
  std::string emitAssign(const std::string& expr) {
    const std::string name = fresh("t");
    line(name + " = " + expr);
    return name;
  }
  void define(const std::string& tile) { scopes_.back().push_back(tile); }

  /// A visible tile, usually a recent one so chains grow deep.
  std::string operand() {
    std::vector<std::string> all;
    for (const auto& scope : scopes_) all.insert(all.end(), scope.begin(), scope.end());
    if (rng_.chance(0.6)) return all.back();
    return all[static_cast<size_t>(rng_.below(static_cast<int>(all.size())))];
  }

  /// The most recent tile visible outside the innermost scope (a loop's invariant operand).
  std::string outerTile() const {
    for (size_t i = scopes_.size() - 1; i-- > 0;)
      if (!scopes_[i].empty()) return scopes_[i].back();
    return scopes_[0].front();
  }

  ValueClass randomClass() { return static_cast<ValueClass>(rng_.below(6)); }

  void addInput(const std::string& name, int64_t r, int64_t c, DType dt, ValueClass k) {
    params_.push_back(name + ": " + tensorType(r, c, dt));
    Tensor t(dt, r, c);
    for (int64_t i = 0; i < r * c; ++i) t.setBitsAt(i, encode(drawValue(rng_, k, dt == DType::FP16), dt));
    args_.tensors[name] = std::move(t);
  }

  void addOutput(const std::string& tile, int64_t r, int64_t c, DType dt) {
    const std::string name = "o" + std::to_string(outputs_.size());
    params_.push_back(name + ": pl.Out[" + tensorType(r, c, dt) + "]");
    Tensor t(dt, r, c);
    t.fillBits(sentinelBits(dt));
    args_.tensors[name] = std::move(t);
    const std::string result = fresh("r");
    line(result + " = pl.tile.store(" + tile + ", [0, 0], " + name + ")");
    outputs_.push_back({result, tensorType(r, c, dt)});
  }

  std::string literal() {
    static const std::vector<std::string> kLiterals = {"0.5", "2.0", "-1.5", "0.1", "3.0", "-0.001", "10.0", "0.7", "s"};
    return rng_.pickFrom(kLiterals);
  }

  // ---- statements ----

  /// One vector statement (or a small group) at nesting `depth`; defines its result tile.
  void emitStatement(int depth) {
    const bool control = knobs_.control && depth < 2;
    const int pick = rng_.below(control ? 30 : 26);
    const std::string a = operand();
    if (pick < 6) {
      static const std::vector<std::string> kBinary = {"add", "sub", "mul", "maximum", "minimum"};
      define(emitAssign("pl.tile." + rng_.pickFrom(kBinary) + "(" + a + ", " + operand() + ")"));
    } else if (pick < 8) {  // cancellation: (a + b) - a
      const std::string sum = emitAssign("pl.tile.add(" + a + ", " + operand() + ")");
      define(emitAssign("pl.tile.sub(" + sum + ", " + a + ")"));
    } else if (pick < 10) {  // division by a value kept away from zero
      const std::string d = emitAssign("pl.tile.abs(" + operand() + ")");
      const std::string d2 = emitAssign("pl.tile.adds(" + d + ", " + (rng_.chance(0.5) ? "0.5" : "0.01") + ")");
      define(emitAssign("pl.tile.div(" + a + ", " + d2 + ")"));
    } else if (pick < 11) {
      define(emitAssign("pl.tile.div(" + a + ", " + operand() + ")"));
    } else if (pick < 13) {  // exp of clamped small and large arguments
      static const std::vector<std::string> kClamp32 = {"1.0", "20.0", "80.0"}, kClamp16 = {"1.0", "5.0", "10.0"};
      const std::string bound = rng_.pickFrom(dt_ == DType::FP16 ? kClamp16 : kClamp32);
      const std::string lo = emitAssign("pl.tile.maximums(" + a + ", -" + bound + ")");
      const std::string hi = emitAssign("pl.tile.minimums(" + lo + ", " + bound + ")");
      define(emitAssign("pl.tile.exp(" + hi + ")"));
    } else if (pick < 14) {
      define(emitAssign("pl.tile.exp(" + a + ")"));
    } else if (pick < 16) {  // log and sqrt of positives
      static const std::vector<std::string> kOffsets = {"0.001", "0.5", "1.0"};
      const std::string m = emitAssign("pl.tile.abs(" + a + ")");
      const std::string p = emitAssign("pl.tile.adds(" + m + ", " + rng_.pickFrom(kOffsets) + ")");
      define(emitAssign(std::string(rng_.chance(0.5) ? "pl.tile.log(" : "pl.tile.sqrt(") + p + ")"));
    } else if (pick < 17) {
      const std::string m = emitAssign("pl.tile.abs(" + a + ")");
      define(emitAssign("pl.tile.sqrt(" + m + ")"));
    } else if (pick < 18) {
      const std::string m = emitAssign("pl.tile.abs(" + a + ")");
      const std::string p = emitAssign("pl.tile.adds(" + m + ", 0.5)");
      define(emitAssign("pl.tile.recip(" + p + ")"));
    } else if (pick < 20) {
      static const std::vector<std::string> kUnary = {"abs", "neg", "relu"};
      define(emitAssign("pl.tile." + rng_.pickFrom(kUnary) + "(" + a + ")"));
    } else if (pick < 25) {
      static const std::vector<std::string> kScalarOps = {"adds", "subs", "muls", "divs", "maximums", "minimums"};
      define(emitAssign("pl.tile." + rng_.pickFrom(kScalarOps) + "(" + a + ", " + literal() + ")"));
    } else if (pick < 26) {
      define(emitAssign("pl.tile.lrelu(" + a + ", " + (rng_.chance(0.5) ? "0.1" : "s") + ")"));
    } else if (pick < 29) {
      emitFor(depth);
    } else {
      emitIf(depth, "");
    }
  }

  void emitFor(int depth) {
    static const std::vector<std::string> kTrips = {"0", "1", "2", "5", "17", "40", "64", "n"};
    const std::string trips = rng_.pickFrom(kTrips);
    const int carries = rng_.chance(0.6) ? 1 : 2;
    std::vector<std::string> inits, carryNames, results;
    for (int i = 0; i < carries; ++i) {
      inits.push_back(operand());
      carryNames.push_back(fresh("c"));
      results.push_back(fresh("y"));
    }
    const std::string index = fresh("i");
    const auto joined = [](const std::vector<std::string>& v) {
      std::string out;
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
      return v.size() == 1 ? out + "," : out;
    };
    line("for " + index + ", (" + joined(carryNames) + ") in pl.range(0, " + trips + ", 1, init_values=(" +
         joined(inits) + ")):");
    ++indent_;
    scopes_.push_back(carryNames);
    const bool longAddChain = rng_.chance(0.35);
    if (longAddChain) {
      // acc = acc + x: the classic long chain of rounded adds.
      define(emitAssign("pl.tile.add(" + carryNames[0] + ", " + outerTile() + ")"));
    } else {
      const int body = 1 + rng_.below(3);
      for (int i = 0; i < body; ++i) emitStatement(depth + 1);
      if (knobs_.control && rng_.chance(0.3)) emitIf(depth + 1, index);
    }
    std::vector<std::string> yields;
    for (int i = 0; i < carries; ++i) yields.push_back(i == 0 ? scopes_.back().back() : operand());
    std::string yieldList;
    for (size_t i = 0; i < yields.size(); ++i) yieldList += (i ? ", " : "") + yields[i];
    std::string targets;
    for (size_t i = 0; i < results.size(); ++i) targets += (i ? ", " : "") + results[i];
    line(targets + " = pl.yield_(" + yieldList + ")");
    scopes_.pop_back();
    --indent_;
    for (const std::string& r : results) define(r);
  }

  /// An If whose arms each compute a tile; `loopIndex` (if not empty) allows `i % 2 == 0`.
  void emitIf(int depth, const std::string& loopIndex) {
    std::string cond;
    switch (rng_.below(loopIndex.empty() ? 2 : 3)) {
      case 0: cond = "flag"; break;
      case 1: cond = "n > " + std::to_string(rng_.below(40)); break;
      default: cond = loopIndex + " % 2 == 0"; break;
    }
    const std::string result = fresh("f");
    line("if " + cond + ":");
    for (int arm = 0; arm < 2; ++arm) {
      if (arm == 1) line("else:");
      ++indent_;
      scopes_.push_back({});
      const int body = 1 + rng_.below(2);
      for (int i = 0; i < body; ++i) emitStatement(depth + 1);
      line(result + " = pl.yield_(" + scopes_.back().back() + ")");
      scopes_.pop_back();
      --indent_;
    }
    define(result);
  }

  // ---- cube ----

  void emitCube() {
    const DType operand = rng_.chance(0.5) ? DType::FP16 : DType::FP32;
    const int64_t M = rng_.chance(0.5) ? 16 : 32, N = rng_.chance(0.5) ? 16 : 32, K = knobs_.matmulK;
    static const std::vector<ValueClass> kCubeClasses = {ValueClass::Unit, ValueClass::Large, ValueClass::Mixed,
                                                          ValueClass::SmallInt};
    addInput("lm", M, K, operand, rng_.pickFrom(kCubeClasses));
    addInput("rm", K, N, operand, rng_.pickFrom(kCubeClasses));
    const std::string lmat = emitAssign("pl.tile.load(lm, [0, 0], " + shapeText(M, K) + ", target_memory=pl.Mem.Mat)");
    const std::string rmat = emitAssign("pl.tile.load(rm, [0, 0], " + shapeText(K, N) + ", target_memory=pl.Mem.Mat)");
    std::string acc;
    const int form = rng_.below(3);
    if (form < 2) {
      const std::string l = emitAssign("pl.tile.move(" + lmat + ", target_memory=pl.Mem.Left)");
      const std::string r = emitAssign("pl.tile.move(" + rmat + ", target_memory=pl.Mem.Right)");
      acc = emitAssign("pl.tile.matmul(" + l + ", " + r + ")");
      if (form == 1) acc = emitAssign("pl.tile.matmul_acc(" + acc + ", " + l + ", " + r + ")");
    } else {
      // A K loop: extract chunks, accumulate, the first step initialises.
      int64_t chunk = 16;
      while (chunk * 2 <= K && K % (chunk * 2) == 0 && rng_.chance(0.5)) chunk *= 2;
      const std::string acc0 = emitAssign("pl.tile.create(" + shapeText(M, N) + ", dtype=pl.FP32, target_memory=pl.Mem.Acc)");
      const std::string k = fresh("k"), carry = fresh("c"), out = fresh("y");
      line("for " + k + ", (" + carry + ",) in pl.range(" + std::to_string(K / chunk) + ", init_values=(" + acc0 + ",)):");
      ++indent_;
      const std::string c = std::to_string(chunk);
      const std::string l = emitAssign("pl.tile.extract(" + lmat + ", 0, " + k + " * " + c + ", " + shapeText(M, chunk) +
                                       ", target_memory=pl.Mem.Left)");
      const std::string r = emitAssign("pl.tile.extract(" + rmat + ", " + k + " * " + c + ", 0, " + shapeText(chunk, N) +
                                       ", target_memory=pl.Mem.Right)");
      const std::string next = emitAssign("pl.tile.matmul_acc(" + carry + ", " + l + ", " + r + ", init_cond=" + k +
                                          " == 0)");
      line(out + " = pl.yield_(" + next + ")");
      --indent_;
      acc = out;
    }
    addOutput(acc, M, N, DType::FP32);
    if (rng_.chance(0.5)) addOutput(acc, M, N, DType::FP16);
  }

  // ---- outputs ----

  void emitReductions() {
    if (rng_.chance(0.3)) {
      const std::string cs = emitAssign("pl.tile.col_sum(" + operand() + ")");
      addOutput(cs, 1, cols_, dt_);
    }
    // A [R, 1] result is a col-major Vec tile: its column must span whole 32-byte blocks.
    if (rng_.chance(0.3) && rows_ * (dt_ == DType::FP16 ? 2 : 4) % 32 == 0) {
      const std::string tmp = emitAssign("pl.tile.create(" + shapeText(rows_, cols_) + ", dtype=" + dtypeText(dt_) + ")");
      const std::string rs = emitAssign("pl.tile.row_sum(" + scopes_[0].back() + ", " + tmp + ")");
      addOutput(rs, rows_, 1, dt_);
    }
  }

  void emitFinalStores() {
    std::vector<std::string>& top = scopes_[0];
    const size_t count = std::min<size_t>(top.size(), 1 + static_cast<size_t>(rng_.below(3)));
    for (size_t i = 0; i < count; ++i) addOutput(top[top.size() - 1 - i], rows_, cols_, dt_);
  }

  GeneratedCase finish() {
    std::string sig;
    for (size_t i = 0; i < params_.size(); ++i) sig += (i ? ",\n               " : "") + params_[i];
    std::string ret, values;
    if (outputs_.size() == 1) {
      ret = outputs_[0].type;
    } else {
      ret = "tuple[";
      for (size_t i = 0; i < outputs_.size(); ++i) ret += (i ? ", " : "") + outputs_[i].type;
      ret += "]";
    }
    for (size_t i = 0; i < outputs_.size(); ++i) values += (i ? ", " : "") + outputs_[i].result;
    GeneratedCase c;
    c.knobs = knobs_;
    c.text = "import pypto.language as pl\n\n\n@pl.program\nclass generated:\n"
             "    @pl.function(type=pl.FunctionType.InCore)\n"
             "    def kernel(self, " + sig + ") -> " + ret + ":\n" + body_ + "        return " + values + "\n";
    c.args = std::move(args_);
    return c;
  }

  struct Output {
    std::string result, type;
  };

  OracleGenKnobs knobs_;
  Rng rng_;
  DType dt_;
  int64_t rows_ = 0, cols_ = 0;
  int indent_ = 2;
  int next_ = 0;
  std::string body_;
  std::vector<std::vector<std::string>> scopes_;
  std::vector<std::string> params_;
  std::vector<Output> outputs_;
  KernelArgs args_;
};

}  // namespace detail

/// The program and arguments the knobs describe (deterministic).
inline GeneratedCase buildOracleCase(const OracleGenKnobs& knobs) {
  return detail::OracleProgramBuilder(knobs).build();
}

/// Knobs as RapidCheck picks: simpler choices first, so counterexamples shrink toward small
/// straight-line FP32 programs without a cube part.
inline rc::Gen<OracleGenKnobs> genOracleKnobs() {
  return rc::gen::exec([] {
    OracleGenKnobs k;
    k.seed = *rc::gen::arbitrary<uint64_t>();
    k.ops = *rc::gen::inRange(0, 15);
    k.fp16 = *rc::gen::arbitrary<bool>();
    k.control = *rc::gen::arbitrary<bool>();
    const bool cube = *rc::gen::weightedElement<bool>({{3, false}, {2, true}});
    k.matmulK = cube ? 16 * *rc::gen::inRange(1, 33) : 0;
    return k;
  });
}

}  // namespace ptodiff::oracle::testgen
