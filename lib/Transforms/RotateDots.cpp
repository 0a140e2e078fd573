//===- RotateDots.cpp - tile-rotate-dots ------------------------*- C++ -*-===//
//
// FlashAttention-3's intra-warpgroup overlap, derived from the loop: with the
// kernel's `tile.rotate_dots` (the compiler's `rotate-dots` schedule option),
// a warp-specialized compute loop with two waited-for warpgroup dots, the
// second of which accumulates into a loop-carried value (attention's
// S = Q K^T, then O = O * alpha + P V), is rotated so that the second dot of
// iteration j - 1 runs while the element-wise work of iteration j (the
// softmax of block j) does:
//
//   prologue     iteration 0 without the second dot's part
//   iteration j  wait for the second dot of j - 2 (carried in flight, the
//                carried f32 values passed through the wait, so that what
//                reads them runs after it) and release its slot; P of j - 1
//                converted and the accumulator updated; the first dot of j
//                and the second dot of j - 1
//                issued back to back (async); wait until one group is
//                pending (the first dot is complete); the rest of iteration
//                j, while the second dot goes round the loop in flight
//   epilogue     wait for it, release the slot before the last, and the
//                second part of the last iteration
//
// Nothing waits after the softmax: with a wait for the second dot there,
// ptxas moves that wait above the softmax (measured in the SASS), and the
// overlap is gone; and nothing but dots lies between the two issues (ptxas
// serialises every wgmma when other instructions read accumulators between
// an issue and its wait). The second part is the dot, the pure element-wise ops
// between the carried accumulator and its `acc` operand, and the loop's
// `tile.mbarrier_arrive`s (its slot, holding both operands of iteration
// j - 1, is released once that dot is complete, two iterations later; the
// loop's first iteration and a single-iteration epilogue have none to
// release). What it reads from iteration j - 1 is either recomputed from the
// induction variable (slot indices, views) or carried by the loop: P as the
// softmax makes it (its conversions to the dot's register operand run in the
// second part, when no dot reads the registers they write), the softmax's
// scale factors before any broadcast. Everything runs the same number of
// times as before; the loop is guarded so that a trip count of zero runs
// nothing. A slot released two iterations later needs a ring of three slots
// (with two, the producer would wait for a release behind its own copy).
//
// Loops that do not have this shape (one dot, an asynchronous dot, a block
// barrier, copies, shared-memory writes or ops of unknown effects in the body,
// no slot release, a ring of fewer than three slots, a barrier wait after a
// release, an unsigned loop) are left as they are: the option is a hint, never
// a different result.
// Runs after tile-insert-barriers, on tile IR with layouts.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEROTATEDOTS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A loop that can be rotated, and how.
struct Rotation {
  scf::ForOp loop;
  WarpgroupDotOp first, second;
  unsigned accIdx = 0; // the iter_arg the second dot accumulates into
  /// The second part, in body order: before its wait (the accumulator's
  /// update and the dot) and after it (the slot releases).
  llvm::SetVector<Operation *> issue, release;
  /// Values of iteration j - 1 the second part reads that the loop carries.
  llvm::SetVector<Value> carried;
};

/// Whether `v` is computed by effect-free ops of the body from the induction
/// variable and values from outside only (slot indices, views of slots).
bool fromInductionVar(scf::ForOp loop, Value v, DenseMap<Value, bool> &memo) {
  if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
    return true;
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  // Effect-free is enough (a division by a loop value is recomputed for the
  // same iteration it ran in before); scratch would need the block's barriers.
  bool ok = def && def->getBlock() == loop.getBody() && isMemoryEffectFree(def) &&
            def->getNumRegions() == 0 && !usesScratch(def);
  memo[v] = false; // no cycles in SSA; guards the recursion
  for (Value o : ok ? def->getOperands() : ValueRange{})
    ok = ok && fromInductionVar(loop, o, memo);
  return memo[v] = ok;
}

/// Ops that only replicate or reshape their operand: cheaper to recompute in
/// the second part than to carry (a row's scale factor, not its broadcast).
bool reshapesOnly(Operation *op) { return isa<BroadcastOp, ExpandDimsOp, SplatOp>(op); }

/// Register-only conversions of the second dot's register operand (P to bf16
/// and to wgmma's A layout). The loop carries their source and the second
/// part converts it once the previous second dot is complete: carried
/// converted, the new P would go to the registers that dot still reads.
bool convertsOnly(Operation *op) {
  return isa<ConvertOp, ConvertLayoutOp>(op) && op->getNumRegions() == 0 && !usesScratch(op);
}

