//===- IRGenBuiltins.cpp - built-in calls to tile IR ------------*- C++ -*-===//
//
// Lowers calls of built-in functions. One table maps each name to the member
// that emits its family (as Sema's table maps it to the rule that types it);
// a family's member reads `e.name` where its members differ. Built-ins Sema
// folds to constants (num_sms, ...) and range (a loop's header) never get here.
//
//===----------------------------------------------------------------------===//
#include "lib/IRGen/IRGenImpl.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::irgen;

namespace {

using BuiltinEmit = Value (Emitter::*)(const Expr &);

struct Builtin {
  const char *name;
  BuiltinEmit emit;
};

const Builtin kBuiltins[] = {
    {"program_id", &Emitter::emitProgramQuery},
    {"num_programs", &Emitter::emitProgramQuery},
    {"arange", &Emitter::emitArange},
    {"zeros", &Emitter::emitConstructor},
    {"full", &Emitter::emitConstructor},
    {"load", &Emitter::emitMemoryCall},
    {"store", &Emitter::emitMemoryCall},
    {"atomic_add", &Emitter::emitAtomic},
    {"atomic_max", &Emitter::emitAtomic},
    {"atomic_min", &Emitter::emitAtomic},
    {"atomic_xchg", &Emitter::emitAtomic},
    {"atomic_cas", &Emitter::emitAtomic},
    {"multiple_of", &Emitter::emitMultipleOf},
    {"dot", &Emitter::emitDot},
    {"reshape", &Emitter::emitShapeChange},
    {"permute", &Emitter::emitShapeChange},
    {"sum", &Emitter::emitReduction},
    {"max", &Emitter::emitMinMax},
    {"min", &Emitter::emitMinMax},
    {"cumsum", &Emitter::emitReduction},
    {"cummax", &Emitter::emitReduction},
    {"cummin", &Emitter::emitReduction},
    {"argmax", &Emitter::emitArgReduction},
    {"argmin", &Emitter::emitArgReduction},
    {"scan", &Emitter::emitScan},
    {"maximum", &Emitter::emitMinMax},
    {"minimum", &Emitter::emitMinMax},
    {"fma", &Emitter::emitFma},
    {"cdiv", &Emitter::emitScalarHelper},
    {"next_pow2", &Emitter::emitScalarHelper},
    {"abs", &Emitter::emitUnaryMath},
    {"exp", &Emitter::emitUnaryMath},
    {"exp2", &Emitter::emitUnaryMath},
    {"log", &Emitter::emitUnaryMath},
    {"log2", &Emitter::emitUnaryMath},
    {"sqrt", &Emitter::emitUnaryMath},
    {"rsqrt", &Emitter::emitUnaryMath},
    {"tanh", &Emitter::emitUnaryMath},
    {"sigmoid", &Emitter::emitUnaryMath},
    {"where", &Emitter::emitWhere},
    {"assert", &Emitter::emitAssert},
    {"print", &Emitter::emitPrint},
};

BuiltinEmit findBuiltin(StringRef name) {
  static const llvm::StringMap<BuiltinEmit> byName = [] {
    llvm::StringMap<BuiltinEmit> m;
    for (const Builtin &b : kBuiltins)
      m[b.name] = b.emit;
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

/// The math functions that are one op of the math dialect.
using MathBuild = Value (*)(OpBuilder &, Location, Value);
template <typename OpTy> Value mathOp(OpBuilder &b, Location l, Value x) {
  return OpTy::create(b, l, x);
}
const llvm::StringMap<MathBuild> &mathOps() {
  static const llvm::StringMap<MathBuild> ops = {
      {"exp", &mathOp<math::ExpOp>},   {"exp2", &mathOp<math::Exp2Op>},
      {"log", &mathOp<math::LogOp>},   {"log2", &mathOp<math::Log2Op>},
      {"sqrt", &mathOp<math::SqrtOp>}, {"rsqrt", &mathOp<math::RsqrtOp>},
      {"tanh", &mathOp<math::TanhOp>},
  };
  return ops;
}

/// A reduction's or scan's axis argument (default 0), made non-negative.
int64_t axisArg(const Expr &e, size_t i) {
  int64_t rank = e.args[0]->type.shape.size();
  int64_t axis = e.args.size() > i ? *e.args[i]->constant : 0;
  return axis < 0 ? axis + rank : axis;
}

} // namespace

SmallVector<Value, 3> Emitter::broadcastArgs(const Expr &e) {
  SmallVector<Value, 3> out;
  for (const ExprPtr &a : e.args)
    out.push_back(broadcastTo(emitExpr(*a), e.type.shape, loc(e.loc)));
  return out;
}

Value Emitter::emitCall(const Expr &e) {
  BuiltinEmit emit = findBuiltin(e.name);
  return emit ? (this->*emit)(e) : nullptr;
}

/// The values of a list's elements (a block access's coordinates), in order.
SmallVector<Value> Emitter::emitEach(const Expr &list) {
  SmallVector<Value> out;
  for (const ExprPtr &x : list.args)
    out.push_back(emitExpr(*x));
  return out;
}

/// In the 64-bit size class an index built-in is i64: the i32 op, sign-extended.
Value Emitter::widenIndex(const Expr &e, Value v) {
  Type t = typeOf(e.type);
  return v.getType() == t ? v : arith::ExtSIOp::create(b_, loc(e.loc), t, v).getResult();
}

Value Emitter::emitProgramQuery(const Expr &e) {
  Location l = loc(e.loc);
  auto axis = (int32_t)*e.args[0]->constant;
  if (e.name == "program_id")
    return widenIndex(e, tile::ProgramIdOp::create(b_, l, b_.getI32Type(), axis));
  return widenIndex(e, tile::NumProgramsOp::create(b_, l, b_.getI32Type(), axis));
}

Value Emitter::emitArange(const Expr &e) {
  auto t = RankedTensorType::get(e.type.shape, b_.getI32Type());
  return widenIndex(e, tile::ArangeOp::create(b_, loc(e.loc), t));
}

Value Emitter::emitConstructor(const Expr &e) {
  Location l = loc(e.loc);
  if (e.name == "full")
    return broadcastTo(emitExpr(*e.args[1]), e.type.shape, l);
  auto t = cast<RankedTensorType>(typeOf(e.type));
  Attribute zero = isFloat(e.type.dtype) ? (Attribute)b_.getFloatAttr(t.getElementType(), 0.0)
                                         : b_.getIntegerAttr(t.getElementType(), 0);
  return arith::ConstantOp::create(b_, l, DenseElementsAttr::get(t, zero));
}

/// load/store of a block `t, [c...]`; the element form `t[i...]` is
/// emitElementAccess's.
Value Emitter::emitMemoryCall(const Expr &e) {
  if (e.args[0]->kind == ExprKind::Index)
    return emitElementAccess(e);
  Location l = loc(e.loc);
  Value tensor = values_.lookup(e.args[0]->symbol);
  Value pad = e.kwargs.empty() ? Value() : emitExpr(*e.kwargs[0].value);
  SmallVector<Value> coords = emitEach(*e.args[1]);
  if (e.name == "load") {
    return tile::LoadOp::create(b_, l, typeOf(e.type), tensor, coords, pad, /*extents=*/nullptr);
  }
  tile::StoreOp::create(b_, l, tensor, coords, emitExpr(*e.args[2]), /*extents=*/nullptr);
  return nullptr;
}

Value Emitter::emitMultipleOf(const Expr &e) {
  Value x = emitExpr(*e.args[0]);
  return tile::MultipleOfOp::create(b_, loc(e.loc), x.getType(), x, *e.args[1]->constant);
}

Value Emitter::emitDot(const Expr &e) {
  Location l = loc(e.loc);
  Value acc;
  if (e.args.size() == 3) {
    acc = emitExpr(*e.args[2]);
  } else {
    auto t = cast<RankedTensorType>(typeOf(e.type));
    acc = arith::ConstantOp::create(
        b_, l, DenseElementsAttr::get(t, b_.getFloatAttr(t.getElementType(), 0.0)));
  }
  // f8 operands multiply as the f16 values they are (every f8 value is one).
  auto operand = [&](size_t i) {
    DType t = e.args[i]->type.dtype;
    Value x = emitExpr(*e.args[i]);
    return isF8(t) ? emitConvert(x, t, DType::F16, l) : x;
  };
  Value a = operand(0), b = operand(1);
  return tile::DotOp::create(b_, l, typeOf(e.type), a, b, acc);
}

Value Emitter::emitShapeChange(const Expr &e) {
  Location l = loc(e.loc);
  Value x = emitExpr(*e.args[0]);
  if (e.name == "reshape")
    return tile::ReshapeOp::create(b_, l, typeOf(e.type), x);
  SmallVector<int64_t> dims;
  for (const ExprPtr &d : e.args[1]->args)
    dims.push_back(*d->constant);
  if (llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())))
    return x;
  if (dims.size() == 2) // the transpose the layouts already know
    return tile::TransposeOp::create(b_, l, typeOf(e.type), x);
  return tile::PermuteOp::create(b_, l, typeOf(e.type), x, b_.getDenseI64ArrayAttr(dims));
}

