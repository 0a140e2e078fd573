//===- TileScanOps.cpp - scans with a combiner region -----------*- C++ -*-===//
//
// The verifiers of the scans, tile.scan (TileOps.td) and tile.associative_scan
// (TileScanOps.td), for what ODS cannot say: an axis of the source, no bools;
// and for the combiner: it takes two scalars of the element type and yields
// one, and every op in it is a scalar op free of memory effects, so that code
// generation may run it any number of times in any thread.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

Value AssociativeScanOp::getCombined() {
  return cast<CombinerYieldOp>(getCombiner().front().getTerminator()).getValue();
}

namespace {
/// What both scans require of their source and axis.
LogicalResult verifyScan(Operation *op, RankedTensorType src, int64_t axis) {
  if (axis < 0 || axis >= src.getRank())
    return op->emitOpError() << "axis " << axis << " is out of range for rank " << src.getRank();
  if (src.getElementType().isInteger(1))
    return op->emitOpError("cannot scan booleans");
  return success();
}
} // namespace

LogicalResult ScanOp::verify() { return verifyScan(*this, getSrc().getType(), getAxis()); }

LogicalResult AssociativeScanOp::verify() {
  return verifyScan(*this, getSrc().getType(), getAxis());
}

LogicalResult AssociativeScanOp::verifyRegions() {
  Type elt = getSrc().getType().getElementType();
  Block &body = getCombiner().front();
  if (body.getNumArguments() != 2 || body.getArgument(0).getType() != elt ||
      body.getArgument(1).getType() != elt)
    return emitOpError() << "combiner must take two " << elt << " arguments";
  auto yield = dyn_cast_or_null<CombinerYieldOp>(body.empty() ? nullptr : &body.back());
  if (!yield)
    return emitOpError("combiner must end in tile.combiner_yield");
  if (yield.getValue().getType() != elt)
    return yield.emitOpError() << "yields " << yield.getValue().getType() << ", the scan needs "
                               << elt;
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return op.emitOpError("cannot be part of a scan's combiner: a combiner holds scalar ops "
                            "without memory effects or regions");
    auto shaped = [](Type t) { return isa<ShapedType>(t); };
    if (llvm::any_of(op.getOperandTypes(), shaped) || llvm::any_of(op.getResultTypes(), shaped))
      return op.emitOpError("cannot be part of a scan's combiner: a combiner works on scalars, "
                            "not tiles");
  }
  return success();
}
