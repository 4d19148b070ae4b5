// Coverage of the program generator over a fixed set of seeds: every swarm feature is drawn,
// every Tile-stage op (except tile.alloc, which only planned programs have) appears, every
// control-flow form appears, nesting reaches its limit, and both contract verdicts occur.
#include <gtest/gtest.h>

#include <map>

#include "GenTestSupport.h"

namespace ptodiff::fuzz {
namespace {

using gentest::opsUsed;
using gentest::stmtStats;

struct Coverage {
  std::map<Feature, int> features;
  std::map<Opcode, int> ops;
  std::set<Stmt::Kind> kinds;
  int maxNesting = 0;
  int inContract = 0, outOfContract = 0, multiBlock = 0;
};

const Coverage& coverage() {
  static const Coverage c = [] {
    Coverage cov;
    for (uint64_t i = 0; i < 2000; ++i) {
      const GeneratedCase g = generateCase(caseSeed(1, i), 100);
      for (Feature f : g.features.list()) ++cov.features[f];
      for (Opcode op : opsUsed(g.program)) ++cov.ops[op];
      const gentest::StmtStats stats = stmtStats(g.program);
      cov.kinds.insert(stats.kinds.begin(), stats.kinds.end());
      cov.maxNesting = std::max(cov.maxNesting, stats.maxNesting);
      ++(g.inContract ? cov.inContract : cov.outOfContract);
      if (g.blockNum > 1) ++cov.multiBlock;
    }
    return cov;
  }();
  return c;
}

TEST(GeneratorCoverage, EveryFeatureIsDrawn) {
  for (Feature f : allFeatures()) {
    const int n = coverage().features.count(f) ? coverage().features.at(f) : 0;
    // Each feature joins a subset with probability 1/2: about 1000 of 2000.
    EXPECT_GT(n, 800) << featureName(f);
    EXPECT_LT(n, 1200) << featureName(f);
  }
}

TEST(GeneratorCoverage, EveryTileOpAppears) {
  for (const OpInfo& info : allOps()) {
    if (info.stage != OpStage::Tile || info.code == Opcode::TileAlloc) continue;
    EXPECT_TRUE(coverage().ops.count(info.code)) << info.spelling << " never generated";
  }
  // Distribution, for the record.
  std::string line;
  for (const auto& [op, n] : coverage().ops) line += std::string(opInfo(op).spelling) + "=" + std::to_string(n) + " ";
  std::printf("[ ops      ] %s\n", line.c_str());
}

TEST(GeneratorCoverage, EveryStatementFormAndNestingAppear) {
  for (Stmt::Kind k : {Stmt::Kind::Assign, Stmt::Kind::Return, Stmt::Kind::Yield, Stmt::Kind::For, Stmt::Kind::If,
                       Stmt::Kind::While})
    EXPECT_TRUE(coverage().kinds.count(k)) << static_cast<int>(k);
  EXPECT_EQ(coverage().maxNesting, GenConfig{}.maxDepth);
}

TEST(GeneratorCoverage, BothContractVerdictsAndMultipleBlocksOccur) {
  EXPECT_GT(coverage().inContract, 500);
  EXPECT_GT(coverage().outOfContract, 300);
  EXPECT_GT(coverage().multiBlock, 500);
}

}  // namespace
}  // namespace ptodiff::fuzz
