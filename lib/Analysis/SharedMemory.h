//===- SharedMemory.h - what a kernel needs of shared memory ----*- C++ -*-===//
//
// The decisions about shared memory that several passes must agree on: whether
// a layout conversion stays in registers, the slot a conversion or a reduction
// goes through (its scratch) and how many bytes that takes, and the encoding a
// staged tensor-core operand gets. Encodings are chosen by the bank-conflict
// model of SharedAccess.h over the plans the lowering will emit: the candidate
// swizzles are tried and the one with the fewest conflicts wins.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_ANALYSIS_SHAREDMEMORY_H
#define TESSERA_ANALYSIS_SHAREDMEMORY_H

#include "lib/Analysis/SharedAccess.h"

#include <optional>

namespace tessera::analysis {

/// When `dst` holds, in every thread, elements the same thread holds in `src`
/// (equal lane and warp bits inside the tile), a conversion is a permutation
/// of registers: for each element of `dst`, the element of `src` it copies.
std::optional<llvm::SmallVector<size_t>> registerPermutation(const Distribution &src,
                                                             const Distribution &dst);

/// The plan that reads a tile of `dst`'s distribution from a slot of `geo`:
/// ldmatrix for tensor-core operands where it applies, else vector loads.
mlir::FailureOr<SharedPlan> readPlan(const Distribution &dst, const SharedGeometry &geo);

/// The slot a layout conversion from `src` to `dst` goes through, or nullopt
/// when it stays in registers (or a layout has no distribution). The tile is
/// flattened to [rows, cols]; of the swizzles and row paddings, the one with
/// the fewest bank conflicts over the writes and reads wins (ties: plain).
/// Answers are kept per pair of types (by their text) for the process.
std::optional<SharedGeometry> conversionScratch(mlir::RankedTensorType src,
                                                mlir::RankedTensorType dst);
/// conversionScratch without the memo (what it computes on a miss).
std::optional<SharedGeometry> conversionScratchUncached(mlir::RankedTensorType src,
                                                        mlir::RankedTensorType dst);

/// The scratch slot of a conversion: as recorded by tile-allocate-shared
/// (`tile.scratch_layout = array<i64: swizzle, pad>`), else conversionScratch.
std::optional<SharedGeometry> scratchOf(mlir::tile::ConvertLayoutOp op);
/// Records `g` on `op` so that later passes and the lowering need not choose again.
void recordScratch(mlir::tile::ConvertLayoutOp op, const SharedGeometry &g);

/// Whether the old values of an atomic (tile.atomic_rmw / tile.atomic_cas)
/// whose result has type `result` must pass from the owning threads to the
/// replicas: a scalar, or a tile whose layout holds an element in several
/// threads (a sliced axis, a tile smaller than the layout). Only the owner of
/// an element updates it.
bool atomicResultReplicated(mlir::Type result);

/// The bytes of shared memory `op` needs for itself while it runs (its
/// scratch): a layout conversion through shared memory, a reduction across
/// warps, the old values of a replicated atomic that are used. 0 for
/// everything else.
int64_t scratchBytes(mlir::Operation *op);

/// The encoding a tile of `src`'s type gets when staged in shared memory for
/// reading as `reader` (a tensor-core operand layout): stored along `src`'s
/// fastest axis, with the swizzle that gives the fewest bank conflicts for
/// writing `src` and reading `reader` (ties: the widest swizzle, which TMA and
/// wgmma also accept).
mlir::tile::SharedEncodingAttr chooseStagingEncoding(mlir::RankedTensorType src,
                                                     mlir::Attribute reader);

/// The encoding a wgmma operand (`opIdx` 0: A [M, K], 1: B [K, N]) of `src`'s
/// type gets for a version-3 accumulator `mma`: stored along `src`'s fastest
/// axis with the widest swizzle (128, 64 or 32 bytes) the contiguous extent
/// fills, and, when that axis is M or N, that one instruction's rows or
/// columns span whole swizzle rows (matrix descriptors start on one). Failure
/// when no swizzle fits (a contiguous extent under 32 bytes).
mlir::FailureOr<mlir::tile::SharedEncodingAttr>
chooseWgmmaEncoding(mlir::RankedTensorType src, unsigned opIdx, mlir::tile::MmaLayoutAttr mma);

/// The bytes a tile element takes in shared memory (bool: one).
unsigned sharedEltBytes(mlir::Type elt);

} // namespace tessera::analysis

#endif
