//===- AssignLayouts.cpp - tile-assign-layouts ------------------*- C++ -*-===//
//
// Gives every tile of a kernel a distributed layout in one forward walk: each op
// gets its result layout from a rule (anchors such as loads and dots choose one;
// element-wise ops follow their operands) after operands in the wrong layout have
// been converted. Loop-carried tiles keep the layout of their initial value; if
// results take the layout of the `then` branch. The walk leaves conversions that
// may be redundant; folding removes no-ops and chains, and splats, aranges and
// constants are made directly in the layout their users want. Values computed
// from a dot stay in its mma layout (element-wise ops follow mma-rooted
// operands, reductions run on it); cheap index math feeding them is recomputed
// in that layout rather than converted; conversions of loop invariants are
// hoisted out of loops.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Layouts.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

class Assigner {
public:
  Assigner(KernelOp kernel, const tessera::target::TargetInfo &target)
      : b_(kernel.getContext()), ctx_(kernel.getContext()), numWarps_(kernel.getNumWarps()),
        target_(target) {}

  LogicalResult run(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(visit(&op)))
        return failure();
    return success();
  }

private:
  static Attribute layoutOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getEncoding() : Attribute();
  }
  static RankedTensorType tensorOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

  BlockedLayoutAttr defaultFor(RankedTensorType t) {
    return getDefaultBlockedLayout(ctx_, t.getShape(), numWarps_,
                                   t.getElementType().getIntOrFloatBitWidth());
  }
  void setLayout(Value v, Attribute layout) { v.setType(withLayout(tensorOf(v), layout)); }

  /// Makes operand `idx` of `op` arrive in `layout`: recomputed there when it
  /// is cheap to (index math, masks), else converted.
  void require(Operation *op, unsigned idx, Attribute layout) {
    Value v = op->getOperand(idx);
    RankedTensorType t = tensorOf(v);
    if (!t || t.getEncoding() == layout)
      return;
    op->setOperand(idx, materialize(v, layout, op));
  }

  /// Makes operand `idx` of `op` arrive in a layout Distribution describes
  /// (blocked or mma, or a slice of one; else the default) and returns it.
  Attribute requireDistributed(Operation *op, unsigned idx) {
    Attribute root = layoutOf(op->getOperand(idx));
    while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(root))
      root = slice.getParent();
    if (!isa_and_nonnull<BlockedLayoutAttr, MmaLayoutAttr>(root))
      require(op, idx, defaultFor(tensorOf(op->getOperand(idx))));
    return layoutOf(op->getOperand(idx));
  }

  /// `v` in `layout`, for a use at `user`.
  Value materialize(Value v, Attribute layout, Operation *user) {
    if (layoutOf(v) == layout)
      return v;
    if (canRecompute(v, 0))
      return recompute(v, layout);
    // A broadcast or expansion is made again in `layout` from its source,
    // which is converted instead: a [BN] bias instead of its [BM, BN] copies.
    if (isa_and_nonnull<BroadcastOp, ExpandDimsOp>(v.getDefiningOp()))
      return recompute(v, layout);
    b_.setInsertionPoint(user);
    return ConvertLayoutOp::create(b_, user->getLoc(), withLayout(tensorOf(v), layout), v);
  }

  /// Whether `v` comes from aranges, splats and constants through element-wise
  /// ops, broadcasts, expands and conversions only, so that making it again in
  /// another layout costs a few integer ops instead of a trip through shared
  /// memory.
  static bool canRecompute(Value v, unsigned depth) {
    Operation *def = v.getDefiningOp();
    if (!def || depth > 12 || def->getNumResults() != 1)
      return false;
    if (isa<ArangeOp, SplatOp>(def) || def->hasTrait<OpTrait::ConstantLike>())
      return true;
    if (!isa<ExpandDimsOp, BroadcastOp, ConvertLayoutOp, ConvertOp>(def) &&
        !def->hasTrait<OpTrait::Elementwise>())
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value o) { return !tensorOf(o) || canRecompute(o, depth + 1); });
  }

  /// A copy of the computation of `v` (canRecompute holds) in `layout`.
  Value recompute(Value v, Attribute layout) {
    Operation *def = v.getDefiningOp();
    RankedTensorType t = withLayout(tensorOf(v), layout);
    if (isa<SplatOp>(def) || def->hasTrait<OpTrait::ConstantLike>()) {
      // Folding makes these directly in the new layout.
      b_.setInsertionPointAfter(def);
      return ConvertLayoutOp::create(b_, def->getLoc(), t, v);
    }
    if (auto cvt = dyn_cast<ConvertLayoutOp>(def))
      return materialize(cvt.getSrc(), layout, def);
    SmallVector<Value> operands;
    for (Value o : def->getOperands()) {
      RankedTensorType ot = tensorOf(o);
      if (!ot) {
        operands.push_back(o);
        continue;
      }
      Attribute l = layout;
      if (auto expand = dyn_cast<ExpandDimsOp>(def))
        l = SliceLayoutAttr::get(ctx_, expand.getAxis(), layout);
      else if (auto bc = dyn_cast<BroadcastOp>(def))
        for (int64_t i = ot.getRank(); i < t.getRank(); ++i)
          l = SliceLayoutAttr::get(ctx_, 0, l);
      operands.push_back(materialize(o, l, def));
    }
    b_.setInsertionPoint(def);
    Operation *copy = b_.clone(*def);
    copy->setOperands(operands);
    copy->getResult(0).setType(t);
    return copy->getResult(0);
  }

  /// Layouts rooted in an mma accumulator (it or slices of it): values computed
  /// from a dot that should stay in the dot's registers.
  static bool isMmaRooted(Attribute l) {
    while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(l))
      l = slice.getParent();
    return isa_and_nonnull<MmaLayoutAttr>(l);
  }

  /// The layout element-wise ops follow: an mma-rooted operand's (the others
  /// are cheaper to move than a dot's result), else that of the first operand
  /// that is not a constant or splat (those can be made in any layout).
  Attribute followLayout(Operation *op) {
    Attribute first, fixed;
    for (Value v : op->getOperands()) {
      Attribute l = layoutOf(v);
      if (!l)
        continue;
      if (isMmaRooted(l))
        return l;
      Operation *def = v.getDefiningOp();
      bool flexible = def && (isa<SplatOp>(def) || def->hasTrait<OpTrait::ConstantLike>());
      if (!flexible && !fixed)
        fixed = l;
      if (!first)
        first = l;
    }
    return fixed ? fixed : first;
  }

  LogicalResult visit(Operation *op);

  /// A loop-carried tile the body produces in an mma layout (an accumulator)
  /// is carried in it, and the loop's result keeps it: the ops after the loop,
  /// visited next, then work on the accumulator's registers (an epilogue's
  /// bias and activation) instead of a converted copy.
  void carryAccumulators(scf::ForOp loop) {
    Operation *yield = loop.getBody()->getTerminator();
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      auto cvt = yield->getOperand(i).getDefiningOp<ConvertLayoutOp>();
      BlockArgument arg = loop.getRegionIterArgs()[i];
      if (!cvt || cvt.getSrc().getType() == arg.getType() || !isMmaRooted(layoutOf(cvt.getSrc())))
        continue;
      Type from = arg.getType(), to = cvt.getSrc().getType();
      OpOperand &init = loop.getInitArgsMutable()[i];
      b_.setInsertionPoint(loop);
      init.set(ConvertLayoutOp::create(b_, loop.getLoc(), to, init.get()));
      arg.setType(to);
      b_.setInsertionPointToStart(loop.getBody());
      auto inside = ConvertLayoutOp::create(b_, loop.getLoc(), from, arg);
      arg.replaceAllUsesExcept(inside, inside);
      yield->setOperand(i, cvt.getSrc());
      loop.getResult(i).setType(to);
    }
  }

  OpBuilder b_;
  MLIRContext *ctx_;
  unsigned numWarps_;
  const tessera::target::TargetInfo &target_;
};

