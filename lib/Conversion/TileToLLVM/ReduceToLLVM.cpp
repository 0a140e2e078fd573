//===- ReduceToLLVM.cpp - tile.reduce ---------------------------*- C++ -*-===//
//
// Three stages along the reduced axis: the elements a thread holds, then the
// lanes of a warp (butterfly shuffles over the lane bits of that axis), then the
// warps (partials through shared memory). Lanes and warps that only hold
// replicas along the axis (the layout covers more than the tile) are left out,
// so sums are not multiplied. Power-of-two extents are assumed (checked).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

struct ReduceLowering : ConvertOpToLLVMPattern<tile::ReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType();
    FailureOr<Distribution> dist = distribute(srcTy);
    if (failed(dist))
      return op.emitError("code generation of this reduction needs a blocked or slice layout");
    for (int64_t e : srcTy.getShape())
      if (!llvm::isPowerOf2_64(e))
        return op.emitError("code generation needs power-of-two tile extents, got ") << srcTy;
    // The reduced axis, counted in the blocked layout's axes.
    // (the axis-th blocked axis that is not sliced away).
    unsigned axis = 0;
    for (unsigned seen = 0;; ++axis)
      if (!llvm::is_contained(dist->sliced, axis) && seen++ == op.getAxis())
        break;
    tile::BlockedLayoutAttr l = dist->blocked;
    int64_t extent = dist->shape[axis];
    int64_t spt = l.getSizePerThread()[axis], tpw = l.getThreadsPerWarp()[axis],
            wpc = l.getWarpsPerCTA()[axis];
    tile::ReduceKind kind = op.getKind();
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc());

    // 1. In the thread: combine elements that differ only along `axis`.
    std::map<size_t, Value> partial; // keyed by the index with axis digits zeroed
    std::vector<size_t> keys;
    for (size_t i = 0; i < dist->elems.size(); ++i) {
      if (dist->constOffset(i, axis) >= extent) // a replica inside the thread
        continue;
      ElemDigits d = dist->elems[i];
      d.s[axis] = 0;
      d.rep[axis] = 0;
      size_t key = dist->indexOf(d);
      auto it = partial.find(key);
      if (it == partial.end()) {
        partial[key] = elems[i];
        keys.push_back(key);
      } else {
        it->second = combine(rw, loc, kind, it->second, elems[i]);
      }
    }
    // 2. Across lanes: the lane bits of `axis` that reach distinct elements.
    unsigned laneShift = 0;
    for (unsigned a : l.getOrder()) {
      if (a == axis)
        break;
      laneShift += llvm::Log2_32(l.getThreadsPerWarp()[a]);
    }
    for (int64_t bit = 0; (1 << bit) < tpw; ++bit) {
      if (spt * (1 << bit) >= extent)
        break; // higher lanes hold replicas
      for (size_t key : keys)
        partial[key] = combine(rw, loc, kind, partial[key],
                               shuffleXor(rw, loc, partial[key], 1u << (laneShift + bit)));
    }
    // 3. Across warps, through shared memory.
    int64_t distinctWarps = std::min<int64_t>(wpc, std::max<int64_t>(1, extent / (spt * tpw)));
    if (distinctWarps > 1) {
      Type elt = srcTy.getElementType();
      unsigned bytes = std::max(1u, storageBytes(elt));
      // Result coordinates linearize the kept axes; warps along `axis` pick slots.
      int64_t resultNumel = 1;
      for (unsigned d = 0; d < dist->shape.size(); ++d)
        if (d != axis && !llvm::is_contained(dist->sliced, d))
          resultNumel *= dist->shape[d];
      auto [lane, warp] = laneAndWarp(rw, loc);
      SmallVector<Value> base = threadBase(rw, loc, *dist, lane, warp);
      auto coords = elementCoords(rw, loc, *dist, base);
      int64_t warpStride = 1;
      for (unsigned a : l.getOrder()) {
        if (a == axis)
          break;
        warpStride *= l.getWarpsPerCTA()[a];
      }
      // Warps past `distinctWarps` hold replicas: they write the same slots.
      Value warpOnAxis = LLVM::URemOp::create(
          rw, loc, LLVM::UDivOp::create(rw, loc, warp, i32Const(rw, loc, warpStride)),
          i32Const(rw, loc, distinctWarps));
      Value smem = sharedBase(rw, loc, op);
      requireShared(op, distinctWarps * resultNumel * bytes);
      auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
      Type storeTy = elt.isInteger(1) ? rw.getI8Type() : elt;
      auto slot = [&](size_t elemIndex, Value w) {
        // Row-major index of the element's coordinates without `axis`.
        Value lin = i32Const(rw, loc, 0);
        unsigned ci = 0;
        for (unsigned d = 0; d < dist->shape.size(); ++d) {
          if (llvm::is_contained(dist->sliced, d))
            continue;
          Value c = coords[elemIndex][ci++];
          if (d == axis)
            continue;
          lin = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, lin, i32Const(rw, loc, dist->shape[d])), c);
        }
        Value idx = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, w, i32Const(rw, loc, resultNumel)), lin);
        return LLVM::GEPOp::create(rw, loc, ptr3, storeTy, smem, ValueRange{idx}).getResult();
      };
      auto toStore = [&](Value v) {
        return elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, rw.getI8Type(), v) : v;
      };
      auto fromStore = [&](Value v) {
        return elt.isInteger(1) ? (Value)LLVM::TruncOp::create(rw, loc, rw.getI1Type(), v) : v;
      };
      barrier(rw, loc);
      for (size_t key : keys)
        LLVM::StoreOp::create(rw, loc, toStore(partial[key]), slot(key, warpOnAxis));
      barrier(rw, loc);
      for (size_t key : keys) {
        Value acc = fromStore(LLVM::LoadOp::create(rw, loc, storeTy, slot(key, i32Const(rw, loc, 0))));
        for (int64_t w = 1; w < distinctWarps; ++w)
          acc = combine(rw, loc, kind, acc,
                        fromStore(LLVM::LoadOp::create(rw, loc, storeTy, slot(key, i32Const(rw, loc, w)))));
        partial[key] = acc;
      }
      barrier(rw, loc);
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
    for (const ElemDigits &d : resDist->elems) {
      ElemDigits z = d;
      z.s[axis] = 0;
      z.rep[axis] = 0;
      auto it = partial.find(dist->indexOf(z));
      if (it == partial.end())
        return op.emitError("internal compiler error: reduction element missing");
      out.push_back(it->second);
    }
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateReducePatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(tc);
}
