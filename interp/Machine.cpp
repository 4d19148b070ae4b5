#include "interp/Machine.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "interp/Hazard.h"
#include "interp/Symbolic.h"
#include "interp/TileOps.h"

namespace ptodiff {

namespace {

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

constexpr MemSpace kAllSpaces[] = {MemSpace::Vec, MemSpace::Mat, MemSpace::Left, MemSpace::Right, MemSpace::Acc};

/// Whether any of the `n` bytes at `p` is nonzero: a branch-free OR the vectorizer takes, for the
/// poison flags of a row run.
bool anySet(const uint8_t* p, size_t n) {
  uint8_t any = 0;
  for (size_t i = 0; i < n; ++i) any |= p[i];
  return any != 0;
}

/// A region's runs and the bytes they span, kept per thread from call to call: a run gathers and
/// scatters thousands of regions.
struct RegionScratch {
  std::vector<ElementRun> runs;
  std::vector<uint8_t> bytes, poison, column;
  std::vector<ByteTag> tags;
};

RegionScratch& regionScratch() {
  thread_local RegionScratch scratch;
  return scratch;
}

/// Room for `n` items of scratch: the vector only grows, so a region smaller than the last one
/// pays no clearing of bytes it is about to overwrite.
template <class T>
T* room(std::vector<T>& v, int64_t n) {
  if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
  return v.data();
}

/// The runs of a region (forEachRun) into `runs`, and the hull of the bytes they occupy.
ByteRange collectRuns(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, std::vector<ElementRun>& runs) {
  runs.clear();
  ByteRange hull{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  const int64_t esize = h.esize();
  forEachRun(h, r0, c0, rows, cols, [&](const ElementRun& run) {
    runs.push_back(run);
    hull = {std::min(hull.begin, run.addr), std::max(hull.end, run.addr + run.n * esize)};
  });
  return hull;
}

/// Copies `n` elements of `Word` from `from` (every `fromStep` elements) to `to` (every `toStep`).
template <class Word>
void copyElements(const uint8_t* from, int64_t fromStep, uint8_t* to, int64_t toStep, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    std::memcpy(to + k * toStep * sizeof(Word), from + k * fromStep * sizeof(Word), sizeof(Word));
}

/// Where the rows x cols region of `h` at (r0, c0) starts when its elements lie at consecutive
/// addresses in row-major order: an ND row segment, or whole rows of an ND handle whose rows are
/// dense. Then the region moves as one byte range, with no runs to collect.
std::optional<int64_t> denseRegionStart(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0 || addressingOf(h.geom.layout) != AddressingKind::ND) return std::nullopt;
  const bool wholeDenseRows = c0 == 0 && cols == h.cols() && h.geom.pitchBytes == h.cols() * h.esize();
  if (rows != 1 && !wholeDenseRows) return std::nullopt;
  return h.base + r0 * h.geom.pitchBytes + c0 * h.esize();
}

/// Writes `n` elements (`from`, each `step` elements from the last in `poison`) to consecutive
/// bytes at `addr`, one arena write per stretch of equal poison state.
void writeStretches(ByteArena& mem, int64_t addr, const uint8_t* from, const uint8_t* poison, int64_t step, int64_t n,
                    int esize, uint32_t event) {
  for (int64_t k = 0; k < n;) {
    const bool p = poison[k * step] != 0;
    int64_t m = k + 1;
    while (m < n && (poison[m * step] != 0) == p) ++m;
    mem.write(addr + k * esize, from + k * esize, (m - k) * esize, p, event);
    k = m;
  }
}

/// Element poison of `n` elements of `Word` width from their bytes' poison: any poison byte.
template <class Word>
void elementPoison(const uint8_t* bytePoison, uint8_t* poison, int64_t step, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    Word w;
    std::memcpy(&w, bytePoison + k * sizeof(Word), sizeof(Word));
    poison[k * step] = w != 0 ? 1 : 0;
  }
}

/// The tags of `n` elements of `E` bytes whose formulas are `sym[0], sym[step], ...`, in order.
template <size_t E>
void tagElements(const ExprId* sym, int64_t step, ByteTag* tags, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    for (size_t b = 0; b < E; ++b) tags[static_cast<size_t>(k) * E + b] = byteTag(sym[k * step], static_cast<int>(b));
}

/// The formula of an element of `E` bytes tagged `tags`: inline when its bytes are one element as
/// written (what nearly every read finds), else ExprPool::fromBytes' reinterpretation.
template <size_t E>
ExprId elementFormula(ExprPool& pool, DType dt, const ByteTag* tags) {
  const ExprId e = tagExpr(tags[0]);
  bool whole = tagByte(tags[0]) == 0 && (e == ExprPool::kPoison || pool.dtypeOf(e) == dt);
  for (size_t b = 1; b < E; ++b) whole &= tags[b] == byteTag(e, static_cast<int>(b));
  return whole ? e : pool.fromBytes(dt, std::span<const ByteTag>(tags, E));
}

}  // namespace

