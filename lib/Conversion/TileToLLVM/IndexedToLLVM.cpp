//===- IndexedToLLVM.cpp - tile.gather and tile.scatter ---------*- C++ -*-===//
//
// Element-addressed accesses: the indices, mask and value of one op share the
// access's layout (tile-assign-layouts puts them there), so element i of each
// operand's struct is the same tile element. Each element's offset is the sum
// of its indices times the tensor's strides, computed in 64 bits; it is
// accessed when every index is in [0, extent) (one unsigned compare each) and
// its mask holds, with one predicated access per element, or per run of
// elements where the index math proves them contiguous, aligned and equally
// masked (AxisInfo.h: one access of up to 16 bytes, as the block form makes).
// Stores write only
// from the thread that owns an element, as tile.store does. The atomics
// (AtomicToLLVM.cpp) address their elements the same way.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

FailureOr<ElementAccess>
tessera::conversion::elementAccess(ConversionPatternRewriter &rw, Operation *op, Value desc,
                                   tile::GlobalTensorType tensor, ValueRange indices,
                                   ValueRange origIndices, Value mask, Value origMask, Type access,
                                   bool forStore) {
  Location loc = op->getLoc();
  unsigned r = tensor.getRank();
  Type eltTy = tensor.getElementType();
  auto tileTy = dyn_cast<RankedTensorType>(access);
  // Operands in another layout than the access would pair the wrong elements.
  auto sameLayout = [&](Value v) {
    return !tileTy || cast<RankedTensorType>(v.getType()).getEncoding() == tileTy.getEncoding();
  };
  if (!llvm::all_of(origIndices, sameLayout) || (origMask && !sameLayout(origMask)))
    return op->emitError("code generation of this access needs its indices and mask in the "
                         "layout of the accessed tile (run tile-assign-layouts)");
  auto values = [&](Value v) { return tileTy ? unpack(rw, loc, v) : SmallVector<Value>{v}; };
  Type i64 = rw.getI64Type();
  Value base = LLVM::ExtractValueOp::create(rw, loc, desc, 0);
  SmallVector<Value> extent, stride;
  for (unsigned d = 0; d < r; ++d) {
    Value e = LLVM::ExtractValueOp::create(rw, loc, desc, 1 + d); // i64 in the 64-bit size class
    extent.push_back(e.getType() == i64 ? e : LLVM::ZExtOp::create(rw, loc, i64, e).getResult());
  }
  for (unsigned d = 0; d + 1 < r; ++d)
    stride.push_back(LLVM::ExtractValueOp::create(rw, loc, desc, 1 + r + d));
  SmallVector<SmallVector<Value>> idx;
  for (Value v : indices)
    idx.push_back(values(v));
  SmallVector<Value> masks = mask ? values(mask) : SmallVector<Value>();
  size_t n = idx.front().size();
  SmallVector<Value> owner(n, Value());
  if (forStore && tileTy) {
    FailureOr<Distribution> dist = distribute(tileTy);
    if (failed(dist))
      return op->emitError("code generation of this access needs a blocked layout");
    auto [lane, warp] = laneAndWarp(rw, loc);
    SmallVector<Value, 4> base4 = threadBase(rw, loc, *dist, lane, warp);
    for (size_t i = 0; i < n; ++i)
      owner[i] = ownsElement(rw, loc, *dist, base4, i);
  } else if (forStore) {
    // Every thread holds a scalar; one stores it.
    owner[0] = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, threadId(rw, loc),
                                    i32Const(rw, loc, 0));
  }
  auto ptrTy = LLVM::LLVMPointerType::get(rw.getContext(), 1);
  ElementAccess acc;
  for (size_t i = 0; i < n; ++i) {
    Value offset = i64Const(rw, loc, 0);
    Value ok =
        masks.empty() ? (Value)LLVM::ConstantOp::create(rw, loc, rw.getI1Type(), 1) : masks[i];
    for (unsigned d = 0; d < r; ++d) {
      Value x = idx[d][i];
      if (!x.getType().isInteger(64))
        x = LLVM::SExtOp::create(rw, loc, i64, x);
      Value in = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ult, x, extent[d]);
      ok = LLVM::AndOp::create(rw, loc, ok, in);
      if (d + 1 < r)
        x = LLVM::MulOp::create(rw, loc, x, stride[d]);
      offset = LLVM::AddOp::create(rw, loc, offset, x);
    }
    if (owner[i])
      ok = LLVM::AndOp::create(rw, loc, ok, owner[i]);
    acc.addr.push_back(LLVM::GEPOp::create(rw, loc, ptrTy, eltTy, base, ValueRange{offset}));
    acc.mask.push_back(ok);
  }
  return acc;
}

