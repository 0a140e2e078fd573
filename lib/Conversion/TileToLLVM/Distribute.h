//===- Distribute.h - where each element of a tile lives --------*- C++ -*-===//
//
// The meaning of the layout encodings in code: for a tile of a given shape and
// layout, the list of elements each thread holds (in a fixed order, the order of
// the fields of the LLVM struct that carries the tile) and their coordinates, as
// a per-thread base (from the lane and warp ids) plus a constant per element.
//
// Per-thread order for a blocked layout: the digits (s, rep) of each element are
// enumerated fastest along order[0] within sizePerThread, then along the other
// axes in `order`, then over the repetitions. A slice layout keeps the parent's
// elements whose digits along the sliced axis are 0. Coordinates wrap modulo the
// tile's extent when the layout covers more than the tile.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_DISTRIBUTE_H
#define TESSERA_CONVERSION_DISTRIBUTE_H

#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"

namespace tessera::conversion {

/// One element held by a thread: its digits in the parent blocked layout.
struct ElemDigits {
  llvm::SmallVector<int64_t, 4> s, rep; // per axis of the blocked layout
};

/// The per-thread elements of a blocked-or-slice-of-blocked layout.
struct Distribution {
  mlir::tile::BlockedLayoutAttr blocked; // the (innermost) blocked layout
  llvm::SmallVector<int64_t, 4> shape;   // the tile's shape, in blocked axes
  llvm::SmallVector<unsigned, 2> sliced; // blocked axes removed by slices
  llvm::SmallVector<int64_t, 4> reps;    // repetitions per blocked axis
  std::vector<ElemDigits> elems;         // in struct order

  /// The constant part of element i's coordinate along blocked axis d.
  int64_t constOffset(size_t i, unsigned d) const;
  /// The index of the element with these digits (after zeroing sliced axes).
  size_t indexOf(const ElemDigits &d) const;
};

/// Builds the distribution of `type` (blocked or nested slices of blocked).
/// Fails for other layouts.
mlir::FailureOr<Distribution> distribute(mlir::RankedTensorType type);

/// Per blocked axis, the lane and warp part of a thread's coordinates.
llvm::SmallVector<mlir::Value, 4> threadBase(mlir::OpBuilder &b, mlir::Location loc,
                                             const Distribution &dist, mlir::Value laneId,
                                             mlir::Value warpId);

/// The coordinates (i32, in the tile's own axes) of every element this thread holds.
std::vector<llvm::SmallVector<mlir::Value, 4>>
elementCoords(mlir::OpBuilder &b, mlir::Location loc, const Distribution &dist,
              llvm::ArrayRef<mlir::Value> base);

/// The number of elements a thread holds for a tile of `type`, in any layout.
mlir::FailureOr<size_t> elemsPerThread(mlir::RankedTensorType type);

/// The coordinates of every element this thread holds, for any layout
/// (blocked, slice, mma, dot_op), in struct order.
mlir::FailureOr<std::vector<llvm::SmallVector<mlir::Value, 4>>>
layoutCoords(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
             mlir::Value laneId, mlir::Value warpId);

/// mma.sync m16n8k16 fragments: for a tile of `shape` with an mma layout (or a
/// dot operand of one), the fragment counts per warp along M (rows) and N.
struct MmaShape {
  unsigned wm, wn;       // warps along M and N
  int64_t fm, fn, kSteps; // 16-row and 8-column fragments per warp, 16-deep K steps
};
/// For the accumulator ([M, N]); operands give only the counts they determine.
MmaShape mmaShape(mlir::tile::MmaLayoutAttr mma, int64_t m, int64_t n, int64_t k);

} // namespace tessera::conversion

#endif
