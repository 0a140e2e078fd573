//===- ShapeToLLVM.cpp - broadcast, expand, transpose, layouts --*- C++ -*-===//
//
// Broadcast and expand_dims stay in registers: the result and the source share a
// root layout (expand_dims turns a slice back into its parent), so the element a
// result element repeats is in the same thread, found by zeroing its register
// part along the broadcast axes. Transposing a blocked tile relabels axes: the
// struct is unchanged. convert_layout is a register permutation when both
// layouts give every thread the same elements (an mma accumulator feeding the
// next mma as its A operand); otherwise it goes through its scratch slot
// (lib/Analysis/SharedMemory.h chooses the slot's swizzle with the bank model;
// tile-allocate-shared gives its offset; tile-insert-barriers orders it
// against other shared-memory users).
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;
namespace analysis = tessera::analysis;
using mlir::tile::SharedGeometry;

namespace {

/// For each element of `res`, the index of the element of `src` it repeats.
/// Both share a root layout; `src` has extent 1 (or a slice) where `res` repeats.
FailureOr<SmallVector<size_t>> repeatMap(const Distribution &src, const Distribution &res) {
  if (src.root != res.root || src.rank() != res.rank())
    return failure();
  SmallVector<size_t> map;
  for (const auto &off : res.offsets) {
    SmallVector<int64_t, 4> z(off);
    for (unsigned a = 0; a < src.rank(); ++a)
      if (src.shape[a] == 1)
        z[a] = 0;
    std::optional<size_t> i = src.find(z);
    if (!i)
      return failure();
    map.push_back(*i);
  }
  return map;
}

template <typename OpTy> struct RepeatLowering : ConvertOpToLLVMPattern<OpTy> {
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
      return op.emitError("code generation of this op needs blocked, mma or slice layouts");
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
    Type structTy = getTypeConverter()->convertType(dstTy);
    if (!structTy)
      return op.emitError("code generation does not support this layout: ") << dstTy;
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc());
    // Registers only, when every thread already holds what it needs.
    FailureOr<Distribution> srcDist = distribute(srcTy), dstDist = distribute(dstTy);
    if (failed(srcDist) || failed(dstDist))
      return op.emitError("code generation of this layout conversion is not supported yet: ")
             << srcTy << " to " << dstTy;
    if (auto perm = analysis::registerPermutation(*srcDist, *dstDist)) {
      SmallVector<Value> out;
      for (size_t i : *perm)
        out.push_back(elems[i]);
      rw.replaceOp(op, pack(rw, loc, structTy, out));
      return success();
    }
    // Through the scratch slot tile-allocate-shared gave it: every thread
    // writes its elements, a barrier, every thread reads the new layout's.
    std::optional<SharedGeometry> geo = analysis::scratchOf(op);
    auto offset = op->getAttrOfType<IntegerAttr>("tile.scratch_offset");
    if (!geo || !offset)
      return op.emitError("a layout conversion through shared memory without scratch: run "
                          "tile-allocate-shared first");
    Value ptr = LLVM::GEPOp::create(rw, loc, LLVM::LLVMPointerType::get(rw.getContext(), 3),
                                    rw.getI8Type(), sharedBase(rw, loc, op),
                                    ValueRange{i32Const(rw, loc, offset.getInt())});
    if (failed(storeTileToShared(rw, op, srcTy, *geo, ptr, elems)))
      return failure();
    barrier(rw, loc);
    FailureOr<SmallVector<Value>> out = loadTileFromShared(rw, op, dstTy, *geo, ptr);
    if (failed(out))
      return failure();
    rw.replaceOp(op, pack(rw, loc, structTy, *out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateShapePatterns(TileTypeConverter &tc,
                                                RewritePatternSet &patterns) {
  patterns.add<RepeatLowering<tile::BroadcastOp>, RepeatLowering<tile::ExpandDimsOp>,
               TransposeLowering, ConvertLayoutLowering>(tc);
}
