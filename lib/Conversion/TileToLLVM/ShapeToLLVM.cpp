//===- ShapeToLLVM.cpp - broadcast, expand, transpose, layouts --*- C++ -*-===//
//
// Broadcast and expand_dims stay in registers: the result and the source share a
// blocked layout (expand_dims turns a slice back into its parent), so the
// element a result element repeats is in the same thread, found by zeroing the
// digits of the broadcast axes. Transposing a blocked tile relabels axes: the
// struct is unchanged. convert_layout (between any layouts, dot operands and
// mma accumulators included) writes every element to shared memory at its
// row-major position and reads the elements of the new layout back.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// For each element of `res`, the index of the element of `src` it repeats.
FailureOr<SmallVector<size_t>> repeatMap(const Distribution &src, const Distribution &res) {
  if (src.blocked != res.blocked)
    return failure();
  SmallVector<size_t> map;
  for (const ElemDigits &d : res.elems) {
    ElemDigits z = d;
    for (unsigned a = 0; a < src.shape.size(); ++a)
      if (src.shape[a] == 1 || llvm::is_contained(src.sliced, a)) {
        z.s[a] = 0;
        z.rep[a] = 0;
      }
    map.push_back(src.indexOf(z));
  }
  return map;
}

template <typename OpTy>
struct RepeatLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto resTy = cast<RankedTensorType>(op.getType());
    Type structTy = this->getTypeConverter()->convertType(resTy);
    if (!structTy)
      return failure();
    size_t n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    Value src = adaptor.getSrc();
    if (!isa<LLVM::LLVMStructType>(src.getType())) { // a scalar source
      rw.replaceOp(op, pack(rw, loc, structTy, SmallVector<Value>(n, src)));
      return success();
    }
    FailureOr<Distribution> sd = distribute(cast<RankedTensorType>(op.getSrc().getType()));
    FailureOr<Distribution> rd = distribute(resTy);
    if (failed(sd) || failed(rd))
      return op.emitError("code generation of this op needs blocked or slice layouts");
    FailureOr<SmallVector<size_t>> map = repeatMap(*sd, *rd);
    if (failed(map))
      return op.emitError("internal compiler error: source and result layouts differ");
    SmallVector<Value> elems = unpack(rw, loc, src), out;
    for (size_t i : *map)
      out.push_back(elems[i]);
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

struct TransposeLowering : ConvertOpToLLVMPattern<tile::TransposeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    if (!isa<tile::BlockedLayoutAttr>(src.getEncoding()))
      return op.emitError("code generation of a transpose needs a blocked layout");
    rw.replaceOp(op, adaptor.getSrc()); // same elements, axes relabelled
    return success();
  }
};

struct ConvertLayoutLowering : ConvertOpToLLVMPattern<tile::ConvertLayoutOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto srcTy = cast<RankedTensorType>(op.getSrc().getType());
    auto dstTy = cast<RankedTensorType>(op.getType());
    auto [lane, warp] = laneAndWarp(rw, loc);
    auto srcCoords = layoutCoords(rw, loc, srcTy, lane, warp);
    auto dstCoords = layoutCoords(rw, loc, dstTy, lane, warp);
    if (failed(srcCoords) || failed(dstCoords))
      return op.emitError("code generation of this layout conversion is not supported yet: ")
             << srcTy << " to " << dstTy;
    Type structTy = getTypeConverter()->convertType(dstTy);
    Type elt = srcTy.getElementType();
    Type storeTy = elt.isInteger(1) ? rw.getI8Type() : elt;
    int64_t numel = srcTy.getNumElements();
    requireShared(op, numel * storageBytes(elt));
    Value smem = sharedBase(rw, loc, op);
    auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
    auto linear = [&](ArrayRef<Value> c) {
      Value lin = i32Const(rw, loc, 0);
      for (auto [d, v] : llvm::enumerate(c))
        lin = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, lin, i32Const(rw, loc, srcTy.getShape()[d])), v);
      return LLVM::GEPOp::create(rw, loc, ptr3, storeTy, smem, ValueRange{lin}).getResult();
    };
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc()), out;
    barrier(rw, loc);
    for (auto [v, c] : llvm::zip(elems, *srcCoords)) {
      Value s = elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, storeTy, v) : v;
      LLVM::StoreOp::create(rw, loc, s, linear(c));
    }
    barrier(rw, loc);
    for (auto &c : *dstCoords) {
      Value v = LLVM::LoadOp::create(rw, loc, storeTy, linear(c));
      out.push_back(elt.isInteger(1) ? (Value)LLVM::TruncOp::create(rw, loc, elt, v) : v);
    }
    barrier(rw, loc);
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateShapePatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<RepeatLowering<tile::BroadcastOp>, RepeatLowering<tile::ExpandDimsOp>,
               TransposeLowering, ConvertLayoutLowering>(tc);
}
