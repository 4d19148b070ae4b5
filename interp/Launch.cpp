#include "interp/Launch.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "compiler/ir/ResourceLimits.h"
#include "interp/ProgramFault.h"
#include "interp/Symbolic.h"

namespace ptodiff {

namespace {

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

/// A tensor argument checked against its parameter; written flags start clear (they describe
/// this run), an absent poison vector means "none".
Tensor checkedTensor(const std::string& file, const Param& p, const Tensor& given) {
  checkTensorArgument(file, p, given);
  const size_t n = static_cast<size_t>(given.elements());
  // Bits and poison only: the written flags and formulas describe this run, not the argument's.
  Tensor out;
  out.dtype = given.dtype;
  out.rows = given.rows;
  out.cols = given.cols;
  out.bytes = given.bytes;
  if (given.poison.empty())
    out.poison.assign(n, 0);
  else
    out.poison = given.poison;
  out.written.assign(n, 0);
  return out;
}

/// A scalar argument in the parameter's dtype. Integer parameters accept any integer value that
/// fits; FP32 and BOOL need their own dtype.
ScalarValue checkedScalar(const std::string& file, const Param& p, const ScalarValue& given) {
  const DType want = p.type.dtype;
  const bool givenInt = given.dtype == DType::INDEX || given.dtype == DType::INT64 || given.dtype == DType::INT32;
  if (want == DType::INDEX || want == DType::INT64 || want == DType::INT32) {
    if (givenInt) {
      const bool fits = want != DType::INT32 || (given.i >= std::numeric_limits<int32_t>::min() &&
                                                 given.i <= std::numeric_limits<int32_t>::max());
      if (!fits)
        throwError(file, p.loc, "scalar argument '" + p.name + "' = " + std::to_string(given.i) +
                                    " does not fit INT32; expected -2^31 <= value < 2^31");
      return ScalarValue{want, given.i, 0.0f};
    }
  } else if (given.dtype == want) {
    return given;
  }
  throwError(file, p.loc, "scalar argument '" + p.name + "' is " + std::string(dtypeName(given.dtype)) + "; expected " +
                              std::string(dtypeName(want)));
}

}  // namespace

std::string tensorTypeText(DType dt, int64_t rows, int64_t cols) {
  return std::string(dtypeName(dt)) + " " + pairText(rows, cols);
}

void checkTensorArgument(const std::string& file, const Param& p, const Tensor& given) {
  const Type& t = p.type;
  if (t.shape.size() != 2)
    throwError(file, p.loc, "tensor parameter '" + p.name + "' is not rank 2; expected a [rows, cols] tensor");
  if (given.dtype != t.dtype || given.rows != t.rows() || given.cols != t.cols())
    throwError(file, p.loc, "tensor argument '" + p.name + "' is " + tensorTypeText(given.dtype, given.rows, given.cols) +
                                "; expected " + tensorTypeText(t.dtype, t.rows(), t.cols()));
  const size_t n = static_cast<size_t>(given.elements());
  if (given.bytes.size() != n * static_cast<size_t>(given.esize()))
    throwError(file, p.loc, "tensor argument '" + p.name + "' holds " + std::to_string(given.bytes.size()) +
                                " bytes; expected " + std::to_string(n * static_cast<size_t>(given.esize())));
  if (!given.poison.empty() && given.poison.size() != n)
    throwError(file, p.loc, "tensor argument '" + p.name + "' has " + std::to_string(given.poison.size()) +
                                " poison flags; expected " + std::to_string(n));
}

Launch bindKernelArgs(const std::string& file, const Function& kernel, const KernelArgs& args, ExprPool* symbols) {
  for (const Param& p : kernel.params)
    if (p.slot < 0) throw std::logic_error("bindKernelArgs: parameter '" + p.name + "' has no slot (verify the program first)");
  Launch launch;
  for (const Param& p : kernel.params) {
    if (p.type.isTensor()) {
      auto it = args.tensors.find(p.name);
      if (it == args.tensors.end())
        throwError(file, p.loc, "missing tensor argument '" + p.name + "'; expected " +
                                    tensorTypeText(p.type.dtype, p.type.rows(), p.type.cols()));
      GmTensor t{p.name, checkedTensor(file, p, it->second), {}, symbols};
      if (symbols) {
        t.tensor.sym = symbols->inputs(p.name, t.tensor.dtype, t.tensor.rows, t.tensor.cols);
        for (size_t i = 0; i < t.tensor.sym.size(); ++i)
          if (t.tensor.poison[i]) t.tensor.sym[i] = ExprPool::kPoison;
      }
      launch.params.push_back(BoundParam{static_cast<int>(launch.gm.size()), {}});
      launch.gm.push_back(std::move(t));
    } else if (p.type.isScalar()) {
      auto it = args.scalars.find(p.name);
      if (it == args.scalars.end())
        throwError(file, p.loc, "missing scalar argument '" + p.name + "'; expected a " +
                                    std::string(dtypeName(p.type.dtype)) + " value");
      launch.params.push_back(BoundParam{-1, checkedScalar(file, p, it->second)});
    } else {
      throwError(file, p.loc, "parameter '" + p.name + "' is neither a tensor nor a scalar");
    }
  }
  return launch;
}

void checkBlockNum(const std::string& file, int64_t blockNum) {
  if (blockNum < 1 || blockNum > std::numeric_limits<int32_t>::max())
    throwError(file, {}, "block_num " + std::to_string(blockNum) + " is out of range; expected 1 <= block_num < 2^31");
  const int64_t limit = resourceLimits().maxBlockNum;
  if (blockNum > limit)
    throwError(file, {}, "block_num " + std::to_string(blockNum) + " is over the limit of " + std::to_string(limit) +
                             " blocks; expected a smaller block_num");
}

void requireGmWindow(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols) {
  const int64_t extent[2] = {rows, cols}, shape[2] = {gm.tensor.rows, gm.tensor.cols};
  const char* axisName[2] = {"rows", "columns"};
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t begin = off[static_cast<size_t>(axis)], end = begin + extent[axis];
    if (begin >= 0 && end <= shape[axis]) continue;
    std::string what = "window " + std::string(axisName[axis]) + " [" + std::to_string(begin) + ", " +
                       std::to_string(end) + ")";
    throw ProgramFault::invalid(what + (begin < 0 ? " start before 0" : " exceed tensor " + std::string(axisName[axis]) +
                                                                              " " + std::to_string(shape[axis])) +
                                " (tensor '" + gm.name + "')");
  }
}

