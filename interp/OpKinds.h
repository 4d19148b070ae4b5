// Which arithmetic kernel (interp/Arith.h) an op code runs, for the Tile and the Buffer spelling
// of each op alike: one table for the value, planned-Tile and Buffer interpreters.
#pragma once

#include "compiler/ir/Op.h"
#include "interp/Arith.h"

namespace ptodiff {

/// add/sub/mul/div/maximum/minimum, their tile-scalar forms and lrelu (tile.* and buffer.*);
/// std::logic_error for any other op.
arith::BinaryKind binaryKindOf(Opcode op);
/// abs/exp/sqrt/neg/relu/log/recip (tile.* and buffer.*); std::logic_error otherwise.
arith::UnaryKind unaryKindOf(Opcode op);
/// row_* and col_* reductions; std::logic_error otherwise.
arith::ReduceKind reduceKindOf(Opcode op);

}  // namespace ptodiff
