// Robustness of the input paths (docs/robustness.md): over-large shapes, .npy files and case files
// end in `error:` and exit 2 before anything is allocated; hostile nesting is a parse error; a
// 10^9-trip loop ends with the step budget (`timeout`, exit 1) in `ptodiff interp` and `ptodiff run`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "compiler/ir/ResourceLimits.h"
#include "compiler/text/Parser.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"
#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::runPtodiff;
using testing::TempDir;
using testing::writeFileBytes;

/// A kernel returning `out` when `params` declares one (its body must end with `return out` or the stored value).
std::string kernelWith(const std::string& params, const std::string& body) {
  const bool hasOut = params.find("out: ") != std::string::npos;
  return "import pypto.language as pl\n\n\n@pl.program\nclass robust:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " +
         params + ")" + (hasOut ? " -> pl.Tensor[[16, 32], pl.FP32]" : "") + ":\n" + body;
}

// Copies 16 x 32 of `a` into `out`; `a`'s declared shape is the parameter under test.
std::string copyKernel(const std::string& aShape) {
  return kernelWith("a: pl.Tensor[" + aShape + ", pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        o = pl.tile.store(x, [0, 0], out)\n"
                    "        return o\n");
}

/// A .npy of format 1.0 with `dict` as its header and `payload` as data (padded as NumPy does).
std::string npyBytes(const std::string& dict, const std::string& payload) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  return out + header + payload;
}

const std::string kHugeShapeMessage =
    "tensor 'a' of shape [100000, 100000] has 10000000000 elements, over the limit of 67108864 "
    "(expected a smaller shape)";

TEST(RobustnessCli, OverLargeTensorShapeIsExit2InInterp) {
  TempDir dir;
  writeFileBytes(dir.file("big.py"), copyKernel("[100000, 100000]"));
  const Outcome o = runPtodiff(dir, "interp big.py");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("big.py:7:"));
  EXPECT_THAT(o.err, HasSubstr("error: " + kHugeShapeMessage));
}

TEST(RobustnessCli, OverLargeTensorShapeIsExit2InRun) {
  TempDir dir;
  writeFileBytes(dir.file("big.py"), copyKernel("[100000, 100000]"));
  const Outcome o = runPtodiff(dir, "run big.py");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("error: " + kHugeShapeMessage));
}

TEST(RobustnessCli, OverLargeTileShapeIsExit2) {
  TempDir dir;
  writeFileBytes(dir.file("tile.py"),
                 kernelWith("out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                            "        t = pl.tile.full([4096, 4096], dtype=pl.FP32, value=1.0)\n"
                            "        return out\n"));
  const Outcome o = runPtodiff(dir, "interp tile.py");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("tile.py:8:"));
  EXPECT_THAT(o.err, HasSubstr("error: the result of pl.tile.full of shape [4096, 4096] has 16777216 elements, over "
                               "the limit of 1048576 (expected a smaller shape)"));
}

TEST(RobustnessCli, OversizedNpyShapeIsRefusedBeforeReadingTheData) {
  TempDir dir;
  writeFileBytes(dir.file("k.py"), copyKernel("[16, 32]"));
  // The header claims 10^10 floats; the file holds 4 bytes: the limit fires before the length check.
  writeFileBytes(dir.file("a.npy"),
                 npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }", "\x01\x02\x03\x04"));
  const Outcome o = runPtodiff(dir, "interp k.py --input a=a.npy");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("a.npy: error: the .npy array of shape (100000, 100000) has 10000000000 elements, "
                               "over the limit of 67108864 (expected a smaller shape)"));
}

TEST(RobustnessCli, OversizedNpyHeaderIsAnError) {
  TempDir dir;
  writeFileBytes(dir.file("k.py"), copyKernel("[16, 32]"));
  writeFileBytes(dir.file("a.npy"), std::string("\x93NUMPY\x02\x00\x00\x00\x00\x40{}", 14));  // 1 GiB header
  const Outcome o = runPtodiff(dir, "interp k.py --input a=a.npy");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("a.npy: error: unsupported .npy header of 1073741824 bytes (expected at most 1048576)"));
}

TEST(RobustnessCli, BlockNumPastTheLimitIsAnError) {
  TempDir dir;
  writeFileBytes(dir.file("k.py"), copyKernel("[16, 32]"));
  writeFileBytes(dir.file("k.case.json"), "{\"block_num\": 2000000}\n");
  const Outcome o = runPtodiff(dir, "interp k.py");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("k.case.json:1:15: error: \"block_num\" 2000000 is over the limit of 1048576 blocks; "
                               "expected a smaller block count"));
  writeFileBytes(dir.file("plain.py"), copyKernel("[16, 32]"));
  const Outcome flag = runPtodiff(dir, "interp plain.py --block-num 2000000");
  EXPECT_EQ(flag.exitCode, 2) << flag.err;
  EXPECT_THAT(flag.err, HasSubstr("error: block_num 2000000 is over the limit of 1048576 blocks; expected a smaller "
                                  "block_num"));
}

