//===- Layouts.cpp - choosing distributed layouts ---------------*- C++ -*-===//
//
// Blocked layouts follow the coalescing recipe: vectors of 16 bytes per thread
// along the contiguous (last) axis, as many lanes as fit along it, the remaining
// lanes on the axes before it, warps from the outermost axis in. Extents are
// rounded down to powers of two for the split; a layout larger than its tile
// replicates, which is correct, only wasteful.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Layouts.h"

using namespace mlir;
using namespace mlir::tile;

static unsigned floorPow2(int64_t v) {
  if (v < 1)
    return 1;
  return (unsigned)llvm::bit_floor((uint64_t)std::min<int64_t>(v, 1 << 30));
}

BlockedLayoutAttr tile::getDefaultBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                                unsigned numWarps, unsigned eltBits) {
  size_t r = shape.size();
  SmallVector<unsigned> spt(r, 1), tpw(r, 1), wpc(r, 1), order(r);
  for (size_t d = 0; d < r; ++d)
    order[d] = r - 1 - d;
  // 16-byte vectors, but no more elements per thread than the tile gives each.
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  unsigned vec = std::max(1u, 128u / std::max(eltBits, 8u));
  unsigned share = floorPow2(numel / (tessera::target::TargetInfo::kWarpSize * (int64_t)numWarps));
  spt[r - 1] = std::min({vec, share, floorPow2(shape[r - 1])});
  // Lanes from the innermost axis outwards.
  unsigned lanes = tessera::target::TargetInfo::kWarpSize;
  for (size_t i = 0; i < r && lanes > 1; ++i) {
    size_t d = r - 1 - i;
    unsigned fit = floorPow2(shape[d] / spt[d]);
    unsigned t = std::min(lanes, std::max(1u, fit));
    tpw[d] = t;
    lanes /= t;
  }
  tpw[r - 1] *= lanes; // leftover lanes replicate along the last axis
  // Warps from the outermost axis inwards.
  unsigned warps = numWarps;
  for (size_t d = 0; d < r && warps > 1; ++d) {
    unsigned fit = floorPow2(shape[d] / (spt[d] * tpw[d]));
    unsigned w = std::min(warps, std::max(1u, fit));
    wpc[d] = w;
    warps /= w;
  }
  wpc[0] *= warps;
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

MmaLayoutAttr tile::getMmaLayout(MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned numWarps,
                                 const tessera::target::MmaInstr &instr) {
  // Each warp computes at least one instruction's fragment; split M (rows)
  // first, the other warps split N. tensorCoreInstr() ensures M * N >= m * n *
  // numWarps, so that every warp owns a fragment.
  if (instr.version == 3) {
    auto [gm, gn] = tessera::target::TargetInfo::warpgroupGrid(shape[0], numWarps);
    return MmaLayoutAttr::get(ctx, 3, {4 * gm, gn}, {(unsigned)instr.m, (unsigned)instr.n});
  }
  unsigned wm = std::min(numWarps, floorPow2(shape[0] / instr.m));
  return MmaLayoutAttr::get(ctx, instr.version, {wm, numWarps / wm},
                            {(unsigned)instr.m, (unsigned)instr.n});
}

tessera::target::DotShape tile::dotShape(DotOp dot) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto c = cast<RankedTensorType>(dot.getResult().getType());
  tessera::target::DotShape s;
  s.ab = a.getElementType();
  s.acc = c.getElementType();
  s.m = c.getShape()[0];
  s.n = c.getShape()[1];
  s.k = a.getShape()[1];
  auto kernel = dot->getParentOfType<KernelOp>();
  s.numWarps = kernel ? kernel.getNumWarps() : tessera::kDefaultNumWarps;
  return s;
}

BlockedLayoutAttr tile::getTransposedLayout(BlockedLayoutAttr l) {
  auto swap = [](ArrayRef<unsigned> v) { return SmallVector<unsigned>{v[1], v[0]}; };
  SmallVector<unsigned> order;
  for (unsigned o : l.getOrder())
    order.push_back(1 - o);
  return BlockedLayoutAttr::get(l.getContext(), swap(l.getSizePerThread()),
                                swap(l.getThreadsPerWarp()), swap(l.getWarpsPerCTA()), order);
}

RankedTensorType tile::withLayout(RankedTensorType t, Attribute layout) {
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}