/// sum/max/min of a tile along an axis, and the scans cumsum/cummax/cummin.
Value Emitter::emitReduction(const Expr &e) {
  Location l = loc(e.loc);
  StringRef fn = e.name;
  bool scan = fn.starts_with("cum");
  auto kind = fn.ends_with("sum")   ? tile::ReduceKind::sum
              : fn.ends_with("max") ? tile::ReduceKind::max
                                    : tile::ReduceKind::min;
  int64_t axis = axisArg(e, 1);
  auto build = [&](Value x) -> Value {
    if (scan)
      return tile::ScanOp::create(b_, l, x.getType(), kind, x, axis);
    return tile::ReduceOp::create(b_, l, typeOf(e.type), kind, x, axis);
  };
  Value x = emitExpr(*e.args[0]);
  if (kind == tile::ReduceKind::sum)
    return build(x);
  return emitOrdered(x, e.type.dtype, l, build);
}

/// max/min of one tile reduce it; of two values, and maximum/minimum, they
/// are element-wise.
Value Emitter::emitMinMax(const Expr &e) {
  StringRef fn = e.name;
  if ((fn == "max" || fn == "min") && e.args[0]->type.isTile())
    return emitReduction(e);
  Location l = loc(e.loc);
  SmallVector<Value, 3> v = broadcastArgs(e);
  Value a = v[0], b = v[1];
  bool isMax = fn.starts_with("max");
  if (isFloat(e.type.dtype))
    return isMax ? (Value)arith::MaximumFOp::create(b_, l, a, b)
                 : arith::MinimumFOp::create(b_, l, a, b);
  if (isUnsigned(e.type.dtype))
    return isMax ? (Value)arith::MaxUIOp::create(b_, l, a, b) : arith::MinUIOp::create(b_, l, a, b);
  return isMax ? (Value)arith::MaxSIOp::create(b_, l, a, b) : arith::MinSIOp::create(b_, l, a, b);
}

