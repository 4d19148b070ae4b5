// Properties of the program generator (fuzz/gen/ProgramGen.h): every case verifies, round-trips
// through the printer and parser, and runs to `pass` on every scalar set with only finite values
// stored; generation is deterministic; shrinking keeps cases valid; feature switches are obeyed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdio>

#include "GenTestSupport.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/target/Target.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff::fuzz {
namespace {

using gentest::genCount;
using gentest::opsUsed;
using gentest::roundTripProblem;
using gentest::runProblems;
using gentest::StmtStats;
using gentest::stmtStats;
using gentest::verifyProblems;

/// Reports the drawn features and the interesting shape of a case (RapidCheck's distribution).
/// (Per-feature and per-op counts are printed by GeneratorCoverageTest; RapidCheck reports each
/// distinct tag combination, so tags here stay coarse.)
void tagCase(const GeneratedCase& c) {
  const StmtStats stats = stmtStats(c.program);
  RC_TAG("features " + std::to_string(c.features.size() / 4 * 4) + "-" + std::to_string(c.features.size() / 4 * 4 + 3));
  RC_CLASSIFY(stats.maxNesting > 0, "control flow");
  RC_CLASSIFY(!c.inContract, "leaves the contract");
  RC_CLASSIFY(c.blockNum > 1, "several blocks");
}

RC_GTEST_PROP(ProgramGen, GeneratedProgramsVerify, ()) {
  const GeneratedCase c = *genCase();
  tagCase(c);
  const std::string problems = verifyProblems(c);
  RC_ASSERT(problems == "");
}

RC_GTEST_PROP(ProgramGen, PrintParseRoundTrips, ()) {
  const GeneratedCase c = *genCase();
  const std::string problem = roundTripProblem(c);
  RC_ASSERT(problem == "");
}

RC_GTEST_PROP(ProgramGen, RunsPassOnEveryScalarSetWithFiniteOutputs, ()) {
  const GeneratedCase c = *genCase();
  tagCase(c);
  RC_ASSERT(verifyProblems(c) == "");
  const std::string problems = runProblems(c);
  RC_ASSERT(problems == "");
}

RC_GTEST_PROP(ProgramGen, GenerateCaseIsAPureFunctionOfSeedSizeAndConfig, (uint64_t seed)) {
  const int size = *rc::gen::inRange(0, 101);
  const GeneratedCase a = generateCase(seed, size);
  const GeneratedCase b = generateCase(seed, size);
  RC_ASSERT(structurallyEqual(a.program, b.program));
  RC_ASSERT(a.scalarSets == b.scalarSets);
  RC_ASSERT(a.blockNum == b.blockNum);
  RC_ASSERT(a.inputSeed == b.inputSeed);
  RC_ASSERT(a.features == b.features);
  RC_ASSERT(a.inContract == b.inContract);
  RC_ASSERT(a.sibling.has_value() == b.sibling.has_value());
  if (a.sibling) {
    RC_ASSERT(a.sibling->function == b.sibling->function);
    RC_ASSERT(a.sibling->scalarSets == b.sibling->scalarSets);
    auto names = [](const std::map<std::string, TensorInit>& inits) {
      std::vector<std::string> out;
      for (const auto& [name, init] : inits) out.push_back(name + ":" + std::to_string(init.low) + "," + std::to_string(init.high));
      return out;
    };
    RC_ASSERT(names(a.sibling->tensorInits) == names(b.sibling->tensorInits));
    RC_ASSERT(a.sibling->blockNum == b.sibling->blockNum);
    RC_ASSERT(a.sibling->inContract == b.sibling->inContract);
  }
}

// Property 1 (spec/fuzz.md) needs every generated kernel to fit the target under every planner:
// PTOAS gives each identity its own Vec range, so the generator bounds its own Vec storage
// (GenConfig::maxVecStorageBytes; fuzz seed 1, case 1257 needed 213440 of a2a3's 188416 bytes).
RC_GTEST_PROP(ProgramGen, KernelsFitTheVecCapacityUnderPtoas, ()) {
  const GeneratedCase c = *genCase();
  Program p = c.program.clone();
  RC_ASSERT(verifyProgram(p).empty());
  PassManagerOptions options;
  options.stopAfter = "PlanMemory";
  PassContext context;
  context.planner = Planner::PTOAS;
  context.target = &targetA2A3();
  std::string rejection;
  try {
    makeLoweringPassManager(options).run(p, context);
  } catch (const DiagnosticError& e) {
    rejection = e.what();
  }
  RC_ASSERT(rejection.find("PlanMemory") == std::string::npos);
}

TEST(ProgramGen, DifferentSeedsGiveDifferentPrograms) {
  // Determinism must not come from ignoring the seed.
  std::set<std::string> texts;
  for (uint64_t seed = 0; seed < 20; ++seed) texts.insert(printProgram(generateCase(seed, 100).program));
  EXPECT_GE(texts.size(), 18u);
}

TEST(ProgramGen, CaseSeedsAreDistinctAndDependOnTheCampaignSeed) {
  std::set<uint64_t> seeds;
  for (uint64_t i = 0; i < 1000; ++i) seeds.insert(caseSeed(7, i));
  EXPECT_EQ(seeds.size(), 1000u);
  EXPECT_NE(caseSeed(7, 0), caseSeed(8, 0));
  EXPECT_EQ(caseSeed(7, 42), caseSeed(7, 42));
}

TEST(ProgramGen, SizeScalesTheProgram) {
  size_t small = 0, large = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    small += printProgram(generateCase(seed, 0).program).size();
    large += printProgram(generateCase(seed, 100).program).size();
  }
  EXPECT_LT(small * 3, large);
}

