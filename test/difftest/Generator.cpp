//===- Generator.cpp - seeded random tile programs ------------------------===//
//
// Expressions grow top-down from a wanted type; every new node is bounded
// (Program.h) at once, and one that breaks a rule (an inexact comparison, a
// float16 overflow) is drawn again, so every program the generator returns
// passes analyze(). Inputs are created on first use, one tensor per dtype and
// shape class.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Generator.h"

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

namespace {

ExprP node(Op op, Ty ty, std::vector<ExprP> kids, std::string text = "") {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->ty = ty;
  e->kids = std::move(kids);
  e->text = std::move(text);
  return e;
}

ExprP leaf(Ty ty, std::string text, double mag, Op op = Op::Leaf) {
  ExprP e = node(op, ty, {}, std::move(text));
  e->mag = mag;
  return e;
}

class Gen {
public:
  explicit Gen(uint64_t seed) : rng_(seed) { p_.seed = seed; }

  Program run();

private:
  std::mt19937_64 rng_;
  Program p_;
  int64_t bm_ = 1, bn_ = 1, bk_ = 16;
  std::map<std::string, Bounds> env_;
  std::vector<std::pair<std::string, Ty>> names_;        // refs the body may use
  std::vector<std::pair<std::string, double>> loopVars_; // i32 scalars in scope
  int next_ = 0;

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[(size_t)uniform(0, (int64_t)v.size() - 1)];
  }
  void feature(const std::string &f) { p_.features.insert(f); }

  DType pickNumeric() {
    static const std::vector<DType> ts = {DType::F32,  DType::F32, DType::F32, DType::F16,
                                          DType::BF16, DType::I32, DType::I32, DType::I64};
    return pick(ts);
  }
  Shape pickShape() {
    static const std::vector<Shape> ss = {Shape::Full, Shape::Full,   Shape::Full, Shape::Rows,
                                          Shape::Cols, Shape::Scalar, Shape::FullT};
    return pick(ss);
  }

  std::string input(DType dt, Shape sh);
  /// Bounds `e` against the current names; null when it breaks a rule.
  ExprP finish(ExprP e) {
    if (!analyzeExpr(*e, env_))
      return nullptr;
    return e;
  }
  ExprP leafOf(Ty ty, bool exact);
  ExprP load(Ty ty);
  ExprP operand(Ty ty, int depth, bool exact);
  /// Two operands of an element-wise op producing `ty`: one of its shape, the
  /// other of its shape or one that broadcasts to it, in either order.
  bool operands(Ty ty, int depth, bool exact, ExprP &a, ExprP &b) {
    a = expr(ty, depth, exact);
    b = operand(ty, depth, exact);
    if (chance(0.5))
      std::swap(a, b);
    return a && b;
  }
  ExprP expr(Ty ty, int depth, bool exact = false);
  ExprP tryExpr(Ty ty, int depth, bool exact);
  void bind(const std::string &name, const ExprP &e) {
    env_[name] = {e->mag, e->err, e->exact};
    names_.push_back({name, e->ty});
  }

  void prelude();
  void dotSection();
  void lets();
  void carriedLoop();
  void branch();
  void stores();
  std::string fresh(const std::string &base) { return base + std::to_string(next_++); }
};

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
    t.lo = -8;
    t.hi = 8;
  }
  p_.tensors.push_back(t);
  return name;
}

/// A load of an input of type `ty`, in one of the forms that shape allows.
ExprP Gen::load(Ty ty) {
  double mag = isInt(ty.dt) ? 8 : 1;
  std::string padLit = isFloat(ty.dt) ? pick(std::vector<std::string>{"0.0", "0.5", "-1.0"})
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
        return ty.dt == DType::I32 ? leaf(ty, "pm", 8) : leaf(ty, "pn.to(i64)", 8);
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
    std::string cast = ty.dt == DType::I64 ? ".to(i64)" : "";
    double mag = (double)std::max(p_.dims["M"], p_.dims["N"]) * 4;
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
    std::string kind = pick(std::vector<std::string>{"cumsum", "cummax", "cummin"});
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
    if (from == ty.dt)
      from = chance(0.3) ? DType::Bool : DType::F32;
    if (from == ty.dt)
      return nullptr;
    bool needExact = exact || (isInt(ty.dt) && isFloat(from));
    ExprP s = expr(Ty{from, ty.sh}, d, needExact);
    if (!s)
      return nullptr;
    feature("convert");
    return finish(node(Op::Convert, ty, {s}));
  }
  if (c == 5) {
    // The result takes the shape of the value operands (one of them has ty's).
    ExprP cnd = operand(Ty{DType::Bool, ty.sh}, d, true);
    ExprP a, b;
    if (!cnd || !operands(ty, d, exact, a, b))
      return nullptr;
    feature("where");
    return finish(node(Op::Select, ty, {cnd, a, b}));
  }
  if (c >= 6 && c <= 8 && fl && !exact) {
    static const std::vector<Op> fns = {Op::ExpNeg, Op::Exp2Neg, Op::Tanh,  Op::Sigmoid,
                                        Op::Log1,   Op::Sqrt1,   Op::Rsqrt1};
    static const char *names[] = {"exp", "exp2", "tanh", "sigmoid", "log", "sqrt", "rsqrt"};
    size_t i = (size_t)uniform(0, (int64_t)fns.size() - 1);
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
    feature("multiply");
    return finish(node(Op::Mul, ty, {a, b}));
  }
  // + and -: the most common.
  ExprP a, b;
  if (!operands(ty, d, exact, a, b))
    return nullptr;
  return finish(node(chance(0.5) ? Op::Add : Op::Sub, ty, {a, b}));
}

