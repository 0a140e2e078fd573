//===- IRGenExpr.cpp - expressions to tile IR -------------------*- C++ -*-===//
//
// Lowers typed expressions: constants from Sema's folded values, element-wise
// operators as arith/math ops on broadcast operands, and built-ins as tile ops.
//
//===----------------------------------------------------------------------===//
#include "lib/IRGen/IRGenImpl.h"

#include "llvm/ADT/StringSwitch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::irgen;

Type Emitter::typeOf(const ValueType &t) {
  Type elt = toMLIRType(t.dtype, ctx_);
  if (t.shape.empty())
    return elt;
  return RankedTensorType::get(t.shape, elt);
}

Value Emitter::scalarConst(DType t, double v, Location l) {
  Type type = toMLIRType(t, ctx_);
  if (isFloat(t))
    return arith::ConstantOp::create(b_, l, b_.getFloatAttr(type, v));
  return arith::ConstantOp::create(b_, l, intAttr(type, (int64_t)v));
}

Value Emitter::broadcastTo(Value v, ArrayRef<int64_t> shape, Location l) {
  if (!v || shape.empty())
    return v;
  if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
    if (t.getShape() == shape)
      return v;
    return tile::BroadcastOp::create(b_, l, RankedTensorType::get(shape, t.getElementType()), v);
  }
  return tile::SplatOp::create(b_, l, RankedTensorType::get(shape, v.getType()), v);
}

Value Emitter::alongAxis(Value line, ArrayRef<int64_t> shape, int64_t axis, Location l) {
  Type elt = cast<RankedTensorType>(line.getType()).getElementType();
  SmallVector<int64_t> cur = {shape[axis]};
  for (int64_t a = 0; a < (int64_t)shape.size(); ++a) {
    if (a == axis)
      continue;
    cur.insert(cur.begin() + a, 1);
    line = tile::ExpandDimsOp::create(b_, l, RankedTensorType::get(cur, elt), line, a);
  }
  return broadcastTo(line, shape, l);
}

Value Emitter::emitConstant(const Expr &e) {
  Location l = loc(e.loc);
  Type type = toMLIRType(e.type.dtype, ctx_);
  if (e.fconstant && isFloat(e.type.dtype))
    return arith::ConstantOp::create(b_, l, b_.getFloatAttr(type, *e.fconstant));
  if (e.constant && isFloat(e.type.dtype))
    return arith::ConstantOp::create(b_, l, b_.getFloatAttr(type, (double)*e.constant));
  if (e.constant)
    return arith::ConstantOp::create(b_, l, intAttr(type, *e.constant));
  return nullptr;
}

Value Emitter::emitExpr(const Expr &e) {
  // Sema folded every compile-time scalar (literals, tune and where values, ...).
  if (e.type.isScalar() && (e.constant || (e.fconstant && isFloat(e.type.dtype))))
    if (Value c = emitConstant(e))
      return c;
  Location l = loc(e.loc);
  switch (e.kind) {
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::Bool:
    return emitConstant(e);
  case ExprKind::Str: // only assert()'s message, which is an attribute
    return nullptr;
  case ExprKind::Name:
    return emitName(e);
  case ExprKind::Unary:
    return emitUnary(e);
  case ExprKind::Binary:
    return emitBinary(e);
  case ExprKind::Call:
    return emitCall(e);
  case ExprKind::Index:
    return emitIndex(e);
  case ExprKind::Attr:
    return tile::TransposeOp::create(b_, l, typeOf(e.type), emitExpr(*e.args[0]));
  case ExprKind::Method:
    return emitConvert(emitExpr(*e.args[0]), e.args[0]->type.dtype, e.type.dtype, l);
  case ExprKind::List:
  case ExprKind::Lambda: // only scan()'s combiner, emitted as its region
    return nullptr;
  }
  return nullptr;
}

Value Emitter::emitName(const Expr &e) {
  Value v = values_.lookup(e.symbol);
  // A literal `let` used where another dtype was adopted was folded above; a
  // value of a different type here is a dim or scalar used in its own type.
  return v;
}

