// Resource limits on untrusted input: the sizes a program, a case file or an .npy file may ask for
// before ptodiff allocates anything for them. Input past a limit is bad input (`error: ...`, exit 2),
// never an out-of-memory kill or a stack overflow.
//
// The defaults are generous for real kernels (on-chip buffers are at most a few hundred KiB, GM
// tensors of real launches a few MiB) and small enough that several limit-sized objects still fit
// into the memory of a small machine. One process-wide set is active; tools and tests may replace
// it (ScopedResourceLimits), e.g. the fuzz targets tighten it to keep every input fast.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

struct ResourceLimits {
  // ---- program text (parser) ----
  int64_t maxProgramBytes = int64_t{16} << 20;   // 16 MiB of program text
  int64_t maxStatements = int64_t{1} << 20;      // statements over the whole program
  int64_t maxNestingDepth = 64;                  // nested for/while/if bodies in one function
  int64_t maxExprDepth = 200;                    // nested parentheses, unary operators, calls and lists

  // ---- shapes (verifier, case setup, .npy reader) ----
  int64_t maxTensorElements = int64_t{1} << 26;  // elements of one GM tensor (rows * cols)
  int64_t maxTensorBytes = int64_t{1} << 28;     // bytes of one GM tensor (256 MiB)
  int64_t maxGmBytes = int64_t{1} << 30;         // bytes of all GM tensors of one kernel (1 GiB)
  int64_t maxTileElements = int64_t{1} << 20;    // elements of one tile or buffer (rows * cols)
  int64_t maxTileBytes = int64_t{1} << 22;       // bytes of one tile or buffer (4 MiB)
  /// Bytes of all tile-typed values one function binds: the value interpreter may hold each of
  /// them at once.
  int64_t maxFrameTileBytes = int64_t{1} << 30;
  int64_t maxStorageBytes = int64_t{1} << 24;    // a storage root's `size` or a MemRef's size (16 MiB)

  // ---- launches and loops ----
  int64_t maxBlockNum = int64_t{1} << 20;        // blocks of one launch (checkBlockNum accepts < 2^31)
  /// Trip count of a loop whose bounds are literals. Above 10^9 on purpose: a long loop ends with
  /// the interpreters' step budget (`timeout`), only an absurd one is refused up front.
  int64_t maxStaticTripCount = (int64_t{1} << 31) - 1;

  // ---- other input files ----
  int64_t maxCaseFileBytes = int64_t{1} << 20;   // a case file (1 MiB)
  int64_t maxNpyHeaderBytes = int64_t{1} << 20;  // an .npy header dict (NumPy writes < 10 KB)
};

/// The active limits (the defaults above unless replaced).
const ResourceLimits& resourceLimits();

/// Replaces the active limits for this object's lifetime (not thread-safe: set them before
/// starting threads).
class ScopedResourceLimits {
 public:
  explicit ScopedResourceLimits(const ResourceLimits& limits);
  ~ScopedResourceLimits();
  ScopedResourceLimits(const ScopedResourceLimits&) = delete;
  ScopedResourceLimits& operator=(const ScopedResourceLimits&) = delete;

 private:
  ResourceLimits previous_;
};

/// rows * cols, or -1 when either is negative or the product overflows int64.
int64_t checkedElements(int64_t rows, int64_t cols);

/// What is wrong when `what` with `elements` elements of `elementBytes` bytes each exceeds
/// `maxElements` or `maxBytes` ("WHAT has N elements, over the limit of M ..."); empty when it fits.
/// `elements` < 0 means an overflowing product (always too large).
std::string overLimit(const std::string& what, int64_t elements, int64_t elementBytes, int64_t maxElements,
                      int64_t maxBytes);

/// `what` (e.g. "tensor parameter 'a' of shape [8, 8]") with `elements` elements of `elementBytes`
/// bytes each: throws DiagnosticError at (file, loc) when it exceeds `maxElements` or `maxBytes`,
/// naming the limit. `elements` < 0 means an overflowing product (always too large).
void requireWithinLimit(std::string_view file, SourceLoc loc, const std::string& what, int64_t elements,
                        int64_t elementBytes, int64_t maxElements, int64_t maxBytes);

}  // namespace ptodiff
