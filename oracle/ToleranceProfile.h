// Tolerance profiles: how many ulps each rounding op of a target may be off (k_op of oracle.md).
//
// A profile is a JSON file (docs/oracle.md, oracle/profiles/*.json):
//
//   {
//     "profile": "a2a3",                          required: the profile's name
//     "description": "...",                       optional
//     "ulps": {"add": 0.5, "exp": 2, ...},        optional: k per op for every float dtype
//     "dtype_ulps": {"FP32": {"exp": 839}},       optional: per-dtype overrides (FP32, FP16, BF16)
//     "sources": {"exp": "where this comes from"} optional: notes keyed by op, dtype or "general"
//   }
//
// Op keys: add sub mul div sqrt exp log recip convert matmul. An op a file does not name keeps the
// `cpu` default (0.5 for add sub mul div sqrt convert matmul, 1 for exp log recip). `matmul` is the
// allowance per accumulation step (gamma_K is computed with u_eff = 2 k u). Ops without rounding
// (abs, neg, max, min, relu) have no key. Every problem in a file is a DiagnosticError at
// FILE:LINE:COL of the offending key or value.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/DType.h"
#include "oracle/ErrorBound.h"

namespace ptodiff::oracle {

enum class RoundedOp : uint8_t { Add, Sub, Mul, Div, Sqrt, Exp, Log, Recip, Convert, Matmul };
inline constexpr int kRoundedOpCount = 10;
std::string_view roundedOpName(RoundedOp op);  // the JSON key: "add", ...
std::optional<RoundedOp> parseRoundedOp(std::string_view key);

/// The `cpu` allowance of an op (what a file that omits the op gets).
double defaultUlps(RoundedOp op);

struct ToleranceProfile {
  std::string name;
  std::string description;
  std::string origin;  // the file it was read from, or "built-in"
  /// k per float dtype (FP32, FP16, BF16 in that order) and op.
  std::array<std::array<double, kRoundedOpCount>, 3> ulps{};
  std::map<std::string, std::string> sources;  // op key -> where the value comes from

  /// A profile holding the `cpu` defaults everywhere.
  ToleranceProfile();
  /// k for `op` on `dt` (FP32, FP16 or BF16; throws std::invalid_argument otherwise).
  double ulpsFor(RoundedOp op, DType dt) const;
  void setUlps(RoundedOp op, DType dt, double k);
  /// The Rounding of `op` into `dt` under this profile.
  Rounding rounding(RoundedOp op, DType dt) const;
};

/// Parses a profile; `fileName` is used in diagnostics.
ToleranceProfile parseToleranceProfile(std::string_view text, std::string_view fileName);
/// Reads and parses a profile file; an unreadable file is a DiagnosticError naming it.
ToleranceProfile loadToleranceProfile(const std::string& path);

/// The profiles shipped in oracle/profiles/ (compiled in): "cpu", "a2a3", "a5".
std::vector<std::string> builtinProfileNames();
/// A built-in profile, or nullopt for an unknown name.
std::optional<ToleranceProfile> builtinProfile(std::string_view name);
/// The `cpu` profile: what ptodiff's interpreters must meet.
const ToleranceProfile& cpuProfile();
/// `--tolerance-profile VALUE`: a built-in name, else a file path.
ToleranceProfile resolveToleranceProfile(const std::string& nameOrPath);

}  // namespace ptodiff::oracle
