// The fault catalogue (spec/lowering.md "Fault injection", docs/faults.md): named, realistic
// miscompiles compiled into the reference lowering, each one switch away and off by default. A
// fault stands for a class of bugs PyPTO's history shows (reference/pypto.md §8); qualification
// (`ci/qualify`) measures how fast and how small the random campaign finds each one.
//
// A pass asks `context.faults.on(Fault::X)` at the one place its fault deviates; nothing else
// changes, so a fault's effect is exactly that deviation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptodiff {

enum class Fault : uint8_t {
  LivenessIgnoresLoopExtension,
  LivenessIgnoresViewUses,
  InPlaceReuseForUnsafeOps,
  DsaRpPackingIgnoresLifetimes,
  SliceOffsetDropped,
  SliceOwnPitch,
  AssembleOverlapInPlace,
  AssembleRowGapProof,
  InPlaceInputCopyDropped,
  BranchTransferDropped,
  LoopSwapWithoutSnapshot,
  ZeroTripEntryCopyMissing,
  AssembleSourceValidOnly,
  InitCondInverted,
  AccProductViewDropped,
  NzZnSwapped,
  StaleValidShape,
  ReshapeWidensValid,
};

struct FaultInfo {
  Fault fault;
  std::string_view name;      // `--inject-fault NAME`
  std::string_view pass;      // the pass whose code deviates
  std::string_view bugClass;  // reference/pypto.md §8 class, with the PyPTO issues it stands for
  std::string_view what;      // the deviation, in one sentence
};

/// Every fault, in catalogue order.
const std::vector<FaultInfo>& faultCatalogue();
const FaultInfo& faultInfo(Fault f);
std::optional<Fault> parseFault(std::string_view name);
/// "a, b, c": every fault name, for diagnostics.
std::string faultNames();

/// Which fault (at most one) the lowering injects; default: none.
struct FaultSwitch {
  std::optional<Fault> active;
  bool on(Fault f) const { return active == f; }
  bool any() const { return active.has_value(); }
};

}  // namespace ptodiff
