//===- SemaBuiltins.cpp - typing of built-in calls --------------*- C++ -*-===//
//
// Signatures and shape rules of the built-in functions: program ids, tile
// constructors, dot, reductions,
// element-wise math, where, and the scalar helpers usable in clauses too.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tessera;
using namespace tessera::sema;

static const char *kUnaryFloat[] = {"exp",  "exp2",  "log",  "log2",
                                    "sqrt", "rsqrt", "tanh", "sigmoid"};

bool tessera::isBuiltinFunction(llvm::StringRef n) {
  for (const char *f : kUnaryFloat)
    if (n == f)
      return true;
  return llvm::StringSwitch<bool>(n)
      .Cases({"program_id", "num_programs", "arange", "zeros", "full", "load", "store"}, true)
      .Cases({"dot", "sum", "max", "min", "abs", "maximum", "minimum", "where"}, true)
      .Cases({"argmax", "argmin", "cumsum", "cummax", "cummin", "reshape", "permute"}, true)
      .Cases({"cdiv", "next_pow2", "print", "assert", "range"}, true)
      .Cases({"atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas"}, true)
      .Cases({"multiple_of", "num_sms", "scan"}, true)
      .Default(false);
}

bool Checker::checkArity(Expr &e, size_t lo, size_t hi) {
  size_t n = e.args.size();
  if (n >= lo && n <= hi)
    return true;
  std::string want =
      lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  error(e.loc, e.name + "() takes " + want + " argument" + (hi == 1 ? "" : "s") + ", got " +
                   std::to_string(n));
  return false;
}

bool Checker::requireDevice(Expr &e) {
  if (mode_ == Mode::Body)
    return true;
  error(e.loc,
        "'" + e.name + "' cannot be used in " +
            (mode_ == Mode::Where ? "a 'where' clause" : "the grid clause") +
            "; only dims, scalars, tune values and cdiv/min/max/next_pow2 are allowed there");
  return false;
}

std::optional<int64_t> Checker::staticInt(Expr &e, const std::string &what) {
  check(e);
  if (e.type.isError())
    return std::nullopt;
  if (!e.type.isScalar() || !isIndexInt(e.type.dtype)) {
    error(e.start(), what + " must be an i32 or i64 integer, got " + e.type.str());
    return std::nullopt;
  }
  if (e.constant)
    return e.constant;
  if (!e.dimDeps.empty()) {
    // Constant once these dims are specialized: ask for another round.
    want_.insert(e.dimDeps.begin(), e.dimDeps.end());
    return 1;
  }
  error(e.start(), what + " must be a compile-time constant (a literal, a tune or 'where' "
                          "value, or a dim)");
  return std::nullopt;
}

std::optional<llvm::SmallVector<int64_t, 4>> Checker::staticShape(Expr &e,
                                                                  const std::string &what) {
  if (e.kind != ExprKind::List) {
    error(e.start(), what + " must be a list of extents, e.g. [BM, BN]");
    return std::nullopt;
  }
  llvm::SmallVector<int64_t, 4> shape;
  bool ok = true;
  int64_t total = 1;
  for (ExprPtr &item : e.args) {
    std::optional<int64_t> v = staticInt(*item, "a tile extent");
    if (!v) {
      ok = false;
      continue;
    }
    if (*v <= 0 || *v > kMaxTileElements) {
      error(item->start(), "a tile extent must be from 1 to " + std::to_string(kMaxTileElements) +
                               ", got " + std::to_string(*v));
      ok = false;
      continue;
    }
    total *= *v;
    if (total > kMaxTileElements) {
      error(e.loc, "a tile may hold at most " + std::to_string(kMaxTileElements) + " elements; " +
                       what + " asks for more");
      return std::nullopt;
    }
    shape.push_back(*v);
  }
  if (!ok)
    return std::nullopt;
  return shape;
}

const Symbol *Checker::tensorArg(Expr &e, llvm::StringRef fn) {
  const Symbol *s = e.kind == ExprKind::Name ? lookup(e.name) : nullptr;
  if (!s || s->kind != Symbol::TensorParam) {
    error(e.loc, "the first argument of " + fn + "() must be a tensor parameter");
    return nullptr;
  }
  e.symbol = s;
  return s;
}

