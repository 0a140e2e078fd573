//===- Layouts.h - choosing distributed layouts -----------------*- C++ -*-===//
//
// The layout choices of tile-assign-layouts, kept apart so that tests and later
// passes (and the autotuner's pruning) can ask the same questions.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TRANSFORMS_LAYOUTS_H
#define TESSERA_TRANSFORMS_LAYOUTS_H

#include "dialects/Tile/TileDialect.h"
#include "lib/Target/TargetInfo.h"

namespace mlir::tile {

/// A coalesced blocked layout for a tile of `shape` with `eltBits`-bit elements:
/// up to 16 bytes per thread along the last axis, lanes along the last axes,
/// warps along the first ones.
BlockedLayoutAttr getDefaultBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                          unsigned numWarps, unsigned eltBits);

/// The accumulator layout of an [M, N] tensor-core product on `instr`: warps
/// split M first.
MmaLayoutAttr getMmaLayout(MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned numWarps,
                           const tessera::target::MmaInstr &instr);

/// `dot` as TargetInfo::tensorCoreInstr sees it (the kernel's warps included).
tessera::target::DotShape dotShape(DotOp dot);

/// The layout of `x.T` when `x` has the blocked layout `l`: axes swapped.
BlockedLayoutAttr getTransposedLayout(BlockedLayoutAttr l);

/// The tensor type `t` with layout `layout` (null removes it).
RankedTensorType withLayout(RankedTensorType t, Attribute layout);

} // namespace mlir::tile

#endif
