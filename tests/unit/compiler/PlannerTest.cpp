// The three planners (spec/lowering.md step 4): PYPTO's lifetime reuse and its guards, DSA_RP's
// lifetime-aware packing, PTOAS's identities, capacity and the reserved range (P1, V9, W13), and
// the diagnostics each planner emits. Row reductions' tmp_tile writes (PT6): Liveness reports every
// read they clobber, and the pipeline's plans keep every value a reduction's tmp holds intact.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compiler/passes/VerifyTileStorage.h"
#include "compiler/planners/Liveness.h"
#include "compiler/planners/PlanMemory.h"
#include "compiler/planners/PlannedStorage.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"
#include "tests/unit/compiler/PlannerStorageOracle.h"

namespace ptodiff {
namespace {

using namespace testsupport;

std::map<std::string, MemRef> memrefs(const Program& p) {
  std::map<std::string, MemRef> out;
  auto visit = [&](const Block& body, auto&& self) -> void {
    for (const StmtPtr& s : body) {
      if (s->kind == Stmt::Kind::Assign) {
        const Binder& b = s->as<AssignStmt>().target;
        if (b.annotation && b.annotation->memref) out[b.name] = *b.annotation->memref;
      }
      if (s->kind == Stmt::Kind::For) self(s->as<ForStmt>().body, self);
    }
  };
  visit(p.functions[0].body, visit);
  return out;
}

Program plan(const std::string& params, const std::string& body, Planner planner, const Target& target = targetA2A3(),
             const std::string& result = "pl.Tensor[[16, 64], pl.FP32]") {
  return lowerUpTo(parseVerified(kernelProgram(params, body, result)), contextFor(planner, target), "PlanMemory");
}

constexpr const char* kParams = "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]";

constexpr const char* kChain =
    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
    "        y = pl.tile.load(a, [0, 0], [16, 64])\n"
    "        d = pl.tile.add(x, y)\n"
    "        r = pl.tile.recip(d)\n"
    "        e = pl.tile.exp(r)\n"
    "        s = pl.tile.slice(e, [16, 32], [0, 32])\n"
    "        w = pl.tile.muls(s, 2.0)\n"
    "        o0 = pl.tile.store(w, [0, 0], out)\n"
    "        o1 = pl.tile.store(e, [0, 0], o0)\n"
    "        return o1\n";

TEST(PlannerPyPto, ReusesTheStorageOfAnInputAnInPlaceSafeOpConsumes) {
  std::map<std::string, MemRef> m = memrefs(plan(kParams, kChain, Planner::PYPTO));
  EXPECT_EQ(m["d"], m["x"]);  // add reads x for the last time, exactly over its window
}

TEST(PlannerPyPto, NeverPlacesRecipOverItsInput) {
  std::map<std::string, MemRef> m = memrefs(plan(kParams, kChain, Planner::PYPTO));
  EXPECT_NE(m["r"].base, m["d"].base);
}

// W13: an arithmetic destination never reuses the storage of a window it reads.
TEST(PlannerPyPto, NeverPlacesAnOpOverTheStorageOfAWindowItReads) {
  std::map<std::string, MemRef> m = memrefs(plan(kParams, kChain, Planner::PYPTO));
  EXPECT_NE(m["w"].base, m["s"].base);
  EXPECT_EQ(m["s"].base, m["e"].base);
}

TEST(PlannerPyPto, KeepsAValueReadInALoopAliveToTheLoopsEnd) {
  Program p = plan(kParams,
                   "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                   "        for i, (o,) in pl.range(3, init_values=(out,)):\n"
                   "            t = pl.tile.exp(x)\n"
                   "            u = pl.tile.muls(t, 2.0)\n"
                   "            o1 = pl.tile.store(u, [0, 0], o)\n"
                   "            r = pl.yield_(o1)\n"
                   "        return r\n",
                   Planner::PYPTO);
  std::map<std::string, MemRef> m = memrefs(p);
  EXPECT_NE(m["t"].base, m["x"].base);
  EXPECT_NE(m["u"].base, m["x"].base);
  EXPECT_EQ(m["u"], m["t"]);  // t dies at u within one trip
}

// V9: storage of a tile with runtime valid extents merges only with same-typed whole roots.
TEST(PlannerPyPto, MergesRuntimeValidStorageOnlyWithTheSamePhysicalType) {
  const std::string params = std::string(kParams) + ", n: pl.Scalar[pl.INDEX]";
  std::map<std::string, MemRef> other = memrefs(plan(params,
                                                     "        x = pl.tile.load(a, [0, 0], [16, 64], valid_shape=[n, 64])\n"
                                                     "        o0 = pl.tile.store(x, [0, 0], out)\n"
                                                     "        y = pl.tile.load(a, [0, 0], [32, 32])\n"
                                                     "        o1 = pl.tile.store(y, [0, 0], o0)\n"
                                                     "        return o1\n",
                                                     Planner::PYPTO));
  EXPECT_NE(other["y"].base, other["x"].base);
  std::map<std::string, MemRef> same = memrefs(plan(params,
                                                    "        x = pl.tile.load(a, [0, 0], [16, 64], valid_shape=[n, 64])\n"
                                                    "        o0 = pl.tile.store(x, [0, 0], out)\n"
                                                    "        y = pl.tile.load(a, [0, 0], [16, 64])\n"
                                                    "        o1 = pl.tile.store(y, [0, 0], o0)\n"
                                                    "        return o1\n",
                                                    Planner::PYPTO));
  EXPECT_EQ(same["y"].base, same["x"].base);
}

// V9 with V5: merged storage is one Buffer handle, so dynamic storage merges only where that handle
// could stay dynamic: every member in straight-line code and covering its root. Otherwise the two
// roots stay apart at one address, since their lifetimes are disjoint (fuzz seed 1 cases 99, 249).
TEST(PlannerPyPto, DynamicStorageSharesOnlyAnAddressWithStorageReadInsideALoop) {
  const std::string params = std::string(kParams) + ", n: pl.Scalar[pl.INDEX]";
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 64], valid_shape=[n, 64])\n"
      "        o0 = pl.tile.store(x, [0, 0], out)\n"
      "        y = pl.tile.load(a, [0, 0], [16, 64])\n"
      "        for i, (acc,) in pl.range(2, init_values=(o0,)):\n"
      "            o1 = pl.tile.store(y, [0, 0], acc)\n"
      "            r = pl.yield_(o1)\n"
      "        return r\n";
  std::map<std::string, MemRef> m = memrefs(plan(params, body, Planner::PYPTO));
  EXPECT_NE(m["y"].base, m["x"].base);
  EXPECT_EQ(m["y"].offset, m["x"].offset);
  EXPECT_NO_THROW(lowerUpTo(parseVerified(kernelProgram(params, body, "pl.Tensor[[16, 64], pl.FP32]")),
                            contextFor(Planner::PYPTO), "LowerTileToBuffer"));
}