Value Emitter::emitFma(const Expr &e) {
  SmallVector<Value, 3> v = broadcastArgs(e);
  return math::FmaOp::create(b_, loc(e.loc), v[0], v[1], v[2]);
}

Value Emitter::emitArgReduction(const Expr &e) {
  // The index of the extreme of flipped unsigned values is the index sought.
  Value x = emitExpr(*e.args[0]);
  if (isUnsigned(e.args[0]->type.dtype))
    x = flipSign(x, loc(e.loc));
  return emitArgReduce(e, x, axisArg(e, 1));
}

Value Emitter::emitScalarHelper(const Expr &e) {
  Location l = loc(e.loc);
  Value x = emitExpr(*e.args[0]);
  if (e.name == "cdiv")
    return arith::CeilDivSIOp::create(b_, l, x, emitExpr(*e.args[1]));
  // next_pow2(x) = x <= 1 ? 1 : 1 << (bits - ctlz(x - 1))
  unsigned bits = x.getType().getIntOrFloatBitWidth();
  Value one = scalarConst(e.type.dtype, 1, l);
  Value width = scalarConst(e.type.dtype, bits, l);
  Value lz = math::CountLeadingZerosOp::create(b_, l, arith::SubIOp::create(b_, l, x, one));
  Value p = arith::ShLIOp::create(b_, l, one, arith::SubIOp::create(b_, l, width, lz));
  Value small = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::sle, x, one);
  return arith::SelectOp::create(b_, l, small, one, p);
}

