//===- Patterns.h - tile-to-LLVM pattern sets -------------------*- C++ -*-===//
//
// Each op family populates its own patterns; TileToLLVM.cpp drives them.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_TILETOLLVM_PATTERNS_H
#define TESSERA_CONVERSION_TILETOLLVM_PATTERNS_H

#include "lib/Conversion/TileToLLVM/Utils.h"

namespace tessera::conversion {

void populateElementwisePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateMemoryPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateIndexedPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateAtomicPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateReducePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateScanPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateReshapePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateShapePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateDotPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateSharedPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateWgmmaPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateTmaPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateTmaStorePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateSplitKPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populatePrintPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateAssertPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateKernelPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
/// Scalar math on NVPTX: ex2/lg2/rsqrt/tanh approximations, f16/bf16 through f32.
void populateMathToNVVMPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);

/// Whether this thread owns element `i` (struct order) of a tile of `dist`
/// (thread coordinates `base`, from threadBase) rather than holding a replica
/// of it (threads along a sliced axis, or wrapped around a tile smaller than
/// the layout): the one thread that writes it, so that no two threads write
/// one element and a program's own later reads are safe.
mlir::Value ownsElement(mlir::OpBuilder &b, mlir::Location loc, const Distribution &dist,
                        llvm::ArrayRef<mlir::Value> base, size_t i);

/// The elements an element-addressed access moves at once (set on tile.gather
/// and tile.scatter before the conversion, from analysis::elementAccessVector).
constexpr const char *kVectorAttr = "tile.vector";
/// On a block load or store whose tensor the kernel is not specialized as
/// aligned (AxisInfo.h, isAlignedTensor): no vector accesses.
constexpr const char *kUnalignedAttr = "tile.unaligned";

/// The global address of every element of an element-addressed access
/// (tile.gather, tile.scatter, the atomics) of type `access`, and whether it
/// is accessed: its indices (converted operands `indices`, original values
/// `origIndices`, in the access's layout) inside the tensor and its mask
/// holding; for writes, only in the thread that owns the element.
struct ElementAccess {
  llvm::SmallVector<mlir::Value> addr, mask;
};
mlir::FailureOr<ElementAccess> elementAccess(mlir::ConversionPatternRewriter &rw,
                                             mlir::Operation *op, mlir::Value desc,
                                             mlir::tile::GlobalTensorType tensor,
                                             mlir::ValueRange indices, mlir::ValueRange origIndices,
                                             mlir::Value mask, mlir::Value origMask,
                                             mlir::Type access, bool forStore);

/// The global addresses and in-bounds masks of every element of a tile that
/// `tile.load`/`tile.store` of `tileType` (scalar or tile) at `coords` of the
/// tensor `desc` touches; for stores, only the owning thread of a replicated
/// element keeps its mask. `vec` elements contiguous along the tensor's last
/// axis move as one access where the kernel is specialized for alignment.
struct GlobalAccess {
  llvm::SmallVector<mlir::Value> addr, mask; // per element
  unsigned vec = 1;                          // elements per access
};
mlir::FailureOr<GlobalAccess>
computeGlobalAccess(mlir::ConversionPatternRewriter &rw, mlir::Operation *op, mlir::Value desc,
                    mlir::tile::GlobalTensorType tensor, mlir::ValueRange coords,
                    mlir::Type tileType, bool forStore, llvm::ArrayRef<int64_t> extents = {});

/// Stores the elements `vals` of a tile of `tile`'s layout into a shared slot
/// of geometry `geo` at `slotPtr`, and loads such a tile back (ldmatrix for
/// tensor-core operands where it applies): the plans of SharedAccess.h.
mlir::LogicalResult storeTileToShared(mlir::ConversionPatternRewriter &rw, mlir::Operation *op,
                                      mlir::RankedTensorType tile,
                                      const mlir::tile::SharedGeometry &geo, mlir::Value slotPtr,
                                      llvm::ArrayRef<mlir::Value> vals);
/// The same for the elements `vals` of a distribution (a window of a tile's).
mlir::LogicalResult storeDistributedToShared(mlir::ConversionPatternRewriter &rw,
                                             mlir::Operation *op, const Distribution &dist,
                                             mlir::Type elt, const mlir::tile::SharedGeometry &geo,
                                             mlir::Value slotPtr, llvm::ArrayRef<mlir::Value> vals);
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
loadTileFromShared(mlir::ConversionPatternRewriter &rw, mlir::Operation *op,
                   mlir::RankedTensorType tile, const mlir::tile::SharedGeometry &geo,
                   mlir::Value slotPtr);

/// Where the TMA boxes of a [rows, cols] tile at block coordinates `blocks`
/// (outermost first, as tile.load takes them) lie: the tile's element origin,
/// computed once, and for a box `colOffset` columns into the tile its element
/// coordinates innermost first (column, row, then the leading axes' indices),
/// as cp.async.bulk.tensor takes them.
struct TmaBoxes {
  TmaBoxes(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange blocks, int64_t rows,
           int64_t cols);
  llvm::SmallVector<mlir::Value> at(mlir::OpBuilder &b, mlir::Location loc,
                                    int64_t colOffset) const;
  mlir::Value row0, col0;
  llvm::SmallVector<mlir::Value> leading; // innermost first
};

/// The `map`-th tensor map parameter of the function around `op` (the
/// kernel's trailing `__grid_constant__` parameters, docs/kernel-abi.md).
mlir::FailureOr<mlir::Value> tensorMapArg(mlir::Operation *op, unsigned map);

/// One element-wise scalar conversion with tile.convert's semantics.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to);

} // namespace tessera::conversion

#endif
