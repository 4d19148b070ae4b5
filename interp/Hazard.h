// Storage hazards (semantics.md §5): the checkers of the physical interpreters and the values
// they report.
//
// A hazard is a program fault, not a ptodiff error (STYLE rule 5): the run stops at its first
// hazard and returns it in RunResult with the statement's location. The kinds, in the order of
// the spec's table:
//
//   bounds        a touched byte lies outside its space, or a view's bytes leave its root
//   align         a handle base is not 32-byte aligned, a Vec row pitch (column for col-major
//                 [R, 1]) is not a 32-byte multiple, or a boxed handle is not box-aligned or does
//                 not hold whole boxes
//   reserved      a Vec buffer touches the target's reserved scratch range
//   overlap       an op's destination bytes overlap a source's bytes without being the identical
//                 window, or overlap at all for ops that cannot run in place (a transfer may be an
//                 exact self-copy, a no-op: checkTransferOverlap)
//   live-clobber  (planned Tile) a read finds another write event than the value expects
//   capacity      addressless allocations exceed a space's usable capacity
//   valid         a valid extent exceeds the physical shape, a runtime window does not fit its
//                 parent, a load/store extents tuple differs from the handle's valid region
//   empty-op      a load, store, compute, copy, extract or matmul over an empty region, or an
//                 empty subview
//   uninit        (comparison) an output element is poison where the Tile semantics define it
//   addressless   an allocation without an address in a program from an addressed planner
//
// The pure checkers over handles live here; the interpreters decide when each one runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

struct Handle;
struct Target;
struct ByteRange;

enum class HazardKind : uint8_t {
  Bounds,
  Align,
  Reserved,
  Overlap,
  LiveClobber,
  Capacity,
  Valid,
  EmptyOp,
  Uninit,
  Addressless,
};

/// "bounds", "live-clobber", "empty-op", ...: the spelling after `hazard: `.
std::string_view hazardKindName(HazardKind k);
std::optional<HazardKind> parseHazardKind(std::string_view name);

/// One hazard: what kind, the details ("buffer.recip: destination r overlaps source x ..."),
/// and where (the statement; filled by the interpreter when the checker does not know it).
struct Hazard {
  HazardKind kind = HazardKind::Bounds;
  std::string detail;
  SourceLoc loc;

  /// "KIND: detail", the message of the hazard's diagnostic.
  std::string message() const;
};

/// Thrown inside the physical interpreters to stop a run at its first hazard; the interpreter
/// catches it, locates it and returns it in RunResult.
struct HazardFault {
  Hazard hazard;
  static HazardFault make(HazardKind kind, std::string detail) { return HazardFault{Hazard{kind, std::move(detail), {}}}; }
};

// ---------------------------------------------------------------------------------------------
// Checkers. Each returns the hazard it finds (first in the order documented) or nullopt.
// ---------------------------------------------------------------------------------------------

/// A handle as placed on `target`: its base is 32-byte aligned; a boxed handle has a box for its
/// dtype, holds whole boxes and its base is a multiple of the box bytes; a Vec ND handle has a
/// 32-byte-multiple row pitch and a Vec DN handle a 32-byte-multiple column; its bytes lie inside
/// the space and inside its root allocation; a Vec handle keeps clear of the reserved range.
/// Checked in that order (align, bounds, reserved). `what` names the handle in messages.
std::optional<Hazard> checkPlacement(const Handle& h, const Target& target, std::string_view what);
/// checkPlacement naming the handle `what()`, built only when there is a hazard to report (views
/// check their placement on every run, and their names are concatenations).
template <class What>
std::optional<Hazard> checkPlacementOf(const Handle& h, const Target& target, const What& what) {
  if (!checkPlacement(h, target, {})) return std::nullopt;
  return checkPlacement(h, target, what());
}

/// The bytes an op touches through `h` over the rows x cols region at (r0, c0), as sorted,
/// merged half-open ranges. Precondition: the region lies inside h's physical shape.
std::vector<ByteRange> footprint(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols);

/// Whether two sorted, merged range lists share a byte; the first shared range in `*where`.
bool rangesOverlap(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b, ByteRange* where = nullptr);

/// The identical-window exemption of the overlap checker: same space, base, dtype, layout, shape
/// and (ND) pitch, so every lane reads and writes the same bytes.
bool identicalWindow(const Handle& a, const Handle& b);

/// One source operand of an op, as the overlap checker sees it.
struct OperandFootprint {
  const Handle* handle = nullptr;
  std::string_view name;  // the operand's SSA name, for messages
  int64_t r0 = 0, c0 = 0, rows = 0, cols = 0;  // the region the op reads
};

/// `op` writes `dst` over `dstRegion` and reads `sources`: overlap when a source's bytes meet the
/// destination's, unless `inPlaceSafe` and the two are the identical window.
std::optional<Hazard> checkOverlap(std::string_view op, const OperandFootprint& dst,
                                   const std::vector<OperandFootprint>& sources, bool inPlaceSafe);

/// Whether copying `src`'s region onto `dst`'s region moves every lane's bits onto themselves: same
/// space and dtype, same region extents, and each lane (i, j) at the same byte address on both
/// sides (so layout, pitch and base agree wherever the copy reaches).
bool exactSelfCopy(const OperandFootprint& dst, const OperandFootprint& src);

/// The overlap check of a transfer (move, copy, extract, assemble's source write, an in-place
/// result's input copy): such an op cannot run in place, except that an exact self-copy
/// (exactSelfCopy) writes each byte with the bits it already holds and is therefore a no-op
/// (docs/decisions.md, "Exact self-copies pass the overlap checker"); any other shared byte is
/// `hazard: overlap` with checkOverlap's message.
std::optional<Hazard> checkTransferOverlap(std::string_view op, const OperandFootprint& dst,
                                           const OperandFootprint& src);

}  // namespace ptodiff