// V6, V11: a set_validshape makes storage dynamic even with constant extents, as a zero extent does;
// neither merges with storage a window is cut from (fuzz seed 1 cases 47, 50: V9 in the lowering).
TEST(PlannerPyPto, SetterOrZeroValidStorageNeverMergesWithAWindowedRoot) {
  for (const char* dynamicTile : {"        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                  "        xs = pl.tile.set_validshape(x, 4, 64)\n",
                                  "        xs = pl.tile.load(a, [0, 0], [16, 64], valid_shape=[0, 64])\n"}) {
    const std::string body = std::string(dynamicTile) +
                             "        o0 = pl.tile.store(xs, [0, 0], out)\n"
                             "        y = pl.tile.load(a, [0, 0], [16, 64])\n"
                             "        w = pl.tile.slice(y, [8, 64], [8, 0])\n"
                             "        o1 = pl.tile.store(w, [0, 0], o0)\n"
                             "        return o1\n";
    SCOPED_TRACE(dynamicTile);
    std::map<std::string, MemRef> m = memrefs(plan(kParams, body, Planner::PYPTO));
    EXPECT_NE(m["y"].base, m["xs"].base);
    EXPECT_NO_THROW(lowerUpTo(parseVerified(kernelProgram(kParams, body, "pl.Tensor[[16, 64], pl.FP32]")),
                              contextFor(Planner::PYPTO), "LowerTileToBuffer"));
  }
}

