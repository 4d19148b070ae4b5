// The case file (docs/text-format.md, "The case file"): which function runs, the target and
// planners, scalar arguments, how each tensor is initialised, the launch's block count and seed.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

struct TensorInit {
  enum class Kind : uint8_t { File, Uniform, Normal, Iota, Zeros, Sentinel };
  Kind kind = Kind::Uniform;
  std::string file;  // Kind::File: path as resolved against the case file's folder
  double low = -1.0, high = 1.0;  // Uniform
  double mean = 0.0, stddev = 1.0;  // Normal
  std::optional<uint64_t> seed;  // Uniform/Normal; absent: derived from the case seed and tensor name
  SourceLoc loc;  // where the tensor's entry is in the case file (unknown for built specs)
};

/// A scalar argument as written in JSON: integer, float or bool (typed against the parameter later).
struct CaseScalar {
  enum class Kind : uint8_t { Int, Float, Bool };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  SourceLoc loc;  // where the value is in the case file (unknown for built specs)
};

struct CaseSpec {
  std::string function;  // empty: the program's default kernel
  std::string target = "a2a3";
  std::vector<std::string> planners = {"PYPTO", "DSA_RP", "PTOAS"};
  std::map<std::string, CaseScalar> scalars;
  std::map<std::string, TensorInit> tensors;  // tensors absent here take their defaults
  int64_t blockNum = 1;
  uint64_t seed = 0;
  /// A catalogue fault the lowering injects for this case (compiler/faults, `"inject_fault"`); empty:
  /// none. Part of the case so a reproducer found under a fault replays under it.
  std::string injectFault;
  /// spec/fuzz.md property 1: whether the kernel must reach the Buffer path when buffer IR is on (the
  /// generator's contract verdict, `"expect_buffer_path"`); unset: either outcome is accepted.
  std::optional<bool> expectBufferPath;
  /// Issue 11's symbolic equivalence on this case (`"symbolic"`): every run also carries formulas
  /// and each lowered run's outputs must equal the Tile run's formula for formula. Campaigns set it
  /// on the cases they sample (`--symbolic-every`), so a reproducer replays what the campaign ran.
  bool symbolic = false;
  std::string sourceName;  // the case file, for diagnostics about its entries (empty: none)
};

/// A scalar as the case file writes it (JSON integer, float or bool).
nlohmann::ordered_json caseScalarJson(const CaseScalar& s);

/// Parses case JSON. Errors (bad JSON, unknown field, wrong field type, unknown init kind) throw
/// DiagnosticError located at FILE:LINE:COL of the offending value. `file` paths are resolved
/// against the folder of `source.name`.
CaseSpec parseCaseFile(const SourceFile& source);
CaseSpec parseCaseFilePath(const std::string& path);

}  // namespace ptodiff
