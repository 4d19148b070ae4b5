// The implicit layout of each memory space: the view a tile takes when its type names none
// (PyPTO's implicit tile view; semantics.md §3). It is part of the target description, kept in
// its own header for two reasons:
//   - a2a3 and a5 agree on it (§3 gives one addressing table for both targets; a2a3's ZZ L0A order
//     applies only where a handle's own layout says ZZ), so both targets share this one table
//     instead of each Target repeating it;
//   - it needs only DType.h's vocabulary, so compiler/ir/Type.cpp (which resolves and prints
//     implicit layouts without knowing a target) reads it without depending on Target.
#pragma once

#include "compiler/ir/DType.h"

namespace ptodiff {

/// One space's implicit layout: the box orders (blayout outer, slayout inner) and the box bytes.
struct ImplicitSpaceLayout {
  TileLayout blayout = TileLayout::row_major;
  TileLayout slayout = TileLayout::none_box;
  int fractal = 512;
  /// A static column [M, 1] with M > 1 is col-major (DN) instead: Vec only, as PyPTO's
  /// GetImplicitTileLayout does: the one-element rows of a row-major column could not meet the
  /// 32-byte row rule of Vec tiles (§3).
  bool columnIsColMajor = false;
};

/// Vec ND (columns DN), Mat and Left NZ, Right ZN, Acc NZ with fractal 1024 (a 16x16 box of 4-byte
/// accumulators); the same on every target.
constexpr ImplicitSpaceLayout implicitSpaceLayout(MemSpace space) {
  using L = TileLayout;
  switch (space) {
    case MemSpace::Vec: return {L::row_major, L::none_box, 512, /*columnIsColMajor=*/true};
    case MemSpace::Mat:
    case MemSpace::Left: return {L::col_major, L::row_major, 512, false};
    case MemSpace::Right: return {L::row_major, L::col_major, 512, false};
    case MemSpace::Acc: return {L::col_major, L::row_major, 1024, false};
  }
  return {};
}

}  // namespace ptodiff
