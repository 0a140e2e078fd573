//===- ReshapeToLLVM.cpp - tile.reshape and tile.permute --------*- C++ -*-===//
//
// A new shape or axis order moves elements between threads in ways no layout
// conversion describes, so both go through the op's scratch (ScratchTile.h):
// the owners store the source at its row-major indices, a barrier, and every
// thread loads each element of its result from where it came from (a reshape:
// the same row-major index; a permute: the source index of the permuted
// coordinates). tile-insert-barriers orders the scratch against other users
// of that memory. Power-of-two extents are assumed (Sema's limit, checked).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"
#include "lib/Conversion/TileToLLVM/ScratchTile.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

template <typename OpTy> struct Restage : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    RankedTensorType src = op.getSrc().getType(), dst = op.getResult().getType();
    for (RankedTensorType t : {src, dst})
      for (int64_t e : t.getShape())
        if (!llvm::isPowerOf2_64(e))
          return op.emitError("code generation needs power-of-two tile extents, got ") << t;
    FailureOr<ScratchTile> scratch = ScratchTile::of(rw, op, src.getElementType());
    if (failed(scratch))
      return failure();
    if (failed(scratch->storeOwned(unpack(rw, loc, adaptor.getSrc()), src)))
      return op.emitError("code generation of this op needs a blocked, mma or slice layout");
    barrier(rw, loc);
    FailureOr<std::vector<SmallVector<Value, 4>>> coords = scratch->coords(dst);
    if (failed(coords))
      return op.emitError("code generation of this op needs a blocked, mma or slice layout");
    SmallVector<Value> out;
    for (const SmallVector<Value, 4> &c : *coords) {
      Value idx;
      if constexpr (std::is_same_v<OpTy, tile::PermuteOp>) {
        SmallVector<Value, 4> from(c.size());
        for (auto [k, d] : llvm::enumerate(op.getDims()))
          from[d] = c[k];
        idx = scratch->index(from, src.getShape());
      } else {
        idx = scratch->index(c, dst.getShape());
      }
      out.push_back(scratch->load(scratch->at(idx)));
    }
    rw.replaceOp(op, pack(rw, loc, this->getTypeConverter()->convertType(dst), out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateReshapePatterns(TileTypeConverter &tc,
                                                  RewritePatternSet &patterns) {
  patterns.add<Restage<tile::ReshapeOp>, Restage<tile::PermuteOp>>(tc);
}
