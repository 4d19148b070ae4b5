// Input tensors of a reduced case. Shrinking a tensor parameter's shape must keep the elements
// that survive (a failure may hang on one input value), whatever the case said about them: a
// reproducer's .npy file, or a seeded uniform fill whose values would all move with the shape.
// So the reducer materialises the current inputs, cuts the top-left rectangle of the new shape
// and points the case at a .npy file of its own.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "interp/Tensor.h"

namespace ptodiff::fuzz {

struct ReduceState;

/// A scratch folder for cut inputs, removed with the last ReduceState that shares it. Files are
/// named by their content, so equal tensors share one file and a file never changes once written.
class InputFolder {
 public:
  InputFolder();
  ~InputFolder();
  InputFolder(const InputFolder&) = delete;
  InputFolder& operator=(const InputFolder&) = delete;

  /// Writes `t` as NAME-HASH.npy (unless that file exists) and returns its absolute path.
  std::string write(const std::string& name, const Tensor& t);
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::mutex mutex_;
};

/// The top-left `rows` x `cols` rectangle of `t` (both at most t's).
Tensor topLeft(const Tensor& t, int64_t rows, int64_t cols);

/// Makes `next`'s case give every kernel tensor whose shape differs from `current`'s the top-left
/// rectangle of the tensor `current` starts with (written to the shared InputFolder). Out tensors
/// left to their sentinel default, and zeros/sentinel inits, need no file. False when `current`'s
/// inputs cannot be built or a shape grew (the candidate is then dropped).
bool cutInputs(const ReduceState& current, ReduceState& next);

}  // namespace ptodiff::fuzz
