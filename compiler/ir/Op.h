// The op registry: one entry per op of Ops.def with its signature, effects and doc line.
//
// Arguments bind like a Python call against the parameter list (positionally in order, or by
// keyword); after parsing, a Call holds exactly one argument slot per parameter, in parameter
// order, with nullptr for an omitted optional parameter.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ptodiff {

enum class Opcode : uint16_t {
#define PTO_OP(Enum, spelling, family) Enum,
#include "compiler/ir/Ops.def"
#undef PTO_OP
};

enum class OpFamily : uint8_t {
  ScalarConst, Load, Store, Binary, Unary, TileScalar, Full, Create, Slice, Assemble, Reshape,
  SetValidShape, Move, Extract, TransposeView, Matmul, MatmulAcc, RowReduce, ColReduce,
  BlockQuery, StorageRoot,
  BufAlloc, BufSubview, BufReshape, BufSetValidShape, BufLoad, BufStore, BufCopy, BufExtract,
  BufBinary, BufUnary, BufTileScalar, BufFull, BufMatmul,
};

enum class OpStage : uint8_t { Scalar, Tile, Buffer };

/// What an argument slot holds.
enum class ParamKind : uint8_t {
  Value,      // an SSA name of tile, tensor or buffer type
  Scalar,     // a scalar expression (INDEX/INT/FP/BOOL)
  IndexList,  // a list/tuple of scalar INDEX expressions, e.g. offsets [r0, c0]
  ShapeList,  // a list/tuple of integer literals, e.g. [16, 32]
  DType,      // pl.FP32, ...
  Space,      // pl.Mem.Vec, ...
  ValidTuple, // buffer.alloc's initial dynamic valid tuple: () or (vr, vc)
};

struct ParamSpec {
  std::string_view name;
  ParamKind kind;
  bool optional = false;
};

/// Facts later passes and checkers need; see semantics.md §2, §4, §5.
struct OpEffects {
  bool readsGM = false;
  bool writesGM = false;
  bool isView = false;        // result aliases an operand's storage (slice, reshape, subview, ...)
  bool inPlaceSafe = true;    // dst may be the identical window of a source (false: recip, move, ...)
  bool writesDest = false;    // Buffer op writing its destination operand (returns nothing)
  bool hasResult = true;      // produces an SSA value
};

struct OpInfo {
  Opcode code;
  std::string_view spelling;  // "tile.load": the text after `pl.`
  OpFamily family;
  OpStage stage;
  std::span<const ParamSpec> params;
  OpEffects effects;
  std::string_view doc;  // one line, including the op's undefined cases
};

const OpInfo& opInfo(Opcode op);
/// Looks up "tile.add", "buffer.load", "const" (without the `pl.` prefix).
std::optional<Opcode> lookupOp(std::string_view spelling);
std::span<const OpInfo> allOps();
/// Index of parameter `name` in op's parameter list, or -1.
int paramIndex(const OpInfo& info, std::string_view name);

}  // namespace ptodiff