std::string layoutText(const Layout& layout) {
  if (auto name = layoutShorthandName(layout)) return std::string(*name);
  return std::string(tileLayoutName(layout.blayout)) + "/" + std::string(tileLayoutName(layout.slayout));
}

std::string describeHandle(const Handle& h) {
  return std::string(memSpaceName(h.space)) + " " + std::string(dtypeName(h.dtype())) + " " +
         pairText(h.rows(), h.cols()) + " " + layoutText(h.geom.layout) + " at " + std::to_string(h.base);
}

Handle makeHandle(const Type& type, int64_t base, int64_t pitchBytes, ByteRange root, ValidExtents valid) {
  if (!type.isBuffer()) throw std::logic_error("makeHandle: not a Buffer type");
  Handle h;
  h.space = type.space;
  h.base = base;
  h.geom = HandleGeometry{type.rows(), type.cols(), type.dtype, type.layout, pitchBytes};
  h.root = root;
  h.valid = std::make_shared<ValidExtents>(valid);
  for (int axis = 0; axis < 2; ++axis) h.dynamicValid[static_cast<size_t>(axis)] = !type.validExtent(axis).isConst();
  return h;
}

Handle windowHandle(const Handle& parent, const Type& window, int64_t r0, int64_t c0, ValidExtents valid) {
  return makeHandle(window, parent.byteAt(r0, c0), parent.geom.pitchBytes, parent.root, valid);
}

Handle reinterpretHandle(const Handle& src, const Type& type, ValidExtents valid) {
  return makeHandle(type, src.base, type.cols() * dtypeSize(type.dtype), src.root, valid);
}

void DenseElements::orPoison(const DenseElements& other) {
  if (other.poison.size() != poison.size()) throw std::logic_error("DenseElements::orPoison: extents differ");
  for (size_t i = 0; i < poison.size(); ++i) poison[i] |= other.poison[i];
}

Machine::Machine(const Target& target, uint64_t seed, ExprPool* symbols)
    : target_(target), seed_(seed), symbols_(symbols) {
  resetStorage();
}

void Machine::resetStorage() {
  for (MemSpace s : kAllSpaces) {
    std::unique_ptr<ByteArena>& arena = arenas_[static_cast<size_t>(s)];
    if (arena)
      arena->clear();
    else
      arena = std::make_unique<ByteArena>(s, target_.space(s).capacity, seed_, symbols_ != nullptr);
  }
  logWrite(WriteHull{++writesSoFar_, true, MemSpace::Vec, {}});
}

void Machine::logWrite(const WriteHull& w) {
  writeLog_.push_back(w);
  if (writeLog_.size() > static_cast<size_t>(kWriteLookback) + 1) writeLog_.pop_front();
}

bool Machine::writtenSince(uint64_t count, MemSpace space, ByteRange bytes) const {
  int looked = 0;
  for (auto w = writeLog_.rbegin(); w != writeLog_.rend() && w->count > count; ++w) {
    if (++looked > kWriteLookback) return true;
    if (w->everything || (w->space == space && w->bytes.overlaps(bytes))) return true;
  }
  return false;
}

