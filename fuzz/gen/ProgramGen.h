// RapidCheck generators of valid random Tile kernels (spec/fuzz.md, "Generators").
//
// Every program is valid by construction (YARPGen's rule): each shape, offset, alignment, valid
// extent and value range is decided while generating, so a generated case never verifies with a
// diagnostic and never runs to invalid-program, timeout or race under any of its scalar sets. A
// generated case that does is a generator bug (tests/unit/fuzz checks it on thousands of cases).
//
// Every random choice is a RapidCheck pick inside `rc::gen::exec`, so RapidCheck's integrated
// shrinking works on the choices: a shrunk case re-runs the same construction with simpler picks
// (fewer statements, earlier options, features switched off) and is therefore valid too.
//
// Implementation: fuzz/gen/detail/ (KernelGenerator.h and its .cpp files); design and knobs in
// docs/fuzz.md.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck/Gen.h>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"
#include "fuzz/gen/Features.h"
#include "interp/Tensor.h"

namespace ptodiff::fuzz {

/// The generator's knobs. Defaults are what `ptodiff fuzz` uses; tests shrink or pin them.
struct GenConfig {
  /// Statement budget of a case at RapidCheck size 100 (the budget scales linearly with size and
  /// covers the kernel body and every region; guard statements and final stores come on top).
  int maxStatements = 40;
  /// Deepest control-flow nesting when NestedControl is drawn (1 without it).
  int maxDepth = 3;
  /// Runtime scalar sets per case: one compiled artifact, several runtime paths. A kernel without
  /// scalar parameters gets one (empty) set.
  int scalarSets = 3;
  /// Largest block_num when MultiBlock is drawn (drawn in [2, maxBlocks]).
  int maxBlocks = 4;
  /// Runtime loop counts lie in [0, maxLoopTrips]; scalar sets rotate through them so one case
  /// runs zero, one and several trips.
  int maxLoopTrips = 3;
  /// Chance (percent) that each feature joins a case's swarm subset.
  int featurePercent = 50;
  /// A fixed feature subset instead of a swarm draw (campaigns restricted with --features).
  std::optional<FeatureSet> features;
  /// Upper bound on a tile's element count (rows x cols), keeping interpretation fast.
  int64_t maxTileElements = 2048;
  /// Upper bound on the Vec bytes of the kernel's own storage (every fresh tile counted once,
  /// wherever it is defined). The kernel must fit the target under every planner, and PTOAS gives
  /// every identity its own range (semantics.md §3) while the compiler adds copies of its own:
  /// half of a2a3's 188416 usable bytes leaves them room. Once reached, blocks end early.
  int64_t maxVecStorageBytes = 96 * 1024;
  /// Magnitude bounds every FP32 / FP16 value stays within; an op whose interval would leave
  /// them gets clamped operands (maximums/minimums) or is not generated.
  double fp32Bound = 1.0e6;
  double fp16Bound = 1.0e3;
  /// One case in this many holds a second kernel in its program (0: never). The lowering converts
  /// every kernel of a program before it replaces any (C9), and a pass that keeps state across
  /// functions shows up only in a program of several.
  int secondKernelEvery = 16;
};

/// One generated case: a kernel plus everything needed to run it.
struct GeneratedCase {
  /// The InCore function `kernel` (params: In tensors, scalars, Out tensors; returns the Out
  /// tensors) and, in a two-kernel case, `sibling->function` after it; unannotated: run
  /// verifyProgram before interpreting it.
  Program program;
  /// Runtime scalar sets, each binding every scalar parameter. The program is compiled once and
  /// run on each set (loop counts 0..3, both branch arms, runtime offsets and valid extents).
  std::vector<std::map<std::string, ScalarValue>> scalarSets;
  /// Case seed for the In tensors' uniform draws (buildKernelArgs' per-name derivation).
  uint64_t inputSeed = 0;
  /// Explicit initialisation of every In tensor (floats uniform in [-1, 1], the range the
  /// generator's value analysis assumes; integers over their whole range).
  std::map<std::string, TensorInit> tensorInits;
  int64_t blockNum = 1;
  /// The swarm subset this case was generated with.
  FeatureSet features;
  /// False when the kernel uses a construct the Buffer contract keeps on Tile (contract-rules.md:
  /// reductions, dynamic loop steps, ...); only possible with Feature::OutOfContract.
  bool inContract = true;

  /// A second kernel of `program`, generated like the first with the same features: compiled with
  /// it and run on scalar sets of its own after the first kernel's (caseSpecsOf), with the case's
  /// input seed (so every run of the case samples the lowering laws alike and the runs share one
  /// lowering per planner). The fields above describe `kernel`; these, the second kernel.
  struct Sibling {
    std::string function;
    std::vector<std::map<std::string, ScalarValue>> scalarSets;
    std::map<std::string, TensorInit> tensorInits;
    int64_t blockNum = 1;
    bool inContract = true;
  };
  std::optional<Sibling> sibling;

  GeneratedCase() = default;
  GeneratedCase(const GeneratedCase& other);
  GeneratedCase& operator=(const GeneratedCase& other);
  GeneratedCase(GeneratedCase&&) = default;
  GeneratedCase& operator=(GeneratedCase&&) = default;
};

/// Draws a swarm subset: each feature independently with `config.featurePercent` percent, or
/// `config.features` when set. Shrinks toward fewer features.
rc::Gen<FeatureSet> genFeatureSet(const GenConfig& config);

/// A valid random case: a swarm subset (genFeatureSet), then a kernel using only those features,
/// its scalar sets, input seed and block count. Size (0..100) scales the statement budget.
rc::Gen<GeneratedCase> genCase(const GenConfig& config = {});

/// A valid random case with a fixed feature subset.
rc::Gen<GeneratedCase> genCaseWith(FeatureSet features, const GenConfig& config = {});

/// Case `seed` at `size` (clamped to 0..100): a pure function of (seed, size, config), the same
/// on every machine and thread. genCase(config) run with rc::Random(seed). Safe to call from any
/// thread: calls are serialized, because RapidCheck keeps its generation state in process-wide
/// statics (the genCase generators themselves must not run on two threads at once).
GeneratedCase generateCase(uint64_t seed, int size, const GenConfig& config = {});

/// The seed of case `index` of a campaign (splitmix64 of the two), so case i is a pure function of
/// (campaign seed, i, configuration).
uint64_t caseSeed(uint64_t campaignSeed, uint64_t index);

/// The case spec that runs `kernel` of `c` on scalar set `set`: scalars, block count, input seed
/// and inits.
CaseSpec caseSpecFor(const GeneratedCase& c, size_t set);

/// Every run of `c`: `kernel` on each of its scalar sets (one run without scalars when it has no
/// set), then the sibling on each of its own. A kernel the generator marked out of the contract
/// expects the Tile path (expectBufferPath = false); an in-contract one states no expectation,
/// since the generator's verdict is its reading of the rules, not a proof (docs/fuzz.md).
std::vector<CaseSpec> caseSpecsOf(const GeneratedCase& c);

/// Prints the kernel and its scalar sets (RapidCheck uses it for counterexamples).
void showValue(const GeneratedCase& c, std::ostream& os);

}  // namespace ptodiff::fuzz
