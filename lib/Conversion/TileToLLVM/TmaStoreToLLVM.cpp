//===- TmaStoreToLLVM.cpp - stores through shared memory and TMA -*- C++ -*-===//
//
// Lowers `tile.tma_store`: for each column window w of the value (the slot's
// columns), in slot s = w % slots of the buffer,
//
//   cp.async.bulk.wait_group.read (slots - 1)   the group that read slot s last
//   barrier                                     is done before anyone writes it
//   st.shared of the window's elements          (SharedAccess.h's vector plan
//                                               over the window's distribution)
//   fence.proxy.async.shared::cta               the writes reach the async proxy
//   barrier
//   @thread0 cp.async.bulk.tensor.global.shared::cta.bulk_group   per box
//   cp.async.bulk.commit_group                  (column block) of the slot
//
// and `tile.tma_store_wait` as cp.async.bulk.wait_group 0. Every thread runs
// the waits and commits (a thread that issued nothing has no groups to wait
// for); only thread 0, a compute thread in any kernel, issues the stores. The
// barriers are the compute warps' (Utils.h), so the op may sit in the compute
// branch of a warp-specialized kernel. Coordinates are the block coordinates
// of `tile.store`, scaled to elements as `tile.tma_copy` does.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

struct TmaStoreLowering : ConvertOpToLLVMPattern<tile::TmaStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::TmaStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<Value> tmap = tensorMapArg(op, op.getMap());
    if (failed(tmap))
      return failure();
    auto type = cast<RankedTensorType>(op.getValue().getType());
    FailureOr<Distribution> dist = distribute(type);
    if (failed(dist))
      return op.emitError("a TMA store needs a distributed layout, got ") << type;
    tile::MemDescType bufTy = op.getBuf().getType();
    tile::SharedGeometry g = bufTy.getGeometry();
    int64_t rows = type.getShape()[0], cols = type.getShape()[1];
    int64_t windows = cols / g.cols, slots = bufTy.getShape()[0];
    int64_t boxInner = g.swizzle ? g.swizzle / g.eltBytes : g.cols;
    if (g.cols % boxInner)
      return op.emitError("internal compiler error: a slot of ")
             << g.cols << " columns is not a whole number of " << boxInner << "-element boxes";
    SmallVector<Value> vals = unpack(rw, loc, adaptor.getValue());
    Value issue = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, threadId(rw, loc),
                                       i32Const(rw, loc, 0));
    TmaBoxes boxes(rw, loc, adaptor.getCoords(), rows, cols);
    for (int64_t w = 0; w < windows; ++w) {
      SmallVector<size_t> elems;
      FailureOr<Distribution> window = tile::windowOf(*dist, 1, w * g.cols, g.cols, elems);
      if (failed(window))
        return op.emitError("internal compiler error: the layout of ")
               << type << " gives threads different elements of a " << g.cols << "-column window";
      Value slot = byteOffset(rw, loc, adaptor.getBuf(),
                              i32Const(rw, loc, (w % slots) * bufTy.getSlotBytes()));
      NVVM::CpAsyncBulkWaitGroupOp::create(rw, loc, slots - 1, rw.getUnitAttr());
      barrier(rw, loc);
      SmallVector<Value> windowVals;
      for (size_t e : elems)
        windowVals.push_back(vals[e]);
      if (failed(storeDistributedToShared(rw, op, *window, type.getElementType(), g, slot,
                                          windowVals)))
        return failure();
      NVVM::FenceProxyOp::create(
          rw, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rw.getContext(), NVVM::SharedSpace::shared_cta));
      barrier(rw, loc);
      // One store per column block (box) of the slot.
      for (int64_t j = 0; j < g.cols / boxInner; ++j) {
        SmallVector<Value> coords = boxes.at(rw, loc, w * g.cols + j * boxInner);
        Value src = byteOffset(rw, loc, slot, i32Const(rw, loc, j * rows * boxInner * g.eltBytes));
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(rw, loc, *tmap, src, coords, Value(),
                                                           NVVM::TMAStoreMode::TILE, issue);
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(rw, loc);
    }
    rw.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitLowering : ConvertOpToLLVMPattern<tile::TmaStoreWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::TmaStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::CpAsyncBulkWaitGroupOp::create(rw, op.getLoc(), 0, UnitAttr());
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populateTmaStorePatterns(TileTypeConverter &tc,
                                                   RewritePatternSet &patterns) {
  patterns.add<TmaStoreLowering, TmaStoreWaitLowering>(tc);
}
