#include "device/Sources.h"

#include <algorithm>
#include <cstdio>

#include "compiler/text/Parser.h"
#include "fuzz/campaign/Campaign.h"
#include "fuzz/campaign/Reproducer.h"
#include "fuzz/gen/ProgramGen.h"

namespace ptodiff::device {

namespace fs = std::filesystem;

ExportCase caseFromProgram(const std::string& program, const std::string& casePath, const std::string& function) {
  ExportCase c;
  c.program = parseProgramFile(program);
  if (!casePath.empty()) c.spec = parseCaseFilePath(casePath);
  if (!function.empty()) c.spec.function = function;
  c.origin = {{"kind", "program"},
              {"program", program},
              {"case", casePath.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(casePath)}};
  return c;
}

std::vector<std::pair<std::string, ExportCase>> casesFromCampaign(const fs::path& dir) {
  std::vector<fs::path> folders;
  std::error_code ec;
  if (fs::exists(dir / "program.py", ec) && fs::exists(dir / "case.json", ec)) {
    folders.push_back(dir);
  } else {
    if (!fs::is_directory(dir / "repro", ec))
      throwError(dir.string(), {}, "not a campaign folder (no repro/ in it) nor a reproducer (program.py, case.json)");
    for (const fs::directory_entry& e : fs::directory_iterator(dir / "repro", ec))
      if (e.is_directory() && e.path().filename().string()[0] != '.' && fs::exists(e.path() / "program.py"))
        folders.push_back(e.path());
    std::sort(folders.begin(), folders.end());
  }
  std::vector<std::pair<std::string, ExportCase>> out;
  for (const fs::path& f : folders) {
    fuzz::LoadedReproducer r = fuzz::loadReproducer(f);
    ExportCase c;
    c.program = std::move(r.program);
    c.spec = std::move(r.spec);
    c.origin = {{"kind", "campaign"}, {"reproducer", f.string()}, {"signature", r.signature}};
    out.emplace_back(f.filename().string(), std::move(c));
  }
  return out;
}

std::pair<std::string, ExportCase> generatedCase(uint64_t seed, uint64_t index) {
  fuzz::GenConfig config;
  config.scalarSets = kGeneratedScalarSets;
  const uint64_t caseSeed = fuzz::caseSeed(seed, index);
  const int size = fuzz::caseSize(index);
  fuzz::GeneratedCase g = fuzz::generateCase(caseSeed, size, config);
  ExportCase c;
  c.spec = fuzz::caseSpecFor(g, 0);
  for (const auto& set : g.scalarSets) c.sets.push_back(scalarSetOf(set));
  c.program = std::move(g.program);
  c.origin = {{"kind", "generated"},
              {"seed", seed},
              {"index", index},
              {"case_seed", caseSeed},
              {"size", size},
              {"scalar_sets", kGeneratedScalarSets}};
  char name[64];
  std::snprintf(name, sizeof name, "gen-%llu-%04llu", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(index));
  return {name, std::move(c)};
}

}  // namespace ptodiff::device
