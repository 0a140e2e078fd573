//===- LegalizeFloat8.cpp - tile-legalize-float8 ----------------*- C++ -*-===//
//
// f8E4M3FN and f8E5M2 values become the i8 of their bits, and conversions from
// and to them become integer and f32 arithmetic (Passes.td says why and what
// they round to). The conversions are expanded first, while the types still
// say which f8 format a value holds; then every value, block argument, tensor
// argument and constant of an f8 type is retyped in place, and the bitcasts
// between an f8 value and its bits that the expansion left become identities.
// Assumes tile IR from the frontend (no layouts yet): f8 values are only
// loaded, stored, selected, moved and converted.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELEGALIZEFLOAT8
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The parameters of an f8 format: mantissa bits, exponent bias, the largest
/// finite code (without sign) and the code of NaN.
struct Format {
  int64_t mant, bias, maxCode, nanCode;
  bool hasInf; // e5m2 keeps IEEE infinities; e4m3fn has none
};

std::optional<Format> formatOf(Type t) {
  t = getElementTypeOrSelf(t);
  if (isa<Float8E4M3FNType>(t))
    return Format{3, 7, 0x7e, 0x7f, false};
  if (isa<Float8E5M2Type>(t))
    return Format{2, 15, 0x7b, 0x7f, true};
  return std::nullopt;
}

/// `like`'s shape (a tile's, or none for a scalar) with element type `elt`.
Type withElement(Type like, Type elt) {
  if (auto t = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(t.getShape(), elt, t.getEncoding());
  return elt;
}

/// Builds the expansion next to one conversion.
struct Expander {
  OpBuilder &b;
  Location loc;
  Type like; // the converted value's type: its shape is every value's here

  Type i32() { return withElement(like, b.getI32Type()); }
  Type f32() { return withElement(like, b.getF32Type()); }
  Value c32(int64_t v) { return constant(b.getI32IntegerAttr((int32_t)v)); }
  Value f32c(double v) { return constant(b.getF32FloatAttr((float)v)); }
  Value constant(TypedAttr a) {
    if (auto t = dyn_cast<RankedTensorType>(like))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(RankedTensorType::get(t.getShape(), a.getType()), a));
    return arith::ConstantOp::create(b, loc, a);
  }
  Value andi(Value x, int64_t m) { return arith::AndIOp::create(b, loc, x, c32(m)); }
  Value shr(Value x, int64_t n) { return arith::ShRUIOp::create(b, loc, x, c32(n)); }
  Value shl(Value x, int64_t n) { return arith::ShLIOp::create(b, loc, x, c32(n)); }
  Value add(Value x, int64_t n) { return arith::AddIOp::create(b, loc, x, c32(n)); }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t n) {
    return arith::CmpIOp::create(b, loc, p, x, c32(n));
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value toBits(Value f) { return arith::BitcastOp::create(b, loc, i32(), f); }
  Value toFloat(Value i) { return arith::BitcastOp::create(b, loc, f32(), i); }

  /// The f32 value of f8 bits (an i8 value): exact.
  Value decode(Value bits, const Format &f) {
    Value u = arith::ExtUIOp::create(b, loc, i32(), bits);
    Value sign = shl(andi(u, 0x80), 24);
    Value m = andi(u, 0x7f);
    Value e = shr(m, f.mant);
    // A normal number: the exponent field rebiased, the mantissa moved up.
    Value normal = add(shl(m, 23 - f.mant), (127 - f.bias) << 23);
    // A subnormal one: mantissa * 2^(1 - bias - mant), exact in f32.
    Value man = ConvertOp::create(b, loc, f32(), andi(m, (1 << f.mant) - 1));
    Value sub =
        toBits(arith::MulFOp::create(b, loc, man, f32c(std::ldexp(1.0, 1 - f.bias - (int)f.mant))));
    Value v = select(cmp(arith::CmpIPredicate::eq, e, 0), sub, normal);
    if (f.hasInf) { // the top exponent: infinity (mantissa 0) or NaN
      Value special = select(cmp(arith::CmpIPredicate::eq, andi(m, (1 << f.mant) - 1), 0),
                             c32(0x7f800000), c32(0x7fc00000));
      v = select(cmp(arith::CmpIPredicate::eq, e, (1 << (7 - f.mant)) - 1), special, v);
    } else {
      v = select(cmp(arith::CmpIPredicate::eq, m, f.nanCode), c32(0x7fc00000), v);
    }
    return toFloat(arith::OrIOp::create(b, loc, v, sign));
  }

  /// The f8 bits (an i8 value) of an f32 value: nearest even, saturating.
  Value encode(Value x, const Format &f) {
    Value bits = toBits(x);
    Value a = andi(bits, 0x7fffffff);
    Value sign = andi(shr(bits, 24), 0x80);
    // Normal results: round the f32 mantissa to f.mant bits (ties to even)
    // in the integer, then rebias the exponent.
    int64_t shift = 23 - f.mant;
    Value lsb = andi(shr(a, shift), 1);
    Value rounded = arith::AddIOp::create(b, loc, add(a, (1 << (shift - 1)) - 1), lsb);
    Value normal = add(shr(rounded, shift), -((127 - f.bias) << f.mant));
    // Subnormal results: |x| in units of the smallest subnormal, rounded to
    // the nearest even integer (which may reach the smallest normal's code).
    Value scaled = arith::MulFOp::create(b, loc, toFloat(a),
                                         f32c(std::ldexp(1.0, (int)(f.bias - 1 + f.mant))));
    Value sub = ConvertOp::create(b, loc, i32(), math::RoundEvenOp::create(b, loc, scaled));
    Value small = cmp(arith::CmpIPredicate::ult, a, (127 + 1 - f.bias) << 23);
    Value code = select(small, sub, normal);
    code = arith::MinSIOp::create(b, loc, code, c32(f.maxCode)); // and infinities
    code = select(cmp(arith::CmpIPredicate::ugt, a, 0x7f800000), c32(f.nanCode), code);
    code = arith::OrIOp::create(b, loc, code, sign);
    return arith::TruncIOp::create(b, loc, withElement(like, b.getI8Type()), code);
  }

  /// An f64 value as the f32 that rounds to the same f8 value as it does:
  /// rounded to odd (the low bit records that bits were lost), so that the
  /// second rounding is the only one.
  Value toOddF32(Value x) {
    Value t = arith::TruncFOp::create(b, loc, f32(), x);
    Value back = arith::ExtFOp::create(b, loc, x.getType(), t);
    Value tb = toBits(t);
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, math::AbsFOp::create(b, loc, back),
                              math::AbsFOp::create(b, loc, x));
    // Toward zero, then the odd one of it and its successor.
    Value towardZero = select(above, add(tb, -1), tb);
    Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, x);
    return toFloat(select(inexact, arith::OrIOp::create(b, loc, towardZero, c32(1)), tb));
  }
};

