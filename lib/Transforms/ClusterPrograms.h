//===- ClusterPrograms.h - which loads a cluster's programs share -*- C++ -*-===//
//
// The condition of tile-cluster-programs (Passes.td), for the pass and for
// the tuner, which tries the `cluster` option only where a load is shared.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TRANSFORMS_CLUSTERPROGRAMS_H
#define TESSERA_TRANSFORMS_CLUSTERPROGRAMS_H

#include "dialects/Tile/TileDialect.h"

namespace mlir::tile {

/// The block loads in loops of `kernel` whose tile is the same for programs
/// that differ in program_id(0) only, loaded as many times by each: what
/// programs in clusters along axis 0 can share.
SmallVector<LoadOp> clusterSharedLoads(KernelOp kernel);

} // namespace mlir::tile

#endif
