// The Buffer interpreter: the Buffer-stage op hook of a KernelWalker (interp/KernelWalker.h:
// frames, steps, control flow and scalars, shared with the Tile interpreter), handles and their
// descriptors, and one handler per Buffer op family. Storage, addressing and placement live in
// interp/Machine, the checkers in interp/Hazard, arithmetic in interp/Arith, GM plumbing in
// interp/Launch.
//
// Every op first checks its operands (empty region, region fit, overlap), then gathers its source
// regions into dense temporaries, computes with one arithmetic kernel call, and scatters the
// result into its destination with a fresh write event.
#include "interp/BufferInterpreter.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "interp/Arith.h"
#include "interp/Hazard.h"
#include "interp/KernelWalker.h"
#include "interp/Launch.h"
#include "interp/Machine.h"
#include "interp/OpKinds.h"
#include "interp/ProgramFault.h"
#include "interp/Symbolic.h"
#include "interp/TileOps.h"

namespace ptodiff {

namespace {

using arith::BinaryKind;

using walker::operandName;
using walker::pairText;

/// A handle bound to a name (immutable; its descriptor is shared, see Handle).
using HandleRef = std::shared_ptr<const Handle>;

/// What a frame slot holds. Ops that write a destination yield monostate.
using Value = std::variant<std::monostate, ScalarValue, HandleRef, TensorRef>;

[[noreturn]] void throwHazard(HazardKind kind, std::string detail) { throw HazardFault::make(kind, std::move(detail)); }

void require(std::optional<Hazard> h) {
  if (h) throw HazardFault{std::move(*h)};
}

class BufferMachine : public KernelWalker<BufferMachine, Value> {
 public:
  static constexpr std::string_view kName = "BufferMachine";  // prefix of internal errors

  BufferMachine(const Program& program, const Function& kernel, const RunConfig& config, Launch& launch)
      : KernelWalker(program, kernel, config, launch), machine_(targetOf(config.target), config.seed, config.symbols) {}

  /// Runs the kernel once as block `block` on fresh storage; throws ProgramFault or HazardFault.
  void runBlock(int64_t block) {
    machine_.resetStorage();
    KernelWalker::runBlock(block);
  }

 private:
  friend KernelWalker;

  // ---- operands ----

