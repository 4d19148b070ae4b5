#include <array>

#include "compiler/passes/Pass.h"

namespace ptodiff {

namespace {
constexpr std::array<std::string_view, 3> kPlannerNames = {"PYPTO", "DSA_RP", "PTOAS"};
}  // namespace

std::string_view plannerName(Planner p) { return kPlannerNames[static_cast<size_t>(p)]; }

std::optional<Planner> parsePlanner(std::string_view name) {
  for (size_t i = 0; i < kPlannerNames.size(); ++i)
    if (kPlannerNames[i] == name) return static_cast<Planner>(i);
  return std::nullopt;
}

}  // namespace ptodiff
