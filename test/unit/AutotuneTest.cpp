//===- AutotuneTest.cpp - the tuning space, pruning, compilation, database ===//
#include "runtime/autotune/Model.h"
#include "runtime/autotune/Tuner.h"

#include "dialects/Tile/TileDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

using namespace tessera;
using namespace tessera::autotune;

namespace {

std::shared_ptr<jit::Program> load(const std::string &text) {
  auto p = jit::Program::fromSource("t.tile", text);
  EXPECT_TRUE((bool)p) << (p ? "" : llvm::toString(p.takeError()));
  return p ? *p : nullptr;
}

/// The pruning verdict of each configuration of the only kernel of `text`.
std::vector<std::string> verdicts(const std::string &text, std::map<std::string, int64_t> dims) {
  auto p = load(text);
  jit::Compiler compiler;
  std::vector<std::string> out;
  for (const Config &c : enumerate(p->kernels()[0])) {
    jit::CompileRequest req;
    req.params = c.params;
    req.dims = dims;
    llvm::Error e = compiler.inspect(*p, req, [&](mlir::tile::KernelOp k) {
      out.push_back(pruneReason(k, *target::TargetInfo::lookup("sm_90a")));
      return llvm::Error::success();
    });
    EXPECT_FALSE((bool)e) << llvm::toString(std::move(e));
  }
  return out;
}

TEST(AutotuneSpace, EnumeratesTheCartesianProductDefaultFirst) {
  auto p =
      load("kernel k(x: tensor<f32, [N]>) tune A in [2, 1, 3], num_warps in [8, 4] grid [1] {\n"
           "  store(x, [0], load(x, [0], [128]));\n}\n");
  auto cs = enumerate(p->kernels()[0]);
  ASSERT_EQ(cs.size(), 6u);
  EXPECT_EQ(cs[0].text(), "A=2 num_warps=8");
  EXPECT_EQ(cs[5].text(), "A=3 num_warps=4");
}

// Extents that are not powers of two are padded by code generation: legal,
// and counted padded (96 elements fill 128 threads as 128 do; 48 do not).
TEST(AutotunePrune, TileExtentsAreCountedPadded) {
  auto v = verdicts("kernel k(x: tensor<f32, [N]>) tune B in [128, 96, 48] grid [1] {\n"
                    "  store(x, [0], load(x, [0], [B]));\n}\n",
                    {{"N", 1000}});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], "");
  EXPECT_EQ(v[1], "");
  EXPECT_NE(v[2].find("128 threads but the largest tile has 64 elements"), std::string::npos)
      << v[2];
}

TEST(AutotunePrune, EveryThreadNeedsWork) {
  auto v = verdicts("kernel k(x: tensor<f32, [N]>) tune num_warps in [4, 16] grid [1] {\n"
                    "  store(x, [0], load(x, [0], [256]));\n}\n",
                    {{"N", 1000}});
  EXPECT_EQ(v[0], "");
  EXPECT_NE(v[1].find("512 threads but the largest tile has 256 elements"), std::string::npos)
      << v[1];
}

TEST(AutotunePrune, TensorCoreFragmentsAndRegisters) {
  std::string mm =
      "kernel mm(a: tensor<bf16, [M, K]>, b: tensor<bf16, [K, N]>, c: tensor<f32, [M, N]>)\n"
      "  tune BM in [64, 16, 256], num_warps in [4, 8] grid [1] {\n"
      "  var acc = zeros([BM, 256], f32);\n"
      "  for k in range(0, 4) { acc = dot(load(a, [0, k], [BM, 32]), load(b, [k, 0], [32, 256]), "
      "acc); }\n"
      "  store(c, [0, 0], acc);\n}\n";
  auto v = verdicts(mm, {{"M", 512}, {"N", 512}, {"K", 512}});
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0], ""); // BM=64, 4 warps: 128 accumulator registers
  EXPECT_EQ(v[1], ""); // BM=64, 8 warps
  EXPECT_EQ(v[2], ""); // BM=16, 4 warps: 4096 elements >= 128 * 4
  EXPECT_EQ(v[3], ""); // BM=16, 8 warps
  // BM=256: the f32 [256, 256] accumulator's conversion for the store alone
  // needs 256 KiB of shared memory.
  EXPECT_NE(v[4].find("bytes of shared memory (num_stages=3), more than the 232448"),
            std::string::npos)
      << v[4];
  EXPECT_NE(v[5].find("bytes of shared memory (num_stages=3), more than the 232448"),
            std::string::npos)
      << v[5];
  auto small = verdicts(
      "kernel s(a: tensor<bf16, [16, 16]>, c: tensor<f32, [16, 16]>) tune num_warps in [2, 8]\n"
      "  grid [1] { let t = load(a, [0, 0], [16, 16]); store(c, [0, 0], dot(t, t)); }\n",
      {});
  EXPECT_EQ(small[0], "");
  EXPECT_NE(small[1].find("with 8 warps does not fit the tensor cores of sm_90a"),
            std::string::npos)
      << small[1];
}

