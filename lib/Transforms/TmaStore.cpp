//===- TmaStore.cpp - tile-tma-store ----------------------------*- C++ -*-===//
//
// An epilogue that stores through shared memory and TMA: with the kernel's
// `tile.tma_store` (the compiler's `tma-store` schedule option), on a target
// with TMA, each block store of a tensor-core accumulator (a tile with an mma
// layout, usually converted to a store-friendly layout first) becomes
//
//   %buf = tile.local_alloc      two slots of [rows, W] (one when one window
//                                fills the tile), swizzled as TMA writes them;
//                                for a store in a loop (a persistent
//                                program's), at the top of the body, so the
//                                buffer outlives the iterations; else just
//                                before the store, where it may reuse the
//                                operand buffers' bytes
//   tile.tma_store %t[...], %v, %buf   the mma-layout value, window by window
//   tile.tma_store_wait %buf     after the store, or after the op of the body
//                                that holds its loop
//
// A TMA box is the columns of one 128-byte swizzle row (64 halves, 32 floats),
// or the whole tile when it is narrower; W is the narrowest run of boxes in
// which every thread holds the same elements (one box for wgmma's
// accumulators, whose warps split the rows; two warps side by side along the
// columns make W span both). The store is asynchronous: a persistent
// program's next tile starts while its last one's windows are written, and
// the buffer is small enough (32 KB for a 128-row tile of halves) that a
// 128x256 tile keeps four pipeline stages. Elements outside the tensor are
// clipped by TMA, as `tile.store` masks them.
//
// Stores stay as they are where TMA cannot describe them, or where the
// program accesses the tensor otherwise too (the store completes only at the
// program's end, unordered with those accesses): a tensor that is not a
// kernel argument, not aligned in this variant or of rank above 5,
// 64-bit coordinates, padded extents, elements other than f16/bf16/f32, more
// than 256 rows, or a layout whose windows differ between threads. Runs after
// tile-software-pipeline (which adds the loads' tensor maps) and before
// tile-allocate-shared.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/AxisInfo.h"
#include "lib/Transforms/Passes.h"
#include "lib/Transforms/SoftwarePipeline.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETMASTORE
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The value a store writes before its conversion to a store layout.
Value accumulatorOf(StoreOp store) {
  Value v = store.getValue();
  if (auto cvt = v.getDefiningOp<ConvertLayoutOp>())
    v = cvt.getSrc();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !isa_and_nonnull<MmaLayoutAttr>(type.getEncoding()))
    return {};
  return v;
}

/// The columns of one TMA box of a store of `type` and the swizzle its slots
/// take (128-byte rows, or the whole tile's narrower ones); {0, 0} when TMA
/// cannot store it.
std::pair<int64_t, unsigned> boxOfStore(RankedTensorType type) {
  Type elt = type.getElementType();
  if (type.getRank() != 2 || !(elt.isF16() || elt.isBF16() || elt.isF32()))
    return {0, 0};
  int64_t rows = type.getShape()[0], cols = type.getShape()[1];
  int64_t e = elt.getIntOrFloatBitWidth() / 8;
  if (rows > 256 || rows % 8)
    return {0, 0};
  if (cols * e >= 128)
    return {128 / e, 128};
  if (cols * e == 64 || cols * e == 32)
    return {cols, unsigned(cols * e)};
  return {0, 0};
}

