//===- GpuTests.cpp - kernels on the GPU against CPU references -*- C++ -*-===//
//
// Every example (and the test programs with a reference here) runs through the
// runtime on random inputs, sizes that are and are not multiples of the tiles
// included, against float64 CPU references with dtype-appropriate tolerances;
// outputs are poisoned first. Skipped without a GPU. The .tile sources come from
// $TESSERA_SOURCE_DIR (the device bundle sets it) or the source tree.
//
//===----------------------------------------------------------------------===//
#include "test/gpu/GpuUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tessera;
using namespace tessera::gputest;

namespace {

std::string sourceDir() {
  const char *d = getenv("TESSERA_SOURCE_DIR");
  return d && *d ? d : TESSERA_SOURCE_DIR;
}

class Gpu : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (runtime || !skipReason.empty())
      return;
    auto rt = jit::Runtime::create();
    if (!rt) {
      skipReason = llvm::toString(rt.takeError());
      return;
    }
    runtime = std::move(*rt);
  }
  void SetUp() override {
    if (!runtime)
      GTEST_SKIP() << "no GPU: " << skipReason;
  }
  static std::shared_ptr<jit::Program> program(const std::string &rel) {
    static std::map<std::string, std::shared_ptr<jit::Program>> cache;
    auto &p = cache[rel];
    if (!p) {
      auto loaded = jit::Program::fromFile(sourceDir() + "/" + rel);
      if (!loaded) {
        ADD_FAILURE() << llvm::toString(loaded.takeError());
        return nullptr;
      }
      p = *loaded;
    }
    return p;
  }
  /// Launches and waits; fails the test on any error.
  static void run(const std::string &rel, std::vector<jit::Arg> args, const char *kernel = "") {
    auto p = program(rel);
    ASSERT_TRUE(p);
    auto info = runtime->launch(*p, kernel, args);
    ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
    auto &api = *cuda::driver();
    llvm::Error e = cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize");
    ASSERT_FALSE((bool)e) << llvm::toString(std::move(e));
  }
  static DeviceTensor up(HostTensor h) {
    auto d = DeviceTensor::upload(std::move(h));
    EXPECT_TRUE((bool)d);
    return d ? std::move(*d) : DeviceTensor{};
  }
  static DeviceTensor poison(DType t, std::vector<int64_t> shape) {
    auto d = DeviceTensor::poisoned(t, std::move(shape));
    EXPECT_TRUE((bool)d);
    return d ? std::move(*d) : DeviceTensor{};
  }
  static void expectClose(const DeviceTensor &out, const std::vector<double> &want, double atol, double rtol) {
    auto got = out.download();
    ASSERT_TRUE((bool)got) << llvm::toString(got.takeError());
    Compare c = compare(*got, want, atol, rtol);
    EXPECT_EQ(c.bad, 0u) << c.bad << " of " << want.size() << " elements off; first at " << c.first << ": got "
                         << c.gotFirst << ", want " << c.wantFirst << " (max abs err " << c.maxAbs << ")";
  }
  static inline std::unique_ptr<jit::Runtime> runtime;
  static inline std::string skipReason;
  std::mt19937 rng{1234};
};

jit::Arg scalar(double v) { return jit::ScalarArg::of(v); }

//===----------------------------------------------------------------------===//
// Element-wise and row-wise examples
//===----------------------------------------------------------------------===//

struct VecCase { const char *name; int64_t n; };
class VectorAdd : public Gpu, public ::testing::WithParamInterface<VecCase> {};
TEST_P(VectorAdd, MatchesTheSum) {
  int64_t n = GetParam().n;
  auto x = up(HostTensor(DType::F32, {n}).random(rng)), y = up(HostTensor(DType::F32, {n}).random(rng));
  auto z = poison(DType::F32, {n});
  run("examples/vector_add.tile", {x.arg(), y.arg(), z.arg()});
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = (double)(float)(x.host.v[i] + y.host.v[i]);
  expectClose(z, want, 0, 0);
}
INSTANTIATE_TEST_SUITE_P(Sizes, VectorAdd,
                         ::testing::Values(VecCase{"n1M", 1 << 20}, VecCase{"n100003", 100003}, VecCase{"n1", 1}),
                         [](const auto &i) { return std::string(i.param.name); });