// V5 again: storage a window is cut from (even a full-size one) or an assemble reads never joins a
// dynamic handle. Reduced by the campaign's reducer from fuzz seed 1 cases 3021 and 7079
// (tests/fuzz-open/sig-e89e5fbcbc16e462, sig-5caaf99302c4172a: `[V5] ... a window is cut from` /
// `... is relabelled or assembled` in LowerTileToBuffer under PYPTO only).
TEST(PlannerPyPto, StorageWindowedOrAssembledNeverMergesWithDynamicStorage) {
  for (const char* use : {"        w = pl.tile.slice(y, [16, 64], [0, 0])\n",
                          "        w = pl.tile.assemble(y, y, [0, 0])\n"}) {
    const std::string body = std::string("        x = pl.tile.load(a, [0, 0], [16, 64], valid_shape=[0, 64])\n") +
                             "        o0 = pl.tile.store(x, [0, 0], out)\n"
                             "        y = pl.tile.full([16, 64], dtype=pl.FP32, value=0.5)\n" +
                             use + "        o1 = pl.tile.store(w, [0, 0], o0)\n"
                                   "        return o1\n";
    SCOPED_TRACE(use);
    std::map<std::string, MemRef> m = memrefs(plan(kParams, body, Planner::PYPTO));
    EXPECT_NE(m["y"].base, m["x"].base);
    EXPECT_NO_THROW(lowerUpTo(parseVerified(kernelProgram(kParams, body, "pl.Tensor[[16, 64], pl.FP32]")),
                              contextFor(Planner::PYPTO), "LowerTileToBuffer"));
  }
}

// L9: a set_validshape view names the whole storage of its source, so a carry whose entry copy is
// MaterializeSemanticAliases' whole-tile copy (a setter view of the copy) still covers its identity
// and may be rebound in place each trip. Reduced from the 5-minute campaign (132 cases per planner:
// `VerifyTileStorage [L9]: 'c1' may hold an earlier version of the storage of 't8'`).
TEST(PlannerAllPlanners, ACarryEnteringThroughAWholeTileCopyIsRewrittenInPlace) {
  const std::string body =
      "        t5 = pl.tile.load(a, [0, 0], [1, 64], valid_shape=[1, 1])\n"
      "        g = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)\n"
      "        for (c0, c1, k0) in pl.while_(init_values=(t5, t5, 0)):\n"
      "            pl.cond(k0 < 2)\n"
      "            t7 = pl.tile.set_validshape(g, 1, 0)\n"
      "            t8 = pl.tile.relu(c1)\n"
      "            k1 = k0 + 1\n"
      "            r0, r1, r2 = pl.yield_(c0, t8, k1)\n"
      "        o0 = pl.tile.store(r1, [0, 0], out)\n"
      "        return o0\n";
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    SCOPED_TRACE(std::string(plannerName(planner)));
    const Program lowered = lowerUpTo(parseVerified(kernelProgram(kParams, body, "pl.Tensor[[16, 64], pl.FP32]")),
                                      contextFor(planner), "VerifyTileStorage");
    EXPECT_NE(printProgram(lowered).find("t5_in_1_whole"), std::string::npos);  // the whole-tile copy is there
  }
}

