//===- TmaToLLVM.cpp - TMA copies and transaction barriers ------*- C++ -*-===//
//
// Lowers the Hopper copy machinery: `tile.mbarrier_alloc` (thread 0 runs
// nvvm.mbarrier.init on each barrier, then fence.mbarrier_init and a block
// barrier), `tile.tma_copy` (thread 0 runs nvvm.mbarrier.arrive.expect_tx with
// the slot's bytes, then one nvvm.cp.async.bulk.tensor per column block of the
// slot) and `tile.mbarrier_wait` (nvvm.mbarrier.try_wait.parity, looping until
// the phase has completed); in warp-specialized kernels also
// `tile.mbarrier_arrive`, `tile.in_producer` (the thread is past the compute
// warps), `tile.set_max_registers` (setmaxnreg) and the turns of the compute
// warpgroups (`tile.turn_*`: compute warpgroup g waits on named barrier
// kFirstTurnBarrier + g, of its 128 threads and the 128 of the warpgroup that
// arrives there to pass it the turn), and the copies are issued by the first
// producer thread. In a kernel of thread-block clusters, `tile.tma_copy
// {multicast = C}` issues the column blocks of its cluster rank with a
// multicast mask, `tile.mbarrier_arrive {cluster = C}` arrives from lane r
// of each warp on the barrier of the cluster's program r (nvvm.mapa), and
// `tile.cluster_barrier` is barrier.cluster.arrive/wait. The tensor maps are the kernel's trailing
// `__grid_constant__` parameters (docs/kernel-abi.md), one per entry of the
// function's `tile.tensor_maps`, which rewriteSignature appended in order.
//
// Assumes the slot's encoding is the one TMA writes for the map's box: a
// swizzle of S bytes means boxes of S bytes along the contiguous axis, each a
// column block of the slot (SharedLayout.h); unswizzled, one box spans it.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// The barrier `index` of a row of barriers at `bars`.
Value barrierAt(OpBuilder &b, Location loc, Value bars, Value index) {
  Value off = LLVM::MulOp::create(b, loc, index, i32Const(b, loc, tile::MBarrierType::kBytes));
  return byteOffset(b, loc, bars, off);
}

Value isThread(OpBuilder &b, Location loc, int64_t tid) {
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, threadId(b, loc),
                              i32Const(b, loc, tid));
}

struct MBarrierAllocLowering : ConvertOpToLLVMPattern<tile::MBarrierAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::MBarrierAllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto offset = op->getAttrOfType<IntegerAttr>("tile.offset");
    if (!offset)
      return op.emitError("barriers without an offset: run tile-allocate-shared first");
    Location loc = op.getLoc();
    Value bars = byteOffset(rw, loc, sharedBase(rw, loc, op), i32Const(rw, loc, offset.getInt()));
    Value first = isThread(rw, loc, 0);
    Value arrivals = i32Const(rw, loc, op.getArrivals());
    for (unsigned i = 0; i < op.getType().getCount(); ++i)
      NVVM::MBarrierInitOp::create(rw, loc, barrierAt(rw, loc, bars, i32Const(rw, loc, i)),
                                   arrivals, first);
    NVVM::FenceMbarrierInitOp::create(rw, loc);
    NVVM::Barrier0Op::create(rw, loc); // every thread, producers included
    rw.replaceOp(op, bars);
    return success();
  }
};

