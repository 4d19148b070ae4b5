#include "compiler/faults/Faults.h"

#include <stdexcept>

namespace ptodiff {

const std::vector<FaultInfo>& faultCatalogue() {
  static const std::vector<FaultInfo> catalogue = {
      {Fault::LivenessIgnoresLoopExtension, "liveness-ignores-loop-extension", "PlanMemory",
       "liveness and reuse: loop-extended lifetimes (#771, #1641)",
       "a value defined before a loop and read inside it is live only until its last textual read, not to the "
       "loop's backedge, so storage defined later in the body may reuse it while the next trip still reads it"},
      {Fault::LivenessIgnoresViewUses, "liveness-ignores-view-uses", "PlanMemory",
       "offsets and views: views reading stale data (#1839, #1835, #598)",
       "a read of a view (slice, reshape, transpose_view, set_validshape) does not keep the storage it views live, "
       "so later storage may reuse the bytes while the view is still read"},
      {Fault::InPlaceReuseForUnsafeOps, "inplace-reuse-unsafe-ops", "PlanMemory",
       "op run with src == dst (#557, #1825, #2106, #320)",
       "any op with one operand of the result's physical type may reuse the operand's storage in place when the "
       "operand dies there, including recip, move, reductions and matmul, which cannot run in place"},
      {Fault::DsaRpPackingIgnoresLifetimes, "dsa-rp-packing-ignores-lifetimes", "PlanMemory",
       "liveness and reuse: interval packing (#1949)",
       "DSA_RP's interval packing treats a lifetime as ending one program point early, so storage defined at the "
       "point of another's last read shares its bytes"},
      {Fault::SliceOffsetDropped, "slice-offset-dropped", "InitMemRef",
       "offsets and views lost in allocation (#1743, #1511, #1835)",
       "a slice at a static offset gets its parent's MemRef offset: the window collapses to the parent's origin"},
      {Fault::SliceOwnPitch, "slice-own-pitch", "InitMemRef",
       "offsets and views: a slice addressed with its own row pitch (#2011, #1655)",
       "a slice's byte offset is computed with the slice's own row pitch instead of its parent's"},
      {Fault::AssembleOverlapInPlace, "assemble-overlap-in-place", "InitMemRef",
       "overlapping assemble snapshot skipped (seed 003, W9)",
       "an assemble whose source reads its own target writes in place over the bytes it is still copying"},
      {Fault::AssembleRowGapProof, "assemble-row-gap-proof", "InitMemRef",
       "overlapping assemble: a disjointness proof that ignores row gaps (seed 003, W9/W10)",
       "an assemble whose source window is cut from its target writes in place when the first rows of the source "
       "and of the placed window are disjoint, ignoring the rows that follow"},
      {Fault::InPlaceInputCopyDropped, "inplace-input-copy-dropped", "InitMemRef",
       "valid-shape versions: in-place results and their input (#2403, #1454)",
       "an in-place result (assemble, matmul_acc) follows its input's storage even when that input is read "
       "again afterwards"},
      {Fault::BranchTransferDropped, "branch-transfer-dropped", "MaterializeSemanticAliases",
       "branch phis (#1832, #1924)",
       "the else arm's transfer is dropped by coalescing the branch result with the else arm's value: the result "
       "takes that value's storage without asking whether it is read after the branch, so the then arm overwrites it"},
      {Fault::LoopSwapWithoutSnapshot, "loop-swap-without-snapshot", "MaterializeSemanticAliases",
       "loop carries and swaps (#1641, #1924)",
       "the parallel transfers at a loop's yield run in order without a snapshot, so a swap reads a carry "
       "already overwritten"},
      {Fault::ZeroTripEntryCopyMissing, "zero-trip-entry-copy-missing", "MaterializeSemanticAliases",
       "loop carries: zero-trip entry copies (#771, seed 003 loop-input isolation)",
       "a loop input that is still read after the loop gets no entry copy, so the loop body writes over it"},
      {Fault::AssembleSourceValidOnly, "assemble-source-valid-only", "LowerTileToBuffer",
       "whole-source tinsert copy (reference/pypto.md §5; #2384)",
       "the assemble copy writes only the source's valid region instead of its whole physical window"},
      {Fault::InitCondInverted, "init-cond-inverted", "LowerTileToBuffer",
       "accumulator: runtime init_cond (#2403)",
       "the explicit `if` for a runtime init_cond runs matmul_acc when it is true and matmul when it is false"},
      {Fault::AccProductViewDropped, "acc-product-view-dropped", "LowerTileToBuffer",
       "accumulator (L0C) layout: product views (#2474)",
       "a matmul into a wider Acc writes through the Acc handle itself instead of a product-shaped view"},
      {Fault::NzZnSwapped, "nz-zn-swapped", "LowerTileToBuffer",
       "layout and fractal metadata (#2248, #1342, #1992)",
       "the allocation (first handle) of a boxed Mat/Left/Right root gets the other box order, NZ becoming ZN and "
       "back, while relabels of the same bytes (transpose_view) keep theirs"},
      {Fault::StaleValidShape, "stale-valid-shape", "LowerTileToBuffer",
       "valid_shape propagation: stale versions (#1454, #1395)",
       "a `set_validshape` with static extents is not emitted, so later ops see the handle's previous valid region"},
      {Fault::ReshapeWidensValid, "reshape-widens-valid", "LowerTileToBuffer",
       "valid_shape propagation: reshape (#2149)",
       "a reshape of a partially valid tile is lowered as fully valid"},
  };
  return catalogue;
}

const FaultInfo& faultInfo(Fault f) {
  for (const FaultInfo& i : faultCatalogue())
    if (i.fault == f) return i;
  throw std::logic_error("faultInfo: fault missing from the catalogue");
}

std::optional<Fault> parseFault(std::string_view name) {
  for (const FaultInfo& i : faultCatalogue())
    if (i.name == name) return i.fault;
  return std::nullopt;
}

std::string faultNames() {
  std::string out;
  for (const FaultInfo& i : faultCatalogue()) out += (out.empty() ? "" : ", ") + std::string(i.name);
  return out;
}

}  // namespace ptodiff