LogicalResult Assigner::visit(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    for (auto [init, arg, res] :
         llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(), loop.getResults()))
      if (Attribute l = layoutOf(init)) {
        setLayout(arg, l);
        setLayout(res, l);
      }
    if (failed(run(*loop.getBody())))
      return failure();
    Operation *yield = loop.getBody()->getTerminator();
    for (auto [i, res] : llvm::enumerate(loop.getResults()))
      if (Attribute l = layoutOf(res))
        require(yield, i, l);
    carryAccumulators(loop);
    return success();
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    if (failed(run(*branch.thenBlock())) ||
        (branch.elseBlock() && failed(run(*branch.elseBlock()))))
      return failure();
    Operation *thenYield = branch.thenBlock()->getTerminator();
    for (auto [i, res] : llvm::enumerate(branch.getResults())) {
      Attribute l = layoutOf(thenYield->getOperand(i));
      if (!l)
        continue;
      setLayout(res, l);
      require(branch.elseBlock()->getTerminator(), i, l);
    }
    return success();
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    RankedTensorType t = tensorOf(cst.getResult());
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    if (!t || !dense)
      return success();
    // The constant's value carries its type: rebuild it in the new layout.
    RankedTensorType lt = withLayout(t, defaultFor(t));
    b_.setInsertionPoint(op);
    auto replacement = arith::ConstantOp::create(
        b_, op->getLoc(), lt, DenseElementsAttr::getFromRawBuffer(lt, dense.getRawData()));
    cst.replaceAllUsesWith(replacement.getResult());
    cst.erase();
    return success();
  }
  if (isa<LoadOp, ArangeOp, SplatOp>(op)) {
    if (RankedTensorType t = tensorOf(op->getResult(0)))
      setLayout(op->getResult(0), defaultFor(t));
    return success();
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (RankedTensorType t = tensorOf(store.getValue()))
      require(op, op->getNumOperands() - 1, defaultFor(t));
    return success();
  }
  if (isa<GatherOp, ScatterOp, AtomicRMWOp, AtomicCASOp>(op)) {
    // An element access (and an atomic) runs in the default layout of its
    // tile; its indices, mask and values (mostly index math, recomputed there)
    // follow.
    auto scatter = dyn_cast<ScatterOp>(op);
    RankedTensorType t = tensorOf(scatter ? scatter.getValue() : op->getResult(0));
    if (!t)
      return success();
    BlockedLayoutAttr l = defaultFor(t);
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      require(op, i, l);
    if (!scatter)
      setLayout(op->getResult(0), l);
    return success();
  }
  if (auto dot = dyn_cast<DotOp>(op)) {
    RankedTensorType t = tensorOf(dot.getResult());
    std::optional<tessera::target::MmaInstr> instr = target_.tensorCoreInstr(dotShape(dot));
    Attribute l = instr ? (Attribute)getMmaLayout(ctx_, t.getShape(), numWarps_, *instr)
                        : (Attribute)defaultFor(t);
    require(op, 0, DotOperandLayoutAttr::get(ctx_, 0, l));
    require(op, 1, DotOperandLayoutAttr::get(ctx_, 1, l));
    require(op, 2, l);
    setLayout(dot.getResult(), l);
    return success();
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    // Reductions run on blocked and mma layouts (and their slices); dot
    // operands are converted.
    Attribute src = requireDistributed(op, 0);
    if (tensorOf(red.getResult()))
      setLayout(red.getResult(), SliceLayoutAttr::get(ctx_, red.getAxis(), src));
    return success();
  }
  if (isa<ScanOp, AssociativeScanOp>(op)) {
    // A scan runs through shared memory from any layout Distribution
    // describes (blocked, mma and their slices); its result keeps the layout.
    setLayout(op->getResult(0), requireDistributed(op, 0));
    return success();
  }
  if (isa<ReshapeOp, PermuteOp>(op)) {
    // Through shared memory from any layout Distribution describes; the
    // result gets its shape's default.
    requireDistributed(op, 0);
    setLayout(op->getResult(0), defaultFor(tensorOf(op->getResult(0))));
    return success();
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    RankedTensorType t = tensorOf(expand.getResult());
    auto slice = dyn_cast_or_null<SliceLayoutAttr>(layoutOf(expand.getSrc()));
    if (slice && slice.getDim() == expand.getAxis()) {
      setLayout(expand.getResult(), slice.getParent());
      return success();
    }
    BlockedLayoutAttr parent = defaultFor(t);
    if (tensorOf(expand.getSrc()))
      require(op, 0, SliceLayoutAttr::get(ctx_, expand.getAxis(), parent));
    setLayout(expand.getResult(), parent);
    return success();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    RankedTensorType src = tensorOf(bc.getSrc()), dst = tensorOf(bc.getResult());
    if (src.getRank() == dst.getRank()) {
      setLayout(bc.getResult(), src.getEncoding());
      return success();
    }
    // Leading axes are added: the source must be the parent sliced that often.
    Attribute parent = defaultFor(dst), l = parent;
    for (int64_t i = src.getRank(); i < dst.getRank(); ++i)
      l = SliceLayoutAttr::get(ctx_, 0, l);
    require(op, 0, l);
    setLayout(bc.getResult(), parent);
    return success();
  }
  if (auto combine = dyn_cast<SplitKCombineOp>(op)) {
    // The sum comes back in the layout the partial was published in.
    setLayout(combine.getResult(), layoutOf(combine.getPartial()));
    return success();
  }
  if (auto tr = dyn_cast<TransposeOp>(op)) {
    auto blocked = dyn_cast<BlockedLayoutAttr>(layoutOf(tr.getSrc()));
    if (!blocked) {
      blocked = defaultFor(tensorOf(tr.getSrc()));
      require(op, 0, blocked);
    }
    setLayout(tr.getResult(), getTransposedLayout(blocked));
    return success();
  }
  if (isa<ConvertOp>(op) || op->hasTrait<OpTrait::Elementwise>()) {
    if (op->getNumResults() != 1 || !tensorOf(op->getResult(0)))
      return success();
    Attribute l = followLayout(op);
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      require(op, i, l);
    setLayout(op->getResult(0), l);
    return success();
  }
  for (Value r : op->getResults())
    if (tensorOf(r))
      return op->emitOpError("has no layout rule (tile-assign-layouts)");
  return success();
}