/// The value `op` converts to, computed without f8 conversions.
Value expand(ConvertOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSrc();
  Type from = getElementTypeOrSelf(src.getType()), to = getElementTypeOrSelf(op.getType());
  Expander x{b, loc, src.getType()};
  Value f; // the value as f32
  if (auto fmt = formatOf(from))
    f = x.decode(arith::BitcastOp::create(b, loc, withElement(src.getType(), b.getI8Type()), src),
                 *fmt);
  else if (from.isF32())
    f = src;
  else if (from.isF64())
    f = x.toOddF32(src);
  else
    f = ConvertOp::create(b, loc, x.f32(), src);
  auto fmt = formatOf(to);
  if (!fmt)
    return f.getType() == op.getType() ? f : (Value)ConvertOp::create(b, loc, op.getType(), f);
  return arith::BitcastOp::create(b, loc, op.getType(), x.encode(f, *fmt));
}

/// `t` with every f8 element type replaced by i8.
Type legalType(Type t) {
  Type i8 = IntegerType::get(t.getContext(), 8);
  if (auto g = dyn_cast<GlobalTensorType>(t))
    return formatOf(g.getElementType()) ? GlobalTensorType::get(t.getContext(), g.getShape(), i8)
                                        : t;
  if (auto f = dyn_cast<FunctionType>(t)) {
    auto map = [](TypeRange ts) {
      return llvm::map_to_vector(ts, [](Type x) { return legalType(x); });
    };
    return FunctionType::get(t.getContext(), map(f.getInputs()), map(f.getResults()));
  }
  return formatOf(t) ? withElement(t, i8) : t;
}

/// An f8 constant as the constant of its bits.
TypedAttr legalConstant(TypedAttr a) {
  if (!formatOf(a.getType()))
    return a;
  if (auto dense = dyn_cast<DenseElementsAttr>(a))
    return dense.bitcast(IntegerType::get(a.getContext(), 8));
  auto f = cast<FloatAttr>(a);
  return IntegerAttr::get(IntegerType::get(a.getContext(), 8), f.getValue().bitcastToAPInt());
}

struct LegalizeFloat8 : tile::impl::TileLegalizeFloat8Base<LegalizeFloat8> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<ConvertOp> converts;
    kernel.walk([&](ConvertOp op) {
      if (formatOf(op.getSrc().getType()) || formatOf(op.getType()))
        converts.push_back(op);
    });
    for (ConvertOp op : converts) {
      op.replaceAllUsesWith(expand(op));
      op.erase();
    }
    kernel.setFunctionTypeAttr(TypeAttr::get(legalType(kernel.getFunctionType())));
    kernel.walk([](Operation *op) {
      for (Region &r : op->getRegions())
        for (Block &block : r)
          for (BlockArgument arg : block.getArguments())
            arg.setType(legalType(arg.getType()));
      for (OpResult res : op->getResults())
        res.setType(legalType(res.getType()));
      if (auto c = dyn_cast<arith::ConstantOp>(op))
        c.setValueAttr(legalConstant(c.getValue()));
    });
    // The expansion's bitcasts between f8 values and their bits are now i8 to i8.
    kernel.walk([](arith::BitcastOp op) {
      if (op.getIn().getType() == op.getType()) {
        op.replaceAllUsesWith(op.getIn());
        op.erase();
      }
    });
  }
};

} // namespace