  /// A handle operand (always a name: Buffer ops take handles by name). The reference stays valid
  /// for the op: the handle is owned by its frame slot's shared pointer.
  const Handle& handleArg(const Expr& call, size_t i) {
    const Expr& arg = *call.args.at(i);
    if (arg.kind == Expr::Kind::Name)
      if (auto* h = std::get_if<HandleRef>(&slot(arg.slot)); h && *h) return **h;
    throw std::logic_error(internal("operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                                    " is not a buffer handle"));
  }

  // ---- ops (the walker's hook) ----

  /// One Buffer-stage op call; pl.const and block queries are the walker's.
  Value execOp(const OpInfo& info, const Expr& e) {
    switch (info.family) {
      case OpFamily::ScalarConst:
      case OpFamily::BlockQuery: throw std::logic_error(internal("the walker evaluates pl.const and block queries"));
      case OpFamily::BufAlloc: return alloc(e);
      case OpFamily::BufSubview: return subview(e);
      case OpFamily::BufReshape: return reshape(e);
      case OpFamily::BufSetValidShape: setValidShape(e); return {};
      case OpFamily::BufLoad: load(e); return {};
      case OpFamily::BufStore: store(e); return {};
      case OpFamily::BufCopy: copy(e); return {};
      case OpFamily::BufExtract: extract(e); return {};
      case OpFamily::BufBinary: binary(e); return {};
      case OpFamily::BufUnary: unary(e); return {};
      case OpFamily::BufTileScalar: tileScalar(e); return {};
      case OpFamily::BufFull: full(e); return {};
      case OpFamily::BufMatmul: matmul(e); return {};
      case OpFamily::Load:
      case OpFamily::Store:
      case OpFamily::Binary:
      case OpFamily::Unary:
      case OpFamily::TileScalar:
      case OpFamily::Full:
      case OpFamily::Create:
      case OpFamily::Slice:
      case OpFamily::Assemble:
      case OpFamily::Reshape:
      case OpFamily::SetValidShape:
      case OpFamily::Move:
      case OpFamily::Extract:
      case OpFamily::TransposeView:
      case OpFamily::Matmul:
      case OpFamily::MatmulAcc:
      case OpFamily::RowReduce:
      case OpFamily::ColReduce:
      case OpFamily::StorageRoot: break;
      // No default: a new family without a handler here is a compile error (-Wswitch -Werror).
    }
    throw std::invalid_argument("a Tile-stage op cannot run in a Buffer-stage function");
  }

  // ---- handles ----

  /// The result type of an alloc/subview/reshape (the verified annotation).
  static const Type& bufferTypeOf(const Expr& call) {
    if (!call.type.isBuffer())
      throw std::logic_error(internal(std::string(opInfo(call.op).spelling) + " has no Buffer type (unverified?)"));
    return call.type;
  }

  /// 0 <= valid <= shape on both axes, else hazard valid.
  static void requireValidInside(const std::array<int64_t, 2>& valid, int64_t rows, int64_t cols, const std::string& what) {
    if (valid[0] >= 0 && valid[0] <= rows && valid[1] >= 0 && valid[1] <= cols) return;
    throwHazard(HazardKind::Valid, what + " " + pairText(valid) + " lie outside the shape " + pairText(rows, cols) +
                                       "; expected 0 <= valid <= shape on each axis");
  }

  /// The descriptor a type starts with: static axes as declared, dynamic axes from `given` (an
  /// alloc's valid tuple) or the physical extent.
  static ValidExtents initialValid(const Type& t, const std::optional<std::array<int64_t, 2>>& given) {
    std::array<int64_t, 2> v{t.rows(), t.cols()};
    for (int axis = 0; axis < 2; ++axis) {
      const Extent declared = t.validExtent(axis);
      const size_t a = static_cast<size_t>(axis);
      if (declared.isConst()) {
        v[a] = declared.value;
        if (given && (*given)[a] != declared.value)
          throwHazard(HazardKind::Valid, "valid tuple " + pairText(*given) + " disagrees with the static descriptor extent " +
                                             std::to_string(declared.value) + " on axis " + std::to_string(axis));
      } else if (given) {
        v[a] = (*given)[a];
      }
    }
    requireValidInside(v, t.rows(), t.cols(), "valid extents");
    return {v[0], v[1]};
  }

  Value alloc(const Expr& e) {
    const Type& t = bufferTypeOf(e);
    std::optional<std::array<int64_t, 2>> given;
    if (e.args[0] && !e.args[0]->args.empty()) given = evalPair(e.args[0].get());
    const ValidExtents valid = initialValid(t, given);
    const int64_t pitch = t.cols() * dtypeSize(t.dtype);
    int64_t base = 0;
    if (e.args.size() > 1 && e.args[1]) {
      base = evalIndex(*e.args[1]);
    } else {
      if (config().addressedPlanner)
        throwHazard(HazardKind::Addressless,
                    currentBinder() + ": " + std::string(memSpaceName(t.space)) + " " + std::string(dtypeName(t.dtype)) +
                        " " + pairText(t.rows(), t.cols()) +
                        " has no address, but the program comes from an addressed planner (PYPTO, DSA_RP), which "
                        "gives every allocation its final address");
      const int64_t bytes = handleSpanBytes(HandleGeometry{t.rows(), t.cols(), t.dtype, t.layout, pitch});
      base = machine_.placeAddressless(&e, t.space, bytes, placementAlignment(t.layout, t.dtype));
    }
    Handle h = makeHandle(t, base, pitch, ByteRange{}, valid);
    h.root = h.span();
    require(checkPlacement(h, machine_.target(), currentBinder()));
    return std::make_shared<const Handle>(std::move(h));
  }

  Value subview(const Expr& e) {
    const Handle& parent = handleArg(e, 0);
    const Type& t = bufferTypeOf(e);
    if (t.layout != parent.geom.layout)
      throwError(file(), e.loc,
                 "buffer.subview: the result's layout " + layoutText(t.layout) + " differs from the parent's " +
                     layoutText(parent.geom.layout) + "; expected a window in its parent's layout (annotate it with " +
                     "the parent's layout)");
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const char* axisName[2] = {"rows", "columns"};
    const int64_t extent[2] = {t.rows(), t.cols()}, parentExtent[2] = {parent.rows(), parent.cols()};
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t begin = off[static_cast<size_t>(axis)], end = begin + extent[axis];
      if (begin >= 0 && end <= parentExtent[axis]) continue;
      throwHazard(HazardKind::Valid, "window " + std::string(axisName[axis]) + " [" + std::to_string(begin) + ", " +
                                         std::to_string(end) + ") do not fit the parent " +
                                         operandName(e, 0) + "'s " + std::to_string(parentExtent[axis]) + " " +
                                         axisName[axis]);
    }
    std::array<int64_t, 2> valid{t.rows(), t.cols()};
    if (e.args.size() > 2 && e.args[2]) valid = evalPair(e.args[2].get());
    requireValidInside(valid, t.rows(), t.cols(), "valid extents");
    if (valid[0] == 0 || valid[1] == 0)
      throwHazard(HazardKind::EmptyOp, "creates an empty window of " + operandName(e, 0) + " (valid " + pairText(valid) +
                                           "); an empty subview must stay inside the guard that skips its consumer");
    Handle h = windowHandle(parent, t, off[0], off[1], {valid[0], valid[1]});
    require(checkPlacementOf(h, machine_.target(), [&] {
      return currentBinder() + " (window of " + operandName(e, 0) + " at " + pairText(off) + ")";
    }));
    return std::make_shared<const Handle>(std::move(h));
  }

  Value reshape(const Expr& e) {
    const Handle& src = handleArg(e, 0);
    const Type& t = bufferTypeOf(e);
    const int64_t densePitch = src.cols() * src.esize();
    if (addressingOf(src.geom.layout) == AddressingKind::ND && src.geom.pitchBytes != densePitch)
      throwHazard(HazardKind::Align, "source " + operandName(e, 0) + " has row pitch " +
                                         std::to_string(src.geom.pitchBytes) + " B, not the dense " +
                                         std::to_string(src.cols()) + " x " + std::to_string(src.esize()) + " B = " +
                                         std::to_string(densePitch) + " B a reshape reinterprets");
    Handle h = reinterpretHandle(src, t, initialValid(t, std::nullopt));
    require(checkPlacementOf(h, machine_.target(),
                             [&] { return currentBinder() + " (reshape of " + operandName(e, 0) + ")"; }));
    return std::make_shared<const Handle>(std::move(h));
  }

  void setValidShape(const Expr& e) {
    const Handle& h = handleArg(e, 0);
    const std::array<int64_t, 2> v = evalPair(e.args[1].get());
    requireValidInside(v, h.rows(), h.cols(), "valid extents");
    *h.valid = ValidExtents{v[0], v[1]};  // shared by every copy of the handle
  }

  // ---- region checks ----

  static std::array<int64_t, 2> validOf(const Handle& h) { return {h.validRows(), h.validCols()}; }

  static void requireNonEmpty(const std::array<int64_t, 2>& region, const std::string& whose) {
    if (region[0] > 0 && region[1] > 0) return;
    throwHazard(HazardKind::EmptyOp, whose + " valid region " + pairText(region) +
                                         " is empty; the lowering must guard an op over an empty region");
  }

  /// The rows x cols region at (r0, c0) of operand `name` lies inside its physical shape.
  static void requireRegionInside(const Handle& h, const std::string& name, int64_t r0, int64_t c0, int64_t rows,
                                  int64_t cols, const std::string& region) {
    if (r0 >= 0 && c0 >= 0 && r0 + rows <= h.rows() && c0 + cols <= h.cols()) return;
    const std::string at = r0 == 0 && c0 == 0 ? "" : " at " + pairText(r0, c0);
    throwHazard(HazardKind::Valid, region + " " + pairText(rows, cols) + at + " does not fit operand " + name +
                                       "'s shape " + pairText(h.rows(), h.cols()));
  }

  OperandFootprint footprintOf(const Handle& h, const std::string& name, int64_t r0, int64_t c0,
                               const std::array<int64_t, 2>& region) {
    return OperandFootprint{&h, name, r0, c0, region[0], region[1]};
  }

  // ---- GM transfers ----

  void load(const Expr& e) {
    GmTensor& tensor = gm(tensorArg(e, 0));
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const std::array<int64_t, 2> extents = evalPair(e.args[2].get());
    const Handle& dst = handleArg(e, 3);
    const std::array<int64_t, 2> domain = validOf(dst);
    if (extents != domain)
      throwHazard(HazardKind::Valid, "extents " + pairText(extents) + " differ from the valid region " + pairText(domain) +
                                         " of the destination " + operandName(e, 3));
    requireNonEmpty(domain, "the destination " + operandName(e, 3) + "'s");
    if (dst.dtype() != tensor.tensor.dtype) throw std::invalid_argument("buffer dtype differs from the tensor's");
    requireGmWindow(tensor, off, domain[0], domain[1]);
    checkGmReadRace(tensor, off, domain[0], domain[1], block(), "buffer.load");
    DenseElements values(dst.dtype(), domain[0], domain[1], machine_.symbols());
    readGmWindow(tensor, off, values.mutElems(), values.poison.data(), values.cols);
    machine_.scatter(dst, 0, 0, values, machine_.newEvent());
  }

  void store(const Expr& e) {
    const Handle& src = handleArg(e, 0);
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const std::array<int64_t, 2> extents = evalPair(e.args[2].get());
    GmTensor& tensor = gm(tensorArg(e, 3));
    const std::array<int64_t, 2> domain = validOf(src);
    if (extents != domain)
      throwHazard(HazardKind::Valid, "extents " + pairText(extents) + " differ from the valid region " + pairText(domain) +
                                         " of the source " + operandName(e, 0));
    requireNonEmpty(domain, "the source " + operandName(e, 0) + "'s");
    requireGmWindow(tensor, off, domain[0], domain[1]);
    checkGmWriteRace(tensor, off, domain[0], domain[1], block(), "buffer.store");
    const DenseElements values = machine_.gather(src, 0, 0, domain[0], domain[1]);
    notePoisonStore("buffer.store", tensor,
                    writeGmWindow(tensor, off, src.dtype(), values.elems(), values.poison.data(), values.cols, block()));
  }

  // ---- on-chip transfers ----

  void copy(const Expr& e) {
    const Handle &src = handleArg(e, 0), &dst = handleArg(e, 1);
    const std::array<int64_t, 2> domain = validOf(dst);
    const std::string srcName = operandName(e, 0), dstName = operandName(e, 1);
    requireNonEmpty(domain, "the destination " + dstName + "'s");
    requireRegionInside(src, srcName, 0, 0, domain[0], domain[1], "the destination's valid region");
    require(checkTransferOverlap("buffer.copy", footprintOf(dst, dstName, 0, 0, domain),
                                 footprintOf(src, srcName, 0, 0, domain)));
    machine_.scatter(dst, 0, 0, machine_.gather(src, 0, 0, domain[0], domain[1]), machine_.newEvent());
  }

  void extract(const Expr& e) {
    const Handle& src = handleArg(e, 0);
    const int64_t r0 = evalIndex(*e.args[1]), c0 = evalIndex(*e.args[2]);
    const Handle& dst = handleArg(e, 3);
    const std::array<int64_t, 2> domain = validOf(dst);
    const std::string srcName = operandName(e, 0), dstName = operandName(e, 3);
    requireNonEmpty(domain, "the destination " + dstName + "'s");
    requireRegionInside(src, srcName, r0, c0, domain[0], domain[1], "the window");
    require(checkTransferOverlap("buffer.extract", footprintOf(dst, dstName, 0, 0, domain),
                                 footprintOf(src, srcName, r0, c0, domain)));
    machine_.scatter(dst, 0, 0, machine_.gather(src, r0, c0, domain[0], domain[1]), machine_.newEvent());
  }

  // ---- compute ----

  /// The checks every elementwise op makes before it computes: a non-empty destination region,
  /// each source's shape holding it, and no illegal overlap. Returns the region.
  std::array<int64_t, 2> prepareElementwise(const Expr& e, const Handle& dst, size_t dstSlot,
                                            const std::vector<std::pair<const Handle*, size_t>>& sources) {
    const std::array<int64_t, 2> domain = validOf(dst);
    const std::string dstName = operandName(e, dstSlot);
    requireNonEmpty(domain, "the destination " + dstName + "'s");
    std::vector<std::string> names;
    for (const auto& [h, i] : sources) {
      names.push_back(operandName(e, i));
      requireRegionInside(*h, names.back(), 0, 0, domain[0], domain[1], "the destination's valid region");
    }
    std::vector<OperandFootprint> reads;
    for (size_t k = 0; k < sources.size(); ++k) reads.push_back(footprintOf(*sources[k].first, names[k], 0, 0, domain));
    require(checkOverlap(opInfo(e.op).spelling, footprintOf(dst, dstName, 0, 0, domain), reads,
                         opInfo(e.op).effects.inPlaceSafe));
    return domain;
  }

  void binary(const Expr& e) {
    const Handle &lhs = handleArg(e, 0), &rhs = handleArg(e, 1), &dst = handleArg(e, 2);
    const std::array<int64_t, 2> d = prepareElementwise(e, dst, 2, {{&lhs, 0}, {&rhs, 1}});
    const DenseElements a = machine_.gather(lhs, 0, 0, d[0], d[1]);
    const DenseElements b = machine_.gather(rhs, 0, 0, d[0], d[1]);
    const BinaryKind kind = binaryKindOf(e.op);
    if (kind == BinaryKind::Div && isInteger(dst.dtype())) {
      const int64_t zero = arith::firstZeroDivisor(dst.dtype(), b.elems(), b.poison.data(), b.cols);
      if (zero >= 0)
        throw ProgramFault::invalid("integer division by zero at element " + pairText(zero / d[1], zero % d[1]) +
                                    "; a zero divisor is outside the default contract");
    }
    DenseElements out(dst.dtype(), d[0], d[1], machine_.symbols());
    arith::binaryKernel(kind, dst.dtype(), a.elems(), b.elems(), out.mutElems());
    out.poison = a.poison;
    out.orPoison(b);
    machine_.scatter(dst, 0, 0, out, machine_.newEvent());
  }

  void unary(const Expr& e) {
    const Handle &src = handleArg(e, 0), &dst = handleArg(e, 1);
    const std::array<int64_t, 2> d = prepareElementwise(e, dst, 1, {{&src, 0}});
    const DenseElements a = machine_.gather(src, 0, 0, d[0], d[1]);
    DenseElements out(dst.dtype(), d[0], d[1], machine_.symbols());
    arith::unaryKernel(unaryKindOf(e.op), dst.dtype(), a.elems(), out.mutElems());
    out.poison = a.poison;
    machine_.scatter(dst, 0, 0, out, machine_.newEvent());
  }

  void tileScalar(const Expr& e) {
    const Handle &lhs = handleArg(e, 0), &dst = handleArg(e, 2);
    const uint64_t bits = elementOf(*e.args[1], dst.dtype());
    const std::array<int64_t, 2> d = prepareElementwise(e, dst, 2, {{&lhs, 0}});
    const BinaryKind kind = binaryKindOf(e.op);
    if (kind == BinaryKind::Div && isInteger(dst.dtype()) && bits == 0)
      throw ProgramFault::invalid("integer division by the scalar 0; a zero divisor is outside the default contract");
    const DenseElements a = machine_.gather(lhs, 0, 0, d[0], d[1]);
    DenseElements out(dst.dtype(), d[0], d[1], machine_.symbols());
    arith::binaryScalarKernel(kind, dst.dtype(), a.elems(), bits, out.mutElems());
    out.poison = a.poison;
    machine_.scatter(dst, 0, 0, out, machine_.newEvent());
  }

  void full(const Expr& e) {
    const Handle& dst = handleArg(e, 1);
    const uint64_t bits = elementOf(*e.args[0], dst.dtype());
    const std::array<int64_t, 2> d = prepareElementwise(e, dst, 1, {});
    DenseElements out(dst.dtype(), d[0], d[1], machine_.symbols());
    const int es = out.esize();
    for (int64_t i = 0; i < d[0] * d[1]; ++i) std::memcpy(out.bits.data() + i * es, &bits, static_cast<size_t>(es));
    if (ExprPool* symbols = machine_.symbols()) std::fill(out.sym.begin(), out.sym.end(), symbols->constant(dst.dtype(), bits));
    machine_.scatter(dst, 0, 0, out, machine_.newEvent());
  }

  // ---- cube ----

  /// matmul / matmul_acc: product lanes [0, M) x [0, N) of ACC (M = vr_L, N = vc_R, K = vc_L)
  /// become the product (matmul) or ACC + product (matmul_acc); the other lanes of every 16 x 16
  /// Acc box the product touches become poison; untouched boxes keep their bytes.
  void matmul(const Expr& e) {
    const Handle &lhs = handleArg(e, 0), &rhs = handleArg(e, 1), &acc = handleArg(e, 2);
    const std::string lName = operandName(e, 0), rName = operandName(e, 1), accName = operandName(e, 2);
    const int64_t M = lhs.validRows(), K = lhs.validCols(), N = rhs.validCols();
    if (M == 0 || K == 0 || N == 0)
      throwHazard(HazardKind::EmptyOp, "the product " + pairText(M, N) + " over K = " + std::to_string(K) + " of " +
                                           lName + " (valid " + pairText(M, K) + ") and " + rName + " is empty; the " +
                                           "lowering must guard an op over an empty region");
    requireRegionInside(rhs, rName, 0, 0, K, N, "the contraction region");
    const std::array<int64_t, 2> product{M, N};
    requireRegionInside(acc, accName, 0, 0, M, N, "the product");
    // M8: where ACC is wider than the product the lowering writes through a product-shaped view,
    // so the destination handle's valid region is exactly the product; a wider one means the
    // view was dropped and the op would claim lanes it never computes.
    if (validOf(acc) != product)
      throwHazard(HazardKind::Valid, "the destination " + accName + "'s valid region " + pairText(validOf(acc)) +
                                         " differs from the product " + pairText(M, N) +
                                         "; the lowering must write through a product-shaped view (M8)");
    const bool inPlaceSafe = opInfo(e.op).effects.inPlaceSafe;
    require(checkOverlap(opInfo(e.op).spelling, footprintOf(acc, accName, 0, 0, product),
                         {footprintOf(lhs, lName, 0, 0, {M, K}), footprintOf(rhs, rName, 0, 0, {K, N})}, inPlaceSafe));

    const DenseElements l = machine_.gather(lhs, 0, 0, M, K);
    const DenseElements r = machine_.gather(rhs, 0, 0, K, N);
    DenseElements result(acc.dtype(), M, N, machine_.symbols());
    arith::matmulKernel(lhs.dtype(), l.elems(), r.elems(), result.mutElems());
    // A product lane is poison when any lane it reads is: its row of L or its column of R.
    std::vector<uint8_t> rowPoison(static_cast<size_t>(M), 0), colPoison(static_cast<size_t>(N), 0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k) rowPoison[static_cast<size_t>(i)] |= l.poison[static_cast<size_t>(i * K + k)];
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) colPoison[static_cast<size_t>(j)] |= r.poison[static_cast<size_t>(k * N + j)];
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        result.poison[static_cast<size_t>(i * N + j)] = rowPoison[static_cast<size_t>(i)] | colPoison[static_cast<size_t>(j)];
    if (e.op == Opcode::BufMatmulAcc) {
      const DenseElements old = machine_.gather(acc, 0, 0, M, N);
      DenseElements sum(acc.dtype(), M, N, machine_.symbols());
      arith::binaryKernel(BinaryKind::Add, acc.dtype(), old.elems(), result.elems(), sum.mutElems());
      sum.poison = old.poison;
      sum.orPoison(result);
      result = std::move(sum);
    }
    const uint32_t event = machine_.newEvent();
    machine_.scatter(acc, 0, 0, result, event);
    machine_.poisonTouchedAccBoxes(acc, M, N, event);
  }

