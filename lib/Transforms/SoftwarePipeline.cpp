//===- SoftwarePipeline.cpp - tile-software-pipeline ------------*- C++ -*-===//
//
// Overlaps a loop's global loads with its compute. A load whose tile only
// goes to shared memory (a `tile.local_alloc` of it, possibly through `.T`:
// a staged tensor-core operand, read by local_load or warpgroup_dot) and
// whose coordinates are computed from the induction variable and loop
// invariants becomes an asynchronous copy into a buffer of `num_stages` slots:
//
//   prologue   copies for iterations 0 .. S-2, one commit group each
//   iteration  wait until at most S-2 groups are in flight (this iteration's
//              copy has landed), start the copy for iteration i + S-1 into
//              the slot iteration i-1 read, commit, then compute on slot i % S
//   epilogue   wait for every group
//
// When the loop's one warpgroup dot accumulates into a loop-carried value
// (matmul) and S >= 3, the dot becomes asynchronous: its wgmma group stays in
// flight until a `tile.warpgroup_wait {pendings = 1}` after the next
// iteration's dot (and one of 0 after the loop). cp.async copies then run S-2
// iterations ahead, into the slot read two iterations earlier, whose dot is
// complete by then; TMA copies (below) are issued after the wait, S-1 ahead,
// into the slot the previous iteration's (now complete) dot read.
//
// On targets with TMA (sm_90), in the aligned specialization, a loop that is
// not inside another loop (but a persistent loop, when the loop is also warp
// specialized: PipelineTma.cpp) and whose dot is asynchronous copies with TMA when every
// candidate's slot is a swizzled encoding TMA can write (rows a multiple of 8 and at most 256, a
// tensor of rank 2 to 5 that is a kernel argument): the kernel lists one tensor map per (tensor,
// box) in `tile.tensor_maps` ({arg, box outermost first, swizzle}), a row of S transaction barriers
// (`tile.mbarrier_alloc`, one arrival per copy) replaces the commit groups, and the iteration's
// wait is `tile.mbarrier_wait` on its slot's barrier with the phase parity (k / S) & 1 of its k-th
// iteration.
//
// A row gather (tile.async_gather, cp.async only) may also be copied ahead
// when its indices need reads (a block table's page numbers) and the loop
// writes no global memory; those reads run one iteration earlier still, their
// values carried by the loop, so that their latency overlaps an iteration's
// compute instead of stalling the copy that needs them.
//
// Copies for iterations past the loop's end are predicated off (the slot is
// zero-filled, nothing is read), so trip counts smaller than S work; masked
// elements of ragged blocks are zero-filled by the copy's source size.
// tile-insert-barriers later puts the one barrier each iteration needs (after
// the wait, before the next copy). Needs cp.async (sm_80 and later), 4-, 8- or
// 16-byte runs along the tensor's last axis (the aligned specialization for
// 16-bit types), and a pad of zero; other loads stay synchronous.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/SoftwarePipeline.h"
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESOFTWAREPIPELINE
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeline;

std::pair<Value, Value> mlir::tile::pipeline::ringBase(OpBuilder &b, Location loc, scf::ForOp outer,
                                                       Value tileIv, scf::ForOp loop) {
  Value j = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tileIv, outer.getLowerBound()), outer.getStep());
  Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
  Value trip =
      arith::MaxSIOp::create(b, loc, arith::CeilDivSIOp::create(b, loc, span, loop.getStep()),
                             arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
  return {arith::MulIOp::create(b, loc, j, trip), trip};
}

namespace {

/// The loop's one warpgroup dot, when it accumulates into a loop-carried
/// value and nothing else reads that value inside the loop: its wgmma group
/// may stay in flight into the next iteration.
WarpgroupDotOp asyncCandidate(scf::ForOp loop, unsigned stages) {
  if (stages < 3)
    return {};
  SmallVector<WarpgroupDotOp> dots;
  loop.getBody()->walk([&](WarpgroupDotOp d) { dots.push_back(d); });
  if (dots.size() != 1 || dots[0]->getBlock() != loop.getBody())
    return {};
  WarpgroupDotOp dot = dots[0];
  auto arg = dyn_cast<BlockArgument>(dot.getAcc());
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 || !arg.hasOneUse() ||
      !dot->hasOneUse())
    return {};
  Operation *yield = loop.getBody()->getTerminator();
  unsigned idx = arg.getArgNumber() - 1;
  if (*dot->getUsers().begin() != yield || yield->getOperand(idx) != dot.getResult())
    return {};
  return dot;
}

