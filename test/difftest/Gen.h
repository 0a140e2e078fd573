//===- Gen.h - the generator's state (private to test/difftest) -*- C++ -*-===//
//
// The generator of Generator.cpp (expressions: leaves, loads, operators) and
// GenerateStatements.cpp (the kernel's statements, parameters and sizes). Not
// an interface: Generator.h is.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_DIFFTEST_GEN_H
#define TESSERA_TEST_DIFFTEST_GEN_H

#include "test/difftest/Generator.h"

#include <random>

namespace tessera::difftest::detail {

inline ExprP node(Op op, Ty ty, std::vector<ExprP> kids, std::string text = "") {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->ty = ty;
  e->kids = std::move(kids);
  e->text = std::move(text);
  return e;
}

inline ExprP leaf(Ty ty, std::string text, double mag, Op op = Op::Leaf) {
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
                                          DType::BF16, DType::F64, DType::I32, DType::I32,
                                          DType::I64,  DType::I8,  DType::U8,  DType::U32};
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
  /// `ty` as a conversion of a `from` value, and as a where() of two `ty` values.
  ExprP convertFrom(Ty ty, DType from, int depth, bool exact);
  ExprP select(Ty ty, int depth, bool exact);
  /// Bounds `name` as analyze() does after the body so far (a loop's or a
  /// branch's var over all its values); false when the body breaks a rule.
  bool boundsAfter(const std::string &name) {
    Program probe;
    probe.body = p_.body;
    std::map<std::string, Bounds> after;
    bool ok = analyze(probe, &after);
    if (after.count(name))
      env_[name] = after[name];
    return ok;
  }
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

} // namespace tessera::difftest::detail

#endif
