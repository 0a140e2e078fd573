//===- ModelTest.cpp - the cost model behind a launch's default -----------===//
#include "runtime/autotune/Model.h"
#include "dialects/Tile/TileDialect.h"
#include "lib/Support/Clock.h"
#include "runtime/jit/Runtime.h"
#include "test/unit/JitTestUtil.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

using namespace tessera;
using namespace tessera::autotune;

namespace {

using tessera::test::example;

/// A wanted value: 1 where the runtime assembles with ptxas, else 0.
constexpr int64_t kWhereWholeProgram = -1;

struct Size {
  const char *name;
  const char *file;
  std::map<std::string, int64_t> dims;
  const char *arch;
  std::map<std::string, int64_t> want; // a subset of the chosen parameters
};

std::ostream &operator<<(std::ostream &os, const Size &s) { return os << s.name; }

class ModelDefault : public testing::TestWithParam<Size> {};

// The H200's 132 multiprocessors.
TEST_P(ModelDefault, ChoosesTilesForTheSize) {
  const Size &s = GetParam();
  auto p = example(s.file);
  ASSERT_TRUE(p);
  jit::Compiler compiler;
  jit::CompileRequest req;
  req.kernel = p->kernels()[0].name;
  req.dims = s.dims;
  req.arch = s.arch;
  auto target = *target::TargetInfo::lookup(s.arch);
  auto ranked = rank(compiler, *p, req, target, 132);
  ASSERT_TRUE((bool)ranked) << llvm::toString(ranked.takeError());
  if (getenv("TESSERA_MODEL_DUMP"))
    for (size_t i = 0; i < ranked->size() && i < 12; ++i) {
      const Ranked &r = (*ranked)[i];
      llvm::errs() << r.config.text() << ": ";
      if (r.estimate)
        llvm::errs() << (int64_t)r.estimate->cycles << " cycles, " << r.estimate->programs
                     << " programs, " << r.estimate->resident << " resident, "
                     << r.estimate->valuesPerThread << " values a thread\n";
      else
        llvm::errs() << "does not fit\n";
    }
  auto t0 = std::chrono::steady_clock::now();
  auto chosen = chooseDefault(compiler, *p, req, target, 132);
  double ms = msSince(t0);
  ASSERT_TRUE((bool)chosen) << llvm::toString(chosen.takeError());
  if (getenv("TESSERA_MODEL_DUMP"))
    llvm::errs() << "chosen: " << Config{*chosen}.text() << " in " << ms << " ms\n";
  for (auto &[n, v] : s.want) {
    int64_t want = v;
    if (v == kWhereWholeProgram) {
      // The producer warpgroup at D=256 only where ptxas assembles the cubin
      // (the driver's JIT ignores setmaxnreg; chooseDefault).
      auto a = jit::cubinAssembler();
      ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
      want = a->ptxas ? 1 : 0;
    }
    EXPECT_EQ((*chosen)[n], want) << n;
  }
}

// The values a thread keeps live in attention's loop: the carried accumulator
// and statistics, and the scores beside them with their 16-bit copy (1.5
// times S). Checked against ptxas 13.0 on sm_90a with the producer warpgroup:
// D=64 at BM=256 with 16 compute warps (104 registers each) does not spill at
// BN=64 (81 values) and spills at BN=128 (129); with 8 warps (232) BN=64
// (162) does not, and BN=128 (258) is past any thread's 255 registers: no estimate.
TEST(Model, CountsTheScoresBesideTheAccumulator) {
  auto p = example("attention.tile");
  ASSERT_TRUE(p);
  jit::Compiler compiler;
  jit::CompileRequest req;
  req.kernel = "attention";
  req.dims = {{"B", 4}, {"H", 32}, {"N", 4096}, {"D", 64}};
  req.arch = "sm_90a";
  auto target = *target::TargetInfo::lookup("sm_90a");
  auto ranked = rank(compiler, *p, req, target, 132);
  ASSERT_TRUE((bool)ranked) << llvm::toString(ranked.takeError());
  auto find = [&](int64_t bn, int64_t warps) -> const Ranked * {
    for (const Ranked &r : *ranked)
      if (r.config.get("BM", 0) == 256 && r.config.get("BN", 0) == bn &&
          r.config.get("num_warps", 0) == warps && r.config.get("num_stages", 0) == 2)
        return &r;
    return nullptr;
  };
  const Ranked *four = find(64, 16), *fourWide = find(128, 16), *two = find(64, 8),
               *twoWide = find(128, 8);
  ASSERT_TRUE(four && fourWide && two && twoWide);
  ASSERT_TRUE(four->estimate && fourWide->estimate && two->estimate);
  EXPECT_EQ(four->estimate->valuesPerThread, 81);
  EXPECT_LE(four->estimate->valuesPerThread, (int64_t)target.computeRegisters(16));
  EXPECT_EQ(fourWide->estimate->valuesPerThread, 129);
  EXPECT_GT(fourWide->estimate->valuesPerThread, (int64_t)target.computeRegisters(16));
  EXPECT_EQ(two->estimate->valuesPerThread, 162);
  EXPECT_LE(two->estimate->valuesPerThread, (int64_t)target.computeRegisters(8));
  EXPECT_FALSE(twoWide->estimate.has_value());
}

// Threads build the configurations' IR in contexts of their own: the ranking
// and every estimate are those of one thread.
TEST(Model, RanksTheSameOnSeveralThreads) {
  for (const char *file : {"matmul.tile", "attention.tile"}) {
    auto p = example(file);
    ASSERT_TRUE(p);
    jit::Compiler compiler;
    jit::CompileRequest req;
    req.kernel = p->kernels()[0].name;
    req.dims = std::string(file) == "matmul.tile"
                   ? std::map<std::string, int64_t>{{"M", 2048}, {"N", 2048}, {"K", 2048}}
                   : std::map<std::string, int64_t>{{"B", 2}, {"H", 16}, {"N", 2048}, {"D", 64}};
    auto target = *target::TargetInfo::lookup("sm_90a");
    auto one = rank(compiler, *p, req, target, 132, 1);
    auto four = rank(compiler, *p, req, target, 132, 4);
    ASSERT_TRUE((bool)one) << llvm::toString(one.takeError());
    ASSERT_TRUE((bool)four) << llvm::toString(four.takeError());
    ASSERT_EQ(one->size(), four->size());
    ASSERT_GT(one->size(), 4u) << file;
    for (size_t i = 0; i < one->size(); ++i) {
      EXPECT_EQ((*one)[i].config.text(), (*four)[i].config.text()) << file << " #" << i;
      ASSERT_EQ((*one)[i].estimate.has_value(), (*four)[i].estimate.has_value());
      if ((*one)[i].estimate)
        EXPECT_EQ((*one)[i].estimate->cycles, (*four)[i].estimate->cycles);
    }
  }
}

// Large squares take the widest tile that fits with the deepest pipeline;
// sizes with fewer tiles than multiprocessors take narrower tiles that fill
// them; M = 64 wastes no rows; memory-bound kernels keep the declared order.
// Attention's loop (two dots) gets a producer warpgroup where wgmma and TMA
// exist, but not with D=256's accumulator; matmul's does not (the tuner
// measures it). Causal attention, whose loop runs to a bound that depends on
// the program, is ranked as its longest program (as full attention).
const Size kSizes[] = {
    {"Matmul4096",
     "matmul.tile",
     {{"M", 4096}, {"N", 4096}, {"K", 4096}},
     "sm_90a",
     {{"BM", 128},
      {"BN", 256},
      {"BK", 64},
      {"num_stages", 4},
      {"num_warps", 8},
      {"warp-specialize", 0}}},
    {"Matmul8192",
     "matmul.tile",
     {{"M", 8192}, {"N", 8192}, {"K", 8192}},
     "sm_90a",
     {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"num_stages", 4}}},
    {"Matmul2048",
     "matmul.tile",
     {{"M", 2048}, {"N", 2048}, {"K", 2048}},
     "sm_90a",
     {{"BM", 128}, {"BN", 256}}},
    {"Matmul1000",
     "matmul.tile",
     {{"M", 1000}, {"N", 1000}, {"K", 1000}},
     "sm_90a",
     {{"BM", 128}, {"BN", 64}}},
    {"SkinnyM64", "matmul.tile", {{"M", 64}, {"N", 8192}, {"K", 8192}}, "sm_90a", {{"BM", 64}}},
    {"Matmul4096Sm80",
     "matmul.tile",
     {{"M", 4096}, {"N", 4096}, {"K", 4096}},
     "sm_80",
     {{"BM", 128}, {"BN", 128}}},
    {"Softmax", "softmax.tile", {{"M", 4096}, {"N", 4096}}, "sm_90a", {{"num_warps", 4}}},
    {"Attention", "attention.tile", {{"B", 4}, {"H", 16}, {"N", 2048}, {"D", 64}}, "sm_90a", {}},
    {"AttentionD128",
     "attention.tile",
     {{"B", 4}, {"H", 32}, {"N", 4096}, {"D", 128}},
     "sm_90a",
     {{"BM", 128}, {"BN", 128}, {"num_warps", 8}, {"warp-specialize", 1}}},
    {"CausalD64",
     "causal_attention.tile",
     {{"B", 4}, {"H", 32}, {"N", 4096}, {"D", 64}},
     "sm_90a",
     {{"BM", 128}, {"num_warps", 8}, {"warp-specialize", 1}}},
    {"AttentionD256",
     "attention.tile",
     {{"B", 4}, {"H", 32}, {"N", 4096}, {"D", 256}},
     "sm_90a",
     {{"warp-specialize", kWhereWholeProgram}}},
    {"CausalD256",
     "causal_attention.tile",
     {{"B", 4}, {"H", 32}, {"N", 4096}, {"D", 256}},
     "sm_90a",
     {{"BM", 128}, {"BN", 64}, {"num_warps", 8}, {"warp-specialize", kWhereWholeProgram}}},
    {"AttentionSm80",
     "attention.tile",
     {{"B", 4}, {"H", 32}, {"N", 4096}, {"D", 128}},
     "sm_80",
     {{"warp-specialize", 0}}},
    {"Layernorm", "layernorm.tile", {{"M", 4096}, {"N", 1000}}, "sm_90a", {}},
};