namespace {

/// The vector width chosen for `op` (kVectorAttr), 1 when absent or when it
/// does not divide the thread's elements.
unsigned vectorOf(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kVectorAttr);
  return attr && attr.getInt() > 1 ? (unsigned)attr.getInt() : 1;
}

struct GatherLowering : ConvertOpToLLVMPattern<tile::GatherOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type eltTy = op.getTensor().getType().getElementType();
    FailureOr<ElementAccess> acc = elementAccess(
        rw, op, adaptor.getTensor(), op.getTensor().getType(), adaptor.getIndices(),
        op.getIndices(), adaptor.getMask(), op.getMask(), op.getType(), /*forStore=*/false);
    if (failed(acc))
      return failure();
    Value pad = adaptor.getPad();
    if (!pad)
      pad = zeroOf(rw, loc, eltTy);
    unsigned vec = vectorOf(op);
    SmallVector<Value> out;
    for (size_t i = 0; i < acc->addr.size(); i += vec) {
      SmallVector<Value> pads(vec, pad);
      auto vals = predicatedLoad(rw, loc, acc->addr[i], acc->mask[i], eltTy, vec, pads);
      out.append(vals.begin(), vals.end());
    }
    if (!isa<RankedTensorType>(op.getType()))
      rw.replaceOp(op, out[0]);
    else
      rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

struct ScatterLowering : ConvertOpToLLVMPattern<tile::ScatterOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type access = op.getValue().getType();
    auto tileTy = dyn_cast<RankedTensorType>(access);
    if (tileTy && cast<RankedTensorType>(op.getValue().getType()).getEncoding() !=
                      cast<RankedTensorType>(op.getIndices()[0].getType()).getEncoding())
      return op.emitError("code generation of this access needs its value in the layout of "
                          "its indices (run tile-assign-layouts)");
    FailureOr<ElementAccess> acc =
        elementAccess(rw, op, adaptor.getTensor(), op.getTensor().getType(), adaptor.getIndices(),
                      op.getIndices(), adaptor.getMask(), op.getMask(), access, /*forStore=*/true);
    if (failed(acc))
      return failure();
    SmallVector<Value> vals =
        tileTy ? unpack(rw, loc, adaptor.getValue()) : SmallVector<Value>{adaptor.getValue()};
    unsigned vec = vectorOf(op);
    for (size_t i = 0; i < acc->addr.size(); i += vec)
      predicatedStore(rw, loc, acc->addr[i], acc->mask[i], ArrayRef<Value>(vals).slice(i, vec));
    rw.eraseOp(op);
    return success();
  }
};

/// A promise for the analysis only: the value itself.
struct MultipleOfLowering : ConvertOpToLLVMPattern<tile::MultipleOfOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::MultipleOfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, adaptor.getValue());
    return success();
  }
};

} // namespace

void tessera::conversion::populateIndexedPatterns(TileTypeConverter &tc,
                                                  RewritePatternSet &patterns) {
  patterns.add<GatherLowering, ScatterLowering, MultipleOfLowering>(tc);
}
