// Test entry point shared by every test executable.
//
// Property-test case counts come from one variable, PTODIFF_PROPERTY_CASES (small in CI, large in
// ci/nightly). RapidCheck reads RC_PARAMS on first use, so it is set before any test runs unless
// the user set RC_PARAMS explicitly (e.g. to replay a `reproduce=` string). max_size stays at 100:
// Debian's RapidCheck snapshot has a shift-exponent UB in its bit stream above size 100.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (std::getenv("RC_PARAMS") == nullptr) {
    const char* cases = std::getenv("PTODIFF_PROPERTY_CASES");
    std::string params = "max_size=100 max_success=" + std::string(cases ? cases : "100");
    setenv("RC_PARAMS", params.c_str(), 1);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
