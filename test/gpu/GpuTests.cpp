//===- GpuTests.cpp - the runtime's own behaviour on the GPU ----*- C++ -*-===//
//
// Caching (repeat launches never recompile; other sizes of one specialization
// reuse the loaded kernel), split-K workspaces, tensor maps, the alignment
// specialization, the tuning database and the CUDA baselines. Threads, a
// million launches, failed asserts and refused launches are in
// RobustnessTests.cpp; the examples and
// test programs against their references are in ProgramTests.cpp. Skipped
// without a GPU. The .tile sources come from $TESSERA_SOURCE_DIR (the device
// bundle sets it) or the source tree.
//
//===----------------------------------------------------------------------===//
#include "test/gpu/GpuFixture.h"

#include "dialects/Tile/TileDialect.h"

#include "runtime/autotune/Space.h"
#include "runtime/autotune/TuneDB.h"
#include "runtime/autotune/Tuner.h"
#include "runtime/bench/Compare.h"
#include "runtime/cuda/TensorMap.h"
#include "test/common/Cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace tessera;
using namespace tessera::gputest;

namespace {

//===----------------------------------------------------------------------===//
// The runtime itself
//===----------------------------------------------------------------------===//

TEST_F(Gpu, RepeatLaunchesDoNotRecompile) {
  auto p = program("examples/vector_add.tile");
  ASSERT_TRUE(p);
  auto x = up(HostTensor(DType::F32, {4096}).random(rng)), z = poison(DType::F32, {4096});
  std::vector<jit::Arg> args = {x.arg(), x.arg(), z.arg()};
  // The declared default at every size: neither the cost model nor the
  // database (LaunchesUseTheTuningDatabase stores a vector_add entry in the
  // process's database, GpuFixture.h).
  jit::LaunchOptions declared;
  declared.useModel = false;
  declared.useTuned = false;
  auto first = runtime->launch(*p, "", args, declared);
  ASSERT_TRUE((bool)first) << llvm::toString(first.takeError());
  auto again = runtime->launch(*p, "", args, declared);
  ASSERT_TRUE((bool)again);
  EXPECT_FALSE(again->compiled);
  // Another size with the same specialization reuses the loaded kernel.
  auto y = up(HostTensor(DType::F32, {5000}).random(rng)), w = poison(DType::F32, {5000});
  size_t loaded = runtime->loadedKernels();
  auto other = runtime->launch(*p, "", {y.arg(), y.arg(), w.arg()}, declared);
  ASSERT_TRUE((bool)other);
  EXPECT_EQ(runtime->loadedKernels(), loaded);
  EXPECT_EQ(other->grid[0], 5);
}

// Repeat launches take the runtime's fast path (the last binding with new
// data pointers); each must still compute on its own buffers and scalars.
TEST_F(Gpu, RepeatLaunchesFollowTheirBuffersAndScalars) {
  auto p = jit::Program::fromSource(
      "axpy.tile", "kernel axpy(x: tensor<f32, [N]>, y: tensor<f32, [N]>, a: f32)\n"
                   "  tune BLOCK in [256] grid [cdiv(N, BLOCK)] {\n"
                   "  let i = program_id(0);\n"
                   "  store(y, [i], load(y, [i], [BLOCK]) + a * load(x, [i], [BLOCK]));\n}\n");
  ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
  const int64_t n = 1000;
  std::vector<DeviceTensor> xs, ys;
  for (int i = 0; i < 3; ++i) {
    xs.push_back(up(HostTensor(DType::F32, {n}).random(rng)));
    ys.push_back(up(HostTensor(DType::F32, {n}).random(rng)));
  }
  std::vector<std::vector<double>> want(3);
  for (int i = 0; i < 3; ++i)
    want[i] = ys[i].host.v;
  // Buffers alternate, then the scalar changes, then the shape (a prefix).
  struct Step {
    int x, y;
    double a;
    int64_t len;
  };
  for (Step st : {Step{0, 0, 2.0, n}, Step{1, 1, 2.0, n}, Step{2, 2, 2.0, n}, Step{0, 1, 2.0, n},
                  Step{0, 1, -0.5, n}, Step{2, 0, -0.5, 512}}) {
    jit::TensorArg x = xs[st.x].arg(), y = ys[st.y].arg();
    x.shape = y.shape = {st.len};
    auto info = runtime->launch(**p, "", {x, y, jit::ScalarArg::of(st.a)});
    ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
    for (int64_t j = 0; j < st.len; ++j)
      want[st.y][j] =
          (double)(float)((float)want[st.y][j] + (float)st.a * (float)xs[st.x].host.v[j]);
  }
  ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    expectClose(ys[i], want[i], 1e-6, 1e-6);
  }
}

