// Where exported cases come from: a program file with its case, the reproducer folders of a fuzz
// campaign, or the fuzz generator (fuzz/gen) with a seed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "device/Export.h"

namespace ptodiff::device {

/// Sub-cases a generated case brings: trip counts 0..3 need four sets (the generator rotates them).
inline constexpr int kGeneratedScalarSets = 4;

/// A program file and its case file (`casePath` empty: the defaults); `function` overrides the
/// case's kernel. Unreadable files throw DiagnosticError.
ExportCase caseFromProgram(const std::string& program, const std::string& casePath, const std::string& function);

/// The reproducers of a campaign folder (DIR/repro/*/), or DIR itself when it is a reproducer
/// (program.py + case.json), as (bundle name, case) sorted by name.
std::vector<std::pair<std::string, ExportCase>> casesFromCampaign(const std::filesystem::path& dir);

/// Generated case `index` of a device campaign with `seed` (fuzz/gen: the campaign's case seed and
/// size for that index, kGeneratedScalarSets scalar sets), named "gen-SEED-INDEX".
std::pair<std::string, ExportCase> generatedCase(uint64_t seed, uint64_t index);

}  // namespace ptodiff::device
