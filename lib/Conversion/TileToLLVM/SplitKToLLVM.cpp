//===- SplitKToLLVM.cpp - split-K workspace ops -----------------*- C++ -*-===//
//
// Lowers `tile.split_k_publish` and `tile.split_k_combine` (TileSplitKOps.td).
// The workspace and the arrival counters are the two global pointers that
// rewriteSignature put before the tensor maps of a kernel with `tile.split_k`
// (docs/kernel-abi.md). An output tile is a block of the grid's axes 0 and 1
// (tile = ctaid.y * nctaid.x + ctaid.x), a split its axis 2; the slot of
// (tile, split) holds R * T floats, R per thread of the T compute threads,
// element r of thread t at r * T + t (coalesced, and independent of the
// layout, which every split shares).
//
// publish: each thread stores its R elements, membar.gl, a block barrier;
// thread 0 adds one to the tile's counter; a barrier with an OR reduction
// tells every thread whether thread 0 saw splits - 1 arrivals before its own;
// membar.gl again before the last program reads the other slots. combine:
// volatile loads (L2, never a stale L1 line) of every split's slot summed in
// split order; thread 0 puts the counter back to zero for the next launch.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

struct Workspace {
  Value slots, counters; // ptr<1>
  Value tile;            // i64: this block's output tile
  Value tid;             // i32
  int64_t threads;
};

FailureOr<Workspace> workspaceOf(ConversionPatternRewriter &rw, Operation *op) {
  auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  if (!fn || tile::scheduleOption(fn, tessera::kSplitKOption) < 2)
    return op->emitError("internal compiler error: a split-K op in a kernel without tile.split_k");
  if (warpSpecialized(op)) // its barriers would need the producer warps too
    return op->emitError("split-k is not supported in a warp-specialized kernel");
  auto maps = fn->getAttrOfType<ArrayAttr>("tile.tensor_maps");
  unsigned end = fn.getNumArguments() - (maps ? maps.size() : 0);
  Location loc = op->getLoc();
  Workspace w;
  w.slots = fn.getArgument(end - 2);
  w.counters = fn.getArgument(end - 1);
  Type i32 = rw.getI32Type(), i64 = rw.getI64Type();
  Value x = NVVM::BlockIdXOp::create(rw, loc, i32);
  Value y = NVVM::BlockIdYOp::create(rw, loc, i32);
  Value nx = NVVM::GridDimXOp::create(rw, loc, i32);
  Value tile = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, y, nx), x);
  w.tile = LLVM::ZExtOp::create(rw, loc, i64, tile);
  w.tid = threadId(rw, loc);
  w.threads = computeThreads(op);
  return w;
}

/// The address of element `r` of this thread in the slot of (tile, split).
Value slotElement(OpBuilder &b, Location loc, const Workspace &w, Value split, int64_t splits,
                  int64_t perThread, int64_t r) {
  Type i64 = b.getI64Type();
  Value slot = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, w.tile, i64Const(b, loc, splits)), split);
  Value base = LLVM::MulOp::create(b, loc, slot, i64Const(b, loc, perThread * w.threads));
  Value idx = LLVM::AddOp::create(b, loc, base,
                                  LLVM::AddOp::create(b, loc, i64Const(b, loc, r * w.threads),
                                                      LLVM::ZExtOp::create(b, loc, i64, w.tid)));
  return LLVM::GEPOp::create(b, loc, w.slots.getType(), b.getF32Type(), w.slots, ValueRange{idx});
}

Value counterOf(OpBuilder &b, Location loc, const Workspace &w) {
  return LLVM::GEPOp::create(b, loc, w.counters.getType(), b.getI32Type(), w.counters,
                             ValueRange{w.tile});
}

Value isThread0(OpBuilder &b, Location loc, const Workspace &w) {
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, w.tid, i32Const(b, loc, 0));
}

struct SplitKPublishLowering : ConvertOpToLLVMPattern<tile::SplitKPublishOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::SplitKPublishOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<Workspace> w = workspaceOf(rw, op);
    if (failed(w))
      return failure();
    SmallVector<Value> vals = unpack(rw, loc, adaptor.getPartial());
    int64_t splits = op.getSplits();
    Value split = LLVM::ZExtOp::create(rw, loc, rw.getI64Type(),
                                       NVVM::BlockIdZOp::create(rw, loc, rw.getI32Type()));
    for (auto [r, v] : llvm::enumerate(vals))
      LLVM::StoreOp::create(rw, loc, v, slotElement(rw, loc, *w, split, splits, vals.size(), r));
    // The partial is visible to the device before the block counts itself.
    NVVM::MembarOp::create(rw, loc, NVVM::MemScopeKind::GPU);
    barrier(rw, loc);
    Value first = isThread0(rw, loc, *w);
    Type i32 = rw.getI32Type();
    auto add = scf::IfOp::create(rw, loc, TypeRange{i32}, first, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&add.getThenRegion().front());
      Value old = LLVM::AtomicRMWOp::create(rw, loc, LLVM::AtomicBinOp::add, counterOf(rw, loc, *w),
                                            i32Const(rw, loc, 1), LLVM::AtomicOrdering::monotonic);
      scf::YieldOp::create(rw, loc, old);
      rw.setInsertionPointToStart(&add.getElseRegion().front());
      scf::YieldOp::create(rw, loc, i32Const(rw, loc, 0));
    }
    Value sawAll = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, add.getResult(0),
                                        i32Const(rw, loc, splits - 1));
    Value mine = LLVM::ZExtOp::create(rw, loc, i32, LLVM::AndOp::create(rw, loc, first, sawAll));
    auto any = NVVM::BarrierOp::create(
        rw, loc, i32, Value(), Value(),
        NVVM::BarrierReductionAttr::get(rw.getContext(), NVVM::BarrierReduction::OR), mine);
    Value last =
        LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ne, any.getRes(), i32Const(rw, loc, 0));
    // The other programs' partials are read after this.
    NVVM::MembarOp::create(rw, loc, NVVM::MemScopeKind::GPU);
    rw.replaceOp(op, last);
    return success();
  }
};

struct SplitKCombineLowering : ConvertOpToLLVMPattern<tile::SplitKCombineOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::SplitKCombineOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<Workspace> w = workspaceOf(rw, op);
    if (failed(w))
      return failure();
    SmallVector<Value> own = unpack(rw, loc, adaptor.getPartial());
    int64_t splits = op.getSplits(), perThread = own.size();
    Type f32 = rw.getF32Type();
    SmallVector<Value> sums;
    for (int64_t r = 0; r < perThread; ++r) {
      Value sum;
      for (int64_t s = 0; s < splits; ++s) {
        Value addr = slotElement(rw, loc, *w, i64Const(rw, loc, s), splits, perThread, r);
        Value part = LLVM::LoadOp::create(rw, loc, f32, addr, /*alignment=*/4, /*isVolatile=*/true);
        sum = sum ? LLVM::FAddOp::create(rw, loc, sum, part).getResult() : part;
      }
      sums.push_back(sum);
    }
    // Every split of this tile has arrived and read nothing more: reset.
    auto reset = scf::IfOp::create(rw, loc, TypeRange{}, isThread0(rw, loc, *w),
                                   /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(reset.getThenRegion().front().getTerminator());
      LLVM::StoreOp::create(rw, loc, i32Const(rw, loc, 0), counterOf(rw, loc, *w));
    }
    rw.replaceOp(op, pack(rw, loc, adaptor.getPartial().getType(), sums));
    return success();
  }
};

} // namespace

void tessera::conversion::populateSplitKPatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  patterns.add<SplitKPublishLowering, SplitKCombineLowering>(tc);
}
