#include "compiler/ir/ResourceLimits.h"

#include <limits>

namespace ptodiff {

namespace {

ResourceLimits& activeLimits() {
  static ResourceLimits limits;
  return limits;
}

}  // namespace

const ResourceLimits& resourceLimits() { return activeLimits(); }

ScopedResourceLimits::ScopedResourceLimits(const ResourceLimits& limits) : previous_(activeLimits()) {
  activeLimits() = limits;
}

ScopedResourceLimits::~ScopedResourceLimits() { activeLimits() = previous_; }

int64_t checkedElements(int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) return -1;
  if (rows != 0 && cols > std::numeric_limits<int64_t>::max() / rows) return -1;
  return rows * cols;
}

std::string overLimit(const std::string& what, int64_t elements, int64_t elementBytes, int64_t maxElements,
                      int64_t maxBytes) {
  if (elements < 0 || elements > maxElements)
    return what + " has " + (elements < 0 ? std::string("too many") : std::to_string(elements)) +
           " elements, over the limit of " + std::to_string(maxElements) + " (expected a smaller shape)";
  const int64_t bytes = checkedElements(elements, elementBytes);
  if (bytes < 0 || bytes > maxBytes)
    return what + " takes " + (bytes < 0 ? std::string("too many") : std::to_string(bytes)) +
           " bytes, over the limit of " + std::to_string(maxBytes) + " (expected a smaller shape)";
  return {};
}

void requireWithinLimit(std::string_view file, SourceLoc loc, const std::string& what, int64_t elements,
                        int64_t elementBytes, int64_t maxElements, int64_t maxBytes) {
  std::string problem = overLimit(what, elements, elementBytes, maxElements, maxBytes);
  if (!problem.empty()) throwError(file, loc, std::move(problem));
}

}  // namespace ptodiff
