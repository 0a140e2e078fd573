//===- IRGenTest.cpp - tile IR from programs --------------------*- C++ -*-===//
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace tessera;

namespace {

struct IRCase {
  const char *name;
  const char *src;
  std::vector<const char *> contains;
};

class IRGenOps : public ::testing::TestWithParam<IRCase> {};

TEST_P(IRGenOps, EmitsOps) {
  test::Compiled c = test::compile(GetParam().src);
  ASSERT_TRUE(c.ok) << c.diags;
  for (const char *s : GetParam().contains)
    EXPECT_NE(c.ir.find(s), std::string::npos) << "missing '" << s << "' in\n" << c.ir;
}

INSTANTIATE_TEST_SUITE_P(
    IRGen, IRGenOps,
    ::testing::Values(
        IRCase{
            "ProgramIdAndStore",
            "kernel k(y: tensor<i32, [N]>) grid [N] { store(y, [program_id(0)], program_id(0)); }",
            {"tile.program_id 0", "tile.store %y[", "tile.yield"}},
        IRCase{"LoopCarriesVar",
               "kernel k(n: i32, y: tensor<f32, [N]>) { var s = 0.0; for i in range(0, n) { s = s "
               "+ 1.0; } "
               "store(y, [0], s); }",
               {"scf.for", "iter_args(", "-> (f32)", "scf.yield"}},
        IRCase{
            "IfYieldsVar",
            "kernel k(n: i32, y: tensor<f32, [N]>) { var s = 1.0; if n > 2 { s = load(y, [1], []); "
            "store(y, [2], s); } store(y, [0], s); }",
            {"scf.if", "-> (f32)", "} else {"}},
        IRCase{"Broadcast",
               "kernel k(y: tensor<f32, [M, N]>) { store(y, [0, 0], zeros([16])[:, None] + "
               "zeros([8])); }",
               {"tile.expand_dims", "tile.broadcast", "tensor<16x8xf32>"}},
        IRCase{"DotAndConvert",
               "kernel k(c: tensor<bf16, [M, N]>) { let a = zeros([16, 16], bf16); "
               "store(c, [0, 0], dot(a, a.T).to(bf16)); }",
               {"tile.transpose", "tile.dot", "tile.convert"}},
        IRCase{"Reductions",
               "kernel k(x: tensor<f32, [M, N]>, y: tensor<f32, [N]>) { let t = load(x, [0, 0], "
               "[8, 16]); "
               "store(y, [0], sum(t, 1) + max(t, 1) + min(t, 1)); }",
               {"tile.reduce sum", "tile.reduce max", "tile.reduce min", "axis 1"}},
        IRCase{"Math",
               "kernel k(y: tensor<f32, [N]>) { let t = load(y, [1], [8]); "
               "store(y, [0], exp(t) + exp2(t) + log(t) + log2(t) + sqrt(t) + rsqrt(t) + abs(t) + "
               "tanh(t) + sigmoid(t)); }",
               {"math.exp ", "math.exp2", "math.log ", "math.log2", "math.sqrt", "math.rsqrt",
                "math.absf", "math.tanh"}},
        IRCase{"WhereSelect",
               "kernel k(y: tensor<f32, [N]>) { store(y, [0], where(arange(8) < 4, zeros([8]), "
               "1.0)); }",
               {"arith.cmpi slt", "arith.select"}},
        IRCase{"PadOperand",
               "kernel k(x: tensor<f16, [N]>, y: tensor<f16, [N]>) { "
               "store(y, [0], load(x, [0], [64], pad = -inf)); }",
               {"pad %", "-> tensor<64xf16>"}},
        IRCase{"RuntimeNextPow2",
               "kernel k(n: i32, y: tensor<i32, [N]>) { store(y, [0], next_pow2(n)); }",
               {"math.ctlz"}}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(IRGen, Locations) {
  SourceFile file("loc.tile", "kernel k(y: tensor<f32, [N]>) {\n  store(y, [0], 1.0);\n}");
  DiagnosticEngine diags(file);
  mlir::MLIRContext ctx;
  FrontendOptions opts;
  auto m = buildTileModule(file, opts, ctx, diags);
  ASSERT_TRUE(m);
  std::string s;
  llvm::raw_string_ostream os(s);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo();
  m->print(os, flags);
  EXPECT_NE(s.find("loc(\"loc.tile\":2:3)"), std::string::npos) << s;
}

TEST(IRGen, SeveralKernelsInOneModule) {
  test::Compiled c =
      test::compile("kernel a() tune X in [2] { }\nkernel b() { }", Specialization{{{"X", 4}}, {}});
  ASSERT_TRUE(c.ok) << c.diags;
  EXPECT_NE(c.ir.find("tile.kernel @a"), std::string::npos);
  EXPECT_NE(c.ir.find("tile.kernel @b"), std::string::npos);
  EXPECT_NE(c.ir.find("X = 4"), std::string::npos);
}

TEST(IRGen, KernelSelection) {
  test::Compiled c = test::compile("kernel a() { }\nkernel b() { }", {}, "b");
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.ir.find("tile.kernel @a"), std::string::npos);
  test::Compiled bad = test::compile("kernel a() { }", {}, "zz");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.diags.find("no kernel named 'zz' (the file defines a)"), std::string::npos);
}

struct ExampleCase {
  const char *file;
};

class Examples : public ::testing::TestWithParam<ExampleCase> {};

TEST_P(Examples, CompileToVerifiedTileIR) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/examples/" + GetParam().file);
  ASSERT_TRUE(in) << GetParam().file;
  std::stringstream ss;
  ss << in.rdbuf();
  test::Compiled c = test::compile(ss.str());
  ASSERT_TRUE(c.ok) << c.diags;
  EXPECT_NE(c.ir.find("tile.kernel @"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(IRGen, Examples,
                         ::testing::Values(ExampleCase{"softmax.tile"}, ExampleCase{"matmul.tile"},
                                           ExampleCase{"attention.tile"},
                                           ExampleCase{"vector_add.tile"}),
                         [](const auto &info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

} // namespace