TEST(ProgramGen, ShrunkCasesStayValid) {
  // RapidCheck shrinks by re-running the generator with simpler picks: walk the first shrinks of
  // a few cases (depth-first along the first successful path) and check each one.
  int checked = 0;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    rc::Shrinkable<GeneratedCase> current = genCase()(rc::Random(seed), 100);
    for (int depth = 0; depth < 4; ++depth) {
      rc::Seq<rc::Shrinkable<GeneratedCase>> shrinks = current.shrinks();
      std::optional<rc::Shrinkable<GeneratedCase>> first;
      for (int i = 0; i < 6; ++i) {
        rc::Maybe<rc::Shrinkable<GeneratedCase>> next = shrinks.next();
        if (!next) break;
        const GeneratedCase c = next->value();
        ASSERT_EQ(verifyProblems(c), "") << "seed " << seed;
        ASSERT_EQ(runProblems(c), "") << "seed " << seed;
        ++checked;
        if (!first) first = *next;
      }
      if (!first) break;
      current = *first;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(ProgramGen, ScalarSetsBindEveryScalarParameter) {
  auto check = [](const Function& kernel, const std::vector<std::map<std::string, ScalarValue>>& sets, uint64_t seed,
                  size_t expectedSets) {
    size_t scalars = 0;
    for (const Param& p : kernel.params)
      if (p.type.isScalar()) ++scalars;
    ASSERT_FALSE(sets.empty());
    if (scalars > 0) {
      EXPECT_EQ(sets.size(), expectedSets) << kernel.name << " seed " << seed;
    }
    for (const auto& set : sets) {
      EXPECT_EQ(set.size(), scalars) << kernel.name << " seed " << seed;
      for (const Param& p : kernel.params)
        if (p.type.isScalar()) {
          ASSERT_TRUE(set.count(p.name)) << p.name;
          EXPECT_EQ(set.at(p.name).dtype, p.type.dtype) << p.name;
        }
    }
  };
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const GeneratedCase c = generateCase(seed, 100);
    check(*c.program.findFunction("kernel"), c.scalarSets, seed, 3);
    if (c.sibling) check(*c.program.findFunction(c.sibling->function), c.sibling->scalarSets, seed, 1);
  }
}

TEST(ProgramGen, SomeCasesHoldASecondKernelRunOnItsOwnScalarSets) {
  // C9: the lowering converts every kernel of a program before it replaces any. One case in
  // GenConfig::secondKernelEvery holds a second kernel, compiled with the first and run after it
  // on scalar sets of its own (caseSpecsOf), each run naming its function.
  int twoKernels = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    const GeneratedCase c = generateCase(caseSeed(5, seed), static_cast<int>(seed % 100) + 1);  // a campaign's sizes
    const std::vector<CaseSpec> specs = caseSpecsOf(c);
    ASSERT_EQ(c.program.functions.size(), c.sibling ? 2u : 1u) << "seed " << seed;
    ASSERT_EQ(specs.size(), c.scalarSets.size() + (c.sibling ? c.sibling->scalarSets.size() : 0)) << "seed " << seed;
    for (size_t i = 0; i < specs.size(); ++i) {
      const bool second = i >= c.scalarSets.size();
      EXPECT_EQ(specs[i].function, second ? "kernel_b" : "kernel");
      EXPECT_EQ(specs[i].blockNum, second ? c.sibling->blockNum : c.blockNum);
      EXPECT_EQ(specs[i].expectBufferPath.has_value(), !(second ? c.sibling->inContract : c.inContract));
    }
    if (!c.sibling) continue;
    ++twoKernels;
    EXPECT_EQ(c.program.functions[1].name, "kernel_b");
    ASSERT_EQ(verifyProblems(c), "") << "seed " << seed;
    ASSERT_EQ(runProblems(c), "") << "seed " << seed;
  }
  std::printf("[ C9 ] programs of two kernels: %d of 400\n", twoKernels);
  EXPECT_GE(twoKernels, 10);
  GenConfig never;
  never.secondKernelEvery = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) EXPECT_FALSE(generateCase(caseSeed(5, seed), 100, never).sibling);
}