struct TmaCopyLowering : ConvertOpToLLVMPattern<tile::TmaCopyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::TmaCopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<Value> tmap = tensorMapArg(op, op.getMap());
    if (failed(tmap))
      return failure();
    tile::SharedGeometry g = op.getDst().getType().getGeometry();
    int64_t boxInner = g.swizzle ? g.swizzle / g.eltBytes : g.cols;
    if (g.cols % boxInner)
      return op.emitError("internal compiler error: a slot of ")
             << g.cols << " columns is not a whole number of " << boxInner << "-element boxes";
    // In a warp-specialized kernel the first producer thread issues.
    Value issue = isThread(rw, loc, warpSpecialized(op) ? computeThreads(op) : 0);
    if (Value pred = adaptor.getPred())
      issue = LLVM::AndOp::create(rw, loc, issue, pred);
    Value bar = barrierAt(rw, loc, adaptor.getBars(), adaptor.getIndex());
    NVVM::MBarrierArriveExpectTxOp::create(rw, loc, Type(), bar,
                                           i32Const(rw, loc, g.rows * g.cols * g.eltBytes),
                                           NVVM::MemScopeKind::CTA, /*relaxed=*/false, issue);
    TmaBoxes boxes(rw, loc, adaptor.getCoords(), g.rows, g.cols);
    // Multicast: the program of rank r in the cluster issues the column
    // blocks j = r (mod C) for every program of the cluster.
    int64_t cluster = op.getMulticast().value_or(0);
    Value rank, mask;
    if (cluster) {
      rank = NVVM::ClusterId::create(rw, loc, rw.getI32Type());
      mask = LLVM::ConstantOp::create(rw, loc, rw.getI16Type(),
                                      rw.getI16IntegerAttr((1 << cluster) - 1));
    }
    for (int64_t j = 0; j < g.cols / boxInner; ++j) {
      SmallVector<Value> coords = boxes.at(rw, loc, j * boxInner);
      Value dst = byteOffset(rw, loc, adaptor.getDst(),
                             i32Const(rw, loc, j * g.rows * boxInner * g.eltBytes));
      Value mine = issue;
      if (cluster)
        mine = LLVM::AndOp::create(rw, loc, issue,
                                   LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, rank,
                                                        i32Const(rw, loc, j % cluster)));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rw, loc, dst, *tmap, coords, bar, ValueRange{}, mask, Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), mine);
    }
    rw.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : ConvertOpToLLVMPattern<tile::MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::MBarrierWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value bar = barrierAt(rw, loc, adaptor.getBars(), adaptor.getIndex());
    // The suspend-time hint CUTLASS uses; the op loops until the phase is done.
    NVVM::MBarrierTryWaitParityOp::create(rw, loc, bar, adaptor.getPhase(),
                                          i32Const(rw, loc, 0x989680));
    rw.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : ConvertOpToLLVMPattern<tile::MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::MBarrierArriveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value bar = barrierAt(rw, loc, adaptor.getBars(), adaptor.getIndex());
    OpBuilder::InsertionGuard guard(rw);
    if (std::optional<uint32_t> cluster = op.getCluster()) {
      // Lane r of each warp arrives on the barrier of the cluster's program r.
      Value lane = laneAndWarp(rw, loc).first;
      Value signals = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ult, lane,
                                           i32Const(rw, loc, *cluster));
      auto branch = scf::IfOp::create(rw, loc, TypeRange{}, signals, /*withElseRegion=*/false);
      rw.setInsertionPointToStart(&branch.getThenRegion().front());
      auto remoteTy = LLVM::LLVMPointerType::get(
          rw.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
      bar = NVVM::MapaOp::create(rw, loc, remoteTy, bar, lane);
    }
    // Released at CTA scope, also on another program's barrier (as CUTLASS's
    // cluster barriers arrive): the slot's readers are this warp's wgmma,
    // complete at its wait, and a .release.cluster arrival costs a
    // MEMBAR.ALL.GPU per iteration (it halved 4096^3, docs/BENCHMARKS.md).
    NVVM::MBarrierArriveOp::create(
        rw, loc, Type(), bar, Value(),
        NVVM::MemScopeKindAttr::get(rw.getContext(), NVVM::MemScopeKind::CTA));
    rw.eraseOp(op);
    return success();
  }
};

struct ClusterBarrierLowering : ConvertOpToLLVMPattern<tile::ClusterBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ClusterBarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    // A relaxed arrival (a released one costs a MEMBAR.ALL.GPU): the
    // barriers' initialisation is released by fence.mbarrier_init, the
    // kernel's end needs no ordering. Every thread of each warp executes
    // both (.aligned).
    NVVM::ClusterArriveRelaxedOp::create(rw, loc, rw.getUnitAttr());
    NVVM::ClusterWaitOp::create(rw, loc, rw.getUnitAttr());
    rw.eraseOp(op);
    return success();
  }
};

struct InProducerLowering : ConvertOpToLLVMPattern<tile::InProducerOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::InProducerOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    rw.replaceOpWithNewOp<LLVM::ICmpOp>(
        op, op.getLeader() ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::uge, threadId(rw, loc),
        i32Const(rw, loc, 32 * computeWarps(op)));
    return success();
  }
};

struct SetMaxRegistersLowering : ConvertOpToLLVMPattern<tile::SetMaxRegistersOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::SetMaxRegistersOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(op, op.getCount(),
                                                  op.getIncrease()
                                                      ? NVVM::SetMaxRegisterAction::increase
                                                      : NVVM::SetMaxRegisterAction::decrease);
    return success();
  }
};

