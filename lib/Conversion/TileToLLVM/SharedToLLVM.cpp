//===- SharedToLLVM.cpp - shared-memory buffers and copies ------*- C++ -*-===//
//
// A `!tile.memdesc` becomes the shared-memory pointer of its (first) slot: the
// kernel's dynamic shared memory plus the `tile.offset` tile-allocate-shared
// gave its local_alloc; memdesc_index adds whole slots, memdesc_trans changes
// only the type. Tiles move through the plans of lib/Analysis/SharedAccess.h,
// whose per-lane addresses are emitted here with IRArith (the same template
// the bank-conflict model evaluates): vector st.shared / ld.shared, ldmatrix
// (nvvm.ldmatrix, plain or .trans as the slot's contiguous axis requires) for
// tensor-core operands, and cp.async (nvvm.cp.async.shared.global with a
// source size of 0 for masked runs, which zero-fills) for async copies.
// Barriers are not emitted here: tile-insert-barriers placed tile.barrier ops.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedAccess.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;
using namespace tessera::analysis;

namespace {

Type storageType(OpBuilder &b, Type elt) { return elt.isInteger(1) ? b.getI8Type() : elt; }

/// The thread's coordinates and the per-lane byte offsets of every instruction
/// of `plan`, relative to the slot.
SmallVector<Value> laneOffsets(OpBuilder &b, Location loc, const SharedPlan &plan) {
  IRArith a{b, loc};
  auto [lane, warp] = laneAndWarp(b, loc);
  SmallVector<Value, 4> base = threadBaseOf(a, plan.dist, lane, warp);
  SmallVector<Value, 4> warpBase = threadBaseOf(a, plan.dist, a.c(0), warp);
  SmallVector<Value> out;
  std::vector<OffsetBase> bases = offsetBases(plan);
  for (auto [i, in] : llvm::enumerate(plan.instrs))
    out.push_back(bases[i].ref == i ? laneOffset(a, plan, in, base, warpBase, lane)
                                    : a.add(out[bases[i].ref], a.c(bases[i].delta)));
  return out;
}

FailureOr<SharedPlan> vectorPlan(Operation *op, RankedTensorType tile, const SharedGeometry &geo) {
  FailureOr<Distribution> dist = distribute(tile);
  if (failed(dist))
    return op->emitError("code generation of this shared-memory access needs a distributed layout");
  FailureOr<SharedPlan> plan = planVectors(*dist, geo);
  if (failed(plan))
    return op->emitError("internal compiler error: no shared-memory plan for ") << tile;
  return plan;
}

} // namespace

LogicalResult tessera::conversion::storeTileToShared(ConversionPatternRewriter &rw, Operation *op,
                                                     RankedTensorType tile,
                                                     const SharedGeometry &geo, Value slotPtr,
                                                     ArrayRef<Value> vals) {
  FailureOr<Distribution> dist = distribute(tile);
  if (failed(dist))
    return op->emitError("code generation of this shared-memory access needs a distributed layout");
  return storeDistributedToShared(rw, op, *dist, tile.getElementType(), geo, slotPtr, vals);
}

LogicalResult tessera::conversion::storeDistributedToShared(ConversionPatternRewriter &rw,
                                                            Operation *op, const Distribution &dist,
                                                            Type elt, const SharedGeometry &geo,
                                                            Value slotPtr, ArrayRef<Value> vals) {
  Location loc = op->getLoc();
  FailureOr<SharedPlan> plan = planVectors(dist, geo);
  if (failed(plan))
    return op->emitError("internal compiler error: no shared-memory plan for this tile");
  Type st = storageType(rw, elt);
  SmallVector<Value> offs = laneOffsets(rw, loc, *plan);
  for (auto [in, off] : llvm::zip(plan->instrs, offs)) {
    SmallVector<Value> run;
    for (unsigned e = 0; e < in.elems; ++e) {
      Value v = vals[in.first + e];
      run.push_back(elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, st, v) : v);
    }
    Value ptr = byteOffset(rw, loc, slotPtr, off);
    if (run.size() == 1) {
      LLVM::StoreOp::create(rw, loc, run[0], ptr, storageBytes(elt));
      continue;
    }
    Value v = LLVM::UndefOp::create(rw, loc, VectorType::get({(int64_t)run.size()}, st));
    for (auto [e, x] : llvm::enumerate(run))
      v = LLVM::InsertElementOp::create(rw, loc, v, x, i32Const(rw, loc, e));
    LLVM::StoreOp::create(rw, loc, v, ptr, run.size() * storageBytes(elt));
  }
  return success();
}