// Split-K kernels share one workspace and one row of arrival counters per
// stream: launches of several sizes (the workspace grows), repeated on the
// same buffers (the counters must be back at zero) and on others, each
// against a float64 reference.
TEST_F(Gpu, SplitKLaunchesShareTheirWorkspace) {
  auto p = program("examples/matmul.tile");
  ASSERT_TRUE(p);
  struct Size {
    int64_t m, n, k;
  };
  std::vector<Size> sizes = {{256, 256, 512}, {640, 384, 300}, {256, 256, 512}, {130, 600, 1000}};
  std::vector<DeviceTensor> as, bs;
  for (Size s : sizes) {
    as.push_back(up(HostTensor(DType::BF16, {s.m, s.k}).random(rng)));
    bs.push_back(up(HostTensor(DType::BF16, {s.k, s.n}).random(rng)));
  }
  jit::LaunchOptions lo;
  lo.params = {{"BM", 128},      {"BN", 128},       {"BK", 64},
               {"num_warps", 8}, {"num_stages", 3}, {"split-k", 4}};
  // Round 0 grows the workspace; round 1 reuses it. Fresh poisoned outputs
  // each round, each checked.
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    std::vector<DeviceTensor> cs;
    for (Size s : sizes)
      cs.push_back(poison(DType::BF16, {s.m, s.n}));
    for (size_t i = 0; i < sizes.size(); ++i) {
      auto info = runtime->launch(*p, "", {as[i].arg(), bs[i].arg(), cs[i].arg()}, lo);
      ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
      EXPECT_EQ(info->grid[2], 4);
    }
    ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
    for (size_t i = 0; i < sizes.size(); ++i) {
      SCOPED_TRACE(i);
      Size s = sizes[i];
      std::vector<double> want = testutil::matmulRef(as[i].host, bs[i].host, s.m, s.n, s.k, false);
      expectClose(cs[i], want, 2e-3 * std::sqrt((double)s.k), 8e-3);
    }
  }
}

TEST_F(Gpu, TensorMapsAreEncodedAndCachedPerBuffer) {
  auto a = up(HostTensor(DType::BF16, {256, 192}).random(rng));
  auto b = up(HostTensor(DType::BF16, {256, 192}).random(rng));
  cuda::TensorMapSpec spec;
  spec.dtype = DType::BF16;
  spec.shape = {256, 192};
  spec.strides = {192, 1};
  spec.box = {128, 64};
  spec.swizzle = 128;
  cuda::TensorMapCache cache;
  auto ma = cache.get(a.arg().data, spec);
  ASSERT_TRUE((bool)ma) << llvm::toString(ma.takeError());
  auto again = cache.get(a.arg().data, spec);
  ASSERT_TRUE((bool)again);
  EXPECT_EQ(*again, *ma); // a hit: the same map
  EXPECT_EQ(cache.size(), 1u);
  auto mb = cache.get(b.arg().data, spec); // same signature, another buffer
  ASSERT_TRUE((bool)mb);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(std::memcmp(*ma, *mb, sizeof(CUtensorMap)), 0); // the base differs inside
  // A tensor TMA cannot describe is refused with the reason, nothing cached.
  auto odd = cache.get(a.arg().data + 2, spec);
  ASSERT_FALSE((bool)odd);
  EXPECT_NE(llvm::toString(odd.takeError()).find("not aligned to 16 bytes"), std::string::npos);
  EXPECT_EQ(cache.size(), 2u);
}