/// The narrowest window (whole boxes) in which every thread holds the same
/// elements, or 0 when the store cannot be staged.
int64_t windowOfStore(StoreOp store, Value acc, int64_t box) {
  auto arg = dyn_cast<BlockArgument>(store.getTensor());
  auto tensor = cast<GlobalTensorType>(store.getTensor().getType());
  // The store completes only at the program's end: no other access of the
  // tensor in the program may need its order (its extents are fine).
  auto otherAccess = [&](Operation *user) {
    return user != store.getOperation() && !isMemoryEffectFree(user);
  };
  if (!arg || llvm::any_of(arg.getUsers(), otherAccess))
    return 0;
  if (!isa<KernelOp>(arg.getOwner()->getParentOp()) || tensor.getRank() > 5 || store.getExtents() ||
      !tessera::analysis::isAlignedTensor(store.getTensor()) ||
      llvm::any_of(store.getCoords(), [](Value c) { return !c.getType().isInteger(32); }))
    return 0;
  auto type = cast<RankedTensorType>(acc.getType());
  auto layout = cast<DistributedLayoutAttrInterface>(type.getEncoding());
  FailureOr<Distribution> dist = layout.distribute(type.getShape());
  if (failed(dist))
    return 0;
  SmallVector<size_t> elems;
  for (int64_t w = box; w <= type.getShape()[1]; w *= 2)
    if (type.getShape()[1] % w == 0 && succeeded(windowOf(*dist, 1, 0, w, elems)))
      return w;
  return 0;
}

struct TileTmaStore : tile::impl::TileTmaStoreBase<TileTmaStore> {
  using TileTmaStoreBase::TileTmaStoreBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (scheduleOption(kernel, tessera::kTmaStoreOption) == 0)
      return;
    std::optional<tessera::target::TargetInfo> target =
        tessera::target::TargetInfo::forPass(kernel, arch);
    if (!target)
      return signalPassFailure();
    auto aligned = kernel->getAttrOfType<BoolAttr>("tile.aligned");
    if (!target->hasTMA() || (aligned && !aligned.getValue()))
      return;
    SmallVector<StoreOp> stores;
    kernel.getBody().walk([&](StoreOp s) { stores.push_back(s); });
    Block *body = &kernel.getBody().front();
    for (StoreOp store : stores) {
      Value acc = accumulatorOf(store);
      if (!acc)
        continue;
      auto type = cast<RankedTensorType>(acc.getType());
      auto [box, swizzle] = boxOfStore(type);
      int64_t width = box ? windowOfStore(store, acc, box) : 0;
      if (!width)
        continue;
      Location loc = store.getLoc();
      MLIRContext *ctx = kernel.getContext();
      Type elt = type.getElementType();
      int64_t rows = type.getShape()[0], windows = type.getShape()[1] / width;
      int64_t slots = windows % 2 == 0 ? 2 : 1;
      auto enc =
          SharedEncodingAttr::get(ctx, swizzle, 16 / (elt.getIntOrFloatBitWidth() / 8), {1, 0});
      auto bufTy = MemDescType::get(ctx, {slots, rows, width}, elt, enc);
      // Inside a loop (a persistent program's), the buffer outlives each
      // iteration's stores; elsewhere it lives at the store alone, and may
      // take the bytes of the operand buffers the main loop has finished with.
      bool inLoop = store->getParentOfType<LoopLikeOpInterface>() != nullptr;
      OpBuilder b(store);
      if (inLoop)
        b.setInsertionPointToStart(body);
      Value buf = LocalAllocOp::create(b, loc, bufTy, Value());
      auto tensor = cast<GlobalTensorType>(store.getTensor().getType());
      SmallVector<int64_t> boxShape(tensor.getRank() - 2, 1);
      boxShape.append({rows, box});
      int64_t map = pipeline::tensorMapIndex(
          kernel, cast<BlockArgument>(store.getTensor()).getArgNumber(), boxShape, swizzle);
      b.setInsertionPoint(store);
      TmaStoreOp::create(b, loc, store.getTensor(), store.getCoords(), acc, buf,
                         b.getI32IntegerAttr(map));
      // Completed before the program ends: after the store, or after the op
      // of the body that holds its loop.
      Operation *top = store;
      while (inLoop && top->getBlock() != body)
        top = top->getParentOp();
      b.setInsertionPointAfter(top);
      TmaStoreWaitOp::create(b, loc, buf);
      Operation *cvt = store.getValue().getDefiningOp();
      store.erase();
      if (cvt && cvt != acc.getDefiningOp() && cvt->use_empty())
        cvt->erase();
    }
  }
};

} // namespace
