//===- ParserTest.cpp - syntax and syntax errors ----------------*- C++ -*-===//
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {

struct Parsed {
  std::unique_ptr<SourceFile> file;
  std::unique_ptr<Module> module;
  std::string errors;
};

Parsed parse(const std::string &src) {
  Parsed p;
  p.file = std::make_unique<SourceFile>("test.tile", src);
  DiagnosticEngine d(*p.file);
  p.module = parseFile(*p.file, d);
  p.errors = test::render(d);
  return p;
}

const char *kSoftmax = R"(
kernel softmax(x: tensor<f32, [M, N]>, y: tensor<f32, [M, N]>)
  tune num_warps in [4, 8, 16]
  where BN = next_pow2(N)
  grid [M]
{
  let row = program_id(0);
  let v = load(x, [row, 0], [BN], pad = -inf);
  let e = exp(v - max(v, 0));
  store(y, [row, 0], e / sum(e, 0));
}
)";

TEST(Parser, SoftmaxStructure) {
  Parsed p = parse(kSoftmax);
  ASSERT_EQ(p.errors, "");
  ASSERT_EQ(p.module->kernels.size(), 1u);
  const Kernel &k = *p.module->kernels[0];
  EXPECT_EQ(k.name, "softmax");
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_TRUE(k.params[0].isTensor);
  EXPECT_EQ(k.params[0].dims.size(), 2u);
  EXPECT_EQ(k.params[0].dims[1].name, "N");
  ASSERT_EQ(k.tunes.size(), 1u);
  EXPECT_EQ(k.tunes[0].values.size(), 3u);
  ASSERT_EQ(k.wheres.size(), 1u);
  EXPECT_EQ(k.wheres[0].name, "BN");
  EXPECT_TRUE(k.hasGrid);
  EXPECT_EQ(k.grid.size(), 1u);
  EXPECT_EQ(k.body.size(), 4u);
}

TEST(Parser, PrecedenceMulBindsTighterThanAdd) {
  Parsed p = parse("kernel k() { let a = 1 + 2 * 3 < 4 && true; }");
  ASSERT_EQ(p.errors, "");
  const Expr &e = *p.module->kernels[0]->body[0]->value;
  ASSERT_EQ(e.kind, ExprKind::Binary);
  EXPECT_EQ(e.binOp, BinOp::And);
  const Expr &cmp = *e.args[0];
  EXPECT_EQ(cmp.binOp, BinOp::Lt);
  const Expr &add = *cmp.args[0];
  EXPECT_EQ(add.binOp, BinOp::Add);
  EXPECT_EQ(add.args[1]->binOp, BinOp::Mul);
}

TEST(Parser, PostfixChain) {
  Parsed p = parse("kernel k() { let a = x[:, None].T.to(bf16); }");
  ASSERT_EQ(p.errors, "");
  const Expr &e = *p.module->kernels[0]->body[0]->value;
  EXPECT_EQ(e.kind, ExprKind::Method);
  EXPECT_EQ(e.args[0]->kind, ExprKind::Attr);
  EXPECT_EQ(e.args[0]->args[0]->kind, ExprKind::Index);
  EXPECT_EQ(e.args[0]->args[0]->index.size(), 2u);
}

TEST(Parser, FunctionLiteralsAndParentheses) {
  // `(names) =>` starts a function literal; `(a, b)` without `=>` stays an
  // error, `(a)` a parenthesis.
  Parsed p = parse("kernel k() { let s = scan(t, 0, (a, b) => (a) * b + 1); }");
  ASSERT_EQ(p.errors, "");
  const Expr &call = *p.module->kernels[0]->body[0]->value;
  ASSERT_EQ(call.args.size(), 3u);
  const Expr &f = *call.args[2];
  ASSERT_EQ(f.kind, ExprKind::Lambda);
  ASSERT_EQ(f.params.size(), 2u);
  EXPECT_EQ(f.params[0].name, "a");
  EXPECT_EQ(f.params[1].name, "b");
  EXPECT_EQ(f.args[0]->binOp, BinOp::Add);
  EXPECT_EQ(f.args[0]->args[0]->args[0]->kind, ExprKind::Name); // (a): a parenthesis
  EXPECT_NE(parse("kernel k() { let s = (a, b); }").errors, "");
  Parsed none = parse("kernel k() { let s = scan(t, 0, () => 1); }");
  EXPECT_EQ(none.errors, "");
}