struct RowCase { const char *name; int64_t m, n; };
class Softmax : public Gpu, public ::testing::WithParamInterface<RowCase> {};
TEST_P(Softmax, MatchesFloat64) {
  auto [name, m, n] = GetParam();
  auto x = up(HostTensor(DType::F32, {m, n}).random(rng, -4, 4));
  auto y = poison(DType::F32, {m, n});
  run("examples/softmax.tile", {x.arg(), y.arg()});
  std::vector<double> want(m * n);
  for (int64_t r = 0; r < m; ++r) {
    double mx = -INFINITY, s = 0;
    for (int64_t c = 0; c < n; ++c)
      mx = std::max(mx, x.host.v[r * n + c]);
    for (int64_t c = 0; c < n; ++c)
      s += std::exp(x.host.v[r * n + c] - mx);
    for (int64_t c = 0; c < n; ++c)
      want[r * n + c] = std::exp(x.host.v[r * n + c] - mx) / s;
  }
  expectClose(y, want, 1e-6, 1e-4);
}
INSTANTIATE_TEST_SUITE_P(Shapes, Softmax,
                         ::testing::Values(RowCase{"m512_n4096", 512, 4096}, RowCase{"m333_n1000", 333, 1000},
                                           RowCase{"m7_n1", 7, 1}, RowCase{"m3_n20000", 3, 20000}),
                         [](const auto &i) { return std::string(i.param.name); });

class LayerNorm : public Gpu, public ::testing::WithParamInterface<RowCase> {};
TEST_P(LayerNorm, MatchesFloat64) {
  auto [name, m, n] = GetParam();
  auto x = up(HostTensor(DType::F32, {m, n}).random(rng, -2, 3));
  auto w = up(HostTensor(DType::F32, {n}).random(rng)), b = up(HostTensor(DType::F32, {n}).random(rng));
  auto y = poison(DType::F32, {m, n});
  run("examples/layernorm.tile", {x.arg(), w.arg(), b.arg(), y.arg(), scalar(1e-5)});
  std::vector<double> want(m * n);
  for (int64_t r = 0; r < m; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < n; ++c)
      mean += x.host.v[r * n + c] / n;
    for (int64_t c = 0; c < n; ++c)
      var += (x.host.v[r * n + c] - mean) * (x.host.v[r * n + c] - mean) / n;
    for (int64_t c = 0; c < n; ++c)
      want[r * n + c] = (x.host.v[r * n + c] - mean) / std::sqrt(var + 1e-5) * w.host.v[c] + b.host.v[c];
  }
  expectClose(y, want, 1e-4, 1e-4);
}
INSTANTIATE_TEST_SUITE_P(Shapes, LayerNorm,
                         ::testing::Values(RowCase{"m257_n1000", 257, 1000}, RowCase{"m64_n4096", 64, 4096},
                                           RowCase{"m5_n3", 5, 3}),
                         [](const auto &i) { return std::string(i.param.name); });

class RmsNorm : public Gpu, public ::testing::WithParamInterface<RowCase> {};
TEST_P(RmsNorm, MatchesFloat64) {
  auto [name, m, n] = GetParam();
  auto x = up(HostTensor(DType::BF16, {m, n}).random(rng, -2, 2));
  auto w = up(HostTensor(DType::BF16, {n}).random(rng));
  auto y = poison(DType::BF16, {m, n});
  run("examples/rmsnorm.tile", {x.arg(), w.arg(), y.arg(), scalar(1e-6)});
  std::vector<double> want(m * n);
  for (int64_t r = 0; r < m; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < n; ++c)
      ss += x.host.v[r * n + c] * x.host.v[r * n + c] / n;
    for (int64_t c = 0; c < n; ++c)
      want[r * n + c] = x.host.v[r * n + c] / std::sqrt(ss + 1e-6) * w.host.v[c];
  }
  expectClose(y, want, 2e-2, 1.6e-2); // bf16 output: 2^-8 relative, plus f32 math
}
INSTANTIATE_TEST_SUITE_P(Shapes, RmsNorm,
                         ::testing::Values(RowCase{"m257_n1000", 257, 1000}, RowCase{"m16_n8192", 16, 8192}),
                         [](const auto &i) { return std::string(i.param.name); });

