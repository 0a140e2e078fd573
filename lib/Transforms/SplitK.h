//===- SplitK.h - which kernels tile-split-k can split ----------*- C++ -*-===//
//
// The condition of tile-split-k (Passes.td), for the pass and for the tuner's
// pruning of split-K configurations.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TRANSFORMS_SPLITK_H
#define TESSERA_TRANSFORMS_SPLITK_H

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

namespace mlir::tile {

/// Why tile-split-k cannot split `kernel` ("" when it can), with the op to
/// report at in `at`; the loop it would split in `loop`.
std::string splitKObstacle(KernelOp kernel, scf::ForOp *loop = nullptr, Operation **at = nullptr);

} // namespace mlir::tile

#endif
