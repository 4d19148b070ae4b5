// Pure type rules of Tile and Buffer values (semantics.md §1-§3), shared by the verifier's op rules:
// storage well-formedness of a tile type (dtype per space, 0 <= valid <= shape, the Vec 32-byte
// pitch rule, whole fractal boxes), the window-read valid rule of slice/extract, assemble's
// write-union and reshape's flat-prefix rule, plus short renderings of types for messages.
//
// Internal to compiler/verify. Nothing here walks the IR or reports diagnostics: each rule returns
// either a result or a message of the form "what is wrong; expected ...".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/Type.h"
#include "compiler/ir/TypeText.h"

namespace ptodiff::verify {

// ---- rendering ----

using ptodiff::shapeText;  // "[16, 32]", of two extents, a Shape or a list of extents
/// "a Vec", "an Acc": a space name with its article.
std::string aSpace(MemSpace space);
/// A constant, a symbol name, or "?" for an extent unknown at compile time.
std::string extentText(const Extent& e);
/// "[16, n]", or "full" when the valid region is the whole physical shape.
std::string validText(const Type& t);
/// The canonical text spelling of a type (the printer's: `pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]`,
/// only the view fields that differ from the space's implicit view), "no value" for None.
std::string typeText(const Type& t);
/// The first part in which two types differ ("dtype FP16 vs FP32"); empty when equal. MemRefs are
/// ignored, as are named extents of `a` standing for dynamic ones of `b` (see typeAccepts).
std::string typeDifference(const Type& a, const Type& b);

// ---- comparing types ----

/// True when a value of type `actual` may be bound where `expected` is declared (an annotation, a
/// loop carry, a declared result): the types are equal ignoring MemRefs, except that a named valid
/// extent in `expected` accepts a dynamic one in `actual` (an annotation may name what inference
/// could only call dynamic).
bool typeAccepts(const Type& expected, const Type& actual);

// ---- storage rules ----

/// Tile element types: FP16, BF16, FP32, INT8, INT32 (UINT8 exists only as a Buffer byte root).
bool isTileDType(DType dt);
/// The element types a space can hold: Left/Right take matmul operands (FP16, BF16, FP32, INT8),
/// Acc takes accumulators (FP32, INT32), Vec and Mat any tile dtype.
bool spaceHoldsDType(MemSpace space, DType dt);
/// "FP16, BF16, FP32 or INT8": the dtypes `space` holds, for messages.
std::string dtypesOfSpace(MemSpace space);

/// One fractal box of a boxed layout, in elements (semantics.md §3): 16 x (fractal/esize/16) with a
/// row-major inner order, transposed with a column-major one. nullopt for unboxed layouts.
struct Box {
  int64_t rows = 0, cols = 0;
};
std::optional<Box> fractalBox(const Layout& layout, DType dt);

/// Whether the Vec pitch rule applies: a tile that owns its rows (a fresh result, a reshape) must
/// have 32-byte rows (columns when col-major); a window (slice, transpose_view, set_validshape)
/// inherits its parent's pitch, whose alignment was checked where the parent was made.
enum class PitchRule : bool { Exempt, Check };

/// What is wrong with `t` (a Tile) as a stored tile, or empty: dtype not held by its space, valid
/// extents outside [0, shape], Vec rows (columns when col-major) not a 32-byte multiple, boxed
/// shapes that are not whole boxes.
std::string tileTypeProblem(const Type& t, PitchRule pitch);

/// What is wrong with `t` (a Buffer annotation), or empty: only static facts (dtype, positive
/// shape, constant valid extents inside the shape); alignment and the rest are runtime checks.
std::string bufferTypeProblem(const Type& t);

// ---- valid-extent rules ----

/// The window-read rule (slice, extract) on one axis: min(requested or window,
/// clamp(sourceValid - offset, 0, window)), constant when its inputs are, the source's own
/// extent when the window spans the whole axis from 0, a requested named extent when the source
/// is fully valid there, dynamic otherwise.
Extent windowValid(const Extent& sourceValid, int64_t sourceExtent, const Extent& offset, int64_t window,
                   const Extent* requested);

/// Either a valid shape or the message saying why none exists.
struct ValidOrError {
  ValidShape valid;
  std::string error;
};

/// Assemble's write-union of the target's valid region and `offset + valid(source)` (semantics.md §2).
/// Requires a prefix rectangle; gives dynamic extents where inputs are not constant.
ValidOrError assembleValid(const Type& target, const Type& source, const std::array<Extent, 2>& offset);

/// Reshape's flat-prefix rule (semantics.md §2) from `source` to physical [rows, cols].
ValidOrError reshapeValid(const Type& source, int64_t rows, int64_t cols);

/// transpose_view's layout: both orders flipped (NZ <-> ZN, ND <-> DN), fractal kept.
Layout transposedLayout(const Layout& layout);

/// The type transpose_view gives `t`: shape and valid extents swapped, layout transposed; the view
/// names the same bytes, so the MemRef is kept.
Type transposedType(const Type& t);

/// Whether a tile of type `t` stores its elements in another order than row-major: a col-major (DN)
/// tile of more than one row and column (one row or one column reads the same either way).
bool storedColumnByColumn(const Type& t);

}  // namespace ptodiff::verify
