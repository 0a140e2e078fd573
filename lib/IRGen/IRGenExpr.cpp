//===- IRGenExpr.cpp - expressions to tile IR -------------------*- C++ -*-===//
//
// Lowers typed expressions: constants from Sema's folded values, element-wise
// operators as arith ops on broadcast operands, subscripts, and the element
// accesses of load/store. Built-in calls are IRGenBuiltins.cpp's.
//
//===----------------------------------------------------------------------===//
#include "lib/IRGen/IRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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
  SmallVector<Value> indices = elementIndices(sub, shape);
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

/// The indices of the subscript `t[i...]`, each broadcast to `shape`.
SmallVector<Value> Emitter::elementIndices(const Expr &sub, ArrayRef<int64_t> shape) {
  SmallVector<Value> out;
  for (const IndexItem &item : sub.index)
    out.push_back(broadcastTo(emitExpr(*item.expr), shape, loc(item.expr->start())));
  return out;
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