/// splitKReason for examples/matmul.tile at a size, with parameters.
std::string splitVerdict(std::map<std::string, int64_t> params, std::map<std::string, int64_t> dims,
                         const char *file = "examples/matmul.tile") {
  auto p = jit::Program::fromFile(std::string(TESSERA_SOURCE_DIR) + "/" + file);
  EXPECT_TRUE((bool)p);
  if (!p)
    return "no program";
  jit::Compiler compiler;
  jit::CompileRequest req;
  req.kernel = (*p)->kernels()[0].name;
  req.params = std::move(params);
  req.dims = std::move(dims);
  req.arch = "sm_90a";
  std::string out = "not inspected";
  llvm::Error e = compiler.inspect(**p, req, [&](mlir::tile::KernelOp k) {
    out = splitKReason(k, (*p)->kernels()[0], req, *target::TargetInfo::lookup("sm_90a"), 132);
    return llvm::Error::success();
  });
  EXPECT_FALSE((bool)e) << llvm::toString(std::move(e));
  return out;
}

TEST(AutotunePrune, SplitKOnlyWhereTilesLeaveMultiprocessorsIdle) {
  std::map<std::string, int64_t> tile = {{"BM", 128}, {"BN", 128}, {"BK", 64}};
  auto with = [&](int64_t s) {
    auto p = tile;
    p["split-k"] = s;
    return p;
  };
  // 1000^3: 64 tiles on 132 multiprocessors; 2 splits of 8 iterations each.
  EXPECT_EQ(splitVerdict(with(2), {{"M", 1000}, {"N", 1000}, {"K", 1000}}), "");
  EXPECT_EQ(splitVerdict(with(4), {{"M", 1000}, {"N", 1000}, {"K", 1000}}), "");
  // 128 tiles of 128 x 64 in 4 splits: 512 programs, more than two per
  // multiprocessor.
  EXPECT_NE(splitVerdict({{"BM", 128}, {"BN", 64}, {"BK", 64}, {"split-k", 4}},
                         {{"M", 1000}, {"N", 1000}, {"K", 1000}})
                .find("512 programs are more than two per multiprocessor"),
            std::string::npos);
  // M=64: 64 tiles of 64 x 128 over K = 8192: 4 splits of 32 iterations.
  EXPECT_EQ(splitVerdict({{"BM", 64}, {"BN", 128}, {"BK", 64}, {"split-k", 4}},
                         {{"M", 64}, {"N", 8192}, {"K", 8192}}),
            "");
  // 4096^3: 1024 tiles keep every multiprocessor busy.
  EXPECT_NE(splitVerdict(with(2), {{"M", 4096}, {"N", 4096}, {"K", 4096}})
                .find("1024 output tiles already occupy the 132 multiprocessors"),
            std::string::npos);
  // K = 128: two iterations cannot make two splits of two.
  EXPECT_NE(splitVerdict(with(2), {{"M", 512}, {"N", 512}, {"K", 128}})
                .find("iterations give a split fewer than two"),
            std::string::npos);
  // Attention's loop carries more than the accumulator.
  std::string att = splitVerdict({{"split-k", 2}}, {{"B", 1}, {"H", 1}, {"N", 256}, {"D", 64}},
                                 "examples/attention.tile");
  EXPECT_NE(att.find("split-k needs a loop"), std::string::npos) << att;
}

