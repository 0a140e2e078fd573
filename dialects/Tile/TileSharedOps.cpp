//===- TileSharedOps.cpp - shared-memory ops --------------------*- C++ -*-===//
//
// The verifiers of the shared-memory and Hopper ops (TileSharedOps.td,
// TileHopperOps.td) for what ODS cannot say: tiles and slots agree, views
// keep shapes and encodings.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

namespace {
LogicalResult sameTile(Operation *op, RankedTensorType t, MemDescType m) {
  if (m.getRank() != 2)
    return op->emitOpError() << "needs a 2-D slot, got a buffer of rank " << m.getRank();
  if (t.getShape() != m.getShape() || t.getElementType() != m.getElementType())
    return op->emitOpError() << "tile " << RankedTensorType::get(t.getShape(), t.getElementType())
                             << " does not match the slot " << m;
  return success();
}
} // namespace

LogicalResult LocalAllocOp::verify() {
  if (getSrc())
    return sameTile(*this, cast<RankedTensorType>(getSrc().getType()), getType());
  return success();
}

LogicalResult LocalStoreOp::verify() {
  return sameTile(*this, cast<RankedTensorType>(getSrc().getType()), getDst().getType());
}

LogicalResult WarpgroupDotOp::verify() {
  // A: a shared-memory slot or a tile in registers.
  auto slotA = dyn_cast<MemDescType>(getA().getType());
  auto tileA = dyn_cast<RankedTensorType>(getA().getType());
  ArrayRef<int64_t> shapeA = slotA ? slotA.getShape() : tileA.getShape();
  MemDescType b = getB().getType();
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (shapeA.size() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "multiplies 2-D operands into a 2-D accumulator";
  if (shapeA[1] != b.getShape()[0] || shapeA[0] != acc.getShape()[0] ||
      b.getShape()[1] != acc.getShape()[1])
    return emitOpError() << "shapes do not compose: " << getA().getType() << " x " << b << " -> "
                         << acc;
  Type elt = slotA ? slotA.getElementType() : tileA.getElementType();
  if (elt != b.getElementType() || !(elt.isF16() || elt.isBF16()) || !acc.getElementType().isF32())
    return emitOpError() << "multiplies f16 or bf16 operands of one type into f32";
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(acc.getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError() << "needs an accumulator with a version-3 mma layout";
  if (b.getGeometry().swizzle == 0)
    return emitOpError() << "reads swizzled operands only (wgmma matrix descriptors), not " << b;
  if (slotA) {
    if (slotA.getGeometry().swizzle == 0)
      return emitOpError() << "reads swizzled operands only (wgmma matrix descriptors), not "
                           << slotA;
    return success();
  }
  auto layout = dyn_cast_or_null<DotOperandLayoutAttr>(tileA.getEncoding());
  if (!layout || layout.getOpIdx() != 0 || layout.getParent() != mma)
    return emitOpError() << "takes A in registers only in the A layout of its accumulator's "
                            "layout (#tile.dot_op<{opIdx = 0, parent = "
                         << mma << "}>), not " << getA().getType();
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  // The ordered values come back unchanged (the explicit types of the format).
  if (TypeRange(getOrdered().getTypes()) != TypeRange(getOrderedResults().getTypes()))
    return emitOpError("returns the ordered values with their own types, not ")
           << getOrderedResults().getTypes();
  return success();
}

LogicalResult LocalLoadOp::verify() { return sameTile(*this, getType(), getSrc().getType()); }

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), res = getType();
  if (src.getRank() != 3 || res.getRank() != 2 || src.getShape().drop_front() != res.getShape() ||
      src.getElementType() != res.getElementType() || src.getEncoding() != res.getEncoding())
    return emitOpError() << "views one slot: " << src
                         << " gives a 2-D buffer of its last two "
                            "extents and encoding, not "
                         << res;
  return success();
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType(), res = getType();
  auto enc = cast<SharedEncodingAttr>(src.getEncoding());
  if (src.getRank() != 2 || res.getRank() != 2 || res.getShape()[0] != src.getShape()[1] ||
      res.getShape()[1] != src.getShape()[0] || src.getElementType() != res.getElementType() ||
      res.getEncoding() != enc.transposed())
    return emitOpError() << "the transposed view of " << src << " is "
                         << MemDescType::get(getContext(), {src.getShape()[1], src.getShape()[0]},
                                             src.getElementType(), enc.transposed());
  return success();
}

namespace {
/// That the kernel around `op` (if any) lists tensor map `map`, and that the
/// map describes `tensor` (`what`: "copies a tensor", "stores to a tensor").
LogicalResult verifyTensorMap(Operation *op, Value tensor, unsigned map, StringRef what) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return success();
  auto maps = kernel->getAttrOfType<ArrayAttr>("tile.tensor_maps");
  if (!maps || map >= maps.size())
    return op->emitOpError() << "names tensor map " << map
                             << ", which the kernel's tile.tensor_maps does not list";
  auto entry = dyn_cast<DictionaryAttr>(maps[map]);
  auto arg = entry ? entry.getAs<IntegerAttr>("arg") : IntegerAttr();
  auto blockArg = dyn_cast<BlockArgument>(tensor);
  if (!arg || !blockArg || blockArg.getArgNumber() != arg.getInt())
    return op->emitOpError() << what << " other than the one tensor map " << map << " describes";
  return success();
}
/// That the kernel around `op` (if any) runs in clusters of `size` programs
/// (any size when none is given).
LogicalResult verifyCluster(Operation *op, std::optional<uint32_t> size) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return success();
  auto dims = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.cluster_dims");
  if (!dims || dims.size() != 3 || dims[1] != 1 || dims[2] != 1)
    return op->emitOpError()
           << "needs a kernel in clusters along axis 0 (tile.cluster_dims = [C, 1, 1])";
  if (size && dims[0] != *size)
    return op->emitOpError() << "spans " << *size << " programs in a kernel of clusters of "
                             << dims[0];
  return success();
}
} // namespace