void Machine::requireInside(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
                            const char* what) const {
  // Interpreters check regions and placements first and report hazards; reaching here with a bad
  // region is a harness bug.
  if (r0 < 0 || c0 < 0 || rows < 0 || cols < 0 || r0 + rows > h.rows() || c0 + cols > h.cols())
    throw std::logic_error(std::string("Machine::") + what + ": region " + pairText(r0, c0) + " + " +
                           pairText(rows, cols) + " leaves handle " + describeHandle(h));
  const ByteRange s = h.span();
  if (!arena(h.space).contains(s.begin, s.end - s.begin))
    throw std::logic_error(std::string("Machine::") + what + ": handle " + describeHandle(h) + " leaves its space");
}

DenseElements Machine::gather(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols) const {
  DenseElements out(h.dtype(), rows, cols, symbols_);
  gatherInto(h, r0, c0, rows, cols, {out.bits.data(), out.poison.data(), out.sym.empty() ? nullptr : out.sym.data(), cols});
  return out;
}

void Machine::gatherInto(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, ElementsOut out) const {
  requireInside(h, r0, c0, rows, cols, "gather");
  if ((out.sym != nullptr) != (symbols_ != nullptr))
    throw std::logic_error("Machine::gather: numeric elements from symbolic storage, or the other way round");
  const int esize = h.esize();
  const ByteArena& mem = arena(h.space);
  RegionScratch& scratch = regionScratch();
  if (const std::optional<int64_t> start = denseRegionStart(h, r0, c0, rows, cols); start && (rows == 1 || out.stride == cols)) {
    const int64_t n = rows * cols, span = n * esize;
    uint8_t* const bytePoison = room(scratch.poison, span);
    mem.readWithPoison(*start, out.bits, bytePoison, span);
    withElementWord(esize, [&](auto word) { elementPoison<decltype(word)>(bytePoison, out.poison, 1, n); });
    if (!symbols_) return;
    ByteTag* const tags = room(scratch.tags, span);
    mem.readTags(*start, tags, span);
    withElementWord(esize, [&](auto word) {
      for (int64_t k = 0; k < n; ++k) out.sym[k] = elementFormula<sizeof(word)>(*symbols_, h.dtype(), tags + k * esize);
    });
    return;
  }
  const ByteRange hull = collectRuns(h, r0, c0, rows, cols, scratch.runs);
  if (scratch.runs.empty()) return;
  // A region is many short runs (a fractal box row is 32 bytes), so its bytes are read at once, as
  // the hull of its runs, and its elements placed from there: an arena read per run cost more than
  // the copies. A hull much wider than its elements (a column of a wide tile) is read run by run.
  const int64_t span = hull.end - hull.begin;
  uint8_t* const hullBytes = room(scratch.bytes, span);
  uint8_t* const hullPoison = room(scratch.poison, span);
  const bool wholeHull = span <= 2 * rows * cols * esize;
  if (wholeHull) {
    mem.readWithPoison(hull.begin, hullBytes, hullPoison, span);
  } else {
    for (const ElementRun& run : scratch.runs)
      mem.readWithPoison(run.addr, hullBytes + (run.addr - hull.begin), hullPoison + (run.addr - hull.begin),
                         run.n * esize);
  }
  // Most regions hold no poison byte at all, which one pass over the hull shows.
  const bool noPoison = wholeHull && !anySet(hullPoison, static_cast<size_t>(span));
  withElementWord(esize, [&](auto word) {
    using Word = decltype(word);
    for (const ElementRun& run : scratch.runs) {
      const int64_t first = (run.r - r0) * out.stride + (run.c - c0);  // element 0's index in `out`
      const int64_t step = run.down ? out.stride : 1;
      const uint8_t* bytes = hullBytes + (run.addr - hull.begin);
      if (run.down)
        copyElements<Word>(bytes, 1, out.bits + first * esize, step, run.n);
      else
        std::memcpy(out.bits + first * esize, bytes, static_cast<size_t>(run.n * esize));
      if (noPoison) continue;
      // An element is poison when any of its bytes is: its poison bytes read as one word.
      elementPoison<Word>(hullPoison + (run.addr - hull.begin), out.poison + first, step, run.n);
    }
  });
  if (noPoison)
    for (int64_t r = 0; r < rows; ++r) std::memset(out.poison + r * out.stride, 0, static_cast<size_t>(cols));
  if (!symbols_) return;
  // The tags of a whole hull are read at once, like its bytes.
  if (wholeHull) mem.readTags(hull.begin, room(scratch.tags, span), span);
  withElementWord(esize, [&](auto word) {
    for (const ElementRun& run : scratch.runs) {
      const int64_t first = (run.r - r0) * out.stride + (run.c - c0);
      const int64_t step = run.down ? out.stride : 1;
      if (!wholeHull) mem.readTags(run.addr, room(scratch.tags, run.n * esize), run.n * esize);
      const ByteTag* tags = scratch.tags.data() + (wholeHull ? run.addr - hull.begin : 0);
      for (int64_t k = 0; k < run.n; ++k)
        out.sym[first + k * step] = elementFormula<sizeof(word)>(*symbols_, h.dtype(), tags + k * esize);
    }
  });
}

