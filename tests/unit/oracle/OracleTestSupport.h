// Helpers for the oracle's tests: compile a kernel text, build tensors from host values, run the
// interpreter and the oracle on the same arguments. Expected values are computed by hand or with
// host arithmetic in the tests, never through interp/Arith.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <bit>
#include <cstdint>
#include <functional>
#include <string>

#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"
#include "oracle/Oracle.h"

namespace ptodiff::oracle::testing {

/// Wraps a kernel signature and body (body lines indented by 8 spaces) into a program text.
inline std::string kernelProgram(const std::string& signature, const std::string& body) {
  return "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def kernel(self, " + signature + ":\n" + body;
}

inline Program compileProgram(const std::string& text) {
  Program p = parseProgramText(text, "test.py");
  verifyOrThrow(p);
  return p;
}

inline Tensor bitsTensor(DType dt, int64_t rows, int64_t cols, const std::function<uint64_t(int64_t, int64_t)>& bits) {
  Tensor t(dt, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t.setBitsAt(r * cols + c, bits(r, c));
  return t;
}

inline uint64_t fp32Bits(float v) { return std::bit_cast<uint32_t>(v); }
inline uint64_t fp16Bits(float v) { return Eigen::numext::bit_cast<uint16_t>(Eigen::half(v)); }

inline Tensor fp32Tensor(int64_t rows, int64_t cols, const std::function<float(int64_t, int64_t)>& value) {
  return bitsTensor(DType::FP32, rows, cols, [&](int64_t r, int64_t c) { return fp32Bits(value(r, c)); });
}
inline Tensor fp16Tensor(int64_t rows, int64_t cols, const std::function<float(int64_t, int64_t)>& value) {
  return bitsTensor(DType::FP16, rows, cols, [&](int64_t r, int64_t c) { return fp16Bits(value(r, c)); });
}
inline Tensor sentinelTensor(DType dt, int64_t rows, int64_t cols) {
  Tensor t(dt, rows, cols);
  t.fillBits(sentinelBits(dt));
  return t;
}

inline float f32At(const Tensor& t, int64_t r, int64_t c) {
  return std::bit_cast<float>(static_cast<uint32_t>(t.bitsAt(r * t.cols + c)));
}

/// A pleasant, exactly representable value for element (r, c).
inline float smallValue(int64_t r, int64_t c, int salt = 0) {
  return static_cast<float>((r * 7 + c * 3 + salt * 5) % 23 - 11) * 0.25f;
}

/// Runs the interpreter and the oracle (cpu profile unless given) on the same arguments.
struct BothRuns {
  RunResult run;
  OracleResult oracle;
};
inline BothRuns runBoth(const Program& p, const KernelArgs& args, RunConfig config = {},
                        const ToleranceProfile& profile = cpuProfile()) {
  const Function* kernel = p.defaultKernel();
  if (!kernel) throw std::logic_error("test program has no kernel");
  return {runTileKernel(p, *kernel, args, config), evaluateOracle(p, *kernel, args, config, profile)};
}

}  // namespace ptodiff::oracle::testing
