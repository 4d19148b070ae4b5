// Builds a kernel's arguments from a case: tensor initialisation (file, uniform, normal, iota,
// zeros, sentinel) with ptodiff's own deterministic random generator and float mapping, scalar
// arguments typed against the parameters, and command-line overrides.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"
#include "interp/Tensor.h"

namespace ptodiff {

struct ArgOverrides {
  std::map<std::string, std::string> inputFiles;  // --input NAME=FILE.npy
  std::map<std::string, std::string> scalars;     // --scalar NAME=VALUE (text, typed here)
  /// Tensors already built for a spec with the same tensor arguments (sameTensorArguments), copied
  /// instead of generated again: a campaign case's scalar sets share their inputs.
  const std::map<std::string, Tensor>* builtTensors = nullptr;
};

/// Whether two specs give every tensor parameter the same contents: the same function, seed and
/// tensor entries (the scalar sets of one campaign case differ in their scalars only).
bool sameTensorArguments(const CaseSpec& a, const CaseSpec& b);

/// Defaults: In/InOut tensors uniform in [-1, 1] with a seed derived from (case seed, name);
/// Out tensors sentinel. Every scalar parameter must get a value (case or override); a missing,
/// unknown or mistyped argument, or a file whose dtype/shape differs from the parameter, throws
/// DiagnosticError naming the argument and what was expected.
KernelArgs buildKernelArgs(const Function& kernel, const CaseSpec& spec, const ArgOverrides& overrides);

}  // namespace ptodiff
