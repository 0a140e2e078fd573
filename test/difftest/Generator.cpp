//===- Generator.cpp - seeded random tile programs ------------------------===//
//
// Expressions grow top-down from a wanted type; every new node is bounded
// (Program.h) at once, and one that breaks a rule (an inexact comparison, a
// float16 overflow) is drawn again, so every program the generator returns
// passes analyze(). Inputs are created on first use, one tensor per dtype and
// shape class.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Gen.h"

#include "llvm/Support/MathExtras.h"

#include <random>

namespace tessera::difftest {

std::string shapeText(Shape sh) {
  switch (sh) {
  case Shape::Full:
    return "[BM, BN]";
  case Shape::FullT:
    return "[BN, BM]";
  case Shape::Rows:
    return "[BM]";
  case Shape::Cols:
    return "[BN]";
  case Shape::Scalar:
    return "[]";
  case Shape::MK:
    return "[BM, BK]";
  case Shape::KN:
    return "[BK, BN]";
  }
  return "[]";
}

ExprP constantOf(Ty ty) {
  auto e = std::make_shared<Expr>();
  e->ty = ty;
  e->op = Op::Leaf;
  std::string v = ty.dt == DType::Bool ? "true" : isFloat(ty.dt) ? "0.5" : "3";
  e->text = "full(" + shapeText(ty.sh) + ", " + v + ", " + dtypeName(ty.dt).str() + ")";
  e->mag = ty.dt == DType::Bool ? 1 : isFloat(ty.dt) ? 0.5 : 3;
  return e;
}

namespace detail {

std::string Gen::input(DType dt, Shape sh) {
  std::string prefix = sh == Shape::Full    ? "x"
                       : sh == Shape::FullT ? "xt"
                       : sh == Shape::Rows  ? "r"
                       : sh == Shape::Cols  ? "c"
                       : sh == Shape::MK    ? "a"
                                            : "b";
  std::string name = prefix + "_" + dtypeName(dt).str();
  for (const TensorParam &t : p_.tensors)
    if (t.name == name)
      return name;
  TensorParam t;
  t.name = name;
  t.dt = dt;
  switch (sh) {
  case Shape::Full:
    t.dims = {"M", "N"};
    break;
  case Shape::FullT:
    t.dims = {"N", "M"};
    break;
  case Shape::Rows:
    t.dims = {"M"};
    break;
  case Shape::Cols:
    t.dims = {"N"};
    break;
  case Shape::MK:
    t.dims = {"M", "K"};
    break;
  default:
    t.dims = {"K", "N"};
    break;
  }
  if (isInt(dt)) {
    t.lo = isUnsigned(dt) ? 0 : -8;
    t.hi = isUnsigned(dt) ? 16 : 8;
  }
  p_.tensors.push_back(t);
  return name;
}

/// A load of an input of type `ty`, in one of the forms that shape allows.
ExprP Gen::load(Ty ty) {
  double mag = isInt(ty.dt) ? 8 : 1;
  std::string padLit = isFloat(ty.dt)      ? pick(std::vector<std::string>{"0.0", "0.5", "-1.0"})
                       : isUnsigned(ty.dt) ? pick(std::vector<std::string>{"0", "1", "3"})
                                           : pick(std::vector<std::string>{"0", "1", "-3"});
  double pad = std::fabs(std::stod(padLit));
  mag = std::max(mag, pad);
  std::string dt = dtypeName(ty.dt).str();
  switch (ty.sh) {
  case Shape::Full: {
    std::string x = input(ty.dt, Shape::Full);
    switch (uniform(0, 4)) {
    case 0:
      feature("load:block");
      return leaf(
          ty, "load(" + x + ", [pm, pn], [BM, BN]" + (chance(0.5) ? "" : ", pad = " + padLit) + ")",
          mag);
    case 1:
      feature("load:masked");
      return leaf(ty,
                  "load(" + x +
                      "[rows[:, None], cols[None, :]], mask = inb && ((rows[:, None] + cols[None, "
                      ":]) % 3 != 1), pad = " +
                      padLit + ")",
                  mag);
    case 2: {
      feature("load:shifted");
      int64_t dr = uniform(-1, 2), dc = uniform(-2, 1);
      return leaf(ty,
                  "load(" + x + "[rows[:, None] + " + std::to_string(dr) + ", cols[None, :] + " +
                      std::to_string(dc) + "], pad = " + padLit + ")",
                  mag);
    }
    case 3: {
      feature("load:gather");
      if (std::none_of(p_.tensors.begin(), p_.tensors.end(),
                       [](const TensorParam &t) { return t.name == "ix"; })) {
        TensorParam t;
        t.name = "ix";
        t.dt = DType::I32;
        t.dims = {"M", "N"};
        t.lo = -2;
        t.hi = (double)p_.dims["N"] + 1;
        p_.tensors.push_back(t);
      }
      return leaf(
          ty, "load(" + x + "[rows[:, None], load(ix, [pm, pn], [BM, BN])], pad = " + padLit + ")",
          mag);
    }
    default:
      feature("load:block");
      return leaf(ty, "load(" + x + ", [pm, pn], [BM, BN])", isInt(ty.dt) ? 8 : 1);
    }
  }
  case Shape::FullT:
    feature("load:block");
    return leaf(ty, "load(" + input(ty.dt, Shape::FullT) + ", [pn, pm], [BN, BM])", mag);
  case Shape::Rows:
    if (chance(0.5)) {
      feature("load:block");
      return leaf(ty, "load(" + input(ty.dt, Shape::Rows) + ", [pm], [BM], pad = " + padLit + ")",
                  mag);
    }
    feature("load:shifted");
    return leaf(ty, "load(" + input(ty.dt, Shape::Rows) + "[rows - 1], pad = " + padLit + ")", mag);
  case Shape::Cols:
    feature("load:block");
    return leaf(ty, "load(" + input(ty.dt, Shape::Cols) + ", [pn], [BN])", mag);
  case Shape::Scalar:
    feature("load:scalar");
    return leaf(ty, "load(" + input(ty.dt, Shape::Full) + "[pm, pn * BN])", mag);
  case Shape::MK:
    if (chance(0.5)) {
      feature("load:block");
      return leaf(ty, "load(" + input(ty.dt, Shape::MK) + ", [pm, kk], [BM, BK])", mag);
    }
    feature("load:masked");
    return leaf(ty,
                "load(" + input(ty.dt, Shape::MK) +
                    "[rows[:, None], kk * BK + arange(BK)[None, :]], mask = rows[:, None] < M)",
                1);
  case Shape::KN:
    feature("load:block");
    return leaf(ty, "load(" + input(ty.dt, Shape::KN) + ", [kk, pn], [BK, BN])", mag);
  }
  return nullptr;
}

/// A leaf of type `ty`: a load, a name in scope, an index tile or a constant.
ExprP Gen::leafOf(Ty ty, bool exact) {
  std::vector<std::pair<std::string, Ty>> refs;
  for (auto &[n, t] : names_)
    if (t == ty && (!exact || env_[n].exact))
      refs.push_back({n, t});
  if (!refs.empty() && chance(0.45)) {
    auto [n, t] = pick(refs);
    return finish(leaf(t, n, env_[n].mag, Op::Ref));
  }
  if (ty.dt == DType::Bool) {
    Ty num{isFloat(pickNumeric()) ? DType::F32 : DType::I32, ty.sh};
    ExprP a = leafOf(num, true);
    ExprP b = leaf(Ty{num.dt, Shape::Scalar}, num.dt == DType::F32 ? "0.25" : "2", 1, Op::Lit);
    if (!a)
      return nullptr;
    return finish(node(Op::Cmp, ty, {a, b}, pick(std::vector<std::string>{"<", ">=", "!="})));
  }
  if (ty.sh == Shape::Scalar) {
    switch (uniform(0, 3)) {
    case 0:
      if (!loopVars_.empty() && ty.dt == DType::I32) {
        auto [n, m] = loopVars_.back();
        return leaf(ty, n, m);
      }
      [[fallthrough]];
    case 1:
      if (isInt(ty.dt))
        return ty.dt == DType::I32 ? leaf(ty, "pm", 8)
                                   : leaf(ty, "pn.to(" + dtypeName(ty.dt).str() + ")", 8);
      return ty.dt == DType::F32 ? leaf(ty, "s0", 1)
                                 : leaf(ty, "s0.to(" + dtypeName(ty.dt).str() + ")", 1);
    case 2:
      return constantOf(ty);
    default:
      return load(ty);
    }
  }
  if (isInt(ty.dt) && chance(0.25) &&
      (ty.sh == Shape::Full || ty.sh == Shape::Rows || ty.sh == Shape::Cols)) {
    feature("index-math");
    std::string cast = ty.dt == DType::I32 ? "" : ".to(" + dtypeName(ty.dt).str() + ")";
    // rows and cols reach the padded grid's last block: GM * BM and GN * BN.
    double mag = (double)std::max(p_.dims["GM"] * bm_, p_.dims["GN"] * bn_) * 4 + 8;
    if (ty.sh == Shape::Rows)
      return leaf(ty, "rows" + cast, mag);
    if (ty.sh == Shape::Cols)
      return leaf(ty, "cols" + cast, mag);
    return leaf(ty, "(rows[:, None] * 3 - cols[None, :])" + cast, mag);
  }
  if (chance(0.1))
    return constantOf(ty);
  return load(ty);
}

/// An operand of an element-wise op producing `ty`: of that shape, or one that
/// broadcasts to it.
ExprP Gen::operand(Ty ty, int depth, bool exact) {
  if (ty.sh == Shape::Full || ty.sh == Shape::FullT) {
    int c = (int)uniform(0, 5);
    if (c == 0 || c == 1) {
      Shape small = c == 0 ? Shape::Rows : Shape::Cols;
      ExprP v = expr(Ty{ty.dt, small}, depth, exact);
      if (!v)
        return nullptr;
      bool rowsFirst = (small == Shape::Rows) == (ty.sh == Shape::Full);
      feature("broadcast");
      return finish(node(Op::Bcast, ty, {v}, rowsFirst ? "[:, None]" : "[None, :]"));
    }
    if (c == 2)
      return expr(Ty{ty.dt, Shape::Scalar}, depth, exact);
  } else if ((ty.sh == Shape::Rows || ty.sh == Shape::Cols) && chance(0.2)) {
    return expr(Ty{ty.dt, Shape::Scalar}, depth, exact);
  }
  return expr(ty, depth, exact);
}

ExprP Gen::expr(Ty ty, int depth, bool exact) {
  for (int attempt = 0; attempt < 6; ++attempt)
    if (ExprP e = tryExpr(ty, depth, exact))
      return e;
  for (int attempt = 0; attempt < 4; ++attempt)
    if (ExprP e = leafOf(ty, exact))
      if (finish(e))
        return e;
  return finish(constantOf(ty));
}

ExprP Gen::tryExpr(Ty ty, int depth, bool exact) {
  if (depth <= 0 || chance(0.2))
    return finish(leafOf(ty, exact));
  int d = depth - 1;
  bool fl = isFloat(ty.dt), in = isInt(ty.dt);
  if (isF8(ty.dt)) {
    // f8 values only load, convert, select and move.
    if (chance(0.6))
      return convertFrom(ty,
                         pick(std::vector<DType>{DType::F32, DType::F32, DType::F16, DType::BF16,
                                                 DType::F64, DType::I32}),
                         d, exact);
    return select(ty, d, exact);
  }
  if (ty.dt == DType::Bool) {
    switch (uniform(0, 3)) {
    case 0:
    case 1: {
      Ty num{pickNumeric(), ty.sh};
      ExprP a, b;
      if (!operands(num, d, true, a, b))
        return nullptr;
      feature("compare");
      static const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
      return finish(node(Op::Cmp, ty, {a, b}, pick(ops)));
    }
    case 2: {
      ExprP a, b;
      if (!operands(ty, d, true, a, b))
        return nullptr;
      feature("logical");
      return finish(node(chance(0.5) ? Op::And : Op::Or, ty, {a, b}));
    }
    default: {
      ExprP a = expr(ty, d);
      return a ? finish(node(Op::Not, ty, {a})) : nullptr;
    }
    }
  }
  // Shape-changing productions first, then element-wise ones.
  int c = (int)uniform(0, 19);
  if (ty.sh == Shape::MK || ty.sh == Shape::KN) {
    // A dot operand: loads with an exact element-wise touch.
    ExprP a = leafOf(ty, true);
    if (!a || !fl)
      return a ? finish(a) : nullptr;
    return finish(chance(0.5) ? node(Op::Scale, ty, {a}, "2.0") : node(Op::Abs, ty, {a}));
  }
  if (c == 0 && (ty.sh == Shape::Rows || ty.sh == Shape::Cols || ty.sh == Shape::Scalar)) {
    // A reduction to this shape.
    Ty src = ty;
    int axis = 0;
    int64_t n = 1;
    if (ty.sh == Shape::Scalar) {
      src.sh = chance(0.5) ? Shape::Rows : Shape::Cols;
      n = src.sh == Shape::Rows ? bm_ : bn_;
    } else {
      bool fromT = chance(0.3);
      src.sh = fromT ? Shape::FullT : Shape::Full;
      axis = (ty.sh == Shape::Rows) != fromT ? 1 : 0;
      n = ty.sh == Shape::Rows ? bn_ : bm_;
    }
    bool arg = ty.dt == DType::I32 && chance(0.4);
    if (arg)
      src.dt = pickNumeric();
    std::string kind = arg ? pick(std::vector<std::string>{"argmax", "argmin"})
                           : pick(std::vector<std::string>{"sum", "max", "min"});
    ExprP s = expr(src, d, exact || arg);
    if (!s)
      return nullptr;
    ExprP r = node(arg ? Op::ArgReduce : Op::Reduce, ty, {s}, kind);
    r->axis = axis;
    r->extent = n;
    feature(kind + ":axis" + std::to_string(axis));
    return finish(r);
  }
  if (c == 1 && ty.sh != Shape::Scalar && !(exact && fl)) {
    // The fixed scans, or scan() with a combiner (scanCombiner() in Program.h):
    // exact ones only, so the GPU's association order cannot matter.
    std::vector<std::string> kinds = {"cumsum",   "cummax",    "cummin",
                                      "scan:max", "scan:fill", "scan:largest"};
    if (in)
      kinds.push_back("scan:sum");
    std::string kind = pick(kinds);
    int axis = ty.sh == Shape::Full || ty.sh == Shape::FullT ? (int)uniform(0, 1) : 0;
    ExprP s = expr(ty, d, exact);
    if (!s)
      return nullptr;
    ExprP r = node(Op::Scan, ty, {s}, kind);
    r->axis = axis;
    bool rowsAxis = (ty.sh == Shape::Full) == (axis == 0);
    r->extent = ty.sh == Shape::Rows ? bm_ : ty.sh == Shape::Cols ? bn_ : rowsAxis ? bm_ : bn_;
    feature(kind);
    return finish(r);
  }
  if (c == 2 && (ty.sh == Shape::Full || ty.sh == Shape::FullT)) {
    Shape other = ty.sh == Shape::Full ? Shape::FullT : Shape::Full;
    ExprP s = expr(Ty{ty.dt, other}, d, exact);
    if (!s)
      return nullptr;
    bool pow2 = llvm::isPowerOf2_64(bm_) && llvm::isPowerOf2_64(bn_);
    if (pow2 && chance(0.3)) {
      feature("permute");
      return finish(node(Op::Permute, ty, {s}));
    }
    feature("transpose");
    return finish(node(Op::Transpose, ty, {s}));
  }
  if (c == 3 && (ty.sh == Shape::Full || ty.sh == Shape::FullT) && llvm::isPowerOf2_64(bm_) &&
      llvm::isPowerOf2_64(bn_)) {
    // Reinterpret the other block shape's elements in row-major order.
    Shape other = ty.sh == Shape::Full ? Shape::FullT : Shape::Full;
    ExprP s = expr(Ty{ty.dt, other}, d, exact);
    if (!s)
      return nullptr;
    feature("reshape");
    std::string shape = ty.sh == Shape::Full
                            ? "[" + std::to_string(bm_) + ", " + std::to_string(bn_) + "]"
                            : "[" + std::to_string(bn_) + ", " + std::to_string(bm_) + "]";
    return finish(node(Op::Reshape, ty, {s}, shape));
  }
  if (c == 4) {
    // A conversion from another type.
    DType from = pickNumeric();
    if (isFloat(ty.dt) && chance(0.15)) // the f8 values of a float tile
      from = chance(0.5) ? DType::F8E4M3 : DType::F8E5M2;
    if (from == ty.dt)
      from = chance(0.3) ? DType::Bool : DType::F32;
    if (from == ty.dt)
      return nullptr;
    return convertFrom(ty, from, d, exact || (isInt(ty.dt) && isFloat(from)));
  }
  if (c == 5)
    return select(ty, d, exact);
  if (c >= 6 && c <= 8 && fl && !exact) {
    static const std::vector<Op> fns = {Op::ExpNeg, Op::Exp2Neg, Op::Tanh,  Op::Sigmoid,
                                        Op::Log1,   Op::Sqrt1,   Op::Rsqrt1};
    static const char *names[] = {"exp", "exp2", "tanh", "sigmoid", "log", "sqrt", "rsqrt"};
    // f64 has sqrt of these (the GPU's approximations are f32 ones).
    size_t i = ty.dt == DType::F64 ? 5 : (size_t)uniform(0, (int64_t)fns.size() - 1);
    ExprP a = expr(ty, d);
    if (!a)
      return nullptr;
    feature(names[i]);
    return finish(node(fns[i], ty, {a}));
  }
  if (c == 9 && fl && !exact) {
    ExprP a, b;
    if (!operands(ty, d, false, a, b))
      return nullptr;
    feature("divide");
    // The result has the shape of the broadcast, which is ty's.
    return finish(node(Op::Div, ty, {a, b}));
  }
  if (c == 10 && in) {
    ExprP a = expr(ty, d, true);
    if (!a)
      return nullptr;
    feature("int-div-rem");
    return finish(node(chance(0.5) ? Op::IDiv : Op::Rem, ty, {a},
                       pick(std::vector<std::string>{"2", "3", "5"})));
  }
  if (c == 11) {
    ExprP a = expr(ty, d, exact);
    if (!a)
      return nullptr;
    if (fl) {
      feature("scale");
      return finish(node(Op::Scale, ty, {a}, pick(std::vector<std::string>{"2.0", "0.5", "-4.0"})));
    }
    return finish(node(Op::Neg, ty, {a}));
  }
  if (c == 12) {
    ExprP a = expr(ty, d, exact);
    return a ? finish(node(chance(0.5) ? Op::Abs : Op::Neg, ty, {a})) : nullptr;
  }
  if (c == 13 || c == 14) {
    ExprP a, b;
    if (!operands(ty, d, exact, a, b))
      return nullptr;
    feature("maximum-minimum");
    return finish(node(c == 13 ? Op::Maximum : Op::Minimum, ty, {a, b}));
  }
  if (c == 15 && (!exact || in)) {
    ExprP a, b;
    if (!operands(ty, d, exact, a, b))
      return nullptr;
    if (fl && !exact && chance(0.25)) { // f8 values never get here (above)
      ExprP s = expr(ty, d);
      if (!s)
        return nullptr;
      feature("fma");
      return finish(node(Op::Fma, ty, {a, b, s}));
    }
    feature("multiply");
    return finish(node(Op::Mul, ty, {a, b}));
  }
  // + and -: the most common.
  ExprP a, b;
  if (!operands(ty, d, exact, a, b))
    return nullptr;
  return finish(node(chance(0.5) ? Op::Add : Op::Sub, ty, {a, b}));
}

ExprP Gen::convertFrom(Ty ty, DType from, int depth, bool exact) {
  ExprP s = expr(Ty{from, ty.sh}, depth, exact);
  if (!s)
    return nullptr;
  feature("convert");
  return finish(node(Op::Convert, ty, {s}));
}

ExprP Gen::select(Ty ty, int depth, bool exact) {
  // The result takes the shape of the value operands (one of them has ty's).
  ExprP cnd = operand(Ty{DType::Bool, ty.sh}, depth, true);
  ExprP a, b;
  if (!cnd || !operands(ty, depth, exact, a, b))
    return nullptr;
  feature("where");
  return finish(node(Op::Select, ty, {cnd, a, b}));
}
} // namespace detail

} // namespace tessera::difftest