Value Emitter::emitUnary(const Expr &e) {
  Location l = loc(e.loc);
  Value x = emitExpr(*e.args[0]);
  ArrayRef<int64_t> shape = e.type.shape;
  if (e.unOp == UnOp::Not)
    return arith::XOrIOp::create(b_, l, x, broadcastTo(scalarConst(DType::Bool, 1, l), shape, l));
  if (isFloat(e.type.dtype))
    return arith::NegFOp::create(b_, l, x);
  return arith::SubIOp::create(b_, l, broadcastTo(scalarConst(e.type.dtype, 0, l), shape, l), x);
}

Value Emitter::emitBinary(const Expr &e) {
  Location l = loc(e.loc);
  const Expr &ea = *e.args[0], &eb = *e.args[1];
  Value a = broadcastTo(emitExpr(ea), e.type.shape, l);
  Value b = broadcastTo(emitExpr(eb), e.type.shape, l);
  DType t = ea.type.dtype; // both operands share it after Sema
  bool f = isFloat(t), u = isUnsigned(t);
  switch (e.binOp) {
  case BinOp::Add:
    return f ? (Value)arith::AddFOp::create(b_, l, a, b) : arith::AddIOp::create(b_, l, a, b);
  case BinOp::Sub:
    return f ? (Value)arith::SubFOp::create(b_, l, a, b) : arith::SubIOp::create(b_, l, a, b);
  case BinOp::Mul:
    return f ? (Value)arith::MulFOp::create(b_, l, a, b) : arith::MulIOp::create(b_, l, a, b);
  case BinOp::Div:
    return f   ? (Value)arith::DivFOp::create(b_, l, a, b)
           : u ? (Value)arith::DivUIOp::create(b_, l, a, b)
               : arith::DivSIOp::create(b_, l, a, b);
  case BinOp::Mod:
    return f   ? (Value)arith::RemFOp::create(b_, l, a, b)
           : u ? (Value)arith::RemUIOp::create(b_, l, a, b)
               : arith::RemSIOp::create(b_, l, a, b);
  case BinOp::And:
    return arith::AndIOp::create(b_, l, a, b);
  case BinOp::Or:
    return arith::OrIOp::create(b_, l, a, b);
  default:
    break;
  }
  if (f) {
    arith::CmpFPredicate p;
    switch (e.binOp) {
    case BinOp::Lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case BinOp::Le:
      p = arith::CmpFPredicate::OLE;
      break;
    case BinOp::Gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case BinOp::Ge:
      p = arith::CmpFPredicate::OGE;
      break;
    case BinOp::Eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    default:
      p = arith::CmpFPredicate::UNE;
      break;
    }
    return arith::CmpFOp::create(b_, l, p, a, b);
  }
  arith::CmpIPredicate p;
  switch (e.binOp) {
  case BinOp::Lt:
    p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case BinOp::Le:
    p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case BinOp::Gt:
    p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case BinOp::Ge:
    p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  case BinOp::Eq:
    p = arith::CmpIPredicate::eq;
    break;
  default:
    p = arith::CmpIPredicate::ne;
    break;
  }
  return arith::CmpIOp::create(b_, l, p, a, b);
}

Value Emitter::emitIndex(const Expr &e) {
  Value v = emitExpr(*e.args[0]);
  Location l = loc(e.loc);
  for (size_t i = 0; i < e.index.size(); ++i) {
    if (e.index[i].kind != IndexItem::None)
      continue;
    SmallVector<int64_t> shape;
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      shape.assign(t.getShape().begin(), t.getShape().end());
    shape.insert(shape.begin() + i, 1);
    Type elt = getElementTypeOrSelf(v.getType());
    v = tile::ExpandDimsOp::create(b_, l, RankedTensorType::get(shape, elt), v, (int64_t)i);
  }
  return v;
}

