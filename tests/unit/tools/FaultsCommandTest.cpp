// `ptodiff faults [--json]` (docs/cli.md): the catalogue as ci/qualify reads it. Every fault of the
// compiled-in catalogue (compiler/faults/Faults.cpp) must appear, once, with its pass, bug class
// and sentence, so a fault added to the catalogue is qualified without editing any script.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/faults/Faults.h"
#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::runPtodiff;
using testing::TempDir;

TEST(FaultsCommand, JsonListsEveryCatalogueFaultOnceInCatalogueOrder) {
  TempDir dir;
  const Outcome o = runPtodiff(dir, "faults --json");
  ASSERT_EQ(o.exitCode, 0) << o.err;
  EXPECT_EQ(o.err, "");
  const nlohmann::json list = nlohmann::json::parse(o.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(list.is_discarded()) << o.out;
  ASSERT_TRUE(list.is_array());
  const auto& catalogue = faultCatalogue();
  ASSERT_EQ(list.size(), catalogue.size());
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& f = list[i];
    ASSERT_TRUE(f.is_object());
    EXPECT_EQ(f.size(), 4u) << f.dump();
    EXPECT_EQ(f.at("name"), std::string(catalogue[i].name));
    EXPECT_EQ(f.at("pass"), std::string(catalogue[i].pass));
    EXPECT_EQ(f.at("bug_class"), std::string(catalogue[i].bugClass));
    EXPECT_EQ(f.at("what"), std::string(catalogue[i].what));
    EXPECT_TRUE(names.insert(f.at("name").get<std::string>()).second) << "duplicate " << f.at("name");
    // Every listed name is one --inject-fault accepts.
    EXPECT_TRUE(parseFault(f.at("name").get<std::string>()).has_value()) << f.at("name");
  }
}

TEST(FaultsCommand, TextListsEveryFaultWithItsPassAndBugClass) {
  TempDir dir;
  const Outcome o = runPtodiff(dir, "faults");
  ASSERT_EQ(o.exitCode, 0) << o.err;
  for (const FaultInfo& f : faultCatalogue()) {
    EXPECT_THAT(o.out, HasSubstr(std::string(f.name) + "\n  pass:      " + std::string(f.pass) + "\n"));
    EXPECT_THAT(o.out, HasSubstr("  bug class: " + std::string(f.bugClass) + "\n"));
  }
  EXPECT_THAT(o.out, HasSubstr(std::to_string(faultCatalogue().size()) + " faults; inject one with --inject-fault"));
}

TEST(FaultsCommand, CatalogueNamesAreUniqueAndEveryFaultHasItsEntry) {
  std::set<std::string> names;
  for (const FaultInfo& f : faultCatalogue()) {
    EXPECT_TRUE(names.insert(std::string(f.name)).second) << f.name;
    EXPECT_EQ(&faultInfo(f.fault), &f) << f.name;  // one entry per enumerator
    EXPECT_FALSE(f.pass.empty() || f.bugClass.empty() || f.what.empty()) << f.name;
  }
}

TEST(FaultsCommand, UnknownOptionIsAUsageError) {
  TempDir dir;
  const Outcome o = runPtodiff(dir, "faults --yaml");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("ptodiff: error: The following argument was not expected: --yaml"));
}

}  // namespace
}  // namespace ptodiff
