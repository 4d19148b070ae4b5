// The reducer's size transformations (fuzz/reduce/ShapeTransforms.h): shrink-shape, shrink-valid
// and drop-blocks on small hand-written programs. Candidates are compared, printed, with the
// program written by hand; the cut inputs are compared element by element with the originals.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/reduce/CaseInputs.h"
#include "fuzz/reduce/Reducer.h"
#include "fuzz/reduce/Transforms.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"

namespace ptodiff::fuzz {
namespace {

const std::string kHeader =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n";

std::string tensor(int64_t r, int64_t c, const std::string& dt = "FP32") {
  return "pl.Tensor[[" + std::to_string(r) + ", " + std::to_string(c) + "], pl." + dt + "]";
}

/// A kernel reading `a` and writing `out`, both R x C.
std::string kernel(int64_t r, int64_t c, const std::string& body, const std::string& dt = "FP32") {
  return kHeader + "    def kernel(self, a: " + tensor(r, c, dt) + ", out: pl.Out[" + tensor(r, c, dt) + "]) -> " +
         tensor(r, c, dt) + ":\n" + body;
}

ReduceState stateOf(const std::string& text, CaseSpec spec = {}) {
  ReduceState s{parseProgramText(text, "t.py"), std::move(spec)};
  verifyOrThrow(s.program);
  return s;
}

std::string canonical(const std::string& text) { return printProgram(parseProgramText(text, "expected.py")); }

struct Printed {
  std::vector<std::string> what, text;
  std::vector<Candidate> candidates;  // re-parsed and verified where valid
};

Printed printedCandidates(Transform t, const ReduceState& state) {
  Printed p;
  for (Candidate& c : candidatesOf(t, state)) {
    p.what.push_back(c.what);
    p.text.push_back(reparseAndVerify(c.state) ? printProgram(c.state.program) : "<invalid>");
    p.candidates.push_back(std::move(c));
  }
  return p;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const std::string kExp =
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        y = pl.tile.exp(x)\n"
    "        o = pl.tile.store(y, [0, 0], out)\n"
    "        return o\n";

TEST(ReduceShapeTransforms, ShrinkShapeHalvesEveryShapeOfAnAxisTogetherAndCutsTheInputs) {
  const ReduceState s = stateOf(kernel(16, 32, kExp));
  const Printed p = printedCandidates(Transform::ShrinkShape, s);
  ASSERT_GE(p.what.size(), 3u);
  EXPECT_EQ(p.what[0], "shrink-shape rows/2 cols/2");
  EXPECT_EQ(p.what[1], "shrink-shape rows/2");
  EXPECT_EQ(p.what[2], "shrink-shape cols/2");
  EXPECT_EQ(p.text[0], canonical(kernel(8, 16,
                                        "        x = pl.tile.load(a, [0, 0], [8, 16])\n"
                                        "        y = pl.tile.exp(x)\n"
                                        "        o = pl.tile.store(y, [0, 0], out)\n"
                                        "        return o\n")));
  EXPECT_EQ(p.text[1], canonical(kernel(8, 32,
                                        "        x = pl.tile.load(a, [0, 0], [8, 32])\n"
                                        "        y = pl.tile.exp(x)\n"
                                        "        o = pl.tile.store(y, [0, 0], out)\n"
                                        "        return o\n")));
  // The tensors of shape [16, 32] alone, tiles unchanged: a 16-row load from an 8-row tensor is a
  // candidate the run rejects, but the shape is consistent in every tensor type.
  EXPECT_TRUE(contains(p.what, "shrink-shape tensors [16, 32] -> [8, 32]"));
  EXPECT_TRUE(contains(p.what, "shrink-shape tensors [16, 32] -> [16, 16]"));

  // The input `a` (the case's default uniform fill) is cut, not regenerated: the candidate's
  // a.npy holds the top-left 8 x 16 of the original values. `out` keeps its sentinel default.
  const Candidate& half = p.candidates[0];
  ASSERT_TRUE(half.state.inputs);
  ASSERT_EQ(half.state.spec.tensors.count("a"), 1u);
  EXPECT_EQ(half.state.spec.tensors.at("a").kind, TensorInit::Kind::File);
  EXPECT_EQ(half.state.spec.tensors.count("out"), 0u);
  const Tensor original = buildKernelArgs(s.program.functions[0], s.spec, {}).tensors.at("a");
  const Tensor cut = readNpy(half.state.spec.tensors.at("a").file);
  ASSERT_EQ(cut.rows, 8);
  ASSERT_EQ(cut.cols, 16);
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 16; ++c) ASSERT_EQ(cut.bitsAt(r * 16 + c), original.bitsAt(r * 32 + c)) << r << "," << c;
  // The folder goes with the last state using it.
  const std::filesystem::path folder = half.state.inputs->path();
  EXPECT_TRUE(std::filesystem::exists(folder));
}

TEST(ReduceShapeTransforms, TheInputFolderIsRemovedWithTheLastStateUsingIt) {
  std::filesystem::path folder;
  {
    std::vector<Candidate> c = candidatesOf(Transform::ShrinkShape, stateOf(kernel(16, 32, kExp)));
    ASSERT_FALSE(c.empty());
    ASSERT_TRUE(c[0].state.inputs);
    folder = c[0].state.inputs->path();
    EXPECT_TRUE(std::filesystem::exists(folder));
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(ReduceShapeTransforms, ShrinkShapeKeepsVecRowsAtThirtyTwoBytes) {
  // S6: an FP32 row of 8 columns is 32 bytes; 4 columns would be 16. Rows may still halve.
  const ReduceState s = stateOf(kernel(16, 8,
                                       "        x = pl.tile.load(a, [0, 0], [16, 8])\n"
                                       "        o = pl.tile.store(x, [0, 0], out)\n"
                                       "        return o\n"));
  const Printed p = printedCandidates(Transform::ShrinkShape, s);
  ASSERT_FALSE(p.what.empty());
  EXPECT_EQ(p.what[0], "shrink-shape rows/2");
  EXPECT_FALSE(contains(p.what, "shrink-shape cols/2"));
  EXPECT_FALSE(contains(p.what, "shrink-shape rows/2 cols/2"));
  EXPECT_EQ(p.text[0], canonical(kernel(8, 8,
                                        "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
                                        "        o = pl.tile.store(x, [0, 0], out)\n"
                                        "        return o\n")));
}

TEST(ReduceShapeTransforms, ShrinkShapeMovesWindowsWithTheirParentsAndKeepsOffsetsAligned) {
  // A window at column 16 of a 32-column FP32 tile: halving columns moves it to column 8 (32
  // bytes, W16 holds) and it stays inside its parent (the slice shape halves too).
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        w = pl.tile.slice(x, [16, 16], [0, 16])\n"
      "        y = pl.tile.exp(w)\n"
      "        z = pl.tile.assemble(x, y, [0, 0])\n"
      "        o = pl.tile.store(z, [0, 0], out)\n"
      "        return o\n";
  const Printed p = printedCandidates(Transform::ShrinkShape, stateOf(kernel(16, 32, body)));
  ASSERT_GE(p.what.size(), 3u);
  EXPECT_EQ(p.what[2], "shrink-shape cols/2");
  EXPECT_EQ(p.text[2], canonical(kernel(16, 16,
                                        "        x = pl.tile.load(a, [0, 0], [16, 16])\n"
                                        "        w = pl.tile.slice(x, [16, 8], [0, 8])\n"
                                        "        y = pl.tile.exp(w)\n"
                                        "        z = pl.tile.assemble(x, y, [0, 0])\n"
                                        "        o = pl.tile.store(z, [0, 0], out)\n"
                                        "        return o\n")));
  // A window at column 8: halving would put it at column 4, 16 bytes: no column candidate.
  std::string at8 = body;
  at8.replace(at8.find("[16, 16], [0, 16]"), 17, "[16, 16], [0, 8]");
  const Printed q = printedCandidates(Transform::ShrinkShape, stateOf(kernel(16, 32, at8)));
  ASSERT_FALSE(q.what.empty());
  EXPECT_EQ(q.what[0], "shrink-shape rows/2");
  EXPECT_FALSE(contains(q.what, "shrink-shape cols/2"));
}

TEST(ReduceShapeTransforms, ShrinkValidHalvesOneConstantExtentEverywhereItIsWritten) {
  const ReduceState s = stateOf(kernel(16, 32,
                                       "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 8])\n"
                                       "        y = pl.tile.exp(x)\n"
                                       "        o = pl.tile.store(y, [0, 0], out)\n"
                                       "        return o\n"));
  const Printed p = printedCandidates(Transform::ShrinkValid, s);
  ASSERT_EQ(p.what.size(), 4u);
  EXPECT_EQ(p.what[0], "shrink-valid rows 12 -> 6");
  EXPECT_EQ(p.what[1], "shrink-valid rows 12 -> 1");
  EXPECT_EQ(p.what[2], "shrink-valid cols 8 -> 4");
  EXPECT_EQ(p.what[3], "shrink-valid cols 8 -> 1");
  EXPECT_EQ(p.text[0], canonical(kernel(16, 32,
                                        "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[6, 8])\n"
                                        "        y = pl.tile.exp(x)\n"
                                        "        o = pl.tile.store(y, [0, 0], out)\n"
                                        "        return o\n")));
  for (const Candidate& c : p.candidates) EXPECT_LT(measureState(c.state), measureState(s)) << c.what;
}

const std::string kBlocks =
    kHeader +
    "    def kernel(self, a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> "
    "pl.Tensor[[64, 32], pl.FP32]:\n"
    "        blk = pl.tile.get_block_idx()\n"
    "        nb = pl.tile.get_block_num()\n"
    "        row = blk * 16\n"
    "        x = pl.tile.load(a, [row, 0], [16, 32])\n"
    "        y = pl.tile.sqrt(x)\n"
    "        o = pl.tile.store(y, [row, 0], out)\n"
    "        return o\n";

TEST(ReduceShapeTransforms, DropBlocksRunsOneBlockWithItsIndexAsAConstant) {
  CaseSpec spec;
  spec.blockNum = 4;
  const ReduceState s = stateOf(kBlocks, spec);
  const Printed p = printedCandidates(Transform::DropBlocks, s);
  ASSERT_EQ(p.what.size(), 6u);
  EXPECT_EQ(p.what[0], "drop-blocks block 0 of 4 alone");
  EXPECT_EQ(p.what[2], "drop-blocks block 2 of 4 alone");
  EXPECT_EQ(p.what[4], "drop-blocks 1 block");
  EXPECT_EQ(p.what[5], "drop-blocks 2 blocks");
  std::string block2 = kBlocks;
  block2.replace(block2.find("pl.tile.get_block_idx()"), 23, "2");
  block2.replace(block2.find("pl.tile.get_block_num()"), 23, "4");
  EXPECT_EQ(p.text[2], canonical(block2));
  EXPECT_EQ(p.candidates[2].state.spec.blockNum, 1);
  EXPECT_EQ(p.text[4], canonical(kBlocks));  // block 0 alone, queries kept
  EXPECT_EQ(p.candidates[4].state.spec.blockNum, 1);
  EXPECT_EQ(p.candidates[5].state.spec.blockNum, 2);
  for (const Candidate& c : p.candidates) EXPECT_LT(measureState(c.state), measureState(s)) << c.what;
  // One block: nothing to drop.
  EXPECT_TRUE(candidatesOf(Transform::DropBlocks, stateOf(kBlocks)).empty());
}

TEST(ReduceShapeTransforms, ProgramSizeCountsBlocksThenElements) {
  const ReduceState s = stateOf(kernel(16, 32, kExp));
  const ProgramSize size = measureState(s);
  EXPECT_EQ(size.blocks, 1);
  // Tensors a and out, then tiles x and y (physical + valid each).
  EXPECT_EQ(size.elements, 2 * 16 * 32 + 2 * (16 * 32 + 16 * 32));
  ProgramSize fewerElements = size, fewerBlocks = size;
  fewerElements.elements -= 1;
  fewerBlocks.blocks -= 1;
  fewerBlocks.elements += 100;
  EXPECT_LT(fewerElements, size);
  EXPECT_LT(fewerBlocks, size);
}

}  // namespace
}  // namespace ptodiff::fuzz
