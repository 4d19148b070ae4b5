// The kernel generator behind genCase (internal to fuzz/gen).
//
// One KernelGenerator builds one case, top-down in program order, inside rc::gen::exec. It keeps
// a stack of scopes mirroring the regions being emitted; each scope holds the tile and scalar
// values bound there with what is known about them in every run (detail/Values.h). A step picks
// an operation whose operands exist, decides every shape, offset, valid extent and value range
// so the result is valid by construction (inserting guard ops where a range must be narrowed),
// emits the statements and records the result. A step that finds no fitting operands emits
// nothing: it never emits something it cannot prove valid.
//
// Files: KernelGenerator.cpp (driver, emission, GM tensors, scalar parameters, finishing),
// VecSteps.cpp (loads, stores, arithmetic), ViewSteps.cpp (slice, assemble, reshape, valid
// extents), ControlSteps.cpp (if, for, while), CubeSteps.cpp (the matmul path).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz/gen/ProgramGen.h"
#include "fuzz/gen/detail/Choices.h"
#include "fuzz/gen/detail/Values.h"

namespace ptodiff::fuzz::detail {

class KernelGenerator {
 public:
  /// `function` names the kernel it builds ("kernel", or a two-kernel case's second one).
  KernelGenerator(const GenConfig& config, FeatureSet features, int size, std::string function = "kernel");
  GeneratedCase generate();

 private:
  // ---- what the generator tracks ----

  /// A scalar value in scope, with its range over every run.
  struct ScalarVal {
    std::string name;
    DType dtype = DType::INDEX;
    int64_t lo = 0, hi = 0;  // INDEX, INT32, BOOL (0/1)
    Interval range;          // FP32
  };

  /// Why a scalar parameter exists: decides how its per-set values are drawn.
  enum class ParamRole : uint8_t {
    LoopCount,   // INDEX in [lo, hi]; sets rotate through the range (zero, one, many trips)
    Flag,        // BOOL; sets alternate (both branch arms)
    Offset,      // INDEX in [lo, hi] (window offsets, in units of the alignment)
    ValidExtent, // INDEX in [lo, hi], 0 and hi drawn often
    Step,        // INDEX loop step in [lo, hi] (out of contract)
    Operand,     // FP32 in [lo, hi] / 4 (quarter steps, exact)
    Divisor,     // FP32 in [lo, hi] / 4 with lo > 0
    IntOperand,  // INT32 in [lo, hi]
  };
  struct ScalarParam {
    std::string name;
    DType dtype = DType::INDEX;
    ParamRole role = ParamRole::Offset;
    int64_t lo = 0, hi = 0;
  };

  struct GmTensor {
    std::string name;
    DType dtype = DType::FP32;
    bool out = false;
    int64_t rows = 0, cols = 0;  // In: extents read; Out: rows of one block's segment, width
    std::string base;            // Out in a multi-block kernel: the scalar `blk * segment rows`
    bool readBack = false;       // Out loaded again after a store: an InOut parameter
  };

  /// A band of an Out tensor a top-level store wrote in every run (each block its own rows), with
  /// the stored tile's type and what is known of its valid lanes: a later load may read it back.
  struct StoredBand {
    size_t tensor = 0;
    ExprPtr row;
    int64_t col = 0;
    TileVal value;
  };

  /// An enclosing loop, for stores inside it: iteration t writes rows t * stride of its band.
  struct LoopFrame {
    ExprPtr tripIndex;     // INDEX expression: 0, 1, ... per iteration
    int64_t maxTrips = 0;  // over every run
  };

  struct Scope {
    Block* block = nullptr;
    std::vector<TileVal> tiles;
    std::vector<ScalarVal> scalars;
    std::map<size_t, std::string> tensorNames;  // Out tensor index -> its current SSA name
  };

  /// An INDEX expression with its range over every run (and its value when static).
  struct IndexExpr {
    ExprPtr expr;
    int64_t lo = 0, hi = 0;
    bool isStatic() const { return lo == hi && expr->kind == Expr::Kind::IntLit; }
  };

  // ---- configuration and state ----
  const GenConfig& config_;
  FeatureSet features_;
  int size_;
  std::string function_;
  Choices choose_;