/// Collects what the second part reads from iteration j - 1 and must carry;
/// `operandA` while following the second dot's register operand.
void collectCarried(Rotation &r, Value v, DenseMap<Value, bool> &memo, bool operandA = false) {
  scf::ForOp loop = r.loop;
  if (loop.isDefinedOutsideOfLoop(v) || v == loop.getInductionVar() ||
      v == loop.getRegionIterArg(r.accIdx))
    return;
  Operation *def = v.getDefiningOp();
  if (def && (r.issue.contains(def) || r.release.contains(def)))
    return;
  if (fromInductionVar(loop, v, memo))
    return;
  if (def && (reshapesOnly(def) || (operandA && convertsOnly(def)))) {
    for (Value o : def->getOperands())
      collectCarried(r, o, memo, operandA);
    return;
  }
  r.carried.insert(v);
}

/// Whether `op` may write shared memory (or allocate it): its effects say so,
/// or it declares none (unknown effects); ops whose effects are their nested
/// ops' are checked through those.
bool writesShared(Operation *op) {
  if (isa<MBarrierWaitOp, MBarrierArriveOp>(op) ||
      op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  if (usesScratch(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return !op->hasTrait<OpTrait::IsTerminator>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write, MemoryEffects::Allocate>(e.getEffect()) &&
           isa<tile::SharedMemory>(e.getResource());
  });
}

/// The rotation of `loop`, when it has the shape the file comment describes.
std::optional<Rotation> match(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto step = loop.getConstantStep();
  // The guard and the last iteration are computed signed.
  if (!step || !step->isStrictlyPositive() || loop.getUnsignedCmp())
    return std::nullopt;
  SmallVector<WarpgroupDotOp> dots;
  bool bad = false;
  loop.getBody()->walk([&](Operation *op) {
    if (auto d = dyn_cast<WarpgroupDotOp>(op)) {
      if (op->getBlock() != body || d.getIsAsync())
        bad = true;
      dots.push_back(d);
    }
    if (isa<BarrierOp, WarpgroupWaitOp, TmaCopyOp, AsyncCopyOp, AsyncGatherOp>(op) ||
        writesShared(op) || (isa<MBarrierArriveOp>(op) && op->getBlock() != body))
      bad = true;
  });
  if (bad || dots.size() != 2)
    return std::nullopt;
  Rotation r;
  r.loop = loop;
  r.first = dots[0];
  r.second = dots[1];
  Value res = r.second.getResult();
  if (!res.hasOneUse() || !isa<scf::YieldOp>(*res.getUsers().begin()))
    return std::nullopt;
  r.accIdx = res.getUses().begin()->getOperandNumber();
  Value accArg = loop.getRegionIterArg(r.accIdx);
  // The accumulator's update: single-use pure ops from the carried value to
  // the dot's `acc` operand, followed forward from the carried value.
  SmallVector<Operation *> chain;
  for (Value v = accArg;;) {
    if (!v.hasOneUse())
      return std::nullopt;
    OpOperand &use = *v.getUses().begin();
    Operation *user = use.getOwner();
    if (user == r.second.getOperation()) {
      if (use.get() != r.second.getAcc())
        return std::nullopt;
      break;
    }
    if (user->getBlock() != body || !isMemoryEffectFree(user) || user->getNumResults() != 1 ||
        user->getNumRegions() || usesScratch(user))
      return std::nullopt;
    chain.push_back(user);
    v = user->getResult(0);
  }
  llvm::SmallPtrSet<Operation *, 8> inChain(chain.begin(), chain.end());
  for (Operation &op : *body) {
    if (&op == r.second.getOperation() || inChain.contains(&op)) {
      r.issue.insert(&op);
    } else if (auto arrive = dyn_cast<MBarrierArriveOp>(op)) {
      // A release moves two iterations later: its ring must have slots for
      // the two iterations after.
      if (op.isBeforeInBlock(r.second) || arrive.getBars().getType().getCount() < 3)
        return std::nullopt;
      r.release.insert(&op);
    } else if (!r.release.empty() && isa<MBarrierWaitOp>(op)) {
      // A wait after a release may need that release: it would now wait for
      // an arrival made only after it.
      return std::nullopt;
    }
  }
  if (r.release.empty()) // not a warp-specialized compute loop
    return std::nullopt;
  DenseMap<Value, bool> memo;
  for (Operation *op : llvm::concat<Operation *const>(r.issue, r.release))
    for (Value o : op->getOperands())
      collectCarried(r, o, memo, op == r.second.getOperation() && o == r.second.getA());
  return r;
}

/// Clones the ops `v` is computed by with the induction variable `prevIV`
/// (what depends only on it and on reshapes or conversions of carried values),
/// unless `m` maps `v` already.
void materialize(OpBuilder &b, Rotation &r, Value v, Value prevIV, IRMapping &m) {
  scf::ForOp loop = r.loop;
  if (m.contains(v) || loop.isDefinedOutsideOfLoop(v))
    return;
  if (v == loop.getInductionVar()) {
    m.map(v, prevIV);
    return;
  }
  Operation *def = v.getDefiningOp();
  for (Value o : def->getOperands())
    materialize(b, r, o, prevIV, m);
  b.clone(*def, m);
}

/// Clones the second part's `ops` with the induction variable `prevIV`,
/// materializing their operands (`m` maps the accumulator and the carried
/// values already).
void cloneSecondPart(OpBuilder &b, Rotation &r, ArrayRef<Operation *> ops, Value prevIV,
                     IRMapping &m) {
  for (Operation *op : ops) {
    for (Value o : op->getOperands())
      materialize(b, r, o, prevIV, m);
    b.clone(*op, m);
  }
}

/// The wait for the second dot in flight (`acc`), with the carried f32
/// values (`carried`, in the order of r.carried) passed through it: `m` maps
/// the accumulator to the wait's result and each carried value to what comes
/// out of the wait. P's conversions to the dot's A registers read P from the
/// wait, so they run after it however the code generators schedule them (a
/// conversion computed before the wait went to registers that the dot in
/// flight still read: under a pipeline of only InstCombine, NVPTX moved it
/// there, and the rotated kernels computed garbage on the GPU).
void waitOrdering(OpBuilder &b, Location loc, Value acc, ArrayRef<Value> carried, Rotation &r,
                  Value accArg, IRMapping &m) {
  SmallVector<Value> ordered;
  for (Value c : carried) {
    auto t = dyn_cast<RankedTensorType>(c.getType());
    if (t && t.getElementType().isF32())
      ordered.push_back(c);
  }
  auto wait = WarpgroupWaitOp::create(b, loc, acc, ordered, 0);
  m.map(accArg, wait.getResult());
  unsigned k = 0;
  for (auto [c, v] : llvm::zip(r.carried, carried)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    m.map(c, t && t.getElementType().isF32() ? wait.getOrderedResults()[k++] : v);
  }
}

void rotate(Rotation &r) {
  scf::ForOp loop = r.loop;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value iv = loop.getInductionVar(), accArg = loop.getRegionIterArg(r.accIdx);
  auto firstPart = [&](Operation &op) {
    return !r.issue.contains(&op) && !r.release.contains(&op) && &op != yield.getOperation();
  };

  OpBuilder b(loop);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), any, /*withElse=*/true);
  {
    OpBuilder e = OpBuilder::atBlockEnd(&guard.getElseRegion().front());
    scf::YieldOp::create(e, loc, loop.getInitArgs());
  }
  b.setInsertionPointToStart(&guard.getThenRegion().front());

  // Prologue: the first part of iteration 0.
  IRMapping pro;
  pro.map(iv, lb);
  for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    pro.map(arg, init);
  for (Operation &op : body->without_terminator())
    if (firstPart(op))
      b.clone(op, pro);
  // What the rotated loop carries after an iteration mapped by `m`: the
  // original yields (the accumulator `acc`), then the carried values.
  auto carriedOn = [&](IRMapping &m, Value acc) {
    SmallVector<Value> out;
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      out.push_back(i == r.accIdx ? acc : m.lookupOrDefault(v));
    for (Value c : r.carried)
      out.push_back(m.lookupOrDefault(c));
    return out;
  };
  SmallVector<Value> inits = carriedOn(pro, loop.getInitArgs()[r.accIdx]);

  // The loop from the second iteration on.
  Value from = arith::AddIOp::create(b, loc, lb, step);
  auto rotated = scf::ForOp::create(b, loc, from, ub, step, inits);
  rotated->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *nb = rotated.getBody();
  OpBuilder in = OpBuilder::atBlockBegin(nb);
  Value prevIV = arith::SubIOp::create(in, loc, rotated.getInductionVar(), step);
  unsigned n = loop.getNumRegionIterArgs();
  IRMapping s0, s1;
  s0.map(iv, rotated.getInductionVar());
  for (unsigned i = 0; i < n; ++i)
    s0.map(loop.getRegionIterArg(i), rotated.getRegionIterArg(i));
  // The second dot of iteration j - 2, carried in flight, completes; its slot
  // is released (from the loop's second iteration on: the first has no
  // iteration j - 2); then iteration j - 1's P is converted and the
  // accumulator updated, all before any dot of this iteration is issued
  // (ptxas serialises every wgmma when other instructions read accumulators
  // between an issue and its wait).
  Value prev2IV = arith::SubIOp::create(in, loc, prevIV, step);
  Value acc = rotated.getRegionIterArg(r.accIdx);
  SmallVector<Value> carriedArgs(rotated.getRegionIterArgs().drop_front(n));
  waitOrdering(in, loc, acc, carriedArgs, r, accArg, s1);
  Value twoBack = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::sge, prev2IV, lb);
  auto release = scf::IfOp::create(in, loc, TypeRange{}, twoBack, /*withElse=*/false);
  {
    OpBuilder rb = OpBuilder::atBlockBegin(release.thenBlock());
    IRMapping r2;
    cloneSecondPart(rb, r, r.release.getArrayRef(), prev2IV, r2);
  }
  if (r.second.hasRegisterA())
    materialize(in, r, r.second.getA(), prevIV, s1);
  SmallVector<Operation *> update;
  for (Operation *op : r.issue)
    if (op != r.second.getOperation())
      update.push_back(op);
  cloneSecondPart(in, r, update, prevIV, s1);
  for (Operation &op : body->without_terminator()) {
    if (!firstPart(op))
      continue;
    Operation *c = in.clone(op, s0);
    if (&op != r.first.getOperation())
      continue;
    // Both dots issued back to back, then the first waited for alone.
    cast<WarpgroupDotOp>(c).setIsAsync(true);
    cloneSecondPart(in, r, {r.second.getOperation()}, prevIV, s1);
    cast<WarpgroupDotOp>(s1.lookup(r.second.getResult()).getDefiningOp()).setIsAsync(true);
    Value w = WarpgroupWaitOp::create(in, loc, c->getResult(0), 1).getResult();
    s0.map(r.first.getResult(), w);
  }
  // The softmax of block j ends the iteration: nothing waits after it (ptxas
  // would move such a wait above it), so it overlaps the second dot of j - 1,
  // which the loop carries in flight to the next iteration's first wait.
  scf::YieldOp::create(in, loc, carriedOn(s0, s1.lookup(r.second.getResult())));

  // Epilogue: the second part of the last iteration, lb + (trips - 1) * step.
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(lb.getType(), 1));
  Value span = arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), one);
  Value last = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, span, step), step));
  IRMapping ep;
  Value inFlight = rotated.getResult(r.accIdx);
  SmallVector<Value> carriedResults(rotated.getResults().drop_front(n));
  waitOrdering(b, loc, inFlight, carriedResults, r, accArg, ep);
  {
    // The slot of the iteration before the last, if there was one.
    Value beforeLast = arith::SubIOp::create(b, loc, last, step);
    Value any2 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, beforeLast, lb);
    auto release = scf::IfOp::create(b, loc, TypeRange{}, any2, /*withElse=*/false);
    OpBuilder rb = OpBuilder::atBlockBegin(release.thenBlock());
    IRMapping r2;
    cloneSecondPart(rb, r, r.release.getArrayRef(), beforeLast, r2);
  }
  cloneSecondPart(b, r, r.issue.getArrayRef(), last, ep);
  cloneSecondPart(b, r, r.release.getArrayRef(), last, ep);
  SmallVector<Value> results;
  for (unsigned i = 0; i < n; ++i)
    results.push_back(i == r.accIdx ? ep.lookup(r.second.getResult()) : rotated.getResult(i));
  scf::YieldOp::create(b, loc, results);

  loop.replaceAllUsesWith(guard.getResults());
  loop.erase();
  // The first part's conversions of P, now made in the second part from the
  // carried source, have no uses in the prologue and the loop.
  for (Block *block : {&guard.getThenRegion().front(), nb})
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
      if (op.use_empty() && isMemoryEffectFree(&op) && op.getNumRegions() == 0 &&
          !op.hasTrait<OpTrait::IsTerminator>())
        op.erase();
}

struct TileRotateDots : tile::impl::TileRotateDotsBase<TileRotateDots> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (scheduleOption(kernel, tessera::kRotateDotsOption) == 0)
      return;
    SmallVector<scf::ForOp> loops;
    kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      if (std::optional<Rotation> r = match(loop))
        rotate(*r);
  }
};

} // namespace
