#include "interp/OpKinds.h"

#include <stdexcept>
#include <string>

namespace ptodiff {

using arith::BinaryKind;
using arith::ReduceKind;
using arith::UnaryKind;

BinaryKind binaryKindOf(Opcode op) {
  switch (op) {
    case Opcode::TileAdd: case Opcode::TileAdds: case Opcode::BufAdd: case Opcode::BufAdds: return BinaryKind::Add;
    case Opcode::TileSub: case Opcode::TileSubs: case Opcode::BufSub: case Opcode::BufSubs: return BinaryKind::Sub;
    case Opcode::TileMul: case Opcode::TileMuls: case Opcode::BufMul: case Opcode::BufMuls: return BinaryKind::Mul;
    case Opcode::TileDiv: case Opcode::TileDivs: case Opcode::BufDiv: case Opcode::BufDivs: return BinaryKind::Div;
    case Opcode::TileMaximum: case Opcode::TileMaximums: case Opcode::BufMaximum: case Opcode::BufMaximums:
      return BinaryKind::Max;
    case Opcode::TileMinimum: case Opcode::TileMinimums: case Opcode::BufMinimum: case Opcode::BufMinimums:
      return BinaryKind::Min;
    case Opcode::TileLrelu: case Opcode::BufLrelu: return BinaryKind::Lrelu;
    default: break;
  }
  throw std::logic_error("binaryKindOf: " + std::string(opInfo(op).spelling) + " is not a binary op");
}

UnaryKind unaryKindOf(Opcode op) {
  switch (op) {
    case Opcode::TileAbs: case Opcode::BufAbs: return UnaryKind::Abs;
    case Opcode::TileExp: case Opcode::BufExp: return UnaryKind::Exp;
    case Opcode::TileSqrt: case Opcode::BufSqrt: return UnaryKind::Sqrt;
    case Opcode::TileNeg: case Opcode::BufNeg: return UnaryKind::Neg;
    case Opcode::TileRelu: case Opcode::BufRelu: return UnaryKind::Relu;
    case Opcode::TileLog: case Opcode::BufLog: return UnaryKind::Log;
    case Opcode::TileRecip: case Opcode::BufRecip: return UnaryKind::Recip;
    default: break;
  }
  throw std::logic_error("unaryKindOf: " + std::string(opInfo(op).spelling) + " is not a unary op");
}

ReduceKind reduceKindOf(Opcode op) {
  switch (op) {
    case Opcode::TileRowSum: case Opcode::TileColSum: return ReduceKind::Sum;
    case Opcode::TileRowMax: case Opcode::TileColMax: return ReduceKind::Max;
    case Opcode::TileRowMin: case Opcode::TileColMin: return ReduceKind::Min;
    default: break;
  }
  throw std::logic_error("reduceKindOf: " + std::string(opInfo(op).spelling) + " is not a reduction");
}

}  // namespace ptodiff
