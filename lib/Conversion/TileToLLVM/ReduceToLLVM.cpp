//===- ReduceToLLVM.cpp - tile.reduce ---------------------------*- C++ -*-===//
//
// Three stages along the reduced axis, in any layout Distribute.h describes
// (blocked, mma, slices of them): the elements a thread holds, then the lanes
// of a warp (butterfly shuffles over the lane bits that step the axis), then
// the warps (partials through the op's scratch in shared memory, one slot
// per warp digit of the axis; tile-insert-barriers orders it against other
// users of that memory, the barrier between its writes and reads is its own).
// Bits and elements that only reach replicas along the axis (the layout spans
// more than the tile) are left out, so sums are not multiplied.
// Power-of-two extents are assumed (checked).
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedAccess.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;
namespace analysis = tessera::analysis;

namespace {

using Key = std::vector<int64_t>;

struct ReduceLowering : ConvertOpToLLVMPattern<tile::ReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType();
    FailureOr<Distribution> dist = distribute(srcTy);
    if (failed(dist))
      return op.emitError("code generation of this reduction needs a blocked, mma or slice layout");
    for (int64_t e : srcTy.getShape())
      if (!llvm::isPowerOf2_64(e))
        return op.emitError("code generation needs power-of-two tile extents, got ") << srcTy;
    // The reduced axis, counted in the root layout's axes
    // (the axis-th root axis that is not sliced away).
    unsigned axis = 0;
    for (unsigned seen = 0;; ++axis)
      if (!dist->isSliced(axis) && seen++ == op.getAxis())
        break;
    int64_t extent = dist->shape[axis];
    tile::ReduceKind kind = op.getKind();
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc());

    // 1. In the thread: combine elements that differ only along `axis`.
    std::map<Key, Value> partial; // keyed by the register part with `axis` zeroed
    std::vector<Key> keys;
    for (size_t i = 0; i < dist->offsets.size(); ++i) {
      if (dist->constOffset(i, axis) >= extent) // a replica inside the thread
        continue;
      Key key(dist->offsets[i].begin(), dist->offsets[i].end());
      key[axis] = 0;
      auto it = partial.find(key);
      if (it == partial.end()) {
        partial[key] = elems[i];
        keys.push_back(key);
      } else {
        it->second = combine(rw, loc, kind, it->second, elems[i]);
      }
    }
    // 2. Across lanes: the lane bits that step `axis` inside the tile.
    for (auto [bit, basis] : llvm::enumerate(dist->lanes)) {
      if (basis.axis != (int)axis || dist->isReplica(basis))
        continue;
      for (const Key &key : keys)
        partial[key] =
            combine(rw, loc, kind, partial[key], shuffleXor(rw, loc, partial[key], 1u << bit));
    }
    // 3. Across warps, through the scratch tile-allocate-shared gave it: each
    // warp's digit along `axis` (its bits that step the axis, compacted) picks
    // a slot (lib/Analysis/SharedAccess.h, the addresses the bank model checks).
    Type elt = srcTy.getElementType();
    if (std::optional<analysis::ReduceScratch> scratch =
            analysis::reduceScratch(*dist, op.getAxis(), std::max(1u, storageBytes(elt)))) {
      auto offset = op->getAttrOfType<IntegerAttr>("tile.scratch_offset");
      if (!offset)
        return op.emitError("a reduction across warps without scratch: run tile-allocate-shared "
                            "first");
      for (Key &key : keys)
        if (!dist->find(key))
          return op.emitError("internal compiler error: reduction element missing");
      IRArith a{rw, loc};
      auto [lane, warp] = laneAndWarp(rw, loc);
      SmallVector<Value, 4> base = threadBaseOf(a, *dist, lane, warp);
      Value digit = analysis::reduceWarpDigit(a, *scratch, warp);
      auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
      Value smem = LLVM::GEPOp::create(rw, loc, ptr3, rw.getI8Type(), sharedBase(rw, loc, op),
                                       ValueRange{i32Const(rw, loc, offset.getInt())});
      Type storeTy = elt.isInteger(1) ? rw.getI8Type() : elt;
      auto slot = [&](const Key &key, Value w) {
        Value off = analysis::reduceSlotOffset(a, *dist, *scratch, *dist->find(key), base, w);
        return LLVM::GEPOp::create(rw, loc, ptr3, rw.getI8Type(), smem, ValueRange{off})
            .getResult();
      };
      auto toStore = [&](Value v) {
        return elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, rw.getI8Type(), v) : v;
      };
      auto fromStore = [&](Value v) {
        return elt.isInteger(1) ? (Value)LLVM::TruncOp::create(rw, loc, rw.getI1Type(), v) : v;
      };
      for (const Key &key : keys)
        LLVM::StoreOp::create(rw, loc, toStore(partial[key]), slot(key, digit));
      barrier(rw, loc);
      for (const Key &key : keys) {
        Value acc =
            fromStore(LLVM::LoadOp::create(rw, loc, storeTy, slot(key, i32Const(rw, loc, 0))));
        for (int64_t w = 1; w < scratch->slots(); ++w)
          acc = combine(
              rw, loc, kind, acc,
              fromStore(LLVM::LoadOp::create(rw, loc, storeTy, slot(key, i32Const(rw, loc, w)))));
        partial[key] = acc;
      }
    }
    // The result: a scalar, or the slice layout's elements in their order.
    if (!isa<RankedTensorType>(op.getType())) {
      rw.replaceOp(op, partial[keys.front()]);
      return success();
    }
    auto resTy = cast<RankedTensorType>(op.getType());
    FailureOr<Distribution> resDist = distribute(resTy);
    Type structTy = getTypeConverter()->convertType(resTy);
    if (failed(resDist) || !structTy)
      return op.emitError("internal compiler error: reduction result layout");
    SmallVector<Value> out;
    for (const auto &off : resDist->offsets) {
      auto it = partial.find(Key(off.begin(), off.end()));
      if (it == partial.end())
        return op.emitError("internal compiler error: reduction element missing");
      out.push_back(it->second);
    }
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateReducePatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(tc);
}