TEST(PlannerDsaRp, KeepsEveryIdentitysRootAndSharesAddressesOnlyAcrossDisjointLifetimes) {
  Program p = plan(kParams, kChain, Planner::DSA_RP);
  std::map<std::string, MemRef> m = memrefs(p);
  std::set<std::string> bases;
  for (const char* v : {"x", "y", "d", "r", "e", "w"}) bases.insert(m[v].base);
  EXPECT_EQ(bases.size(), 6u);  // no merging
  auto at = [&](const char* v) { return m[v].offset.value; };
  EXPECT_NE(at("x"), at("y"));  // live together
  EXPECT_NE(at("d"), at("x"));  // no in-place sharing under DSA_RP
  EXPECT_NE(at("r"), at("d"));
  EXPECT_EQ(at("r"), at("x"));  // x died at d: its range is free again for r
}

TEST(PlannerPtoas, GivesIdentitiesWithoutAddressesAndChangesNothing) {
  Program initialized = lowerUpTo(parseVerified(kernelProgram(kParams, kChain, "pl.Tensor[[16, 64], pl.FP32]")),
                                  contextFor(Planner::PTOAS), "SelectBufferIRFunctions");
  Program planned = initialized.clone();
  verifyOrThrow(planned);
  EXPECT_FALSE(createPlanMemoryPass()->run(planned, contextFor(Planner::PTOAS)));
  EXPECT_TRUE(structurallyEqual(initialized, planned)) << firstDifference(initialized, planned);
}

/// Twelve 16 KiB tiles live together: 196608 bytes, more than a2a3's 188416 usable Vec bytes, less
/// than a5's 245760.
std::string twelveLiveTiles() {
  std::string body;
  for (int i = 0; i < 12; ++i) body += "        x" + std::to_string(i) + " = pl.tile.load(a, [0, 0], [64, 64])\n";
  std::string o = "out";
  for (int i = 0; i < 12; ++i) {
    body += "        o" + std::to_string(i) + " = pl.tile.store(x" + std::to_string(i) + ", [0, 0], " + o + ")\n";
    o = "o" + std::to_string(i);
  }
  return body + "        return " + o + "\n";
}

constexpr const char* kBig = "a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]";
constexpr const char* kBigResult = "pl.Tensor[[64, 64], pl.FP32]";

std::string planError(const std::string& body, Planner planner, const Target& target) {
  try {
    plan(kBig, body, planner, target, kBigResult);
  } catch (const DiagnosticError& e) {
    return e.diagnostic().message;
  }
  return "";
}

TEST(PlannerPyPto, RejectsStorageBeyondTheUsableCapacityAndRespectsTheReservedRange) {
  EXPECT_EQ(planError(twelveLiveTiles(), Planner::PYPTO, targetA2A3()),
            "PlanMemory: PYPTO: [P1] tile.alloc: Vec storage needs 196608 bytes after reuse, but the a2a3 target's "
            "Vec holds 188416 usable bytes ([188416, 196608) is reserved); root 'mem_vec_11' (16384 bytes) does not "
            "fit");
  EXPECT_EQ(planError(twelveLiveTiles(), Planner::PYPTO, targetA5()), "");
}

TEST(PlannerDsaRp, RejectsARootThatFindsNoFreeRange) {
  EXPECT_EQ(planError(twelveLiveTiles(), Planner::DSA_RP, targetA2A3()),
            "PlanMemory: DSA_RP: [P1] tile.alloc: root 'mem_vec_11' (16384 bytes of Vec) finds no free range: it is "
            "live together with 196608 bytes in all, but the a2a3 target's Vec holds 188416 usable bytes ([188416, "
            "196608) is reserved)");
  EXPECT_EQ(planError(twelveLiveTiles(), Planner::DSA_RP, targetA5()), "");
}

