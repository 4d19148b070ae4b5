// Properties of the planners on every program of tests/programs and every golden input of
// tests/golden/lower, for every planner and both targets (spec/lowering.md step 4-5):
//   - the IR verifier, each pass's postcondition and the text round trip hold after every pass
//     (verify-each) up to VerifyTileStorage;
//   - addressed planners (PYPTO, DSA_RP) give every root a 32-byte (box-) aligned address inside the
//     usable capacity, outside the reserved range, and every static MemRef lies inside its root;
//     PTOAS gives none (P1, P14);
//   - no value is read after its bytes were overwritten, on any explored path: checked by
//     PlannerStorageOracle.h, which executes the planned kernel on storage tags and shares no code
//     with the planners' liveness (P18, A30).
#include <gtest/gtest.h>

#include "compiler/planners/PlannedStorage.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"
#include "tests/unit/compiler/PlannerStorageOracle.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using namespace testsupport;

struct PlannerCase {
  fs::path path;
  Planner planner;
  const Target* target;
  std::string name;
};

void PrintTo(const PlannerCase& c, std::ostream* os) { *os << c.name; }

std::vector<PlannerCase> allCases() {
  std::vector<fs::path> files = suitePrograms();
  for (const fs::path& g : lowerGoldens()) files.push_back(g);
  std::vector<PlannerCase> out;
  for (const fs::path& f : files)
    for (Planner p : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS})
      for (const Target* t : {&targetA2A3(), &targetA5()}) {
        std::string name = f.parent_path().filename().string() + "_" + f.stem().string() + "_" +
                           std::string(plannerName(p)) + "_" + std::string(t->name);
        for (char& ch : name)
          if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        out.push_back({f, p, t, name});
      }
  return out;
}

/// P1/P14 on the printed roots and MemRefs of one planned kernel.
void expectPlacedWithinCapacity(const Function& kernel, const PlannerCase& c) {
  std::map<std::string, storage::Root> roots = storage::rootsByName(kernel);
  std::map<std::string, int64_t> alignment;
  // Box alignment: a root holding boxed tiles is aligned to their fractal size.
  auto visit = [&](const Block& body, auto&& self) -> void {
    for (const StmtPtr& s : body) {
      if (s->kind == Stmt::Kind::Assign) {
        const Type& t = s->as<AssignStmt>().target.type;
        if (t.isTile() && t.memref) {
          int64_t& a = alignment[t.memref->base];
          a = std::max<int64_t>({a, 32, t.layout.boxed() ? t.layout.fractal : 0});
          const storage::Root& r = roots.at(t.memref->base);
          if (t.memref->offset.isConst()) {
            int64_t rel = t.memref->offset.value - r.addr.value_or(0);
            EXPECT_GE(rel, 0) << s->as<AssignStmt>().target.name;
            EXPECT_LE(rel + t.memref->size, r.size) << s->as<AssignStmt>().target.name;
          }
        }
      }
      if (s->kind == Stmt::Kind::For) self(s->as<ForStmt>().body, self);
      if (s->kind == Stmt::Kind::While) self(s->as<WhileStmt>().body, self);
      if (s->kind == Stmt::Kind::If) {
        self(s->as<IfStmt>().thenBody, self);
        self(s->as<IfStmt>().elseBody, self);
      }
    }
  };
  visit(kernel.body, visit);
  for (const auto& [name, r] : roots) {
    if (!plannerAssignsAddresses(c.planner)) {
      EXPECT_FALSE(r.addr.has_value()) << name << ": PTOAS gives identities only";
      continue;
    }
    ASSERT_TRUE(r.addr.has_value()) << name << " has no address under " << plannerName(c.planner);
    const SpaceDesc& space = c.target->space(r.space);
    EXPECT_EQ(*r.addr % std::max<int64_t>(32, alignment[name]), 0) << name << " at " << *r.addr;
    EXPECT_LE(*r.addr + r.size, space.usableEnd()) << name << " ends beyond the usable capacity";
    if (space.reserved) {
      EXPECT_FALSE(space.reserved->overlaps(ByteRange{*r.addr, *r.addr + r.size})) << name;
    }
  }
}

class PlannerPropertyCase : public testing::TestWithParam<PlannerCase> {};