Value Emitter::emitUnaryMath(const Expr &e) {
  Location l = loc(e.loc);
  Value x = emitExpr(*e.args[0]);
  if (MathBuild build = mathOps().lookup(e.name))
    return build(b_, l, x);
  if (e.name == "abs")
    return isFloat(e.type.dtype)      ? (Value)math::AbsFOp::create(b_, l, x)
           : isUnsigned(e.type.dtype) ? x
                                      : math::AbsIOp::create(b_, l, x);
  // sigmoid(x) = 1 / (1 + exp(-x))
  Value one = broadcastTo(scalarConst(e.type.dtype, 1.0, l), e.type.shape, l);
  Value ex = math::ExpOp::create(b_, l, arith::NegFOp::create(b_, l, x));
  return arith::DivFOp::create(b_, l, one, arith::AddFOp::create(b_, l, one, ex));
}

Value Emitter::emitWhere(const Expr &e) {
  SmallVector<Value, 3> v = broadcastArgs(e);
  return arith::SelectOp::create(b_, loc(e.loc), v[0], v[1], v[2]);
}

Value Emitter::emitAssert(const Expr &e) {
  // The program ids to report come with debugging (pipeline::enableAsserts).
  tile::AssertOp::create(b_, loc(e.loc), b_.getStringAttr(e.args[1]->name), emitExpr(*e.args[0]),
                         ValueRange{});
  return nullptr;
}

Value Emitter::emitPrint(const Expr &e) {
  const Expr &x = *e.args[0];
  Location l = loc(e.loc);
  std::string text = file_.text().substr(x.beginOffset, x.endOffset - x.beginOffset).str();
  // Printed as the numbers they are: small and unsigned integers widened.
  DType t = x.type.dtype;
  DType shown = t == DType::I8 || t == DType::U8 ? DType::I32
                : t == DType::U32                ? DType::I64
                : isF8(t)                        ? DType::F32
                                                 : t;
  tile::PrintOp::create(b_, l, b_.getStringAttr(text + " = "),
                        emitConvert(emitExpr(x), t, shown, l));
  return nullptr;
}

/// atomic_*(t[i...], (cmp,) v, mask = m) and atomic_*(t, [c...], (cmp,) v).
Value Emitter::emitAtomic(const Expr &e) {
  Location l = loc(e.loc);
  ArrayRef<int64_t> shape = e.type.shape;
  bool element = e.args[0]->kind == ExprKind::Index;
  Value tensor;
  SmallVector<Value> indices;
  if (element) {
    const Expr &sub = *e.args[0];
    tensor = values_.lookup(sub.args[0]->symbol);
    indices = elementIndices(sub, shape);
  } else {
    tensor = values_.lookup(e.args[0]->symbol);
    indices = blockIndices(emitEach(*e.args[1]), shape, l);
  }
  size_t first = element ? 1 : 2;
  SmallVector<Value> vals;
  for (size_t i = first; i < e.args.size(); ++i)
    vals.push_back(broadcastTo(emitExpr(*e.args[i]), shape, loc(e.args[i]->start())));
  Value mask;
  for (const KwArg &kw : e.kwargs)
    mask = broadcastTo(emitExpr(*kw.value), shape, loc(kw.value->start()));
  Type type = typeOf(e.type);
  if (e.name == "atomic_cas")
    return tile::AtomicCASOp::create(b_, l, type, tensor, indices, vals[0], vals[1], mask);
  auto kind = llvm::StringSwitch<tile::AtomicKind>(e.name)
                  .Case("atomic_add", tile::AtomicKind::add)
                  .Case("atomic_max", tile::AtomicKind::max)
                  .Case("atomic_min", tile::AtomicKind::min)
                  .Default(tile::AtomicKind::xchg);
  return tile::AtomicRMWOp::create(b_, l, type, kind, tensor, indices, vals[0], mask);
}

