//===- SplitK.cpp - tile-split-k --------------------------------*- C++ -*-===//
//
// Splits the reduction loop of a matmul-like kernel over `tile.split_k` = S
// programs per output tile (Passes.td, TileSplitK). With n iterations of
// [lb, ub) by step, split z = program_id(2) runs iterations
//
//   per = cdiv(n, S),   [lb + z * per * step, min(ub, lb + (z + 1) * per * step))
//
// (a split past the end runs none and publishes zeros). The partials meet in
// the workspace (TileSplitKOps.td); the ops after the loop move into an
// `scf.if` on the last arrival, on the combined sum. Assumes tile IR as the
// frontend makes it: i32 loop bounds and grid values.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/SplitK.h"
#include "lib/Transforms/Passes.h"

#include "dialects/Tile/Knobs.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITK
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether the loop carries one f32 tile from zeros that a dot accumulates.
bool accumulatesDot(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 1)
    return false;
  auto t = dyn_cast<RankedTensorType>(loop.getRegionIterArgs()[0].getType());
  if (!t || !t.getElementType().isF32() || !matchPattern(loop.getInitArgs()[0], m_AnyZeroFloat()))
    return false;
  auto dot = loop.getBody()->getTerminator()->getOperand(0).getDefiningOp<DotOp>();
  return dot && dot.getAcc() == loop.getRegionIterArgs()[0];
}

} // namespace

std::string mlir::tile::splitKObstacle(KernelOp kernel, scf::ForOp *loopOut, Operation **at) {
  auto fail = [&](Operation *op, const std::string &why) {
    if (at)
      *at = op;
    return why;
  };
  bool usesAxis2 = kernel.getGrid().front().getTerminator()->getNumOperands() > 2;
  kernel.getBody().walk([&](Operation *op) {
    if (auto pid = dyn_cast<ProgramIdOp>(op))
      usesAxis2 |= pid.getAxis() == 2;
    if (auto np = dyn_cast<NumProgramsOp>(op))
      usesAxis2 |= np.getAxis() == 2;
  });
  if (usesAxis2)
    return fail(kernel, "split-k adds a third grid axis; this kernel already uses axis 2");
  Block &body = kernel.getBody().front();
  scf::ForOp found;
  for (auto loop : body.getOps<scf::ForOp>())
    if (accumulatesDot(loop)) {
      if (found)
        return fail(loop, "split-k needs one loop that accumulates a dot; this is a second");
      found = loop;
    }
  if (!found)
    return fail(kernel, "split-k needs a loop (not nested) that carries only a dot's f32 "
                        "accumulator, starting from zeros; this kernel has none");
  if (!found.getLowerBound().getType().isInteger(32) &&
      !found.getLowerBound().getType().isInteger(64))
    return fail(found, "split-k expects i32 or i64 loop bounds");
  // Each split's accumulator is partial: only the dot may see it, and the
  // loop may not write memory (a split would write its partial state).
  if (!found.getRegionIterArgs()[0].hasOneUse())
    return fail(found, "split-k needs the accumulator used by its dot alone inside the loop");
  bool loopWrites = false;
  Operation *writer = found;
  found.getBody()->walk([&](Operation *inner) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (effects && effects.hasEffect<MemoryEffects::Write>() && !loopWrites) {
      loopWrites = true;
      writer = inner;
    }
  });
  if (loopWrites)
    return fail(writer, "split-k runs a share of the reduction loop in each split; the loop "
                        "must not write memory");
  for (Operation &op : body) {
    if (&op == found.getOperation())
      break;
    bool writes = false;
    op.walk([&](Operation *inner) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
      writes |= effects ? effects.hasEffect<MemoryEffects::Write>()
                        : !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                              !isa<scf::ForOp, scf::IfOp, scf::YieldOp>(inner);
    });
    if (writes)
      return fail(&op, "split-k runs the code before the reduction loop in every split; "
                       "it must not write memory");
  }
  if (loopOut)
    *loopOut = found;
  return "";
}

namespace {

struct TileSplitK : tile::impl::TileSplitKBase<TileSplitK> {
  using TileSplitKBase::TileSplitKBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t splits = scheduleOption(kernel, tessera::kSplitKOption);
    if (splits <= 1)
      return;
    if (splits > tessera::kMaxSplitK) {
      kernel.emitError("split-k must be from 1 to ") << tessera::kMaxSplitK << ", got " << splits;
      return signalPassFailure();
    }
    Operation *gridYield = kernel.getGrid().front().getTerminator();
    scf::ForOp loop;
    Operation *at = kernel;
    if (std::string why = splitKObstacle(kernel, &loop, &at); !why.empty()) {
      at->emitError(why);
      return signalPassFailure();
    }
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32).getResult(); };
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
    // In the loop's type: i64 in the 64-bit size class.
    Type t = lb.getType();
    auto ct = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, t, v).getResult(); };
    // This split's share of the iterations.
    Value z = ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
    if (t != z.getType())
      z = arith::ExtSIOp::create(b, loc, t, z);
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    Value n = arith::MaxSIOp::create(b, loc, arith::CeilDivSIOp::create(b, loc, span, step), ct(0));
    Value per = arith::CeilDivSIOp::create(b, loc, n, ct(splits));
    Value chunk = arith::MulIOp::create(b, loc, per, step);
    Value lo = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, z, chunk));
    Value hi = arith::MinSIOp::create(b, loc, ub, arith::AddIOp::create(b, loc, lo, chunk));
    loop.getLowerBoundMutable().assign(lo);
    loop.getUpperBoundMutable().assign(hi);

    // Publish, then the rest of the kernel in the last arrival only.
    b.setInsertionPointAfter(loop);
    Value partial = loop.getResult(0);
    auto splitsAttr = b.getI64IntegerAttr(splits);
    Value last = SplitKPublishOp::create(b, loc, b.getI1Type(), partial, splitsAttr);
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, last, /*withElseRegion=*/false);
    Block &then = branch.getThenRegion().front();
    Block &body = kernel.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Operation *> rest;
    for (Operation *op = branch->getNextNode(); op != terminator; op = op->getNextNode())
      rest.push_back(op);
    for (Operation *op : rest)
      op->moveBefore(then.getTerminator());
    b.setInsertionPointToStart(&then);
    Value sum = SplitKCombineOp::create(b, loc, partial.getType(), partial, splitsAttr);
    Operation *combine = sum.getDefiningOp();
    partial.replaceUsesWithIf(sum, [&](OpOperand &use) -> bool {
      return branch->isProperAncestor(use.getOwner()) && use.getOwner() != combine;
    });

    // The third grid axis.
    b.setInsertionPoint(gridYield);
    SmallVector<Value> extents(gridYield->getOperands());
    while (extents.size() < 2)
      extents.push_back(c(1));
    extents.push_back(c(splits));
    gridYield->setOperands(extents);
  }
};

} // namespace
