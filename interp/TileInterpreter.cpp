// The Tile value interpreter: the Tile-stage op hook of a KernelWalker (interp/KernelWalker.h
// walks the const, verified Function: frames, steps, control flow, scalars; STYLE rules 5 and 6).
// Op semantics live in TileOps, arithmetic in Arith, GM plumbing in Launch; this file owns the
// dispatch of Tile ops, tile operands and GM load/store.
//
// Decisions the spec leaves open, implemented here and in Launch (steps and poison stores:
// KernelWalker.h):
// - Scalar arguments: an integer parameter accepts any integer ScalarValue that fits its dtype;
//   FP32 and BOOL parameters need their own dtype. Unknown argument names are ignored.
// - The Tensor::written flags describe this run: they start clear whatever the caller passed.
#include "interp/TileInterpreter.h"

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "interp/Arith.h"
#include "interp/KernelWalker.h"
#include "interp/Launch.h"
#include "interp/OpKinds.h"
#include "interp/ProgramFault.h"
#include "interp/TileOps.h"
#include "interp/TileValue.h"

namespace ptodiff {

std::string_view runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "pass";
    case RunStatus::InvalidProgram: return "invalid-program";
    case RunStatus::Timeout: return "timeout";
    case RunStatus::Race: return "race";
    case RunStatus::Hazard: return "hazard";
  }
  return "?";
}

namespace {

using walker::pairText;

/// What a frame slot holds. tile.alloc binds nothing (monostate): MemRefs are ignored here.
using Value = std::variant<std::monostate, ScalarValue, TileValue, TensorRef>;

class TileMachine : public KernelWalker<TileMachine, Value> {
 public:
  static constexpr std::string_view kName = "TileMachine";  // prefix of internal errors

  using KernelWalker::KernelWalker;

 private:
  friend KernelWalker;

  // ---- operands ----