//===----------------------------------------------------------------------===//
// Matmuls
//===----------------------------------------------------------------------===//

struct MmCase { const char *name; int64_t m, n, k; };
std::vector<double> matmulRef(const HostTensor &a, const HostTensor &b, int64_t m, int64_t n, int64_t k, bool aT) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = aT ? a.v[kk * m + i] : a.v[i * k + kk];
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += av * b.v[kk * n + j];
    }
  return c;
}
class Matmul : public Gpu, public ::testing::WithParamInterface<MmCase> {};
TEST_P(Matmul, MatchesFloat64) {
  auto [name, m, n, k] = GetParam();
  auto a = up(HostTensor(DType::BF16, {m, k}).random(rng)), b = up(HostTensor(DType::BF16, {k, n}).random(rng));
  auto c = poison(DType::BF16, {m, n});
  run("examples/matmul.tile", {a.arg(), b.arg(), c.arg()});
  expectClose(c, matmulRef(a.host, b.host, m, n, k, false), 2e-3 * std::sqrt((double)k), 8e-3);
}
TEST_P(Matmul, TransposedAMatchesFloat64) {
  auto [name, m, n, k] = GetParam();
  auto a = up(HostTensor(DType::BF16, {k, m}).random(rng)), b = up(HostTensor(DType::BF16, {k, n}).random(rng));
  auto c = poison(DType::BF16, {m, n});
  run("examples/matmul_tn.tile", {a.arg(), b.arg(), c.arg()});
  expectClose(c, matmulRef(a.host, b.host, m, n, k, true), 2e-3 * std::sqrt((double)k), 8e-3);
}
INSTANTIATE_TEST_SUITE_P(Shapes, Matmul,
                         ::testing::Values(MmCase{"m512_n512_k512", 512, 512, 512}, MmCase{"m300_n200_k130", 300, 200, 130},
                                           MmCase{"m128_n256_k64", 128, 256, 64}, MmCase{"m1_n8_k8", 1, 8, 8}),
                         [](const auto &i) { return std::string(i.param.name); });

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

struct AttnCase { const char *name; int64_t b, h, n, d; bool causal; };
std::vector<double> attentionRef(const HostTensor &q, const HostTensor &k, const HostTensor &v, const AttnCase &p,
                                 double scale) {
  std::vector<double> o(p.b * p.h * p.n * p.d, 0.0), s(p.n);
  for (int64_t bh = 0; bh < p.b * p.h; ++bh) {
    const double *Q = &q.v[bh * p.n * p.d], *K = &k.v[bh * p.n * p.d], *V = &v.v[bh * p.n * p.d];
    for (int64_t i = 0; i < p.n; ++i) {
      double mx = -INFINITY, sum = 0;
      int64_t lim = p.causal ? i + 1 : p.n;
      for (int64_t j = 0; j < lim; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < p.d; ++e)
          dot += Q[i * p.d + e] * K[j * p.d + e];
        s[j] = dot * scale;
        mx = std::max(mx, s[j]);
      }
      for (int64_t j = 0; j < lim; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      for (int64_t j = 0; j < lim; ++j)
        for (int64_t e = 0; e < p.d; ++e)
          o[(bh * p.n + i) * p.d + e] += s[j] / sum * V[j * p.d + e];
    }
  }
  return o;
}
class Attention : public Gpu, public ::testing::WithParamInterface<AttnCase> {};
TEST_P(Attention, MatchesFloat64) {
  AttnCase p = GetParam();
  std::vector<int64_t> shape = {p.b, p.h, p.n, p.d};
  auto q = up(HostTensor(DType::BF16, shape).random(rng, -2, 2)), k = up(HostTensor(DType::BF16, shape).random(rng, -2, 2)),
       v = up(HostTensor(DType::BF16, shape).random(rng));
  auto o = poison(DType::BF16, shape);
  double scale = 1.0 / std::sqrt((double)p.d);
  run(p.causal ? "examples/causal_attention.tile" : "examples/attention.tile",
      {q.arg(), k.arg(), v.arg(), o.arg(), scalar(scale)});
  expectClose(o, attentionRef(q.host, k.host, v.host, p, scale), 1e-2, 1.6e-2);
}
INSTANTIATE_TEST_SUITE_P(Shapes, Attention,
                         ::testing::Values(AttnCase{"b1_h2_n256_d64", 1, 2, 256, 64, false},
                                           AttnCase{"b2_h3_n200_d128", 2, 3, 200, 128, false},
                                           AttnCase{"b1_h2_n77_d64", 1, 2, 77, 64, false},
                                           AttnCase{"causal_b1_h2_n256_d64", 1, 2, 256, 64, true},
                                           AttnCase{"causal_b2_h2_n200_d128", 2, 2, 200, 128, true}),
                         [](const auto &i) { return std::string(i.param.name); });