/// Twelve 16 KiB tiles, each dead before the next is loaded: reuse makes them fit; PTOAS, which
/// gives every identity its own range, does not.
std::string twelveSequentialTiles() {
  std::string body, o = "out";
  for (int i = 0; i < 12; ++i) {
    body += "        x" + std::to_string(i) + " = pl.tile.load(a, [0, 0], [64, 64])\n";
    body += "        o" + std::to_string(i) + " = pl.tile.store(x" + std::to_string(i) + ", [0, 0], " + o + ")\n";
    o = "o" + std::to_string(i);
  }
  return body + "        return " + o + "\n";
}

TEST(PlannerPtoas, RejectsIdentitiesThatTogetherExceedTheUsableCapacity) {
  EXPECT_EQ(planError(twelveSequentialTiles(), Planner::PYPTO, targetA2A3()), "");
  EXPECT_EQ(planError(twelveSequentialTiles(), Planner::DSA_RP, targetA2A3()), "");
  EXPECT_EQ(planError(twelveSequentialTiles(), Planner::PTOAS, targetA2A3()),
            "PlanMemory: PTOAS: [P1] tile.alloc: the Vec roots need 196608 bytes together (PTOAS gives every "
            "identity its own range), but the a2a3 target's Vec holds 188416 usable bytes ([188416, 196608) is "
            "reserved)");
}

TEST(PlannerPyPto, ReusedStorageLetsSequentialTilesShareOneRoot) {
  Program p = plan(kBig, twelveSequentialTiles(), Planner::PYPTO, targetA2A3(), kBigResult);
  EXPECT_EQ(storage::collectRoots(p.functions[0]).size(), 1u);
}

TEST(PlannerPlanMemory, RejectsRootsThatAlreadyHaveAnAddress) {
  Program planned = plan(kParams, kChain, Planner::PYPTO);
  verifyOrThrow(planned);
  try {
    createPlanMemoryPass()->run(planned, contextFor(Planner::DSA_RP));
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "PlanMemory: DSA_RP: [P1] tile.alloc: root 'mem_vec_0' already has an address (addr=0); expected the "
              "unplaced roots InitMemRef makes");
  }
}

TEST(PlannerPlanMemory, RejectsATileThatNamesNoStorage) {
  Program p = parseVerified(kernelProgram(kParams,
                                          "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)\n"
                                          "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                          "        o = pl.tile.store(x, [0, 0], out)\n        return o\n",
                                          "pl.Tensor[[16, 64], pl.FP32]"));
  try {
    createPlanMemoryPass()->run(p, contextFor(Planner::PTOAS));
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "PlanMemory: PTOAS: [P18] tile.load: 'x' names no storage root; expected InitMemRef's output");
    EXPECT_EQ(e.diagnostic().loc.line, 6u);
  }
}


// ---- row reductions' tmp_tile (semantics.md §2, PT6) ----
//
// A row reduction writes poison over its tmp_tile's storage. That storage is the tmp value's own,
// so no pairwise relation of two identities describes the write (VerifyTileStorage's P18 overlap
// check cannot see it); Liveness::generationOverlaps() reports every read it clobbers instead.

constexpr const char* kReduceParams =
    "a: pl.Tensor[[16, 64], pl.FP32], f: pl.Scalar[pl.BOOL], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]";

/// "NAME@LINE after LINE" for every read a row reduction's tmp write clobbers (Liveness on the
/// unplanned kernel, every in-place result following its input).
std::vector<std::string> scratchClobbers(const std::string& body) {
  Program p = parseVerified(kernelProgram(kReduceParams, body, "pl.Tensor[[16, 64], pl.FP32]"));
  storage::StorageFacts facts(p.functions[0]);
  storage::AliasFamilies families(facts, storage::allInPlaceFollow);
  storage::Liveness live(facts, families);
  std::vector<std::string> out;
  for (const storage::GenerationOverlap& g : live.generationOverlaps()) {
    if (!g.scratch) continue;
    out.push_back(g.use->expr->name + "@" + std::to_string(g.use->expr->loc.line) + " after " +
                  std::to_string(live.lineOf(g.writePoint)));
  }
  return out;
}

using Clobbers = std::vector<std::string>;

