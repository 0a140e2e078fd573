//===- SemaExpr.cpp - typing of expressions ---------------------*- C++ -*-===//
//
// Names, operators, indexing, `.T` and `.to`: dtype and shape inference with the
// literal-adoption rule (a literal takes the other operand's element type).
// Coercions, unification, NumPy broadcasting and the folding of compile-time
// integer and literal values are in SemaTypes.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"
#include "lib/Target/TargetInfo.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tessera;
using namespace tessera::sema;

std::string sema::shapeStr(llvm::ArrayRef<int64_t> s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

bool sema::fits(DType t, int64_t v) {
  return isFloat(t) || t == DType::I64 || dtypeHolds(t, (double)v);
}

int64_t sema::wrapTo(DType t, int64_t v) {
  switch (t) {
  case DType::Bool:
    return v != 0;
  case DType::I32:
    return (int32_t)v;
  case DType::U32:
    return (uint32_t)v;
  case DType::I8:
    return (int8_t)v;
  case DType::U8:
    return (uint8_t)v;
  default:
    return v;
  }
}

void Checker::check(Expr &e) {
  checkKind(e);
  if (!e.type.isTile())
    return;
  int64_t n = 1;
  for (int64_t d : e.type.shape)
    if (__builtin_mul_overflow(n, d, &n))
      n = INT64_MAX;
  if (n > kMaxTileElements) {
    error(e.loc, "this tile has " + std::to_string(n) + " elements; a tile may hold at most " +
                     std::to_string(kMaxTileElements));
    e.type = ValueType();
    return;
  }
  // Code generation pads extents to powers of two (tile-pad-extents).
  int64_t padded = 1;
  for (int64_t d : e.type.shape)
    padded *= (int64_t)llvm::PowerOf2Ceil(d);
  int64_t threads = target::TargetInfo::kWarpSize * std::max<int64_t>(info_->numWarps, 1);
  int64_t regs = (padded + threads - 1) / threads * (dtypeBytes(e.type.dtype) > 4 ? 2 : 1);
  if (regs > kMaxTileRegisters) {
    error(e.loc, "this tile of " + std::to_string(n) + " elements needs about " +
                     std::to_string(regs) +
                     " registers per thread with num_warps=" + std::to_string(info_->numWarps) +
                     "; a thread holds at most 255, and past " + std::to_string(kMaxTileRegisters) +
                     " the compiler refuses: use a smaller tile or more warps");
    e.type = ValueType();
  }
}

void Checker::checkKind(Expr &e) {
  e.type = ValueType();
  e.constant.reset();
  e.fconstant.reset();
  e.dimDeps.clear();
  e.symbol = nullptr;
  switch (e.kind) {
  case ExprKind::Int:
    e.type = ValueType::scalar(e.intValue > INT32_MAX ? DType::I64 : DType::I32, true);
    e.constant = e.intValue;
    return;
  case ExprKind::Float:
    if (std::isfinite(e.floatValue) && std::fabs(e.floatValue) > 3.4028234663852886e38) {
      error(e.loc, "the float literal is out of range for f32");
      return;
    }
    if (e.floatValue != 0 && std::fabs(e.floatValue) < 1.401298464324817e-45) {
      error(e.loc, "the float literal underflows f32 (it would be 0)");
      return;
    }
    e.type = ValueType::scalar(DType::F32, true);
    e.fconstant = e.floatValue;
    return;
  case ExprKind::Bool:
    e.type = ValueType::scalar(DType::Bool, true);
    e.constant = e.boolValue;
    return;
  case ExprKind::Str:
    error(e.loc, "a string literal is only allowed as the message of assert(cond, \"message\")");
    return;
  case ExprKind::Name:
    return checkName(e);
  case ExprKind::Unary:
    return checkUnary(e);
  case ExprKind::Binary:
    return checkBinary(e);
  case ExprKind::Call:
    return checkCall(e);
  case ExprKind::Index:
    return checkIndex(e);
  case ExprKind::Attr:
    return checkAttr(e);
  case ExprKind::Method:
    return checkMethod(e);
  case ExprKind::List:
    error(e.loc, "a list is only allowed as the shape or coordinates argument of a built-in");
    return;
  case ExprKind::Lambda:
    error(e.start(), "a function literal is only allowed as the combiner of "
                     "scan(x, axis, (a, b) => ...)");
    return;
  }
}

void Checker::checkName(Expr &e) {
  const Symbol *s = lookup(e.name);
  if (!s) {
    if (isBuiltinFunction(e.name))
      error(e.loc, "'" + e.name + "' is a built-in function; call it as " + e.name + "(...)");
    else if (parseDType(e.name))
      error(e.loc, "'" + e.name + "' is an element type, not a value");
    else
      error(e.loc, "use of undeclared name '" + e.name + "'");
    return;
  }
  e.symbol = s;
  switch (s->kind) {
  case Symbol::TensorParam:
    error(e.loc, "tensor '" + e.name + "' is not a value; read a tile from it with load(" + e.name +
                     ", ...)");
    return;
  case Symbol::ScalarParam:
    if (mode_ == Mode::Where) {
      if (!s->hostValue) {
        error(e.loc, "float scalar '" + e.name + "' cannot be used in a 'where' clause");
        return;
      }
      // The host computes the clause at launch from the scalar's value; a
      // compilation without it cannot (a default of 0 divided by zero). A
      // bool takes false, with a note, as a dim takes its default.
      bool given = spec_.dims.count(e.name) || spec_.scalars.count(e.name);
      if (!given && s->type.dtype == DType::Bool) {
        defaulted_.push_back(s);
      } else if (!given) {
        error(e.loc, "scalar '" + e.name +
                         "' is used in a 'where' clause, so compiling needs its value: --scalar " +
                         e.name + "=V");
        return;
      }
      e.constant = s->hostValue;
    }
    break;
  case Symbol::Dim:
    if (mode_ == Mode::Where) {
      e.constant = s->hostValue;
      if (!spec_.dims.count(e.name))
        defaulted_.push_back(s);
    } else if (s->constant) {
      e.constant = s->constant;
      if (!spec_.dims.count(e.name))
        defaulted_.push_back(s);
    } else {
      e.dimDeps.push_back(e.name);
    }
    break;
  case Symbol::Let:
    e.constant = s->constant;
    e.fconstant = s->fconstant;
    e.dimDeps = s->dimDeps;
    break;
  default:
    e.constant = s->constant;
    break;
  }
  e.type = s->type;
  // A where value that failed to evaluate was reported at its definition.
  if (s->type.isError())
    e.type = ValueType();
}

void Checker::checkUnary(Expr &e) {
  Expr &x = *e.args[0];
  check(x);
  if (x.type.isError())
    return;
  if (x.type.isVoid()) {
    error(x.start(), "this expression has no value");
    return;
  }
  if (e.unOp == UnOp::Neg) {
    if (!rejectF8(x.type.dtype, e.loc, "unary '-'"))
      return;
    if (x.type.dtype == DType::Bool) {
      error(e.loc, "unary '-' needs a number, got " + x.type.str() + "; use '!' for bool");
      return;
    }
    e.type = x.type;
    if (x.constant) {
      if (*x.constant == INT64_MIN) {
        error(e.loc, "integer overflow in a constant expression");
        e.type = ValueType();
        return;
      }
      e.constant = -*x.constant;
      if (isInt(e.type.dtype) && !isIndexInt(e.type.dtype)) // u8 and u32 wrap
        e.constant = wrapTo(e.type.dtype, *e.constant);
      if (mode_ != Mode::Where && e.type.dtype == DType::I32 && !fits(DType::I32, *e.constant)) {
        if (e.type.literal) {
          e.type.dtype = DType::I64;
        } else {
          error(e.loc, "constant expression overflows i32");
          e.type = ValueType();
          return;
        }
      }
    }
    if (x.fconstant)
      e.fconstant = -*x.fconstant;
  } else {
    if (x.type.dtype != DType::Bool) {
      error(e.loc, "'!' needs a bool operand, got " + x.type.str());
      return;
    }
    e.type = x.type;
    if (x.constant)
      e.constant = !*x.constant;
  }
  e.dimDeps = x.dimDeps;
}

static bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge ||
         op == BinOp::Eq || op == BinOp::Ne;
}