TEST(ProgramGen, RuntimeLoopCountsAndFlagsVaryAcrossScalarSets) {
  // Rotation: a loop count takes three different values over the three sets, a flag both.
  int counts = 0, flags = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const GeneratedCase c = generateCase(seed, 100, GenConfig{});
    for (const Param& p : c.program.functions.at(0).params) {
      if (!p.type.isScalar()) continue;
      std::set<int64_t> values;
      for (const auto& set : c.scalarSets) values.insert(set.at(p.name).i);
      if (p.name.size() > 1 && p.name[0] == 'n' && std::isdigit(static_cast<unsigned char>(p.name[1]))) {
        EXPECT_EQ(values.size(), 3u) << p.name << " seed " << seed;
        ++counts;
      }
      if (p.type.dtype == DType::BOOL) {
        EXPECT_EQ(values.size(), 2u) << p.name << " seed " << seed;
        ++flags;
      }
    }
  }
  EXPECT_GT(counts, 20);
  EXPECT_GT(flags, 20);
}

TEST(ProgramGen, FixedFeatureSetIsObeyed) {
  // With no feature at all a kernel is loads and stores of FP32 Vec tiles.
  GenConfig config;
  config.features = FeatureSet{};
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const GeneratedCase c = generateCase(seed, 100, config);
    EXPECT_TRUE(c.features.empty());
    EXPECT_TRUE(c.inContract);
    EXPECT_EQ(c.blockNum, 1);
    for (Opcode op : opsUsed(c.program))
      EXPECT_TRUE(op == Opcode::TileLoad || op == Opcode::TileStore) << opInfo(op).spelling << " seed " << seed;
    EXPECT_EQ(stmtStats(c.program).maxNesting, 0);
  }
}

