#include "fuzz/reduce/Interestingness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/campaign/Reproducer.h"
#include "interp/CaseSetup.h"
#include "oracle/Differential.h"

namespace ptodiff::fuzz {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> signaturesAgainst(const Program& reference, const ReduceState& state, uint64_t stepBudget) {
  std::vector<std::string> out;
  Program program = state.program.clone();
  if (!verifyProgram(program).empty()) return {"invalid-program/-/verify/-/-"};
  const Function* kernel =
      state.spec.function.empty() ? program.defaultKernel() : program.findFunction(state.spec.function);
  const Function* referenceKernel = reference.defaultKernel();
  if (!kernel || !referenceKernel) return out;
  const oracle::DifferentialOptions options = differentialOptionsFor(state.spec, stepBudget);
  try {
    const oracle::DifferentialReport report = oracle::runDifferential(
        {&program, kernel, &reference, referenceKernel}, buildKernelArgs(*kernel, state.spec, {}), options);
    for (const oracle::StageVerdict& v : report.verdicts)
      if (v.failed()) out.push_back(v.signature());
  } catch (const std::exception&) {
    // parameters that no longer fit the reference kernel: not the failure being kept
  }
  return out;
}

}  // namespace

std::vector<std::string> failureSignatures(const ReduceState& state, uint64_t stepBudget,
                                           std::shared_ptr<const Program> reference) {
  if (reference) return signaturesAgainst(*reference, state, stepBudget);
  std::vector<std::string> signatures;
  for (const Verdict& v : runDifferentialCase(state.program.clone(), {state.spec}, stepBudget).failures)
    signatures.push_back(signatureOf(v));
  return signatures;
}

Interestingness sameSignature(std::string signature, uint64_t stepBudget, std::shared_ptr<const Program> reference) {
  return [signature = std::move(signature), stepBudget, reference](const ReduceState& state) {
    const std::vector<std::string> found = failureSignatures(state, stepBudget, reference);
    return std::find(found.begin(), found.end(), signature) != found.end();
  };
}

int runShellCommand(const std::string& command, const std::string& argument, double timeoutSeconds) {
  const std::string script = command + " \"$1\"";
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a timeout kills everything it started
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    execl("/bin/sh", "sh", "-c", script.c_str(), "ptodiff-reduce-test", argument.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  for (int status = 0;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (done < 0) return -1;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Interestingness externalCommand(std::string command, double timeoutSeconds, fs::path workDir) {
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  return [command = std::move(command), timeoutSeconds, workDir = std::move(workDir), counter](const ReduceState& state) {
    const fs::path folder = workDir / ("candidate-" + std::to_string(counter->fetch_add(1)));
    ReproducerInfo info;
    info.signature = "external-test";
    info.verdict.kind = "external-test";
    try {
      writeReproducer(folder, state.program, state.spec, info);
      fs::copy_file(folder / "case.json", folder / "program.case.json", fs::copy_options::overwrite_existing);
    } catch (const std::exception&) {
      std::error_code ec;
      fs::remove_all(folder, ec);
      return false;  // inputs the case cannot build: not the failure the user is after
    }
    const int status = runShellCommand(command, (folder / "program.py").string(), timeoutSeconds);
    std::error_code ec;
    fs::remove_all(folder, ec);
    return status == 0;
  };
}

}  // namespace ptodiff::fuzz