  TileValue tileArg(const Expr& call, size_t i) {
    Value v = eval(*call.args.at(i));
    if (auto* t = std::get_if<TileValue>(&v)) return std::move(*t);
    throw std::logic_error(internal("operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                                    " is not a tile"));
  }

  static TileMeta metaOf(const Expr& call) {
    if (!call.type.isTile())
      throw std::logic_error(internal(std::string(opInfo(call.op).spelling) + " has no tile type (unverified?)"));
    return TileMeta::of(call.type);
  }

  // ---- ops (the walker's hook) ----

  /// One Tile-stage op call; pl.const and block queries are the walker's.
  Value execOp(const OpInfo& info, const Expr& e) {
    switch (info.family) {
      case OpFamily::Load: return load(e);
      case OpFamily::Store: return store(e);
      case OpFamily::Binary: {
        const TileValue lhs = tileArg(e, 0), rhs = tileArg(e, 1);
        return tileops::binary(binaryKindOf(e.op), lhs, rhs);
      }
      case OpFamily::Unary: return tileops::unary(unaryKindOf(e.op), tileArg(e, 0));
      case OpFamily::TileScalar: {
        const TileValue lhs = tileArg(e, 0);
        const uint64_t bits = elementOf(*e.args[1], lhs.dtype());
        return tileops::binaryScalar(binaryKindOf(e.op), lhs, bits);
      }
      case OpFamily::Full: {
        const TileMeta meta = metaOf(e);
        return tileops::full(meta, elementOf(*e.args[2], meta.dtype), config().symbols);
      }
      case OpFamily::Create: return tileops::create(metaOf(e), config().symbols);
      case OpFamily::Slice: {
        const TileValue src = tileArg(e, 0);
        const std::array<int64_t, 2> off = evalPair(e.args[2].get());
        std::optional<std::array<int64_t, 2>> requested;
        if (e.args.size() > 3 && e.args[3]) requested = evalPair(e.args[3].get());
        return tileops::slice(src, metaOf(e), off[0], off[1], requested);
      }
      case OpFamily::Assemble: {
        const TileValue target = tileArg(e, 0), source = tileArg(e, 1);
        const std::array<int64_t, 2> off = evalPair(e.args[2].get());
        return tileops::assemble(target, source, off[0], off[1]);
      }
      case OpFamily::Reshape: return tileops::reshape(tileArg(e, 0), metaOf(e));
      case OpFamily::SetValidShape: {
        const TileValue src = tileArg(e, 0);
        const int64_t vr = evalIndex(*e.args[1]);
        const int64_t vc = evalIndex(*e.args[2]);
        return tileops::setValidShape(src, vr, vc);
      }
      case OpFamily::Move: return tileops::move(tileArg(e, 0), metaOf(e));
      case OpFamily::Extract: {
        const TileValue src = tileArg(e, 0);
        const int64_t r0 = evalIndex(*e.args[1]);
        const int64_t c0 = evalIndex(*e.args[2]);
        return tileops::extract(src, metaOf(e), r0, c0);
      }
      case OpFamily::TransposeView: return tileops::transposeView(tileArg(e, 0), metaOf(e));
      case OpFamily::Matmul: {
        const TileValue lhs = tileArg(e, 0), rhs = tileArg(e, 1);
        return tileops::matmul(lhs, rhs, metaOf(e));
      }
      case OpFamily::MatmulAcc: {
        const TileValue acc = tileArg(e, 0), lhs = tileArg(e, 1), rhs = tileArg(e, 2);
        // init_cond omitted means false: accumulate.
        const bool init = e.args.size() > 3 && e.args[3] ? evalBool(*e.args[3]) : false;
        return tileops::matmulAcc(acc, lhs, rhs, init);
      }
      case OpFamily::RowReduce:
        // tmp_tile "becomes poison" on hardware; tiles are immutable values here, so the scratch
        // operand has no observable effect.
        return tileops::rowReduce(reduceKindOf(e.op), tileArg(e, 0), metaOf(e));
      case OpFamily::ColReduce: return tileops::colReduce(reduceKindOf(e.op), tileArg(e, 0), metaOf(e));
      case OpFamily::ScalarConst:
      case OpFamily::BlockQuery: throw std::logic_error(internal("the walker evaluates pl.const and block queries"));
      case OpFamily::StorageRoot: return std::monostate{};  // MemRefs are ignored by the value interpreter
      case OpFamily::BufAlloc:
      case OpFamily::BufSubview:
      case OpFamily::BufReshape:
      case OpFamily::BufSetValidShape:
      case OpFamily::BufLoad:
      case OpFamily::BufStore:
      case OpFamily::BufCopy:
      case OpFamily::BufExtract:
      case OpFamily::BufBinary:
      case OpFamily::BufUnary:
      case OpFamily::BufTileScalar:
      case OpFamily::BufFull:
      case OpFamily::BufMatmul: break;
      // No default: a new family without a handler here is a compile error (-Wswitch -Werror).
    }
    throw std::invalid_argument("a Buffer-stage op cannot run in a Tile-stage function");
  }

  // ---- GM (window and race checks shared with the other interpreters: interp/Launch.h) ----

  Value load(const Expr& e) {
    const int index = tensorArg(e, 0);
    GmTensor& tensor = gm(index);
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const TileMeta meta = metaOf(e);
    int64_t vr = meta.rows, vc = meta.cols;
    if (e.args.size() > 3 && e.args[3]) {
      const std::array<int64_t, 2> v = evalPair(e.args[3].get());
      vr = v[0];
      vc = v[1];
    }
    tileops::requireLoadValid(meta, vr, vc);
    if (meta.dtype != tensor.tensor.dtype) throw std::invalid_argument("tile dtype differs from the tensor's");
    requireGmWindow(tensor, off, vr, vc);
    checkGmReadRace(tensor, off, vr, vc, block(), "tile.load");
    TileBuilder out(meta, vr, vc, /*poisoned=*/true, config().symbols);
    readGmWindow(tensor, off, out.window(0, 0, vr, vc), out.poisonRow(0), meta.cols);
    return std::move(out).finish();
  }

  Value store(const Expr& e) {
    const TileValue src = tileArg(e, 0);
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const int index = tensorArg(e, 2);
    GmTensor& tensor = gm(index);
    const int64_t vr = src.validRows, vc = src.validCols;
    requireGmWindow(tensor, off, vr, vc);
    checkGmWriteRace(tensor, off, vr, vc, block(), "tile.store");
    if (vr == 0 || vc == 0) return TensorRef{index};
    notePoisonStore("tile.store", tensor, writeGmWindow(tensor, off, src.dtype(), src.window(0, 0, vr, vc),
                                                        src.poisonRow(0), src.cols(), block()));
    return TensorRef{index};
  }
};

}  // namespace

RunResult runTileKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                        const RunConfig& config) {
  const std::string file = program.source ? program.source->name : std::string();
  if (kernel.stage == FunctionStage::Buffer)
    throwError(file, kernel.loc, "function '" + kernel.name +
                                     "' is a Buffer-stage function; the value interpreter runs Tile-stage functions "
                                     "(run it with the Buffer interpreter: runBufferKernel, or `ptodiff interp "
                                     "--interpreter buffer`)");
  checkBlockNum(file, config.blockNum);
  Launch launch = bindKernelArgs(file, kernel, args, config.symbols);
  TileMachine machine(program, kernel, config, launch);
  return runLaunch(machine, launch, args, config);
}

}  // namespace ptodiff