// Fuzz seed 1 case 37: `t11 = row_max(t9, t1)` and `relu(t1)` later (live-clobber under every planner).
TEST(PlannerLiveness, AReductionsTmpWriteClobbersALaterReadOfTheTmp) {
  EXPECT_EQ(scratchClobbers("        x = pl.tile.load(a, [0, 0], [16, 64])\n"           // 5
                            "        t = pl.tile.load(a, [0, 0], [16, 64])\n"           // 6
                            "        m = pl.tile.row_max(x, t)\n"                       // 7
                            "        e = pl.tile.relu(t)\n"                             // 8
                            "        o0 = pl.tile.store(e, [0, 0], out)\n"
                            "        return o0\n"),
            Clobbers{"t@8 after 7"});
  // Dead after the reduction: the tmp's storage may be scratch.
  EXPECT_EQ(scratchClobbers("        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                            "        t = pl.tile.load(a, [0, 0], [16, 64])\n"
                            "        e = pl.tile.relu(t)\n"
                            "        m = pl.tile.row_max(x, t)\n"
                            "        o0 = pl.tile.store(e, [0, 0], out)\n"
                            "        return o0\n"),
            Clobbers{});
}

TEST(PlannerLiveness, AReductionsTmpWriteClobbersEveryValueOfTheTmpsStorage) {
  // The tmp is a window of t: t's later read is clobbered (the identity is written, conservatively whole).
  EXPECT_EQ(scratchClobbers("        x = pl.tile.load(a, [0, 0], [16, 32])\n"           // 5
                            "        t = pl.tile.load(a, [0, 0], [16, 64])\n"           // 6
                            "        s = pl.tile.slice(t, [16, 32], [0, 32])\n"         // 7
                            "        m = pl.tile.row_sum(x, s)\n"                       // 8
                            "        e = pl.tile.exp(t)\n"                              // 9
                            "        o0 = pl.tile.store(e, [0, 0], out)\n"
                            "        return o0\n"),
            Clobbers{"t@9 after 8"});
  // The reduction's own source in the tmp's storage is read where the tmp is written.
  EXPECT_EQ(scratchClobbers("        t = pl.tile.load(a, [0, 0], [16, 64])\n"           // 5
                            "        m = pl.tile.row_min(t, t)\n"                       // 6
                            "        o0 = pl.tile.store(t, [0, 0], out)\n"              // 7
                            "        return o0\n"),
            (Clobbers{"t@6 after 6", "t@7 after 6"}));
}

// Fuzz seed 1 case 156: the tmp is read in the other arm only (no clobber) or after the If.
TEST(PlannerLiveness, AReductionsTmpWriteInOneArmClobbersReadsAfterTheBranchOnly) {
  const std::string arms =
      "        x = pl.tile.load(a, [0, 0], [16, 64])\n"      // 5
      "        t = pl.tile.load(a, [0, 0], [16, 64])\n"      // 6
      "        if f:\n"                                      // 7
      "            m = pl.tile.row_max(x, t)\n"              // 8
      "            o1 = pl.tile.store(x, [0, 0], out)\n"     // 9
      "            r = pl.yield_(o1)\n"                      // 10
      "        else:\n"                                      // 11
      "            e = pl.tile.exp(t)\n"                     // 12
      "            o2 = pl.tile.store(e, [0, 0], out)\n"     // 13
      "            r = pl.yield_(o2)\n";                     // 14
  EXPECT_EQ(scratchClobbers(arms + "        return r\n"), Clobbers{});
  EXPECT_EQ(scratchClobbers(arms + "        n = pl.tile.neg(t)\n"   // 15
                                   "        o3 = pl.tile.store(n, [0, 0], r)\n"
                                   "        return o3\n"),
            Clobbers{"t@15 after 8"});
}