/// `load(t[i...], mask = m, pad = v)` and `store(t[i...], x, mask = m)`: the
/// indices, mask and value broadcast to the access shape Sema recorded on the
/// subscript.
Value Emitter::emitElementAccess(const Expr &e) {
  Location l = loc(e.loc);
  const Expr &sub = *e.args[0];
  ArrayRef<int64_t> shape = sub.type.shape;
  Value tensor = values_.lookup(sub.args[0]->symbol);
  SmallVector<Value> indices;
  for (const IndexItem &item : sub.index)
    indices.push_back(broadcastTo(emitExpr(*item.expr), shape, loc(item.expr->start())));
  Value mask, pad;
  for (const KwArg &kw : e.kwargs) {
    Value v = emitExpr(*kw.value);
    if (kw.name == "mask")
      mask = broadcastTo(v, shape, loc(kw.value->start()));
    else
      pad = v;
  }
  if (e.name == "load")
    return tile::GatherOp::create(b_, l, typeOf(e.type), tensor, indices, mask, pad);
  Value v = broadcastTo(emitExpr(*e.args[1]), shape, loc(e.args[1]->start()));
  tile::ScatterOp::create(b_, l, tensor, indices, v, mask);
  return nullptr;
}

/// The element indices of the block-form access `t, [c...]` of `shape`: the
/// leading coordinates as they are, block coordinate c_j as
/// c_j * s_j + arange(s_j) along axis j; each broadcast to `shape`.
SmallVector<Value> Emitter::blockIndices(ValueRange coords, ArrayRef<int64_t> shape, Location l) {
  size_t r = coords.size(), k = shape.size();
  SmallVector<Value> out;
  for (size_t d = 0; d + k < r; ++d)
    out.push_back(broadcastTo(coords[d], shape, l));
  Type i32 = b_.getI32Type();
  for (size_t j = 0; j < k; ++j) {
    // In the coordinate's type: i64 coordinates (64-bit size class) give i64 indices.
    Value c = coords[r - k + j];
    Type t = c.getType();
    Value origin = arith::MulIOp::create(
        b_, l, c, arith::ConstantOp::create(b_, l, b_.getIntegerAttr(t, shape[j])));
    Value line = tile::ArangeOp::create(b_, l, RankedTensorType::get({shape[j]}, i32));
    if (t != i32)
      line = arith::ExtSIOp::create(b_, l, RankedTensorType::get({shape[j]}, t), line);
    Value v = arith::AddIOp::create(b_, l, broadcastTo(origin, {shape[j]}, l), line);
    out.push_back(alongAxis(v, shape, j, l));
  }
  return out;
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
    for (const IndexItem &item : sub.index)
      indices.push_back(broadcastTo(emitExpr(*item.expr), shape, loc(item.expr->start())));
  } else {
    tensor = values_.lookup(e.args[0]->symbol);
    SmallVector<Value> coords;
    for (const ExprPtr &c : e.args[1]->args)
      coords.push_back(emitExpr(*c));
    indices = blockIndices(coords, shape, l);
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

Value Emitter::emitMath(const Expr &e, StringRef fn, Value x) {
  Location l = loc(e.loc);
  if (fn == "exp")
    return math::ExpOp::create(b_, l, x);
  if (fn == "exp2")
    return math::Exp2Op::create(b_, l, x);
  if (fn == "log")
    return math::LogOp::create(b_, l, x);
  if (fn == "log2")
    return math::Log2Op::create(b_, l, x);
  if (fn == "sqrt")
    return math::SqrtOp::create(b_, l, x);
  if (fn == "rsqrt")
    return math::RsqrtOp::create(b_, l, x);
  if (fn == "tanh")
    return math::TanhOp::create(b_, l, x);
  if (fn == "abs")
    return isFloat(e.type.dtype)      ? (Value)math::AbsFOp::create(b_, l, x)
           : isUnsigned(e.type.dtype) ? x
                                      : math::AbsIOp::create(b_, l, x);
  // sigmoid(x) = 1 / (1 + exp(-x))
  Value one = broadcastTo(scalarConst(e.type.dtype, 1.0, l), e.type.shape, l);
  Value ex = math::ExpOp::create(b_, l, arith::NegFOp::create(b_, l, x));
  return arith::DivFOp::create(b_, l, one, arith::AddFOp::create(b_, l, one, ex));
}

static bool isUnaryMath(StringRef fn) {
  return fn == "exp" || fn == "exp2" || fn == "log" || fn == "log2" || fn == "sqrt" ||
         fn == "rsqrt" || fn == "tanh" || fn == "sigmoid" || fn == "abs";
}

Value Emitter::emitCall(const Expr &e) {
  Location l = loc(e.loc);
  StringRef fn = e.name;
  auto arg = [&](size_t i) { return emitExpr(*e.args[i]); };
  auto coords = [&](const Expr &list) {
    SmallVector<Value> cs;
    for (const ExprPtr &c : list.args)
      cs.push_back(emitExpr(*c));
    return cs;
  };
  // In the 64-bit size class these are i64: the i32 op, sign-extended.
  auto widen = [&](Value v) -> Value {
    Type t = typeOf(e.type);
    return v.getType() == t ? v : arith::ExtSIOp::create(b_, l, t, v).getResult();
  };
  if (fn == "program_id")
    return widen(tile::ProgramIdOp::create(b_, l, b_.getI32Type(), (int32_t)*e.args[0]->constant));
  if (fn == "num_programs")
    return widen(
        tile::NumProgramsOp::create(b_, l, b_.getI32Type(), (int32_t)*e.args[0]->constant));
  if (fn == "arange")
    return widen(
        tile::ArangeOp::create(b_, l, RankedTensorType::get(e.type.shape, b_.getI32Type())));
  if (fn == "zeros") {
    auto t = cast<RankedTensorType>(typeOf(e.type));
    Attribute zero = isFloat(e.type.dtype) ? (Attribute)b_.getFloatAttr(t.getElementType(), 0.0)
                                           : b_.getIntegerAttr(t.getElementType(), 0);
    return arith::ConstantOp::create(b_, l, DenseElementsAttr::get(t, zero));
  }
  if (fn == "full")
    return broadcastTo(arg(1), e.type.shape, l);
  if ((fn == "load" || fn == "store") && e.args[0]->kind == ExprKind::Index)
    return emitElementAccess(e);
  if (fn.starts_with("atomic_"))
    return emitAtomic(e);
  if (fn == "reshape")
    return tile::ReshapeOp::create(b_, l, typeOf(e.type), arg(0));
  if (fn == "permute") {
    SmallVector<int64_t> dims;
    for (const ExprPtr &d : e.args[1]->args)
      dims.push_back(*d->constant);
    Value x = arg(0);
    if (llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())))
      return x;
    if (dims.size() == 2) // the transpose the layouts already know
      return tile::TransposeOp::create(b_, l, typeOf(e.type), x);
    return tile::PermuteOp::create(b_, l, typeOf(e.type), x, b_.getDenseI64ArrayAttr(dims));
  }
  if (fn == "multiple_of") {
    Value x = arg(0);
    return tile::MultipleOfOp::create(b_, l, x.getType(), x, *e.args[1]->constant);
  }
  if (fn == "load") {
    Value tensor = values_.lookup(e.args[0]->symbol);
    Value pad = e.kwargs.empty() ? Value() : emitExpr(*e.kwargs[0].value);
    return tile::LoadOp::create(b_, l, typeOf(e.type), tensor, coords(*e.args[1]), pad,
                                /*extents=*/nullptr);
  }
  if (fn == "store") {
    Value tensor = values_.lookup(e.args[0]->symbol);
    tile::StoreOp::create(b_, l, tensor, coords(*e.args[1]), arg(2), /*extents=*/nullptr);
    return nullptr;
  }
  if (fn == "dot") {
    Value acc;
    if (e.args.size() == 3) {
      acc = arg(2);
    } else {
      auto t = cast<RankedTensorType>(typeOf(e.type));
      acc = arith::ConstantOp::create(
          b_, l, DenseElementsAttr::get(t, b_.getFloatAttr(t.getElementType(), 0.0)));
    }
    // f8 operands multiply as the f16 values they are (every f8 value is one).
    auto operand = [&](size_t i) {
      DType t = e.args[i]->type.dtype;
      return isF8(t) ? emitConvert(arg(i), t, DType::F16, l) : arg(i);
    };
    return tile::DotOp::create(b_, l, typeOf(e.type), operand(0), operand(1), acc);
  }
  if (fn == "argmax" || fn == "argmin") {
    int64_t rank = e.args[0]->type.shape.size();
    int64_t axis = e.args.size() == 2 ? *e.args[1]->constant : 0;
    // The index of the extreme of flipped unsigned values is the index sought.
    Value x = arg(0);
    if (isUnsigned(e.args[0]->type.dtype))
      x = flipSign(x, l);
    return emitArgReduce(e, x, axis < 0 ? axis + rank : axis);
  }
  if (fn == "scan")
    return emitScan(e);
  bool scan = fn == "cumsum" || fn == "cummax" || fn == "cummin";
  bool reduction = (fn == "sum" || fn == "max" || fn == "min") && e.args[0]->type.isTile();
  if (reduction || scan) {
    auto kind = fn.ends_with("sum")   ? tile::ReduceKind::sum
                : fn.ends_with("max") ? tile::ReduceKind::max
                                      : tile::ReduceKind::min;
    int64_t rank = e.args[0]->type.shape.size();
    int64_t axis = e.args.size() == 2 ? *e.args[1]->constant : 0;
    if (axis < 0)
      axis += rank;
    auto build = [&](Value x) -> Value {
      if (scan)
        return tile::ScanOp::create(b_, l, x.getType(), kind, x, axis);
      return tile::ReduceOp::create(b_, l, typeOf(e.type), kind, x, axis);
    };
    if (kind == tile::ReduceKind::sum)
      return build(arg(0));
    return emitOrdered(arg(0), e.type.dtype, l, build);
  }
  bool f = isFloat(e.type.dtype);
  if (fn == "max" || fn == "min" || fn == "maximum" || fn == "minimum") {
    Value a = broadcastTo(arg(0), e.type.shape, l), b = broadcastTo(arg(1), e.type.shape, l);
    bool isMax = fn == "max" || fn == "maximum";
    if (f)
      return isMax ? (Value)arith::MaximumFOp::create(b_, l, a, b)
                   : arith::MinimumFOp::create(b_, l, a, b);
    if (isUnsigned(e.type.dtype))
      return isMax ? (Value)arith::MaxUIOp::create(b_, l, a, b)
                   : arith::MinUIOp::create(b_, l, a, b);
    return isMax ? (Value)arith::MaxSIOp::create(b_, l, a, b) : arith::MinSIOp::create(b_, l, a, b);
  }
  if (fn == "cdiv")
    return arith::CeilDivSIOp::create(b_, l, arg(0), arg(1));
  if (fn == "next_pow2") {
    // x <= 1 ? 1 : 1 << (bits - ctlz(x - 1))
    Value x = arg(0);
    unsigned bits = x.getType().getIntOrFloatBitWidth();
    Value one = scalarConst(e.type.dtype, 1, l);
    Value width = scalarConst(e.type.dtype, bits, l);
    Value lz = math::CountLeadingZerosOp::create(b_, l, arith::SubIOp::create(b_, l, x, one));
    Value p = arith::ShLIOp::create(b_, l, one, arith::SubIOp::create(b_, l, width, lz));
    Value small = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::sle, x, one);
    return arith::SelectOp::create(b_, l, small, one, p);
  }
  if (isUnaryMath(fn))
    return emitMath(e, fn, arg(0));
  if (fn == "where") {
    Value c = broadcastTo(arg(0), e.type.shape, l);
    Value a = broadcastTo(arg(1), e.type.shape, l), b = broadcastTo(arg(2), e.type.shape, l);
    return arith::SelectOp::create(b_, l, c, a, b);
  }
  if (fn == "assert") {
    // The program ids to report come with debugging (pipeline::enableAsserts).
    tile::AssertOp::create(b_, l, b_.getStringAttr(e.args[1]->name), arg(0), ValueRange{});
    return nullptr;
  }
  if (fn == "print") {
    const Expr &x = *e.args[0];
    std::string text = file_.text().substr(x.beginOffset, x.endOffset - x.beginOffset).str();
    // Printed as the numbers they are: small and unsigned integers widened.
    DType t = x.type.dtype;
    DType shown = t == DType::I8 || t == DType::U8 ? DType::I32
                  : t == DType::U32                ? DType::I64
                  : isF8(t)                        ? DType::F32
                                                   : t;
    tile::PrintOp::create(b_, l, b_.getStringAttr(text + " = "), emitConvert(arg(0), t, shown, l));
    return nullptr;
  }
  return nullptr;
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
  int64_t rank = e.args[0]->type.shape.size();
  int64_t axis = *e.args[1]->constant < 0 ? *e.args[1]->constant + rank : *e.args[1]->constant;
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
