//===- TileIndexedOps.cpp - element-addressed memory ops --------*- C++ -*-===//
//
// The verifiers of tile.gather, tile.scatter, tile.async_gather and the
// atomics (TileIndexedOps.td) for what ODS cannot say: one index per tensor
// axis, indices, mask and the accessed tile (or slot) of one shape, the
// element types each atomic supports, the sizes cp.async moves.
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

LogicalResult AsyncGatherOp::verify() {
  MemDescType dst = getDst().getType();
  auto access = RankedTensorType::get(dst.getShape(), dst.getElementType());
  // The indices carry the layout; compare shapes and element types only.
  if (failed(verifyIndexed(*this, getTensor().getType(), getIndices(), getMask(), access)))
    return failure();
  if (dst.getRank() != 2)
    return emitOpError() << "copies into a 2-D slot";
  auto layout = dyn_cast_or_null<DistributedLayoutAttrInterface>(
      cast<RankedTensorType>(getIndices()[0].getType()).getEncoding());
  if (!layout)
    return emitOpError() << "needs its indices in a distributed layout";
  unsigned bytes = getVec() * (dst.getElementType().getIntOrFloatBitWidth() / 8);
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError() << "copies 4, 8 or 16 bytes at a time, got " << bytes;
  return success();
}

LogicalResult ScatterOp::verify() {
  return verifyIndexed(*this, getTensor().getType(), getIndices(), getMask(), getValue().getType());
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getIndices(), getMask(),
                           getValue().getType())))
    return failure();
  Type t = getTensor().getType().getElementType();
  bool ok = false;
  switch (getKind()) {
  case AtomicKind::add:
    ok = t.isF16() || t.isBF16() || t.isF32() || t.isInteger(32) || t.isInteger(64);
    break;
  case AtomicKind::max:
  case AtomicKind::min:
    ok = t.isF32() || t.isInteger(32) || t.isInteger(64);
    break;
  case AtomicKind::xchg:
    ok = !t.isInteger(1);
    break;
  }
  if (!ok)
    return emitOpError() << "atomic " << stringifyAtomicKind(getKind()) << " does not support "
                         << t;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getIndices(), getMask(),
                           getValue().getType())))
    return failure();
  Type t = getTensor().getType().getElementType();
  if (!t.isF32() && !t.isInteger(32) && !t.isInteger(64))
    return emitOpError() << "atomic compare-and-swap does not support " << t;
  return success();
}
