//===- SemaTest.cpp - names, types, shapes and specialization ---*- C++ -*-===//
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {

/// Parses `src` and analyzes its only kernel.
struct Analyzed {
  std::unique_ptr<SourceFile> file;
  std::unique_ptr<Module> module;
  std::unique_ptr<KernelInfo> info;
  std::string diags;
};

Analyzed analyze(const std::string &src, Specialization spec = {}) {
  Analyzed a;
  a.file = std::make_unique<SourceFile>("test.tile", src);
  DiagnosticEngine d(*a.file);
  a.module = parseFile(*a.file, d);
  if (!d.hasErrors() && !a.module->kernels.empty())
    a.info = analyzeKernel(*a.module->kernels[0], spec, d);
  a.diags = test::render(d);
  return a;
}

/// The type Sema gives the value of the last `let` of the body.
std::string lastLetType(const std::string &body, const std::string &params = "") {
  Analyzed a = analyze("kernel k(" + params + ") {\n" + body + "\n}");
  if (!a.info)
    return "error: " + a.diags;
  for (auto it = a.module->kernels[0]->body.rbegin(); it != a.module->kernels[0]->body.rend(); ++it)
    if ((*it)->kind == StmtKind::Let)
      return (*it)->value->type.str();
  return "no let";
}

struct TypeCase {
  const char *name;
  const char *params;
  const char *body;
  const char *type;
};

class SemaTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(SemaTypes, InfersType) {
  EXPECT_EQ(lastLetType(GetParam().body, GetParam().params), GetParam().type);
}

INSTANTIATE_TEST_SUITE_P(
    Sema, SemaTypes,
    ::testing::Values(
        TypeCase{"IntLiteral", "", "let a = 1;", "i32"},
        TypeCase{"FloatLiteral", "", "let a = 1.5;", "f32"},
        TypeCase{"LiteralAdoptsFloat", "s: bf16", "let a = s * 2;", "bf16"},
        TypeCase{"LiteralAdoptsI64", "n: i64", "let a = n + 1;", "i64"},
        TypeCase{"Broadcast", "", "let a = zeros([4, 1]) + zeros([8]);", "tensor<4x8xf32>"},
        TypeCase{"ScalarToTile", "s: f32", "let a = zeros([16]) * s;", "tensor<16xf32>"},
        TypeCase{"Comparison", "", "let a = arange(8) < 3;", "tensor<8xbool>"},
        TypeCase{"ExpandAxes", "", "let a = arange(8)[:, None];", "tensor<8x1xi32>"},
        TypeCase{"ExpandFront", "", "let a = arange(8)[None, :];", "tensor<1x8xi32>"},
        TypeCase{"Transpose", "", "let a = zeros([4, 8], f16).T;", "tensor<8x4xf16>"},
        TypeCase{"Convert", "", "let a = zeros([4, 8]).to(bf16);", "tensor<4x8xbf16>"},
        TypeCase{"DotDefaultsToF32", "",
                 "let a = dot(zeros([16, 32], bf16), zeros([32, 8], bf16));", "tensor<16x8xf32>"},
        TypeCase{"ReduceAxis1", "", "let a = max(zeros([16, 32]), 1);", "tensor<16xf32>"},
        TypeCase{"Reduce1DToScalar", "", "let a = sum(zeros([16]), 0);", "f32"},
        TypeCase{"ScalarMax", "a: i32, b: i32", "let c = max(a, b);", "i32"},
        TypeCase{"WhereBroadcasts", "",
                 "let c = where(arange(4)[:, None] < arange(8)[None, :], zeros([4, 8]), -inf);",
                 "tensor<4x8xf32>"},
        TypeCase{"LoadTile", "x: tensor<f16, [M, N]>",
                 "let t = load(x, [program_id(0), 0], [32, 64]);", "tensor<32x64xf16>"},
        TypeCase{"LoadLeadingCoords", "x: tensor<f16, [B, M, N]>",
                 "let t = load(x, [1, 2, 0], [64]);", "tensor<64xf16>"},
        TypeCase{"LoadScalar", "x: tensor<i64, [N]>", "let t = load(x, [3], []);", "i64"},
        TypeCase{"DimIsI32", "x: tensor<f32, [N]>", "let n = N;", "i32"},
        TypeCase{"DimConverted", "x: tensor<f32, [N]>", "let n = N.to(f32);", "f32"},
        TypeCase{"Sigmoid", "", "let a = sigmoid(zeros([8], f16));", "tensor<8xf16>"}),
    [](const auto &info) { return std::string(info.param.name); });

struct ErrorCase {
  const char *name;
  const char *src;
  const char *error;
};

class SemaErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SemaErrors, ReportsAtTheMistake) {
  Analyzed a = analyze(GetParam().src);
  EXPECT_EQ(a.info, nullptr);
  std::string first = a.diags.substr(0, a.diags.find('\n'));
  EXPECT_EQ(first, GetParam().error) << a.diags;
}

