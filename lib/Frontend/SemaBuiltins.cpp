//===- SemaBuiltins.cpp - typing of built-in calls --------------*- C++ -*-===//
//
// The table of built-in functions and the dispatch of a call to its rule, the
// helpers the rules share (arity, constant arguments, tensor parameters), and
// the rules of the scalar helpers usable in clauses too (cdiv, next_pow2, min
// and max of two scalars, num_sms), program ids, tile constructors,
// multiple_of, assert and print. The rules of tile operations (dot,
// reductions, element-wise math, where, reshape) are in SemaTileOps.cpp; load,
// store, atomics and scan have files of their own. Each rule types one call;
// it reports a located error and leaves the type an error where the call is
// wrong.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

#include "llvm/ADT/StringMap.h"

using namespace tessera;
using namespace tessera::sema;

namespace {

/// One built-in function: the rule that types its calls, whether clauses
/// (evaluated on the host) may call it, and whether it takes keyword arguments.
struct Builtin {
  const char *name;
  BuiltinRule rule;
  bool host = false;
  bool kwargs = false;
};

const Builtin kBuiltins[] = {
    {"range", &Checker::checkRange, true},
    {"cdiv", &Checker::checkScalarHelper, true},
    {"next_pow2", &Checker::checkScalarHelper, true},
    {"min", &Checker::checkMinMax, true},
    {"max", &Checker::checkMinMax, true},
    {"num_sms", &Checker::checkNumSms, true},
    {"program_id", &Checker::checkProgramId},
    {"num_programs", &Checker::checkProgramId},
    {"arange", &Checker::checkArange},
    {"zeros", &Checker::checkConstructor},
    {"full", &Checker::checkConstructor},
    {"load", &Checker::checkMemoryCall, false, true},
    {"store", &Checker::checkMemoryCall, false, true},
    {"atomic_add", &Checker::checkAtomicCall, false, true},
    {"atomic_max", &Checker::checkAtomicCall, false, true},
    {"atomic_min", &Checker::checkAtomicCall, false, true},
    {"atomic_xchg", &Checker::checkAtomicCall, false, true},
    {"atomic_cas", &Checker::checkAtomicCall, false, true},
    {"multiple_of", &Checker::checkMultipleOf},
    {"dot", &Checker::checkDot},
    {"reshape", &Checker::checkShapeChange},
    {"permute", &Checker::checkShapeChange},
    {"sum", &Checker::checkReduction},
    {"argmax", &Checker::checkReduction},
    {"argmin", &Checker::checkReduction},
    {"cumsum", &Checker::checkReduction},
    {"cummax", &Checker::checkReduction},
    {"cummin", &Checker::checkReduction},
    {"scan", &Checker::checkScan},
    {"abs", &Checker::checkUnaryMath},
    {"exp", &Checker::checkUnaryMath},
    {"exp2", &Checker::checkUnaryMath},
    {"log", &Checker::checkUnaryMath},
    {"log2", &Checker::checkUnaryMath},
    {"sqrt", &Checker::checkUnaryMath},
    {"rsqrt", &Checker::checkUnaryMath},
    {"tanh", &Checker::checkUnaryMath},
    {"sigmoid", &Checker::checkUnaryMath},
    {"maximum", &Checker::checkElementwiseMinMax},
    {"minimum", &Checker::checkElementwiseMinMax},
    {"fma", &Checker::checkFma},
    {"where", &Checker::checkWhere},
    {"assert", &Checker::checkAssert},
    {"print", &Checker::checkPrint},
};

const Builtin *findBuiltin(llvm::StringRef name) {
  static const llvm::StringMap<const Builtin *> byName = [] {
    llvm::StringMap<const Builtin *> m;
    for (const Builtin &b : kBuiltins)
      m[b.name] = &b;
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

} // namespace

bool tessera::isBuiltinFunction(llvm::StringRef n) { return findBuiltin(n) != nullptr; }

bool CallArgs::value(Expr &x) {
  if (!checked_.insert(&x).second)
    return !x.type.isError();
  c_.check(x);
  if (x.type.isVoid()) {
    c_.error(x.start(), "this expression has no value");
    x.type = ValueType();
  }
  return !x.type.isError();
}

bool CallArgs::all() {
  bool ok = true;
  for (ExprPtr &a : call_.args)
    ok &= value(*a);
  return ok;
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
  const Builtin *b = findBuiltin(fn);
  if (!b) {
    if (const Symbol *s = lookup(fn); s && s->kind != Symbol::TensorParam)
      error(e.loc, "'" + fn + "' is not a function");
    else
      error(e.loc, "unknown function '" + fn + "'");
    return;
  }
  if (!b->kwargs && !e.kwargs.empty()) {
    error(e.kwargs[0].loc, fn + "() takes no keyword arguments");
    return;
  }
  if (!b->host && !requireDevice(e))
    return;
  CallArgs args(*this, e);
  (this->*b->rule)(e, args);
}

void Checker::checkRange(Expr &e, CallArgs &) {
  error(e.loc, "range() is only allowed in 'for i in range(...)'");
}

void Checker::checkMinMax(Expr &e, CallArgs &args) {
  // min/max of a tile and an axis reduce; of two scalars they pick one.
  if (e.args.size() == 2 && mode_ == Mode::Body) {
    if (!args.value(*e.args[0]))
      return;
    if (e.args[0]->type.isScalar())
      return checkScalarHelper(e, args);
  } else if (e.args.size() == 2) {
    return checkScalarHelper(e, args);
  }
  if (requireDevice(e))
    checkReduction(e, args);
}

void Checker::checkScalarHelper(Expr &e, CallArgs &args) {
  const std::string &fn = e.name;
  // min/max of two scalars (checkMinMax), valid on the host too.
  bool scalarMinMax = fn == "min" || fn == "max";
  if (!checkArity(e, fn == "next_pow2" ? 1 : 2, fn == "next_pow2" ? 1 : 2) || !args.all())
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
}

void Checker::checkNumSms(Expr &e, CallArgs &) {
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
}

void Checker::checkProgramId(Expr &e, CallArgs &) {
  const std::string &fn = e.name;
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
}

void Checker::checkArange(Expr &e, CallArgs &) {
  if (!checkArity(e, 1, 1))
    return;
  auto n = staticInt(*e.args[0], "the extent of arange()");
  if (!n)
    return;
  if (*n < 1 || *n > kMaxTileElements) {
    error(e.args[0]->start(), "the extent of arange() must be from 1 to " +
                                  std::to_string(kMaxTileElements) + ", got " + std::to_string(*n));
    return;
  }
  e.type = ValueType::tile(indexType(), {*n});
}

void Checker::checkConstructor(Expr &e, CallArgs &args) {
  const std::string &fn = e.name;
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
    if (!args.value(v))
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
}

void Checker::checkMultipleOf(Expr &e, CallArgs &args) {
  // multiple_of(x, n): x, promised to be a multiple of n everywhere.
  if (!checkArity(e, 2, 2) || !args.value(*e.args[0]))
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
}

void Checker::checkAssert(Expr &e, CallArgs &args) {
  if (!checkArity(e, 2, 2) || !args.value(*e.args[0]))
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
}

void Checker::checkPrint(Expr &e, CallArgs &args) {
  if (!checkArity(e, 1, 1) || !args.value(*e.args[0]))
    return;
  e.type = ValueType::voidType();
}
