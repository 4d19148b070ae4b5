#include "interp/Tensor.h"

#include <cstring>
#include <stdexcept>

namespace ptodiff {

void throwElementWidth(int esize) {
  throw std::logic_error("an element of " + std::to_string(esize) + " bytes");
}

bool Tensor::anyPoison() const {
  for (uint8_t p : poison)
    if (p) return true;
  return false;
}

void Tensor::fillBits(uint64_t bits) {
  for (int64_t i = 0; i < elements(); ++i) setBitsAt(i, bits);
}

uint64_t sentinelBits(DType dt) {
  switch (dt) {
    case DType::FP32: return 0x7FC0DEADu;
    case DType::FP16: return 0x7E5Au;
    case DType::BF16: return 0x7FDAu;
    case DType::INT32: return 0x5EA1DEADu;
    case DType::INT8: case DType::UINT8: return 0x5Au;
    case DType::INT64: case DType::INDEX: return 0x5EA1DEAD5EA1DEADull;
    case DType::BOOL: return 0x5Au;
  }
  return 0;
}

}  // namespace ptodiff
