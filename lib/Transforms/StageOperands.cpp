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
// A dot with a version-3 (wgmma) accumulator reads B from shared memory: the
// operand's tile (before its conversion) goes into a buffer with the swizzle
// wgmma's descriptors need (chooseWgmmaEncoding), and the dot becomes a
// `tile.warpgroup_dot`. A is read the same way, unless its conversion into
// the A layout only permutes each thread's registers (attention's P, made
// from the accumulator of the dot before): then wgmma's register form reads
// it where it is, with no shared-memory round trip and no barrier.
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

/// Whether `cvt` only permutes each thread's registers (every thread holds
/// the elements it produces already); nullopt when a layout does not
/// distribute the tile.
std::optional<bool> permutesRegisters(ConvertLayoutOp cvt) {
  RankedTensorType src = cvt.getSrc().getType();
  auto srcLayout = dyn_cast_or_null<DistributedLayoutAttrInterface>(src.getEncoding());
  auto dstLayout = cast<DistributedLayoutAttrInterface>(cvt.getType().getEncoding());
  if (!srcLayout)
    return std::nullopt;
  FailureOr<Distribution> s = srcLayout.distribute(src.getShape()),
                          d = dstLayout.distribute(src.getShape());
  if (failed(s) || failed(d))
    return std::nullopt;
  return tessera::analysis::registerPermutation(*s, *d).has_value();
}

/// Whether the A operand `a` of a wgmma dot (in the A layout) can be read from
/// the registers of the threads that multiply it (wgmma's register form): it
/// is converted into that layout by a permutation of each thread's registers,
/// as attention's P is from the accumulator of the dot before; or it is made
/// in that layout (it is in the threads' registers already). Anything else
/// goes through shared memory.
bool inRegistersAlready(Value a, MmaLayoutAttr mma) {
  if (cast<RankedTensorType>(a.getType()).getEncoding() !=
      DotOperandLayoutAttr::get(mma.getContext(), 0, mma))
    return false;
  auto cvt = a.getDefiningOp<ConvertLayoutOp>();
  return !cvt || permutesRegisters(cvt) == true;
}

/// Stages both operands of a wgmma dot (A stays in registers where
/// inRegistersAlready says so); the conversions into operand layouts
/// that fed it are erased when nothing else uses them.
LogicalResult stageWgmma(DotOp dot) {
  auto mma = cast<MmaLayoutAttr>(dot.getType().getEncoding());
  OpBuilder b(dot);
  llvm::SetVector<Operation *> dead;
  SmallVector<Value, 2> operands;
  for (unsigned i = 0; i < 2; ++i) {
    Value v = dot->getOperand(i);
    if (i == 0 && inRegistersAlready(v, mma)) {
      operands.push_back(v);
      continue;
    }
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
    operands.push_back(LocalAllocOp::create(b, dot.getLoc(), memTy, v));
  }
  b.setInsertionPoint(dot);
  Value res = WarpgroupDotOp::create(b, dot.getLoc(), dot.getType(), operands[0], operands[1],
                                     dot.getAcc());
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
      if (src.getRank() != 2 || permutesRegisters(cvt) != false)
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
