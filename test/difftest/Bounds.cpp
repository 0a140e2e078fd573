//===- Bounds.cpp - value and error bounds of generated programs ----------===//
//
// analyze() walks a generated program and bounds every node: the magnitude it
// may reach and the error it may carry against exact arithmetic, from which
// each output's tolerance follows. The bounds are deliberately loose (they
// assume the worst rounding at every step, and a reduction order as bad as a
// sequential one): a wrong mask, index or layout moves an element by about
// its own magnitude, far beyond them, while a correct executor never leaves
// them. A program whose bounds could overflow its types fails analyze(), and
// the generator draws another.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Program.h"

#include <algorithm>
#include <cmath>

namespace tessera::difftest {

double epsOf(DType dt) {
  switch (dt) {
  case DType::F32:
    return std::ldexp(1.0, -24);
  case DType::F16:
    return std::ldexp(1.0, -11);
  case DType::BF16:
    return std::ldexp(1.0, -8);
  case DType::F64:
    return std::ldexp(1.0, -53);
  case DType::F8E4M3:
    return std::ldexp(1.0, -4);
  case DType::F8E5M2:
    return std::ldexp(1.0, -3);
  default:
    return 0;
  }
}

namespace {

/// The largest magnitude a type may carry before a step could overflow it.
double limitOf(DType dt) {
  switch (dt) {
  case DType::F16:
    return 3e4;
  case DType::F8E4M3:
    return 400;
  case DType::F8E5M2:
    return 5e4;
  case DType::I32:
  case DType::I8: // i8, u8 and u32 wrap around as the language defines, on both sides
  case DType::U8:
  case DType::U32:
    return std::ldexp(1.0, 30);
  case DType::I64:
    return std::ldexp(1.0, 52);
  case DType::Bool:
    return 1;
  default:
    return 1e30;
  }
}

class Analyzer {
public:
  bool ok = true;

  void stmts(std::vector<Stmt> &ss) {
    for (Stmt &s : ss)
      stmt(s);
  }

  std::map<std::string, double> tol;
  std::map<std::string, Bounds> env_;

  void fail() { ok = false; }

public:
  void stmt(Stmt &s) {
    switch (s.kind) {
    case Stmt::Kind::Let:
    case Stmt::Kind::Var:
      expr(*s.value);
      env_[s.name] = {s.value->mag, s.value->err, s.value->exact};
      break;
    case Stmt::Kind::Assert:
      expr(*s.value);
      break;
    case Stmt::Kind::Assign: {
      if (!env_.count(s.name))
        return fail();
      expr(*s.value);
      Bounds &b = env_[s.name];
      b = {std::max(b.mag, s.value->mag), std::max(b.err, s.value->err), b.exact && s.value->exact};
      break;
    }
    case Stmt::Kind::Store: {
      expr(*s.value);
      const Expr &v = *s.value;
      double t = (v.err + 2 * epsOf(v.ty.dt) * v.mag) * s.contributions;
      // Atomic float adds in any order onto the output's first value (|x| <= 1).
      if (s.contributions > 1 && isFloat(v.ty.dt))
        t += 2 * epsOf(v.ty.dt) * (1 + v.mag * s.contributions) * s.contributions;
      tol[s.target] = std::max(tol[s.target], t);
      break;
    }
    case Stmt::Kind::For: {
      // Bounds that hold after any number of trips up to s.trips: run the body
      // that often, widening the carried values each time.
      for (int i = 0; i < std::max(1, s.trips); ++i)
        scoped(s.body);
      break;
    }
    case Stmt::Kind::If:
      scoped(s.body);
      scoped(s.orelse);
      break;
    }
  }

  /// A block: its own names go out of scope, assignments to outer vars stay.
  void scoped(std::vector<Stmt> &ss) {
    std::map<std::string, Bounds> outer = env_;
    stmts(ss);
    for (auto &[name, b] : outer) {
      Bounds &now = env_[name];
      b = {std::max(b.mag, now.mag), std::max(b.err, now.err), b.exact && now.exact};
    }
    env_ = std::move(outer);
  }