TEST(ProgramGen, SwitchedOffFeaturesLeaveTheirOpsOut) {
  // Ops only one feature produces (guards aside) never appear without it.
  struct Exclusive {
    Feature feature;
    std::vector<Opcode> ops;
  };
  const Exclusive table[] = {
      {Feature::Cube, {Opcode::TileMatmul, Opcode::TileMatmulAcc, Opcode::TileExtract}},
      {Feature::Reshape, {Opcode::TileReshape}},
      {Feature::Full, {Opcode::TileFull}},
      {Feature::Assemble, {Opcode::TileAssemble, Opcode::TileCreate}},
      {Feature::MultiBlock, {Opcode::TileGetBlockIdx, Opcode::TileGetBlockNum, Opcode::TileGetSubblockIdx}},
      {Feature::OutOfContract, {Opcode::TileRowSum, Opcode::TileColMax, Opcode::TileRowMin}},
  };
  for (const Exclusive& e : table) {
    GenConfig config;
    config.features = FeatureSet::all().erase(e.feature);
    // Shared ops: reductions' scratch `create` and Vec extracts (out of contract), the K loop's
    // created accumulator (cube).
    if (e.feature == Feature::Assemble || e.feature == Feature::Cube) config.features->erase(Feature::OutOfContract);
    if (e.feature == Feature::Assemble) config.features->erase(Feature::Cube);
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const GeneratedCase c = generateCase(seed, 100, config);
      const std::set<Opcode> used = opsUsed(c.program);
      for (Opcode op : e.ops)
        EXPECT_FALSE(used.count(op)) << opInfo(op).spelling << " without " << featureName(e.feature) << ", seed "
                                     << seed;
    }
  }
  // Control flow without its features.
  GenConfig config;
  config.features = FeatureSet::all().erase(Feature::If).erase(Feature::For).erase(Feature::While);
  for (uint64_t seed = 0; seed < 40; ++seed) EXPECT_EQ(stmtStats(generateCase(seed, 100, config).program).maxNesting, 0);
  // Nesting needs NestedControl.
  config.features = FeatureSet::all().erase(Feature::NestedControl);
  for (uint64_t seed = 0; seed < 60; ++seed) EXPECT_LE(stmtStats(generateCase(seed, 100, config).program).maxNesting, 1);
}

TEST(ProgramGen, WithoutOutOfContractEveryCaseIsInContract) {
  GenConfig config;
  config.features = FeatureSet::all().erase(Feature::OutOfContract);
  for (uint64_t seed = 0; seed < 150; ++seed) {
    const GeneratedCase c = generateCase(seed, 100, config);
    EXPECT_TRUE(c.inContract) << "seed " << seed;
    const std::set<Opcode> used = opsUsed(c.program);
    for (Opcode op : {Opcode::TileRowSum, Opcode::TileRowMax, Opcode::TileRowMin, Opcode::TileColSum,
                      Opcode::TileColMax, Opcode::TileColMin})
      EXPECT_FALSE(used.count(op)) << opInfo(op).spelling;
  }
}

TEST(ProgramGen, OtherConfigurationsStayValid) {
  // Longer, deeper kernels with most features, fewer scalar sets, more blocks and trips.
  GenConfig config;
  config.maxStatements = 90;
  config.maxDepth = 4;
  config.featurePercent = 80;
  config.scalarSets = 2;
  config.maxBlocks = 6;
  config.maxLoopTrips = 4;
  config.maxVecStorageBytes = int64_t{1} << 20;  // validity of long kernels, not their fit (never lowered here)
  int deep = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const GeneratedCase c = generateCase(seed, 100, config);
    ASSERT_EQ(verifyProblems(c), "") << "seed " << seed;
    ASSERT_EQ(runProblems(c), "") << "seed " << seed;
    EXPECT_LE(c.blockNum, 6);
    EXPECT_LE(c.scalarSets.size(), 2u);
    if (stmtStats(c.program).maxNesting >= 3) ++deep;
  }
  EXPECT_GT(deep, 5);
  // The smallest cases: a load and a store.
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const GeneratedCase c = generateCase(seed, 0);
    ASSERT_EQ(verifyProblems(c), "") << "seed " << seed;
    ASSERT_EQ(runProblems(c), "") << "seed " << seed;
  }
}