TEST(PlannerLiveness, AReductionsTmpWriteInALoopClobbersTheNextTripsEarlierRead) {
  EXPECT_EQ(scratchClobbers("        x = pl.tile.load(a, [0, 0], [16, 64])\n"                  // 5
                            "        t = pl.tile.load(a, [0, 0], [16, 64])\n"                  // 6
                            "        for i, (o,) in pl.range(3, init_values=(out,)):\n"        // 7
                            "            e = pl.tile.exp(t)\n"                                 // 8
                            "            o1 = pl.tile.store(e, [0, 0], o)\n"                   // 9
                            "            m = pl.tile.row_max(x, t)\n"                          // 10
                            "            r = pl.yield_(o1)\n"
                            "        return r\n"),
            Clobbers{"t@8 after 10"});
  // A tmp made in the body is rebound on every trip: nothing earlier is read again.
  EXPECT_EQ(scratchClobbers("        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                            "        for i, (o,) in pl.range(3, init_values=(out,)):\n"
                            "            t = pl.tile.load(a, [0, 0], [16, 64])\n"
                            "            o1 = pl.tile.store(t, [0, 0], o)\n"
                            "            m = pl.tile.row_max(x, t)\n"
                            "            r = pl.yield_(o1)\n"
                            "        return r\n"),
            Clobbers{});
}

/// The row `ptodiff run` prints for a planner's passing planned run (the planner column is 9 wide).
std::string plannedPassRow(const std::string& planner) {
  return planner + std::string(9 - planner.size(), ' ') + "planned  pass ";
}

/// Writes `text` to a fresh file and runs `ptodiff run FILE --planner all` on it (default case);
/// returns the exit status and the output.
std::pair<int, std::string> ptodiffRun(const std::string& text, const std::string& stem, const std::string& options = "") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ptodiff-planner-" + stem + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path program = dir / (stem + ".py"), output = dir / "out.txt";
  std::ofstream(program) << text;
  const std::string command = std::string(PTODIFF_BINARY) + " run " + program.string() + " --planner all " + options + " > " +
                              output.string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::string printed = readText(output);
  fs::remove_all(dir);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, printed};
}

// The planned run of a kernel whose reduction tmp is read afterwards must agree with its value run
// under every planner: the tmp gets storage of its own before placement (InitMemRef's `_scratch`
// copy), and every plan keeps the value the tmp held intact.
TEST(PlannerScratch, AReductionWhoseTmpIsReadLaterRunsCleanAndAgreesUnderEveryPlanner) {
  const std::string body = "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                           "        t = pl.tile.load(a, [0, 0], [16, 64])\n"
                           "        m = pl.tile.row_max(x, t)\n"
                           "        e = pl.tile.relu(t)\n"
                           "        y = pl.tile.add(e, x)\n"
                           "        o0 = pl.tile.store(y, [0, 0], out)\n"
                           "        return o0\n";
  const std::string text = kernelProgram(kParams, body, "pl.Tensor[[16, 64], pl.FP32]");
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    Program planned = lowerUpTo(parseVerified(text), contextFor(planner), "VerifyTileStorage");
    EXPECT_EQ(oracle_test::StorageOracle(planned.functions[0], 64).run(), std::vector<std::string>{})
        << plannerName(planner);
  }
  auto [status, printed] = ptodiffRun(text, "tmp-read-later");
  EXPECT_EQ(status, 0) << printed;
  for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"})
    EXPECT_NE(printed.find(plannedPassRow(planner)), std::string::npos) << planner << "\n" << printed;
}