// On sm_90 the aligned matmul copies its operands with TMA (two tensor maps);
// a new buffer gets its own maps (launches alternating between two sets of
// buffers stay correct); a tensor TMA cannot describe (here a stride of 2^40
// bytes over an extent of 1) takes the variant without maps, with the same
// result. Ragged sizes: the maps' zero fill pads the last blocks.
TEST_F(Gpu, MatmulCopiesWithTmaWhereTheTensorsAllowIt) {
  auto p = program("examples/matmul.tile");
  ASSERT_TRUE(p);
  bool tma = target::TargetInfo::get(runtime->arch())->hasTMA();
  const int64_t m = 192, n = 320, k = 200;
  struct Set {
    HostTensor a, b;
    DeviceTensor da, db, dc;
  };
  std::vector<Set> sets;
  for (int i = 0; i < 2; ++i) {
    Set s{HostTensor(DType::BF16, {m, k}).random(rng), HostTensor(DType::BF16, {k, n}).random(rng)};
    s.da = up(s.a);
    s.db = up(s.b);
    s.dc = poison(DType::BF16, {m, n});
    sets.push_back(std::move(s));
  }
  auto &api = *cuda::driver();
  for (int round : {0, 1, 0, 1}) {
    Set &s = sets[round];
    auto info = runtime->launch(*p, "", {s.da.arg(), s.db.arg(), s.dc.arg()});
    ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
    EXPECT_EQ(info->tensorMaps, tma ? 2u : 0u);
    ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "sync"));
    expectClose(s.dc, matmulRef(s.a, s.b, m, n, k, false), 2e-3 * std::sqrt((double)k), 1e-2);
  }
  // One row of A whose row stride TMA cannot encode.
  jit::TensorArg row = sets[0].da.arg();
  row.shape = {1, k};
  row.strides = {int64_t(1) << 39, 1}; // 2^40 bytes
  auto c1 = poison(DType::BF16, {1, n});
  auto info = runtime->launch(*p, "", {row, sets[0].db.arg(), c1.arg()});
  ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
  EXPECT_EQ(info->tensorMaps, 0u);
  ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "sync"));
  HostTensor a1(DType::BF16, {1, k});
  for (int64_t j = 0; j < k; ++j)
    a1.v[j] = sets[0].a.v[j];
  expectClose(c1, matmulRef(a1, sets[0].b, 1, n, k, false), 2e-3 * std::sqrt((double)k), 1e-2);
}

// Every configuration the tuner may time (the unpruned product of matmul's
// tune clauses) computes the product, on aligned ragged sizes with several
// trips around the pipelined loop: on sm_90a these are TMA copies and, with an
// asynchronous dot, producer and compute warps. Each configuration is named
// on stderr before it runs, so a hang points at its configuration.
TEST_F(Gpu, EveryMatmulConfigurationComputesTheProduct) {
  auto p = program("examples/matmul.tile");
  ASSERT_TRUE(p);
  auto sig = p->kernel("");
  ASSERT_TRUE((bool)sig);
  auto target = target::TargetInfo::get(runtime->arch());
  ASSERT_TRUE((bool)target);
  // TESSERA_TEST_MATMUL_SIZE=M,N,K runs another size, unchecked (too large
  // for the host reference): a search for configurations that fail or hang.
  int64_t m = 384, n = 320, k = 640;
  bool check = true;
  if (const char *size = getenv("TESSERA_TEST_MATMUL_SIZE")) {
    ASSERT_EQ(sscanf(size, "%ld,%ld,%ld", &m, &n, &k), 3);
    check = false;
  }
  HostTensor a = HostTensor(DType::BF16, {m, k}).random(rng);
  HostTensor b = HostTensor(DType::BF16, {k, n}).random(rng);
  auto da = up(a), db = up(b);
  std::vector<double> want = check ? matmulRef(a, b, m, n, k, false) : std::vector<double>{};
  auto &api = *cuda::driver();
  int ran = 0;
  for (const autotune::Config &config : autotune::enumerate(*sig)) {
    jit::CompileRequest req;
    req.params = config.params;
    req.dims = {{"M", m}, {"N", n}, {"K", k}};
    req.arch = runtime->arch();
    std::string pruned;
    llvm::Error e = runtime->compiler().inspect(*p, req, [&](mlir::tile::KernelOp kernel) {
      pruned = autotune::pruneReason(kernel, *target);
      return llvm::Error::success();
    });
    ASSERT_FALSE((bool)e) << llvm::toString(std::move(e));
    if (!pruned.empty())
      continue;
    llvm::errs() << "matmul " << config.text() << "\n";
    llvm::errs().flush();
    auto dc = poison(DType::BF16, {m, n});
    jit::LaunchOptions lo;
    lo.params = config.params;
    lo.useTuned = false;
    auto info = runtime->launch(*p, "", {da.arg(), db.arg(), dc.arg()}, lo);
    ASSERT_TRUE((bool)info) << config.text() << ": " << llvm::toString(info.takeError());
    ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "sync")) << config.text();
    SCOPED_TRACE(config.text());
    if (check)
      expectClose(dc, want, 2e-3 * std::sqrt((double)k), 1e-2);
    ++ran;
  }
  EXPECT_GT(ran, 40);
}

