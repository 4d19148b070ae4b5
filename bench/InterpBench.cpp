// How fast the interpreters run compared with the arithmetic they model (issue 4): one FP32 program
// of 20 elementwise ops over 64x64 tiles, run by the Tile value interpreter, by the Buffer
// interpreter on its reference lowering (PYPTO planner, a2a3), by the planned-Tile interpreter on
// the planned Tile program (when interp/PlannedTileInterpreter.h exists), and written out as a
// plain C++ loop that rounds to FP32 after every op like the interpreters do. Each benchmark reports
// `elem_ops_per_s` = 20 * 64 * 64 element operations per iteration, as a rate; the ratio of an
// interpreter's rate to the hand loop's is the interpretation overhead docs/testing.md records.
//
// Each interpreter also runs symbolically (symbolic:1; issue 11), and BM_DifferentialCase times a
// whole differential case both ways: the ratios are the cost docs/testing.md records.
//
// Not a test: nothing here asserts a time. Each interpreter's result is checked once against the
// hand loop before timing, so a benchmark never measures a run that went wrong.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/passes/Pipeline.h"
#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "interp/BufferInterpreter.h"
#include "interp/Symbolic.h"
#include "interp/TileInterpreter.h"
#include "oracle/Differential.h"
#if __has_include("interp/PlannedTileInterpreter.h")
#include "interp/PlannedTileInterpreter.h"
#define PTODIFF_BENCH_PLANNED_TILE 1
#endif

namespace ptodiff {
namespace {

constexpr int64_t kRows = 64, kCols = 64;
constexpr int64_t kOpsPerElement = 20;  // the compute ops of kProgram; load and store not counted

// Values stay in [0.05, 40]: no overflow, no subnormals, no NaN, so every engine runs its ordinary
// path (a and b are drawn from [0.5, 1.5) and [1, 2)).
const char* const kProgram = R"(import pypto.language as pl


@pl.program
class bench_elementwise:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[64, 64], pl.FP32],
               b: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [64, 64])
        y = pl.tile.load(b, [0, 0], [64, 64])
        t1 = pl.tile.add(x, y)
        t2 = pl.tile.mul(t1, x)
        t3 = pl.tile.sub(t2, y)
        t4 = pl.tile.div(t3, y)
        t5 = pl.tile.muls(t4, 0.5)
        t6 = pl.tile.exp(t5)
        t7 = pl.tile.maximum(t6, x)
        t8 = pl.tile.adds(t7, 1.0)
        t9 = pl.tile.div(x, t8)
        t10 = pl.tile.sub(t9, t5)
        t11 = pl.tile.mul(t10, t10)
        t12 = pl.tile.minimum(t11, y)
        t13 = pl.tile.adds(t12, 0.25)
        t14 = pl.tile.divs(t13, 3.0)
        t15 = pl.tile.add(t14, t9)
        t16 = pl.tile.maximums(t15, 0.1)
        t17 = pl.tile.muls(t16, 1.5)
        t18 = pl.tile.subs(t17, 0.125)
        t19 = pl.tile.mul(t18, y)
        t20 = pl.tile.add(t19, t1)
        o = pl.tile.store(t20, [0, 0], out)
        return o
)";

/// FP32 exp as the interpreters compute it: in binary64, rounded once to FP32.
float exp32(float v) { return static_cast<float>(std::exp(static_cast<double>(v))); }