LogicalResult MBarrierArriveOp::verify() {
  return getCluster() ? verifyCluster(*this, getCluster()) : success();
}

LogicalResult ClusterBarrierOp::verify() { return verifyCluster(*this, std::nullopt); }

LogicalResult TmaCopyOp::verify() {
  GlobalTensorType tensor = getTensor().getType();
  MemDescType dst = getDst().getType();
  if ((int64_t)getCoords().size() != tensor.getRank())
    return emitOpError() << "needs " << tensor.getRank() << " coordinates for a rank-"
                         << tensor.getRank() << " tensor, got " << getCoords().size();
  if (dst.getRank() != 2 || tensor.getRank() < 2 || tensor.getRank() > 5)
    return emitOpError() << "copies a 2-D tile of a tensor of rank 2 to 5 into a 2-D slot";
  if (dst.getElementType() != tensor.getElementType())
    return emitOpError() << "slot element type " << dst.getElementType()
                         << " differs from the tensor's " << tensor.getElementType();
  if (!dst.getGeometry().rowMajor)
    return emitOpError() << "writes slots stored along the tensor's last axis, got "
                         << dst.getEncoding();
  if (getMulticast() && failed(verifyCluster(*this, getMulticast())))
    return failure();
  return verifyTensorMap(*this, getTensor(), getMap(), "copies a tensor");
}

LogicalResult TmaStoreOp::verify() {
  GlobalTensorType tensor = getTensor().getType();
  MemDescType buf = getBuf().getType();
  auto value = cast<RankedTensorType>(getValue().getType());
  if ((int64_t)getCoords().size() != tensor.getRank())
    return emitOpError() << "needs " << tensor.getRank() << " coordinates for a rank-"
                         << tensor.getRank() << " tensor, got " << getCoords().size();
  if (value.getRank() != 2 || tensor.getRank() < 2 || tensor.getRank() > 5 || buf.getRank() != 3)
    return emitOpError() << "stores a 2-D tile into a tensor of rank 2 to 5 through a buffer of "
                            "2-D slots";
  if (buf.getElementType() != value.getElementType() ||
      tensor.getElementType() != value.getElementType())
    return emitOpError() << "needs one element type for the value, the buffer and the tensor";
  SharedGeometry g = buf.getGeometry();
  if (!g.rowMajor || g.rows != value.getShape()[0] || value.getShape()[1] % g.cols)
    return emitOpError() << "needs slots of the value's rows and a whole number of its columns, "
                            "stored along the columns; got "
                         << buf << " for " << value;
  int64_t windows = value.getShape()[1] / g.cols, slots = buf.getShape()[0];
  if (windows % slots)
    return emitOpError() << "stages " << windows << " column windows in " << slots
                         << " slots: the slots must divide them";
  return verifyTensorMap(*this, getTensor(), getMap(), "stores to a tensor");
}

LogicalResult AsyncCopyOp::verify() {
  GlobalTensorType tensor = getTensor().getType();
  MemDescType dst = getDst().getType();
  if ((int64_t)getCoords().size() != tensor.getRank())
    return emitOpError() << "needs " << tensor.getRank() << " coordinates for a rank-"
                         << tensor.getRank() << " tensor, got " << getCoords().size();
  if (dst.getRank() != 2 || tensor.getRank() < 2)
    return emitOpError() << "copies a 2-D tile into a 2-D slot";
  if (dst.getElementType() != tensor.getElementType())
    return emitOpError() << "slot element type " << dst.getElementType()
                         << " differs from the tensor's " << tensor.getElementType();
  auto layout = dyn_cast<DistributedLayoutAttrInterface>(getLayout());
  if (!layout || failed(layout.distribute(dst.getShape())))
    return emitOpError() << "needs a distributed layout for a " << dst.getShape().size()
                         << "-D tile, got " << getLayout();
  unsigned bytes = getVec() * (dst.getElementType().getIntOrFloatBitWidth() / 8);
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError() << "copies 4, 8 or 16 bytes at a time, got " << bytes;
  if (std::optional<ArrayRef<int64_t>> extents = getExtents()) {
    if (extents->size() != 2)
      return emitOpError() << "needs 2 extents for a 2-D slot, got " << extents->size();
    for (auto [e, d] : llvm::zip(*extents, dst.getShape()))
      if (e <= 0 || e > d)
        return emitOpError() << "extents must be positive and at most the slot's " << dst
                             << ", got " << e;
    if ((*extents)[1] % getVec())
      return emitOpError() << "copies runs of " << getVec()
                           << " elements, which must divide the last extent " << (*extents)[1];
  }
  return success();
}

/// A turn needs compute warpgroups to take turns: a kernel with producer
/// warps and two compute warpgroups or more.
static LogicalResult verifyTurn(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel || !kernel->hasAttr("tile.producer_warps"))
    return op->emitOpError() << "needs a warp-specialized kernel (tile.producer_warps)";
  unsigned warps = kernel.getNumWarps();
  if (warps % 4 || warps < 8)
    return op->emitOpError() << "needs two compute warpgroups or more, got " << warps
                             << " compute warps";
  return success();
}

LogicalResult TurnBeginOp::verify() { return verifyTurn(*this); }
LogicalResult TurnWaitOp::verify() { return verifyTurn(*this); }
LogicalResult TurnPassOp::verify() { return verifyTurn(*this); }
LogicalResult TurnEndOp::verify() { return verifyTurn(*this); }