TEST_F(Gpu, UnalignedTensorsGetTheUnalignedVariant) {
  auto p = program("examples/vector_add.tile");
  ASSERT_TRUE(p);
  int64_t n = 1001;
  auto big = up(HostTensor(DType::F32, {n + 1}).random(rng));
  auto z = poison(DType::F32, {n});
  jit::TensorArg x = big.arg();
  x.data += 4; // one element in: 4-byte aligned only
  x.shape = {n};
  auto info = runtime->launch(*p, "", {x, x, z.arg()});
  ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
  auto &api = *cuda::driver();
  ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "sync"));
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = (double)(float)(2 * big.host.v[i + 1]);
  expectClose(z, want, 0, 0);
}

// One unaligned tensor among aligned ones: the aligned variant with that
// tensor listed (tile.unaligned_args), whose accesses alone are scalar.
TEST_F(Gpu, OneUnalignedTensorAmongAlignedOnes) {
  auto p = program("examples/vector_add.tile");
  ASSERT_TRUE(p);
  int64_t n = 4096;
  auto big = up(HostTensor(DType::F32, {n + 1}).random(rng));
  auto y = up(HostTensor(DType::F32, {n}).random(rng));
  auto z = poison(DType::F32, {n});
  jit::TensorArg x = big.arg();
  x.data += 4; // one element in: 4-byte aligned only
  x.shape = {n};
  auto info = runtime->launch(*p, "", {x, y.arg(), z.arg()});
  ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
  auto &api = *cuda::driver();
  ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "sync"));
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = (double)(float)(big.host.v[i + 1] + y.host.v[i]);
  expectClose(z, want, 0, 0);
}

// The tuner compares every configuration's outputs with the first that ran
// (they all agree here), and says how many agreed; a configuration that ran alone was compared with
// nothing, which the counts show (the winner line of `tessera tune` says so).
TEST_F(Gpu, TunerCountsTheConfigurationsCheckedAgainstTheReference) {
  auto p = program("examples/vector_add.tile");
  ASSERT_TRUE(p);
  auto search = [&](std::map<std::string, int64_t> fixed) {
    autotune::TuneRequest req;
    req.kernel = "vector_add";
    req.dims = {{"N", 5000}};
    req.arch = runtime->arch();
    req.driverVersion = cuda::driver()->version;
    req.fixed = std::move(fixed);
    auto compiled = autotune::compileAll(*p, req);
    if (!compiled) {
      ADD_FAILURE() << llvm::toString(compiled.takeError());
      return std::make_pair(autotune::TimingSummary{}, -1);
    }
    autotune::TimingOptions opts;
    opts.reps = 3;
    auto timed = autotune::timeAll(*runtime, *p, req, compiled->candidates, opts);
    if (!timed) {
      ADD_FAILURE() << llvm::toString(timed.takeError());
      return std::make_pair(autotune::TimingSummary{}, -1);
    }
    int ran = 0;
    for (const autotune::Candidate &c : compiled->candidates)
      ran += c.compiled && c.duplicateOf < 0;
    return std::make_pair(*timed, ran);
  };
  auto [all, ran] = search({});
  ASSERT_GE(ran, 2);
  EXPECT_EQ(all.checkedAgainst, 0);
  EXPECT_EQ(all.agreed, ran - 1);
  EXPECT_EQ(all.disagreed, 0);
  auto [one, alone] = search({{"BLOCK", 1024}, {"num_warps", 4}});
  EXPECT_EQ(alone, 1);
  EXPECT_EQ(one.best, 0);
  EXPECT_EQ(one.agreed + one.disagreed, 0);
}