void Gen::prelude() {
  auto let = [&](const std::string &n, Ty ty, const std::string &text, double mag) {
    Stmt s;
    s.kind = Stmt::Kind::Let;
    s.name = n;
    s.value = leaf(ty, text, mag);
    s.prelude = true;
    p_.body.push_back(s);
    env_[n] = {mag, 0, true};
  };
  double m = (double)std::max(p_.dims["M"], p_.dims["N"]) + 64;
  let("pm", {DType::I32, Shape::Scalar}, "program_id(0)", 16);
  let("pn", {DType::I32, Shape::Scalar}, "program_id(1)", 16);
  let("rows", {DType::I32, Shape::Rows}, "pm * BM + arange(BM)", m);
  let("cols", {DType::I32, Shape::Cols}, "pn * BN + arange(BN)", m);
  let("inb", {DType::Bool, Shape::Full}, "rows[:, None] < M && cols[None, :] < N", 1);
  names_.push_back({"inb", {DType::Bool, Shape::Full}});
}

void Gen::dotSection() {
  DType in = pick(std::vector<DType>{DType::F16, DType::BF16, DType::F32});
  DType acc = in == DType::F16 && chance(0.25) ? DType::F16 : DType::F32;
  feature("dot:" + dtypeName(in).str());
  feature("loop");
  std::string name = fresh("acc");
  Stmt init;
  init.kind = Stmt::Kind::Var;
  init.name = name;
  init.value = leaf({acc, Shape::Full}, "zeros([BM, BN], " + dtypeName(acc).str() + ")", 0);
  p_.body.push_back(init);
  env_[name] = {0, 0, true};
  Stmt loop;
  loop.kind = Stmt::Kind::For;
  loop.head = "for kk in range(0, cdiv(K, BK))";
  loop.trips = (int)((p_.dims["K"] + bk_ - 1) / bk_);
  ExprP a = expr({in, Shape::MK}, 1, true), b = expr({in, Shape::KN}, 1, true);
  ExprP ref = leaf({acc, Shape::Full}, name, 0, Op::Ref);
  ExprP dot = node(Op::Dot, {acc, Shape::Full}, {a, b, ref});
  dot->extent = bk_;
  Stmt upd;
  upd.kind = Stmt::Kind::Assign;
  upd.name = name;
  upd.value = dot;
  loop.body.push_back(upd);
  p_.body.push_back(loop);
  // The accumulator's bounds after every trip.
  Bounds b0{0, 0, true};
  for (int i = 0; i < loop.trips; ++i) {
    std::map<std::string, Bounds> env = env_;
    env[name] = b0;
    analyzeExpr(*dot, env);
    b0 = {dot->mag, dot->err, false};
  }
  env_[name] = b0;
  names_.push_back({name, {acc, Shape::Full}});
}

void Gen::lets() {
  int n = (int)uniform(1, 5);
  for (int i = 0; i < n; ++i) {
    Ty ty{chance(0.1) ? DType::Bool : pickNumeric(), pickShape()};
    ExprP e = expr(ty, (int)uniform(1, 3));
    if (!e)
      continue;
    Stmt s;
    s.kind = Stmt::Kind::Let;
    s.name = fresh("v");
    s.value = e;
    p_.body.push_back(s);
    bind(s.name, e);
  }
}