//===----------------------------------------------------------------------===//
// Test programs
//===----------------------------------------------------------------------===//

TEST_F(Gpu, CausalAttentionF16BothModes) {
  for (bool causal : {true, false}) {
    AttnCase p{"", 2, 3, 200, 64, causal};
    std::vector<int64_t> shape = {p.b, p.h, p.n, p.d};
    auto q = up(HostTensor(DType::F16, shape).random(rng, -2, 2)),
         k = up(HostTensor(DType::F16, shape).random(rng, -2, 2)), v = up(HostTensor(DType::F16, shape).random(rng));
    auto o = poison(DType::F16, shape);
    double scale = 0.125;
    run("test/programs/causal_attention_f16.tile", {q.arg(), k.arg(), v.arg(), o.arg(), scalar(scale), scalar(causal)});
    expectClose(o, attentionRef(q.host, k.host, v.host, p, scale), 3e-3, 3e-3);
  }
}

TEST_F(Gpu, ReductionsOfTensorCoreProducts) {
  auto a = up(HostTensor(DType::BF16, {32, 64}).random(rng)), b = up(HostTensor(DType::BF16, {64, 128}).random(rng));
  auto rows = poison(DType::F32, {32}), cols = poison(DType::F32, {128});
  run("test/programs/dot_reductions.tile", {a.arg(), b.arg(), rows.arg(), cols.arg()});
  auto prod = matmulRef(a.host, b.host, 32, 128, 64, false);
  std::vector<double> rs(32, 0.0), cs(128, -INFINITY);
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 128; ++j) {
      rs[i] += prod[i * 128 + j];
      cs[j] = std::max(cs[j], prod[i * 128 + j]);
    }
  expectClose(rows, rs, 1e-3, 1e-5);
  expectClose(cols, cs, 1e-4, 1e-5);
}

TEST_F(Gpu, DotRowSum) {
  auto a = up(HostTensor(DType::BF16, {200, 64}).random(rng)), b = up(HostTensor(DType::BF16, {64, 64}).random(rng));
  auto y = poison(DType::F32, {200});
  run("test/programs/dot_rowsum.tile", {a.arg(), b.arg(), y.arg()});
  auto prod = matmulRef(a.host, b.host, 200, 64, 64, false);
  std::vector<double> want(200, 0.0);
  for (int64_t i = 0; i < 200; ++i)
    for (int64_t j = 0; j < 64; ++j)
      want[i] += prod[i * 64 + j];
  expectClose(y, want, 1e-3, 1e-5);
}

//===----------------------------------------------------------------------===//
// The runtime itself
//===----------------------------------------------------------------------===//

TEST_F(Gpu, RepeatLaunchesDoNotRecompile) {
  auto p = program("examples/vector_add.tile");
  ASSERT_TRUE(p);
  auto x = up(HostTensor(DType::F32, {4096}).random(rng)), z = poison(DType::F32, {4096});
  std::vector<jit::Arg> args = {x.arg(), x.arg(), z.arg()};
  auto first = runtime->launch(*p, "", args);
  ASSERT_TRUE((bool)first) << llvm::toString(first.takeError());
  auto again = runtime->launch(*p, "", args);
  ASSERT_TRUE((bool)again);
  EXPECT_FALSE(again->compiled);
  // Another size with the same specialization reuses the loaded kernel.
  auto y = up(HostTensor(DType::F32, {5000}).random(rng)), w = poison(DType::F32, {5000});
  size_t loaded = runtime->loadedKernels();
  auto other = runtime->launch(*p, "", {y.arg(), y.arg(), w.arg()});
  ASSERT_TRUE((bool)other);
  EXPECT_EQ(runtime->loadedKernels(), loaded);
  EXPECT_EQ(other->grid[0], 5);
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

} // namespace
