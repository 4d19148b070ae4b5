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

std::string operandName(const Expr& call, size_t i) {
  const Expr* a = call.args.at(i).get();
  if (a && a->kind == Expr::Kind::Name) return a->name;
  return std::string(opInfo(call.op).params[i].name);
}

}  // namespace ptodiff::walker
