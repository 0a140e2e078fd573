//===- SemaScan.cpp - typing of scan(x, axis, combiner) ---------*- C++ -*-===//
//
// The general associative scan: `scan(x, axis, (a, b) => expr)`. The combiner
// is a function literal of two scalars of x's element type (the prefix so far,
// then the next element) whose body is an expression of scalars: its
// parameters, and any scalar in scope (parameters, dims, lets, vars). It may
// not touch memory, print, assert or use tiles, so that code generation may
// run it any number of times in any thread.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

using namespace tessera;
using namespace tessera::sema;

namespace {
/// The innermost subexpression of a combiner body that a combiner may not
/// hold (a tile, a memory access, a print), the leftmost first.
const Expr *forbiddenInCombiner(const Expr &e, std::string &why) {
  for (const ExprPtr &a : e.args)
    if (const Expr *bad = forbiddenInCombiner(*a, why))
      return bad;
  for (const KwArg &k : e.kwargs)
    if (const Expr *bad = forbiddenInCombiner(*k.value, why))
      return bad;
  for (const IndexItem &i : e.index)
    if (i.expr)
      if (const Expr *bad = forbiddenInCombiner(*i.expr, why))
        return bad;
  if (e.kind == ExprKind::Call &&
      (e.name == "load" || e.name == "store" || e.name == "print" || e.name == "assert" ||
       llvm::StringRef(e.name).starts_with("atomic_"))) {
    why = "cannot call " + e.name + "(): it may not access memory or print";
    return &e;
  }
  if (e.type.isTile()) {
    why = "works on single elements; this is a tile (" + e.type.str() + ")";
    return &e;
  }
  return nullptr;
}
} // namespace

void Checker::checkScan(Expr &e, CallArgs &) {
  static const char *kForm = "scan(x, axis, (a, b) => ...)";
  if (e.args.size() != 3) {
    error(e.loc, std::string(kForm) + " takes 3 arguments, got " + std::to_string(e.args.size()));
    return;
  }
  Expr &x = *e.args[0];
  check(x);
  if (x.type.isError())
    return;
  if (!x.type.isTile()) {
    error(x.start(), "scan() scans a tile, got " + x.type.str());
    return;
  }
  if (x.type.dtype == DType::Bool) {
    error(x.start(), "scan() is not defined on bool tiles; convert them with .to(i32)");
    return;
  }
  if (!rejectF8(x.type.dtype, x.start(), "scan()"))
    return;
  int64_t rank = x.type.shape.size();
  auto a = staticInt(*e.args[1], "the axis of scan()");
  if (!a)
    return;
  int64_t axis = *a < 0 ? *a + rank : *a;
  if (axis < 0 || axis >= rank) {
    error(e.args[1]->start(),
          "axis " + std::to_string(*a) + " is out of range for " + x.type.str());
    return;
  }
  Expr &f = *e.args[2];
  if (f.kind != ExprKind::Lambda) {
    error(f.start(), "the third argument of scan() is its combiner, a function literal such "
                     "as (a, b) => a * b");
    return;
  }
  if (f.params.size() != 2) {
    error(f.start(), "the combiner of scan() takes 2 parameters (the prefix so far, then the "
                     "next element), got " +
                         std::to_string(f.params.size()));
    return;
  }
  // The parameters: scalars of the element type, in a scope of their own.
  scopes_.emplace_back();
  bool ok = true;
  for (LambdaParam &p : f.params) {
    p.symbol = nullptr;
    if (isBuiltinFunction(p.name) || parseDType(p.name)) {
      error(p.loc, "'" + p.name + "' is a built-in name and cannot be redefined");
      ok = false;
    } else if (scopes_.back().count(p.name)) {
      error(p.loc, "the combiner names '" + p.name + "' twice");
      ok = false;
    } else if (auto k = kernelScope_.find(p.name); k != kernelScope_.end()) {
      error(p.loc, "'" + p.name + "' is already declared by the kernel (at line " +
                       std::to_string(k->second->loc.line) + ")");
      ok = false;
    } else {
      Symbol &sym = newSymbol(Symbol::Let, p.name, p.loc);
      sym.type = ValueType::scalar(x.type.dtype);
      scopes_.back()[p.name] = &sym;
      p.symbol = &sym;
    }
  }
  Expr &body = *f.args[0];
  if (ok)
    check(body);
  scopes_.pop_back();
  if (!ok || body.type.isError())
    return;
  std::string why;
  if (const Expr *bad = forbiddenInCombiner(body, why)) {
    error(bad->start(), "the combiner of scan() " + why);
    return;
  }
  if (body.type.isVoid()) {
    error(body.start(), "the combiner of scan() must give a value");
    return;
  }
  if (!coerce(body, x.type.dtype, "the combiner's result"))
    return;
  e.type = ValueType::tile(x.type.dtype, x.type.shape);
}
