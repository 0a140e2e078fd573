//===- AxisInfo.h - integer tiles along their last axis ---------*- C++ -*-===//
//
// What the index math of an element access proves about its values along the
// tile's last axis, so that the lowering can move runs of elements as one
// vector access, as the block form does: which elements step by one
// (contiguity), which hold one value (constancy), and what divides the first
// value of each run (divisibility). Facts are powers of two and about runs
// aligned at multiples of their length in the tile's last coordinate. They
// come from the defining ops (arange, splat, constants, add, sub, mul,
// expand_dims, broadcast, casts, compares, and/or, the last extent of an aligned
// tensor, multiple_of promises); anything else knows nothing (1, 1, 1).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_ANALYSIS_AXISINFO_H
#define TESSERA_ANALYSIS_AXISINFO_H

#include "mlir/IR/Value.h"

#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace tessera::analysis {

struct AxisFacts {
  /// Aligned runs of this many elements step by +1 along the last axis.
  int64_t contiguity = 1;
  /// Aligned runs of this many elements hold one value along the last axis
  /// (for a scalar: unbounded).
  int64_t constancy = 1;
  /// The first element of each contiguity run is a multiple of this.
  int64_t divisibility = 1;
};

/// The facts about `v` (an integer or bool scalar or tile) along its last
/// axis. `aligned`: the kernel is specialized on aligned tensors, whose last
/// extents are multiples of 16 bytes.
AxisFacts axisFacts(mlir::Value v, bool aligned);

/// How many consecutive elements (a power of two, at least 1) of the element
/// access `op` (tile.gather or tile.scatter) along the tensor's last axis can
/// move as one access of up to 16 bytes: runs the layout keeps in one thread,
/// whose last index steps by one from a multiple of the run, whose other
/// indices and mask hold one value; only on aligned tensors.
unsigned elementAccessVector(mlir::Operation *op);

/// Whether the kernel is specialized on `tensor` (a tile.kernel argument of
/// !tile.tensor type) being aligned: 16-byte aligned base, last extent and
/// strides in whole 16-byte units. Not where the kernel is `tile.aligned =
/// false` (every tensor unaligned) or lists the argument in
/// `tile.unaligned_args` (the runtime's per-tensor specialization: one table of
/// odd width does not cost the other tensors their vector accesses).
bool isAlignedTensor(mlir::Value tensor);

} // namespace tessera::analysis

#endif
