#include "device/Runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "device/Bundle.h"
#include "interp/Interpreters.h"
#include "interp/Npy.h"

namespace ptodiff::device {

namespace fs = std::filesystem;

namespace {

std::string tail(const fs::path& log, size_t maxLines = 5) {
  std::ifstream in(log, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > maxLines ? lines.size() - maxLines : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

/// `sh -c 'RUNNER "$1" "$2"' sh BUNDLE OUTDIR` in its own process group, output to `log`.
RunnerResult runCommand(const std::string& runner, const fs::path& bundle, const fs::path& outdir,
                        const fs::path& log, double timeoutSeconds) {
  RunnerResult r;
  const std::string script = runner + " \"$1\" \"$2\"";
  const std::string bundleArg = bundle.string(), outArg = outdir.string(), logPath = log.string();
  const pid_t pid = fork();
  if (pid < 0) {
    r.status = "error";
    r.message = "cannot start the runner: fork failed";
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int fd = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execl("/bin/sh", "sh", "-c", script.c_str(), "sh", bundleArg.c_str(), outArg.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before a timeout can kill it
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.status = "timeout";
      r.message = "the runner did not finish within " + nlohmann::json(timeoutSeconds).dump() + " s (killed)";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) {
    r.exitCode = WEXITSTATUS(status);
    if (r.exitCode != 0) r.status = "failed";
    // The runner runs under `sh -c`, which reports a child killed by signal N as exit 128 + N.
    if (r.exitCode > 128 && r.exitCode <= 128 + 64) {
      r.status = "signal";
      r.signal = r.exitCode - 128;
    }
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.status = "signal";
  }
  if (!r.ok()) r.message = tail(log);
  return r;
}

RunnerResult runOne(const fs::path& bundle, const fs::path& outputs, const RunnerOptions& o) {
  const std::string name = bundle.filename().string();
  const fs::path outdir = outputs / name;
  const fs::path log = outputs / (name + ".log");
  std::error_code ec;
  fs::remove_all(outdir, ec);
  fs::create_directories(outdir, ec);
  if (o.runner != kSimRunner) {
    RunnerResult r = runCommand(o.runner, fs::absolute(bundle), fs::absolute(outdir), log, o.timeoutSeconds);
    r.bundle = name;
    return r;
  }
  RunnerResult r;
  r.bundle = name;
  try {
    runSim(bundle, outdir);
    std::ofstream(log, std::ios::trunc) << "sim: " << name << ": ok\n";
  } catch (const DiagnosticError& e) {
    r.status = "failed";
    r.exitCode = 1;
    r.message = "sim: " + formatDiagnostic(e.diagnostic());
  } catch (const std::exception& e) {
    r.status = "failed";
    r.exitCode = 1;
    r.message = std::string("sim: ") + e.what();
  }
  if (!r.ok()) std::ofstream(log, std::ios::trunc) << r.message << "\n";
  while (!r.message.empty() && r.message.back() == '\n') r.message.pop_back();
  return r;
}

}  // namespace

void runSim(const fs::path& bundle, const fs::path& outdir) {
  const LoadedBundle b = loadBundle(bundle, /*lowered=*/true);
  const Function& kernel = b.kernel();
  const std::optional<Planner> planner = parsePlanner(b.manifest.planner);
  const Target* target = findTarget(b.manifest.target);
  if (!planner || !target)
    throw std::runtime_error("manifest.json names planner \"" + b.manifest.planner + "\" and target \"" +
                             b.manifest.target + "\"; expected PYPTO|DSA_RP|PTOAS and a2a3|a5");
  RunConfig config;
  config.blockNum = b.manifest.blockNum;
  config.stepBudget = b.manifest.stepBudget;
  config.seed = b.manifest.seed;
  config.target = target->kind;
  config.addressedPlanner = plannerAssignsAddresses(*planner);
  const InterpreterKind interpreter = defaultInterpreter(kernel);
  for (const Subcase& sub : b.manifest.subcases) {
    const RunResult run = runKernel(interpreter, b.program, kernel, b.argsFor(sub), config);
    if (run.status != RunStatus::Ok)
      throw std::runtime_error("sub-case " + sub.name + ": the " + std::string(interpreterName(interpreter)) +
                               " run ends " + std::string(runStatusName(run.status)) + ": " +
                               formatDiagnostic(run.diagnostic));
    fs::create_directories(outdir / sub.name);
    for (const Param& p : kernel.params)
      if (p.type.isTensor() && p.direction != ParamDirection::In)
        writeNpy((outdir / sub.name / (p.name + ".npy")).string(), run.final.tensors.at(p.name));
  }
}

std::vector<RunnerResult> runBundles(const std::vector<fs::path>& bundles, const fs::path& outputs,
                                     const RunnerOptions& o) {
  std::error_code ec;
  fs::create_directories(outputs, ec);
  if (!fs::is_directory(outputs)) throwError(outputs.string(), {}, "cannot create the outputs folder");
  std::vector<RunnerResult> results(bundles.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < bundles.size(); i = next++) results[i] = runOne(bundles[i], outputs, o);
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::max(1, o.jobs) && static_cast<size_t>(j) < bundles.size(); ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();

  nlohmann::ordered_json j;
  j["runner"] = o.runner;
  j["timeout_seconds"] = o.timeoutSeconds;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RunnerResult& r : results)
    list.push_back({{"bundle", r.bundle},
                    {"status", r.status},
                    {"exit_code", r.exitCode},
                    {"signal", r.signal},
                    {"message", r.message},
                    {"log", r.bundle + ".log"}});
  j["bundles"] = std::move(list);
  std::ofstream(outputs / "run.json", std::ios::trunc) << j.dump(2) << "\n";
  return results;
}

std::map<std::string, RunnerResult> readRunResults(const fs::path& outputs) {
  std::map<std::string, RunnerResult> out;
  std::ifstream in(outputs / "run.json", std::ios::binary);
  if (!in) return out;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("bundles") || !j["bundles"].is_array())
    throwError((outputs / "run.json").string(), {}, "not a run.json written by ptodiff device run");
  for (const nlohmann::json& b : j["bundles"]) {
    RunnerResult r;
    r.bundle = b.value("bundle", "");
    r.status = b.value("status", "ok");
    r.exitCode = b.value("exit_code", 0);
    r.signal = b.value("signal", 0);
    r.message = b.value("message", "");
    out[r.bundle] = r;
  }
  return out;
}

}  // namespace ptodiff::device
