#include "interp/Hazard.h"

#include <algorithm>
#include <array>

#include "compiler/target/Target.h"
#include "interp/Layout.h"
#include "interp/Machine.h"

namespace ptodiff {

namespace {

constexpr std::array<std::pair<HazardKind, std::string_view>, 10> kNames{{
    {HazardKind::Bounds, "bounds"},
    {HazardKind::Align, "align"},
    {HazardKind::Reserved, "reserved"},
    {HazardKind::Overlap, "overlap"},
    {HazardKind::LiveClobber, "live-clobber"},
    {HazardKind::Capacity, "capacity"},
    {HazardKind::Valid, "valid"},
    {HazardKind::EmptyOp, "empty-op"},
    {HazardKind::Uninit, "uninit"},
    {HazardKind::Addressless, "addressless"},
}};

std::string rangeText(const ByteRange& r) {
  return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

std::string shapeText(int64_t rows, int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

Hazard hazard(HazardKind kind, std::string_view what, const std::string& detail) {
  return Hazard{kind, std::string(what) + ": " + detail, {}};
}

/// The smallest range holding every range of a sorted list.
ByteRange hull(const std::vector<ByteRange>& ranges) {
  return ranges.empty() ? ByteRange{} : ByteRange{ranges.front().begin, ranges.back().end};
}

}  // namespace

std::string_view hazardKindName(HazardKind k) {
  for (const auto& [kind, name] : kNames)
    if (kind == k) return name;
  return "?";
}

std::optional<HazardKind> parseHazardKind(std::string_view name) {
  for (const auto& [kind, spelling] : kNames)
    if (spelling == name) return kind;
  return std::nullopt;
}

std::string Hazard::message() const { return std::string(hazardKindName(kind)) + ": " + detail; }

std::optional<Hazard> checkPlacement(const Handle& h, const Target& target, std::string_view what) {
  const int64_t align = target.baseAlignment;
  if (h.base % align != 0)
    return hazard(HazardKind::Align, what,
                  "base address " + std::to_string(h.base) + " is not " + std::to_string(align) + "-byte aligned");
  if (!addressingOf(h.geom.layout))
    return hazard(HazardKind::Align, what,
                  "layout " + layoutText(h.geom.layout) + " has no element addressing; expected ND, DN, NZ, ZN or ZZ");
  if (h.boxed()) {
    std::string why;
    const std::optional<BoxShape> box = boxShape(h.geom.layout, h.dtype(), &why);
    if (!box)
      return hazard(HazardKind::Align, what,
                    "layout " + layoutText(h.geom.layout) + " with fractal " + std::to_string(h.geom.layout.fractal) +
                        " has no box for " + std::string(dtypeName(h.dtype())) + " (" + why + ")");
    if (h.rows() % box->rows != 0 || h.cols() % box->cols != 0)
      return hazard(HazardKind::Align, what,
                    "boxed handle " + shapeText(h.rows(), h.cols()) + " does not hold whole " +
                        std::to_string(box->rows) + " x " + std::to_string(box->cols) + " boxes");
    const int64_t boxBytes = box->elements() * h.esize();
    if (h.base % boxBytes != 0)
      return hazard(HazardKind::Align, what,
                    "base address " + std::to_string(h.base) + " of a boxed " + layoutText(h.geom.layout) +
                        " handle is not a multiple of its " + std::to_string(boxBytes) + "-byte box");
  } else if (h.space == MemSpace::Vec) {
    const bool colMajor = addressingOf(h.geom.layout) == AddressingKind::DN;
    if (colMajor && (h.rows() * h.esize()) % 32 != 0)
      return hazard(HazardKind::Align, what,
                    "col-major column of " + std::to_string(h.rows()) + " x " + std::to_string(h.esize()) + " B = " +
                        std::to_string(h.rows() * h.esize()) + " B is not a multiple of 32 B");
    if (!colMajor && h.geom.pitchBytes % 32 != 0)
      return hazard(HazardKind::Align, what,
                    "row pitch " + std::to_string(h.geom.pitchBytes) + " B is not a multiple of 32 B");
  }
  const ByteRange span = h.span();
  const SpaceDesc& space = target.space(h.space);
  if (span.begin < 0 || span.end > space.capacity)
    return hazard(HazardKind::Bounds, what,
                  "bytes " + rangeText(span) + " leave " + std::string(target.name) + " " +
                      std::string(memSpaceName(h.space)) + " [0, " + std::to_string(space.capacity) + ")");
  if (span.begin < h.root.begin || span.end > h.root.end)
    return hazard(HazardKind::Bounds, what,
                  "bytes " + rangeText(span) + " leave the root allocation " + rangeText(h.root));
  if (h.space == MemSpace::Vec && space.reserved && span.overlaps(*space.reserved))
    return hazard(HazardKind::Reserved, what,
                  "bytes " + rangeText(span) + " touch the reserved scratch range " + rangeText(*space.reserved) +
                      " of " + std::string(target.name) + " Vec");
  return std::nullopt;
}

std::vector<ByteRange> footprint(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  std::vector<ByteRange> ranges;
  const int64_t esize = h.esize();
  forEachRun(h, r0, c0, rows, cols,
             [&](const ElementRun& run) { ranges.push_back({run.addr, run.addr + run.n * esize}); });
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  std::vector<ByteRange> merged;
  for (const ByteRange& r : ranges) {
    if (!merged.empty() && r.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, r.end);
    else
      merged.push_back(r);
  }
  return merged;
}

bool rangesOverlap(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b, ByteRange* where) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].overlaps(b[j])) {
      if (where) *where = {std::max(a[i].begin, b[j].begin), std::min(a[i].end, b[j].end)};
      return true;
    }
    if (a[i].end <= b[j].begin)
      ++i;
    else
      ++j;
  }
  return false;
}