void Machine::scatter(const Handle& h, int64_t r0, int64_t c0, const DenseElements& src, uint32_t event) {
  if (src.esize() != h.esize())
    throw std::logic_error("Machine::scatter: element size differs from the handle's");
  scatterFrom(h, r0, c0, src.rows, src.cols,
              {src.bits.data(), src.poison.data(), src.sym.empty() ? nullptr : src.sym.data(), src.cols}, event);
}

void Machine::scatterFrom(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, ElementsIn src,
                          uint32_t event) {
  requireInside(h, r0, c0, rows, cols, "scatter");
  if ((src.sym != nullptr) != (symbols_ != nullptr))
    throw std::logic_error("Machine::scatter: numeric elements into symbolic storage, or the other way round");
  const int esize = h.esize();
  ByteArena& mem = arena(h.space);
  RegionScratch& scratch = regionScratch();
  if (const std::optional<int64_t> start = denseRegionStart(h, r0, c0, rows, cols); start && (rows == 1 || src.stride == cols)) {
    const int64_t n = rows * cols, span = n * esize;
    if (anySet(src.poison, static_cast<size_t>(n)))
      writeStretches(mem, *start, src.bits, src.poison, 1, n, esize, event);
    else
      mem.write(*start, src.bits, span, false, event);
    if (symbols_) {
      ByteTag* tags = room(scratch.tags, span);
      withElementWord(esize, [&](auto word) { tagElements<sizeof(word)>(src.sym, 1, tags, n); });
      mem.writeTags(*start, tags, span);
    }
    logWrite(WriteHull{++writesSoFar_, false, h.space, {*start, *start + span}});
    return;
  }
  const ByteRange hull = collectRuns(h, r0, c0, rows, cols, scratch.runs);
  if (scratch.runs.empty()) return;
  // When the elements fill their hull (a whole tile, whole rows of one) and none is poison, their
  // bytes are put in order and written at once; otherwise run by run, so that the bytes between
  // runs keep what they hold and each stretch of equal poison state is one write.
  const int64_t span = hull.end - hull.begin;
  bool oneWrite = span == rows * cols * esize;
  for (int64_t r = 0; oneWrite && r < rows; ++r) oneWrite = !anySet(src.poison + r * src.stride, static_cast<size_t>(cols));
  uint8_t* const hullBytes = oneWrite ? room(scratch.bytes, span) : nullptr;
  // Tags of a hull the runs fill are put in order and written at once too; else run by run.
  ByteTag* const hullTags = oneWrite && symbols_ ? room(scratch.tags, span) : nullptr;
  for (const ElementRun& run : scratch.runs) {
    const int64_t first = (run.r - r0) * src.stride + (run.c - c0);  // element 0's index in `src`
    const int64_t step = run.down ? src.stride : 1;
    const uint8_t* from = src.bits + first * esize;
    if (symbols_) {
      ByteTag* tags = oneWrite ? hullTags + (run.addr - hull.begin) : room(scratch.tags, run.n * esize);
      withElementWord(esize, [&](auto word) { tagElements<sizeof(word)>(src.sym + first, step, tags, run.n); });
      if (!oneWrite) mem.writeTags(run.addr, tags, run.n * esize);
    }
    if (oneWrite) {
      uint8_t* into = hullBytes + (run.addr - hull.begin);
      if (run.down)
        withElementWord(esize, [&](auto word) { copyElements<decltype(word)>(from, step, into, 1, run.n); });
      else
        std::memcpy(into, from, static_cast<size_t>(run.n * esize));
      continue;
    }
    if (run.down) {  // gather the column into adjacent bytes first
      uint8_t* column = room(scratch.column, run.n * esize);
      withElementWord(esize, [&](auto word) { copyElements<decltype(word)>(from, step, column, 1, run.n); });
      from = column;
    }
    writeStretches(mem, run.addr, from, src.poison + first, step, run.n, esize, event);
  }
  if (oneWrite) {
    mem.write(hull.begin, hullBytes, span, false, event);
    if (symbols_) mem.writeTags(hull.begin, hullTags, span);
  }
  logWrite(WriteHull{++writesSoFar_, false, h.space, hull});
}

