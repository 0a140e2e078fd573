//===- CasesOdd.cpp - tile extents that are not powers of two -------------===//
//
// test/programs/odd_extents.tile and attention with a head dimension of 96 and
// blocks of 48 and 80: every padded axis of code generation (tile-pad-extents)
// at ragged sizes. The interpreter runs them as written and, in
// InterpreterTest's PaddedExtents suite, as code generation pads them.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>

using namespace tessera;
using namespace tessera::testutil;

std::vector<ProgramCase> tessera::testutil::oddExtentCases() {
  std::vector<ProgramCase> out;
  std::mt19937 rng(4242);
  const char *file = "test/programs/odd_extents.tile";
  {
    int64_t n = 1000;
    ProgramCase c{"odd_scale48_1000", file, "scale48"};
    c.args = {in("x", rnd(rng, DType::F32, {n})), output("y", DType::F32, {n})};
    exact(c, {1});
    c.check = [n](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i)
        want[i] = (double)(float)((float)a[0].t.v[i] * 2.0f + 1.0f);
      return closeTo("y", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 20, n = 70;
    ProgramCase c{"odd_rowstats_20x70", file, "rowstats"};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -5, 5)), output("s", DType::F32, {m}),
              output("mx", DType::F32, {m}), output("mn", DType::F32, {m})};
    c.check = [m, n](const std::vector<CaseArg> &a) {
      std::vector<double> s(m, 80.0 - n), mx(m, -INFINITY), mn(m, INFINITY);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double v = a[0].t.v[i * n + j];
          s[i] += 2.0 * v + 1.0;
          mx[i] = std::max(mx[i], v);
          mn[i] = std::min(mn[i], v);
        }
      return closeTo("s", a[1].t, s, 1e-5, 1e-5) + closeTo("mx", a[2].t, mx, 0, 0) +
             closeTo("mn", a[3].t, mn, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{100, 90, 130}, {48, 80, 48}}) {
    ProgramCase c{"odd_matmul_m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" +
                      std::to_string(k),
                  file, "matmul_odd"};
    c.args = {in("a", rnd(rng, DType::BF16, {m, k})), in("b", rnd(rng, DType::BF16, {k, n})),
              output("c", DType::F32, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      // C = exp(A) (B + 1), both rounded to bf16, plus 1 for each k past K in
      // the last block of 48.
      int64_t extra = (k + 47) / 48 * 48 - k;
      std::vector<double> want(m * n, (double)extra);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t kk = 0; kk < k; ++kk) {
          double ea = roundTo(DType::BF16, std::exp((double)a[0].t.v[i * k + kk]));
          for (int64_t j = 0; j < n; ++j)
            want[i * n + j] += ea * roundTo(DType::BF16, a[1].t.v[kk * n + j] + 1.0);
        }
      return closeTo("c", a[2].t, want, 1e-3 * std::sqrt((double)k), 2e-3);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 500, nb = 30;
    ProgramCase c{"odd_hist48_500", file, "hist48"};
    HostTensor x(DType::I32, {n});
    std::uniform_int_distribution<int64_t> u(-2, nb + 1);
    for (double &v : x.v)
      v = (double)u(rng);
    c.args = {in("x", x), inout("hist", HostTensor(DType::I32, {nb})),
              output("copy", DType::I32, {n})};
    exact(c, {1, 2});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> h(nb, 0.0);
      for (double v : a[0].t.v)
        if (v >= 0 && v < nb)
          h[(int64_t)v] += 1;
      return closeTo("hist", a[1].t, h, 0, 0) + closeTo("copy", a[2].t, a[0].t.v, 0, 0);
    };
    out.push_back(std::move(c));
  }
  // Attention with a head dimension of 96 and blocks of 48 queries and 80 keys.
  for (bool causal : {false, true}) {
    int64_t b = 1, h = 2, n = 150, d = 96;
    ProgramCase c{std::string("odd_attention_d96_bm48_bn80") + (causal ? "_causal" : ""),
                  "test/programs/causal_attention_f16.tile", "causal_attention"};
    c.params = {{"BM", 48}, {"BN", 80}, {"num_warps", 4}, {"num_stages", 2}};
    c.args = {in("q", rnd(rng, DType::F16, {b, h, n, d})),
              in("k", rnd(rng, DType::F16, {b, h, n, d})),
              in("v", rnd(rng, DType::F16, {b, h, n, d})),
              output("o", DType::F16, {b, h, n, d}),
              scalar("sm_scale", 0.1),
              scalar("causal", causal ? 1 : 0)};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("o", a[3].t, attentionRef(a[0].t, a[1].t, a[2].t, causal, (double)0.1f), 2e-3,
                     1e-2);
    };
    out.push_back(std::move(c));
  }
  return out;
}