  void expr(Expr &e) {
    if (!ok)
      return;
    for (ExprP &k : e.kids)
      expr(*k);
    auto K = [&](size_t i) -> Expr & { return *e.kids[i]; };
    double eps = epsOf(e.ty.dt);
    auto rounded = [&](double mag) { return 2 * eps * mag; };
    // The error of K(0) * K(1) from its operands' errors, before its rounding.
    auto productErr = [&] {
      return K(0).err * K(1).mag + K(1).err * K(0).mag + K(0).err * K(1).err;
    };
    switch (e.op) {
    case Op::Leaf:
    case Op::Lit:
      e.err = 0;
      e.exact = true;
      break;
    case Op::Ref: {
      auto it = env_.find(e.text);
      if (it == env_.end())
        return fail();
      e.mag = it->second.mag;
      e.err = it->second.err;
      e.exact = it->second.exact;
      break;
    }
    case Op::Add:
    case Op::Sub:
      e.mag = K(0).mag + K(1).mag;
      e.err = K(0).err + K(1).err + rounded(e.mag);
      e.exact = K(0).exact && K(1).exact;
      break;
    case Op::Mul:
      e.mag = K(0).mag * K(1).mag;
      e.err = productErr() + rounded(e.mag);
      e.exact = isInt(e.ty.dt) && K(0).exact && K(1).exact;
      break;
    case Op::Fma: {
      // One rounding of the exact a * b + c; f16 and bf16 round in f32 first.
      e.mag = K(0).mag * K(1).mag + K(2).mag;
      bool viaF32 = e.ty.dt != DType::F32 && e.ty.dt != DType::F64;
      e.err =
          productErr() + K(2).err + rounded(e.mag) + (viaF32 ? 2 * epsOf(DType::F32) * e.mag : 0);
      e.exact = false;
      break;
    }
    case Op::Scale: {
      double f = std::fabs(std::stod(e.text));
      e.mag = K(0).mag * f;
      e.err = K(0).err * f;
      e.exact = K(0).exact;
      break;
    }
    case Op::Div:
      e.mag = K(0).mag;
      e.err = K(0).err + K(0).mag * K(1).err + rounded(e.mag);
      e.exact = false;
      break;
    case Op::IDiv:
    case Op::Rem:
      if (!K(0).exact)
        fail();
      e.mag = e.op == Op::Rem ? std::min(K(0).mag, std::stod(e.text)) : K(0).mag;
      e.err = 0;
      e.exact = true;
      break;
    case Op::Neg:
    case Op::Abs:
      e.mag = K(0).mag;
      e.err = K(0).err;
      e.exact = K(0).exact;
      break;
    case Op::Maximum:
    case Op::Minimum:
      e.mag = std::max(K(0).mag, K(1).mag);
      e.err = std::max(K(0).err, K(1).err);
      e.exact = K(0).exact && K(1).exact;
      break;
    case Op::Select:
      if (!K(0).exact)
        fail();
      e.mag = std::max(K(1).mag, K(2).mag);
      e.err = std::max(K(1).err, K(2).err);
      e.exact = K(1).exact && K(2).exact;
      break;
    case Op::Cmp:
    case Op::And:
    case Op::Or:
    case Op::Not:
      for (ExprP &k : e.kids)
        if (!k->exact)
          fail();
      e.mag = 1;
      e.err = 0;
      e.exact = true;
      break;
    case Op::ExpNeg:
    case Op::Exp2Neg:
      e.mag = 1;
      e.err = K(0).err + 1e-6 + rounded(1);
      e.exact = false;
      break;
    case Op::Tanh:
      e.mag = std::min(1.0, K(0).mag);
      e.err = K(0).err + 1e-3 * e.mag + rounded(e.mag);
      e.exact = false;
      break;
    case Op::Sigmoid:
      e.mag = 1;
      e.err = 0.25 * K(0).err + 1e-6 + rounded(1);
      e.exact = false;
      break;
    case Op::Log1:
      e.mag = std::log(K(0).mag + 1);
      e.err = K(0).err + 1e-5 + rounded(e.mag);
      e.exact = false;
      break;
    case Op::Sqrt1:
      e.mag = std::sqrt(K(0).mag + 1);
      e.err = 0.5 * K(0).err + rounded(e.mag);
      e.exact = false;
      break;
    case Op::Rsqrt1:
      e.mag = 1;
      e.err = 0.5 * K(0).err + 1e-6 + rounded(1);
      e.exact = false;
      break;
    case Op::Convert: {
      DType from = K(0).ty.dt;
      e.mag = K(0).mag;
      if (isInt(e.ty.dt) && isFloat(from) && (!K(0).exact || K(0).mag > std::ldexp(1.0, 30)))
        fail();
      e.err = K(0).err + rounded(e.mag);
      e.exact = K(0).exact;
      break;
    }
    case Op::Bcast:
    case Op::Transpose:
    case Op::Permute:
    case Op::Reshape:
      e.mag = K(0).mag;
      e.err = K(0).err;
      e.exact = K(0).exact;
      break;
    case Op::Reduce:
    case Op::Scan: {
      double n = (double)e.extent;
      if (e.text == "sum" || e.text == "cumsum" || e.text == "scan:sum") {
        e.mag = n * K(0).mag;
        double steps = std::min(n, 64.0) + std::ceil(std::log2(n)) + 2;
        e.err = n * K(0).err + steps * 2 * eps * e.mag;
        e.exact = isInt(e.ty.dt) && K(0).exact;
      } else {
        e.mag = K(0).mag;
        e.err = K(0).err;
        e.exact = K(0).exact;
      }
      break;
    }
    case Op::ArgReduce:
      if (!K(0).exact)
        fail();
      e.mag = (double)e.extent;
      e.err = 0;
      e.exact = true;
      break;
    case Op::Dot: {
      // dot(a [BM, BK], b [BK, BN], acc): e.extent is BK.
      double n = (double)e.extent;
      double prod = n * K(0).mag * K(1).mag;
      e.mag = K(2).mag + prod;
      e.err = K(2).err + n * (K(0).err * K(1).mag + K(1).err * K(0).mag) +
              (std::min(n, 64.0) + std::ceil(std::log2(n)) + 2) * 2 * epsOf(DType::F32) * prod +
              rounded(e.mag);
      e.exact = false;
      break;
    }
    }
    if (e.mag > limitOf(e.ty.dt) || !std::isfinite(e.mag) || !std::isfinite(e.err))
      fail();
  }
};

} // namespace

bool analyzeExpr(Expr &e, const std::map<std::string, Bounds> &env) {
  Analyzer a;
  a.env_ = env;
  a.expr(e);
  return a.ok;
}

bool analyze(Program &p, std::map<std::string, Bounds> *names) {
  if (!p.fixedSource.empty())
    return true;
  Analyzer a;
  a.stmts(p.body);
  if (names)
    *names = std::move(a.env_);
  return a.ok;
}

std::map<std::string, double> Program::tolerances() const {
  if (!fixedSource.empty())
    return fixedTolerances;
  Analyzer a;
  Program copy = *this; // analyze writes the nodes, which the copy shares: same values
  a.stmts(copy.body);
  for (auto &[name, t] : a.tol)
    t += 1e-30; // subnormal results flush to zero on the GPU
  return a.tol;
}

} // namespace tessera::difftest