void Checker::checkBinary(Expr &e) {
  Expr &a = *e.args[0], &b = *e.args[1];
  check(a);
  check(b);
  if (a.type.isError() || b.type.isError())
    return;
  for (Expr *x : {&a, &b})
    if (x->type.isVoid()) {
      error(x->start(), "this expression has no value");
      return;
    }
  std::string what = std::string("'") + binOpSpelling(e.binOp) + "'";
  bool logic = e.binOp == BinOp::And || e.binOp == BinOp::Or;
  if (logic) {
    for (Expr *x : {&a, &b})
      if (x->type.dtype != DType::Bool) {
        error(x->start(), what + " needs bool operands, got " + x->type.str());
        return;
      }
  } else if (!unify(a, b, e.loc, what.c_str())) {
    return;
  }
  DType t = a.type.dtype;
  if (!rejectF8(t, e.loc, what))
    return;
  if (!logic && t == DType::Bool && e.binOp != BinOp::Eq && e.binOp != BinOp::Ne) {
    error(e.loc, what + " is not defined on bool values");
    return;
  }
  if ((e.binOp == BinOp::Div || e.binOp == BinOp::Mod) && !isFloat(t) && !a.constant &&
      b.constant && *b.constant == 0) {
    error(e.loc, "integer division by zero");
    return;
  }
  auto shape = broadcastShapes(a.type.shape, b.type.shape, e.loc);
  if (!shape)
    return;
  e.type = ValueType::tile(isComparison(e.binOp) || logic ? DType::Bool : t, *shape);
  e.type.literal = a.type.literal && b.type.literal;
  foldConstant(e);
  bool aKnown = a.constant || !a.dimDeps.empty(), bKnown = b.constant || !b.dimDeps.empty();
  if (!e.constant && aKnown && bKnown) {
    e.dimDeps = a.dimDeps;
    e.dimDeps.append(b.dimDeps.begin(), b.dimDeps.end());
  }
}