  Function kernel_;
  std::vector<GmTensor> tensors_;
  std::vector<ScalarParam> params_;
  std::vector<Scope> scopes_;
  std::vector<LoopFrame> loops_;
  std::map<std::string, int> counters_;
  std::set<int> retired_;  // storage families superseded by a setter (V4)
  std::multiset<int> pinned_;  // families an enclosing region may yield: never retired
  std::set<std::string> stored_;  // tiles some store has written to GM
  std::vector<StoredBand> storedBands_;
  std::vector<std::array<int64_t, 2>> workShapes_;
  int64_t blockNum_ = 1;
  bool inContract_ = true;
  int nextStorage_ = 1;
  std::set<int> vecStorages_;     // Vec storage families counted in vecStorageBytes_
  int64_t vecStorageBytes_ = 0;   // bounded by GenConfig::maxVecStorageBytes
  std::string blockIdx_;  // name of get_block_idx() when multi-block
  size_t baseInsertAt_ = 0;  // where Out base offsets go in the kernel body

  // ---- KernelGenerator.cpp: driver ----
  bool has(Feature f) const { return features_.has(f); }
  bool outOfContractAllowed() const { return has(Feature::OutOfContract); }
  /// Records that the kernel left the Buffer contract (only called when allowed).
  void leaveContract() { inContract_ = false; }
  /// Whether views (slices, reshapes, carries of views) may take `v` as their source: ND tiles, and
  /// once the kernel is outside the contract (where Vec transposes live) DN ones too, whose
  /// windows keep every row (docs/decisions.md 18a) and whose reshapes read a row-major copy.
  bool viewableLayout(const TileVal& v) const { return plainLayout(v) || (!inContract_ && colMajorLayout(v)); }
  int depth() const { return static_cast<int>(scopes_.size()) - 1; }
  int maxDepth() const { return has(Feature::NestedControl) ? config_.maxDepth : 1; }
  /// Emits steps until `budget` is spent; returns the budget used.
  int genBlock(int budget);
  int genStep(int budget);
  void genPrologue();
  void genFinalStores();
  void finish(GeneratedCase& out);
  void drawScalarSets(GeneratedCase& out);

  // ---- KernelGenerator.cpp: emission ----
  std::string fresh(const std::string& prefix);
  void emit(StmtPtr s);
  std::string emitAssign(const std::string& prefix, ExprPtr value);
  static ExprPtr name(const std::string& n);
  static ExprPtr intLit(int64_t v);    // negative values as -(literal), as the parser builds them
  static ExprPtr floatLit(double v);
  static ExprPtr list(ExprPtr a, ExprPtr b);
  static ExprPtr shape(int64_t rows, int64_t cols);
  static ExprPtr call(Opcode op, std::vector<ExprPtr> args);
  static ExprPtr add(ExprPtr a, ExprPtr b);
  static ExprPtr mul(ExprPtr a, ExprPtr b);
  static ExprPtr binary(BinOp op, ExprPtr a, ExprPtr b);
  static Binder binder(const std::string& n);
  /// `targets = pl.yield_(values)`.
  static std::unique_ptr<YieldStmt> makeYield(std::vector<ExprPtr> values, const std::vector<std::string>& targets);

  // ---- KernelGenerator.cpp: values in scope ----
  int newStorage() { return nextStorage_++; }
  void addTile(TileVal v) {
    if (v.space() == MemSpace::Vec && !v.isView() && vecStorages_.insert(v.storage).second)
      vecStorageBytes_ += v.rows() * v.cols() * dtypeSize(v.dtype());
    scopes_.back().tiles.push_back(std::move(v));
  }
  void addScalar(ScalarVal v) { scopes_.back().scalars.push_back(std::move(v)); }
  bool usable(const TileVal& v) const;
  /// Visible tiles satisfying `pred`, innermost and most recent first.
  std::vector<const TileVal*> visibleTiles(const std::function<bool(const TileVal&)>& pred) const;
  std::vector<const ScalarVal*> visibleScalars(const std::function<bool(const ScalarVal&)>& pred) const;
  /// Picks one, biased toward recent values; nullopt when there is none.
  std::optional<TileVal> pickTile(const std::function<bool(const TileVal&)>& pred);
  const ScalarVal* pickScalar(const std::function<bool(const ScalarVal&)>& pred);
  std::string currentTensorName(size_t tensor) const;
  /// With `percent` percent an existing Out tensor for a region to carry or yield, else -1.
  int64_t pickOutTensor(int percent);
  void setTensorName(size_t tensor, const std::string& n) { scopes_.back().tensorNames[tensor] = n; }

