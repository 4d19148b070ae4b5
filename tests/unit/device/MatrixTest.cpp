// Matrix mode: one compiled program, several runtime-scalar sets as sub-cases (seed 000's system
// tests: counts 0-3, both branch arms, empty/partial/full valid extents).
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/verify/Verifier.h"
#include "device/Bundle.h"
#include "device/ScalarMatrix.h"
#include "device/Sources.h"
#include "fuzz/gen/ProgramGen.h"
#include "interp/Npy.h"
#include "tests/unit/device/DeviceTestSupport.h"

namespace ptodiff::device {
namespace {

using ::testing::ElementsAre;
using ptodiff::testing::TempDir;

std::string setText(const ScalarSet& s) {
  std::string out;
  for (const auto& [name, value] : s.scalars) out += (out.empty() ? "" : " ") + describeScalar(name, value);
  return out;
}

TEST(DeviceMatrix, DerivesLoopCountsBranchArmsAndValidExtents) {
  TempDir dir;
  ExportCase c = ptodiff::testing::matrixCase(dir);
  verifyOrThrow(c.program);
  const std::vector<ScalarSet> sets = deriveScalarSets(*c.program.findFunction("kernel"), c.spec.scalars);
  std::vector<std::string> texts;
  for (const ScalarSet& s : sets) texts.push_back(setText(s));
  // The case's set first, then the candidates zipped: n over 0..3 (loop count), f over both arms,
  // vr over 0, 8, 16 (empty, partial, full valid rows of the 16-row tile).
  EXPECT_THAT(texts, ElementsAre("f=true n=2 vr=16", "f=false n=0 vr=0", "f=true n=1 vr=8", "f=false n=2 vr=16",
                                 "f=true n=3 vr=0"));
  EXPECT_THAT(sets[1].covers, ElementsAre("f=false (branch)", "n=0 (loop count)", "vr=0 (valid extent)"));
  EXPECT_THAT(sets[0].covers, ElementsAre("f=true (case)", "n=2 (case)", "vr=16 (case)"));
}

TEST(DeviceMatrix, AScalarTheCaseLacksTakesItsFirstCandidate) {
  TempDir dir;
  ExportCase c = ptodiff::testing::matrixCase(dir);
  verifyOrThrow(c.program);
  const std::vector<ScalarSet> sets = deriveScalarSets(*c.program.findFunction("kernel"), {}, 3);
  ASSERT_EQ(sets.size(), 3u);  // maxSets caps the matrix
  EXPECT_EQ(setText(sets[0]), "f=false n=0 vr=0");
  EXPECT_EQ(setText(sets[1]), "f=true n=1 vr=8");
}

TEST(DeviceMatrix, ExportedSubcasesDifferInWhatTheProgramWrites) {
  TempDir dir;
  const ExportCase c = ptodiff::testing::matrixCase(dir);
  ExportOptions o;
  o.profile = *oracle::builtinProfile("a2a3");
  const ExportOutcome r = exportBundle(dir.path() / "bundles" / "matrix", c, o);
  ASSERT_TRUE(r.written) << r.skipped;
  EXPECT_EQ(r.subcases, 5u);
  EXPECT_EQ(r.dropped, 0u);
  const Manifest m = readManifest(dir.path() / "bundles" / "matrix");
  ASSERT_EQ(m.subcases.size(), 5u);
  EXPECT_EQ(m.subcases[1].name, "s1");
  EXPECT_EQ(m.subcases[1].scalars.at("n").i, 0);
  EXPECT_FALSE(m.subcases[1].scalars.at("f").b);
  // Rows written per sub-case: 16 per loop trip (rows 0..47), the branch's 16 at 64, vr rows at 96.
  const int64_t expectedRows[] = {2 * 16 + 16 + 16, 0 + 16 + 0, 16 + 16 + 8, 2 * 16 + 16 + 16, 3 * 16 + 16 + 0};
  for (size_t s = 0; s < m.subcases.size(); ++s) {
    const Tensor mask = readNpy((dir.path() / "bundles" / "matrix" / subcasePath("written", m.subcases[s].name, "out")).string());
    ASSERT_EQ(mask.dtype, DType::BOOL);
    int64_t written = 0;
    for (int64_t i = 0; i < mask.elements(); ++i) written += mask.bitsAt(i) != 0;
    EXPECT_EQ(written, expectedRows[s] * 32) << m.subcases[s].name;
    for (int64_t i = 48 * 32; i < 64 * 32; ++i) ASSERT_EQ(mask.bitsAt(i), 0u) << "the sentinel band is never written";
    for (int64_t i = 80 * 32; i < 96 * 32; ++i) ASSERT_EQ(mask.bitsAt(i), 0u) << "the sentinel band is never written";
  }
}

TEST(DeviceMatrix, NoMatrixKeepsOnlyTheCaseSet) {
  TempDir dir;
  const ExportCase c = ptodiff::testing::matrixCase(dir);
  ExportOptions o;
  o.profile = *oracle::builtinProfile("a2a3");
  o.matrix = false;
  const ExportOutcome r = exportBundle(dir.path() / "b", c, o);
  ASSERT_TRUE(r.written);
  EXPECT_EQ(r.subcases, 1u);
}

TEST(DeviceMatrix, GeneratedCasesBringTheGeneratorsFourSets) {
  int withScalars = 0;
  for (uint64_t index = 0; index < 8; ++index) {
    const auto [name, c] = generatedCase(5, index);
    EXPECT_EQ(name, "gen-5-000" + std::to_string(index));
    EXPECT_EQ(c.origin["case_seed"].get<uint64_t>(), fuzz::caseSeed(5, index));
    const Function* k = c.program.findFunction("kernel");
    ASSERT_NE(k, nullptr);
    const bool scalars = std::any_of(k->params.begin(), k->params.end(), [](const Param& p) { return p.type.isScalar(); });
    // A kernel without runtime scalars has one (empty) set: one compiled path.
    EXPECT_EQ(c.sets.size(), scalars ? static_cast<size_t>(kGeneratedScalarSets) : 1u) << name;
    withScalars += scalars;
  }
  EXPECT_GT(withScalars, 0);
}

}  // namespace
}  // namespace ptodiff::device