namespace {

/// Loads a tile of `tile`'s layout from `slotPtr` with vector loads.
FailureOr<SmallVector<Value>> loadVectors(ConversionPatternRewriter &rw, Operation *op,
                                          RankedTensorType tile, const SharedGeometry &geo,
                                          Value slotPtr) {
  Location loc = op->getLoc();
  FailureOr<SharedPlan> plan = vectorPlan(op, tile, geo);
  if (failed(plan))
    return failure();
  Type elt = tile.getElementType(), st = storageType(rw, elt);
  SmallVector<Value> out(plan->dist.offsets.size());
  SmallVector<Value> offs = laneOffsets(rw, loc, *plan);
  for (auto [in, off] : llvm::zip(plan->instrs, offs)) {
    Value ptr = byteOffset(rw, loc, slotPtr, off);
    SmallVector<Value> run;
    if (in.elems == 1) {
      run.push_back(LLVM::LoadOp::create(rw, loc, st, ptr, storageBytes(elt)));
    } else {
      auto vecTy = VectorType::get({(int64_t)in.elems}, st);
      Value v = LLVM::LoadOp::create(rw, loc, vecTy, ptr, in.elems * storageBytes(elt));
      for (unsigned e = 0; e < in.elems; ++e)
        run.push_back(LLVM::ExtractElementOp::create(rw, loc, v, i32Const(rw, loc, e)));
    }
    for (auto [e, x] : llvm::enumerate(run))
      out[in.first + e] = elt.isInteger(1) ? (Value)LLVM::TruncOp::create(rw, loc, elt, x) : x;
  }
  return out;
}

/// Loads a tensor-core operand with ldmatrix.
FailureOr<SmallVector<Value>> loadMatrices(ConversionPatternRewriter &rw, Operation *op,
                                           const SharedPlan &plan, Type elt, Value slotPtr) {
  Location loc = op->getLoc();
  Type i32 = rw.getI32Type();
  SmallVector<Value> out(plan.dist.offsets.size());
  SmallVector<Value> offs = laneOffsets(rw, loc, plan);
  auto pairTy = VectorType::get({2}, elt);
  auto shape = NVVM::LdStMatrixShapeAttr::get(rw.getContext(), 8, 8);
  for (auto [in, off] : llvm::zip(plan.instrs, offs)) {
    Type resTy = in.num == 1 ? i32
                             : (Type)LLVM::LLVMStructType::getLiteral(
                                   rw.getContext(), SmallVector<Type>(in.num, i32));
    Value res = NVVM::LdMatrixOp::create(rw, loc, resTy, byteOffset(rw, loc, slotPtr, off), in.num,
                                         in.trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                                         shape, NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> regs = in.num == 1 ? SmallVector<Value>{res} : unpack(rw, loc, res);
    for (auto [m, reg] : llvm::enumerate(regs)) {
      Value pair = LLVM::BitcastOp::create(rw, loc, pairTy, reg);
      for (int e = 0; e < 2; ++e)
        out[in.regs[m] + e] = LLVM::ExtractElementOp::create(rw, loc, pair, i32Const(rw, loc, e));
    }
  }
  return out;
}

} // namespace

FailureOr<SmallVector<Value>> tessera::conversion::loadTileFromShared(ConversionPatternRewriter &rw,
                                                                      Operation *op,
                                                                      RankedTensorType tile,
                                                                      const SharedGeometry &geo,
                                                                      Value slotPtr) {
  FailureOr<Distribution> dist = distribute(tile);
  FailureOr<SharedPlan> matrices =
      succeeded(dist) ? planLdmatrix(*dist, geo) : FailureOr<SharedPlan>();
  if (succeeded(matrices))
    return loadMatrices(rw, op, *matrices, tile.getElementType(), slotPtr);
  return loadVectors(rw, op, tile, geo, slotPtr);
}

namespace {

struct LocalAllocLowering : ConvertOpToLLVMPattern<tile::LocalAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::LocalAllocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto offset = op->getAttrOfType<IntegerAttr>("tile.offset");
    if (!offset)
      return op.emitError("a shared buffer without an offset: run tile-allocate-shared first");
    Location loc = op.getLoc();
    Value ptr = byteOffset(rw, loc, sharedBase(rw, loc, op), i32Const(rw, loc, offset.getInt()));
    if (Value src = adaptor.getSrc())
      if (failed(storeTileToShared(rw, op, cast<RankedTensorType>(op.getSrc().getType()),
                                   op.getType().getGeometry(), ptr, unpack(rw, loc, src))))
        return failure();
    rw.replaceOp(op, ptr);
    return success();
  }
};

