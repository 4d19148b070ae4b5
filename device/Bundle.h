// A case bundle (docs/device.md): one folder per case, everything a device host needs to run it
// and everything ptodiff needs to judge what comes back.
//
//   program.py          the Tile program (what PyPTO compiles on the device host)
//   lowered.py          ptodiff's reference lowering under the bundle's planner and target
//   case.json           the case: block count, seed, the first sub-case's scalars, tensors by file
//   inputs/NAME.npy     every In/InOut tensor's input bits
//   initial/NAME.npy    every Out/InOut tensor's initial bits (sentinels included)
//   expected/SUB/NAME.npy  the oracle's values v (`<f8`), per sub-case and Out/InOut tensor
//   bound/SUB/NAME.npy     the oracle's bounds e under the bundle's profile (`<f8`; +inf: not judgeable)
//   written/SUB/NAME.npy   `|b1`: the elements the program writes (the rest must keep initial/)
//   manifest.json       version, origin and seeds, planner, target, profile, tensors, sub-cases
//                       (runtime scalars, what each covers) and replay commands
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"
#include "interp/Tensor.h"

namespace ptodiff::device {

inline constexpr const char* kBundleFormat = "ptodiff-device-bundle/1";

struct BundleTensor {
  std::string name;
  ParamDirection direction = ParamDirection::In;
  DType dtype = DType::FP32;
  int64_t rows = 0, cols = 0;
};

struct Subcase {
  std::string name;  // the folder name under expected/, bound/, written/ and a runner's OUTDIR
  std::map<std::string, CaseScalar> scalars;
  std::vector<std::string> covers;
  std::string replay;  // `ptodiff run ...` of this sub-case on the CPU
};

struct Manifest {
  std::string format = kBundleFormat;
  std::string ptodiffVersion;
  std::string bundle;  // the folder name
  nlohmann::ordered_json origin = nlohmann::ordered_json::object();  // program / campaign / generated
  std::string kernel;
  std::string planner;  // PYPTO, DSA_RP, PTOAS
  std::string target;   // a2a3, a5
  std::string profile;  // the tolerance profile of bound/
  bool enableBufferIR = true;
  std::string loweredStage;  // "buffer" or "tile" (the kernel stays on the Tile path)
  int64_t blockNum = 1;
  uint64_t seed = 0;  // the case seed (inputs drawn from it; fresh storage's garbage on the CPU)
  uint64_t stepBudget = 1'000'000;
  std::vector<BundleTensor> tensors;  // every tensor parameter, in parameter order
  std::vector<Subcase> subcases;
  nlohmann::ordered_json dropped = nlohmann::ordered_json::array();  // derived sets the program rejects
  std::string replay;  // the export command that writes this bundle again
};

nlohmann::ordered_json manifestJson(const Manifest& m);
/// Reads BUNDLE/manifest.json; a problem is a DiagnosticError at FILE:LINE:COL of the value.
Manifest readManifest(const std::filesystem::path& bundle);

/// Paths inside a bundle (relative, as the manifest and docs/device.md name them).
std::string inputPath(const std::string& tensor);                           // inputs/NAME.npy
std::string initialPath(const std::string& tensor);                         // initial/NAME.npy
std::string subcasePath(const char* kind, const std::string& sub, const std::string& tensor);  // KIND/SUB/NAME.npy

/// A bundle ready to run or judge: its manifest, a verified program and its case.
struct LoadedBundle {
  std::filesystem::path folder;
  Manifest manifest;
  Program program;  // program.py, or lowered.py when loaded for the sim runner
  CaseSpec spec;    // case.json: tensors by file, block count, seed

  const Function& kernel() const;
  /// The kernel's arguments for `sub`: the bundle's input and initial bits, the sub-case's scalars
  /// (interp/CaseSetup: a file whose dtype or shape differs from the parameter is an error).
  KernelArgs argsFor(const Subcase& sub) const;
};

/// Reads manifest.json, case.json and program.py (`lowered` = lowered.py instead) and verifies
/// the program. Every problem is a DiagnosticError naming the file.
LoadedBundle loadBundle(const std::filesystem::path& folder, bool lowered = false);

/// The bundles under `root`: `root` itself when it holds manifest.json, else its sub-folders that
/// do, sorted by name. Throws DiagnosticError when there is none.
std::vector<std::filesystem::path> findBundles(const std::filesystem::path& root);

}  // namespace ptodiff::device