namespace {

/// An element of the window that a block other than `block` wrote: its tensor position and writer.
struct ForeignWrite {
  int64_t r = 0, c = 0;
  int32_t writer = -1;
};

std::optional<ForeignWrite> firstForeignWrite(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows,
                                              int64_t cols, int64_t block) {
  if (gm.writer.empty()) return std::nullopt;  // no block has written the tensor yet
  const int64_t tensorCols = gm.tensor.cols;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int32_t writer = gm.writer[static_cast<size_t>((off[0] + r) * tensorCols + off[1] + c)];
      if (writer >= 0 && writer != block) return ForeignWrite{off[0] + r, off[1] + c, writer};
    }
  return std::nullopt;
}

}  // namespace

void checkGmReadRace(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols,
                     int64_t block, std::string_view op) {
  if (const std::optional<ForeignWrite> w = firstForeignWrite(gm, off, rows, cols, block))
    throw ProgramFault{RunStatus::Race,
                       std::string(op) + ": block " + std::to_string(block) + " reads " + gm.name + pairText(w->r, w->c) +
                           " written by block " + std::to_string(w->writer),
                       {}};
}

void checkGmWriteRace(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols,
                      int64_t block, std::string_view op) {
  if (const std::optional<ForeignWrite> w = firstForeignWrite(gm, off, rows, cols, block))
    throw ProgramFault{RunStatus::Race,
                       std::string(op) + ": " + gm.name + pairText(w->r, w->c) + " is written by block " +
                           std::to_string(w->writer) + " and by block " + std::to_string(block),
                       {}};
}

void readGmWindow(const GmTensor& gm, const std::array<int64_t, 2>& off, arith::MutElems bits, uint8_t* poison,
                  int64_t poisonStride) {
  if ((bits.sym != nullptr) != (gm.symbols != nullptr))
    throw std::logic_error("readGmWindow: a symbolic tensor into a numeric window, or the other way round");
  const int es = gm.tensor.esize();
  for (int64_t r = 0; r < bits.rows; ++r) {
    const int64_t g = (off[0] + r) * gm.tensor.cols + off[1];
    std::memcpy(bits.data + r * bits.rowStride * es, gm.tensor.bytes.data() + g * es, static_cast<size_t>(bits.cols * es));
    std::memcpy(poison + r * poisonStride, gm.tensor.poison.data() + g, static_cast<size_t>(bits.cols));
    if (bits.sym) std::copy_n(gm.tensor.sym.data() + g, bits.cols, bits.sym + r * bits.rowStride);
  }
}

GmStoreSummary writeGmWindow(GmTensor& gm, const std::array<int64_t, 2>& off, DType from, arith::ConstElems bits,
                             const uint8_t* poison, int64_t poisonStride, int64_t block) {
  const int64_t cols = gm.tensor.cols;
  const DType to = gm.tensor.dtype;
  if ((bits.sym != nullptr) != (gm.symbols != nullptr))
    throw std::logic_error("writeGmWindow: a numeric window into a symbolic tensor, or the other way round");
  const int64_t first = off[0] * cols + off[1];
  arith::MutElems dst{gm.tensor.bytes.data() + first * dtypeSize(to), bits.rows, bits.cols, cols,
                      gm.symbols ? gm.tensor.sym.data() + first : nullptr, gm.symbols};
  arith::convertKernel(from, to, bits, dst);
  if (gm.writer.empty()) gm.writer.assign(static_cast<size_t>(gm.tensor.elements()), -1);
  GmStoreSummary summary;
  const auto n = static_cast<size_t>(bits.cols);
  for (int64_t r = 0; r < bits.rows; ++r) {
    // Row by row in straight loops the compiler vectorizes; poison is counted only in a row that has some.
    const size_t g = static_cast<size_t>((off[0] + r) * cols + off[1]);
    const uint8_t* rowPoison = poison + r * poisonStride;
    uint8_t* tensorPoison = gm.tensor.poison.data() + g;
    uint8_t any = 0;
    for (size_t c = 0; c < n; ++c) {
      tensorPoison[c] = rowPoison[c] != 0 ? 1 : 0;
      any |= tensorPoison[c];
    }
    std::memset(gm.tensor.written.data() + g, 1, n);
    std::fill_n(gm.writer.data() + g, n, static_cast<int32_t>(block));
    if (!any) continue;
    for (size_t c = 0; c < n; ++c)
      if (rowPoison[c] != 0 && summary.poisoned++ == 0) summary.firstPoison = {off[0] + r, off[1] + static_cast<int64_t>(c)};
  }
  return summary;
}

void collectFinalTensors(std::vector<GmTensor>& gm, KernelArgs& out) {
  for (GmTensor& t : gm) out.tensors.emplace(t.name, std::move(t.tensor));
}

}  // namespace ptodiff
