//===- Distribute.h - where each element of a tile lives --------*- C++ -*-===//
//
// The meaning of the layout encodings in code. Every layout but the FMA dot
// operands is described the same way: a thread's coordinate along each axis of
// the root layout (the innermost one under any slices) is a base, the sum of
// what each set bit of its lane and warp id moves (a power of two along one
// axis, or nothing), plus a constant per element it holds (its register part).
// Coordinates wrap modulo the tile's extent where the layout spans more than
// the tile; bits and elements that only reach past the extent are replicas.
//
// Element (struct) order: a blocked layout enumerates its per-thread digits
// fastest along order[0] within sizePerThread, then along the other axes in
// `order`, then the repetitions the same way. An mma accumulator lists, per
// 16x8 fragment (rows, then columns), c0..c3 as mma.sync returns them; an mma
// operand lists the registers of each fragment and k step in mma.sync's operand
// order. A slice layout keeps the parent's elements whose register part along
// the sliced axis is 0, in the parent's order.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_DISTRIBUTE_H
#define TESSERA_CONVERSION_DISTRIBUTE_H

#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <optional>

namespace tessera::conversion {

/// What one bit of the lane or warp id moves: `value` along root axis `axis`
/// (axis < 0: nothing; the bit only selects a replica).
struct Basis {
  int axis = -1;
  int64_t value = 0;
  bool operator==(const Basis &o) const { return axis == o.axis && value == o.value; }
};

/// The per-thread elements of a tile in a blocked, mma or mma-operand layout,
/// or nested slices of one.
struct Distribution {
  mlir::Attribute root;                               // the layout under the slices
  llvm::SmallVector<int64_t, 4> shape;                // in root axes; sliced axes have extent 1
  llvm::SmallVector<unsigned, 2> sliced;              // root axes removed by slices
  llvm::SmallVector<Basis, 5> lanes;                  // per lane-id bit, lowest first
  llvm::SmallVector<Basis, 4> warps;                  // per warp-id bit, lowest first
  std::vector<llvm::SmallVector<int64_t, 4>> offsets; // per element: register part, root axes
  std::map<std::vector<int64_t>, size_t> index;       // offsets -> first element holding them

  unsigned rank() const { return shape.size(); }
  bool isSliced(unsigned d) const { return llvm::is_contained(sliced, d); }
  /// The constant part of element i's coordinate along root axis d.
  int64_t constOffset(size_t i, unsigned d) const { return offsets[i][d]; }
  /// Whether coordinates along d can pass the extent (and so wrap around).
  bool wraps(unsigned d) const;
  /// Whether a lane/warp bit only selects a replica (moves nothing in the tile).
  bool isReplica(const Basis &b) const {
    return b.axis < 0 || b.value == 0 || b.value >= shape[b.axis];
  }
  /// The bit as it acts inside the tile: replicas normalized to {-1, 0}.
  Basis effective(const Basis &b) const { return isReplica(b) ? Basis{} : b; }
  /// The element whose register part is `off` (in root axes), if any.
  std::optional<size_t> find(llvm::ArrayRef<int64_t> off) const;
  /// `off` reduced modulo the extents (where a coordinate lands in the tile).
  llvm::SmallVector<int64_t, 4> wrapped(llvm::ArrayRef<int64_t> off) const;
  /// How many consecutive elements (from any multiple of the result) are
  /// adjacent along the last root axis in every thread: the vector width of a
  /// row-major access. 1 when the last axis is sliced.
  unsigned contiguousRun() const;
  mlir::tile::BlockedLayoutAttr blocked() const {
    return llvm::dyn_cast_or_null<mlir::tile::BlockedLayoutAttr>(root);
  }
};

/// Builds the distribution of `type`. Fails for FMA dot operands (blocked
/// parents) and for layouts that do not fit the tile's rank.
mlir::FailureOr<Distribution> distribute(mlir::RankedTensorType type);

/// Per root axis, the lane and warp part of a thread's coordinates (before
/// wrapping; along a sliced axis it is 0 only in the owning threads).
llvm::SmallVector<mlir::Value, 4> threadBase(mlir::OpBuilder &b, mlir::Location loc,
                                             const Distribution &dist, mlir::Value laneId,
                                             mlir::Value warpId);

/// The coordinates (i32, in the tile's own axes) of every element this thread holds.
std::vector<llvm::SmallVector<mlir::Value, 4>> elementCoords(mlir::OpBuilder &b, mlir::Location loc,
                                                             const Distribution &dist,
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
  unsigned wm, wn;        // warps along M and N
  int64_t fm, fn, kSteps; // 16-row and 8-column fragments per warp, 16-deep K steps
};
/// For the accumulator ([M, N]); operands give only the counts they determine.
MmaShape mmaShape(mlir::tile::MmaLayoutAttr mma, int64_t m, int64_t n, int64_t k);

} // namespace tessera::conversion

#endif