/// Kernels whose carries keep two trips' generations of one value alive need copies that only
/// MaterializeSemanticAliases can add (L9). VerifyTileStorage rejects them; the rejection must be
/// justified: the oracle must find the clobber in the plan the planner made.
void expectJustifiedGenerationRejection(const Program& program, const PlannerCase& c, const DiagnosticError& e) {
  ASSERT_NE(std::string(e.what()).find("VerifyTileStorage [L9]"), std::string::npos)
      << "the pipeline failed for another reason:\n" << e.what();
  Program planned = lowerUpTo(program, contextFor(c.planner, *c.target), "PlanMemory");
  bool clobbered = false;
  for (const Function& f : planned.functions)
    if (f.stage == FunctionStage::Tile && f.type != FunctionType::Orchestration)
      clobbered = clobbered || !oracle_test::StorageOracle(f).run().empty();
  EXPECT_TRUE(clobbered) << "VerifyTileStorage rejected a plan in which no explored path reads a clobbered value:\n"
                         << e.what();
}

TEST_P(PlannerPropertyCase, VerifiesAfterEveryPassPlacesInCapacityAndNeverClobbersALiveValue) {
  const PlannerCase& c = GetParam();
  std::string text = readText(c.path);
  Program program = parseVerified(goldenInput(text), c.path.string());
  Program planned;
  try {
    planned = lowerUpTo(program, contextFor(c.planner, *c.target), "VerifyTileStorage");
  } catch (const DiagnosticError& e) {
    expectJustifiedGenerationRejection(program, c, e);
    return;
  }
  for (const Function& f : planned.functions) {
    if (f.stage != FunctionStage::Tile || f.type == FunctionType::Orchestration) continue;
    SCOPED_TRACE("kernel " + f.name);
    expectPlacedWithinCapacity(f, c);
    std::vector<std::string> problems = oracle_test::StorageOracle(f).run();
    EXPECT_TRUE(problems.empty()) << problems.front() << "\nplanned program:\n" << printProgram(planned);
  }
}

// STYLE.md rule 14: a pass reports "unchanged" exactly when it leaves the program as it was.
TEST_P(PlannerPropertyCase, EveryPassReportsAChangeExactlyWhenItMakesOne) {
  const PlannerCase& c = GetParam();
  Program program = parseVerified(goldenInput(readText(c.path)), c.path.string());
  const PassContext context = contextFor(c.planner, *c.target);
  for (std::unique_ptr<Pass>& pass : buildLoweringPipeline()) {
    if (pass->name() == "LowerTileToBuffer") break;
    Program before = program.clone();
    bool changed = false;
    try {
      changed = pass->run(program, context);
    } catch (const DiagnosticError&) {
      return;  // a justified rejection (checked above); no later pass runs
    }
    verifyOrThrow(program);
    EXPECT_EQ(changed, !structurallyEqual(before, program)) << pass->name() << " on " << c.name;
  }
}

std::string caseName(const testing::TestParamInfo<PlannerCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(PlannerProperty, PlannerPropertyCase, testing::ValuesIn(allCases()), caseName);

TEST(PlannerPropertySuite, CoversTheProgramSuiteAndTheGoldens) {
  EXPECT_GE(suitePrograms().size(), 29u);
  EXPECT_GE(lowerGoldens().size(), 4u);
}

// ---- the oracle itself must be able to fail ----

constexpr const char* kClobbered = R"(@pl.program
class t:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=1024)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 1024, 2048), pl.Mem.Vec] = pl.tile.exp(x)
        z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, y)
        o = pl.tile.store(z, [0, 0], out)
        return o
)";

TEST(PlannerStorageOracle, ReportsAReadOfOverwrittenBytes) {
  Program p = parseVerified(kClobbered);
  std::vector<std::string> problems = oracle_test::StorageOracle(p.functions[0]).run();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "'x' (line 7) read at line 9 was overwritten by 'y' (line 8)");
}

// A value defined before a loop and read in it must outlive the loop: here `t`, written in the
// body, lands on `x`, which the next trip reads again (the "reuse ignores loop-extended lifetime" bug).
constexpr const char* kLoopReuse = R"(@pl.program
class t:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        for i, (o,) in pl.range(n, init_values=(out,)):
            t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.exp(x)
            o1 = pl.tile.store(t, [i * 16, 0], o)
            r = pl.yield_(o1)
        return r
)";

TEST(PlannerStorageOracle, ReportsAReadInALaterTripOfBytesTheLoopOverwrote) {
  Program p = parseVerified(kLoopReuse);
  std::vector<std::string> problems = oracle_test::StorageOracle(p.functions[0]).run();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "'x' (line 6) read at line 8 was overwritten by 't' (line 8)");
}

}  // namespace
}  // namespace ptodiff