void Gen::carriedLoop() {
  feature("loop");
  Ty ty{pick(std::vector<DType>{DType::F32, DType::F32, DType::F16, DType::I32}),
        pick(std::vector<Shape>{Shape::Full, Shape::Rows, Shape::Scalar})};
  ExprP init = expr(ty, 2);
  if (!init)
    return;
  std::string name = fresh("c");
  Stmt var;
  var.kind = Stmt::Kind::Var;
  var.name = name;
  var.value = init;
  p_.body.push_back(var);
  env_[name] = {init->mag, init->err, init->exact};
  Stmt loop;
  loop.kind = Stmt::Kind::For;
  std::string iv = fresh("i");
  loop.head = "for " + iv + " in range(0, t)";
  loop.trips = 3;
  // The update: a contraction or a maximum of the carried value with a new
  // term (possibly of the loop variable), so that the bounds stay finite.
  loopVars_.push_back({iv, 3});
  ExprP term = expr(ty, 2);
  loopVars_.pop_back();
  if (!term)
    return;
  ExprP ref = leaf(ty, name, init->mag, Op::Ref);
  ExprP upd;
  if (isFloat(ty.dt) && chance(0.6))
    upd = node(Op::Add, ty, {node(Op::Scale, ty, {ref}, "0.5"), term});
  else
    upd = node(chance(0.5) ? Op::Maximum : Op::Minimum, ty, {ref, term});
  Stmt s;
  s.kind = Stmt::Kind::Assign;
  s.name = name;
  s.value = upd;
  loop.body.push_back(s);
  p_.body.push_back(loop);
  Program probe;
  probe.body = p_.body;
  if (!analyze(probe)) {
    p_.body.pop_back();
    p_.body.pop_back();
    env_.erase(name);
    return;
  }
  // Widen the var's bounds as the analysis does for a loop.
  Bounds b = env_[name];
  for (int i = 0; i < 3; ++i) {
    std::map<std::string, Bounds> env = env_;
    env[name] = b;
    analyzeExpr(*upd, env);
    b = {std::max(b.mag, upd->mag), std::max(b.err, upd->err), b.exact && upd->exact};
  }
  env_[name] = b;
  names_.push_back({name, ty});
}

void Gen::branch() {
  feature("if");
  Ty ty{pickNumeric(), pickShape()};
  ExprP init = expr(ty, 2);
  if (!init)
    return;
  std::string name = fresh("z");
  Stmt var;
  var.kind = Stmt::Kind::Var;
  var.name = name;
  var.value = init;
  p_.body.push_back(var);
  bind(name, init);
  Stmt ifs;
  ifs.kind = Stmt::Kind::If;
  ifs.head = pick(std::vector<std::string>{"(pm + pn) % 2 == 0", "pn < 1", "s0 > 0.0", "t > 1"});
  auto assign = [&]() {
    Stmt s;
    s.kind = Stmt::Kind::Assign;
    s.name = name;
    s.value = expr(ty, 2);
    return s;
  };
  ifs.body.push_back(assign());
  if (chance(0.5))
    ifs.orelse.push_back(assign());
  if (!ifs.body[0].value || (!ifs.orelse.empty() && !ifs.orelse[0].value))
    return;
  p_.body.push_back(ifs);
  Program probe;
  probe.body = p_.body;
  analyze(probe);
  for (const Stmt &s : ifs.body)
    env_[name] = {std::max(env_[name].mag, s.value->mag), std::max(env_[name].err, s.value->err),
                  env_[name].exact && s.value->exact};
  for (const Stmt &s : ifs.orelse)
    env_[name] = {std::max(env_[name].mag, s.value->mag), std::max(env_[name].err, s.value->err),
                  env_[name].exact && s.value->exact};
}

