//===- ClusterPrograms.h - which loads a cluster's programs share -*- C++ -*-===//
//
// The condition of tile-cluster-programs (Passes.td), for the pass and for
// the tuner, which tries the `cluster` option only where a load is shared.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TRANSFORMS_CLUSTERPROGRAMS_H
#define TESSERA_TRANSFORMS_CLUSTERPROGRAMS_H

#include "dialects/Tile/TileDialect.h"
#include "lib/Target/TargetInfo.h"

#include <string>

namespace mlir::tile {

/// The block loads in loops of `kernel` whose tile is the same for programs
/// that differ in program_id(0) only, loaded as many times by each: what
/// programs in clusters along axis 0 can share.
SmallVector<LoadOp> clusterSharedLoads(KernelOp kernel);

/// Why the pass gives `kernel`'s `cluster` option (of 2 or more) no cluster on
/// `target`, "" where it does (`loads`, if given, then holds the shared
/// loads): no clusters on the target, a persistent kernel, or no shared load.
/// The tuner prunes with the same reasons.
std::string clusterSkipReason(KernelOp kernel, const tessera::target::TargetInfo &target,
                              SmallVector<LoadOp> *loads = nullptr);

} // namespace mlir::tile

#endif
