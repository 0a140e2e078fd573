//===- TileCanonicalize.cpp - canonicalization patterns ---------*- C++ -*-===//
//
// What `--canonicalize` does to tile IR beyond the ops' folders: values that
// cost nothing to recompute are made in the layout wanted, element-type
// conversions move before layout conversions, and an addition to a dot of a
// zero accumulator becomes the dot's accumulator (test/lit/Dialect/canonicalize.mlir).
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Values that cost nothing to recompute are made directly in the wanted
/// layout: convert(splat(s)) -> splat(s), convert(arange) -> arange.
struct RematerializeCheap : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op, PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (auto splat = dyn_cast_or_null<SplatOp>(def)) {
      rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getValue());
      return success();
    }
    if (isa_and_nonnull<ArangeOp>(def)) {
      rewriter.replaceOpWithNewOp<ArangeOp>(op, cast<RankedTensorType>(op.getType()));
      return success();
    }
    return failure();
  }
};
} // namespace

namespace {
/// convert(convert_layout(x)) -> convert_layout(convert(x)): the element type
/// changes where the value already is, so that the layout conversion moves the
/// (often narrower) result and can fold with a following one.
struct ConvertBeforeLayout : OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op, PatternRewriter &rewriter) const override {
    auto cvt = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!cvt || !cvt->hasOneUse())
      return failure();
    auto srcTy = cast<RankedTensorType>(cvt.getSrc().getType());
    auto dstTy = cast<RankedTensorType>(op.getType());
    auto converted = ConvertOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(srcTy.getShape(), dstTy.getElementType(), srcTy.getEncoding()),
        cvt.getSrc());
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, dstTy, converted);
    return success();
  }
};
} // namespace

void ConvertOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *ctx) {
  results.add<ConvertBeforeLayout>(ctx);
}

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *ctx) {
  results.add<RematerializeCheap>(ctx);
}

namespace {
/// x + dot(a, b, 0) -> dot(a, b, x): the products accumulate into x where the
/// sum would have been formed (one tile of registers and an addition fewer;
/// with a tensor core, x is the instruction's accumulator). Only a dot whose
/// one use is the addition, and whose accumulator is a zero constant.
struct AccumulateInDot : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add, PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).getDefiningOp<DotOp>();
      Value other = add->getOperand(1 - i);
      if (!dot || !dot->hasOneUse() || other.getType() != dot.getType())
        continue;
      DenseElementsAttr zeros;
      if (!matchPattern(dot.getAcc(), m_Constant(&zeros)) || !zeros.isSplat() ||
          !zeros.getSplatValue<APFloat>().isPosZero())
        continue;
      Value fused =
          DotOp::create(rewriter, dot.getLoc(), dot.getType(), dot.getA(), dot.getB(), other);
      rewriter.replaceOp(add, fused);
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};
} // namespace

void DotOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *ctx) {
  results.add<AccumulateInDot>(ctx);
}
