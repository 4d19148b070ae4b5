#include "interp/KernelWalker.h"

namespace ptodiff::walker {

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }
std::string pairText(const std::array<int64_t, 2>& p) { return pairText(p[0], p[1]); }

std::string scalarText(const ScalarValue& v) {
  switch (v.dtype) {
    case DType::FP32: return std::to_string(v.f);
    case DType::BOOL: return v.i ? "True" : "False";
    default: return std::to_string(v.i);
  }
}

}  // namespace ptodiff::walker
