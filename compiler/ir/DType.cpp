#include "compiler/ir/DType.h"

#include <array>

namespace ptodiff {

namespace {
constexpr std::array<std::string_view, 9> kDTypeNames = {"FP16",  "BF16",  "FP32",  "INT8", "UINT8",
                                                         "INT32", "INT64", "INDEX", "BOOL"};
constexpr std::array<std::string_view, 5> kSpaceNames = {"Vec", "Mat", "Left", "Right", "Acc"};
constexpr std::array<std::string_view, 3> kLayoutNames = {"none_box", "row_major", "col_major"};

template <class Enum, size_t N>
std::optional<Enum> lookupName(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}
}  // namespace

bool isScalarDType(DType t) {
  return t == DType::INDEX || t == DType::INT32 || t == DType::INT64 || t == DType::FP32 ||
         t == DType::BOOL;
}

std::string_view dtypeName(DType t) { return kDTypeNames[static_cast<size_t>(t)]; }
std::optional<DType> parseDType(std::string_view n) { return lookupName<DType>(kDTypeNames, n); }
std::string_view memSpaceName(MemSpace s) { return kSpaceNames[static_cast<size_t>(s)]; }
std::optional<MemSpace> parseMemSpace(std::string_view n) { return lookupName<MemSpace>(kSpaceNames, n); }
std::string_view tileLayoutName(TileLayout l) { return kLayoutNames[static_cast<size_t>(l)]; }
std::optional<TileLayout> parseTileLayout(std::string_view n) {
  return lookupName<TileLayout>(kLayoutNames, n);
}

}  // namespace ptodiff