TEST(RobustnessCli, DeepNestingIsExit2) {
  TempDir dir;
  std::string body;
  for (int i = 0; i < 100; ++i) body += std::string(8 + 4 * i, ' ') + "for i" + std::to_string(i) + " in pl.range(1):\n";
  body += std::string(8 + 4 * 100, ' ') + "pass\n        return out\n";
  writeFileBytes(dir.file("deep.py"), kernelWith("out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]", body));
  const Outcome o = runPtodiff(dir, "interp deep.py");
  EXPECT_EQ(o.exitCode, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("deep.py:72:"));
  EXPECT_THAT(o.err, HasSubstr("error: blocks nested too deeply: more than 64 levels of for/while/if bodies"));

  writeFileBytes(dir.file("parens.py"), kernelWith("x: pl.Scalar[pl.INDEX]", "        y = " + std::string(5000, '(') + "x" +
                                                                                  std::string(5000, ')') + "\n        return\n"));
  const Outcome parens = runPtodiff(dir, "interp parens.py --scalar x=1");
  EXPECT_EQ(parens.exitCode, 2) << parens.err;
  EXPECT_THAT(parens.err, HasSubstr("error: nested too deeply (more than 200 levels)"));
}

// A billion iterations: the verifier lets it through (below maxStaticTripCount), the step budget ends it.
const std::string kBillionLoop =
    kernelWith("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
               "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
               "        for i, (acc,) in pl.range(0, 1000000000, 1, init_values=(x,)):\n"
               "            nxt = pl.tile.add(acc, x)\n"
               "            r = pl.yield_(nxt)\n"
               "        o = pl.tile.store(r, [0, 0], out)\n"
               "        return o\n");

TEST(RobustnessCli, BillionTripLoopEndsWithTheStepBudgetInInterp) {
  TempDir dir;
  writeFileBytes(dir.file("loop.py"), kBillionLoop);
  const Outcome o = runPtodiff(dir, "interp loop.py --step-budget 100000");
  EXPECT_EQ(o.exitCode, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("status: timeout"));
  EXPECT_THAT(o.err, HasSubstr("loop.py:"));
  EXPECT_THAT(o.err, HasSubstr("100000"));
}

TEST(RobustnessCli, BillionTripLoopIsATimeoutVerdictInRun) {
  TempDir dir;
  writeFileBytes(dir.file("loop.py"), kBillionLoop);
  const Outcome o = runPtodiff(dir, "run loop.py --step-budget 100000");
  EXPECT_EQ(o.exitCode, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("timeout"));
  EXPECT_THAT(o.out + o.err, HasSubstr("100000"));
}

TEST(RobustnessLimits, CaseSetupChecksAnUnverifiedKernel) {
  // A kernel built in code never met the verifier: buildKernelArgs checks before allocating.
  Function kernel;
  kernel.name = "kernel";
  Param a;
  a.name = "a";
  a.type = Type::tensor({100000, 100000}, DType::FP32);
  kernel.params.push_back(a);
  try {
    buildKernelArgs(kernel, CaseSpec{}, ArgOverrides{});
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "tensor parameter \"a\" [100000, 100000] has 10000000000 elements, over the limit of 67108864 "
              "(expected a smaller shape)");
  }
}

TEST(RobustnessLimits, CaseSetupLimitsAllTensorsTogether) {
  ResourceLimits tight;
  tight.maxGmBytes = 3000;
  ScopedResourceLimits scope(tight);
  Function kernel;
  kernel.name = "kernel";
  for (const char* name : {"a", "b"}) {
    Param p;
    p.name = name;
    p.type = Type::tensor({16, 16}, DType::FP32);  // 1024 bytes each; the third passes 3000
    kernel.params.push_back(p);
  }
  Param c;
  c.name = "c";
  c.type = Type::tensor({16, 16}, DType::FP32);
  kernel.params.push_back(c);
  try {
    buildKernelArgs(kernel, CaseSpec{}, ArgOverrides{});
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "kernel \"kernel\": its tensor parameters up to \"c\" take 3072 bytes, over the limit of 3000 "
              "(expected smaller tensors)");
  }
}

TEST(RobustnessLimits, NpyBytesReaderMatchesTheFileReader) {
  const std::string good = npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }",
                                    std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8));
  const Tensor t = readNpyBytes(good, "mem.npy");
  EXPECT_EQ(t.dtype, DType::INT32);
  EXPECT_EQ(t.rows, 1);
  EXPECT_EQ(t.cols, 2);
  EXPECT_EQ(t.bitsAt(1), 2u);
  try {
    readNpyBytes(good.substr(0, good.size() - 1), "mem.npy");
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().file, "mem.npy");
    EXPECT_EQ(e.diagnostic().message, "truncated .npy data: shape (1, 2) needs 8 bytes but the file holds 7");
  }
}

TEST(RobustnessLimits, NpyShapeJustOverTheTightenedLimit) {
  ResourceLimits tight;
  tight.maxTensorElements = 3;
  ScopedResourceLimits scope(tight);
  const std::string four = npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", "abcd");
  try {
    readNpyBytes(four, "mem.npy");
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "the .npy array of shape (4,) has 4 elements, over the limit of 3 (expected a smaller shape)");
  }
  EXPECT_EQ(readNpyBytes(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", "abc"), "m").cols, 3);
}

}  // namespace
}  // namespace ptodiff