TEST(AutotuneCompile, EveryExampleCompilesWithoutFailures) {
  struct Ex {
    const char *file;
    std::map<std::string, int64_t> dims;
  };
  for (const Ex &ex :
       {Ex{"examples/vector_add.tile", {{"N", 1 << 20}}},
        Ex{"examples/softmax.tile", {{"M", 4096}, {"N", 4096}}},
        Ex{"examples/layernorm.tile", {{"M", 4096}, {"N", 1000}}},
        Ex{"examples/rmsnorm.tile", {{"M", 4096}, {"N", 8192}}},
        Ex{"examples/matmul_tn.tile", {{"M", 1024}, {"N", 1024}, {"K", 1024}}},
        Ex{"examples/causal_attention.tile", {{"B", 1}, {"H", 8}, {"N", 1024}, {"D", 64}}}}) {
    auto p = jit::Program::fromFile(std::string(TESSERA_SOURCE_DIR) + "/" + ex.file);
    ASSERT_TRUE((bool)p);
    TuneRequest req;
    req.dims = ex.dims;
    auto sum = compileAll(**p, req);
    ASSERT_TRUE((bool)sum) << llvm::toString(sum.takeError());
    EXPECT_EQ(sum->failed, 0) << ex.file;
    EXPECT_GT(sum->compiled, 0) << ex.file;
    EXPECT_EQ(sum->compiled + sum->pruned + sum->failed, (int)sum->candidates.size());
    for (const Candidate &c : sum->candidates) {
      EXPECT_TRUE(c.compiled || !c.pruned.empty())
          << ex.file << " " << c.config.text() << ": " << c.failed;
      if (c.compiled)
        EXPECT_GT(c.registers, 0) << ex.file << " " << c.config.text();
    }
  }
}

// Attention's loop multicasts K and V to a cluster's programs only with the
// producer warpgroup: clusters of 2 are tried on those configurations (8
// warps, not rotated or persistent) and on no other.
TEST(AutotuneCompile, AttentionTriesClustersOnlyWithTheProducer) {
  auto p = jit::Program::fromFile(std::string(TESSERA_SOURCE_DIR) + "/examples/attention.tile");
  ASSERT_TRUE((bool)p);
  TuneRequest req;
  req.dims = {{"B", 1}, {"H", 8}, {"N", 1024}, {"D", 64}};
  req.fixed = {{"BN", 128}, {"num_stages", 3}};
  auto sum = compileAll(**p, req);
  ASSERT_TRUE((bool)sum) << llvm::toString(sum.takeError());
  int clustered = 0;
  for (const Candidate &c : sum->candidates) {
    if (c.config.get("cluster", 1) != 2)
      continue;
    ++clustered;
    std::string text = c.config.text();
    EXPECT_EQ(c.config.get("warp-specialize", 0), 1) << text;
    EXPECT_EQ(c.config.get("num_warps", 0), 8) << text;
    EXPECT_EQ(c.config.get("rotate-dots", 0), 0) << text;
    EXPECT_EQ(c.config.get("persistent", 0), 0) << text;
    EXPECT_TRUE(c.compiled) << text << ": " << c.pruned << c.failed;
  }
  // BM 128, 64 and 256, each warp-specialized with 8 warps.
  EXPECT_EQ(clustered, 3);
}

//===----------------------------------------------------------------------===//
// The database
//===----------------------------------------------------------------------===//

class AutotuneDB : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tessera-tunedb", dir));
    path = std::string(dir) + "/tuning.json";
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  static TuneKey key(const std::string &kernel) {
    return TuneKey{kernel,        "abc",    "- aligned", "M=4096",
                   "NVIDIA H200", "sm_90a", 13000,       "tessera 0.1.0"};
  }
  llvm::SmallString<128> dir;
  std::string path;
};

