//===- DiffTestTest.cpp - the random program generator and its reducer ----===//
#include "test/difftest/Check.h"
#include "test/difftest/Generator.h"
#include "test/difftest/Reduce.h"

#include "runtime/jit/Compiler.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::difftest;

namespace {

CheckOptions cpuOnly() {
  CheckOptions o;
  o.archs.clear(); // frontend, interpreter and padded interpreter only
  o.ptxas = false;
  return o;
}

TEST(DiffTest, TheSameSeedGivesTheSameProgram) {
  EXPECT_EQ(generate(7).source(), generate(7).source());
  EXPECT_NE(generate(7).source(), generate(8).source());
}

TEST(DiffTest, GeneratedProgramsPassTheFrontendAndBothInterpreters) {
  jit::Compiler compiler;
  int padded = 0;
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    Program p = generate(seed);
    Outcome o = checkProgram(p, cpuOnly(), compiler);
    EXPECT_EQ(o.kind, Outcome::Kind::Pass)
        << "seed " << seed << ": " << o.stage << ": " << o.detail << "\n"
        << p.source();
    padded += o.paddedRuns;
  }
  EXPECT_GT(padded, 0) << "no program with an odd extent in 25 seeds";
}

TEST(DiffTest, ComparisonsOfInexactValuesBreakTheRules) {
  // exp(x) < 0.5 could flip between two correct executors: analyze refuses it.
  auto leaf = std::make_shared<Expr>();
  leaf->op = Op::Leaf;
  leaf->ty = {DType::F32, Shape::Full};
  leaf->text = "load(x, [pm, pn], [BM, BN])";
  auto e = std::make_shared<Expr>();
  e->op = Op::ExpNeg;
  e->ty = leaf->ty;
  e->kids = {leaf};
  auto half = std::make_shared<Expr>();
  half->op = Op::Lit;
  half->ty = {DType::F32, Shape::Scalar};
  half->text = "0.5";
  half->mag = 0.5;
  auto cmp = std::make_shared<Expr>();
  cmp->op = Op::Cmp;
  cmp->ty = {DType::Bool, Shape::Full};
  cmp->text = "<";
  cmp->kids = {e, half};
  EXPECT_FALSE(analyzeExpr(*cmp, {}));
  cmp->kids = {leaf, half}; // a loaded value compares the same everywhere
  EXPECT_TRUE(analyzeExpr(*cmp, {}));
  // A sum of 64 f32 values of magnitude 1 may differ by rounding, not by 1.
  auto sum = std::make_shared<Expr>();
  sum->op = Op::Reduce;
  sum->ty = {DType::F32, Shape::Rows};
  sum->text = "sum";
  sum->axis = 1;
  sum->extent = 64;
  sum->kids = {leaf};
  ASSERT_TRUE(analyzeExpr(*sum, {}));
  EXPECT_GT(sum->err, 0);
  EXPECT_LT(sum->err, 1e-3);
}

TEST(DiffTest, TheReducerKeepsWhatTheFailureNeeds) {
  // A stand-in failure: "the program has a cumsum". The reducer must keep one
  // and drop nearly everything else, and the result must still be a program.
  uint64_t seed = 0;
  Program p;
  for (uint64_t s = 1; s < 400 && !seed; ++s) {
    p = generate(s);
    if (p.source().find("cumsum(") != std::string::npos && p.statementCount() >= 4)
      seed = s;
  }
  ASSERT_NE(seed, 0u) << "no program with a cumsum in 400 seeds";
  jit::Compiler compiler;
  auto fails = [&](const Program &c) {
    return c.source().find("cumsum(") != std::string::npos &&
           checkProgram(c, cpuOnly(), compiler).kind == Outcome::Kind::Pass;
  };
  ReduceStats st;
  Program small = reduceProgram(p, fails, 400, &st);
  EXPECT_TRUE(fails(small)) << small.source();
  EXPECT_LT(st.statementsAfter, st.statementsBefore) << small.source();
  EXPECT_LE(st.statementsAfter, 2) << small.source();
  EXPECT_GT(st.tries, 0);
  // The original is untouched.
  EXPECT_EQ(p.source(), generate(seed).source());
}

TEST(DiffTest, RegressionsReadBackAsTheyWereWritten) {
  Program p = generate(11);
  Outcome why;
  why.kind = Outcome::Kind::Mismatch;
  why.stage = "GPU";
  why.detail = "y0: 1 of 4 elements differ";
  std::string text = regressionText(p, why);
  auto back = parseRegression(text);
  ASSERT_TRUE((bool)back) << llvm::toString(back.takeError());
  EXPECT_EQ(back->source(), p.source());
  EXPECT_EQ(back->usedDims(), p.usedDims());
  EXPECT_EQ(back->hasOddExtents(), p.hasOddExtents());
  std::map<std::string, double> want = p.tolerances(), got = back->tolerances();
  ASSERT_EQ(got.size(), want.size());
  for (auto &[name, t] : want)
    EXPECT_NEAR(got[name], t, 1e-6 * t + 1e-30) << name;
  jit::Compiler compiler;
  EXPECT_EQ(checkProgram(*back, cpuOnly(), compiler).kind, Outcome::Kind::Pass);
  EXPECT_FALSE((bool)parseRegression("// tensor: x f32\nkernel k() {}\n"));
}

} // namespace
