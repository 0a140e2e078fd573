//===- SemaTileOps.cpp - typing of built-in tile operations -----*- C++ -*-===//
//
// The rules (see the table in SemaBuiltins.cpp) of the built-ins that compute
// on tiles: dot, the reductions and scans along an axis (sum, max, min,
// argmax, argmin, cumsum, cummax, cummin), element-wise math (abs, exp and the
// other unary float functions, maximum, minimum), where, and the shape changes
// reshape and permute. Each types one call whose arguments it checks through
// CallArgs, or reports a located error.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

using namespace tessera;
using namespace tessera::sema;

void Checker::checkDot(Expr &e, CallArgs &args) {
  if (!checkArity(e, 2, 3) || !args.all())
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
    error(e.loc,
          "dot() inner extents differ: " + shapeStr(a.type.shape) + " x " + shapeStr(b.type.shape));
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
}

void Checker::checkReduction(Expr &e, CallArgs &args) {
  const std::string &fn = e.name;
  bool arg = fn == "argmax" || fn == "argmin";
  bool scan = fn == "cumsum" || fn == "cummax" || fn == "cummin";
  if (!checkArity(e, 1, 2))
    return;
  Expr &x = *e.args[0];
  if (!args.value(x))
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
}

void Checker::checkUnaryMath(Expr &e, CallArgs &args) {
  const std::string &fn = e.name;
  if (!checkArity(e, 1, 1) || !args.value(*e.args[0]))
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
}

void Checker::checkElementwiseMinMax(Expr &e, CallArgs &args) {
  const std::string &fn = e.name;
  if (!checkArity(e, 2, 2))
    return;
  Expr &a = *e.args[0], &b = *e.args[1];
  if (!args.value(a) || !args.value(b) || !unify(a, b, e.loc, (fn + "()").c_str()))
    return;
  if (a.type.dtype == DType::Bool) {
    error(e.loc, fn + "() is not defined on bool values");
    return;
  }
  if (!rejectF8(a.type.dtype, e.loc, fn + "()"))
    return;
  if (auto shape = broadcastArgShapes(e))
    e.type = ValueType::tile(a.type.dtype, *shape);
}

std::optional<llvm::SmallVector<int64_t, 4>> Checker::broadcastArgShapes(Expr &e) {
  llvm::SmallVector<int64_t, 4> shape;
  for (ExprPtr &a : e.args) {
    auto s = broadcastShapes(shape, a->type.shape, e.loc);
    if (!s)
      return std::nullopt;
    shape = *s;
  }
  return shape;
}

void Checker::checkFma(Expr &e, CallArgs &args) {
  if (!checkArity(e, 3, 3))
    return;
  Expr &a = *e.args[0], &b = *e.args[1], &c = *e.args[2];
  if (!args.value(a) || !args.value(b) || !args.value(c))
    return;
  // Every pair, so that a literal takes the type of whichever operand has one.
  if (!unify(a, b, e.loc, "fma()") || !unify(a, c, e.loc, "fma()") || !unify(b, c, e.loc, "fma()"))
    return;
  DType t = a.type.dtype;
  if (!isFloat(t)) {
    if (!a.type.literal || !b.type.literal || !c.type.literal) {
      error(e.loc,
            "fma() needs float operands, got " + a.type.str() + "; convert them with .to(f32)");
      return;
    }
    if (!retype(a, DType::F32) || !retype(b, DType::F32) || !retype(c, DType::F32))
      return;
    t = DType::F32;
  }
  if (!rejectF8(t, e.loc, "fma()"))
    return;
  if (auto shape = broadcastArgShapes(e))
    e.type = ValueType::tile(t, *shape);
}

void Checker::checkWhere(Expr &e, CallArgs &args) {
  if (!checkArity(e, 3, 3))
    return;
  Expr &c = *e.args[0], &a = *e.args[1], &b = *e.args[2];
  if (!args.value(c) || !args.value(a) || !args.value(b))
    return;
  if (c.type.dtype != DType::Bool) {
    error(c.start(), "the condition of where() must be bool, got " + c.type.str());
    return;
  }
  if (!unify(a, b, e.loc, "where()"))
    return;
  if (auto shape = broadcastArgShapes(e))
    e.type = ValueType::tile(a.type.dtype, *shape);
}

void Checker::checkShapeChange(Expr &e, CallArgs &args) {
  const std::string &fn = e.name;
  if (!checkArity(e, 2, 2) || !args.value(*e.args[0]))
    return;
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
