// The registry entries of Ops.def: parameter lists (PyPTO's parameter names), effects and docs.
#include <array>
#include <stdexcept>
#include <string>

#include "compiler/ir/Op.h"

namespace ptodiff {

namespace {
using K = ParamKind;
constexpr ParamSpec P(std::string_view n, ParamKind k) { return {n, k, false}; }
constexpr ParamSpec Opt(std::string_view n, ParamKind k) { return {n, k, true}; }

// ---- parameter lists ----
constexpr ParamSpec kConst[] = {P("value", K::Scalar), P("dtype", K::DType)};
constexpr ParamSpec kLoad[] = {P("tensor", K::Value), P("offsets", K::IndexList), P("shapes", K::ShapeList),
                               Opt("valid_shape", K::IndexList), Opt("target_memory", K::Space)};
constexpr ParamSpec kStore[] = {P("tile", K::Value), P("offsets", K::IndexList), P("output_tensor", K::Value)};
constexpr ParamSpec kBinary[] = {P("lhs", K::Value), P("rhs", K::Value)};
constexpr ParamSpec kUnary[] = {P("tile", K::Value)};
constexpr ParamSpec kTileScalar[] = {P("lhs", K::Value), P("rhs", K::Scalar)};
constexpr ParamSpec kLrelu[] = {P("tile", K::Value), P("slope", K::Scalar)};
constexpr ParamSpec kFull[] = {P("shape", K::ShapeList), P("dtype", K::DType), P("value", K::Scalar)};
constexpr ParamSpec kCreate[] = {P("shape", K::ShapeList), P("dtype", K::DType), Opt("target_memory", K::Space)};
constexpr ParamSpec kSlice[] = {P("tile", K::Value), P("shape", K::ShapeList), P("offset", K::IndexList),
                                Opt("valid_shape", K::IndexList)};
constexpr ParamSpec kAssemble[] = {P("target", K::Value), P("source", K::Value), P("offset", K::IndexList)};
constexpr ParamSpec kReshape[] = {P("tile", K::Value), P("shape", K::ShapeList)};
constexpr ParamSpec kSetValid[] = {P("tile", K::Value), P("valid_rows", K::Scalar), P("valid_cols", K::Scalar)};
constexpr ParamSpec kMove[] = {P("tile", K::Value), P("target_memory", K::Space)};
constexpr ParamSpec kExtract[] = {P("src", K::Value), P("index_row", K::Scalar), P("index_col", K::Scalar),
                                  P("shape", K::ShapeList), P("target_memory", K::Space)};
constexpr ParamSpec kTranspose[] = {P("tile", K::Value)};
constexpr ParamSpec kMatmul[] = {P("lhs", K::Value), P("rhs", K::Value)};
constexpr ParamSpec kMatmulAcc[] = {P("acc", K::Value), P("lhs", K::Value), P("rhs", K::Value),
                                    Opt("init_cond", K::Scalar)};
constexpr ParamSpec kRowReduce[] = {P("tile", K::Value), P("tmp_tile", K::Value)};
constexpr ParamSpec kColReduce[] = {P("tile", K::Value)};
constexpr ParamSpec kNone[] = {P("", K::Value)};  // placeholder; sliced to zero length below
constexpr ParamSpec kTileAlloc[] = {P("memory_space", K::Space), P("size", K::Scalar), Opt("addr", K::Scalar)};

constexpr ParamSpec kBufAlloc[] = {P("valid_shape", K::ValidTuple), Opt("addr", K::Scalar)};
constexpr ParamSpec kBufSubview[] = {P("parent", K::Value), P("offsets", K::IndexList),
                                     Opt("valid_shape", K::IndexList)};
constexpr ParamSpec kBufReshape[] = {P("buffer", K::Value)};
constexpr ParamSpec kBufSetValid[] = {P("buffer", K::Value), P("valid_shape", K::IndexList)};
constexpr ParamSpec kBufLoad[] = {P("tensor", K::Value), P("offsets", K::IndexList), P("shapes", K::IndexList),
                                  P("dst", K::Value)};
constexpr ParamSpec kBufStore[] = {P("src", K::Value), P("offsets", K::IndexList), P("shapes", K::IndexList),
                                   P("output_tensor", K::Value)};
constexpr ParamSpec kBufCopy[] = {P("src", K::Value), P("dst", K::Value)};
constexpr ParamSpec kBufExtract[] = {P("src", K::Value), P("index_row", K::Scalar), P("index_col", K::Scalar),
                                     P("dst", K::Value)};
constexpr ParamSpec kBufBinary[] = {P("lhs", K::Value), P("rhs", K::Value), P("dst", K::Value)};
constexpr ParamSpec kBufUnary[] = {P("src", K::Value), P("dst", K::Value)};
constexpr ParamSpec kBufTileScalar[] = {P("lhs", K::Value), P("rhs", K::Scalar), P("dst", K::Value)};
constexpr ParamSpec kBufLrelu[] = {P("src", K::Value), P("slope", K::Scalar), P("dst", K::Value)};
constexpr ParamSpec kBufFull[] = {P("value", K::Scalar), P("dst", K::Value)};
constexpr ParamSpec kBufMatmul[] = {P("lhs", K::Value), P("rhs", K::Value), P("acc", K::Value)};

template <size_t N>
constexpr std::span<const ParamSpec> S(const ParamSpec (&a)[N]) { return {a, N}; }
constexpr std::span<const ParamSpec> kNoParams{kNone, 0};

// ---- effects ----
constexpr OpEffects kPure{};
constexpr OpEffects kView{.isView = true};
constexpr OpEffects kNotInPlace{.inPlaceSafe = false};
constexpr OpEffects kReadsGM{.readsGM = true};
constexpr OpEffects kWritesGM{.writesGM = true};
constexpr OpEffects kDest{.writesDest = true, .hasResult = false};
constexpr OpEffects kDestNotInPlace{.inPlaceSafe = false, .writesDest = true, .hasResult = false};
constexpr OpEffects kDestReadsGM{.readsGM = true, .writesDest = true, .hasResult = false};
constexpr OpEffects kBufStoreFx{.writesGM = true, .hasResult = false};
constexpr OpEffects kBufMeta{.hasResult = false};

#define ENTRY(E, fam, stage, params, fx, doc) \
  OpInfo { Opcode::E, {}, OpFamily::fam, OpStage::stage, params, fx, doc }

// The order must follow Ops.def (checked at start-up by lookupOp's table build).
const OpInfo kOps[] = {
    ENTRY(Const, ScalarConst, Scalar, S(kConst), kPure, "scalar literal of an explicit dtype; INT32 wraps, INDEX/INT64 exact"),
    ENTRY(TileLoad, Load, Tile, S(kLoad), kReadsGM, "GM window to a Vec/Mat tile; off+valid beyond the tensor is invalid-program"),
    ENTRY(TileStore, Store, Tile, S(kStore), kWritesGM, "tile valid region to GM; poison reaching GM is invalid-program; returns the tensor"),
    ENTRY(TileAdd, Binary, Tile, S(kBinary), kPure, "elementwise; valid = lhs valid; equal physical shape and dtype"),
    ENTRY(TileSub, Binary, Tile, S(kBinary), kPure, "elementwise difference"),
    ENTRY(TileMul, Binary, Tile, S(kBinary), kPure, "elementwise product; INT32 wraps"),
    ENTRY(TileDiv, Binary, Tile, S(kBinary), kPure, "elementwise quotient; IEEE (x/0 is Inf or NaN)"),
    ENTRY(TileMaximum, Binary, Tile, S(kBinary), kPure, "elementwise max; NaN if either is NaN"),
    ENTRY(TileMinimum, Binary, Tile, S(kBinary), kPure, "elementwise min; NaN if either is NaN"),
    ENTRY(TileAbs, Unary, Tile, S(kUnary), kPure, "clears the sign bit"),
    ENTRY(TileExp, Unary, Tile, S(kUnary), kPure, "binary64 exp rounded once"),
    ENTRY(TileSqrt, Unary, Tile, S(kUnary), kPure, "binary64 sqrt rounded once; negative input gives NaN"),
    ENTRY(TileNeg, Unary, Tile, S(kUnary), kPure, "flips the sign bit"),
    ENTRY(TileRelu, Unary, Tile, S(kUnary), kPure, "x > 0 ? x : +0"),
    ENTRY(TileLog, Unary, Tile, S(kUnary), kPure, "binary64 log rounded once; log 0 = -Inf, negative gives NaN"),
    ENTRY(TileRecip, Unary, Tile, S(kUnary), kNotInPlace, "binary64 1/x rounded once; cannot run in place"),
    ENTRY(TileAdds, TileScalar, Tile, S(kTileScalar), kPure, "tile + scalar (scalar converted to the tile dtype first)"),
    ENTRY(TileSubs, TileScalar, Tile, S(kTileScalar), kPure, "tile - scalar"),
    ENTRY(TileMuls, TileScalar, Tile, S(kTileScalar), kPure, "tile * scalar"),
    ENTRY(TileDivs, TileScalar, Tile, S(kTileScalar), kPure, "tile / scalar"),
    ENTRY(TileMaximums, TileScalar, Tile, S(kTileScalar), kPure, "max(tile, scalar)"),
    ENTRY(TileMinimums, TileScalar, Tile, S(kTileScalar), kPure, "min(tile, scalar)"),
    ENTRY(TileLrelu, TileScalar, Tile, S(kLrelu), kPure, "x > 0 ? x : x * slope"),
    ENTRY(TileFull, Full, Tile, S(kFull), kPure, "every element = value converted to dtype; fully valid Vec tile"),
    ENTRY(TileCreate, Create, Tile, S(kCreate), kPure, "every element poison; fully valid descriptor"),
    ENTRY(TileSlice, Slice, Tile, S(kSlice), kView, "window of the source; valid clamped to the source's valid; outside the source is invalid"),
    ENTRY(TileAssemble, Assemble, Tile, S(kAssemble), kPure, "target with a window replaced by the whole physical source; valid = write-union"),
    ENTRY(TileReshape, Reshape, Tile, S(kReshape), kView, "same elements in row-major order; flat-prefix valid rule"),
    ENTRY(TileSetValidShape, SetValidShape, Tile, S(kSetValid), kView, "same elements, new valid extents (exposed lanes keep their state)"),
    ENTRY(TileMove, Move, Tile, S(kMove), kNotInPlace, "copy of the valid region into another space; outside valid is poison"),
    ENTRY(TileExtract, Extract, Tile, S(kExtract), kNotInPlace, "copy of a window into a space; valid as for slice"),
    ENTRY(TileTransposeView, TransposeView, Tile, S(kTranspose), kView, "shape, valid and layout swapped (NZ<->ZN, ND<->DN)"),
    ENTRY(TileMatmul, Matmul, Tile, S(kMatmul), kNotInPlace, "Left[M,K] x Right[K,N] -> Acc; fma fold over k < vc_L from 0"),
    ENTRY(TileMatmulAcc, MatmulAcc, Tile, S(kMatmulAcc), kNotInPlace, "ACC + product (or product when init_cond); untouched-box rule outside the product"),
    ENTRY(TileRowSum, RowReduce, Tile, S(kRowReduce), kNotInPlace, "[R,1] sum over valid columns in increasing c; tmp becomes poison"),
    ENTRY(TileRowMax, RowReduce, Tile, S(kRowReduce), kNotInPlace, "[R,1] max over valid columns"),
    ENTRY(TileRowMin, RowReduce, Tile, S(kRowReduce), kNotInPlace, "[R,1] min over valid columns"),
    ENTRY(TileColSum, ColReduce, Tile, S(kColReduce), kNotInPlace, "[1,C] sum over valid rows in increasing r"),
    ENTRY(TileColMax, ColReduce, Tile, S(kColReduce), kNotInPlace, "[1,C] max over valid rows"),
    ENTRY(TileColMin, ColReduce, Tile, S(kColReduce), kNotInPlace, "[1,C] min over valid rows"),
    ENTRY(TileGetBlockIdx, BlockQuery, Tile, kNoParams, kPure, "INDEX: this block's index in the launch"),
    ENTRY(TileGetBlockNum, BlockQuery, Tile, kNoParams, kPure, "INDEX: the launch's block count"),
    ENTRY(TileGetSubblockIdx, BlockQuery, Tile, kNoParams, kPure, "INDEX: always 0"),
    ENTRY(TileAlloc, StorageRoot, Tile, S(kTileAlloc), kPure, "planned storage root of SIZE bytes; addr= when placed by an addressed planner"),

    ENTRY(BufAlloc, BufAlloc, Buffer, S(kBufAlloc), kPure, "a handle at ADDR (addressed planners) or placed by the interpreter (PTOAS)"),
    ENTRY(BufSubview, BufSubview, Buffer, S(kBufSubview), kView, "window of a parent, inheriting its pitch; must fit the parent"),
    ENTRY(BufReshape, BufReshape, Buffer, S(kBufReshape), kView, "same bytes, the annotated type (dense pitch required)"),
    ENTRY(BufSetValidShape, BufSetValidShape, Buffer, S(kBufSetValid), kBufMeta, "updates a dynamic descriptor's valid extents in place"),
    ENTRY(BufLoad, BufLoad, Buffer, S(kBufLoad), kDestReadsGM, "GM window into DST's valid region; extents must equal DST's valid"),
    ENTRY(BufStore, BufStore, Buffer, S(kBufStore), kBufStoreFx, "SRC's valid region to GM; extents must equal SRC's valid"),
    ENTRY(BufCopy, BufCopy, Buffer, S(kBufCopy), kDestNotInPlace, "copies DST's valid region from SRC; bits, never converted"),
    ENTRY(BufExtract, BufExtract, Buffer, S(kBufExtract), kDestNotInPlace, "copies a window of SRC at (r0, c0) into DST's valid region"),
    ENTRY(BufAdd, BufBinary, Buffer, S(kBufBinary), kDest, "DST = lhs + rhs over DST's valid region"),
    ENTRY(BufSub, BufBinary, Buffer, S(kBufBinary), kDest, "DST = lhs - rhs"),
    ENTRY(BufMul, BufBinary, Buffer, S(kBufBinary), kDest, "DST = lhs * rhs"),
    ENTRY(BufDiv, BufBinary, Buffer, S(kBufBinary), kDest, "DST = lhs / rhs"),
    ENTRY(BufMaximum, BufBinary, Buffer, S(kBufBinary), kDest, "DST = max(lhs, rhs)"),
    ENTRY(BufMinimum, BufBinary, Buffer, S(kBufBinary), kDest, "DST = min(lhs, rhs)"),
    ENTRY(BufAbs, BufUnary, Buffer, S(kBufUnary), kDest, "DST = |src|"),
    ENTRY(BufExp, BufUnary, Buffer, S(kBufUnary), kDest, "DST = exp(src)"),
    ENTRY(BufSqrt, BufUnary, Buffer, S(kBufUnary), kDest, "DST = sqrt(src)"),
    ENTRY(BufNeg, BufUnary, Buffer, S(kBufUnary), kDest, "DST = -src"),
    ENTRY(BufRelu, BufUnary, Buffer, S(kBufUnary), kDest, "DST = relu(src)"),
    ENTRY(BufLog, BufUnary, Buffer, S(kBufUnary), kDest, "DST = log(src)"),
    ENTRY(BufRecip, BufUnary, Buffer, S(kBufUnary), kDestNotInPlace, "DST = 1/src; DST must not overlap src"),
    ENTRY(BufAdds, BufTileScalar, Buffer, S(kBufTileScalar), kDest, "DST = lhs + scalar"),
    ENTRY(BufSubs, BufTileScalar, Buffer, S(kBufTileScalar), kDest, "DST = lhs - scalar"),
    ENTRY(BufMuls, BufTileScalar, Buffer, S(kBufTileScalar), kDest, "DST = lhs * scalar"),
    ENTRY(BufDivs, BufTileScalar, Buffer, S(kBufTileScalar), kDest, "DST = lhs / scalar"),
    ENTRY(BufMaximums, BufTileScalar, Buffer, S(kBufTileScalar), kDest, "DST = max(lhs, scalar)"),
    ENTRY(BufMinimums, BufTileScalar, Buffer, S(kBufTileScalar), kDest, "DST = min(lhs, scalar)"),
    ENTRY(BufLrelu, BufTileScalar, Buffer, S(kBufLrelu), kDest, "DST = src > 0 ? src : src * slope"),
    ENTRY(BufFull, BufFull, Buffer, S(kBufFull), kDest, "DST's valid region = value"),
    ENTRY(BufMatmul, BufMatmul, Buffer, S(kBufMatmul), kDestNotInPlace, "ACC product lanes = L x R (from 0)"),
    ENTRY(BufMatmulAcc, BufMatmul, Buffer, S(kBufMatmul), kDestNotInPlace, "ACC product lanes += L x R"),
    ENTRY(BufGetBlockIdx, BlockQuery, Buffer, kNoParams, kPure, "INDEX: this block's index"),
    ENTRY(BufGetBlockNum, BlockQuery, Buffer, kNoParams, kPure, "INDEX: the launch's block count"),
    ENTRY(BufGetSubblockIdx, BlockQuery, Buffer, kNoParams, kPure, "INDEX: always 0"),
};
#undef ENTRY

constexpr std::string_view kSpellings[] = {
#define PTO_OP(Enum, spelling, family) spelling,
#include "compiler/ir/Ops.def"
#undef PTO_OP
};
constexpr size_t kNumOps = std::size(kSpellings);
static_assert(std::size(kOps) == kNumOps, "kOps must have one entry per Ops.def line");

const std::array<OpInfo, kNumOps>& table() {
  static const std::array<OpInfo, kNumOps> t = [] {
    std::array<OpInfo, kNumOps> out{};
    for (size_t i = 0; i < kNumOps; ++i) {
      if (static_cast<size_t>(kOps[i].code) != i)
        throw std::logic_error("OpRegistry: entry order differs from Ops.def at " + std::string(kSpellings[i]));
      out[i] = kOps[i];
      out[i].spelling = kSpellings[i];
    }
    return out;
  }();
  return t;
}
}  // namespace

const OpInfo& opInfo(Opcode op) { return table()[static_cast<size_t>(op)]; }

std::optional<Opcode> lookupOp(std::string_view spelling) {
  for (const auto& info : table())
    if (info.spelling == spelling) return info.code;
  return std::nullopt;
}

std::span<const OpInfo> allOps() { return table(); }

int paramIndex(const OpInfo& info, std::string_view name) {
  for (size_t i = 0; i < info.params.size(); ++i)
    if (info.params[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace ptodiff