void Checker::checkIndex(Expr &e) {
  Expr &base = *e.args[0];
  if (const Symbol *s = base.kind == ExprKind::Name ? lookup(base.name) : nullptr;
      s && s->kind == Symbol::TensorParam) {
    error(e.loc, "'" + base.name + "[...]' addresses elements of a tensor: read them with load(" +
                     base.name + "[...]) and write them with store(" + base.name + "[...], v)");
    return;
  }
  check(base);
  for (IndexItem &item : e.index)
    if (item.kind == IndexItem::Expr) {
      error(item.loc, "tiles cannot be indexed by position; only ':' and 'None' are allowed "
                      "(use load() to read elements)");
      return;
    }
  if (base.type.isError())
    return;
  if (base.type.isVoid()) {
    error(base.loc, "this expression has no value");
    return;
  }
  size_t colons = 0;
  for (IndexItem &item : e.index)
    colons += item.kind == IndexItem::Colon;
  if (colons > base.type.shape.size()) {
    size_t n = base.type.shape.size();
    error(e.loc, "too many ':' for " + base.type.str() + " (it has " + std::to_string(n) +
                     (n == 1 ? " axis)" : " axes)"));
    return;
  }
  llvm::SmallVector<int64_t, 4> shape;
  size_t next = 0;
  for (IndexItem &item : e.index)
    shape.push_back(item.kind == IndexItem::Colon ? base.type.shape[next++] : 1);
  for (; next < base.type.shape.size(); ++next)
    shape.push_back(base.type.shape[next]);
  e.type = ValueType::tile(base.type.dtype, shape);
}

void Checker::checkAttr(Expr &e) {
  Expr &base = *e.args[0];
  check(base);
  if (e.name != "T") {
    error(e.loc, "unknown attribute '." + e.name + "'; tiles have .T and .to(dtype)");
    return;
  }
  if (base.type.isError())
    return;
  if (!base.type.isTile() || base.type.shape.size() != 2) {
    error(e.loc, ".T needs a 2-D tile, got " + base.type.str());
    return;
  }
  e.type = ValueType::tile(base.type.dtype, {base.type.shape[1], base.type.shape[0]});
}

void Checker::checkMethod(Expr &e) {
  Expr &base = *e.args[0];
  check(base);
  if (e.name != "to") {
    error(e.loc, "unknown method '." + e.name + "()'; tiles have .T and .to(dtype)");
    return;
  }
  if (e.args.size() != 2 || !e.kwargs.empty()) {
    error(e.loc, ".to() takes exactly one element type, e.g. .to(f32)");
    return;
  }
  std::optional<DType> t = dtypeArg(*e.args[1]);
  if (!t || base.type.isError())
    return;
  if (base.type.isVoid()) {
    error(base.loc, "this expression has no value");
    return;
  }
  e.type = ValueType::tile(*t, base.type.shape);
  if (base.constant && !isFloat(base.type.dtype) && !isFloat(*t)) {
    int64_t v = *base.constant;
    e.constant = wrapTo(*t, v);
    if (isIndexInt(*t))
      e.dimDeps = base.dimDeps;
  } else if (!base.dimDeps.empty() && isIndexInt(*t)) {
    e.dimDeps = base.dimDeps;
  }
}

std::optional<DType> Checker::dtypeArg(Expr &e) {
  if (e.kind == ExprKind::Name)
    if (auto t = parseDType(e.name))
      return t;
  error(e.loc, "expected an element type (f32, f16, bf16, f64, f8e4m3, f8e5m2, i8, u8, i32, u32, "
               "i64 or bool)");
  return std::nullopt;
}