/// argmax/argmin as reductions the rest of the compiler already has: the
/// extreme value along `axis`, then the smallest index holding it (the first,
/// on ties); for floats, a NaN counts as the extreme (the first NaN wins, as in
/// NumPy), whatever the extreme of the others.
Value Emitter::emitArgReduce(const Expr &e, Value x, int64_t axis) {
  Location l = loc(e.loc);
  auto t = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = t.getShape();
  int64_t n = shape[axis];
  Type i32 = b_.getI32Type();
  SmallVector<int64_t> reduced(shape);
  reduced.erase(reduced.begin() + axis);
  auto reducedType = [&](Type elt) -> Type {
    return reduced.empty() ? elt : (Type)RankedTensorType::get(reduced, elt);
  };
  // A reduced value back at the full shape.
  auto spread = [&](Value v) {
    if (!reduced.empty()) {
      SmallVector<int64_t> kept(shape);
      kept[axis] = 1;
      Type elt = cast<RankedTensorType>(v.getType()).getElementType();
      v = tile::ExpandDimsOp::create(b_, l, RankedTensorType::get(kept, elt), v, axis);
    }
    return broadcastTo(v, shape, l);
  };
  bool isMax = e.name == "argmax";
  Type elt = t.getElementType();
  auto kind = isMax ? tile::ReduceKind::max : tile::ReduceKind::min;
  Value extreme = spread(tile::ReduceOp::create(b_, l, reducedType(elt), kind, x, axis));
  Value hit;
  if (isa<FloatType>(elt)) {
    Value eq = arith::CmpFOp::create(b_, l, arith::CmpFPredicate::OEQ, x, extreme);
    Value nan = arith::CmpFOp::create(b_, l, arith::CmpFPredicate::UNO, x, x);
    auto i32Tile = RankedTensorType::get(shape, i32);
    Value nanCount = arith::ExtUIOp::create(b_, l, i32Tile, nan);
    Value anyNan = spread(
        tile::ReduceOp::create(b_, l, reducedType(i32), tile::ReduceKind::max, nanCount, axis));
    Value zero = broadcastTo(arith::ConstantOp::create(b_, l, b_.getI32IntegerAttr(0)), shape, l);
    Value some = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::ne, anyNan, zero);
    hit = arith::SelectOp::create(b_, l, some, nan, eq);
  } else {
    hit = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::eq, x, extreme);
  }
  // The index along `axis`, at the full shape.
  Value idx =
      alongAxis(tile::ArangeOp::create(b_, l, RankedTensorType::get({n}, i32)), shape, axis, l);
  Value none = broadcastTo(arith::ConstantOp::create(b_, l, b_.getI32IntegerAttr(n)), shape, l);
  Value cand = arith::SelectOp::create(b_, l, hit, idx, none);
  return tile::ReduceOp::create(b_, l, reducedType(i32), tile::ReduceKind::min, cand, axis);
}

/// scan(x, axis, (a, b) => body): the body becomes the combiner region, its
/// parameters the region's arguments.
Value Emitter::emitScan(const Expr &e) {
  Location l = loc(e.loc);
  Value x = emitExpr(*e.args[0]);
  int64_t axis = axisArg(e, 1);
  const Expr &f = *e.args[2];
  auto scan = tile::AssociativeScanOp::create(b_, l, x.getType(), x, axis);
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  OpBuilder::InsertionGuard guard(b_);
  Block *body = b_.createBlock(&scan.getCombiner(), {}, {elt, elt},
                               {loc(f.params[0].loc), loc(f.params[1].loc)});
  for (auto [p, arg] : llvm::zip(f.params, body->getArguments()))
    values_[p.symbol] = arg;
  tile::CombinerYieldOp::create(b_, loc(f.loc), emitExpr(*f.args[0]));
  return scan;
}