  // ---- KernelGenerator.cpp: parameters and GM ----
  std::string newParam(const std::string& prefix, DType dt, ParamRole role, int64_t lo, int64_t hi);
  /// An In tensor of `dt` able to serve a read of rows [.., rowsNeeded) and cols [.., colsNeeded).
  size_t inTensor(DType dt, int64_t rowsNeeded, int64_t colsNeeded);
  size_t outTensor(DType dt);
  /// An INDEX expression in [0, maxValue] and a multiple of `align` in every run: a literal, a
  /// scaled scalar in scope, or a scaled new Offset parameter (runtime only when allowed).
  IndexExpr offsetExpr(int64_t maxValue, int64_t align, bool allowRuntime);
  /// A scalar operand for a tile-scalar op on `dt` tiles (literal, parameter or scalar in scope),
  /// with its range; `divisor` keeps it away from zero.
  std::pair<ExprPtr, Interval> scalarOperand(DType dt, bool divisor);

  // ---- VecSteps.cpp ----
  std::array<int64_t, 2> pickShape(DType dt);
  DType pickVecDType();
  double boundOf(DType dt) const { return dt == DType::FP16 ? config_.fp16Bound : config_.fp32Bound; }
  bool fitsBound(DType dt, const Interval& r) const { return !isFloat(dt) || r.magnitude() <= boundOf(dt); }
  /// May the kernel apply `op` to `dt` tiles (verifier, features, contract)? Sets `outOfContract`.
  bool arithmeticAllowed(Opcode op, DType dt, bool& outOfContract) const;
  std::optional<TileVal> genLoad(bool allowPartial);
  /// `load(tensor, [row, col], shape, valid_shape=valid when statesValid)` into a Vec tile of its
  /// own, defined on its valid region, its lanes in `range`.
  TileVal emitVecLoad(ExprPtr tensor, ExprPtr row, int64_t col, std::array<int64_t, 2> shape,
                      std::array<int64_t, 2> valid, bool statesValid, DType dt, Interval range);
  int stepLoad(int budget);
  /// `load` of a band a store wrote earlier, through the tensor's current SSA value (the tensor
  /// becomes InOut): the store -> load order in GM that every path must keep.
  TileVal loadBack(const StoredBand& band);
  int stepStore(int budget);
  void storeTile(const TileVal& v);
  int stepBinary(int budget);
  int stepUnary(int budget);
  int stepTileScalar(int budget);
  int stepScalarExpr(int budget);
  int stepFull(int budget);
  int stepReduction(int budget);
  int stepTransposeVec(int budget);
  /// `transpose_view(x)` of a Vec tile: ND <-> DN, shape, valid extents and mask swapped.
  TileVal emitTranspose(const TileVal& x);
  int stepMoveVec(int budget);
  /// Emits a guard: `minimums(maximums(v, -b), b)` (FP32; FP16 only out of contract).
  TileVal clampTile(const TileVal& v, double bound);
  /// Emits `abs(v)` then `adds(., 1.0)`: every lane >= 1.
  TileVal awayFromZero(const TileVal& v);
  TileVal absTile(const TileVal& v);
  /// The result of an elementwise op over `lhs` (valid, mask and storage), with range `range`.
  TileVal elementwiseResult(const std::string& n, const TileVal& lhs, const Interval& range) const;

  // ---- ViewSteps.cpp ----
  int stepSlice(int budget);
  int stepExtract(int budget);
  int stepAssemble(int budget);
  int stepCreateAssemble(int budget);
  /// `create(shape, dt)` into a Vec tile of its own, every lane poison.
  TileVal emitCreate(int64_t rows, int64_t cols, DType dt);
  int stepReshape(int budget);
  int stepSetValidStatic(int budget);
  int stepRuntimeValid(int budget);
  /// The static valid extents of a slice of `src` (offsets in range, runtime only on fully valid axes).
  std::array<int64_t, 2> sliceValid(const TileVal& src, int64_t rows, int64_t cols, const IndexExpr& rowOff,
                                    const IndexExpr& colOff, std::optional<std::array<int64_t, 2>> requested) const;
  /// Emits a slice of `src` (window rows x cols at given offsets, optional requested valid); the
  /// result shares the source's storage family and pitch, its mask holds under every offset. A
  /// source with runtime valid extents (outside the contract only) gives the window the extents
  /// the verifier infers.
  TileVal emitSlice(const TileVal& src, int64_t rows, int64_t cols, IndexExpr rowOff, IndexExpr colOff,
                    std::optional<std::array<int64_t, 2>> requested);
  /// Emits an assemble; static offsets unless the target is fully valid (the caller checks the
  /// write-union exists).
  TileVal emitAssemble(const TileVal& target, const TileVal& source, IndexExpr rowOff, IndexExpr colOff);
  /// Emits set_validshape(src, vr, vc) with the valid type `valid` and retires src's family (V4).
  /// Callers pick extents the source's mask covers (all of them when `runtime`).
  TileVal emitSetValid(const TileVal& src, ExprPtr vr, ExprPtr vc, ValidShape valid, bool runtime);

