// Launch plumbing shared by the interpreters (internal to interp/): binding a kernel's parameters
// to checked arguments, GM tensors with their per-element writer maps, and the GM checks every
// interpreter makes the same way (window bounds, races) — so a Tile run and a Buffer run of one
// case report GM faults with the same words.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/IR.h"
#include "interp/Arith.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

/// A GM tensor parameter during a launch, with the block that last wrote each element.
struct GmTensor {
  std::string name;
  Tensor tensor;
  /// -1: not written by any block of this launch. Empty until the first store, so a tensor the
  /// launch only reads (every In tensor) costs no map and no race scan.
  std::vector<int32_t> writer;
  ExprPool* symbols = nullptr;  // a symbolic run's pool: tensor.sym holds every element's formula
};

/// A kernel parameter's launch value: a GM tensor (an index into Launch::gm) or a scalar.
struct BoundParam {
  int tensorIndex = -1;  // >= 0: a tensor parameter
  ScalarValue scalar;    // a scalar parameter (when tensorIndex < 0)
};

/// The arguments of one launch, checked against the kernel's parameters.
struct Launch {
  std::vector<GmTensor> gm;
  std::vector<BoundParam> params;  // one per kernel parameter, in order
};

/// Checks `args` against `kernel`'s parameters: every tensor is rank 2 with the parameter's
/// dtype and shape (its written flags start clear: they describe this run; absent poison flags
/// mean "none"), every scalar fits its parameter's dtype (integer parameters take any integer
/// that fits; FP32 and BOOL need their own dtype). Throws DiagnosticError located at the
/// parameter for a missing or mistyped argument; unknown argument names are ignored.
/// With `symbols` (a symbolic run) every tensor element starts as its own input symbol
/// (NAME[r, c]), poison elements as poison.
Launch bindKernelArgs(const std::string& file, const Function& kernel, const KernelArgs& args,
                      ExprPool* symbols = nullptr);

/// A tensor argument against its parameter, as bindKernelArgs checks it (the oracle binds the
/// same arguments): rank 2, the parameter's dtype and shape, one byte string per element and, when
/// given, one poison flag per element. Throws DiagnosticError located at the parameter.
void checkTensorArgument(const std::string& file, const Param& p, const Tensor& given);
/// "FP32 [16, 32]": a tensor's dtype and shape in messages.
std::string tensorTypeText(DType dt, int64_t rows, int64_t cols);

/// block_num must be in [1, 2^31); throws DiagnosticError otherwise.
void checkBlockNum(const std::string& file, int64_t blockNum);

/// `0 <= off` and `off + extent <= shape` on both axes of the tensor, else
/// ProgramFault::invalid naming the axis and the tensor.
void requireGmWindow(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols);

/// A read of the window by `block` after another block wrote an element of it: ProgramFault Race
/// ("OP: block B reads NAME[r, c] written by block W").
void checkGmReadRace(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols,
                     int64_t block, std::string_view op);
/// A write of the window by `block` where another block wrote an element: ProgramFault Race
/// ("OP: NAME[r, c] is written by block W and by block B").
void checkGmWriteRace(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols,
                      int64_t block, std::string_view op);

/// Copies the rows x cols window of `gm` at `off` (bits unchanged, transfers copy bits) into
/// `bits` (the tensor's dtype) and `poison` (row-major, `poisonStride` flags per row).
/// Precondition: the window lies inside the tensor (requireGmWindow).
void readGmWindow(const GmTensor& gm, const std::array<int64_t, 2>& off, arith::MutElems bits, uint8_t* poison,
                  int64_t poisonStride);

/// What a GM store wrote: how many poison elements, and the tensor position of the first one.
struct GmStoreSummary {
  int64_t poisoned = 0;
  std::array<int64_t, 2> firstPoison{-1, -1};
};

/// Writes the window `bits` (dtype `from`; converted once where the tensor's dtype differs — an
/// Acc FP32 source into an FP16/BF16 tensor) with its poison flags (row-major, `poisonStride`
/// flags per row) into `gm` at `off`, marking every element written by `block`. Precondition:
/// the window lies inside the tensor and races were checked.
GmStoreSummary writeGmWindow(GmTensor& gm, const std::array<int64_t, 2>& off, DType from, arith::ConstElems bits,
                             const uint8_t* poison, int64_t poisonStride, int64_t block);

/// The final contents of every GM tensor, moved into `out` by name.
void collectFinalTensors(std::vector<GmTensor>& gm, KernelArgs& out);

}  // namespace ptodiff
