#include "interp/ByteArena.h"

#include <algorithm>
#include <stdexcept>

namespace ptodiff {

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
/// Calls f(address, offsetInItsPage, chunk, done) for each stretch of [addr, addr + n) that lies in one page.
template <class F>
void forEachPageChunk(int64_t addr, int64_t n, F&& f) {
  for (int64_t done = 0; done < n;) {
    const int64_t a = addr + done;
    const int64_t offset = a % ByteArena::kPageBytes;
    const int64_t chunk = std::min(n - done, ByteArena::kPageBytes - offset);
    f(a, offset, chunk, done);
    done += chunk;
  }
}

}  // namespace

ByteArena::ByteArena(MemSpace space, int64_t capacity, uint64_t seed, bool symbolic)
    : space_(space), capacity_(capacity), seed_(seed), symbolic_(symbolic),
      pages_(static_cast<size_t>((capacity + kPageBytes - 1) / kPageBytes)) {}

uint8_t ByteArena::garbageByte(uint64_t seed, MemSpace space, int64_t addr) {
  // One 64-bit hash per aligned 8-byte group keeps this cheap while every byte still depends on
  // (seed, space, address).
  uint64_t word = splitmix64(seed ^ (static_cast<uint64_t>(space) << 56) ^ static_cast<uint64_t>(addr >> 3));
  return static_cast<uint8_t>(word >> ((addr & 7) * 8));
}

std::vector<std::unique_ptr<ByteArena::Page>>& ByteArena::sparePages() {
  thread_local std::vector<std::unique_ptr<Page>> spare;
  return spare;
}

ByteArena::~ByteArena() { clear(); }

void ByteArena::clear() {
  constexpr size_t kKeptPages = 1024;  // 6 MiB of numeric pages per thread at most
  std::vector<std::unique_ptr<Page>>& spare = sparePages();
  for (size_t index : touched_) {
    std::unique_ptr<Page>& p = pages_[index];
    if (spare.size() < kKeptPages) spare.push_back(std::move(p));
    p.reset();
  }
  touched_.clear();
}

ByteArena::Page& ByteArena::page(int64_t addr) {
  auto& slot = pages_[static_cast<size_t>(addr / kPageBytes)];
  if (!slot) {
    // Every field is set below, so a page of an earlier arena is as good as a new one.
    std::vector<std::unique_ptr<Page>>& spare = sparePages();
    if (spare.empty()) {
      slot = std::make_unique<Page>();
    } else {
      slot = std::move(spare.back());
      spare.pop_back();
    }
    touched_.push_back(static_cast<size_t>(addr / kPageBytes));
    slot->bytes = freshBytes(addr / kPageBytes);
    slot->poison.fill(1);
    slot->event.fill(kNoEvent);
    if (!symbolic_)
      slot->tags.reset();
    else if (!slot->tags)
      slot->tags = std::make_unique<std::array<uint64_t, kPageBytes>>();  // zeroed: poison
    else
      slot->tags->fill(0);
  }
  return *slot;
}

const std::array<uint8_t, ByteArena::kPageBytes>& ByteArena::freshBytes(int64_t pageIndex) const {
  // Every run of a case has the case's seed and touches mostly the same pages, so the garbage of
  // a page is hashed once per case and thread rather than once per run (a campaign case makes
  // about 15 runs). At most one entry per page of each space: bounded by the spaces' capacities.
  struct Entry {
    uint64_t seed = 0;
    bool filled = false;
    std::array<uint8_t, kPageBytes> bytes;
  };
  thread_local std::array<std::vector<std::unique_ptr<Entry>>, static_cast<size_t>(MemSpace::Acc) + 1> cache;
  std::vector<std::unique_ptr<Entry>>& space = cache[static_cast<size_t>(space_)];
  const auto index = static_cast<size_t>(pageIndex);
  if (space.size() <= index) space.resize(index + 1);
  std::unique_ptr<Entry>& e = space[index];
  if (!e) e = std::make_unique<Entry>();
  if (e->filled && e->seed == seed_) return e->bytes;
  // garbageByte's bytes, one hash per aligned 8-byte group (pages are 8-byte aligned).
  static_assert(kPageBytes % 8 == 0);
  const int64_t base = pageIndex * kPageBytes;
  for (int64_t i = 0; i < kPageBytes; i += 8) {
    const uint64_t word =
        splitmix64(seed_ ^ (static_cast<uint64_t>(space_) << 56) ^ static_cast<uint64_t>((base + i) >> 3));
    for (int64_t k = 0; k < 8; ++k) e->bytes[static_cast<size_t>(i + k)] = static_cast<uint8_t>(word >> (k * 8));
  }
  e->seed = seed_;
  e->filled = true;
  return e->bytes;
}

