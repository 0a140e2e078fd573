//===- ElementwiseToLLVM.cpp - element-wise tile ops ------------*- C++ -*-===//
//
// Element-wise arith/math ops on tiles become one scalar op per element the
// thread holds (all operands share the result's layout after
// tile-assign-layouts); splat, arange, splat constants and tile.convert produce
// their elements directly. The scalar ops are lowered in the second phase.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// Any arith/math op whose results are tiles: scalarize per element.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(TileTypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        op->getNumResults() != 1 || !isa<RankedTensorType>(op->getResult(0).getType()) ||
        isa<arith::ConstantOp>(op))
      return failure();
    auto tileTy = cast<RankedTensorType>(op->getResult(0).getType());
    Type structTy = getTypeConverter()->convertType(tileTy);
    if (!structTy)
      return rw.notifyMatchFailure(op, "unsupported layout");
    Location loc = op->getLoc();
    size_t n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    SmallVector<SmallVector<Value>> elems;
    for (Value v : operands) // a scalar operand (select's i1 condition) applies to all
      elems.push_back(isa<LLVM::LLVMStructType>(v.getType()) ? unpack(rw, loc, v)
                                                             : SmallVector<Value>(n, v));
    for (auto &e : elems)
      if (e.size() != n)
        return op->emitError("internal compiler error: operands in different layouts");
    SmallVector<Value> out;
    for (size_t i = 0; i < n; ++i) {
      OperationState state(loc, op->getName());
      for (auto &e : elems)
        state.addOperands(e[i]);
      state.addTypes(tileTy.getElementType());
      state.addAttributes(op->getAttrs());
      out.push_back(rw.create(state)->getResult(0));
    }
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

struct ConstantLowering : ConvertOpToLLVMPattern<arith::ConstantOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto t = dyn_cast<RankedTensorType>(op.getType());
    if (!t)
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return op.emitError("code generation supports only uniform constant tiles");
    Type structTy = getTypeConverter()->convertType(t);
    if (!structTy)
      return failure();
    Value scalar = LLVM::ConstantOp::create(rw, op.getLoc(), t.getElementType(),
                                            splat.getSplatValue<TypedAttr>());
    size_t n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    rw.replaceOp(op, pack(rw, op.getLoc(), structTy, SmallVector<Value>(n, scalar)));
    return success();
  }
};

struct SplatLowering : ConvertOpToLLVMPattern<tile::SplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Type structTy = getTypeConverter()->convertType(op.getType());
    if (!structTy)
      return failure();
    size_t n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    rw.replaceOp(op, pack(rw, op.getLoc(), structTy, SmallVector<Value>(n, adaptor.getValue())));
    return success();
  }
};

struct ArangeLowering : ConvertOpToLLVMPattern<tile::ArangeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ArangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Type structTy = getTypeConverter()->convertType(op.getType());
    FailureOr<Distribution> dist = distribute(op.getType());
    if (!structTy || failed(dist))
      return failure();
    Location loc = op.getLoc();
    auto [lane, warp] = laneAndWarp(rw, loc);
    auto coords = elementCoords(rw, loc, *dist, threadBase(rw, loc, *dist, lane, warp));
    SmallVector<Value> out;
    for (auto &c : coords)
      out.push_back(c[0]);
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

struct ConvertLowering : ConvertOpToLLVMPattern<tile::ConvertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ConvertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type to = getElementTypeOrSelf(op.getType());
    if (!isa<RankedTensorType>(op.getType())) {
      rw.replaceOp(op, convertScalar(rw, loc, adaptor.getSrc(), to));
      return success();
    }
    Type structTy = getTypeConverter()->convertType(op.getType());
    if (!structTy)
      return failure();
    SmallVector<Value> out;
    for (Value v : unpack(rw, loc, adaptor.getSrc()))
      out.push_back(convertScalar(rw, loc, v, to));
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

Value tessera::conversion::convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  bool fFrom = isa<FloatType>(from), fTo = isa<FloatType>(to);
  unsigned wFrom = from.getIntOrFloatBitWidth(), wTo = to.getIntOrFloatBitWidth();
  if (fFrom && fTo) {
    // bf16 <-> f16 goes through f32: neither holds the other.
    if (wFrom == wTo)
      return LLVM::FPTruncOp::create(b, loc, to, LLVM::FPExtOp::create(b, loc, b.getF32Type(), v));
    return wFrom < wTo ? (Value)LLVM::FPExtOp::create(b, loc, to, v)
                       : LLVM::FPTruncOp::create(b, loc, to, v);
  }
  if (to.isInteger(1))
    return fFrom ? (Value)LLVM::FCmpOp::create(
                       b, loc, LLVM::FCmpPredicate::une, v,
                       LLVM::ConstantOp::create(b, loc, from, b.getFloatAttr(from, 0.0)))
                 : LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v,
                                        LLVM::ConstantOp::create(b, loc, from, 0));
  if (from.isInteger(1))
    return fTo ? (Value)LLVM::UIToFPOp::create(b, loc, to, v) : LLVM::ZExtOp::create(b, loc, to, v);
  if (fTo)
    return LLVM::SIToFPOp::create(b, loc, to, v);
  if (fFrom) { // saturating, NaN to 0; 16-bit floats through f32
    Value f = wFrom >= 32 ? v : (Value)LLVM::FPExtOp::create(b, loc, b.getF32Type(), v);
    std::string name =
        "llvm.fptosi.sat.i" + std::to_string(wTo) + ".f" + std::to_string(std::max(wFrom, 32u));
    return LLVM::CallIntrinsicOp::create(b, loc, to, b.getStringAttr(name), ValueRange{f})
        .getResult(0);
  }
  return wFrom < wTo ? (Value)LLVM::SExtOp::create(b, loc, to, v)
                     : LLVM::TruncOp::create(b, loc, to, v);
}

void tessera::conversion::populateElementwisePatterns(TileTypeConverter &tc,
                                                      RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(tc, patterns.getContext());
  patterns.add<ConstantLowering, SplatLowering, ArangeLowering, ConvertLowering>(tc);
}
