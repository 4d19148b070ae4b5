// Short renderings of the parts of a type, shared by the printer (program text) and the
// verifier's messages so that both spell a shape or an extent the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/Type.h"

namespace ptodiff {

/// "[16, 32]"
inline std::string shapeText(int64_t rows, int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

/// "[4, 16, 32]": any rank, "[]" for none (a Shape or a list of extents).
template <class Extents>
std::string shapeText(const Extents& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// A constant, a symbol's name, or `dynamicText` for an extent unknown at compile time: the text
/// format writes it "-1", messages say "?".
inline std::string extentText(const Extent& e, std::string_view dynamicText) {
  switch (e.kind) {
    case Extent::Kind::Const: return std::to_string(e.value);
    case Extent::Kind::Symbol: return e.symbol;
    case Extent::Kind::Dynamic: return std::string(dynamicText);
  }
  return "?";
}

}  // namespace ptodiff
