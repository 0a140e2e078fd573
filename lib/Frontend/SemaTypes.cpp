//===- SemaTypes.cpp - coercion, broadcasting and constant folding -------===//
//
// How Sema makes operands agree: a literal retyped to the other operand's
// element type (and checked to fit it), coercions with located errors (fp8
// only through .to, i64 indices only in the 64-bit size class), unification
// of two operands' dtypes, NumPy broadcasting of shapes; and the folding of
// compile-time integer and literal values, with the wrap-around of the
// dtype the value has.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tessera;
using namespace tessera::sema;

bool Checker::retype(Expr &e, DType t) {
  DType from = e.type.dtype;
  if (from == t)
    return true;
  bool ok = (isInt(from) && (isInt(t) || isFloat(t))) || (isFloat(from) && isFloat(t));
  if (!ok || (isInt(t) && e.constant && !fits(t, *e.constant))) {
    std::string what = e.constant && isInt(from) ? "integer " + std::to_string(*e.constant)
                       : from == DType::Bool     ? std::string("bool literal")
                                                 : std::string("float literal");
    error(e.loc, "the " + what + " cannot be used as " + dtypeName(t).str() +
                     (ok ? " (out of range)" : ""));
    return false;
  }
  if (isFloat(t) && e.constant) {
    e.fconstant = (double)*e.constant;
    e.constant.reset();
  }
  if (e.fconstant && std::isfinite(*e.fconstant)) {
    double limit = t == DType::F16      ? 65504.0 // the largest finite values
                   : t == DType::F8E4M3 ? 448.0
                   : t == DType::F8E5M2 ? 57344.0
                                        : 3.3895313892515355e38; // bf16, f32
    if (std::fabs(*e.fconstant) > limit) {
      char buf[32];
      snprintf(buf, sizeof buf, "%g", *e.fconstant);
      error(e.loc,
            "the literal " + std::string(buf) + " is out of range for " + dtypeName(t).str());
      return false;
    }
  }
  e.type.dtype = t;
  return true;
}

bool Checker::rejectF8(DType t, SourceLoc loc, const std::string &what) {
  if (!isF8(t))
    return true;
  error(loc, what + " is not defined on " + dtypeName(t).str() +
                 " values (f8 values load, store, convert with .to(), select with where() and "
                 "feed dot()); convert them with .to(f32) first");
  return false;
}

bool Checker::coerce(Expr &e, DType t, const std::string &what) {
  if (e.type.dtype == t)
    return true;
  if (e.type.literal)
    return retype(e, t);
  // The 64-bit size class widens an i32 where an i64 is needed (a var that
  // holds an index, say), as in operators.
  if (spec_.index64 && e.type.dtype == DType::I32 && t == DType::I64)
    return widenToI64(e);
  error(e.start(), what + " must be " + dtypeName(t).str() + ", got " + e.type.str() +
                       "; convert it with .to(" + dtypeName(t).str() + ")" +
                       index64Hint(e.type.dtype, t));
  return false;
}

std::string Checker::index64Hint(DType got, DType want) const {
  if (!spec_.index64 || got != DType::I64 || want != DType::I32)
    return "";
  return " (this kernel is compiled for a tensor extent of 2^31 or more, where dims, "
         "program_id(), num_programs() and arange() are i64)";
}

bool Checker::widenToI64(Expr &e) {
  if (e.constant)
    return retype(e, DType::I64);
  // `e` becomes `(e).to(i64)`: its content moves into the conversion's operand.
  auto inner = std::make_unique<Expr>(std::move(e));
  Expr wide(ExprKind::Method, inner->loc);
  wide.begin = inner->begin;
  wide.beginOffset = inner->beginOffset;
  wide.endOffset = inner->endOffset;
  wide.depth = inner->depth + 1;
  wide.name = "to";
  wide.type = ValueType::tile(DType::I64, inner->type.shape);
  wide.dimDeps = inner->dimDeps;
  auto dtype = std::make_unique<Expr>(ExprKind::Name, inner->loc);
  dtype->name = "i64";
  wide.args.push_back(std::move(inner));
  wide.args.push_back(std::move(dtype));
  e = std::move(wide);
  return true;
}

bool Checker::coerceIndex(Expr &e, const std::string &what) {
  if (e.type.dtype == DType::I64 && !e.type.literal)
    return true;
  if (e.type.dtype == DType::I64 && e.type.literal)
    return spec_.index64 ? true : retype(e, DType::I32);
  if (e.type.dtype == DType::I32 || e.type.literal)
    return coerce(e, DType::I32, what);
  error(e.start(),
        what + " must be i32 or i64, got " + e.type.str() + "; convert it with .to(i32)");
  return false;
}