bool identicalWindow(const Handle& a, const Handle& b) {
  const bool nd = addressingOf(a.geom.layout) == AddressingKind::ND;
  return a.space == b.space && a.base == b.base && a.dtype() == b.dtype() && a.geom.layout == b.geom.layout &&
         a.rows() == b.rows() && a.cols() == b.cols() && (!nd || a.geom.pitchBytes == b.geom.pitchBytes);
}

std::optional<Hazard> checkOverlap(std::string_view op, const OperandFootprint& dst,
                                   const std::vector<OperandFootprint>& sources, bool inPlaceSafe) {
  std::vector<ByteRange> dstBytes;
  for (const OperandFootprint& src : sources) {
    if (src.handle->space != dst.handle->space || src.rows == 0 || src.cols == 0) continue;
    // Handles whose spans are disjoint share no byte: most operands, which skip the footprints.
    if (!src.handle->span().overlaps(dst.handle->span())) continue;
    if (dstBytes.empty()) dstBytes = footprint(*dst.handle, dst.r0, dst.c0, dst.rows, dst.cols);
    const std::vector<ByteRange> srcBytes = footprint(*src.handle, src.r0, src.c0, src.rows, src.cols);
    ByteRange shared;
    if (!rangesOverlap(dstBytes, srcBytes, &shared)) continue;
    const bool sameLanes = identicalWindow(*dst.handle, *src.handle) && dst.r0 == src.r0 && dst.c0 == src.c0;
    if (inPlaceSafe && sameLanes) continue;
    std::string detail = "destination " + std::string(dst.name) + " (bytes " + rangeText(hull(dstBytes)) +
                         ") overlaps source " + std::string(src.name) + " (bytes " + rangeText(hull(srcBytes)) +
                         ") first at bytes " + rangeText(shared);
    detail += inPlaceSafe ? " without being the identical window" : "; " + std::string(op) + " cannot run in place";
    return Hazard{HazardKind::Overlap, std::string(op) + ": " + detail, {}};
  }
  return std::nullopt;
}

bool exactSelfCopy(const OperandFootprint& dst, const OperandFootprint& src) {
  const Handle &d = *dst.handle, &s = *src.handle;
  if (d.space != s.space || d.dtype() != s.dtype() || dst.rows != src.rows || dst.cols != src.cols) return false;
  const ElementAddressing da(d.geom), sa(s.geom);
  for (int64_t i = 0; i < dst.rows; ++i)
    for (int64_t j = 0; j < dst.cols; ++j)
      if (d.base + da.offset(dst.r0 + i, dst.c0 + j) != s.base + sa.offset(src.r0 + i, src.c0 + j)) return false;
  return true;
}

std::optional<Hazard> checkTransferOverlap(std::string_view op, const OperandFootprint& dst,
                                           const OperandFootprint& src) {
  std::optional<Hazard> overlap = checkOverlap(op, dst, {src}, /*inPlaceSafe=*/false);
  // Only an overlapping pair pays for the lane-by-lane comparison.
  if (overlap && exactSelfCopy(dst, src)) return std::nullopt;
  return overlap;
}

}  // namespace ptodiff
