//===- DotToLLVM.cpp - tile.dot ---------------------------------*- C++ -*-===//
//
// Tensor cores: with an mma accumulator, each warp runs mma.sync m16n8k16
// (nvvm.mma.sync) over its fragments (A fragments of 8 halves, B of 4, C of 4 floats, in the
// register order of the PTX ISA), K in steps of 16. FMA: with a blocked accumulator, each thread
// holds its accumulator rows of A and columns of B over the whole K and computes its elements with
// fused multiply-adds in the accumulator's type.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include <map>

using namespace mlir;
using namespace tessera::conversion;

namespace {

LogicalResult lowerMma(tile::DotOp op, ArrayRef<Value> a, ArrayRef<Value> bv, ArrayRef<Value> c,
                       ConversionPatternRewriter &rw, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  auto accTy = cast<RankedTensorType>(op.getType());
  auto aTy = cast<RankedTensorType>(op.getA().getType());
  auto mma = cast<tile::MmaLayoutAttr>(accTy.getEncoding());
  MmaShape s = mmaShape(mma, accTy.getShape()[0], accTy.getShape()[1], aTy.getShape()[1]);
  bool bf16 = aTy.getElementType().isBF16();
  NVVM::MMATypes ptxTy = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  // bf16 pairs travel as b32 registers, f16 pairs as f16x2 vectors.
  auto operand = [&](Value reg) -> Value {
    return bf16 ? reg
                : (Value)LLVM::BitcastOp::create(rw, loc, VectorType::get({2}, rw.getF16Type()),
                                                 reg);
  };
  auto resTy =
      LLVM::LLVMStructType::getLiteral(rw.getContext(), SmallVector<Type>(4, rw.getF32Type()));
  out.assign(c.begin(), c.end());
  for (int64_t i = 0; i < s.fm; ++i)
    for (int64_t j = 0; j < s.fn; ++j)
      for (int64_t t = 0; t < s.kSteps; ++t) {
        SmallVector<Value> opA, opB, opC;
        size_t ai = (i * s.kSteps + t) * 8, bi = (j * s.kSteps + t) * 4;
        for (int r = 0; r < 4; ++r)
          opA.push_back(operand(packPair(rw, loc, a[ai + 2 * r], a[ai + 2 * r + 1])));
        for (int r = 0; r < 2; ++r)
          opB.push_back(operand(packPair(rw, loc, bv[bi + 2 * r], bv[bi + 2 * r + 1])));
        size_t ci = (i * s.fn + j) * 4;
        for (int r = 0; r < 4; ++r)
          opC.push_back(out[ci + r]);
        Value res = NVVM::MmaOp::create(
            rw, loc, resTy, opA, opB, opC, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxTy, ptxTy},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
        SmallVector<Value> d = unpack(rw, loc, res);
        for (int r = 0; r < 4; ++r)
          out[ci + r] = d[r];
      }
  return success();
}

LogicalResult lowerFma(tile::DotOp op, ArrayRef<Value> a, ArrayRef<Value> bv, ArrayRef<Value> c,
                       ConversionPatternRewriter &rw, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  auto accTy = cast<RankedTensorType>(op.getType());
  auto aTy = cast<RankedTensorType>(op.getA().getType());
  int64_t k = aTy.getShape()[1];
  FailureOr<Distribution> acc = distribute(accTy);
  if (failed(acc) || !isa<tile::BlockedLayoutAttr>(acc->root))
    return op.emitError("code generation of this dot needs a blocked accumulator");
  // Positions of rows in A's struct and of columns in B's, keyed by their
  // register parts in the accumulator's layout (A and B list them in element
  // order, times K).
  std::map<int64_t, size_t> rowPos, colPos;
  for (const auto &off : acc->offsets) {
    if (off[1] == 0 && !rowPos.count(off[0]))
      rowPos[off[0]] = rowPos.size();
    if (off[0] == 0 && !colPos.count(off[1]))
      colPos[off[1]] = colPos.size();
  }
  Type accElt = accTy.getElementType();
  auto ext = [&](Value v) { return convertScalar(rw, loc, v, accElt); };
  out.assign(c.begin(), c.end());
  for (size_t i = 0; i < acc->offsets.size(); ++i) {
    size_t r = rowPos.at(acc->offsets[i][0]), cc = colPos.at(acc->offsets[i][1]);
    Value sum = out[i];
    for (int64_t kk = 0; kk < k; ++kk)
      sum = LLVM::FMAOp::create(rw, loc, ext(a[r * k + kk]), ext(bv[cc * k + kk]), sum);
    out[i] = sum;
  }
  return success();
}

struct DotLowering : ConvertOpToLLVMPattern<tile::DotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto accTy = cast<RankedTensorType>(op.getType());
    Type structTy = getTypeConverter()->convertType(accTy);
    if (!structTy)
      return op.emitError("code generation does not support this dot layout");
    SmallVector<Value> a = unpack(rw, loc, adaptor.getA()), b = unpack(rw, loc, adaptor.getB()),
                       c = unpack(rw, loc, adaptor.getAcc()), out;
    LogicalResult ok = isa<tile::MmaLayoutAttr>(accTy.getEncoding())
                           ? lowerMma(op, a, b, c, rw, out)
                           : lowerFma(op, a, b, c, rw, out);
    if (failed(ok))
      return failure();
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateDotPatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<DotLowering>(tc);
}
