//===- CasesPrograms.cpp - the test/programs kernels as test cases --------===//
//
// Dots, reductions, normalisations and attention from test/programs at ragged
// sizes against float64 references. Element-wise, integer and control-flow
// programs are in CasesElementwise.cpp.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

namespace {

const char *P(const char *f) { return f; }

void dots(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  {
    ProgramCase c{"dot_reductions", P("test/programs/dot_reductions.tile")};
    c.args = {in("a", rnd(rng, DType::BF16, {32, 64})), in("b", rnd(rng, DType::BF16, {64, 128})),
              output("rows", DType::F32, {32}), output("cols", DType::F32, {128})};
    c.check = [](const std::vector<CaseArg> &a) {
      auto prod = matmulRef(a[0].t, a[1].t, 32, 128, 64, false);
      std::vector<double> rs(32, 0.0), cs(128, -INFINITY);
      for (int64_t i = 0; i < 32; ++i)
        for (int64_t j = 0; j < 128; ++j) {
          rs[i] += prod[i * 128 + j];
          cs[j] = std::max(cs[j], prod[i * 128 + j]);
        }
      return closeTo("rows", a[2].t, rs, 1e-3, 1e-5) + closeTo("cols", a[3].t, cs, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  {
    ProgramCase c{"dot_rowsum_m200", P("test/programs/dot_rowsum.tile")};
    c.args = {in("a", rnd(rng, DType::BF16, {200, 64})), in("b", rnd(rng, DType::BF16, {64, 64})),
              output("y", DType::F32, {200})};
    c.check = [](const std::vector<CaseArg> &a) {
      auto prod = matmulRef(a[0].t, a[1].t, 200, 64, 64, false);
      std::vector<double> want(200, 0.0);
      for (int64_t i = 0; i < 200; ++i)
        for (int64_t j = 0; j < 64; ++j)
          want[i] += prod[i * 64 + j];
      return closeTo("y", a[2].t, want, 1e-3, 1e-5);
    };
    out.push_back(std::move(c));
  }
  // Batched matmul, C = alpha A B + beta C in bf16.
  for (auto [bt, m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{3, 100, 70, 80}, {2, 128, 128, 64}}) {
    ProgramCase c{"batched_matmul_b" + std::to_string(bt) + "_m" + std::to_string(m) + "_n" +
                      std::to_string(n) + "_k" + std::to_string(k),
                  P("test/programs/batched_matmul.tile")};
    HostTensor cold = rnd(rng, DType::BF16, {bt, m, n});
    c.args = {in("a", rnd(rng, DType::BF16, {bt, m, k})),
              in("b", rnd(rng, DType::BF16, {bt, k, n})), inout("c", cold), scalar("alpha", 0.7),
              scalar("beta", -0.4)};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(bt * m * n);
      for (int64_t z = 0; z < bt; ++z) {
        HostTensor az(DType::BF16, {m, k}), bz(DType::BF16, {k, n});
        std::copy_n(&a[0].t.v[z * m * k], m * k, az.v.begin());
        std::copy_n(&a[1].t.v[z * k * n], k * n, bz.v.begin());
        auto p = matmulRef(az, bz, m, n, k, false);
        for (int64_t e = 0; e < m * n; ++e)
          want[z * m * n + e] = p[e] * (double)0.7f + cold.v[z * m * n + e] * (double)-0.4f;
      }
      return closeTo("c", a[2].t, want, 2e-3 * std::sqrt((double)k), 8e-3);
    };
    out.push_back(std::move(c));
  }
  // Transposed f16 matmuls.
  for (bool tn : {true, false})
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{100, 72, 90}, {128, 128, 128}}) {
      ProgramCase c{std::string(tn ? "matmul_tn_f16" : "matmul_nt_f16") + "_m" + std::to_string(m) +
                        "_n" + std::to_string(n) + "_k" + std::to_string(k),
                    P("test/programs/matmul_transposed_f16.tile"), tn ? "matmul_tn" : "matmul_nt"};
      c.args = {in("a", tn ? rnd(rng, DType::F16, {k, m}) : rnd(rng, DType::F16, {m, k})),
                in("b", tn ? rnd(rng, DType::F16, {k, n}) : rnd(rng, DType::F16, {n, k})),
                output("c", DType::F16, {m, n})};
      c.check = [=](const std::vector<CaseArg> &a) {
        return closeTo("c", a[2].t, matmulRef(a[0].t, a[1].t, m, n, k, tn, !tn), 1e-3, 2e-3);
      };
      out.push_back(std::move(c));
    }
  // Causal attention in f16, both modes.
  for (bool causal : {true, false}) {
    ProgramCase c{std::string("causal_attention_f16_") + (causal ? "causal" : "full") +
                      "_b2_h3_n200_d64",
                  P("test/programs/causal_attention_f16.tile")};
    std::vector<int64_t> s = {2, 3, 200, 64};
    c.args = {in("q", rnd(rng, DType::F16, s, -2, 2)),
              in("k", rnd(rng, DType::F16, s, -2, 2)),
              in("v", rnd(rng, DType::F16, s)),
              output("o", DType::F16, s),
              scalar("sm_scale", 0.125),
              scalar("causal", causal)};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("o", a[3].t, attentionRef(a[0].t, a[1].t, a[2].t, causal, 0.125), 3e-3, 3e-3);
    };
    out.push_back(std::move(c));
  }
}