// Case 36470 of a 4-minute campaign of seed 48 over the out-of-contract storage mix (2026-12-02):
// a loop yield clamped a col-major [64, 4] carry, whose maximums result takes the row-major layout
// (16-byte rows: invalid-program). A clamp now keeps to tiles whose result has their own layout.
TEST(ProgramGen, ACarryOfAnotherLayoutIsNotClampedIntoAYield) {
  GenConfig config;
  config.features = FeatureSet::parse(
      "out-of-contract,if,slices,reshape,assemble,static-valid,runtime-valid,full,elementwise-fp32,for,while,"
      "nested-control,transpose-view,tile-scalar,other-dtypes");
  ASSERT_TRUE(config.features);
  const GeneratedCase c = generateCase(10194289447210112915ull, 36470 % 100 + 1, config);
  EXPECT_EQ(verifyProblems(c), "");
  EXPECT_EQ(runProblems(c), "");
}

TEST(ProgramGen, ACarriedMatrixOperandIsPrefetchedAfterItsLastRead) {
  // Seed 78, case 621: a K loop carrying a Left chunk and a second accumulator extracted the next
  // chunk before the second matmul_acc read the current one; the two generations of the Left carry
  // would both live and no move copies Left to Left, so no planner could compile it (L9, M14).
  GenConfig config;
  config.features = FeatureSet::parse("cube,for,static-valid,other-dtypes");
  ASSERT_TRUE(config.features);
  const GeneratedCase c = generateCase(4927918304985066057ull, 621 % 100 + 1, config);
  ASSERT_EQ(verifyProblems(c), "");
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    PassContext context;
    context.planner = planner;
    context.target = &targetA2A3();
    context.verifyEach = true;
    std::string failure;
    try {
      makeLoweringPassManager({}).run(c.program, context);
    } catch (const DiagnosticError& e) {
      failure = e.what();
    }
    EXPECT_EQ(failure, "") << plannerName(planner);
  }
}

TEST(ProgramGen, BulkGenerationVerifiesAndRuns) {
  // PTODIFF_GEN_COUNT programs (2000 by default): all verify, none is invalid-program when run.
  const int count = genCount(2000);
  GenConfig config;
  std::vector<GeneratedCase> cases;
  cases.reserve(static_cast<size_t>(count));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) cases.push_back(generateCase(caseSeed(2024, static_cast<uint64_t>(i)), 100, config));
  const auto t1 = std::chrono::steady_clock::now();
  int failures = 0, outOfContract = 0;
  size_t runs = 0;
  for (int i = 0; i < count; ++i) {
    const GeneratedCase& c = cases[static_cast<size_t>(i)];
    std::string problems = verifyProblems(c);
    if (problems.empty()) problems = runProblems(c);
    if (!problems.empty()) {
      if (++failures <= 3) ADD_FAILURE() << "case " << i << " (seed " << caseSeed(2024, static_cast<uint64_t>(i)) << "):\n" << problems;
    }
    if (!c.inContract) ++outOfContract;
    runs += caseSpecsOf(c).size();
  }
  const auto t2 = std::chrono::steady_clock::now();
  EXPECT_EQ(failures, 0);
  const double gen = std::chrono::duration<double>(t1 - t0).count();
  const double all = std::chrono::duration<double>(t2 - t0).count();
  std::printf("[ bulk     ] %d programs, %zu runs, %d out of contract: generation %.0f programs/s, "
              "generation+verify+interp %.0f programs/s\n",
              count, runs, outOfContract, count / gen, count / all);
  ::testing::Test::RecordProperty("generation_programs_per_second", static_cast<int>(count / gen));
  ::testing::Test::RecordProperty("end_to_end_programs_per_second", static_cast<int>(count / all));
}

}  // namespace
}  // namespace ptodiff::fuzz
