// The cases a campaign worker process is busy with, in memory it shares with its supervisor
// (Supervisor.h): when the worker dies from a signal or overruns the per-case wall-clock budget,
// these records name the case(s) to blame. Lock-free atomics, so they work across processes and
// can be read after the worker is gone.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

namespace ptodiff::fuzz {

enum class CasePhase : uint32_t {
  Idle = 0,
  Generate,  // generating the case
  Run,       // running it through the runner
  Consume,   // shrinking, reducing and writing the reproducer of a new signature
};

struct InFlightRecord {
  std::atomic<uint64_t> caseIndex{0};  // global case index
  std::atomic<uint32_t> phase{0};      // CasePhase
  std::atomic<int64_t> startedNs{0};   // CLOCK_MONOTONIC (the same clock in every process)
};

/// One record per worker thread plus one for the consuming thread, and the text of an error that
/// ended the worker (handed to the supervisor, which reports it).
struct InFlightTable {
  static constexpr int kMaxRecords = 1025;  // --jobs is at most 1024
  static constexpr size_t kErrorBytes = 4096;
  InFlightRecord records[kMaxRecords];
  char error[kErrorBytes];

  static int64_t nowNs() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  }

  void enter(int record, uint64_t caseIndex, CasePhase phase) {
    InFlightRecord& r = records[record];
    r.phase.store(static_cast<uint32_t>(CasePhase::Idle));
    r.caseIndex.store(caseIndex);
    r.startedNs.store(nowNs());
    r.phase.store(static_cast<uint32_t>(phase));
  }
  void leave(int record) { records[record].phase.store(static_cast<uint32_t>(CasePhase::Idle)); }
};

static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<int64_t>::is_always_lock_free,
              "the in-flight table is shared between processes");

}  // namespace ptodiff::fuzz