void rowReductions(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  {
    int64_t m = 333, n = 200;
    ProgramCase c{"column_sum_m333_n200", P("test/programs/column_sum.tile")};
    c.args = {in("x", rnd(rng, DType::F32, {m, n})), output("s", DType::F32, {n}),
              output("mean", DType::F32, {n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> s(n, 0.0), mean(n);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          s[j] += a[0].t.v[i * n + j];
      for (int64_t j = 0; j < n; ++j)
        mean[j] = s[j] / m;
      return closeTo("s", a[1].t, s, 1e-4, 1e-5) + closeTo("mean", a[2].t, mean, 1e-6, 1e-5);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{37, 300}, {8, 64}}) {
    ProgramCase c{"layernorm_blocked_m" + std::to_string(m) + "_n" + std::to_string(n),
                  P("test/programs/layernorm.tile")};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -2, 3)), in("w", rnd(rng, DType::F32, {n})),
              in("b", rnd(rng, DType::F32, {n})), output("y", DType::F32, {m, n}),
              scalar("eps", 1e-5)};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("y", a[3].t, layernormRef(a[0].t, a[1].t, a[2].t, m, n, 1e-5), 1e-4, 1e-4);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 33, n = 700;
    ProgramCase c{"log_softmax_m33_n700", P("test/programs/log_softmax.tile")};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -3, 3)), output("y", DType::F32, {m, n}),
              output("ent", DType::F32, {m})};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> y(m * n), ent(m, 0.0);
      for (int64_t r = 0; r < m; ++r) {
        double mx = -INFINITY, s = 0;
        for (int64_t j = 0; j < n; ++j)
          mx = std::max(mx, a[0].t.v[r * n + j]);
        for (int64_t j = 0; j < n; ++j)
          s += std::exp(a[0].t.v[r * n + j] - mx);
        for (int64_t j = 0; j < n; ++j) {
          y[r * n + j] = a[0].t.v[r * n + j] - mx - std::log(s);
          double p = std::exp(y[r * n + j]);
          ent[r] -= p * std::log2(p);
        }
      }
      return closeTo("y", a[1].t, y, 1e-5, 1e-5) + closeTo("ent", a[2].t, ent, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{13, 3000}, {4, 1024}}) {
    ProgramCase c{"rmsnorm_f16_m" + std::to_string(m) + "_n" + std::to_string(n),
                  P("test/programs/rmsnorm.tile")};
    c.args = {in("x", rnd(rng, DType::F16, {m, n}, -2, 2)), in("w", rnd(rng, DType::F16, {n})),
              output("y", DType::F16, {m, n}), scalar("eps", 1e-6)};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(m * n);
      for (int64_t r = 0; r < m; ++r) {
        double ss = 0;
        for (int64_t j = 0; j < n; ++j)
          ss += a[0].t.v[r * n + j] * a[0].t.v[r * n + j] / n;
        for (int64_t j = 0; j < n; ++j)
          want[r * n + j] = a[0].t.v[r * n + j] / std::sqrt(ss + 1e-6) * a[1].t.v[j];
      }
      return closeTo("y", a[2].t, want, 2e-3, 2e-3);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 40, n = 1000;
    ProgramCase c{"row_max_min_m40_n1000", P("test/programs/row_max_min.tile")};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -5, 5)), output("mx", DType::F32, {m}),
              output("mn", DType::F32, {m}), output("rng", DType::F32, {m})};
    exact(c, {1, 2, 3});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> hi(m, -INFINITY), lo(m, INFINITY), r(m);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          hi[i] = std::max(hi[i], a[0].t.v[i * n + j]);
          lo[i] = std::min(lo[i], a[0].t.v[i * n + j]);
        }
        r[i] = (double)(float)(hi[i] - lo[i]);
      }
      return closeTo("mx", a[1].t, hi, 0, 0) + closeTo("mn", a[2].t, lo, 0, 0) +
             closeTo("rng", a[3].t, r, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{77, 1000}, {3, 3000}}) {
    ProgramCase c{"softmax_bf16_m" + std::to_string(m) + "_n" + std::to_string(n),
                  P("test/programs/softmax_bf16.tile")};
    c.args = {in("x", rnd(rng, DType::BF16, {m, n}, -4, 4)), output("y", DType::BF16, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("y", a[1].t, softmaxRef(a[0].t, m, n), 1e-6, 8e-3);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 10000}, {2, 2048}}) {
    ProgramCase c{"softmax_long_m" + std::to_string(m) + "_n" + std::to_string(n),
                  P("test/programs/softmax_long.tile")};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -6, 6)), output("y", DType::F32, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("y", a[1].t, softmaxRef(a[0].t, m, n), 1e-7, 1e-4);
    };
    out.push_back(std::move(c));
  }
}