struct LocalStoreLowering : ConvertOpToLLVMPattern<tile::LocalStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::LocalStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    if (failed(storeTileToShared(rw, op, cast<RankedTensorType>(op.getSrc().getType()),
                                 op.getDst().getType().getGeometry(), adaptor.getDst(),
                                 unpack(rw, op.getLoc(), adaptor.getSrc()))))
      return failure();
    rw.eraseOp(op);
    return success();
  }
};

struct LocalLoadLowering : ConvertOpToLLVMPattern<tile::LocalLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::LocalLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    RankedTensorType tile = op.getType();
    Type structTy = getTypeConverter()->convertType(tile);
    if (!structTy)
      return op.emitError("code generation does not support this layout: ") << tile;
    FailureOr<SmallVector<Value>> vals =
        loadTileFromShared(rw, op, tile, op.getSrc().getType().getGeometry(), adaptor.getSrc());
    if (failed(vals))
      return failure();
    rw.replaceOp(op, pack(rw, op.getLoc(), structTy, *vals));
    return success();
  }
};

struct MemDescIndexLowering : ConvertOpToLLVMPattern<tile::MemDescIndexOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::MemDescIndexOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    int64_t slotBytes = op.getSrc().getType().getSlotBytes();
    Value off = LLVM::MulOp::create(rw, loc, adaptor.getIndex(), i32Const(rw, loc, slotBytes));
    rw.replaceOp(op, byteOffset(rw, loc, adaptor.getSrc(), off));
    return success();
  }
};

struct MemDescTransLowering : ConvertOpToLLVMPattern<tile::MemDescTransOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::MemDescTransOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, adaptor.getSrc()); // the same bytes
    return success();
  }
};

