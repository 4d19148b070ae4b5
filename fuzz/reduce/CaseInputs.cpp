#include "fuzz/reduce/CaseInputs.h"

#include <stdlib.h>

#include <stdexcept>
#include <string_view>
#include <system_error>

#include "fuzz/campaign/Digest.h"
#include "fuzz/reduce/Transforms.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"

namespace ptodiff::fuzz {

namespace fs = std::filesystem;

InputFolder::InputFolder() {
  std::string pattern = (fs::temp_directory_path() / "ptodiff-reduce-inputs-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a folder for reduced inputs in " +
                                                         fs::temp_directory_path().string());
  dir_ = pattern;
}

InputFolder::~InputFolder() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string InputFolder::write(const std::string& name, const Tensor& t) {
  uint64_t hash = fnv1a(std::string_view(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()));
  hash = fnv1a(std::to_string(t.rows) + "x" + std::to_string(t.cols) + std::string(dtypeName(t.dtype)), hash);
  const fs::path file = dir_ / (name + "-" + hex64(hash) + ".npy");
  std::lock_guard<std::mutex> lock(mutex_);
  if (!fs::exists(file)) {
    const fs::path temp = file.string() + ".tmp";
    writeNpy(temp.string(), t);
    fs::rename(temp, file);
  }
  return file.string();
}

Tensor topLeft(const Tensor& t, int64_t rows, int64_t cols) {
  Tensor out(t.dtype, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t from = r * t.cols + c, to = r * cols + c;
      out.setBitsAt(to, t.bitsAt(from));
      out.poison[static_cast<size_t>(to)] = t.poison[static_cast<size_t>(from)];
    }
  return out;
}

namespace {

const Function* kernelOf(const ReduceState& s) {
  return s.spec.function.empty() ? s.program.defaultKernel() : s.program.findFunction(s.spec.function);
}

const Param* paramNamed(const Function& f, const std::string& name) {
  for (const Param& p : f.params)
    if (p.name == name) return &p;
  return nullptr;
}

/// Whether the tensor's initial contents depend on its shape beyond being cut: files and seeded
/// fills do; zeros and sentinels (and an Out tensor's default sentinel) do not.
bool needsFile(const Param& p, const CaseSpec& spec) {
  const auto it = spec.tensors.find(p.name);
  if (it == spec.tensors.end()) return p.direction != ParamDirection::Out;
  return it->second.kind != TensorInit::Kind::Zeros && it->second.kind != TensorInit::Kind::Sentinel;
}

}  // namespace

bool cutInputs(const ReduceState& current, ReduceState& next) {
  const Function* before = kernelOf(current);
  const Function* after = kernelOf(next);
  if (!before || !after) return false;
  KernelArgs args;
  bool built = false;
  for (const Param& p : after->params) {
    if (!p.type.isTensor() || p.type.shape.size() != 2) continue;
    const Param* old = paramNamed(*before, p.name);
    if (!old || old->type.shape == p.type.shape || !needsFile(*old, current.spec)) continue;
    if (p.type.rows() > old->type.rows() || p.type.cols() > old->type.cols()) return false;
    if (!built) {
      try {
        args = buildKernelArgs(*before, current.spec, {});
      } catch (const std::exception&) {
        return false;
      }
      built = true;
    }
    const auto it = args.tensors.find(p.name);
    if (it == args.tensors.end()) return false;
    if (!next.inputs) next.inputs = std::make_shared<InputFolder>();
    TensorInit init;
    init.kind = TensorInit::Kind::File;
    init.file = next.inputs->write(p.name, topLeft(it->second, p.type.rows(), p.type.cols()));
    next.spec.tensors[p.name] = init;
  }
  return true;
}

}  // namespace ptodiff::fuzz