INSTANTIATE_TEST_SUITE_P(
    Sema, SemaErrors,
    ::testing::Values(
        ErrorCase{"Undeclared", "kernel k() {\n  let a = b;\n}",
                  "test.tile:2:11: error: use of undeclared name 'b'"},
        ErrorCase{"MixedTypes", "kernel k(s: i32) {\n  let a = zeros([4]) + s;\n}",
                  "test.tile:2:22: error: mixed element types in '+': tensor<4xf32> and i32; "
                  "convert one operand with .to(...)"},
        ErrorCase{"FloatLiteralIntoInt", "kernel k(s: i32) {\n  let a = s + 1.5;\n}",
                  "test.tile:2:15: error: the float literal cannot be used as i32"},
        ErrorCase{"BadBroadcast", "kernel k() {\n  let a = zeros([4]) + zeros([8]);\n}",
                  "test.tile:2:22: error: cannot broadcast shapes [4] and [8]"},
        ErrorCase{"DotInner", "kernel k() {\n  let a = dot(zeros([4, 8]), zeros([4, 8]));\n}",
                  "test.tile:2:11: error: dot() inner extents differ: [4, 8] x [4, 8]"},
        ErrorCase{"RuntimeShape", "kernel k(n: i32) {\n  let a = zeros([n]);\n}",
                  "test.tile:2:18: error: a tile extent must be a compile-time constant (a "
                  "literal, a tune or 'where' value, or a dim)"},
        ErrorCase{
            "AssignLet", "kernel k() {\n  let a = 1;\n  a = 2;\n}",
            "test.tile:3:3: error: cannot assign to 'a': it is declared with 'let' (use 'var')"},
        ErrorCase{"Redeclare", "kernel k() {\n  let a = 1;\n  let a = 2;\n}",
                  "test.tile:3:7: error: 'a' is already declared in this block (at line 2)"},
        ErrorCase{"TensorAsValue", "kernel k(x: tensor<f32, [N]>) {\n  let a = x + 1;\n}",
                  "test.tile:2:11: error: tensor 'x' is not a value; read a tile from it with "
                  "load(x, ...)"},
        ErrorCase{"StoreDtype",
                  "kernel k(x: tensor<bf16, [N]>) {\n  store(x, [0], zeros([16]));\n}",
                  "test.tile:2:17: error: cannot store tensor<16xf32> into the bf16 tensor 'x'; "
                  "convert it with .to(bf16)"},
        ErrorCase{
            "CoordCount", "kernel k(x: tensor<f32, [M, N]>) {\n  let t = load(x, [0], [16]);\n}",
            "test.tile:2:19: error: load() of the rank-2 tensor 'x' needs 2 coordinates, got 1"},
        ErrorCase{"IfTile", "kernel k() {\n  if arange(4) < 2 { }\n}",
                  "test.tile:2:6: error: the condition of 'if' must be a bool scalar, got "
                  "tensor<4xbool>"},
        ErrorCase{"NumWarps", "kernel k() tune num_warps in [3] { }",
                  "test.tile:1:31: error: num_warps must be a power of two from 1 to 32, got 3"},
        ErrorCase{
            "WhereFloat", "kernel k() where X = 1.5 { }",
            "test.tile:1:22: error: a 'where' value must be an i32 or i64 integer or a bool, got "
            "f32"},
        ErrorCase{"LoadInGrid", "kernel k(x: tensor<f32, [N]>) grid [load(x, [0], [])] { }",
                  "test.tile:1:37: error: 'load' cannot be used in the grid clause; only dims, "
                  "scalars, tune values and cdiv/min/max/next_pow2 are allowed there"},
        ErrorCase{"StepZero", "kernel k() {\n  for i in range(0, 8, 0) { }\n}",
                  "test.tile:2:24: error: the step of range() must be positive, got 0"},
        ErrorCase{"TooLarge", "kernel k() {\n  let a = zeros([4096, 4096]);\n}",
                  "test.tile:2:17: error: a tile may hold at most 1048576 elements; the shape of "
                  "zeros() asks for more"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(Sema, TuneDefaultsAndOverrides) {
  const char *src = "kernel k(x: tensor<f32, [N]>) tune BM in [64, 128], num_warps in [8, 4] { }";
  Analyzed a = analyze(src);
  ASSERT_TRUE(a.info) << a.diags;
  EXPECT_EQ(a.info->tuneValues[0], std::make_pair(std::string("BM"), int64_t(64)));
  EXPECT_EQ(a.info->numWarps, 8);
  EXPECT_EQ(a.info->numStages, 3);
  Specialization s;
  s.params["BM"] = 128;
  s.params["num_warps"] = 4;
  Analyzed b = analyze(src, s);
  ASSERT_TRUE(b.info) << b.diags;
  EXPECT_EQ(b.info->tuneValues[0].second, 128);
  EXPECT_EQ(b.info->numWarps, 4);
}

TEST(Sema, WhereEvaluatedFromDims) {
  Specialization s;
  s.dims["N"] = 1000;
  Analyzed a = analyze("kernel k(x: tensor<f32, [M, N]>) tune BM in [32] "
                       "where BN = next_pow2(N), G = cdiv(N, BM) + max(1, 2) { }",
                       s);
  ASSERT_TRUE(a.info) << a.diags;
  ASSERT_EQ(a.info->whereValues.size(), 2u);
  EXPECT_EQ(a.info->whereValues[0].second, 1024);
  EXPECT_EQ(a.info->whereValues[1].second, 32 + 2);
  EXPECT_TRUE(a.info->specializedDims.empty()); // where values specialize, not N
}

// A bool where value specializes the kernel on a bool scalar (or a comparison
// of dims): the body sees a constant, so a branch on it costs nothing.
TEST(Sema, WhereBoolSpecializes) {
  Specialization s;
  s.dims["N"] = 1000;
  s.scalars["causal"] = 1;
  Analyzed a = analyze("kernel k(x: tensor<f32, [N]>, causal: bool) "
                       "where C = causal, BIG = N > 4096 {\n"
                       "  if C && !BIG { }\n}",
                       s);
  ASSERT_TRUE(a.info) << a.diags;
  ASSERT_EQ(a.info->whereValues.size(), 2u);
  EXPECT_EQ(a.info->whereValues[0].second, 1);
  EXPECT_EQ(a.info->whereValues[1].second, 0);
}

TEST(Sema, StaticExtentSpecializesDim) {
  Specialization s;
  s.dims["D"] = 64;
  Analyzed a =
      analyze("kernel k(q: tensor<f32, [N, D]>) {\n  let t = load(q, [0, 0], [16, D]);\n}", s);
  ASSERT_TRUE(a.info) << a.diags;
  EXPECT_EQ(a.info->specializedDims.at("D"), 64);
  EXPECT_EQ(a.module->kernels[0]->body[0]->value->type.str(), "tensor<16x64xf32>");
}

TEST(Sema, MissingDimDefaultsWithNote) {
  Analyzed a =
      analyze("kernel k(q: tensor<f32, [N, D]>) {\n  let t = load(q, [0, 0], [16, D]);\n}");
  ASSERT_TRUE(a.info);
  EXPECT_EQ(a.info->specializedDims.at("D"), kDefaultDimValue);
  EXPECT_NE(a.diags.find("note: dimension 'D' has no compile-time value; using D=128"),
            std::string::npos)
      << a.diags;
}

TEST(Sema, UnknownParamOverride) {
  Specialization s;
  s.params["BX"] = 4;
  Analyzed a = analyze("kernel k() tune BM in [64] { }", s);
  EXPECT_EQ(a.info, nullptr);
  EXPECT_NE(a.diags.find("kernel 'k' has no tunable parameter 'BX' (it declares BM)"),
            std::string::npos)
      << a.diags;
}

TEST(Sema, IndependentErrorsAllReported) {
  Analyzed a =
      analyze("kernel k() {\n  let a = b;\n  let c = zeros([4]) + zeros([5]);\n  let d = e;\n}");
  EXPECT_NE(a.diags.find("2:11: error"), std::string::npos);
  EXPECT_NE(a.diags.find("3:22: error"), std::string::npos);
  EXPECT_NE(a.diags.find("4:11: error"), std::string::npos);
}

} // namespace
