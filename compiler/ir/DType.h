// Element types, memory spaces and tile layouts: the vocabulary shared by every module.
//
// Value rules (semantics.md §1): INDEX and INT64 are 64-bit signed and exact (overflow is an
// invalid program); INT32 wraps modulo 2^32; FP16/BF16/FP32 are IEEE with round-to-nearest-even.
// UINT8 exists only as the byte root of planned storage views.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptodiff {

enum class DType : uint8_t { FP16, BF16, FP32, INT8, UINT8, INT32, INT64, INDEX, BOOL };

/// Bytes per element; BOOL is stored as one byte. Inline: the interpreters ask per element.
constexpr int dtypeSize(DType t) {
  switch (t) {
    case DType::FP16: case DType::BF16: return 2;
    case DType::FP32: case DType::INT32: return 4;
    case DType::INT8: case DType::UINT8: case DType::BOOL: return 1;
    case DType::INT64: case DType::INDEX: return 8;
  }
  return 0;
}
constexpr bool isFloat(DType t) { return t == DType::FP16 || t == DType::BF16 || t == DType::FP32; }
/// INT8, UINT8, INT32, INT64, INDEX.
constexpr bool isInteger(DType t) {
  return t == DType::INT8 || t == DType::UINT8 || t == DType::INT32 || t == DType::INT64 || t == DType::INDEX;
}
/// Scalar dtypes a `pl.Scalar[...]` or scalar expression may have.
bool isScalarDType(DType t);
/// "FP32", "INDEX", ... (the spelling after `pl.`).
std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view name);

/// On-chip memory spaces of a tile or buffer (PyPTO's MemorySpace minus DDR, which is a Tensor).
enum class MemSpace : uint8_t { Vec, Mat, Left, Right, Acc };
std::string_view memSpaceName(MemSpace s);
std::optional<MemSpace> parseMemSpace(std::string_view name);

/// PyPTO's TileLayout enum, used for both the outer (blayout) and inner box (slayout) order.
enum class TileLayout : uint8_t { none_box, row_major, col_major };
std::string_view tileLayoutName(TileLayout l);
std::optional<TileLayout> parseTileLayout(std::string_view name);

}  // namespace ptodiff
