#include "oracle/ElementDecode.h"

#include <Eigen/Core>
#include <bit>
#include <stdexcept>
#include <string>

namespace ptodiff::oracle {

double decodeFloatBits(DType dt, uint64_t bits) {
  switch (dt) {
    case DType::FP32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case DType::FP16: return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(bits)));
    case DType::BF16:
      return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<uint16_t>(bits)));
    default: break;
  }
  throw std::logic_error("decodeFloatBits: " + std::string(dtypeName(dt)) + " is not a float dtype");
}

int64_t decodeIntegerBits(DType dt, uint64_t bits) {
  switch (dt) {
    case DType::INT8: return static_cast<int8_t>(static_cast<uint8_t>(bits));
    case DType::UINT8: case DType::BOOL: return static_cast<uint8_t>(bits);
    case DType::INT32: return static_cast<int32_t>(static_cast<uint32_t>(bits));
    case DType::INT64: case DType::INDEX: return static_cast<int64_t>(bits);
    default: break;
  }
  throw std::logic_error("decodeIntegerBits: " + std::string(dtypeName(dt)) + " is not an integer dtype");
}

}  // namespace ptodiff::oracle