void Checker::checkCall(Expr &e) {
  const std::string &fn = e.name;
  if (!isBuiltinFunction(fn)) {
    if (const Symbol *s = lookup(fn); s && s->kind != Symbol::TensorParam)
      error(e.loc, "'" + fn + "' is not a function");
    else
      error(e.loc, "unknown function '" + fn + "'");
    return;
  }
  bool atomic = llvm::StringRef(fn).starts_with("atomic_");
  if (fn != "load" && fn != "store" && !atomic && !e.kwargs.empty()) {
    error(e.kwargs[0].loc, fn + "() takes no keyword arguments");
    return;
  }
  // Each argument is checked once: re-checking would make nested calls exponential.
  llvm::SmallPtrSet<Expr *, 4> checked;
  auto value = [&](Expr &x) {
    if (!checked.insert(&x).second)
      return !x.type.isError();
    check(x);
    if (x.type.isVoid()) {
      error(x.start(), "this expression has no value");
      x.type = ValueType();
    }
    return !x.type.isError();
  };
  auto allValues = [&] {
    bool ok = true;
    for (ExprPtr &a : e.args)
      ok &= value(*a);
    return ok;
  };

  if (fn == "range") {
    error(e.loc, "range() is only allowed in 'for i in range(...)'");
    return;
  }
  // Scalar helpers, valid on the host too.
  // min/max of a tile and an axis reduce; of two scalars they pick one.
  bool scalarMinMax = false;
  if ((fn == "min" || fn == "max") && e.args.size() == 2 && mode_ == Mode::Body) {
    if (!value(*e.args[0]))
      return;
    scalarMinMax = e.args[0]->type.isScalar();
  } else if ((fn == "min" || fn == "max") && e.args.size() == 2) {
    scalarMinMax = true;
  }
  if (fn == "cdiv" || fn == "next_pow2" || scalarMinMax) {
    if (!checkArity(e, fn == "next_pow2" ? 1 : 2, fn == "next_pow2" ? 1 : 2) || !allValues())
      return;
    for (ExprPtr &a : e.args)
      if (!a->type.isScalar()) {
        if (scalarMinMax)
          error(a->start(), fn + "(a, b) of two values needs scalars; for tiles use " +
                                (fn == "min" ? "minimum" : "maximum") + "(a, b), or " + fn +
                                "(x, axis) with a constant axis to reduce");
        else
          error(a->start(), fn + "() needs scalar arguments, got " + a->type.str());
        return;
      }
    if (e.args.size() == 2 && !unify(*e.args[0], *e.args[1], e.loc, (fn + "()").c_str()))
      return;
    DType t = e.args[0]->type.dtype;
    if (!scalarMinMax && !isIndexInt(t)) {
      error(e.loc, fn + "() needs i32 or i64 arguments, got " + dtypeName(t).str());
      return;
    }
    if (t == DType::Bool) {
      error(e.loc, fn + "() is not defined on bool values");
      return;
    }
    if (!rejectF8(t, e.loc, fn + "()"))
      return;
    e.type = ValueType::scalar(t);
    e.type.literal = e.args[0]->type.literal && (e.args.size() == 1 || e.args[1]->type.literal);
    bool allConst = true, allKnown = true;
    for (ExprPtr &a : e.args) {
      allConst &= a->constant.has_value();
      allKnown &= a->constant || !a->dimDeps.empty();
    }
    if (allConst) {
      int64_t x = *e.args[0]->constant;
      if (fn == "next_pow2") {
        int64_t p = 1;
        while (p < x && p <= (INT64_MAX >> 1))
          p <<= 1;
        if (p < x) {
          error(e.loc, "next_pow2(" + std::to_string(x) + ") overflows");
          e.type = ValueType();
          return;
        }
        e.constant = p;
      } else {
        int64_t y = *e.args[1]->constant;
        if (fn == "cdiv") {
          if (y == 0) {
            error(e.loc, "division by zero in cdiv()");
            e.type = ValueType();
            return;
          }
          if (x == INT64_MIN && y == -1) {
            error(e.loc, "integer overflow in a constant expression");
            e.type = ValueType();
            return;
          }
          int64_t q = x / y;
          e.constant = (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
        } else {
          e.constant = fn == "min" ? std::min(x, y) : std::max(x, y);
        }
      }
      if (mode_ != Mode::Where && t == DType::I32 &&
          (*e.constant < INT32_MIN || *e.constant > INT32_MAX)) {
        error(e.loc, "constant expression overflows i32");
        e.type = ValueType();
        return;
      }
    } else if (scalarMinMax && e.args[0]->fconstant && e.args[1]->fconstant) {
      double x = *e.args[0]->fconstant, y = *e.args[1]->fconstant;
      e.fconstant = fn == "min" ? std::min(x, y) : std::max(x, y);
    } else if (allKnown) {
      for (ExprPtr &a : e.args)
        e.dimDeps.append(a->dimDeps.begin(), a->dimDeps.end());
    }
    return;
  }

  if (fn == "num_sms") {
    // A compile-time constant of the specialization, so also in 'where' and
    // grid clauses (a persistent kernel's grid).
    if (!checkArity(e, 0, 0))
      return;
    if (!spec_.numSms) {
      error(e.loc, "num_sms() is the GPU's multiprocessor count, which this compilation does "
                   "not know: run it on a GPU, or give --sms N");
      return;
    }
    e.type = ValueType::scalar(DType::I32);
    e.constant = *spec_.numSms;
    info_->numSms = *spec_.numSms;
    return;
  }
  if (!requireDevice(e))
    return;

  if (fn == "scan")
    return checkScan(e);
  if (fn == "program_id" || fn == "num_programs") {
    if (!checkArity(e, 1, 1))
      return;
    auto axis = staticInt(*e.args[0], std::string("the axis of ") + fn + "()");
    if (!axis)
      return;
    if (*axis < 0 || *axis > 2) {
      error(e.args[0]->start(),
            "the axis of " + fn + "() must be 0, 1 or 2, got " + std::to_string(*axis));
      return;
    }
    e.type = ValueType::scalar(indexType());
    return;
  }
  if (fn == "arange") {
    if (!checkArity(e, 1, 1))
      return;
    auto n = staticInt(*e.args[0], "the extent of arange()");
    if (!n)
      return;
    if (*n < 1 || *n > kMaxTileElements) {
      error(e.args[0]->start(), "the extent of arange() must be from 1 to " +
                                    std::to_string(kMaxTileElements) + ", got " +
                                    std::to_string(*n));
      return;
    }
    e.type = ValueType::tile(indexType(), {*n});
    return;
  }
  if (fn == "zeros" || fn == "full") {
    bool full = fn == "full";
    if (!checkArity(e, full ? 2 : 1, full ? 3 : 2))
      return;
    auto shape = staticShape(*e.args[0], "the shape of " + fn + "()");
    size_t dtIdx = full ? 2 : 1;
    std::optional<DType> t = DType::F32;
    if (e.args.size() > dtIdx)
      t = dtypeArg(*e.args[dtIdx]);
    bool ok = shape && t;
    if (full) {
      Expr &v = *e.args[1];
      if (!value(v))
        return;
      if (!v.type.isScalar()) {
        error(v.start(), "the fill value of full() must be a scalar, got " + v.type.str());
        return;
      }
      if (e.args.size() <= dtIdx)
        t = v.type.dtype;
      else if (t && !coerce(v, *t, "the fill value"))
        return;
    }
    if (ok)
      e.type = ValueType::tile(*t, *shape);
    return;
  }
  if (fn == "load" || fn == "store") {
    checkMemoryCall(e);
    return;
  }
  if (atomic) {
    checkAtomicCall(e);
    return;
  }
  if (fn == "multiple_of") {
    // multiple_of(x, n): x, promised to be a multiple of n everywhere.
    if (!checkArity(e, 2, 2) || !value(*e.args[0]))
      return;
    Expr &x = *e.args[0];
    if (x.type.dtype != DType::I32 && x.type.dtype != DType::I64) {
      error(x.start(), "multiple_of() needs an i32 or i64 scalar or tile, got " + x.type.str());
      return;
    }
    std::optional<int64_t> n = staticInt(*e.args[1], "the divisor of multiple_of()");
    if (!n)
      return;
    if (*n <= 0) {
      error(e.args[1]->start(),
            "the divisor of multiple_of() must be positive, got " + std::to_string(*n));
      return;
    }
    e.type = x.type;
    e.type.literal = false;
    return;
  }
  if (fn == "dot") {
    if (!checkArity(e, 2, 3) || !allValues())
      return;
    Expr &a = *e.args[0], &b = *e.args[1];
    for (Expr *x : {&a, &b})
      if (x->type.shape.size() != 2) {
        error(x->start(), "dot() needs 2-D tiles, got " + x->type.str());
        return;
      }
    if (a.type.dtype != b.type.dtype) {
      error(e.loc, "dot() operands have different element types: " + a.type.str() + " and " +
                       b.type.str() + "; convert one with .to(...)");
      return;
    }
    if (!isFloat(a.type.dtype) || a.type.dtype == DType::F64) {
      error(a.loc, "dot() supports f16, bf16, f32, f8e4m3 and f8e5m2 tiles, got " + a.type.str());
      return;
    }
    if (a.type.shape[1] != b.type.shape[0]) {
      error(e.loc, "dot() inner extents differ: " + shapeStr(a.type.shape) + " x " +
                       shapeStr(b.type.shape));
      return;
    }
    llvm::SmallVector<int64_t, 2> out = {a.type.shape[0], b.type.shape[1]};
    ValueType result = ValueType::tile(DType::F32, out);
    if (e.args.size() == 3) {
      Expr &acc = *e.args[2];
      if (acc.type.shape != llvm::ArrayRef<int64_t>(out) || !isFloat(acc.type.dtype) ||
          acc.type.dtype == DType::F64 || isF8(acc.type.dtype)) {
        error(acc.loc, "the accumulator of dot() must be an f32, f16 or bf16 tile of shape " +
                           shapeStr(out) + ", got " + acc.type.str());
        return;
      }
      result = ValueType::tile(acc.type.dtype, out);
    }
    e.type = result;
    return;
  }
  if (fn == "reshape" || fn == "permute") {
    if (checkArity(e, 2, 2) && value(*e.args[0]))
      checkShapeChange(e);
    return;
  }
  bool arg = fn == "argmax" || fn == "argmin";
  bool scan = fn == "cumsum" || fn == "cummax" || fn == "cummin";
  if (fn == "sum" || fn == "max" || fn == "min" || arg || scan) {
    if (!checkArity(e, 1, 2))
      return;
    Expr &x = *e.args[0];
    if (!value(x))
      return;
    if (!x.type.isTile()) {
      error(x.start(),
            fn + "(x, axis) " + (scan ? "scans" : "reduces") + " a tile, got " + x.type.str() +
                (fn == "sum" || arg || scan ? "" : "; " + fn + "(a, b) of two scalars picks one"));
      return;
    }
    int64_t rank = x.type.shape.size(), axis = 0;
    if (e.args.size() == 2) {
      auto a = staticInt(*e.args[1], "the axis of " + fn + "()");
      if (!a) {
        if ((fn == "max" || fn == "min") && !e.args[1]->type.isError() &&
            !(e.args[1]->type.isScalar() && isIndexInt(e.args[1]->type.dtype)))
          diags_.note(e.loc, "for an element-wise " + fn + " of two tiles, use " +
                                 (fn == "min" ? "minimum" : "maximum") + "(a, b)");
        return;
      }
      axis = *a < 0 ? *a + rank : *a;
      if (axis < 0 || axis >= rank) {
        error(e.args[1]->start(),
              "axis " + std::to_string(*a) + " is out of range for " + x.type.str());
        return;
      }
    } else if (rank != 1) {
      error(e.loc, fn + "() of " + x.type.str() + " needs an axis");
      return;
    }
    if (x.type.dtype == DType::Bool) {
      error(x.start(), fn + "() is not defined on bool tiles");
      return;
    }
    if (!rejectF8(x.type.dtype, x.start(), fn + "()"))
      return;
    llvm::SmallVector<int64_t, 4> shape(x.type.shape);
    // A scan keeps the shape: element i along the axis combines 0..i.
    if (!scan)
      shape.erase(shape.begin() + axis);
    // argmax/argmin: the i32 index along the axis.
    e.type = ValueType::tile(arg ? DType::I32 : x.type.dtype, shape);
    return;
  }
  if (fn == "abs" || llvm::is_contained(kUnaryFloat, fn)) {
    if (!checkArity(e, 1, 1) || !value(*e.args[0]))
      return;
    Expr &x = *e.args[0];
    if (!rejectF8(x.type.dtype, x.start(), fn + "()"))
      return;
    if (fn == "abs") {
      if (x.type.dtype == DType::Bool) {
        error(x.start(), "abs() needs a number, got " + x.type.str());
        return;
      }
    } else if (!isFloat(x.type.dtype)) {
      if (!x.type.literal) {
        error(x.start(),
              fn + "() needs a float operand, got " + x.type.str() + "; convert it with .to(f32)");
        return;
      }
      if (!retype(x, DType::F32))
        return;
    } else if (x.type.dtype == DType::F64 && fn != "sqrt") {
      // The GPU code has f32 approximations of these (MathToNVVM) and no f64 ones.
      error(x.start(), fn + "() of f64 is not supported (f64 has +, -, *, /, %, sqrt, abs, "
                            "comparisons, reductions and scans); convert it with .to(f32)");
      return;
    }
    e.type = ValueType::tile(x.type.dtype, x.type.shape);
    return;
  }
  if (fn == "maximum" || fn == "minimum") {
    if (!checkArity(e, 2, 2))
      return;
    Expr &a = *e.args[0], &b = *e.args[1];
    if (!value(a) || !value(b) || !unify(a, b, e.loc, (fn + "()").c_str()))
      return;
    if (a.type.dtype == DType::Bool) {
      error(e.loc, fn + "() is not defined on bool values");
      return;
    }
    if (!rejectF8(a.type.dtype, e.loc, fn + "()"))
      return;
    auto shape = broadcastShapes(a.type.shape, b.type.shape, e.loc);
    if (shape)
      e.type = ValueType::tile(a.type.dtype, *shape);
    return;
  }
  if (fn == "where") {
    if (!checkArity(e, 3, 3))
      return;
    Expr &c = *e.args[0], &a = *e.args[1], &b = *e.args[2];
    if (!value(c) || !value(a) || !value(b))
      return;
    if (c.type.dtype != DType::Bool) {
      error(c.start(), "the condition of where() must be bool, got " + c.type.str());
      return;
    }
    if (!unify(a, b, e.loc, "where()"))
      return;
    auto s1 = broadcastShapes(c.type.shape, a.type.shape, e.loc);
    if (!s1)
      return;
    auto s2 = broadcastShapes(*s1, b.type.shape, e.loc);
    if (s2)
      e.type = ValueType::tile(a.type.dtype, *s2);
    return;
  }
  if (fn == "assert") {
    if (!requireDevice(e) || !checkArity(e, 2, 2) || !value(*e.args[0]))
      return;
    Expr &c = *e.args[0];
    if (c.type.dtype != DType::Bool) {
      error(c.start(), "assert() takes a bool condition (a scalar or a tile), got " + c.type.str());
      return;
    }
    if (e.args[1]->kind != ExprKind::Str) {
      error(e.args[1]->start(),
            "the message of assert() is a string literal: assert(cond, \"what went wrong\")");
      return;
    }
    e.type = ValueType::voidType();
    return;
  }
  if (fn == "print") {
    if (!checkArity(e, 1, 1) || !value(*e.args[0]))
      return;
    e.type = ValueType::voidType();
    return;
  }
  error(e.loc, "unknown function '" + fn + "'");
}

void Checker::checkShapeChange(Expr &e) {
  const std::string &fn = e.name;
  Expr &x = *e.args[0];
  if (!x.type.isTile()) {
    error(x.start(), fn + "() takes a tile, got " + x.type.str());
    return;
  }
  llvm::SmallVector<int64_t, 4> shape;
  if (fn == "reshape") {
    auto s = staticShape(*e.args[1], "the shape of reshape()");
    if (!s)
      return;
    shape = *s;
    int64_t have = 1, want = 1;
    for (int64_t v : x.type.shape)
      have *= v;
    for (int64_t v : shape)
      want *= v;
    if (have != want) {
      error(e.args[1]->start(), "reshape() keeps the element count: " + x.type.str() + " holds " +
                                    std::to_string(have) + ", the new shape " +
                                    std::to_string(want));
      return;
    }
  } else {
    Expr &dims = *e.args[1];
    size_t rank = x.type.shape.size();
    if (dims.kind != ExprKind::List || dims.args.size() != rank) {
      error(dims.start(), "permute() of " + x.type.str() + " takes a list of its " +
                              std::to_string(rank) + " axes in their new order, e.g. [" +
                              (rank == 3 ? "2, 0, 1" : "1, 0") + "]");
      return;
    }
    llvm::SmallVector<bool, 4> seen(rank, false);
    for (ExprPtr &item : dims.args) {
      std::optional<int64_t> d = staticInt(*item, "an axis of permute()");
      if (!d)
        return;
      if (*d < 0 || *d >= (int64_t)rank || seen[*d]) {
        error(item->start(),
              *d < 0 || *d >= (int64_t)rank
                  ? "axis " + std::to_string(*d) + " is out of range for " + x.type.str()
                  : "axis " + std::to_string(*d) + " appears twice in permute()");
        return;
      }
      seen[*d] = true;
      shape.push_back(x.type.shape[*d]);
    }
  }
  // Extents that are not powers of two are padded inside the compiler, and
  // padding does not survive a new shape: a located limit, the same for the
  // interpreter and the GPU.
  for (llvm::ArrayRef<int64_t> s : {llvm::ArrayRef<int64_t>(x.type.shape), llvm::ArrayRef(shape)})
    for (int64_t v : s)
      if (!llvm::isPowerOf2_64(v)) {
        error(e.loc, fn + "() needs power-of-two extents, got " + std::to_string(v) + " in " +
                         ValueType::tile(x.type.dtype, s).str());
        return;
      }
  e.type = ValueType::tile(x.type.dtype, shape);
}
