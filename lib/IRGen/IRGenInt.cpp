//===- IRGenInt.cpp - the signedness of integer operations ------*- C++ -*-===//
//
// MLIR integers are signless, so the language's unsigned types (u8, u32) are
// the i8 and i32 of the IR, and what makes them unsigned is the choice of
// operation, made here from the Sema types: conversions (zero extension,
// unsigned-to-float, float-to-unsigned clamped to the type's range), and the
// order used by max/min reductions, scans and argmax (the signed op on values
// with their sign bit flipped, which orders them as unsigned values do, so the
// layouts, padding and lowerings of the signed ops serve both).
//
//===----------------------------------------------------------------------===//
#include "lib/IRGen/IRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::irgen;

IntegerAttr Emitter::intAttr(Type t, int64_t v) {
  unsigned w = t.getIntOrFloatBitWidth();
  return b_.getIntegerAttr(t, APInt(w, (uint64_t)v, /*isSigned=*/false, /*implicitTrunc=*/true));
}

Value Emitter::flipSign(Value x, Location l) {
  Type elt = getElementTypeOrSelf(x.getType());
  unsigned w = elt.getIntOrFloatBitWidth();
  Value bit = arith::ConstantOp::create(b_, l, intAttr(elt, (int64_t)1 << (w - 1)));
  ArrayRef<int64_t> shape;
  if (auto t = dyn_cast<RankedTensorType>(x.getType()))
    shape = t.getShape();
  return arith::XOrIOp::create(b_, l, x, broadcastTo(bit, shape, l));
}

Value Emitter::emitConvert(Value x, DType from, DType to, Location l) {
  Type elt = toMLIRType(to, ctx_);
  Type t = elt;
  if (auto s = dyn_cast<RankedTensorType>(x.getType()))
    t = RankedTensorType::get(s.getShape(), elt);
  if (x.getType() == t)
    return x; // u8 <-> i8, u32 <-> i32: the same bits
  unsigned wFrom = getElementTypeOrSelf(x.getType()).getIntOrFloatBitWidth();
  unsigned wTo = elt.getIntOrFloatBitWidth();
  if (isUnsigned(from) && isF8(to)) // f8 conversions are tile.convert's alone
    return emitConvert(emitConvert(x, from, DType::F32, l), DType::F32, to, l);
  if (isUnsigned(from) && isFloat(to))
    return arith::UIToFPOp::create(b_, l, t, x);
  if (isUnsigned(from) && isInt(to) && wTo > wFrom)
    return arith::ExtUIOp::create(b_, l, t, x);
  if (isUnsigned(to) && isFloat(from)) {
    // Saturating like every float-to-integer conversion: through a signed
    // type that holds the whole range, clamped, then truncated.
    DType wide = to == DType::U8 ? DType::I32 : DType::I64;
    Value v = emitConvert(x, from, wide, l);
    ArrayRef<int64_t> shape;
    if (auto s = dyn_cast<RankedTensorType>(v.getType()))
      shape = s.getShape();
    Type we = toMLIRType(wide, ctx_);
    int64_t hi = to == DType::U8 ? UINT8_MAX : (int64_t)UINT32_MAX;
    Value lo = broadcastTo(arith::ConstantOp::create(b_, l, intAttr(we, 0)), shape, l);
    Value top = broadcastTo(arith::ConstantOp::create(b_, l, intAttr(we, hi)), shape, l);
    v = arith::MinSIOp::create(b_, l, arith::MaxSIOp::create(b_, l, v, lo), top);
    return arith::TruncIOp::create(b_, l, t, v);
  }
  // Signed sources and targets, bool, narrowing: tile.convert's semantics.
  return tile::ConvertOp::create(b_, l, t, x);
}

Value Emitter::emitOrdered(Value x, DType t, Location l, llvm::function_ref<Value(Value)> op) {
  if (!isUnsigned(t))
    return op(x);
  return flipSign(op(flipSign(x, l)), l);
}
