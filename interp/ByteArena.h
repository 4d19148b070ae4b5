// One on-chip memory space as the physical interpreters see it: a byte array with a poison shadow
// and, per byte, the id of the write event that last stored it (for the live-clobber checker).
//
// In a symbolic run (interp/Symbolic.h) each byte also carries a tag: the formula of the element
// that wrote it and its byte index; a byte nobody wrote has tag 0 (poison).
//
// Every byte starts as poison holding deterministic garbage f(seed, space, address), so a program
// that reads storage it never wrote sees the same bits on every run and machine. Pages of 1 KiB are
// materialized on first touch: a run costs what it touches, not the space's capacity. (A page
// keeps six bytes of state per byte, 14 in symbolic runs, and campaign kernels touch a few KiB per
// tile: with 1 KiB pages 100 campaign cases take 3% fewer instructions than with 4 KiB ones.) A
// fresh page's garbage is hashed once per (seed, space, page) and thread and copied after that:
// every run of a campaign case has the case's seed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/ir/DType.h"

namespace ptodiff {

class ByteArena {
 public:
  static constexpr int64_t kPageBytes = 1024;
  /// Event id of bytes nobody wrote yet.
  static constexpr uint32_t kNoEvent = 0;

  ByteArena(MemSpace space, int64_t capacity, uint64_t seed, bool symbolic = false);
  ~ByteArena();
  ByteArena(const ByteArena&) = delete;
  ByteArena& operator=(const ByteArena&) = delete;

  MemSpace space() const { return space_; }
  int64_t capacity() const { return capacity_; }
  bool contains(int64_t addr, int64_t bytes) const { return addr >= 0 && bytes >= 0 && addr + bytes <= capacity_; }

  /// Reads `n` bytes at `addr` into `out` and ORs their poison into `*poisoned` (when given).
  /// Precondition: contains(addr, n) (callers check bounds first and report a hazard).
  void read(int64_t addr, uint8_t* out, int64_t n, bool* poisoned = nullptr) const;
  /// Reads `n` bytes at `addr` into `out` and each byte's poison flag (1 = poison) into
  /// `poison`. Precondition: contains(addr, n).
  void readWithPoison(int64_t addr, uint8_t* out, uint8_t* poison, int64_t n) const;
  /// Writes `n` bytes with the given poison state, tagging them with `event`.
  void write(int64_t addr, const uint8_t* in, int64_t n, bool poison, uint32_t event);
  bool isPoison(int64_t addr) const;
  uint32_t eventAt(int64_t addr) const;
  /// The write events of `n` bytes at `addr` into `out` (kNoEvent for bytes nobody wrote).
  /// Precondition: contains(addr, n).
  void readEvents(int64_t addr, uint32_t* out, int64_t n) const;

  bool symbolic() const { return symbolic_; }
  /// The symbolic tags (ByteTag) of `n` bytes at `addr` into `out`. Precondition: symbolic() and
  /// contains(addr, n).
  void readTags(int64_t addr, uint64_t* out, int64_t n) const;
  /// Sets the tags of `n` bytes at `addr` (their bits, poison and event come from write()).
  void writeTags(int64_t addr, const uint64_t* in, int64_t n);

  /// Pages materialized so far (for tests and the "costs what it touches" promise).
  int64_t pagesTouched() const;
  /// Every byte garbage and poison again, as in a fresh arena; costs the pages touched, not the
  /// capacity (a run resets storage per block, and a fresh arena's page table is a capacity's worth).
  /// The pages go to sparePages() for the next first touches.
  void clear();

  /// The garbage byte a fresh arena holds at `addr`.
  static uint8_t garbageByte(uint64_t seed, MemSpace space, int64_t addr);

 private:
  struct Page {
    std::array<uint8_t, kPageBytes> bytes;
    std::array<uint8_t, kPageBytes> poison;
    std::array<uint32_t, kPageBytes> event;
    std::unique_ptr<std::array<uint64_t, kPageBytes>> tags;  // symbolic arenas only
  };
  Page& page(int64_t addr);
  /// Pages of arenas destroyed on this thread, for the next arena's first touches: a campaign
  /// makes a few arenas per run, and fresh pages cost an allocation and page faults each.
  static std::vector<std::unique_ptr<Page>>& sparePages();
  const Page* pageIfPresent(int64_t addr) const;
  /// The garbage bytes of page `pageIndex` of a fresh arena of this space and seed.
  const std::array<uint8_t, kPageBytes>& freshBytes(int64_t pageIndex) const;

  MemSpace space_;
  int64_t capacity_;
  uint64_t seed_;
  bool symbolic_;
  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<size_t> touched_;  // indices of the materialized pages
};

}  // namespace ptodiff