/// The compute warpgroup of the executing thread, and the named barrier of
/// warpgroup `group`'s turns (256 threads: its own and the passing one's).
Value computeWarpgroup(OpBuilder &b, Location loc) {
  return LLVM::UDivOp::create(b, loc, threadId(b, loc), i32Const(b, loc, 128));
}
Value turnBarrier(OpBuilder &b, Location loc, Value group) {
  return LLVM::AddOp::create(b, loc, group, i32Const(b, loc, kFirstTurnBarrier));
}
void waitTurn(OpBuilder &b, Location loc, Value group) {
  NVVM::BarrierOp::create(b, loc, Type(), turnBarrier(b, loc, group), i32Const(b, loc, 256),
                          NVVM::BarrierReductionAttr(), Value());
}
void passTurn(OpBuilder &b, Location loc, Value to) {
  NVVM::BarrierArriveOp::create(b, loc, turnBarrier(b, loc, to), i32Const(b, loc, 256));
}

/// The four turn ops: which warpgroup acts (all, or only the first or last)
/// and what it does.
template <typename OpTy> struct TurnLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    int64_t groups = computeWarps(op) / 4;
    if (!warpSpecialized(op) || groups < 2 || kFirstTurnBarrier + groups > 16)
      return op.emitError("turns need a warp-specialized kernel of 2 to ")
             << 16 - kFirstTurnBarrier << " compute warpgroups";
    Value g = computeWarpgroup(rw, loc);
    auto only = [&](int64_t group, llvm::function_ref<void()> body) {
      Value is =
          LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, g, i32Const(rw, loc, group));
      auto branch = scf::IfOp::create(rw, loc, TypeRange{}, is, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&branch.getThenRegion().front());
      body();
    };
    if constexpr (std::is_same_v<OpTy, tile::TurnBeginOp>)
      only(groups - 1, [&] { passTurn(rw, loc, i32Const(rw, loc, 0)); });
    else if constexpr (std::is_same_v<OpTy, tile::TurnEndOp>)
      only(0, [&] { waitTurn(rw, loc, i32Const(rw, loc, 0)); });
    else if constexpr (std::is_same_v<OpTy, tile::TurnWaitOp>)
      waitTurn(rw, loc, g);
    else
      passTurn(rw, loc,
               LLVM::URemOp::create(rw, loc, LLVM::AddOp::create(rw, loc, g, i32Const(rw, loc, 1)),
                                    i32Const(rw, loc, groups)));
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

tessera::conversion::TmaBoxes::TmaBoxes(OpBuilder &b, Location loc, ValueRange blocks, int64_t rows,
                                        int64_t cols) {
  size_t r = blocks.size();
  row0 = LLVM::MulOp::create(b, loc, blocks[r - 2], i32Const(b, loc, rows));
  col0 = LLVM::MulOp::create(b, loc, blocks[r - 1], i32Const(b, loc, cols));
  for (size_t a = r - 2; a-- > 0;)
    leading.push_back(blocks[a]);
}

SmallVector<Value> tessera::conversion::TmaBoxes::at(OpBuilder &b, Location loc,
                                                     int64_t colOffset) const {
  SmallVector<Value> coords{LLVM::AddOp::create(b, loc, col0, i32Const(b, loc, colOffset)), row0};
  coords.append(leading.begin(), leading.end());
  return coords;
}

FailureOr<Value> tessera::conversion::tensorMapArg(Operation *op, unsigned map) {
  auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  auto maps = fn ? fn->getAttrOfType<ArrayAttr>("tile.tensor_maps") : ArrayAttr();
  if (!maps || map >= maps.size())
    return op->emitError("internal compiler error: no tensor map parameter ") << map;
  return fn.getArgument(fn.getNumArguments() - maps.size() + map);
}

void tessera::conversion::populateTmaPatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<MBarrierAllocLowering, TmaCopyLowering, MBarrierWaitLowering, MBarrierArriveLowering,
               ClusterBarrierLowering, InProducerLowering, SetMaxRegistersLowering,
               TurnLowering<tile::TurnBeginOp>, TurnLowering<tile::TurnWaitOp>,
               TurnLowering<tile::TurnPassOp>, TurnLowering<tile::TurnEndOp>>(tc);
}
