//===- ReduceToLLVM.cpp - tile.reduce ---------------------------*- C++ -*-===//
//
// Three stages along the reduced axis, in any layout Distribute.h describes
// (blocked, mma, slices of them): the elements a thread holds, then the lanes
// of a warp (butterfly shuffles over the lane bits that step the axis), then
// the warps (partials through shared memory, one slot per warp digit of the
// axis). Bits and elements that only reach replicas along the axis (the layout
// spans more than the tile) are left out, so sums are not multiplied.
// Power-of-two extents are assumed (checked).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

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
    // 3. Across warps, through shared memory: each warp's digit along `axis`
    // (its bits that step the axis, compacted) picks a slot.
    SmallVector<unsigned> warpBits;
    for (auto [bit, basis] : llvm::enumerate(dist->warps))
      if (basis.axis == (int)axis && !dist->isReplica(basis))
        warpBits.push_back(bit);
    if (!warpBits.empty()) {
      int64_t distinctWarps = 1ll << warpBits.size();
      Type elt = srcTy.getElementType();
      unsigned bytes = std::max(1u, storageBytes(elt));
      // Result coordinates linearize the kept axes.
      int64_t resultNumel = 1;
      for (unsigned d = 0; d < dist->rank(); ++d)
        if (d != axis && !dist->isSliced(d))
          resultNumel *= dist->shape[d];
      auto [lane, warp] = laneAndWarp(rw, loc);
      SmallVector<Value> base = threadBase(rw, loc, *dist, lane, warp);
      auto coords = elementCoords(rw, loc, *dist, base);
      Value warpOnAxis = i32Const(rw, loc, 0);
      for (auto [k, bit] : llvm::enumerate(warpBits)) {
        Value b = LLVM::URemOp::create(
            rw, loc, LLVM::UDivOp::create(rw, loc, warp, i32Const(rw, loc, 1ll << bit)),
            i32Const(rw, loc, 2));
        warpOnAxis = LLVM::AddOp::create(
            rw, loc, warpOnAxis, LLVM::MulOp::create(rw, loc, b, i32Const(rw, loc, 1ll << k)));
      }
      Value smem = sharedBase(rw, loc, op);
      requireShared(op, distinctWarps * resultNumel * bytes);
      auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
      Type storeTy = elt.isInteger(1) ? rw.getI8Type() : elt;
      // The coordinates of a key's element (any element with that register part).
      auto slot = [&](const Key &key, Value w) {
        std::optional<size_t> elemIndex = dist->find(key);
        // Row-major index of the element's coordinates without `axis`.
        Value lin = i32Const(rw, loc, 0);
        unsigned ci = 0;
        for (unsigned d = 0; d < dist->rank(); ++d) {
          if (dist->isSliced(d))
            continue;
          Value c = coords[*elemIndex][ci++];
          if (d == axis)
            continue;
          lin = LLVM::AddOp::create(
              rw, loc, LLVM::MulOp::create(rw, loc, lin, i32Const(rw, loc, dist->shape[d])), c);
        }
        Value idx = LLVM::AddOp::create(
            rw, loc, LLVM::MulOp::create(rw, loc, w, i32Const(rw, loc, resultNumel)), lin);
        return LLVM::GEPOp::create(rw, loc, ptr3, storeTy, smem, ValueRange{idx}).getResult();
      };
      auto toStore = [&](Value v) {
        return elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, rw.getI8Type(), v) : v;
      };
      auto fromStore = [&](Value v) {
        return elt.isInteger(1) ? (Value)LLVM::TruncOp::create(rw, loc, rw.getI1Type(), v) : v;
      };
      // Every key's element exists: the element it was first seen at has the
      // same register part except along `axis`, where its coordinate is
      // replaced by the row-major linearization anyway.
      for (Key &key : keys)
        if (!dist->find(key))
          return op.emitError("internal compiler error: reduction element missing");
      barrier(rw, loc);
      for (const Key &key : keys)
        LLVM::StoreOp::create(rw, loc, toStore(partial[key]), slot(key, warpOnAxis));
      barrier(rw, loc);
      for (const Key &key : keys) {
        Value acc =
            fromStore(LLVM::LoadOp::create(rw, loc, storeTy, slot(key, i32Const(rw, loc, 0))));
        for (int64_t w = 1; w < distinctWarps; ++w)
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