/// argmax/argmin: ties (values on a coarse grid), NaNs in some rows, ragged
/// widths; the first index of the extreme, a NaN's when a row has one.
void argReductions(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{33, 100}, {5, 1000}}) {
    ProgramCase c{"row_argmax_m" + std::to_string(m) + "_n" + std::to_string(n),
                  "test/programs/argmax.tile", "row_argmax"};
    HostTensor x = ints(rng, DType::F32, {m, n}, -8, 8);
    for (int64_t i = 0; i < m; i += 3) // a NaN in every third row
      x.v[i * n + (i * 7) % n] = NAN;
    x.v[1 * n + 0] = INFINITY; // -inf/inf at the edges
    x.v[2 * n + n - 1] = -INFINITY;
    c.args = {in("x", x), output("imax", DType::I32, {m}), output("imin", DType::I32, {m})};
    exact(c, {1, 2});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> hi(m), lo(m);
      for (int64_t i = 0; i < m; ++i) {
        const double *row = a[0].t.v.data() + i * n;
        int64_t h = 0, l = 0, nan = -1;
        for (int64_t j = 0; j < n; ++j) {
          if (std::isnan(row[j]) && nan < 0)
            nan = j;
          if (row[j] > row[h])
            h = j;
          if (row[j] < row[l])
            l = j;
        }
        hi[i] = (double)(nan >= 0 ? nan : h);
        lo[i] = (double)(nan >= 0 ? nan : l);
      }
      return closeTo("imax", a[1].t, hi, 0, 0) + closeTo("imin", a[2].t, lo, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{37, 100}, {64, 64}}) {
    ProgramCase c{"col_argmin_m" + std::to_string(m) + "_n" + std::to_string(n),
                  "test/programs/argmax.tile", "col_argmin"};
    HostTensor x = ints(rng, DType::I32, {m, n}, -3, 3);
    x.v[5 * n + 1] = 2147483647.0; // the padding's value, real: an index below M
    for (int64_t i = 0; i < m; ++i)
      x.v[i * n + 2] = 2147483647.0;
    c.args = {in("x", x), output("out", DType::I32, {n})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t j = 0; j < n; ++j) {
        int64_t l = 0;
        for (int64_t i = 1; i < m; ++i)
          if (a[0].t.v[i * n + j] < a[0].t.v[l * n + j])
            l = i;
        want[j] = (double)l;
      }
      return closeTo("out", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
}

} // namespace