// Outputs are grouped by agreement and the largest group is taken as right:
// a kernel whose first configuration (BLOCK=256) adds 1 and whose others add
// 0 keeps the others and fails the first, though it ran first; with as many
// configurations on each side, nothing wins.
TEST_F(Gpu, TunerTakesTheMajorityOfAgreeingOutputs) {
  auto search = [&](const std::string &blocks) {
    auto p = jit::Program::fromSource("odd.tile",
                                      "kernel odd(x: tensor<f32, [N]>, z: tensor<f32, [N]>)\n"
                                      "  tune BLOCK in [" +
                                          blocks +
                                          "] grid [cdiv(N, BLOCK)] {\n"
                                          "  let i = program_id(0);\n"
                                          "  store(z, [i], load(x, [i], [BLOCK]) + "
                                          "full([BLOCK], ((BLOCK / 256) % 2).to(f32), f32));\n}\n");
    std::vector<autotune::Candidate> cands;
    if (!p) {
      ADD_FAILURE() << llvm::toString(p.takeError());
      return std::make_pair(autotune::TimingSummary{}, cands);
    }
    autotune::TuneRequest req;
    req.kernel = "odd";
    req.dims = {{"N", 5000}};
    req.arch = runtime->arch();
    req.driverVersion = cuda::driver()->version;
    auto compiled = autotune::compileAll(**p, req);
    if (!compiled) {
      ADD_FAILURE() << llvm::toString(compiled.takeError());
      return std::make_pair(autotune::TimingSummary{}, cands);
    }
    autotune::TimingOptions opts;
    opts.reps = 3;
    auto timed = autotune::timeAll(*runtime, **p, req, compiled->candidates, opts);
    if (!timed) {
      ADD_FAILURE() << llvm::toString(timed.takeError());
      return std::make_pair(autotune::TimingSummary{}, cands);
    }
    return std::make_pair(*timed, compiled->candidates);
  };
  auto block = [](const autotune::Candidate &c) { return c.config.get("BLOCK", -1); };
  auto [sum, cands] = search("256, 512, 1024");
  ASSERT_GE(sum.best, 0);
  EXPECT_FALSE(sum.tied);
  EXPECT_EQ(sum.groups, 2);
  EXPECT_NE(block(cands[sum.best]), 256);
  EXPECT_NE(block(cands[sum.checkedAgainst]), 256);
  int odd = 0, even = 0;
  for (const autotune::Candidate &c : cands) {
    bool wrong = c.failed.rfind("wrong output", 0) == 0;
    if (c.duplicateOf >= 0 || !(c.timed || wrong))
      continue; // not run
    if (block(c) == 256) {
      ++odd;
      EXPECT_FALSE(c.timed) << c.config.text();
      EXPECT_TRUE(wrong) << c.config.text() << ": " << c.failed;
    } else {
      ++even;
      EXPECT_TRUE(c.timed && !wrong) << c.config.text() << ": " << c.failed;
    }
  }
  ASSERT_GE(odd, 1);
  EXPECT_EQ(sum.disagreed, odd);
  EXPECT_EQ(sum.agreed, even - 1);
  // One configuration a side (BLOCK=256 against BLOCK=512): no majority, no winner.
  auto [tie, tieCands] = search("256, 512");
  EXPECT_TRUE(tie.tied);
  EXPECT_EQ(tie.best, -1);
}

