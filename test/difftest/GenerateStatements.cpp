//===- GenerateStatements.cpp - a random kernel's statements -------------===//
//
// The kernel around the expressions of Generator.cpp: sizes and tune values
// (odd extents and ragged sizes included), the fixed prelude (program ids,
// row and column indices, the in-bounds mask), a dot in a loop over K, lets,
// a loop-carried value, an if/else assigning a var, and one to three outputs
// in block, element, masked or atomic form, some under an `if`. A loop's or
// branch's values are bounded as analyze() bounds them, so the names the body
// uses later carry the same bounds.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Gen.h"

#include "llvm/Support/MathExtras.h"

namespace tessera::difftest {

using namespace detail;

namespace detail {

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
  boundsAfter(name); // the accumulator's, after every trip
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
  if (!boundsAfter(name)) {
    p_.body.pop_back();
    p_.body.pop_back();
    env_.erase(name);
    return;
  }
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
  boundsAfter(name);
}

void Gen::stores() {
  int n = (int)uniform(1, 3);
  for (int i = 0; i < n; ++i) {
    DType dt = pickNumeric();
    if (isFloat(dt) && chance(0.1)) // an f8 output, converted from a float
      dt = chance(0.5) ? DType::F8E4M3 : DType::F8E5M2;
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
      t.lo = isUnsigned(dt) ? 0 : -8;
      t.hi = isUnsigned(dt) ? 16 : 8;
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
  if (chance(0.2)) {
    // An assert that holds whatever its operand computes (the interpreter
    // checks it; GPU code drops it outside debugging).
    ExprP e = expr({DType::Bool, pickShape()}, 2);
    if (e) {
      Stmt s;
      s.kind = Stmt::Kind::Assert;
      s.value = e;
      p_.body.push_back(s);
      feature("assert");
    }
  }
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

} // namespace detail

Program generate(uint64_t seed) {
  for (uint64_t salt = 0;; ++salt) {
    Program p = Gen(seed * 0x9E3779B97F4A7C15ull + salt).run();
    p.seed = seed;
    if (!p.body.empty() && analyze(p))
      return p;
  }
}

} // namespace tessera::difftest