void Machine::poisonRegion(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, uint32_t event) {
  DenseElements current = gather(h, r0, c0, rows, cols);
  std::fill(current.poison.begin(), current.poison.end(), uint8_t{1});
  scatter(h, r0, c0, current, event);
}

std::vector<std::array<int64_t, 4>> Machine::poisonTouchedAccBoxes(const Handle& acc, int64_t M, int64_t N,
                                                                    uint32_t event) {
  const int64_t edge = tileops::kAccBoxEdge;
  const int64_t rowEnd = std::min(acc.rows(), (M + edge - 1) / edge * edge);
  const int64_t colEnd = std::min(acc.cols(), (N + edge - 1) / edge * edge);
  std::vector<std::array<int64_t, 4>> regions;
  if (rowEnd > M) regions.push_back({M, 0, rowEnd - M, colEnd});
  if (colEnd > N) regions.push_back({0, N, M, colEnd - N});
  for (const auto& [r0, c0, rows, cols] : regions) poisonRegion(acc, r0, c0, rows, cols, event);
  return regions;
}

const Target& targetOf(TargetKind kind) { return kind == TargetKind::A5 ? targetA5() : targetA2A3(); }

int64_t placementAlignment(const Layout& layout, DType dtype) {
  if (!layout.boxed()) return 32;
  const std::optional<BoxShape> box = boxShape(layout, dtype);
  return box ? std::max<int64_t>(32, box->elements() * dtypeSize(dtype)) : 32;
}

int64_t Machine::placeAddressless(const void* identity, MemSpace space, int64_t bytes, int64_t alignment) {
  if (auto it = placements_.find(identity); it != placements_.end()) return it->second;
  int64_t& end = placementEnd_[static_cast<size_t>(space)];
  const int64_t base = (end + alignment - 1) / alignment * alignment;
  const int64_t usable = target_.space(space).usableEnd();
  if (base + bytes > usable)
    throw HazardFault::make(HazardKind::Capacity,
                            "addressless allocations need " + std::to_string(base + bytes) + " B of " +
                                std::string(memSpaceName(space)) + " (this one: " + std::to_string(bytes) +
                                " B at " + std::to_string(base) + "); the usable capacity of " +
                                std::string(target_.name) + " " + std::string(memSpaceName(space)) + " is " +
                                std::to_string(usable) + " B");
  end = base + bytes;
  placements_.emplace(identity, base);
  return base;
}

}  // namespace ptodiff