  // ---- ControlSteps.cpp ----
  bool controlAllowed() const { return depth() < maxDepth(); }
  int stepIf(int budget);
  int stepFor(int budget);
  int stepWhile(int budget);
  /// A Vec `create` filled chunk by chunk in a counted loop, each trip assembling its chunk into
  /// the carry at a runtime window of the induction variable.
  int stepFillLoop(int budget);
  ExprPtr pickCondition();
  /// Tiles an enclosing region may carry or yield (own storage, static valid, defined); with
  /// `viewsToo`, windows and relabels as well.
  bool carryable(const TileVal& v, bool viewsToo = false) const;
  /// Whether a region may carry or yield windows and relabels: half the time once the kernel is
  /// outside the contract, a fifth of the time inside it (a selected kernel's MaterializeSemanticAliases
  /// copies them into storage of the region's own, docs/lowering.md S19).
  bool viewCarriesAllowed();
  /// The loop carry an init starts (a value of its own, named by the caller).
  TileVal carryOf(const TileVal& init) const;
  /// Loop carries drawn from values in scope (swaps: repeated types; fanout: repeated values).
  std::vector<TileVal> pickCarryInits(int maxCount, bool viewsToo = false);
  /// The value a region yields for a slot shaped like `want` (the carry or the if's outside
  /// value, itself always eligible): same type; for a loop carry also a mask containing the
  /// carry's and a range inside it, emitting a clamp guard when that makes a recent value fit.
  /// `viewsToo`: the region may yield a window or relabel (viewCarriesAllowed).
  TileVal pickYield(const TileVal& want, bool loopCarry, bool viewsToo = false);
  /// A loop-count expression in [lo, hi] over every run, with hi <= maxLoopTrips.
  IndexExpr loopCount();
  /// Outside the contract, a setter on carry `c` at the start of its loop's body, drawn for a
  /// fifth of the plain Vec carries: the body sees the shrunk value (pinned until the yield), the
  /// back edge its restored one (restoreCarry). A setter makes the carry's storage dynamic (V6,
  /// V11), which no region of a selected kernel may hold (V5). nullopt when not drawn.
  std::optional<TileVal> shrinkCarry(const TileVal& c);
  /// `set_validshape(shrunk, c's valid extents)`: a value of c's type (the lanes kept their state).
  TileVal restoreCarry(const TileVal& shrunk, const TileVal& c);
  /// Where each of a region's `n` carries or results goes among them: slot j is written at
  /// position order[j]. Mostly the generator's own order (tiles first, then scalars and tensors);
  /// otherwise scalar and tensor slots sit between tile ones, whose relative order the lowering
  /// must keep when it drops the tiles (L4, B8).
  std::vector<size_t> slotOrder(size_t n);
  /// Two INDEX loop carries that the loop swaps on every trip (L4: the lowering assigns scalar
  /// iter_args simultaneously), started from scalars in scope or literals of loop-count range;
  /// nullopt when the draw says no.
  struct SwapPair {
    ScalarVal a, b;
    ExprPtr initA, initB;
  };
  std::optional<SwapPair> drawSwapPair(int percent);
  /// The pair's carries appended to a loop's slots, and its back-edge values (swapped).
  static void appendSwapSlots(const SwapPair& swap, std::vector<Binder>& iterArgs, std::vector<ExprPtr>& inits);
  static void appendSwapYields(const SwapPair& swap, std::vector<ExprPtr>& values);
  /// shrinkCarry drawn for each carry, in order.
  std::vector<std::optional<TileVal>> shrinkCarries(const std::vector<TileVal>& carries);
  /// The back-edge values of a loop's tile carries: each shrunk one set back (restoreCarry, all of
  /// them first), any other picked by pickYield.
  std::vector<ExprPtr> carryYields(const std::vector<TileVal>& carries, const std::vector<std::optional<TileVal>>& shrunk,
                                   bool viewsToo);
  /// Draws slotOrder for a loop's slots and applies it to its iter_args, inits and back-edge values.
  std::vector<size_t> reorderSlots(std::vector<Binder>& iterArgs, std::vector<ExprPtr>& inits,
                                   std::vector<ExprPtr>& values);

  // ---- CubeSteps.cpp ----
  int stepCube(int budget);
};

}  // namespace ptodiff::fuzz::detail