TEST(Parser, StatementsAndElseIf) {
  Parsed p = parse(R"(kernel k(n: i32) {
    var s = 0;
    for i in range(0, n, 2) { s = s + i; }
    if s > 3 { s = 1; } else if s > 1 { s = 2; } else { s = 3; }
  })");
  ASSERT_EQ(p.errors, "");
  auto &body = p.module->kernels[0]->body;
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(body[1]->kind, StmtKind::For);
  EXPECT_TRUE(body[1]->step != nullptr);
  EXPECT_EQ(body[2]->kind, StmtKind::If);
  ASSERT_EQ(body[2]->elseBody.size(), 1u);
  EXPECT_EQ(body[2]->elseBody[0]->kind, StmtKind::If);
}

TEST(Parser, SeveralKernels) {
  Parsed p = parse("kernel a() { }\nkernel b() { }\n");
  ASSERT_EQ(p.errors, "");
  EXPECT_EQ(p.module->kernels.size(), 2u);
  EXPECT_NE(p.module->find("b"), nullptr);
}

struct ErrorCase {
  const char *name;
  const char *src;
  const char *error; // the first error line
};

class ParserErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrors, FirstError) {
  Parsed p = parse(GetParam().src);
  std::string first = p.errors.substr(0, p.errors.find('\n'));
  EXPECT_EQ(first, GetParam().error) << p.errors;
}

INSTANTIATE_TEST_SUITE_P(
    Parser, ParserErrors,
    ::testing::Values(
        ErrorCase{"MissingSemicolon", "kernel k() {\n  let a = 1\n  let b = 2;\n}",
                  "test.tile:2:12: error: expected ';' after the declaration, found 'let'"},
        ErrorCase{"MissingParen", "kernel k( {\n}",
                  "test.tile:1:11: error: expected a parameter name, found '{'"},
        ErrorCase{"UnknownElementType", "kernel k(x: f99) { }",
                  "test.tile:1:13: error: unknown element type 'f99'; expected one of f32, f16, "
                  "bf16, f64, f8e4m3, f8e5m2, i8, u8, i32, u32, i64, bool"},
        ErrorCase{"TopLevelJunk", "let x = 1;",
                  "test.tile:1:1: error: expected 'kernel', found 'let'"},
        ErrorCase{"UnclosedBlock", "kernel k() {\n  let a = 1;\n",
                  "test.tile:3:1: error: expected '}' to close the kernel body opened at line 1, "
                  "found end of file"},
        ErrorCase{"ForWithoutRange", "kernel k() { for i in 3 { } }",
                  "test.tile:1:23: error: expected 'range(...)' after 'in', found '3'"},
        ErrorCase{
            "TuneWithoutIn", "kernel k() tune BM [1] { }",
            "test.tile:1:20: error: expected 'in' after the tunable parameter name, found '['"},
        ErrorCase{"AssignToIndex", "kernel k() { a[0] = 1; }",
                  "test.tile:1:19: error: only a variable name can be assigned to"},
        ErrorCase{"ZeroExtent", "kernel k(x: tensor<f32, [0]>) { }",
                  "test.tile:1:26: error: a tensor extent must be positive"},
        ErrorCase{"KwargBeforePositional", "kernel k() { f(pad = 1, 2); }",
                  "test.tile:1:25: error: a positional argument cannot follow a keyword argument"},
        ErrorCase{"DuplicateKernel", "kernel a() { }\nkernel a() { }",
                  "test.tile:2:8: error: kernel 'a' is defined twice (first at line 1)"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string src =
      "kernel k() { let a = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "; }";
  Parsed p = parse(src);
  EXPECT_NE(p.errors.find("nesting is too deep (the limit is 200 levels)"), std::string::npos);
}

TEST(Parser, LongFlatChainIsBounded) {
  auto chain = [](int n) {
    std::string src = "kernel k() { let a = 1";
    for (int i = 0; i < n; ++i)
      src += " + 1";
    return src + "; }";
  };
  EXPECT_EQ(parse(chain(500)).errors, ""); // unrolled code is fine
  Parsed p = parse(chain(5000));
  EXPECT_NE(p.errors.find("expression is too long"), std::string::npos) << p.errors;
}

TEST(Parser, ReportsErrorsOfSeveralStatements) {
  Parsed p = parse("kernel k() {\n  let = 1;\n  let b 2;\n  let c = ;\n}");
  EXPECT_NE(p.errors.find("test.tile:2:7:"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("test.tile:3:9:"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("test.tile:4:11:"), std::string::npos) << p.errors;
}

TEST(Parser, ErrorLimitStopsEarly) {
  std::string src = "kernel k() {\n";
  for (int i = 0; i < 100; ++i)
    src += "  let = 1;\n";
  src += "}";
  Parsed p = parse(src);
  EXPECT_NE(p.errors.find("too many errors (limit 20)"), std::string::npos);
}

} // namespace