  Machine machine_;
};

void countAllocForms(const Block& block, AllocForms& forms);

void countAllocFormsInExpr(const Expr& e, AllocForms& forms) {
  if (e.kind == Expr::Kind::Call && e.op == Opcode::BufAlloc)
    (e.args.size() > 1 && e.args[1] ? forms.addressed : forms.addressless)++;
  for (const ExprPtr& a : e.args)
    if (a) countAllocFormsInExpr(*a, forms);
}

void countAllocForms(const Block& block, AllocForms& forms) {
  for (const StmtPtr& s : block) {
    switch (s->kind) {
      case Stmt::Kind::Assign: countAllocFormsInExpr(*s->as<AssignStmt>().value, forms); break;
      case Stmt::Kind::Eval: countAllocFormsInExpr(*s->as<EvalStmt>().expr, forms); break;
      case Stmt::Kind::For: countAllocForms(s->as<ForStmt>().body, forms); break;
      case Stmt::Kind::If:
        countAllocForms(s->as<IfStmt>().thenBody, forms);
        countAllocForms(s->as<IfStmt>().elseBody, forms);
        break;
      case Stmt::Kind::While: countAllocForms(s->as<WhileStmt>().body, forms); break;
      case Stmt::Kind::Return:
      case Stmt::Kind::Yield: break;
    }
  }
}

}  // namespace

AllocForms allocFormsOf(const Function& kernel) {
  AllocForms forms;
  countAllocForms(kernel.body, forms);
  return forms;
}

RunResult runBufferKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                          const RunConfig& config) {
  const std::string file = program.source ? program.source->name : std::string();
  if (kernel.stage != FunctionStage::Buffer)
    throwError(file, kernel.loc, "function '" + kernel.name +
                                     "' is a Tile-stage function; the Buffer interpreter runs Buffer-stage functions");
  checkBlockNum(file, config.blockNum);
  Launch launch = bindKernelArgs(file, kernel, args, config.symbols);

  BufferMachine machine(program, kernel, config, launch);
  return runLaunch(machine, launch, args, config);
}

}  // namespace ptodiff