/// The persistent loop `loop` is directly in (tile-persistent), when the
/// loop's bounds come from outside it: every tile runs the same iterations.
scf::ForOp persistentParent(scf::ForOp loop) {
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (!outer || !outer->hasAttr("tile.persistent_loop") || !isa<KernelOp>(outer->getParentOp()))
    return {};
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (outer->isAncestor(v.getParentRegion()->getParentOp()))
      return {};
  return outer;
}

void pipeline(scf::ForOp loop, unsigned stages, const tessera::target::TargetInfo &target,
              bool mayWarpSpecialize) {
  // Ring slots and phases are counted in i32: a loop over i64 bounds (the
  // 64-bit size class) stays as it is.
  if (!loop.getInductionVar().getType().isInteger(32))
    return;
  SmallVector<Candidate> cands;
  bool reads = writesNoGlobal(loop), gathers = false;
  for (Operation &op : *loop.getBody()) {
    std::optional<Candidate> c;
    if (auto load = dyn_cast<LoadOp>(op))
      c = matchLoad(loop, load);
    else if (auto gather = dyn_cast<GatherOp>(op))
      c = matchGather(loop, gather, reads);
    if (c) {
      gathers |= (bool)c->gather;
      cands.push_back(*c);
    }
  }
  if (cands.empty())
    return;
  WarpgroupDotOp asyncDot = asyncCandidate(loop, stages);
  // A dot stays in flight only when both its operands come from the rings: an
  // operand left synchronous (a tensor the specialization does not align) is
  // stored to one buffer every iteration, which the dot in flight still reads.
  auto fromRing = [&](Value v) {
    while (auto t = v.getDefiningOp<MemDescTransOp>())
      v = t.getSrc();
    auto alloc = v.getDefiningOp<LocalAllocOp>();
    return alloc && llvm::any_of(cands, [&](const Candidate &c) { return c.alloc == alloc; });
  };
  if (asyncDot && !(fromRing(asyncDot.getA()) && fromRing(asyncDot.getB())))
    asyncDot = {};
  Location loc = loop.getLoc();
  MLIRContext *ctx = loop.getContext();
  OpBuilder b(loop);
  auto cst = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)); };
  // One buffer of `stages` slots per load, in the load's own orientation.
  SmallVector<Value> buffers;
  SmallVector<MemDescType> slotTypes;
  for (Candidate &c : cands) {
    MemDescType staged = c.alloc.getType();
    auto enc = cast<SharedEncodingAttr>(staged.getEncoding());
    RankedTensorType tile = c.tileType();
    auto slot = MemDescType::get(ctx, tile.getShape(), tile.getElementType(),
                                 c.transpose ? enc.transposed() : enc);
    SmallVector<int64_t> shape{(int64_t)stages};
    shape.append(tile.getShape().begin(), tile.getShape().end());
    auto bufTy = MemDescType::get(ctx, shape, tile.getElementType(), slot.getEncoding());
    buffers.push_back(LocalAllocOp::create(b, loc, bufTy, Value()));
    slotTypes.push_back(slot);
  }
  // TMA where it was measured to pay: loops whose dot stays in flight
  // (matmul: 598 -> 762 TFLOP/s on the H200). Attention's loop, whose dots
  // are waited for, ran 5-10% slower with TMA than with cp.async
  // (docs/BENCHMARKS.md), so it keeps cp.async unless it is warp-specialized.
  // In a persistent loop, only a producer warpgroup keeps the ring running
  // across tiles: TMA there needs the warp split.
  scf::ForOp outer = persistentParent(loop);
  TmaPipeline probe{loop, &cands, buffers, slotTypes, stages, Value()};
  probe.asyncDot = (bool)asyncDot;
  probe.outer = outer;
  // Gathers are copied by cp.async: TMA moves boxes, not rows at indices.
  // A loop whose warpgroup dots are all waited for (attention's) may be
  // split too: its slots are released at the end of their iteration.
  bool dots = false;
  loop.getBody()->walk([&](WarpgroupDotOp) { dots = true; });
  bool mayWarpSplit = !gathers && (asyncDot || dots) && mayWarpSpecialize && target.hasTMA() &&
                      canWarpSpecialize(probe);
  bool tma = !gathers && (asyncDot || mayWarpSplit) && (!outer || mayWarpSplit) &&
             useTma(loop, cands, slotTypes, target, mayWarpSplit ? outer : scf::ForOp());
  // Copies run S - 1 iterations ahead, into the slot the previous iteration
  // read. With an asynchronous dot, that slot's reader is complete only after
  // this iteration's {pendings = 1} wait: TMA copies are issued there; cp.async
  // copies, issued at the top under the barrier that publishes the landed
  // slot, run one iteration less ahead (a second barrier per iteration cost
  // more than the stage).
  bool late = asyncDot && tma;
  unsigned ahead = asyncDot && !tma ? stages - 2 : stages - 1;
  Value bars;
  if (tma)
    bars = MBarrierAllocOp::create(b, loc, MBarrierType::get(ctx, stages),
                                   b.getI32IntegerAttr(cands.size()));
  TmaPipeline tp{loop, &cands, buffers, slotTypes, stages, bars};
  tp.asyncDot = (bool)asyncDot;
  // With producer warps, the compute warps issue no copies.
  bool split = tma && mayWarpSplit;
  // Tiles the programs of a cluster share (tile-cluster-programs) are
  // multicast: each program's copy writes the slot of every program of the
  // cluster, so a slot is refilled only once the whole cluster has released
  // it (`empty`, one arrival per warp of each program).
  ClusterRing cluster;
  if (tma && late && !split)
    cluster = clusterRing(b, loc, loop, cands, stages);
  if (split && outer) {
    // Tile j's iterations continue the ring where tile j - 1's ended.
    tp.outer = outer;
    std::tie(tp.base, tp.trip) = ringBase(b, loc, outer, outer.getInductionVar(), loop);
  }
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  // `prefetched` maps reads of the coordinates to values read earlier.
  auto issue = [&](Value iv, Value slotIndex, const IRMapping *prefetched) {
    Value pred = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, ub);
    for (auto [c, buf, slotTy] : llvm::zip(cands, buffers, slotTypes)) {
      Value slot = MemDescIndexOp::create(b, loc, slotTy, buf, slotIndex);
      SmallVector<Value> coords = coordsAt(b, loop, c, iv, prefetched);
      if (c.gather) {
        size_t rank = c.gather.getIndices().size();
        Value mask = coords.size() > rank ? coords.back() : Value();
        coords.resize(rank);
        AsyncGatherOp::create(b, loc, c.gather.getTensor(), coords, slot, mask, pred,
                              b.getI32IntegerAttr(c.vec));
      } else if (tma) {
        IntegerAttr multicast;
        if (cluster.size && c.load->hasAttr(tessera::kMulticastAttr))
          multicast = b.getI32IntegerAttr(cluster.size);
        TmaCopyOp::create(b, loc, c.load.getTensor(), coords, slot, bars, slotIndex, pred,
                          b.getI32IntegerAttr(c.tmaMap), multicast);
      } else
        AsyncCopyOp::create(b, loc, c.load.getTensor(), coords, slot, pred,
                            cast<RankedTensorType>(c.load.getType()).getEncoding(),
                            b.getI32IntegerAttr(c.vec), c.load.getExtentsAttr());
    }
    if (!tma)
      AsyncCommitGroupOp::create(b, loc);
  };
  // `iv` plus k steps, at `ob`'s point.
  auto at = [&](OpBuilder &ob, Value iv, int64_t k) {
    Value steps = arith::ConstantOp::create(ob, loc, ob.getI32IntegerAttr(k));
    return arith::AddIOp::create(ob, loc, iv, arith::MulIOp::create(ob, loc, step, steps))
        .getResult();
  };
  // Prologue: iterations 0 .. ahead-1.
  for (unsigned s = 0; s < ahead && !split; ++s) {
    Value iv = at(b, lb, s);
    issue(iv, cst(s), nullptr);
  }
  // A gather's page numbers are read one iteration before its copy is
  // issued and carried into that iteration, so that the read's latency
  // overlaps an iteration's compute instead of stalling the issue. The
  // steady state below goes in front of the read for the next iteration.
  IRMapping prefetched;
  if (SmallVector<Operation *> reads =
          gathers ? prefetchable(loop, cands) : SmallVector<Operation *>();
      !reads.empty()) {
    SmallVector<Value> init = readsAt(b, loop, reads, at(b, lb, ahead));
    IRRewriter rewriter(ctx);
    scf::ForOp old = loop;
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &ob, Location, ArrayRef<BlockArgument>) {
          ob.setInsertionPointToStart(old.getBody());
          return readsAt(ob, old, reads, at(ob, old.getInductionVar(), ahead + 1));
        });
    assert(succeeded(grown) && "scf.for takes more iter_args");
    loop = cast<scf::ForOp>(grown->getOperation());
    tp.loop = loop;
    ValueRange carried = loop.getRegionIterArgs().take_back(init.size());
    unsigned next = 0;
    for (Operation *r : reads)
      for (Value v : r->getResults())
        prefetched.map(v, carried[next++]);
  }
  // Steady state, at the top of the body.
  b.setInsertionPointToStart(loop.getBody());
  if (!tma)
    AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(ahead - 1));
  Value iv = loop.getInductionVar();
  Value k = arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb), step);
  Value g = tp.base ? arith::AddIOp::create(b, loc, tp.base, k).getResult() : k;
  Value cur = arith::RemSIOp::create(b, loc, g, cst(stages));
  if (tma) {
    Value phase =
        arith::AndIOp::create(b, loc, arith::DivSIOp::create(b, loc, g, cst(stages)), cst(1));
    MBarrierWaitOp::create(b, loc, bars, cur, phase);
  }
  auto issueAhead = [&] {
    Value next =
        arith::RemSIOp::create(b, loc, arith::AddIOp::create(b, loc, k, cst(ahead)), cst(stages));
    issue(at(b, iv, ahead), next, &prefetched);
  };
  if (!split && !late)
    issueAhead();
  for (auto [c, buf, slotTy] : llvm::zip(cands, buffers, slotTypes)) {
    Value slot = MemDescIndexOp::create(b, loc, slotTy, buf, cur);
    if (c.transpose)
      slot = MemDescTransOp::create(b, loc, c.alloc.getType(), slot);
    c.alloc.replaceAllUsesWith(slot);
  }
  b.setInsertionPointAfter(loop);
  // Epilogue: nothing may still be writing the buffers (TMA copies past the
  // end were never issued; every other one was waited for).
  if (!tma)
    AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));
  if (asyncDot) {
    // The dot's group stays in flight: the next iteration's dot accumulates
    // into the same registers; the previous iteration's is complete.
    unsigned idx = cast<BlockArgument>(asyncDot.getAcc()).getArgNumber() - 1;
    asyncDot.setIsAsync(true);
    OpBuilder inner(asyncDot->getNextNode());
    Value w =
        WarpgroupWaitOp::create(inner, asyncDot.getLoc(), asyncDot.getResult(), 1).getResult();
    loop.getBody()->getTerminator()->setOperand(idx, w);
    // Nothing after the loop (or reusing its buffers) before the last group.
    Value res = loop.getResult(idx);
    Value done = WarpgroupWaitOp::create(b, loc, res, 0).getResult();
    res.replaceAllUsesExcept(done, done.getDefiningOp());
    tp.asyncWait = cast<WarpgroupWaitOp>(w.getDefiningOp());
    tp.finalWait = cast<WarpgroupWaitOp>(done.getDefiningOp());
    if (!split && late) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(tp.asyncWait);
      if (cluster.size)
        releaseClusterSlot(b, loc, cluster, k, stages);
      issueAhead();
    }
  }
  if (split) {
    tp.k = k;
    tp.g = g;
    warpSpecialize(tp, target);
  }
  // Erased last: the producer's copies are made from them.
  for (Candidate &c : cands) {
    c.alloc.erase();
    if (c.transpose)
      c.transpose.erase();
    c.op()->erase();
  }
  // What only the copied loads used (a block table's page numbers: a read,
  // which the lowering would not drop), last first.
  llvm::SetVector<Operation *> slices;
  for (Candidate &c : cands)
    slices.insert(c.slice.begin(), c.slice.end());
  SmallVector<Operation *> dead(slices.begin(), slices.end());
  llvm::sort(dead, [](Operation *x, Operation *y) { return y->isBeforeInBlock(x); });
  for (Operation *op : dead)
    if (op->use_empty())
      op->erase();
}

struct TileSoftwarePipeline : tile::impl::TileSoftwarePipelineBase<TileSoftwarePipeline> {
  using TileSoftwarePipelineBase::TileSoftwarePipelineBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::optional<tessera::target::TargetInfo> target =
        tessera::target::TargetInfo::forPass(kernel, arch);
    if (!target)
      return signalPassFailure();
    unsigned stages = kernel.getNumStages();
    if (stages >= 2 && target->hasCpAsync()) {
      SmallVector<scf::ForOp> loops;
      kernel.getBody().walk([&](scf::ForOp loop) { loops.push_back(loop); });
      // The pass option, or the kernel's `warp-specialize` schedule option.
      bool split = warpSpecialize || scheduleOption(kernel, tessera::kWarpSpecializeOption) != 0;
      for (scf::ForOp loop : loops)
        pipeline(loop, stages, *target, split);
    }
    // Clusters pay only where a copy is multicast (not in cp.async loops, or
    // without pipelining): elsewhere the kernel launches alone.
    bool multicast = false;
    kernel.walk([&](TmaCopyOp copy) { multicast |= copy.getMulticast().has_value(); });
    if (!multicast)
      kernel->removeAttr("tile.cluster_dims");
  }
};

} // namespace