// The same in a loop and across a branch (fuzz seed 1 cases 70 and 156 in small).
TEST(PlannerScratch, ReductionTmpsReadInLaterTripsOrAfterABranchRunCleanUnderEveryPlanner) {
  const std::string body = "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                           "        t = pl.tile.load(a, [0, 0], [16, 64])\n"
                           "        for i, (o,) in pl.range(3, init_values=(out,)):\n"
                           "            e = pl.tile.exp(t)\n"
                           "            o1 = pl.tile.store(e, [0, 0], o)\n"
                           "            m = pl.tile.row_sum(x, t)\n"
                           "            r = pl.yield_(o1)\n"
                           "        if f:\n"
                           "            m2 = pl.tile.row_min(x, t)\n"
                           "            b = pl.yield_(r)\n"
                           "        else:\n"
                           "            b = pl.yield_(r)\n"
                           "        n = pl.tile.neg(t)\n"
                           "        o2 = pl.tile.store(n, [0, 0], b)\n"
                           "        return o2\n";
  const std::string text = kernelProgram(kReduceParams, body, "pl.Tensor[[16, 64], pl.FP32]");
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    Program planned = lowerUpTo(parseVerified(text), contextFor(planner), "VerifyTileStorage");
    EXPECT_EQ(oracle_test::StorageOracle(planned.functions[0], 64).run(), std::vector<std::string>{})
        << plannerName(planner);
  }
  for (const char* f : {"true", "false"}) {
    auto [status, printed] = ptodiffRun(text, "tmp-loop-branch", std::string("--scalar f=") + f);
    EXPECT_EQ(status, 0) << printed;
    for (const char* planner : {"PYPTO", "DSA_RP", "PTOAS"})
      EXPECT_NE(printed.find(plannedPassRow(planner)), std::string::npos) << planner << "\n" << printed;
  }
}


// A transposed tmp (no move can copy it, M14) that is read again later gets fresh scratch from
// InitMemRef, so every planner's storage verifies (until 2026-12-01 it kept the shared storage and
// VerifyTileStorage rejected the kernel with [L9]).
TEST(PlannerScratch, AnUncopyableTmpReadLaterGetsFreshScratchUnderEveryPlanner) {
  const std::string text = kernelProgram("a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                                         "        x = pl.tile.load(a, [0, 0], [16, 16])\n"
                                         "        t = pl.tile.load(a, [0, 0], [16, 16])\n"
                                         "        v = pl.tile.transpose_view(t)\n"
                                         "        m = pl.tile.row_max(x, v)\n"
                                         "        e = pl.tile.relu(t)\n"
                                         "        o0 = pl.tile.store(e, [0, 0], out)\n"
                                         "        return o0\n",
                                         "pl.Tensor[[16, 16], pl.FP32]");
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    const Program p = lowerUpTo(parseVerified(text), contextFor(planner), "VerifyTileStorage");
    const std::string printed = printProgram(p);
    EXPECT_NE(printed.find("pl.tile.row_max(x, v_scratch)"), std::string::npos) << plannerName(planner) << printed;
  }
}

// The same kernel planned by hand with the tmp on the storage `t` is still read from: the clobber
// is a compile-time rejection (VerifyTileStorage reads Liveness::generationOverlaps), not a
// live-clobber at run time.
TEST(PlannerScratch, AHandPlannedTmpSharingStorageReadLaterIsRejected) {
  Program p = parseVerified(kernelProgram(
      "a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)\n"
      "        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)\n"
      "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)\n"
      "        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)\n"
      "        x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16])\n"
      "        t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16])\n"
      "        v: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec, "
      "pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(t)\n"
      "        m: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_2, 0, 64), pl.Mem.Vec] = pl.tile.row_max(x, v)\n"
      "        e: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, 0, 1024), pl.Mem.Vec] = pl.tile.relu(t)\n"
      "        o0 = pl.tile.store(e, [0, 0], out)\n"
      "        return o0\n",
      "pl.Tensor[[16, 16], pl.FP32]"));
  try {
    createVerifyTileStoragePass()->run(p, contextFor(Planner::PTOAS));
    ADD_FAILURE() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "VerifyTileStorage [L9]: 't' may hold an earlier version of the storage of 't' (line 10), which is "
              "written again before the read; keeping both needs a copy (MaterializeSemanticAliases' entry copies "
              "or parallel transfers)");
    EXPECT_EQ(e.diagnostic().loc.line, 13u);
  }
}

}  // namespace
}  // namespace ptodiff
