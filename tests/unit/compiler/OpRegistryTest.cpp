// The op registry is the single source of truth for op spellings and signatures: every Ops.def
// line has exactly one well-formed entry, found again by its spelling.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "compiler/ir/Op.h"

namespace ptodiff {
namespace {

TEST(OpRegistry, EveryOpIsFoundByItsSpelling) {
  for (const OpInfo& info : allOps()) {
    auto found = lookupOp(info.spelling);
    ASSERT_TRUE(found.has_value()) << info.spelling;
    EXPECT_EQ(*found, info.code) << info.spelling;
    EXPECT_EQ(&opInfo(info.code), &info) << info.spelling;
  }
}

TEST(OpRegistry, SpellingsAreUniqueAndCarryTheirStagePrefix) {
  std::set<std::string> seen;
  for (const OpInfo& info : allOps()) {
    EXPECT_TRUE(seen.insert(std::string(info.spelling)).second) << "duplicate " << info.spelling;
    std::string_view prefix = info.stage == OpStage::Tile     ? "tile."
                              : info.stage == OpStage::Buffer ? "buffer."
                                                              : "";
    EXPECT_EQ(info.spelling.substr(0, prefix.size()), prefix) << info.spelling;
    EXPECT_FALSE(info.doc.empty()) << info.spelling << " has no doc line";
  }
}

TEST(OpRegistry, OptionalParametersFollowRequiredOnes) {
  for (const OpInfo& info : allOps()) {
    bool sawOptional = false;
    std::set<std::string_view> names;
    for (const ParamSpec& p : info.params) {
      EXPECT_FALSE(p.name.empty()) << info.spelling;
      EXPECT_TRUE(names.insert(p.name).second) << info.spelling << " repeats parameter " << p.name;
      if (p.optional) sawOptional = true;
      else EXPECT_FALSE(sawOptional) << info.spelling << ": required " << p.name << " after an optional one";
    }
  }
}

TEST(OpRegistry, BufferWritersReturnNothingAndNameTheirDestination) {
  for (const OpInfo& info : allOps()) {
    if (!info.effects.writesDest) continue;
    EXPECT_FALSE(info.effects.hasResult) << info.spelling;
    EXPECT_EQ(info.stage, OpStage::Buffer) << info.spelling;
    int dst = paramIndex(info, "dst");
    int acc = paramIndex(info, "acc");
    EXPECT_TRUE(dst >= 0 || acc >= 0) << info.spelling << " writes a destination it does not name";
  }
}

TEST(OpRegistry, OpsThatCannotRunInPlaceAreMarked) {
  // semantics.md §5: recip, move/copy/extract, matmul and reductions never run in place.
  for (std::string_view s : {"tile.recip", "buffer.recip", "tile.move", "buffer.copy", "buffer.extract",
                             "tile.matmul", "buffer.matmul", "buffer.matmul_acc", "tile.row_sum"}) {
    auto op = lookupOp(s);
    ASSERT_TRUE(op) << s;
    EXPECT_FALSE(opInfo(*op).effects.inPlaceSafe) << s;
  }
  EXPECT_TRUE(opInfo(*lookupOp("tile.add")).effects.inPlaceSafe);
}

TEST(OpRegistry, UnknownSpellingIsNotFound) {
  EXPECT_FALSE(lookupOp("tile.frobnicate").has_value());
  EXPECT_FALSE(lookupOp("pl.tile.add").has_value());  // the registry spells ops without `pl.`
  EXPECT_EQ(paramIndex(opInfo(Opcode::TileLoad), "valid_shape"), 3);
  EXPECT_EQ(paramIndex(opInfo(Opcode::TileLoad), "nope"), -1);
}

}  // namespace
}  // namespace ptodiff
