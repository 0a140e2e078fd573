//===- StageOperands.cpp - tile-stage-operands ------------------*- C++ -*-===//
//
// Tensor-core operands reach their registers through shared memory: every
// conversion into an mma dot-operand layout that is not a register permutation
// becomes a `tile.local_alloc` of the source tile with an encoding chosen by
// the bank-conflict model (lib/Analysis/SharedMemory.h) and a
// `tile.local_load` into the operand layout, which the lowering reads with
// ldmatrix in the form that matches how the slot is stored. A transposed load
// (`k.T`, a blocked layout of order [0, 1]) is stored as it lies, K
// contiguous, and read with the plain ldmatrix: nothing is transposed by a
// round trip. Conversions of loop invariants (Q in attention) sit before
// their loop already (tile-assign-layouts hoisted them), so they are staged
// once.
//
// A dot with a version-3 (wgmma) accumulator reads both operands from shared
// memory: each operand's tile (before its conversion) goes into a buffer with
// the swizzle wgmma's descriptors need (chooseWgmmaEncoding), and the dot
// becomes a `tile.warpgroup_dot` of the two buffers.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGEOPERANDS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isTensorCoreOperand(Attribute layout) {
  auto op = dyn_cast_or_null<DotOperandLayoutAttr>(layout);
  return op && isa<MmaLayoutAttr>(op.getParent());
}

bool isWgmma(DotOp dot) {
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(dot.getType().getEncoding());
  return mma && mma.getVersion() == 3;
}

/// Stages both operands of a wgmma dot; the conversions into operand layouts
/// that fed it are erased when nothing else uses them.
LogicalResult stageWgmma(DotOp dot) {
  auto mma = cast<MmaLayoutAttr>(dot.getType().getEncoding());
  OpBuilder b(dot);
  SmallVector<Value, 2> bufs;
  llvm::SetVector<Operation *> dead;
  for (unsigned i = 0; i < 2; ++i) {
    Value v = dot->getOperand(i);
    // Stored where the conversion was: before the loop for a hoisted one.
    b.setInsertionPoint(dot);
    if (auto cvt = v.getDefiningOp<ConvertLayoutOp>()) {
      dead.insert(cvt);
      v = cvt.getSrc();
      b.setInsertionPoint(cvt);
    }
    auto src = cast<RankedTensorType>(v.getType());
    FailureOr<SharedEncodingAttr> enc = tessera::analysis::chooseWgmmaEncoding(src, i, mma);
    if (failed(enc))
      return dot.emitError("internal compiler error: no wgmma operand encoding for ") << src;
    auto memTy = MemDescType::get(dot.getContext(), src.getShape(), src.getElementType(), *enc);
    bufs.push_back(LocalAllocOp::create(b, dot.getLoc(), memTy, v));
  }
  b.setInsertionPoint(dot);
  Value res =
      WarpgroupDotOp::create(b, dot.getLoc(), dot.getType(), bufs[0], bufs[1], dot.getAcc());
  dot.replaceAllUsesWith(res);
  dot.erase();
  for (Operation *op : dead)
    if (op->use_empty())
      op->erase();
  return success();
}

struct TileStageOperands : tile::impl::TileStageOperandsBase<TileStageOperands> {
  void runOnOperation() override {
    SmallVector<DotOp> wgmmaDots;
    getOperation().walk([&](DotOp dot) {
      if (isWgmma(dot))
        wgmmaDots.push_back(dot);
    });
    for (DotOp dot : wgmmaDots)
      if (failed(stageWgmma(dot)))
        return signalPassFailure();
    SmallVector<ConvertLayoutOp> conversions;
    getOperation().walk([&](ConvertLayoutOp cvt) {
      if (isTensorCoreOperand(cvt.getType().getEncoding()))
        conversions.push_back(cvt);
    });
    for (ConvertLayoutOp cvt : conversions) {
      RankedTensorType src = cvt.getSrc().getType();
      auto srcLayout = dyn_cast_or_null<DistributedLayoutAttrInterface>(src.getEncoding());
      auto dstLayout = cast<DistributedLayoutAttrInterface>(cvt.getType().getEncoding());
      if (!srcLayout || src.getRank() != 2)
        continue;
      FailureOr<Distribution> s = srcLayout.distribute(src.getShape()),
                              d = dstLayout.distribute(src.getShape());
      if (failed(s) || failed(d) || tessera::analysis::registerPermutation(*s, *d))
        continue;
      SharedEncodingAttr enc =
          tessera::analysis::chooseStagingEncoding(src, cvt.getType().getEncoding());
      OpBuilder b(cvt);
      auto memTy = MemDescType::get(&getContext(), src.getShape(), src.getElementType(), enc);
      Value buf = LocalAllocOp::create(b, cvt.getLoc(), memTy, cvt.getSrc());
      Value tile = LocalLoadOp::create(b, cvt.getLoc(), cvt.getType(), buf);
      cvt.replaceAllUsesWith(tile);
      cvt.erase();
    }
  }
};

} // namespace
