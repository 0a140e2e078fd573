//===- Distribution.h - where each element of a tile lives ------*- C++ -*-===//
//
// What a distributed layout means, as data. Every layout attribute (blocked,
// slice, mma, dot operand; the DistributedLayoutAttrInterface of
// TileInterfaces.td) answers with a Distribution: a thread's coordinate along
// each axis of the root layout (the innermost one under any slices) is a base,
// the sum of what each set bit of its lane and warp id moves (a power of two
// along one axis, or nothing), plus a constant per element it holds (its
// register part). Coordinates wrap modulo the tile's extent where the layout
// spans more than the tile; bits and elements that only reach past the extent
// are replicas. This is the bit-linear form of Triton's linear layouts, with
// the register part kept as a list so that element order is explicit.
//
// Element (struct) order: a blocked layout enumerates its per-thread digits
// fastest along order[0] within sizePerThread, then along the other axes in
// `order`, then the repetitions the same way. An mma accumulator lists, per
// instruction fragment (rows, then columns), c0..c3 as mma.sync returns them;
// an mma operand lists the registers of each fragment and k step in mma.sync's
// operand order; an FMA operand (a dot operand of a blocked accumulator) lists
// the accumulator's rows (A) or columns (B), each with the whole K. A slice
// layout keeps the parent's elements whose register part along the sliced
// axis is 0, in the parent's order.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_DIALECTS_TILE_DISTRIBUTION_H
#define TESSERA_DIALECTS_TILE_DISTRIBUTION_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/LogicalResult.h"

#include <map>
#include <optional>
#include <vector>

namespace mlir::tile {

/// What one bit of the lane or warp id moves: `value` along root axis `axis`
/// (axis < 0: nothing; the bit only selects a replica).
struct Basis {
  int axis = -1;
  int64_t value = 0;
  bool operator==(const Basis &o) const { return axis == o.axis && value == o.value; }
};

/// The per-thread elements of a tile in a distributed layout.
struct Distribution {
  Attribute root;                                     // the layout under the slices
  llvm::SmallVector<int64_t, 4> shape;                // in root axes; sliced axes have extent 1
  llvm::SmallVector<unsigned, 2> sliced;              // root axes removed by slices
  llvm::SmallVector<Basis, 5> lanes;                  // per lane-id bit, lowest first
  llvm::SmallVector<Basis, 4> warps;                  // per warp-id bit, lowest first
  std::vector<llvm::SmallVector<int64_t, 4>> offsets; // per element: register part, root axes
  std::map<std::vector<int64_t>, size_t> index;       // offsets -> first element holding them
  llvm::SmallVector<bool, 4> wrapping;                // per root axis, see wraps()

  unsigned rank() const { return shape.size(); }
  bool isSliced(unsigned d) const { return llvm::is_contained(sliced, d); }
  /// The constant part of element i's coordinate along root axis d.
  int64_t constOffset(size_t i, unsigned d) const { return offsets[i][d]; }
  /// Whether coordinates along d can pass the extent (and so wrap around).
  bool wraps(unsigned d) const { return wrapping[d]; }
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
  /// The coordinates (in root axes, wrapped) of element `i` of the thread with
  /// ids `lane` and `warp`: what the generated code computes, on the host.
  llvm::SmallVector<int64_t, 4> coordsOf(size_t i, unsigned lane, unsigned warp) const;
  /// Rebuilds `index` and `wrapping` from the bases and offsets (after they change).
  void reindex();
};

/// The window [begin, begin + width) of root axis `axis` as a distribution of
/// its own (coordinates relative to `begin`, the same lanes and warps), with
/// `elems` the indices in `dist` of the elements it keeps, in order. Fails
/// where the window's elements differ between threads: a lane or warp bit, or
/// an element's offset plus them, crosses a multiple of `width`; or the tile
/// wraps along `axis`, or the axis is sliced.
llvm::FailureOr<Distribution> windowOf(const Distribution &dist, unsigned axis, int64_t begin,
                                       int64_t width, llvm::SmallVectorImpl<size_t> &elems);

/// Per root axis, the lane and warp part of a thread's coordinates (before
/// wrapping), for host integers (SharedLayout.h's HostArith) or the IR
/// arithmetic of the lowering: runs of consecutive bits that step
/// one axis by doubling values become one (id / 2^first) % 2^n * value term.
template <typename Arith>
llvm::SmallVector<typename Arith::Int, 4> threadBaseOf(Arith &a, const Distribution &dist,
                                                       typename Arith::Int lane,
                                                       typename Arith::Int warp) {
  using Int = typename Arith::Int;
  llvm::SmallVector<Int, 4> base(dist.rank(), a.c(0));
  llvm::SmallVector<bool, 4> set(dist.rank(), false);
  auto addTerms = [&](llvm::ArrayRef<Basis> bits, Int id) {
    for (size_t i = 0; i < bits.size();) {
      size_t j = i + 1;
      while (j < bits.size() && bits[j].axis == bits[i].axis && bits[i].axis >= 0 &&
             bits[j].value == bits[j - 1].value * 2)
        ++j;
      if (bits[i].axis >= 0) {
        Int digit = a.urem(a.udiv(id, a.c(1ll << i)), a.c(1ll << (j - i)));
        Int term = a.mul(digit, a.c(bits[i].value));
        unsigned ax = bits[i].axis;
        base[ax] = set[ax] ? a.add(base[ax], term) : term;
        set[ax] = true;
      }
      i = j;
    }
  };
  addTerms(dist.lanes, lane);
  addTerms(dist.warps, warp);
  return base;
}

} // namespace mlir::tile

#endif
