//===- Distribute.h - where each element of a tile lives --------*- C++ -*-===//
//
// The meaning of the layout encodings in generated code. Each layout attribute
// describes itself as a Distribution (dialects/Tile/Distribution.h, through
// DistributedLayoutAttrInterface); these helpers turn that description into
// the i32 coordinates of every element a thread holds.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_DISTRIBUTE_H
#define TESSERA_CONVERSION_DISTRIBUTE_H

#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <optional>

namespace tessera::conversion {

using mlir::tile::Basis;
using mlir::tile::Distribution;
using mlir::tile::threadBaseOf;

/// i32 arithmetic in generated code (LLVM dialect ops), with the interface of
/// mlir::tile::HostArith, so that the address templates of SharedLayout.h and
/// SharedAccess.h emit the function the host evaluates.
struct IRArith {
  mlir::OpBuilder &b;
  mlir::Location loc;
  using Int = mlir::Value;
  Int c(int64_t v);
  Int add(Int x, Int y);
  Int mul(Int x, Int y);
  Int udiv(Int x, Int y);
  Int urem(Int x, Int y);
  Int xor_(Int x, Int y);
  Int and_(Int x, Int y);
  Int shl(Int x, int64_t s);
  Int lshr(Int x, int64_t s);
  Int selectEq(Int x, int64_t v, Int a, Int y);
};

/// The distribution of `type`'s layout (DistributedLayoutAttrInterface). Fails
/// for a tile without a distributed layout or one that does not fit its rank.
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