INSTANTIATE_TEST_SUITE_P(, ModelDefault, testing::ValuesIn(kSizes),
                         [](const testing::TestParamInfo<Size> &i) { return i.param.name; });

} // namespace

namespace {

struct Clustered {
  const char *name;
  int64_t m; // 128-row tiles: axis 0 of the grid is m / 128
  const char *arch;
  bool formed;       // whether the PTX launches clusters of 2
  const char *prune; // clusterReason's verdict (a prefix; "" for none)
};

std::ostream &operator<<(std::ostream &os, const Clustered &c) { return os << c.name; }

class ClusterOption : public testing::TestWithParam<Clustered> {};

// The `cluster` option forms clusters only where the hardware can launch
// them whole (a grid whose axis 0 it divides) and on a target that has them;
// where it cannot, the kernel compiles to the same PTX, under the same cache
// key, as without the option, and the tuner prunes it with the reason.
TEST_P(ClusterOption, FormsClustersWhereTheGridAllows) {
  const Clustered &c = GetParam();
  auto p = example("matmul.tile");
  ASSERT_TRUE(p);
  jit::CompileRequest req;
  req.kernel = "matmul";
  req.dims = {{"M", c.m}, {"N", 512}, {"K", 256}};
  req.arch = c.arch;
  req.params = {{"BM", 128}, {"BN", 128}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 3}};
  jit::Compiler compiler;
  auto plain = compiler.compile(*p, req);
  ASSERT_TRUE((bool)plain) << llvm::toString(plain.takeError());
  req.params[kClusterOption] = 2;
  auto clustered = compiler.compile(*p, req);
  ASSERT_TRUE((bool)clustered) << llvm::toString(clustered.takeError());
  bool formed = clustered->ptx.find(".reqnctapercluster 2, 1, 1") != std::string::npos;
  EXPECT_EQ(formed, c.formed);
  EXPECT_EQ(formed, clustered->ptx.find("multicast::cluster") != std::string::npos);
  EXPECT_EQ(clustered->key == plain->key, c.arch == std::string("sm_90a") && !c.formed);
  std::string reason;
  llvm::Error e = compiler.inspect(*p, req, [&](mlir::tile::KernelOp k) {
    reason = clusterReason(k, p->kernels()[0], req, *target::TargetInfo::lookup(c.arch));
    return llvm::Error::success();
  });
  ASSERT_FALSE((bool)e) << llvm::toString(std::move(e));
  EXPECT_EQ(reason.rfind(c.prune, 0), 0u) << reason;
  EXPECT_EQ(reason.empty(), std::string(c.prune).empty()) << reason;
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, ClusterOption,
    testing::Values(Clustered{"Rows4", 512, "sm_90a", true, ""},
                    Clustered{"Rows3", 384, "sm_90a", false,
                              "cluster=2: axis 0 of the grid has 3 programs, not a multiple of 2"},
                    Clustered{"Ampere", 512, "sm_80", false,
                              "cluster=2: no thread-block clusters on sm_80"}),
    [](const testing::TestParamInfo<Clustered> &i) { return std::string(i.param.name); });

} // namespace
