//===- ScratchTile.h - a tile staged row-major in scratch -------*- C++ -*-===//
//
// Ops that move elements between threads in ways no layout conversion
// describes (tile.scan, tile.reshape, tile.permute) stage their tile in the
// op's scratch (tile.scratch_offset from tile-allocate-shared) in row-major
// order, with one padding element after every 32 (TargetInfo::kSharedBanks)
// against the bank conflicts of strided accesses; scratchBytes in
// lib/Analysis/SharedMemory.cpp sizes it. Bools are stored as bytes. The
// barriers between the writes and the reads are the op's own.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_TILETOLLVM_SCRATCHTILE_H
#define TESSERA_CONVERSION_TILETOLLVM_SCRATCHTILE_H

#include "lib/Conversion/TileToLLVM/Distribute.h"
#include "lib/Conversion/TileToLLVM/Utils.h"

namespace tessera::conversion {

class ScratchTile {
public:
  /// The scratch of `op` holding elements of `work`; fails (with an error at
  /// `op`) when tile-allocate-shared gave it none.
  static mlir::FailureOr<ScratchTile> of(mlir::OpBuilder &b, mlir::Operation *op, mlir::Type work);

  /// The address of element `idx` (row-major).
  mlir::Value at(mlir::Value idx);
  /// The row-major index of `coords` in a tile of `shape`.
  mlir::Value index(llvm::ArrayRef<mlir::Value> coords, llvm::ArrayRef<int64_t> shape);
  /// The element at `addr`, as `work`; where `pred` is given and false, no
  /// load and zero instead.
  mlir::Value load(mlir::Value addr, mlir::Value pred = {});
  /// Stores `v` (a `work` value) at `addr`; only where `pred` holds, if given.
  void store(mlir::Value v, mlir::Value addr, mlir::Value pred = {});
  /// Each element of `elems` (a tile of `type`, lowered) stored at its
  /// row-major index by the one thread that owns it.
  mlir::LogicalResult storeOwned(llvm::ArrayRef<mlir::Value> elems, mlir::RankedTensorType type);
  /// The coordinates of every element this thread holds of a tile of `type`.
  mlir::FailureOr<std::vector<llvm::SmallVector<mlir::Value, 4>>>
  coords(mlir::RankedTensorType type);

private:
  ScratchTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base, mlir::Type work)
      : b(b), loc(loc), base(base), work(work) {}
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Value base; // the scratch, ptr<3>
  mlir::Type work;  // the element type stored (i1 as i8)
};

} // namespace tessera::conversion

#endif
