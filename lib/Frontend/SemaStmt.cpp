//===- SemaStmt.cpp - checking of statements --------------------*- C++ -*-===//
//
// Declarations and scopes (let, var), assignment compatibility, loop bounds and
// if conditions.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

using namespace tessera;
using namespace tessera::sema;

void Checker::checkBlock(std::vector<StmtPtr> &stmts) {
  scopes_.emplace_back();
  for (StmtPtr &s : stmts) {
    if (diags_.full()) {
      diags_.markTruncated(); // statements are left unchecked
      break;
    }
    checkStmt(*s);
  }
  scopes_.pop_back();
}

void Checker::declareLocal(Stmt &s, Symbol::Kind kind, const ValueType &t, const Expr *init) {
  const std::string &name = s.name;
  if (isBuiltinFunction(name) || parseDType(name)) {
    error(s.nameLoc, "'" + name + "' is a built-in name and cannot be redefined");
    return;
  }
  auto &scope = scopes_.back();
  if (auto f = scope.find(name); f != scope.end()) {
    error(s.nameLoc, "'" + name + "' is already declared in this block (at line " +
                         std::to_string(f->second->loc.line) + ")");
    return;
  }
  if (auto f = kernelScope_.find(name); f != kernelScope_.end()) {
    error(s.nameLoc, "'" + name + "' is already declared by the kernel (at line " +
                         std::to_string(f->second->loc.line) + ")");
    return;
  }
  Symbol &sym = newSymbol(kind, name, s.nameLoc);
  sym.type = t;
  if (kind == Symbol::Let && init) {
    sym.constant = init->constant;
    sym.fconstant = init->fconstant;
    sym.dimDeps = init->dimDeps;
  } else {
    sym.type.literal = false;
  }
  scope[name] = &sym;
  s.symbol = &sym;
}

void Checker::checkStmt(Stmt &s) {
  switch (s.kind) {
  case StmtKind::Let:
  case StmtKind::Var: {
    check(*s.value);
    ValueType t = s.value->type;
    if (t.isVoid()) {
      error(s.value->loc, "this expression has no value");
      t = ValueType();
    }
    // Declare even after an error so that later uses do not cascade.
    declareLocal(s, s.kind == StmtKind::Let ? Symbol::Let : Symbol::Var, t, s.value.get());
    return;
  }
  case StmtKind::Assign: {
    check(*s.value);
    const Symbol *sym = lookup(s.name);
    if (!sym) {
      error(s.nameLoc, "assignment to undeclared name '" + s.name + "'; declare it with 'var " +
                           s.name + " = ...;'");
      return;
    }
    if (sym->kind != Symbol::Var) {
      std::string why = sym->kind == Symbol::Let       ? "it is declared with 'let' (use 'var')"
                        : sym->kind == Symbol::LoopVar ? "it is the loop variable"
                                                       : "it is not a variable";
      error(s.nameLoc, "cannot assign to '" + s.name + "': " + why);
      return;
    }
    s.symbol = sym;
    Expr &v = *s.value;
    if (v.type.isError() || sym->type.isError())
      return;
    if (v.type.isVoid()) {
      error(v.start(), "this expression has no value");
      return;
    }
    if (v.type.dtype != sym->type.dtype &&
        !coerce(v, sym->type.dtype, "the value assigned to '" + s.name + "'"))
      return;
    // A scalar broadcasts to the variable's shape; a tile must have it exactly.
    if (!v.type.isScalar() && v.type.shape != sym->type.shape)
      error(v.start(),
            "cannot assign " + v.type.str() + " to '" + s.name + "' of type " + sym->type.str());
    return;
  }
  case StmtKind::For: {
    bool ok = true;
    for (Expr *b : {s.lo.get(), s.hi.get(), s.step.get()}) {
      if (!b)
        continue;
      check(*b);
      if (b->type.isError()) {
        ok = false;
      } else if (!b->type.isScalar()) {
        error(b->start(), "a loop bound must be an i32 or i64 scalar, got " + b->type.str());
        ok = false;
      } else {
        ok &= coerceIndex(*b, "a loop bound");
      }
    }
    // The loop variable is i64 when a bound is (a dim of the 64-bit size class).
    DType ivType = DType::I32;
    for (Expr *b : {s.lo.get(), s.hi.get(), s.step.get()})
      if (ok && b && b->type.dtype == DType::I64)
        ivType = DType::I64;
    for (Expr *b : {s.lo.get(), s.hi.get(), s.step.get()}) {
      if (ivType != DType::I64 || !b || b->type.dtype == DType::I64)
        continue;
      if (b->type.literal || b->constant || spec_.index64) {
        ok &= widenToI64(*b); // retypes a constant
      } else {
        error(b->start(), "a loop bound is i32 where another is i64; convert it with .to(i64)");
        ok = false;
      }
    }
    if (ok && s.step && s.step->constant && *s.step->constant <= 0)
      error(s.step->loc,
            "the step of range() must be positive, got " + std::to_string(*s.step->constant));
    scopes_.emplace_back();
    Symbol &iv = newSymbol(Symbol::LoopVar, s.name, s.nameLoc);
    iv.type = ValueType::scalar(ivType);
    if (isBuiltinFunction(s.name) || parseDType(s.name) || kernelScope_.count(s.name))
      error(s.nameLoc, "the loop variable '" + s.name + "' hides a built-in or kernel name");
    scopes_.back()[s.name] = &iv;
    s.symbol = &iv;
    // The loop variable lives in the body's own block: redeclaring it is an error.
    for (StmtPtr &b : s.body) {
      if (diags_.full()) {
        diags_.markTruncated();
        break;
      }
      checkStmt(*b);
    }
    scopes_.pop_back();
    return;
  }
  case StmtKind::If: {
    check(*s.cond);
    const ValueType &t = s.cond->type;
    if (!t.isError() && (!t.isScalar() || t.dtype != DType::Bool))
      error(s.cond->start(), "the condition of 'if' must be a bool scalar, got " + t.str());
    checkBlock(s.body);
    if (s.hasElse)
      checkBlock(s.elseBody);
    return;
  }
  case StmtKind::Expr:
    check(*s.value);
    return;
  }
}