const ByteArena::Page* ByteArena::pageIfPresent(int64_t addr) const {
  return pages_[static_cast<size_t>(addr / kPageBytes)].get();
}

void ByteArena::read(int64_t addr, uint8_t* out, int64_t n, bool* poisoned) const {
  bool anyPoison = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t a = addr + i;
    if (const Page* p = pageIfPresent(a)) {
      out[i] = p->bytes[a % kPageBytes];
      anyPoison |= p->poison[a % kPageBytes] != 0;
    } else {
      out[i] = garbageByte(seed_, space_, a);  // an untouched page is garbage and poison
      anyPoison = true;
    }
  }
  if (poisoned) *poisoned |= anyPoison;
}

void ByteArena::readWithPoison(int64_t addr, uint8_t* out, uint8_t* poison, int64_t n) const {
  forEachPageChunk(addr, n, [&](int64_t a, int64_t offset, int64_t chunk, int64_t i) {
    if (const Page* p = pageIfPresent(a)) {
      std::copy_n(p->bytes.begin() + offset, chunk, out + i);
      std::copy_n(p->poison.begin() + offset, chunk, poison + i);
    } else {
      for (int64_t k = 0; k < chunk; ++k) out[i + k] = garbageByte(seed_, space_, a + k);
      std::fill_n(poison + i, chunk, uint8_t{1});  // an untouched page is garbage and poison
    }
  });
}

void ByteArena::write(int64_t addr, const uint8_t* in, int64_t n, bool poison, uint32_t event) {
  forEachPageChunk(addr, n, [&](int64_t a, int64_t offset, int64_t chunk, int64_t i) {
    Page& p = page(a);
    std::copy_n(in + i, chunk, p.bytes.begin() + offset);
    std::fill_n(p.poison.begin() + offset, chunk, poison ? 1 : 0);
    std::fill_n(p.event.begin() + offset, chunk, event);
  });
}

bool ByteArena::isPoison(int64_t addr) const {
  const Page* p = pageIfPresent(addr);
  return !p || p->poison[addr % kPageBytes] != 0;
}

void ByteArena::readEvents(int64_t addr, uint32_t* out, int64_t n) const {
  forEachPageChunk(addr, n, [&](int64_t a, int64_t offset, int64_t chunk, int64_t i) {
    if (const Page* p = pageIfPresent(a))
      std::copy_n(p->event.begin() + offset, chunk, out + i);
    else
      std::fill_n(out + i, chunk, kNoEvent);
  });
}

void ByteArena::readTags(int64_t addr, uint64_t* out, int64_t n) const {
  forEachPageChunk(addr, n, [&](int64_t a, int64_t offset, int64_t chunk, int64_t i) {
    if (const Page* p = pageIfPresent(a); p && p->tags)
      std::copy_n(p->tags->begin() + offset, chunk, out + i);
    else
      std::fill_n(out + i, chunk, uint64_t{0});
  });
}

void ByteArena::writeTags(int64_t addr, const uint64_t* in, int64_t n) {
  if (!symbolic_) throw std::logic_error("ByteArena::writeTags on a numeric arena");
  forEachPageChunk(addr, n, [&](int64_t a, int64_t offset, int64_t chunk, int64_t i) {
    std::copy_n(in + i, chunk, page(a).tags->begin() + offset);
  });
}

uint32_t ByteArena::eventAt(int64_t addr) const {
  const Page* p = pageIfPresent(addr);
  return p ? p->event[addr % kPageBytes] : kNoEvent;
}

int64_t ByteArena::pagesTouched() const { return static_cast<int64_t>(touched_.size()); }

}  // namespace ptodiff