/// The cp.async copies of a tile of `tile`'s layout into `slot` (a slot of
/// `dst`), `vec` elements at a time: element i comes from addr[i], where
/// mask[i] (and `pred`) holds, else the run is zero-filled (source size 0).
LogicalResult copyRuns(ConversionPatternRewriter &rw, Operation *op, RankedTensorType tile,
                       tile::MemDescType slot, Value dst, ArrayRef<Value> addr,
                       ArrayRef<Value> masks, Value pred, unsigned vec, bool runsProven) {
  Location loc = op->getLoc();
  FailureOr<SharedPlan> plan = vectorPlan(op, tile, slot.getGeometry());
  if (failed(plan))
    return failure();
  if (!slot.getGeometry().rowMajor || !runsProven || plan->dist.offsets.size() % vec ||
      plan->dist.contiguousRun() % vec)
    return op->emitError("internal compiler error: this asynchronous copy cannot move ")
           << vec << " elements at a time";
  // The plan's runs may be longer than vec; each run is copied vec at a time.
  unsigned bytes = vec * storageBytes(slot.getElementType());
  IRArith a{rw, loc};
  auto [lane, warp] = laneAndWarp(rw, loc);
  SmallVector<Value, 4> base = threadBaseOf(a, plan->dist, lane, warp);
  for (size_t i = 0; i < plan->dist.offsets.size(); i += vec) {
    SharedInstr in;
    in.first = i;
    in.elems = vec;
    Value to = byteOffset(rw, loc, dst, laneOffset(a, *plan, in, base, base, lane));
    Value mask = masks[i];
    if (pred)
      mask = LLVM::AndOp::create(rw, loc, mask, pred);
    Value srcBytes =
        LLVM::SelectOp::create(rw, loc, mask, i32Const(rw, loc, bytes), i32Const(rw, loc, 0));
    NVVM::CpAsyncOp::create(
        rw, loc, to, addr[i], bytes,
        bytes == 16 ? NVVM::LoadCacheModifierKind::CG : NVVM::LoadCacheModifierKind::CA, srcBytes);
  }
  return success();
}

struct AsyncCopyLowering : ConvertOpToLLVMPattern<tile::AsyncCopyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::AsyncCopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    tile::MemDescType slot = op.getDst().getType();
    auto tile = RankedTensorType::get(slot.getShape(), slot.getElementType(), op.getLayout());
    FailureOr<GlobalAccess> global = computeGlobalAccess(
        rw, op, adaptor.getTensor(), op.getTensor().getType(), adaptor.getCoords(), tile,
        /*forStore=*/false, op.getExtents().value_or(ArrayRef<int64_t>()));
    if (failed(global) ||
        failed(copyRuns(rw, op, tile, slot, adaptor.getDst(), global->addr, global->mask,
                        adaptor.getPred(), op.getVec(), global->vec >= op.getVec())))
      return failure();
    rw.eraseOp(op);
    return success();
  }
};

/// The element-addressed twin of AsyncCopyLowering: addresses and masks as
/// tile.gather computes them (elementAccess), destinations as the block copy's;
/// the runs are the ones AxisInfo proved when the pipeliner chose `vec`.
struct AsyncGatherLowering : ConvertOpToLLVMPattern<tile::AsyncGatherOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::AsyncGatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    tile::MemDescType slot = op.getDst().getType();
    auto tile =
        RankedTensorType::get(slot.getShape(), slot.getElementType(),
                              cast<RankedTensorType>(op.getIndices()[0].getType()).getEncoding());
    FailureOr<ElementAccess> global =
        elementAccess(rw, op, adaptor.getTensor(), op.getTensor().getType(), adaptor.getIndices(),
                      op.getIndices(), adaptor.getMask(), op.getMask(), tile, /*forStore=*/false);
    if (failed(global) ||
        failed(copyRuns(rw, op, tile, slot, adaptor.getDst(), global->addr, global->mask,
                        adaptor.getPred(), op.getVec(), /*runsProven=*/true)))
      return failure();
    rw.eraseOp(op);
    return success();
  }
};

template <typename OpTy> struct SyncLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    if constexpr (std::is_same_v<OpTy, tile::AsyncCommitGroupOp>)
      NVVM::CpAsyncCommitGroupOp::create(rw, loc);
    else if constexpr (std::is_same_v<OpTy, tile::AsyncWaitOp>)
      NVVM::CpAsyncWaitGroupOp::create(rw, loc, op.getNum());
    else
      barrier(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populateSharedPatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  patterns.add<LocalAllocLowering, LocalStoreLowering, LocalLoadLowering, MemDescIndexLowering,
               MemDescTransLowering, AsyncCopyLowering, AsyncGatherLowering,
               SyncLowering<tile::AsyncCommitGroupOp>, SyncLowering<tile::AsyncWaitOp>,
               SyncLowering<tile::BarrierOp>>(tc);
}