/// kProgram written out by hand. Every float operation rounds to FP32 (the build has
/// -ffp-contract=off, so nothing is fused); maximum/minimum never meet NaN here.
void handLoop(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const float x = a[i], y = b[i];
    const float t1 = x + y;
    const float t2 = t1 * x;
    const float t3 = t2 - y;
    const float t4 = t3 / y;
    const float t5 = t4 * 0.5f;
    const float t6 = exp32(t5);
    const float t7 = t6 > x ? t6 : x;
    const float t8 = t7 + 1.0f;
    const float t9 = x / t8;
    const float t10 = t9 - t5;
    const float t11 = t10 * t10;
    const float t12 = t11 < y ? t11 : y;
    const float t13 = t12 + 0.25f;
    const float t14 = t13 / 3.0f;
    const float t15 = t14 + t9;
    const float t16 = t15 > 0.1f ? t15 : 0.1f;
    const float t17 = t16 * 1.5f;
    const float t18 = t17 - 0.125f;
    const float t19 = t18 * y;
    out[i] = t19 + t1;
  }
}

/// A deterministic value in [low, low + 1) for element i (a fixed LCG; no seeding from time).
std::vector<float> inputValues(uint32_t salt, float low) {
  std::vector<float> v(static_cast<size_t>(kRows * kCols));
  uint32_t state = 0x9E3779B9u ^ salt;
  for (float& e : v) {
    state = state * 1664525u + 1013904223u;
    e = low + static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

Tensor tensorOf(const std::vector<float>& values) {
  Tensor t(DType::FP32, kRows, kCols);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

struct Fixture {
  std::vector<float> a = inputValues(1, 0.5f), b = inputValues(2, 1.0f), expected;
  KernelArgs args;
  Program tile;    // kProgram, verified
  Program buffer;  // its reference lowering
#ifdef PTODIFF_BENCH_PLANNED_TILE
  Program planned;  // the Tile kernel with the planner's MemRefs (the pipeline before LowerTileToBuffer)
#endif

  Fixture() : expected(a.size()), tile(parseProgramText(kProgram, "bench_elementwise.py")) {
    handLoop(a, b, expected);
    args.tensors["a"] = tensorOf(a);
    args.tensors["b"] = tensorOf(b);
    Tensor out(DType::FP32, kRows, kCols);
    out.fillBits(sentinelBits(DType::FP32));
    args.tensors["out"] = std::move(out);

    verifyOrThrow(tile);
    PassContext context;  // PYPTO on a2a3, Buffer IR enabled
    buffer = makeLoweringPassManager({}).run(tile, context).program;
    if (buffer.defaultKernel()->stage != FunctionStage::Buffer)
      throw std::logic_error("the reference lowering kept the benchmark kernel on the Tile path");
#ifdef PTODIFF_BENCH_PLANNED_TILE
    PassManagerOptions upToStorageCheck;
    upToStorageCheck.stopAfter = "VerifyTileStorage";
    // Read back from its text, as `ptodiff interp` would run a `compile --stop-after` dump: the
    // verifier then types every expression with the MemRef its binder carries.
    planned = parseProgramText(printProgram(makeLoweringPassManager(upToStorageCheck).run(tile, context).program),
                               "bench_elementwise.planned.py");
    verifyOrThrow(planned);
#endif
  }

  static RunConfig bufferConfig() {
    RunConfig c;
    c.addressedPlanner = true;  // PYPTO places every allocation
    return c;
  }

  /// Throws unless `r` passed and its `out` equals the hand loop bit for bit.
  void check(const RunResult& r, const char* engine) const {
    if (r.status != RunStatus::Ok)
      throw std::logic_error(std::string(engine) + ": " + std::string(runStatusName(r.status)) + ": " +
                             r.diagnostic.message);
    const Tensor& out = r.final.tensors.at("out");
    if (std::memcmp(out.bytes.data(), expected.data(), out.bytes.size()) != 0)
      throw std::logic_error(std::string(engine) + ": result differs from the hand-written loop");
  }
};

/// The shared fixture, or nullptr after marking `state` skipped when it cannot be built.
const Fixture* fixtureOrSkip(benchmark::State& state) {
  try {
    static const Fixture f;
    return &f;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

void reportRate(benchmark::State& state) {
  state.counters["elem_ops_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kOpsPerElement * kRows * kCols), benchmark::Counter::kIsRate);
}

void BM_HandLoop(benchmark::State& state) {
  const Fixture* fp = fixtureOrSkip(state);
  if (!fp) return;
  const Fixture& f = *fp;
  std::vector<float> out(f.a.size());
  for (auto _ : state) {
    handLoop(f.a, f.b, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  if (std::memcmp(out.data(), f.expected.data(), out.size() * sizeof(float)) != 0)
    state.SkipWithError("the hand loop is not deterministic");
  reportRate(state);
}

/// Times `run` (one interpreter on the fixture), after checking its result once. `run` takes the
/// fixture and a run configuration; with state.range(0) == 1 the run is symbolic (interp/Symbolic.h),
/// with a fresh pool per run: the cost of a run that shares no formula with an earlier one.
template <class Run>
void interpreterBenchmark(benchmark::State& state, const char* engine, Run run) {
  const Fixture* fp = fixtureOrSkip(state);
  if (!fp) return;
  const Fixture& f = *fp;
  const bool symbolic = state.range(0) == 1;
  auto once = [&] {
    RunConfig config = Fixture::bufferConfig();
    ExprPool pool;
    if (symbolic) config.symbols = &pool;
    return run(f, config);
  };
  try {
    f.check(once(), engine);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) {
    RunResult r = once();
    benchmark::DoNotOptimize(r);
  }
  reportRate(state);
}

void BM_TileInterpreter(benchmark::State& state) {
  interpreterBenchmark(state, "tile", [](const Fixture& f, const RunConfig& config) {
    return runTileKernel(f.tile, *f.tile.defaultKernel(), f.args, config);
  });
}

void BM_BufferInterpreter(benchmark::State& state) {
  interpreterBenchmark(state, "buffer", [](const Fixture& f, const RunConfig& config) {
    return runBufferKernel(f.buffer, *f.buffer.defaultKernel(), f.args, config);
  });
}

BENCHMARK(BM_HandLoop);
BENCHMARK(BM_TileInterpreter)->ArgName("symbolic")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BufferInterpreter)->ArgName("symbolic")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

#ifdef PTODIFF_BENCH_PLANNED_TILE
void BM_PlannedTileInterpreter(benchmark::State& state) {
  interpreterBenchmark(state, "planned-tile", [](const Fixture& f, const RunConfig& config) {
    return runPlannedTileKernel(f.planned, *f.planned.defaultKernel(), f.args, config);
  });
}
BENCHMARK(BM_PlannedTileInterpreter)->ArgName("symbolic")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
#endif

/// One whole differential case of the fixture's program (Tile run, oracle, and per addressed planner
/// the lowering, planned-Tile and Buffer runs), numeric (symbolic:0) or symbolic (symbolic:1): the
/// ratio of the two is issue 11's "symbolic run of a case" cost. Lowerings are cached across
/// iterations, as a campaign caches them across a case's scalar sets.
void BM_DifferentialCase(benchmark::State& state) {
  const Fixture* fp = fixtureOrSkip(state);
  if (!fp) return;
  const Fixture& f = *fp;
  oracle::LoweringCache lowerings;
  oracle::DifferentialOptions options;
  options.lowerings = &lowerings;
  options.planners = {Planner::PYPTO, Planner::DSA_RP};  // PTOAS gives each of the 22 tiles its own Vec range: no fit
  options.symbolic = state.range(0) == 1;
  for (auto _ : state) {
    const oracle::DifferentialReport r = oracle::runDifferential({&f.tile, f.tile.defaultKernel()}, f.args, options);
    if (!r.pass()) {
      std::string why = "the differential case does not pass:";
      for (const oracle::StageVerdict& v : r.verdicts)
        if (v.failed()) why += " [" + v.signature() + ": " + v.detail + "]";
      state.SkipWithError(why.c_str());
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_DifferentialCase)->ArgName("symbolic")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ptodiff

BENCHMARK_MAIN();