// test/programs/huge.tile at small sizes (the GPU tests run it at 2^31 and more).
static void hugeKernels(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  int64_t n = 5000, blocks = (n + 1023) / 1024;
  {
    ProgramCase c{"huge_scale_n5000", P("test/programs/huge.tile"), "scale"};
    c.args = {in("x", rnd(rng, DType::F32, {n})), output("y", DType::F32, {n})};
    c.check = [n](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i)
        want[i] = (double)(float)(a[0].t.v[i] * 2.0f) + 1.0;
      return closeTo("y", a[1].t, want, 1e-6, 1e-6);
    };
    out.push_back(std::move(c));
  }
  {
    ProgramCase c{"huge_block_sums_n5000", P("test/programs/huge.tile"), "block_sums"};
    c.args = {in("x", rnd(rng, DType::F32, {n})), output("s", DType::F32, {blocks})};
    c.check = [n, blocks](const std::vector<CaseArg> &a) {
      std::vector<double> want(blocks, 0.0);
      for (int64_t i = 0; i < n; ++i)
        want[i / 1024] += a[0].t.v[i];
      return closeTo("s", a[1].t, want, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  {
    ProgramCase c{"huge_reverse_n5000", P("test/programs/huge.tile"), "reverse"};
    c.args = {in("x", rnd(rng, DType::F32, {n})), output("z", DType::F32, {n})};
    c.check = [n](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i)
        want[i] = a[0].t.v[n - 1 - i];
      return closeTo("z", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 100, k = 700;
    ProgramCase c{"huge_row_sums_m100_k700", P("test/programs/huge.tile"), "row_sums"};
    c.args = {in("a", rnd(rng, DType::BF16, {m, k})), output("s", DType::F32, {m})};
    c.check = [m, k](const std::vector<CaseArg> &a) {
      std::vector<double> want(m, 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j)
          want[i] += a[0].t.v[i * k + j];
      return closeTo("s", a[1].t, want, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
}

std::vector<ProgramCase> tessera::testutil::testProgramCases() {
  std::vector<ProgramCase> out;
  std::mt19937 rng(90210);
  dots(out, rng);
  rowReductions(out, rng);
  addElementwiseCases(out, rng);
  std::mt19937 indexedRng(4711);
  addIndexedCases(out, indexedRng);
  std::mt19937 atomicRng(1729);
  addAtomicCases(out, atomicRng);
  for (ProgramCase &c : oddExtentCases())
    out.push_back(std::move(c));
  std::mt19937 argRng(3141);
  argReductions(out, argRng);
  std::mt19937 scanRng(2718);
  addScanCases(out, scanRng);
  std::mt19937 reshapeRng(1618);
  addReshapeCases(out, reshapeRng);
  std::mt19937 f64Rng(6022);
  addF64Cases(out, f64Rng);
  std::mt19937 intRng(2551);
  addIntCases(out, intRng);
  std::mt19937 f8Rng(448);
  addF8Cases(out, f8Rng);
  std::mt19937 fmaRng(1001);
  addFmaCases(out, fmaRng);
  std::mt19937 hugeRng(2147);
  hugeKernels(out, hugeRng);
  return out;
}