bool Checker::unify(Expr &a, Expr &b, SourceLoc loc, const char *what) {
  DType ta = a.type.dtype, tb = b.type.dtype;
  if (ta == tb)
    return true;
  bool la = a.type.literal, lb = b.type.literal;
  if (la && !lb)
    return retype(a, tb);
  if (lb && !la)
    return retype(b, ta);
  // An i32 meets an i64 as the i64 it is when it is a compile-time scalar (a
  // tune or where value, a folded expression: `cdiv(N, BLOCK)` with an i64
  // dim), and in the 64-bit size class whatever it is (an implicit `.to(i64)`),
  // so that index math written for 32 bits compiles unchanged.
  auto widens = [&](const Expr &x, bool literal) {
    return (spec_.index64 && !literal) || (x.constant && x.type.isScalar());
  };
  if (ta == DType::I32 && tb == DType::I64 && widens(a, la))
    return widenToI64(a);
  if (tb == DType::I32 && ta == DType::I64 && widens(b, lb))
    return widenToI64(b);
  if (la && lb) {
    if (isFloat(ta) && isInt(tb))
      return retype(b, ta);
    if (isInt(ta) && isFloat(tb))
      return retype(a, tb);
    if (isInt(ta) && isInt(tb))
      return retype(ta == DType::I64 ? b : a, DType::I64);
  }
  error(loc, std::string("mixed element types in ") + what + ": " + a.type.str() + " and " +
                 b.type.str() + "; convert one operand with .to(...)");
  return false;
}

std::optional<llvm::SmallVector<int64_t, 4>>
Checker::broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b, SourceLoc loc) {
  size_t n = std::max(a.size(), b.size());
  llvm::SmallVector<int64_t, 4> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      error(loc, "cannot broadcast shapes " + shapeStr(a) + " and " + shapeStr(b));
      return std::nullopt;
    }
    out[i] = std::max(da, db);
  }
  return out;
}

void Checker::foldConstant(Expr &e) {
  Expr &a = *e.args[0], &b = *e.args[1];
  if (!e.type.isScalar())
    return;
  // Float literals fold in double; the result keeps the literal's flexibility.
  if (a.fconstant && b.fconstant) {
    double x = *a.fconstant, y = *b.fconstant;
    switch (e.binOp) {
    case BinOp::Add:
      e.fconstant = x + y;
      break;
    case BinOp::Sub:
      e.fconstant = x - y;
      break;
    case BinOp::Mul:
      e.fconstant = x * y;
      break;
    case BinOp::Div:
      e.fconstant = x / y;
      break;
    case BinOp::Mod:
      e.fconstant = std::fmod(x, y);
      break;
    case BinOp::Lt:
      e.constant = x < y;
      break;
    case BinOp::Le:
      e.constant = x <= y;
      break;
    case BinOp::Gt:
      e.constant = x > y;
      break;
    case BinOp::Ge:
      e.constant = x >= y;
      break;
    case BinOp::Eq:
      e.constant = x == y;
      break;
    case BinOp::Ne:
      e.constant = x != y;
      break;
    default:
      break;
    }
    if (e.fconstant && std::isfinite(x) && std::isfinite(y) &&
        (!std::isfinite(*e.fconstant) || std::fabs(*e.fconstant) > 3.4028234663852886e38)) {
      error(e.loc, "float constant expression overflows f32");
      e.type = ValueType();
      e.fconstant.reset();
    }
    return;
  }
  if (!a.constant || !b.constant)
    return;
  int64_t x = *a.constant, y = *b.constant, r = 0;
  bool overflow = false;
  switch (e.binOp) {
  case BinOp::Add:
    overflow = __builtin_add_overflow(x, y, &r);
    break;
  case BinOp::Sub:
    overflow = __builtin_sub_overflow(x, y, &r);
    break;
  case BinOp::Mul:
    overflow = __builtin_mul_overflow(x, y, &r);
    break;
  case BinOp::Div:
  case BinOp::Mod:
    if (y == 0) {
      error(e.loc, "division by zero in a constant expression");
      e.type = ValueType();
      return;
    }
    if (x == INT64_MIN && y == -1)
      overflow = true;
    else
      r = e.binOp == BinOp::Div ? x / y : x % y;
    break;
  case BinOp::Lt:
    r = x < y;
    break;
  case BinOp::Le:
    r = x <= y;
    break;
  case BinOp::Gt:
    r = x > y;
    break;
  case BinOp::Ge:
    r = x >= y;
    break;
  case BinOp::Eq:
    r = x == y;
    break;
  case BinOp::Ne:
    r = x != y;
    break;
  case BinOp::And:
    r = x && y;
    break;
  case BinOp::Or:
    r = x || y;
    break;
  }
  if (overflow) {
    error(e.loc, "integer overflow in a constant expression");
    e.type = ValueType();
    return;
  }
  // Host-side values (where clauses) are 64-bit; device constants have the dtype.
  if (mode_ != Mode::Where && !fits(e.type.dtype, r)) {
    if (e.type.literal && e.type.dtype == DType::I32) {
      e.type.dtype = DType::I64;
    } else {
      error(e.loc, "constant expression overflows " + dtypeName(e.type.dtype).str());
      e.type = ValueType();
      return;
    }
  }
  e.constant = r;
}
