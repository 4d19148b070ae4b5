#include "tools/ptodiff/DeviceCommand.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <limits>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "device/Bundle.h"
#include "device/Export.h"
#include "device/Judge.h"
#include "device/Report.h"
#include "device/Runner.h"
#include "device/Sources.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff {

namespace fs = std::filesystem;

namespace {

constexpr const char* kExportDescription =
    "Writes one bundle folder per case into --out (docs/device.md): program.py, lowered.py (the reference\n"
    "lowering under --planner and --target), case.json, inputs/, initial/ (Out/InOut initial bits,\n"
    "sentinels included), and per sub-case expected/ and bound/ (the oracle's values and bounds under the\n"
    "target's tolerance profile, <f8) and written/ (|b1), plus manifest.json. Matrix mode: one compiled\n"
    "program, several runtime-scalar sets (trip counts 0-3, both branch arms, empty/partial/full valid\n"
    "extents), each a sub-case; sets the program rejects are dropped and listed in the manifest.\n"
    "Sources: PROGRAM.py [--case], --from-campaign DIR (a fuzz --out folder or one reproducer), or\n"
    "--generate N --seed S (N bundles of generated cases; a case on which ptodiff's own differential\n"
    "run fails is skipped and reported, since it would judge ptodiff rather than the device).\n"
    "Exit status: 0 bundles written; 1 fewer than N generated cases could be exported; 2 bad usage or\n"
    "bad input (a program that does not verify, a case that does not fit, a program the lowering rejects).";
constexpr const char* kRunDescription =
    "Runs every bundle under BUNDLES with RUNNER as `RUNNER BUNDLE OUTDIR` (sh -c), OUTDIR being\n"
    "OUTPUTS/<bundle>; the runner writes OUTDIR/<subcase>/NAME.npy per Out/InOut tensor. A non-zero\n"
    "exit, a signal or --timeout is a runner failure: reported (OUTPUTS/run.json, OUTPUTS/<bundle>.log)\n"
    "and not judged. --runner sim runs lowered.py on ptodiff's Buffer interpreter in place of a device;\n"
    "ci/device/pypto-runner runs program.py through PyPTO on an a2/a3 device.\n"
    "Exit status: 0 every runner exited 0; 1 a runner failure; 2 bad usage or no bundle.";
constexpr const char* kJudgeDescription =
    "Judges OUTPUTS against every bundle under BUNDLES, per sub-case: the runner's status (run.json),\n"
    "each output's presence, dtype and shape, the sentinel check (elements the program does not write\n"
    "keep their initial bits) and the oracle comparison under the tolerance profile (integers exact).\n"
    "Writes device.json, device.md, junit.xml and device.html (self-contained; per-op and per-dtype\n"
    "histograms of |y - v| / (e + tiny)) into --report (default: OUTPUTS).\n"
    "Exit status: 0 every sub-case passes; 1 a failing sub-case (runner failures included); 2 bad input\n"
    "(a missing folder, a broken or stale bundle: FILE:LINE:COL: error: ...).";

std::string quoted(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$\\;&|<>()*?`") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int exitOf(bool pass) { return pass ? kExitPass : kExitFailingVerdict; }

}  // namespace

DeviceCommands addDeviceCommands(CLI::App& app, DeviceOptions& o) {
  DeviceCommands c;
  c.device = app.add_subcommand("device", "On-device validation: export case bundles, run them, judge the outputs");
  c.device->require_subcommand(1);
  c.device->footer("docs/device.md describes bundles, the runner protocol and the reports.\n"
                   "Run 'ptodiff device SUBCOMMAND --help' for a subcommand's options.");

  c.exportCmd = c.device->add_subcommand("export", "Write case bundles for a device runner");
  c.exportCmd->footer(kExportDescription);
  c.exportCmd->add_option("PROGRAM", o.program, "Tile program file to export");
  c.exportCmd->add_option("--case", o.casePath,
                          "Case file for PROGRAM (default: its sibling NAME.case.json if it exists)");
  c.exportCmd->add_option("--function", o.function, "Kernel of PROGRAM; overrides the case's \"function\"");
  auto* campaign = c.exportCmd->add_option("--from-campaign", o.fromCampaign,
                                           "A fuzz campaign's --out folder (its repro/*) or one reproducer folder");
  auto* generate = c.exportCmd->add_option("--generate", o.generate, "Export N generated cases")
                       ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000}));
  c.exportCmd->add_option("--seed", o.seed, "Seed of --generate")->capture_default_str();
  c.exportCmd->add_option("--planner", o.planner, "PYPTO, DSA_RP or PTOAS")
      ->check(CLI::IsMember({"PYPTO", "DSA_RP", "PTOAS"}))
      ->capture_default_str();
  c.exportCmd->add_option("--target", o.target, "a2a3 or a5")->check(CLI::IsMember({"a2a3", "a5"}))->capture_default_str();
  c.exportCmd->add_option("--tolerance-profile", o.exportProfile,
                          "Profile of bound/ (default: the target's built-in profile): a2a3, a5, cpu or FILE.json");
  c.exportCmd->add_option("--out", o.out, "Folder receiving one bundle folder per case")->required();
  c.exportCmd->add_flag("--no-matrix", o.noMatrix, "Only the case's own scalar set (no derived sub-cases)");
  c.exportCmd->add_option("--step-budget", o.stepBudget, "Executed statements allowed per run")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  campaign->excludes(generate);
  generate->excludes(campaign);

  c.run = c.device->add_subcommand("run", "Run bundles with a device runner");
  c.run->footer(kRunDescription);
  c.run->add_option("BUNDLES", o.bundles, "A bundle folder or a folder of bundles")->required();
  c.run->add_option("--runner", o.runner, "sim, or a command run as `RUNNER BUNDLE OUTDIR`")->required();
  c.run->add_option("--jobs", o.jobs, "Bundles run at once")->check(CLI::Range(1, 256))->capture_default_str();
  c.run->add_option("--timeout", o.timeout, "Seconds per bundle before the runner is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c.run->add_option("--out", o.outputs, "Folder receiving OUTPUTS/<bundle>/<subcase>/NAME.npy")->required();

  c.judge = c.device->add_subcommand("judge", "Judge a runner's outputs against the bundles");
  c.judge->footer(kJudgeDescription);
  c.judge->add_option("BUNDLES", o.bundles, "A bundle folder or a folder of bundles")->required();
  c.judge->add_option("--outputs", o.outputs, "The runner's output folder (ptodiff device run --out)")->required();
  c.judge->add_option("--tolerance-profile", o.judgeProfile,
                      "a2a3, a5, cpu or FILE.json (default: each bundle's own profile)");
  c.judge->add_option("--report", o.reportDir, "Folder receiving the reports (default: OUTPUTS)");
  return c;
}

int runDeviceExport(const DeviceOptions& o, SourceRegistry& sources) {
  const int sourcesGiven = !o.program.empty() + !o.fromCampaign.empty() + o.generate.has_value();
  if (sourcesGiven != 1) usageError("device export: give exactly one of PROGRAM, --from-campaign DIR, --generate N");
  device::ExportOptions e;
  e.planner = *parsePlanner(o.planner);
  e.target = findTarget(o.target);
  e.profile = oracle::resolveToleranceProfile(o.exportProfile.empty() ? o.target : o.exportProfile);
  e.stepBudget = static_cast<uint64_t>(o.stepBudget);
  e.matrix = !o.noMatrix;
  std::string options = " --planner " + o.planner + " --target " + o.target;
  if (!o.exportProfile.empty()) options += " --tolerance-profile " + quoted(o.exportProfile);
  if (o.noMatrix) options += " --no-matrix";
  if (o.stepBudget != 1'000'000) options += " --step-budget " + std::to_string(o.stepBudget);

  const fs::path out(o.out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (!fs::is_directory(out, ec)) usageError("--out " + o.out + ": cannot create the folder");

  size_t written = 0, skipped = 0, subcases = 0, dropped = 0;
  auto report = [&](const std::string& name, const device::ExportOutcome& r) {
    if (r.written) {
      ++written;
      subcases += r.subcases;
      dropped += r.dropped;
      std::cout << "exported: " << (out / name).string() << " (" << r.subcases << " sub-case(s)"
                << (r.dropped ? ", " + std::to_string(r.dropped) + " derived set(s) dropped" : "") << ")\n";
      if (!r.selfCheck.empty())
        std::cerr << "ptodiff: warning: " << name << ": ptodiff's own differential run fails (" << r.selfCheck
                  << "); the sim runner will show it\n";
    } else {
      ++skipped;
      std::cout << "skipped: " << name << ": " << r.skipped << "\n";
    }
  };

  if (!o.program.empty()) {
    sources.setProgramFile(o.program);
    const std::string casePath = findCaseFile(o.program, o.casePath);
    device::ExportCase c = device::caseFromProgram(o.program, casePath, o.function);
    sources.add(c.program.source);
    e.replay = "ptodiff device export " + quoted(o.program) + (casePath.empty() ? "" : " --case " + quoted(casePath)) +
               options + " --out " + quoted(o.out);
    const std::string name = fs::path(o.program).stem().string();
    const device::ExportOutcome r = device::exportBundle(out / name, c, e);
    if (!r.written) {
      if (r.rejection) std::cerr << sources.format(*r.rejection);
      std::cerr << "ptodiff: error: " << o.program << ": cannot export: " << r.skipped << "\n";
      return kExitBadInput;
    }
    report(name, r);
  } else if (!o.fromCampaign.empty()) {
    e.replay = "ptodiff device export --from-campaign " + quoted(o.fromCampaign) + options + " --out " + quoted(o.out);
    for (auto& [name, c] : device::casesFromCampaign(o.fromCampaign)) report(name, device::exportBundle(out / name, c, e));
  } else {
    e.skipSelfFailures = true;
    const uint64_t want = *o.generate;
    // Case indices continue past skipped cases until N bundles exist (at most 4N cases are tried).
    for (uint64_t index = 0; written < want && index < 4 * want; ++index) {
      auto [name, c] = device::generatedCase(o.seed, index);
      e.replay = "ptodiff device export --generate " + std::to_string(index + 1) + " --seed " + std::to_string(o.seed) +
                 options + " --out " + quoted(o.out);
      report(name, device::exportBundle(out / name, c, e));
    }
  }
  std::cout << "device export: " << written << " bundle(s), " << subcases << " sub-case(s), " << skipped
            << " case(s) skipped, " << dropped << " derived set(s) dropped; profile " << e.profile.name << "\n";
  if (o.generate && written < *o.generate) {
    std::cerr << "ptodiff: error: only " << written << " of " << *o.generate << " generated cases could be exported\n";
    return kExitFailingVerdict;
  }
  return written > 0 ? kExitPass : kExitBadInput;
}

int runDeviceRun(const DeviceOptions& o) {
  const std::vector<fs::path> bundles = device::findBundles(o.bundles);
  device::RunnerOptions r;
  r.runner = o.runner;
  r.jobs = o.jobs;
  r.timeoutSeconds = o.timeout;
  const std::vector<device::RunnerResult> results = device::runBundles(bundles, o.outputs, r);
  size_t failed = 0;
  for (const device::RunnerResult& x : results) {
    if (x.ok()) continue;
    ++failed;
    std::cout << "runner failure: " << x.bundle << ": " << x.status
              << (x.status == "failed" ? " (exit " + std::to_string(x.exitCode) + ")" : "")
              << (x.message.empty() ? "" : ": " + x.message.substr(x.message.rfind('\n') == std::string::npos
                                                                      ? 0
                                                                      : x.message.rfind('\n') + 1))
              << "\n";
  }
  std::cout << "device run: " << results.size() << " bundle(s), " << results.size() - failed << " ran, " << failed
            << " runner failure(s); outputs in " << o.outputs << "\n";
  return exitOf(failed == 0);
}

int runDeviceJudge(const DeviceOptions& o) {
  const std::vector<fs::path> bundles = device::findBundles(o.bundles);
  device::JudgeOptions j;
  j.toleranceProfile = o.judgeProfile;
  const device::DeviceReport report = device::judgeBundles(bundles, o.outputs, j);
  const fs::path dir = o.reportDir.empty() ? fs::path(o.outputs) : fs::path(o.reportDir);
  device::writeDeviceReports(report, dir);
  for (const device::SubcaseJudgement& s : report.subcases)
    if (!s.pass())
      std::cout << s.bundle << "/" << s.subcase << ": " << device::subcaseVerdictName(s.verdict) << ": " << s.detail
                << "\n";
  std::cout << "device judge: " << report.subcases.size() << " sub-case(s) of " << report.bundles << " bundle(s): "
            << report.count(device::SubcaseVerdict::Pass) << " pass, " << report.failing() << " fail; reports in "
            << dir.string() << " (device.json, device.md, junit.xml, device.html)\n";
  return exitOf(report.pass());
}

}  // namespace ptodiff
