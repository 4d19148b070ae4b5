// The three planners (spec/lowering.md step 4): PYPTO's lifetime reuse and its guards, DSA_RP's
// lifetime-aware packing, PTOAS's identities, capacity and the reserved range (P1, V9, W13), and
// the diagnostics each planner emits.
#include <gtest/gtest.h>

#include "compiler/planners/PlanMemory.h"
#include "compiler/planners/PlannedStorage.h"
#include "tests/unit/compiler/PassTestSupport.h"

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
            "PlanMemory: PYPTO: Vec storage needs 196608 bytes after reuse, but the a2a3 target's Vec holds 188416 "
            "usable bytes ([188416, 196608) is reserved); root 'mem_vec_11' (16384 bytes) does not fit");
  EXPECT_EQ(planError(twelveLiveTiles(), Planner::PYPTO, targetA5()), "");
}

TEST(PlannerDsaRp, RejectsARootThatFindsNoFreeRange) {
  EXPECT_EQ(planError(twelveLiveTiles(), Planner::DSA_RP, targetA2A3()),
            "PlanMemory: DSA_RP: root 'mem_vec_11' (16384 bytes of Vec) finds no free range: it is live together "
            "with 196608 bytes in all, but the a2a3 target's Vec holds 188416 usable bytes ([188416, 196608) is "
            "reserved)");
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
            "PlanMemory: PTOAS: the Vec roots need 196608 bytes together (PTOAS gives every identity its own range), "
            "but the a2a3 target's Vec holds 188416 usable bytes ([188416, 196608) is reserved)");
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
              "PlanMemory: DSA_RP: root 'mem_vec_0' already has an address (addr=0); expected the unplaced roots "
              "InitMemRef makes");
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
    EXPECT_EQ(e.diagnostic().message, "PlanMemory: PTOAS: 'x' names no storage root; expected InitMemRef's output");
    EXPECT_EQ(e.diagnostic().loc.line, 6u);
  }
}

}  // namespace
}  // namespace ptodiff