/// A loop-carried tile that each iteration converts into layout B and back (an
/// accumulator: `convert(arg) -> dot -> convert(result)`) is carried in layout B
/// instead; the conversions move out of the loop, where they fold or run once.
void carryInProducedLayout(scf::ForOp loop) {
  OpBuilder b(loop);
  Operation *yield = loop.getBody()->getTerminator();
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    auto cvt = yield->getOperand(i).getDefiningOp<ConvertLayoutOp>();
    BlockArgument arg = loop.getRegionIterArgs()[i];
    if (!cvt || cvt.getSrc().getType() == arg.getType())
      continue;
    Type from = arg.getType(), to = cvt.getSrc().getType();
    OpOperand &init = loop.getInitArgsMutable()[i];
    b.setInsertionPoint(loop);
    init.set(ConvertLayoutOp::create(b, loop.getLoc(), to, init.get()));
    arg.setType(to);
    b.setInsertionPointToStart(loop.getBody());
    auto inside = ConvertLayoutOp::create(b, loop.getLoc(), from, arg);
    arg.replaceAllUsesExcept(inside, inside);
    yield->setOperand(i, cvt.getSrc());
    Value result = loop.getResult(i);
    result.setType(to);
    b.setInsertionPointAfter(loop);
    auto after = ConvertLayoutOp::create(b, loop.getLoc(), from, result);
    result.replaceAllUsesExcept(after, after);
  }
}

struct TileAssignLayouts : tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::optional<tessera::target::TargetInfo> target =
        tessera::target::TargetInfo::forPass(kernel, arch);
    if (!target)
      return signalPassFailure();
    Assigner assigner(kernel, *target);
    if (failed(assigner.run(kernel.getBody().front())))
      return signalPassFailure();
    // Innermost loops first, so that an outer loop sees the inner one's layout.
    kernel.getBody().walk<WalkOrder::PostOrder>(
        [](scf::ForOp loop) { carryInProducedLayout(loop); });
    // Fold the conversions that turned out to be no-ops, chains or splats.
    RewritePatternSet patterns(&getContext());
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, &getContext());
    ConvertOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(kernel.getBody(), std::move(patterns))))
      return signalPassFailure();
    // Conversions of loop-invariant tiles (a dot operand loaded before the
    // loop) run once, before it.
    kernel.getBody().walk([](scf::ForOp loop) { moveLoopInvariantCode(loop); });
  }
};

} // namespace
