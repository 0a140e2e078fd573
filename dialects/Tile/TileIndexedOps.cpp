//===- TileIndexedOps.cpp - element-addressed memory ops --------*- C++ -*-===//
//
// The verifiers of tile.gather and tile.scatter (TileIndexedOps.td) for what
// ODS cannot say: one index per tensor axis, and indices, mask and the
// accessed tile of one shape.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The shape of a tile; nullopt for a scalar.
std::optional<ArrayRef<int64_t>> shapeOrScalar(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getShape();
  return std::nullopt;
}

LogicalResult verifyIndexed(Operation *op, GlobalTensorType tensor, ValueRange indices, Value mask,
                            Type access) {
  if ((int64_t)indices.size() != tensor.getRank())
    return op->emitOpError() << "needs " << tensor.getRank() << " indices for a rank-"
                             << tensor.getRank() << " tensor, got " << indices.size();
  if (getElementTypeOrSelf(access) != tensor.getElementType())
    return op->emitOpError() << "element type " << getElementTypeOrSelf(access)
                             << " differs from the tensor's " << tensor.getElementType();
  auto shape = shapeOrScalar(access);
  auto same = [&](Value v) { return shapeOrScalar(v.getType()) == shape; };
  for (auto [i, idx] : llvm::enumerate(indices))
    if (!same(idx))
      return op->emitOpError() << "index " << i << " has type " << idx.getType()
                               << ", not the shape of the access " << access;
  if (mask && !same(mask))
    return op->emitOpError() << "mask has type " << mask.getType()
                             << ", not the shape of the access " << access;
  return success();
}
} // namespace

LogicalResult GatherOp::verify() {
  return verifyIndexed(*this, getTensor().getType(), getIndices(), getMask(), getType());
}

LogicalResult ScatterOp::verify() {
  return verifyIndexed(*this, getTensor().getType(), getIndices(), getMask(), getValue().getType());
}
