//===- PingPong.cpp - tile-pingpong -----------------------------*- C++ -*-===//
//
// Two compute warpgroups that take turns on the tensor cores. In a
// warp-specialized kernel (`tile.producer_warps`) with 8 compute warps, a
// loop whose dots are waited for in the iteration (attention's S = Q K^T and
// O += P V) runs both warpgroups in step: both issue a product, both wait,
// both compute a softmax while the tensor cores idle. With `tile.pingpong`
// (the compiler's `pingpong` schedule option) each dot becomes
//
//   tile.turn_wait                       this warpgroup's turn
//   %d = tile.warpgroup_dot ... {isAsync}
//   tile.turn_pass                       the other's turn: it issues while
//   %r = tile.warpgroup_wait %d {pendings = 0}   this one waits, then runs
//                                        the element-wise work on %r
//
// with warpgroup 1 passing the first turn before the loop and warpgroup 0
// taking the last one after it, so that every arrival on a turn barrier is
// waited for. The products of the two warpgroups then alternate (S0 S1 PV0
// PV1 ...) and each one's softmax overlaps the other's products.
//
// It applies where the warpgroups are independent inside the loop: every
// dot of the loop is a direct child of its body, waited for (not an
// accumulating dot left in flight), with its warpgroups along the rows
// (warpsPerCTA [8, 1]); and nothing in the body synchronises the block (no
// tile.barrier, nothing through scratch memory, no nested loop). Both
// warpgroups run the same trip count (the bounds are the program's), so the
// turns balance. Elsewhere the option is ignored. Runs last, after
// tile-insert-barriers.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The loop's waited-for dots when the two warpgroups can take turns on
/// them, else nothing.
SmallVector<WarpgroupDotOp> turnsOf(scf::ForOp loop) {
  SmallVector<WarpgroupDotOp> dots;
  for (Operation &op : *loop.getBody())
    if (auto dot = dyn_cast<WarpgroupDotOp>(op))
      dots.push_back(dot);
  if (dots.empty())
    return {};
  for (WarpgroupDotOp dot : dots) {
    auto mma = dyn_cast<MmaLayoutAttr>(dot.getType().getEncoding());
    if (dot.getIsAsync() || !mma || mma.getWarpsPerCTA().size() != 2 ||
        mma.getWarpsPerCTA()[0] != 8 || mma.getWarpsPerCTA()[1] != 1)
      return {};
  }
  bool blockWide =
      loop.getBody()
          ->walk([&](Operation *op) {
            if (isa<BarrierOp, WarpgroupWaitOp, TurnWaitOp, TurnPassOp, scf::ForOp, scf::WhileOp>(
                    op) ||
                op->hasAttr("tile.scratch_offset"))
              return WalkResult::interrupt();
            return WalkResult::advance();
          })
          .wasInterrupted();
  return blockWide ? SmallVector<WarpgroupDotOp>() : dots;
}

void takeTurns(scf::ForOp loop, ArrayRef<WarpgroupDotOp> dots) {
  OpBuilder b(loop);
  auto one = b.getI32IntegerAttr(1), zero = b.getI32IntegerAttr(0);
  TurnPassOp::create(b, loop.getLoc(), one);
  b.setInsertionPointAfter(loop);
  TurnWaitOp::create(b, loop.getLoc(), zero);
  for (WarpgroupDotOp dot : dots) {
    Location loc = dot.getLoc();
    b.setInsertionPoint(dot);
    TurnWaitOp::create(b, loc, IntegerAttr());
    dot.setIsAsync(true);
    b.setInsertionPointAfter(dot);
    TurnPassOp::create(b, loc, IntegerAttr());
    auto wait = WarpgroupWaitOp::create(b, loc, dot.getType(), dot.getResult(), 0);
    dot.getResult().replaceAllUsesExcept(wait.getResult(), wait);
  }
}

struct TilePingPong : tile::impl::TilePingPongBase<TilePingPong> {
  using TilePingPongBase::TilePingPongBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    auto attr = kernel->getAttrOfType<IntegerAttr>("tile.pingpong");
    if (!attr || attr.getInt() == 0 || !kernel->hasAttr("tile.producer_warps") ||
        kernel.getNumWarps() != 8)
      return;
    SmallVector<scf::ForOp> loops;
    kernel.getBody().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      if (SmallVector<WarpgroupDotOp> dots = turnsOf(loop); !dots.empty())
        takeTurns(loop, dots);
  }
};

} // namespace
