#include "fuzz/reduce/Reducer.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

bool reparseAndVerify(ReduceState& candidate) {
  try {
    Program reparsed = parseProgramText(printProgram(candidate.program), "candidate.py");
    if (!verifyProgram(reparsed).empty()) return false;
    candidate.program = std::move(reparsed);
    return true;
  } catch (const std::exception&) {  // the parser's DiagnosticError, or a malformed candidate
    return false;
  }
}

ReduceResult reduceProgram(const ReduceState& start, const Interestingness& interesting, const ReduceOptions& options) {
  const auto startTime = Clock::now();
  ReduceResult result{start.clone(), {}};
  verifyOrThrow(result.best.program);
  ReduceStats& stats = result.stats;
  stats.before = measureState(result.best);
  stats.tensorElementsBefore = tensorElements(result.best.program);
  const size_t jobs = static_cast<size_t>(std::max(options.jobs, 1));
  const auto outOfTime = [&] { return secondsSince(startTime) >= options.seconds; };

  for (bool improved = true; improved && !stats.timedOut;) {
    improved = false;
    for (Transform t : transformOrder()) {
      // Candidates before `position` were not interesting on an equal-or-larger program; after an
      // acceptance the scan resumes at the same position of the new program's candidate list.
      for (size_t position = 0; !stats.timedOut;) {
        std::vector<Candidate> candidates = candidatesOf(t, result.best);
        const ProgramSize current = measureState(result.best);
        std::optional<size_t> accepted;
        while (position < candidates.size() && !accepted) {
          if (outOfTime()) {
            stats.timedOut = true;
            break;
          }
          // The next batch: up to `jobs` valid, strictly smaller candidates in list order.
          std::vector<size_t> batch;
          for (; position < candidates.size() && batch.size() < jobs; ++position) {
            if (!reparseAndVerify(candidates[position].state)) {
              ++stats.candidatesInvalid;
              continue;
            }
            if (measureState(candidates[position].state) < current) batch.push_back(position);
          }
          std::vector<char> verdicts(batch.size(), 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(static_cast<int>(std::max<size_t>(batch.size(), 1))) if (batch.size() > 1)
          for (size_t i = 0; i < batch.size(); ++i) verdicts[i] = interesting(candidates[batch[i]].state) ? 1 : 0;
          stats.candidatesTried += static_cast<int64_t>(batch.size());
          for (size_t i = 0; i < batch.size(); ++i)
            if (verdicts[i]) {
              accepted = batch[i];
              position = batch[i];
              break;
            }
        }
        if (!accepted) break;
        result.best = std::move(candidates[*accepted].state);
        ++stats.accepted;
        improved = true;
        if (options.onImproved) {
          ReduceProgress progress{stats.before, measureState(result.best), stats.candidatesTried,
                                  secondsSince(startTime), candidates[*accepted].what};
          options.onImproved(result.best, progress);
        }
      }
      if (stats.timedOut) break;
    }
  }
  stats.after = measureState(result.best);
  stats.tensorElementsAfter = tensorElements(result.best.program);
  stats.seconds = secondsSince(startTime);
  return result;
}

}  // namespace ptodiff::fuzz
