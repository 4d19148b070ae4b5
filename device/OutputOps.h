// Which op computes what a kernel stores into each output tensor, for the judge's per-op
// histograms. The answer is per tensor, not per element: every tile.store into the tensor (through
// store chains, loop carries and branch results) is traced back through views and copies (slice,
// reshape, set_validshape, move, extract, transpose_view, assemble's source, loop/branch results)
// to the op that computed its values; a tensor written from several ops gets all of them
// ("tile.add+tile.exp"), so its elements land in that mixed bucket.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/IR.h"

namespace ptodiff::device {

/// Out/InOut tensor parameter -> op label ("tile.exp", "tile.add+tile.matmul"; "(not stored)").
std::map<std::string, std::string> outputOpLabels(const Function& kernel);

}  // namespace ptodiff::device
