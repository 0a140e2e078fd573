//===- MathToNVVM.cpp - scalar math on NVPTX --------------------*- C++ -*-===//
//
// The fast paths the language allows: exp(x) = ex2.approx(x * log2(e)),
// log(x) = lg2.approx(x) * ln(2), exp2/log2/rsqrt/tanh as the PTX approximations;
// f16 and bf16 compute in f32 (fma too: one f32 rounding, then one to the type,
// as the interpreter has it). The rest of math (sqrt, abs, ctlz, ...) goes
// through upstream MathToLLVM.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace tessera::conversion;

namespace {

Value approx(OpBuilder &b, Location loc, StringRef insn, Value x) {
  return inlinePTX(b, loc, b.getF32Type(), ValueRange{x}, (insn + " $0, $1;").str(), "=f,f",
                   /*sideEffects=*/false);
}

/// Computes `f` on f32 copies of `args` and rounds the result back to `t`:
/// f16 and bf16 math runs in f32.
Value viaF32(OpBuilder &b, Location loc, Type t, ValueRange args,
             function_ref<Value(ArrayRef<Value>)> f) {
  SmallVector<Value> xs;
  for (Value a : args)
    xs.push_back(t.isF32() ? a : (Value)LLVM::FPExtOp::create(b, loc, b.getF32Type(), a));
  Value y = f(xs);
  return t.isF32() ? y : (Value)LLVM::FPTruncOp::create(b, loc, t, y);
}

template <typename OpTy> struct ApproxLowering : ConvertOpToLLVMPattern<OpTy> {
  ApproxLowering(TileTypeConverter &tc, StringRef insn, double preScale, double postScale)
      : ConvertOpToLLVMPattern<OpTy>(tc, /*benefit=*/2), insn(insn), pre(preScale),
        post(postScale) {}

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Type t = op.getType();
    if (!isa<FloatType>(t))
      return failure();
    Location loc = op.getLoc();
    Type f32 = rw.getF32Type();
    rw.replaceOp(
        op, viaF32(rw, loc, t, adaptor.getOperand(), [&](ArrayRef<Value> xs) {
          Value x = xs[0];
          if (pre != 1.0)
            x = LLVM::FMulOp::create(
                rw, loc, x, LLVM::ConstantOp::create(rw, loc, f32, rw.getF32FloatAttr(pre)));
          Value y = approx(rw, loc, insn, x);
          if (post != 1.0)
            y = LLVM::FMulOp::create(
                rw, loc, y, LLVM::ConstantOp::create(rw, loc, f32, rw.getF32FloatAttr(post)));
          return y;
        }));
    return success();
  }

  std::string insn;
  double pre, post;
};

/// fma of f16 or bf16: in f32, rounded back (f32 and f64 go to llvm.fma).
struct HalfFmaLowering : ConvertOpToLLVMPattern<math::FmaOp> {
  HalfFmaLowering(TileTypeConverter &tc) : ConvertOpToLLVMPattern<math::FmaOp>(tc, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(math::FmaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Type t = op.getType();
    if (!t.isF16() && !t.isBF16())
      return failure();
    SmallVector<Value, 3> args{adaptor.getA(), adaptor.getB(), adaptor.getC()};
    rw.replaceOp(op, viaF32(rw, op.getLoc(), t, args, [&](ArrayRef<Value> xs) {
                   return LLVM::FMAOp::create(rw, op.getLoc(), xs[0], xs[1], xs[2]).getResult();
                 }));
    return success();
  }
};

/// Float `%` is C's fmod, exactly: libdevice's __nv_fmodf (linked by the Target).
struct RemFLowering : ConvertOpToLLVMPattern<arith::RemFOp> {
  RemFLowering(TileTypeConverter &tc) : ConvertOpToLLVMPattern<arith::RemFOp>(tc, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(arith::RemFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Type t = op.getType();
    if (!isa<FloatType>(t))
      return failure();
    Location loc = op.getLoc();
    Type f32 = rw.getF32Type();
    auto module = op->getParentOfType<ModuleOp>();
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>("__nv_fmodf");
    if (!fn) {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(module.getBody());
      fn = LLVM::LLVMFuncOp::create(rw, loc, "__nv_fmodf",
                                    LLVM::LLVMFunctionType::get(f32, {f32, f32}));
    }
    rw.replaceOp(op, viaF32(rw, loc, t, ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                            [&](ArrayRef<Value> xs) {
                              return LLVM::CallOp::create(rw, loc, fn, xs).getResult();
                            }));
    return success();
  }
};

} // namespace

void tessera::conversion::populateMathToNVVMPatterns(TileTypeConverter &tc,
                                                     RewritePatternSet &patterns) {
  patterns.add<RemFLowering>(tc);
  patterns.add<HalfFmaLowering>(tc);
  patterns.add<ApproxLowering<math::ExpOp>>(tc, "ex2.approx.ftz.f32", M_LOG2E, 1.0);
  patterns.add<ApproxLowering<math::Exp2Op>>(tc, "ex2.approx.ftz.f32", 1.0, 1.0);
  patterns.add<ApproxLowering<math::LogOp>>(tc, "lg2.approx.ftz.f32", 1.0, M_LN2);
  patterns.add<ApproxLowering<math::Log2Op>>(tc, "lg2.approx.ftz.f32", 1.0, 1.0);
  patterns.add<ApproxLowering<math::RsqrtOp>>(tc, "rsqrt.approx.ftz.f32", 1.0, 1.0);
  patterns.add<ApproxLowering<math::TanhOp>>(tc, "tanh.approx.f32", 1.0, 1.0);
}