TEST_F(AutotuneDB, RoundTripsEntries) {
  TuneDB db(path);
  auto none = db.lookup(key("mm"));
  ASSERT_TRUE((bool)none);
  EXPECT_FALSE(none->has_value());
  TuneEntry e{
      key("mm"), {{"BM", 128}, {"num_warps", 8}}, 0.25, "550.0 TFLOP/s", "2026-12-03T00:00:00Z"};
  ASSERT_FALSE((bool)db.store(e));
  auto hit = db.lookup(key("mm"));
  ASSERT_TRUE((bool)hit);
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->params, e.params);
  EXPECT_EQ((*hit)->metric, "550.0 TFLOP/s");
  EXPECT_EQ((*hit)->key.gpu, "NVIDIA H200");
  // Replacing keeps one entry per key.
  e.params["BM"] = 64;
  ASSERT_FALSE((bool)db.store(e));
  auto all = db.entries();
  ASSERT_TRUE((bool)all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().params.at("BM"), 64);
}

TEST_F(AutotuneDB, AnyChangeOfTheKeyMisses) {
  TuneDB db(path);
  ASSERT_FALSE((bool)db.store(TuneEntry{key("mm"), {{"BM", 128}}}));
  for (auto change : std::vector<std::function<void(TuneKey &)>>{
           [](TuneKey &k) { k.driver = 12080; }, [](TuneKey &k) { k.irHash = "abd"; },
           [](TuneKey &k) { k.gpu = "NVIDIA A100"; }, [](TuneKey &k) { k.bucket = "M=8192"; },
           [](TuneKey &k) { k.versions = "tessera 0.2.0"; }, [](TuneKey &k) { k.arch = "sm_80"; },
           [](TuneKey &k) { k.specialization = "- unaligned"; }}) {
    TuneKey k = key("mm");
    change(k);
    auto hit = db.lookup(k);
    ASSERT_TRUE((bool)hit);
    EXPECT_FALSE(hit->has_value());
  }
  EXPECT_EQ(TuneKey::bucketOf({{"M", 3000}, {"N", 4096}, {"K", 1}}), "K=1 M=4096 N=4096");
}

TEST_F(AutotuneDB, ConcurrentWritersLoseNothing) {
  std::vector<std::thread> ts;
  for (int t = 0; t < 6; ++t)
    ts.emplace_back([&, t] {
      TuneDB db(path);
      for (int i = 0; i < 8; ++i)
        ASSERT_FALSE((bool)db.store(
            TuneEntry{key("k" + std::to_string(t) + "_" + std::to_string(i)), {{"B", i}}}));
    });
  for (auto &t : ts)
    t.join();
  auto all = TuneDB(path).entries();
  ASSERT_TRUE((bool)all);
  EXPECT_EQ(all->size(), 48u);
}

TEST_F(AutotuneDB, ACorruptFileIsReportedNotOverwritten) {
  {
    std::ofstream(path) << "{ not json";
  }
  TuneDB db(path);
  auto hit = db.lookup(key("mm"));
  ASSERT_FALSE((bool)hit);
  EXPECT_NE(llvm::toString(hit.takeError()).find("is not valid JSON"), std::string::npos);
  EXPECT_TRUE((bool)db.store(TuneEntry{key("mm"), {}}));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "{ not json");
}

TEST(AutotuneKey, IrHashIgnoresCommentsAndFollowsTheBody) {
  jit::Compiler compiler;
  std::string body =
      "kernel k(x: tensor<f32, [N]>) grid [1] {\n  store(x, [0], load(x, [0], [128]) * 2.0);\n}\n";
  jit::CompileRequest req;
  req.dims = {{"N", 1000}};
  auto a = tuneKeyFor(compiler, *load(body), req, "gpu");
  auto b = tuneKeyFor(compiler, *load("// a comment\n" + body), req, "gpu");
  std::string changed = body;
  changed.replace(changed.find("2.0"), 3, "3.0");
  auto c = tuneKeyFor(compiler, *load(changed), req, "gpu");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->irHash, b->irHash);
  EXPECT_NE(a->irHash, c->irHash);
  EXPECT_EQ(a->bucket, "N=1024");
}

} // namespace