TEST_F(Gpu, LaunchesUseTheTuningDatabase) {
  auto p = program("examples/vector_add.tile");
  ASSERT_TRUE(p);
  int64_t n = 6000; // a size no other test launches
  jit::CompileRequest req;
  req.kernel = "vector_add";
  req.dims = {{"N", n}};
  req.arch = runtime->arch();
  req.driverVersion = cuda::driver()->version;
  auto name = runtime->context().name();
  ASSERT_TRUE((bool)name);
  auto key = autotune::tuneKeyFor(runtime->compiler(), *p, req, *name);
  ASSERT_TRUE((bool)key) << llvm::toString(key.takeError());
  ASSERT_FALSE(runtime->tuningDatabase().empty());
  autotune::TuneDB db(runtime->tuningDatabase()); // the fixture's own (GpuFixture.h)
  ASSERT_FALSE((bool)db.store(autotune::TuneEntry{*key, {{"BLOCK", 512}, {"num_warps", 8}}}));
  auto x = up(HostTensor(DType::F32, {n}).random(rng)), z = poison(DType::F32, {n});
  auto info = runtime->launch(*p, "", {x.arg(), x.arg(), z.arg()});
  ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
  EXPECT_TRUE(info->tuned);
  EXPECT_EQ(info->threads, 256u); // num_warps=8 from the database
  auto again = runtime->launch(*p, "", {x.arg(), x.arg(), z.arg()});
  ASSERT_TRUE((bool)again);
  EXPECT_TRUE(again->tuned);    // a cached launch says so too
  EXPECT_EQ(info->grid[0], 12); // cdiv(6000, 512)
  jit::LaunchOptions off;
  off.useTuned = false;
  off.useModel = false;
  auto plain = runtime->launch(*p, "", {x.arg(), x.arg(), z.arg()}, off);
  ASSERT_TRUE((bool)plain);
  EXPECT_FALSE(plain->tuned);
  EXPECT_EQ(plain->grid[0], 6); // the default BLOCK=1024
  ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = (double)(float)(2 * x.host.v[i]);
  expectClose(z, want, 0, 0);
}

// The hand-written CUDA baselines (NVRTC) on ragged sizes agree with Tessera,
// through the comparison `tessera bench` runs.
TEST_F(Gpu, CudaBaselinesAgreeWithTessera) {
  std::string dir = sourceDir();
  std::vector<bench::PairSpec> specs;
  auto add = [&](const char *tile, const char *cu, const char *kernel,
                 std::map<std::string, int64_t> dims, std::map<std::string, double> scalars = {}) {
    bench::PairSpec p{"test", kernel, dir + "/" + tile, "", dir + "/examples/cuda/" + cu, kernel};
    p.dims = std::move(dims);
    p.scalars = std::move(scalars);
    p.bytes = 1;
    specs.push_back(p);
  };
  add("test/programs/softmax_bf16.tile", "softmax.cu", "softmax_bf16", {{"M", 100}, {"N", 3000}});
  add("examples/softmax.tile", "softmax.cu", "softmax_f32", {{"M", 77}, {"N", 1001}});
  add("examples/matmul.tile", "matmul.cu", "matmul_bf16", {{"M", 300}, {"N", 200}, {"K", 136}});
  add("examples/attention.tile", "attention.cu", "attention_bf16_d64",
      {{"B", 1}, {"H", 2}, {"N", 200}, {"D", 64}}, {{"scale", 0.125}});
  add("examples/causal_attention.tile", "attention.cu", "causal_attention_bf16_d128",
      {{"B", 2}, {"H", 2}, {"N", 200}, {"D", 128}}, {{"scale", 0.088}});
  for (const bench::PairSpec &p : specs) {
    auto r = bench::runPair(*runtime, p, 3);
    if (!r) {
      std::string why = llvm::toString(r.takeError());
      if (why.find("no NVRTC") != std::string::npos)
        GTEST_SKIP() << why;
      FAIL() << p.cuKernel << ": " << why;
    }
    ASSERT_EQ(r->sides.size(), 2u);
    EXPECT_TRUE(r->sides[1].ok) << p.cuKernel << ": relative error " << r->sides[1].relErr;
    EXPECT_LT(r->sides[1].relErr, 2e-2) << p.cuKernel;
    printf("%s: CUDA against Tessera, relative error %.2e\n", p.cuKernel.c_str(),
           r->sides[1].relErr);
  }
}

} // namespace
