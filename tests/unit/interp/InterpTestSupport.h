// Helpers for interpreter tests: compile a program text (parse + verify), build tensors, read
// results. Expected values in tests are computed with host arithmetic or by hand, never through
// interp/Arith.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"

namespace ptodiff::testing {

inline constexpr const char* kTestFile = "test.py";

/// Wraps a kernel signature and body (body lines indented by 8 spaces) into a program text.
inline std::string kernelProgram(const std::string& signature, const std::string& body) {
  return "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def kernel(self, " + signature + ":\n" + body;
}

inline Program compileProgram(const std::string& text) {
  Program p = parseProgramText(text, kTestFile);
  verifyOrThrow(p);
  return p;
}

inline RunResult runProgram(const Program& p, const KernelArgs& args, RunConfig config = {}) {
  const Function* kernel = p.defaultKernel();
  if (!kernel) throw std::logic_error("test program has no kernel");
  return runTileKernel(p, *kernel, args, config);
}

/// The 1-based line of the first line of `text` containing `needle` (0 if none).
inline uint32_t lineOf(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  uint32_t line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

inline Tensor bitsTensor(DType dt, int64_t rows, int64_t cols, const std::function<uint64_t(int64_t, int64_t)>& bits) {
  Tensor t(dt, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t.setBitsAt(r * cols + c, bits(r, c));
  return t;
}

inline Tensor fp32Tensor(int64_t rows, int64_t cols, const std::function<float(int64_t, int64_t)>& value) {
  return bitsTensor(DType::FP32, rows, cols,
                    [&](int64_t r, int64_t c) { return uint64_t{std::bit_cast<uint32_t>(value(r, c))}; });
}

/// An Out tensor as a case starts it: the dtype's sentinel everywhere, defined.
inline Tensor sentinelTensor(DType dt, int64_t rows, int64_t cols) {
  Tensor t(dt, rows, cols);
  t.fillBits(sentinelBits(dt));
  return t;
}

inline uint64_t bitsAt(const Tensor& t, int64_t r, int64_t c) { return t.bitsAt(r * t.cols + c); }
inline float f32At(const Tensor& t, int64_t r, int64_t c) {
  return std::bit_cast<float>(static_cast<uint32_t>(bitsAt(t, r, c)));
}
inline bool poisonAt(const Tensor& t, int64_t r, int64_t c) { return t.poison[static_cast<size_t>(r * t.cols + c)] != 0; }
inline bool writtenAt(const Tensor& t, int64_t r, int64_t c) { return t.written[static_cast<size_t>(r * t.cols + c)] != 0; }

/// A pleasant, exactly representable FP32 test value for element (r, c).
inline float smallValue(int64_t r, int64_t c, int salt = 0) {
  return static_cast<float>((r * 7 + c * 3 + salt * 5) % 23 - 11) * 0.25f;
}

}  // namespace ptodiff::testing
