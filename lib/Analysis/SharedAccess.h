//===- SharedAccess.h - how tiles move to and from shared memory -*- C++ -*-===//
//
// A plan lists the shared-memory instructions that move a distributed tile to
// or from one slot: vector accesses (st.shared / ld.shared / cp.async) of runs
// of elements contiguous in the slot, or ldmatrix groups for tensor-core
// operands (the plain form when the K axis is the slot's contiguous one,
// `.trans` when it is not). Each instruction's per-lane address is a template
// over host or IR arithmetic, so the lowering emits exactly the addresses that
// the bank-conflict model (laneAccesses, wavefronts) evaluates on the host.
//
// The bank model: shared memory has 32 banks of 4 bytes. A warp's access is
// served in phases (16-byte accesses: 4 phases of 8 lanes; 8-byte: 2 of 16;
// narrower: 1 of 32; ldmatrix: one phase per 8x8 matrix); a phase needs as
// many wavefronts as the most distinct 4-byte words any one bank holds.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_ANALYSIS_SHAREDACCESS_H
#define TESSERA_ANALYSIS_SHAREDACCESS_H

#include "dialects/Tile/TileDialect.h"

namespace tessera::analysis {

using mlir::tile::Basis;
using mlir::tile::Distribution;
using mlir::tile::SharedGeometry;

/// One shared-memory instruction of a plan, as one lane issues it.
struct SharedInstr {
  enum Kind { Vector, Ldmatrix } kind = Vector;
  size_t first = 0;                  // Vector: the thread's first element of the run
  unsigned elems = 1;                // Vector: elements in the run (contiguous in the slot)
  unsigned num = 0;                  // Ldmatrix: 8x8 matrices (1, 2 or 4)
  bool trans = false;                // Ldmatrix: the .trans form
  llvm::SmallVector<size_t, 4> regs; // Ldmatrix: each matrix's first struct element
};

/// How a tile of distribution `dist` moves to or from a slot of geometry `geo`.
/// The slot holds the tile flattened to [rows, cols] (leading axes linearized
/// into rows); ldmatrix plans are for 2-D mma operand tiles.
struct SharedPlan {
  Distribution dist;
  SharedGeometry geo;
  unsigned nonKAxis = 0, kAxis = 1; // Ldmatrix: the operand's axes
  std::vector<SharedInstr> instrs;
  /// The bytes one lane moves in `in` (ldmatrix: 16 per row address).
  unsigned bytesPerLane(const SharedInstr &in) const;
  /// threadBaseOf(dist, lane, warp) on the host, computed once per plan.
  llvm::ArrayRef<int64_t> hostBase(unsigned lane, unsigned warp) const;

private:
  mutable std::vector<llvm::SmallVector<int64_t, 4>> hostBases;
};

/// Vector accesses: each thread's elements in runs along the slot's contiguous
/// axis, up to `maxBytes` and never across a 16-byte swizzle unit.
mlir::FailureOr<SharedPlan> planVectors(const Distribution &dist, const SharedGeometry &geo,
                                        unsigned maxBytes = 16);
/// ldmatrix groups for a tensor-core operand (a dot operand of an mma v2
/// accumulator) of 16-bit elements: up to four 8x8 matrices per instruction.
mlir::FailureOr<SharedPlan> planLdmatrix(const Distribution &dist, const SharedGeometry &geo);

/// The slot coordinates (row, col) where a lane's access of `in` starts.
/// `base` is the thread's threadBaseOf(dist, lane, warp); `warpBase` the same
/// with lane 0 (ldmatrix rows are addressed per lane).
template <typename Arith>
std::pair<typename Arith::Int, typename Arith::Int>
laneCoords(Arith &a, const SharedPlan &p, const SharedInstr &in,
           llvm::ArrayRef<typename Arith::Int> base, llvm::ArrayRef<typename Arith::Int> warpBase,
           typename Arith::Int lane) {
  using Int = typename Arith::Int;
  const Distribution &d = p.dist;
  if (in.kind == SharedInstr::Ldmatrix) {
    // Lane l gives row l % 8 of matrix (l / 8) % num.
    Int j = a.urem(a.udiv(lane, a.c(8)), a.c(in.num));
    Int rr = a.urem(lane, a.c(8));
    Int c[2];
    for (unsigned ax = 0; ax < 2; ++ax) {
      Int off = a.c(d.offsets[in.regs[0]][ax]);
      for (unsigned m = 1; m < in.num; ++m)
        off = a.selectEq(j, m, a.c(d.offsets[in.regs[m]][ax]), off);
      c[ax] = a.add(warpBase[ax], off);
    }
    unsigned rowAxis = in.trans ? p.kAxis : p.nonKAxis;
    c[rowAxis] = a.add(c[rowAxis], rr);
    return {c[0], c[1]};
  }
  // Vector: the coordinates of element `first`, flattened to [rows, cols].
  llvm::SmallVector<Int, 4> tileCoords;
  for (unsigned ax = 0; ax < d.rank(); ++ax) {
    if (d.isSliced(ax))
      continue;
    Int v = a.add(base[ax], a.c(d.offsets[in.first][ax]));
    if (d.wraps(ax))
      v = a.urem(v, a.c(d.shape[ax]));
    tileCoords.push_back(v);
  }
  Int row = a.c(0);
  unsigned n = tileCoords.size(), seen = 0;
  for (unsigned ax = 0; ax < d.rank(); ++ax) {
    if (d.isSliced(ax))
      continue;
    if (seen + 1 < n)
      row = a.add(a.mul(row, a.c(d.shape[ax])), tileCoords[seen]);
    ++seen;
  }
  return {n == 1 ? a.c(0) : row, tileCoords[n - 1]};
}

/// The byte offset in the slot where a lane's access of `in` starts.
template <typename Arith>
typename Arith::Int laneOffset(Arith &a, const SharedPlan &p, const SharedInstr &in,
                               llvm::ArrayRef<typename Arith::Int> base,
                               llvm::ArrayRef<typename Arith::Int> warpBase,
                               typename Arith::Int lane) {
  auto [row, col] = laneCoords(a, p, in, base, warpBase, lane);
  return mlir::tile::sharedByteOffset(a, row, col, p.geo);
}

/// A reduction across warps: root axis `axis` of the source distribution
/// is reduced; the warp bits that step it (`warpBits`) pick one of their
/// 2^n slots, each holding the partial results row-major over the other tile
/// axes (`resultNumel` elements of `eltBytes`).
struct ReduceScratch {
  unsigned axis = 0;
  llvm::SmallVector<unsigned, 4> warpBits;
  int64_t resultNumel = 1;
  unsigned eltBytes = 4;
  int64_t slots() const { return 1ll << warpBits.size(); }
  int64_t bytes() const { return slots() * resultNumel * eltBytes; }
};
/// The root axis of `d` that reduction axis `tileAxis` (in the tile's own
/// axes) names.
unsigned rootAxisOf(const Distribution &d, unsigned tileAxis);
/// The scratch of reducing `tileAxis` of a tile of `d`, or nullopt when every
/// warp holds the whole axis (no shared memory needed).
std::optional<ReduceScratch> reduceScratch(const Distribution &d, unsigned tileAxis,
                                           unsigned eltBytes);
/// The distinct partials a thread combines before the warps exchange them:
/// for each, an element holding it (register part zero along the axis).
llvm::SmallVector<size_t> reduceKeyElements(const Distribution &d, unsigned axis);

/// The thread's slot: its warp bits along the axis, compacted.
template <typename Arith>
typename Arith::Int reduceWarpDigit(Arith &a, const ReduceScratch &r, typename Arith::Int warp) {
  typename Arith::Int digit = a.c(0);
  for (auto [k, bit] : llvm::enumerate(r.warpBits))
    digit = a.add(digit, a.mul(a.urem(a.udiv(warp, a.c(1ll << bit)), a.c(2)), a.c(1ll << k)));
  return digit;
}

/// The byte offset of the partial of element `elem` (of a thread with lane
/// and warp part `base`) in slot `slot`.
template <typename Arith>
typename Arith::Int reduceSlotOffset(Arith &a, const Distribution &d, const ReduceScratch &r,
                                     size_t elem, llvm::ArrayRef<typename Arith::Int> base,
                                     typename Arith::Int slot) {
  typename Arith::Int lin = a.c(0);
  for (unsigned ax = 0; ax < d.rank(); ++ax) {
    if (d.isSliced(ax) || ax == r.axis)
      continue;
    typename Arith::Int c = a.add(base[ax], a.c(d.offsets[elem][ax]));
    if (d.wraps(ax))
      c = a.urem(c, a.c(d.shape[ax]));
    lin = a.add(a.mul(lin, a.c(d.shape[ax])), c);
  }
  return a.mul(a.add(a.mul(slot, a.c(r.resultNumel)), lin), a.c(r.eltBytes));
}

/// For each instruction of `p`, an earlier one (or itself) whose per-lane
/// offset differs from its own by the same constant in every lane of every
/// warp, and that constant: the lowering computes the offsets of the first
/// kind only and adds constants for the rest (a swizzle keeps rows 8 apart in
/// the same pattern), so a loop keeps few address registers live. Checked
/// exactly on the host over all lanes and warps.
struct OffsetBase {
  size_t ref = 0;
  int64_t delta = 0;
};
std::vector<OffsetBase> offsetBases(const SharedPlan &p);

/// One lane's access on the host.
struct LaneAccess {
  int64_t offset = 0;
  unsigned bytes = 0;
};
/// Every lane's access of `in` in warp `warp` (the bank-conflict model's input).
std::vector<LaneAccess> laneAccesses(const SharedPlan &p, const SharedInstr &in, unsigned warp);
/// The wavefronts the accesses of one instruction need, and the fewest they could.
struct Wavefronts {
  unsigned actual = 0, ideal = 0;
  unsigned excess() const { return actual - ideal; }
};
Wavefronts wavefronts(const std::vector<LaneAccess> &lanes, bool ldmatrix);
/// Excess wavefronts over every instruction of `p` in every warp of `numWarps`.
unsigned bankConflicts(const SharedPlan &p, unsigned numWarps);
/// Excess wavefronts of a reduction's partial stores and loads, every warp.
unsigned reduceBankConflicts(const Distribution &d, const ReduceScratch &r, unsigned numWarps);

} // namespace tessera::analysis

#endif
