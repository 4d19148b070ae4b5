// libFuzzer target: case JSON -> parseCaseFile -> buildKernelArgs against a fixed kernel with
// tensor and scalar parameters of every kind, so the case's inits, scalars and block_num are all
// typed and applied. `file` inits are dropped (the fuzzer must not read the machine's files).
#include <cstddef>
#include <cstdint>

#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Launch.h"
#include "tools/fuzz-targets/FuzzTargetSupport.h"

namespace {

constexpr const char* kKernelText = R"(import pypto.language as pl


@pl.program
class case_target:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.InOut[pl.Tensor[[8, 16], pl.FP16]],
               c: pl.Tensor[[4, 32], pl.INT8],
               n: pl.Scalar[pl.INDEX],
               k: pl.Scalar[pl.INT32],
               f: pl.Scalar[pl.FP32],
               flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        o = pl.tile.store(x, [0, 0], out)
        return o
)";

const ptodiff::Program& kernelProgram() {
  static ptodiff::Program program = [] {
    ptodiff::Program p = ptodiff::parseProgramText(kKernelText, "case_target.py");
    ptodiff::verifyOrThrow(p);
    return p;
  }();
  return program;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptodiff;
  fuzztarget::installFuzzLimits();
  const Program& program = kernelProgram();
  try {
    const SourceFile source{"fuzz.case.json", fuzztarget::inputText(data, size)};
    CaseSpec spec = parseCaseFile(source);
    std::erase_if(spec.tensors, [](const auto& entry) { return entry.second.kind == TensorInit::Kind::File; });
    checkBlockNum(source.name, spec.blockNum);
    (void)buildKernelArgs(*program.defaultKernel(), spec, ArgOverrides{});
  } catch (const DiagnosticError&) {
    // bad case file: expected
  }
  return 0;
}