void Gen::stores() {
  int n = (int)uniform(1, 3);
  for (int i = 0; i < n; ++i) {
    DType dt = pickNumeric();
    Shape sh = pick(std::vector<Shape>{Shape::Full, Shape::Full, Shape::Full, Shape::FullT,
                                       Shape::Rows, Shape::Cols, Shape::Scalar, Shape::Rows});
    bool atomic = sh == Shape::Rows && chance(0.35);
    if (atomic)
      dt = chance(0.5) ? DType::F32 : DType::I32;
    ExprP v = expr({dt, sh}, (int)uniform(1, 4));
    if (!v)
      continue;
    TensorParam t;
    t.name = fresh("y");
    t.dt = dt;
    t.output = true;
    if (isInt(dt)) {
      t.lo = -8;
      t.hi = 8;
    }
    Stmt s;
    s.kind = Stmt::Kind::Store;
    s.value = v;
    s.target = t.name;
    switch (sh) {
    case Shape::Full:
      t.dims = {"M", "N"};
      if (chance(0.5)) {
        feature("store:block");
        s.text = "store(" + t.name + ", [pm, pn], $0);";
      } else if (chance(0.5)) {
        feature("store:element");
        s.text = "store(" + t.name + "[rows[:, None], cols[None, :]], $0);";
      } else {
        feature("store:masked");
        s.text = "store(" + t.name +
                 "[rows[:, None], cols[None, :]], $0, mask = (rows[:, None] + 2 * cols[None, :]) % "
                 "3 != 0);";
      }
      break;
    case Shape::FullT:
      t.dims = {"N", "M"};
      feature("store:block");
      s.text = "store(" + t.name + ", [pn, pm], $0);";
      break;
    case Shape::Rows:
      if (atomic) {
        t.dims = {"M"};
        std::string op =
            dt == DType::I32
                ? pick(std::vector<std::string>{"atomic_add", "atomic_max", "atomic_min"})
                : "atomic_add";
        feature(op);
        s.text = op + "(" + t.name + "[rows], $0, mask = rows < M);";
        s.contributions = (int)p_.dims["GN"];
      } else {
        t.dims = {"M", "GN"};
        feature("store:element");
        s.text = "store(" + t.name + "[rows, pn], $0);";
      }
      break;
    case Shape::Cols:
      t.dims = {"GM", "N"};
      feature("store:element");
      s.text = "store(" + t.name + "[pm, cols], $0);";
      break;
    default:
      t.dims = {"GM", "GN"};
      feature("store:scalar");
      s.text = "store(" + t.name + "[pm, pn], $0);";
      break;
    }
    p_.tensors.push_back(t);
    if (!atomic && chance(0.15)) {
      feature("if");
      Stmt ifs;
      ifs.kind = Stmt::Kind::If;
      ifs.head = "(pm + 2 * pn) % 3 != 1";
      ifs.body.push_back(s);
      p_.body.push_back(ifs);
    } else {
      p_.body.push_back(s);
    }
  }
}

Program Gen::run() {
  static const std::vector<int64_t> pow2 = {1, 2, 4, 8, 16, 16, 32, 32, 64};
  static const std::vector<int64_t> odd = {3, 5, 6, 12, 20, 24, 48};
  do {
    bm_ = chance(0.2) ? pick(odd) : pick(pow2);
    bn_ = chance(0.2) ? pick(odd) : pick(pow2);
  } while (bm_ * bn_ > 2048 || bm_ * bn_ < 2);
  bool dot = chance(0.3);
  bk_ = pick(std::vector<int64_t>{16, 32, 16, 24});
  int64_t warps = pick(std::vector<int64_t>{1, 2, 4, 4, 8});
  p_.dims["M"] = uniform(1, 3 * bm_ + 5);
  p_.dims["N"] = uniform(1, 3 * bn_ + 5);
  p_.dims["K"] = uniform(1, 3 * bk_);
  p_.dims["GM"] = (p_.dims["M"] + bm_ - 1) / bm_;
  p_.dims["GN"] = (p_.dims["N"] + bn_ - 1) / bn_;
  p_.tunes = {{"BM", bm_}, {"BN", bn_}};
  if (dot)
    p_.tunes.push_back({"BK", bk_});
  p_.tunes.push_back({"num_warps", warps});
  if (!llvm::isPowerOf2_64(bm_) || !llvm::isPowerOf2_64(bn_))
    feature("odd-extent");
  if (p_.dims["M"] % bm_ || p_.dims["N"] % bn_)
    feature("ragged");
  p_.grid = "[cdiv(M, BM), cdiv(N, BN)]";
  TensorParam anchor; // names M and N for the grid whatever the body keeps
  anchor.name = "mn";
  anchor.dt = DType::I32;
  anchor.dims = {"M", "N"};
  anchor.lo = anchor.hi = 0;
  anchor.anchor = true;
  p_.tensors.push_back(anchor);
  p_.scalars = {{"s0", DType::F32, (double)uniform(-100, 100) / 128.0},
                {"t", DType::I32, (double)uniform(0, 3)}};
  prelude();
  if (dot) {
    TensorParam k = anchor; // names K for the loop whatever its operands become
    k.name = "kdim";
    k.dims = {"K"};
    p_.tensors.push_back(k);
    dotSection();
  }
  lets();
  if (chance(0.3))
    carriedLoop();
  if (chance(0.3))
    branch();
  stores();
  if (std::none_of(p_.body.begin(), p_.body.end(), [](const Stmt &s) {
        return s.kind == Stmt::Kind::Store || s.kind == Stmt::Kind::If;
      })) {
    p_.tensors.clear();
    p_.body.clear();
    return p_; // the caller draws again
  }
  for (const TensorParam &t : p_.tensors)
    feature(dtypeName(t.dt).str());
  return p_;
}

} // namespace

Program generate(uint64_t seed) {
  for (uint64_t salt = 0;; ++salt) {
    Program p = Gen(seed * 0x9E3779B97F4A7C15ull + salt).run();
    p.seed = seed;
    if (!p.body.empty() && analyze(p))
      return p;
  }
}

} // namespace tessera::difftest
