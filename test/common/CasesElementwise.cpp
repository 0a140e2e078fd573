//===- CasesElementwise.cpp - element-wise, integer, control-flow cases ---===//
//
// The remaining test/programs kernels: activations, clamps, quantization,
// integer index math, embedding lookups with out-of-range ids, grid-stride
// and unrolled loops, branches on program ids and flags, 3-D broadcasts, and a
// k-means assignment whose ties make the index non-unique (checked by what any
// correct answer satisfies).
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

using namespace tessera;
using namespace tessera::testutil;

namespace {

std::string sz(const char *base, int64_t a, int64_t b = -1) {
  return std::string(base) + "_" + std::to_string(a) + (b >= 0 ? "x" + std::to_string(b) : "");
}
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void activations(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  {
    int64_t m = 50, n = 300;
    ProgramCase c{sz("clamp", m, n), "test/programs/clamp.tile"};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -8, 8)),
              output("y", DType::F32, {m, n}),
              output("z", DType::F32, {m, n}),
              output("r6", DType::F32, {m, n}),
              scalar("lo", -0.3),
              scalar("hi", 0.6)};
    exact(c, {1, 2, 3});
    c.check = [](const std::vector<CaseArg> &a) {
      const auto &x = a[0].t.v;
      std::vector<double> y(x.size()), z(x.size()), r6(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        y[i] = std::min(std::max(x[i], (double)-0.3f), (double)0.6f);
        z[i] = std::min(std::max(x[i], -1.0), 1.0);
        r6[i] = std::min(std::max(x[i], 0.0), 6.0);
      }
      return closeTo("y", a[1].t, y, 0, 0) + closeTo("z", a[2].t, z, 0, 0) +
             closeTo("r6", a[3].t, r6, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 5000;
    ProgramCase c{sz("gelu_tanh", n), "test/programs/gelu_tanh.tile"};
    c.args = {in("x", rnd(rng, DType::BF16, {n}, -4, 4)), output("y", DType::BF16, {n})};
    c.check = [](const std::vector<CaseArg> &a) {
      std::vector<double> want;
      for (double v : a[0].t.v)
        want.push_back(0.5 * v *
                       (1 + std::tanh(std::sqrt(2.0 / 3.14159265) * (v + 0.044715 * v * v * v))));
      return closeTo("y", a[1].t, want, 1e-2, 8e-3);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 50, n = 150;
    ProgramCase c{sz("swish_f16", m, n), "test/programs/swish.tile", "swish"};
    c.args = {in("x", rnd(rng, DType::F16, {m, n}, -5, 5)), output("y", DType::F16, {m, n}),
              scalar("beta", 1.25)};
    c.check = [](const std::vector<CaseArg> &a) {
      std::vector<double> want;
      for (double v : a[0].t.v)
        want.push_back(v * sigmoid(1.25 * v));
      return closeTo("y", a[1].t, want, 2e-3, 4e-3);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 50, n = 150;
    ProgramCase c{sz("swiglu_f16", m, n), "test/programs/swish.tile", "swiglu"};
    c.args = {in("a", rnd(rng, DType::F16, {m, n}, -4, 4)), in("b", rnd(rng, DType::F16, {m, n})),
              output("g", DType::F16, {m, n})};
    c.check = [](const std::vector<CaseArg> &a) {
      std::vector<double> want;
      for (size_t i = 0; i < a[0].t.v.size(); ++i)
        want.push_back(a[0].t.v[i] * sigmoid(a[0].t.v[i]) * a[1].t.v[i]);
      return closeTo("g", a[2].t, want, 1e-3, 2e-3);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 5000;
    ProgramCase c{sz("scaled_residual_bf16", n), "test/programs/scaled_residual.tile"};
    c.args = {in("x", rnd(rng, DType::BF16, {n})), in("r", rnd(rng, DType::BF16, {n})),
              output("y", DType::BF16, {n}), scalar("alpha", 0.3), scalar("gamma", 1.7)};
    exact(c, {2}); // per-op bf16 rounding, no fused multiply-add (seen on the H200)
    c.check = [n](const std::vector<CaseArg> &a) {
      auto b = [](double v) { return roundTo(DType::BF16, v); };
      double a2 = b(b(0.3) * 2), gamma = (double)1.7f;
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i) {
        double half = b(a[0].t.v[i] * 0.5);
        double s = b(b(half + half) + b(a[1].t.v[i] * a2)); // every op rounded to bf16
        want[i] = b((double)(float)(s * gamma));
      }
      return closeTo("y", a[2].t, want, 0, 8e-3); // one ulp: the GPU may fuse the multiply-add
    };
    out.push_back(std::move(c));
  }
}

void integers(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  {
    int64_t n = 3000;
    ProgramCase c{sz("quantize", n), "test/programs/quantize.tile", "quantize"};
    c.args = {in("x", rnd(rng, DType::F32, {n}, -3, 3)), output("q", DType::I32, {n}),
              scalar("inv_scale", 40), scalar("qmax", 100)};
    exact(c, {1});
    c.check = [n](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i) {
        float v = (float)a[0].t.v[i] * 40.0f;
        float r = std::trunc(v >= 0 ? v + 0.5f : v - 0.5f);
        want[i] = std::min(std::max((double)r, -100.0), 100.0);
      }
      return closeTo("q", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 3000;
    ProgramCase c{sz("dequantize", n), "test/programs/quantize.tile", "dequantize"};
    c.args = {in("q", rnd(rng, DType::I32, {n}, -128, 128)), output("y", DType::F16, {n}),
              scalar("scale", 0.0625)};
    exact(c, {1});
    c.check = [n](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i)
        want[i] = a[0].t.v[i] * 0.0625;
      return closeTo("y", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t l = 3001;
    ProgramCase c{sz("index_math", l), "test/programs/index_math.tile"};
    c.args = {output("rows", DType::I32, {l}),
              output("cols_out", DType::I32, {l}),
              output("dist", DType::I32, {l}),
              output("key", DType::I64, {l}),
              output("wrapped", DType::I32, {l}),
              scalar("cols", 37),
              scalar("stride", 1000),
              scalar("offset", 5e9),
              scalar("shift", 50)};
    exact(c, {0, 1, 2, 3, 4});
    c.check = [l](const std::vector<CaseArg> &a) {
      std::vector<double> r(l), cc(l), d(l), k(l), w(l);
      for (int64_t f = 0; f < l; ++f) {
        r[f] = f / 37;
        cc[f] = f % 37;
        d[f] = std::abs(f / 37 - f % 37);
        k[f] = (double)((f / 37) * 1000 + (f % 37) * 3 + 5000000000ll);
        w[f] = ((f - 50) % 37 + 37) % 37;
      }
      return closeTo("rows", a[0].t, r, 0, 0) + closeTo("cols_out", a[1].t, cc, 0, 0) +
             closeTo("dist", a[2].t, d, 0, 0) + closeTo("key", a[3].t, k, 0, 0) +
             closeTo("wrapped", a[4].t, w, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t t = 37, v = 50, d = 100, p = 7;
    ProgramCase c{"embedding_t37_v50_d100", "test/programs/embedding.tile"};
    c.args = {in("ids", rnd(rng, DType::I64, {t}, -3, 55)),
              in("table", rnd(rng, DType::BF16, {v, d})),
              in("pos", rnd(rng, DType::BF16, {p, d})),
              output("out", DType::BF16, {t, d}),
              output("bad", DType::I32, {t}),
              scalar("scale", 0.5)};
    exact(c, {4});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> o(t * d), bad(t);
      for (int64_t i = 0; i < t; ++i) {
        int64_t id = (int64_t)a[0].t.v[i];
        bool ok = id >= 0 && id < v;
        bad[i] = !ok;
        for (int64_t j = 0; j < d; ++j)
          o[i * d + j] = roundTo(DType::BF16, (ok ? a[1].t.v[id * d + j] * 0.5 : 0.0) +
                                                  a[2].t.v[(i % p) * d + j]);
      }
      return closeTo("out", a[3].t, o, 0, 8e-3) + closeTo("bad", a[4].t, bad, 0, 0);
    };
    out.push_back(std::move(c));
  }
}

/// Gathers whose assert()s hold (test/programs/asserts.tile); the failing
/// ones are the interpreter's and the GPU tests' own.
void asserts(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  int64_t t = 37, v = 50, d = 100;
  ProgramCase c{"assert_gather_t37_v50_d100", "test/programs/asserts.tile"};
  c.args = {in("idx", ints(rng, DType::I32, {t}, 0, v - 1)),
            in("table", rnd(rng, DType::F32, {v, d})), output("out", DType::F32, {t, d})};
  exact(c, {2});
  c.check = [=](const std::vector<CaseArg> &a) {
    std::vector<double> o(t * d);
    for (int64_t i = 0; i < t; ++i)
      for (int64_t j = 0; j < d; ++j)
        o[i * d + j] = a[1].t.v[(int64_t)a[0].t.v[i] * d + j];
    return closeTo("out", a[2].t, o, 0, 0);
  };
  out.push_back(std::move(c));
}

void loops(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  for (int64_t n : {int64_t(100003), int64_t(5000)}) {
    int64_t nb = (n + 1023) / 1024, ch = std::max<int64_t>(1, (nb + 63) / 64),
            g = (nb + ch - 1) / ch;
    ProgramCase c{sz("dot_unrolled", n), "test/programs/dot_unrolled.tile"};
    c.params = {{"BLOCK", 1024}}; // the partial sums' layout depends on it
    c.args = {in("x", rnd(rng, DType::F32, {n})), in("y", rnd(rng, DType::F32, {n})),
              output("out", DType::F32, {g})};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(g, 0.0);
      for (int64_t i = 0; i < n; ++i)
        want[(i / 1024) / ch] += a[0].t.v[i] * a[1].t.v[i];
      return closeTo("out", a[2].t, want, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  for (auto [n, p] : {std::pair<int64_t, int64_t>{10007, 4}, {5000, 3}}) {
    ProgramCase c{sz("grid_stride", n, p), "test/programs/grid_stride.tile"};
    HostTensor y0 = rnd(rng, DType::F32, {n});
    c.args = {in("x", rnd(rng, DType::F32, {n})), inout("y", y0),
              output("partial", DType::F32, {p}), scalar("a", 1.5)};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> y(n), part(p, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        y[i] = 1.5 * a[0].t.v[i] + y0.v[i];
        part[(i / 1024) % p] += a[0].t.v[i];
      }
      return closeTo("y", a[1].t, y, 1e-7, 1e-6) + closeTo("partial", a[2].t, part, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  for (bool absFirst : {true, false}) {
    int64_t m = absFirst ? 9 : 6, n = 100;
    ProgramCase c{std::string("parity_branch_") + (absFirst ? "abs" : "noabs"),
                  "test/programs/parity_branch.tile"};
    c.args = {in("x", rnd(rng, DType::F32, {m, n})), output("y", DType::F32, {m, n}),
              scalar("even_scale", 2.5), scalar("abs_first", absFirst)};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(m * n);
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          double v = a[0].t.v[r * n + j], o;
          if (r % 2 == 0)
            o = v * 2.5;
          else if (r % 4 == 1)
            o = -v + 0.5;
          else
            o = -v + j / 128.0;
          want[r * n + j] = r == 0 && absFirst ? std::fabs(o) : o;
        }
      return closeTo("y", a[1].t, want, 1e-7, 1e-6);
    };
    out.push_back(std::move(c));
  }
  for (bool flag : {true, false}) {
    ProgramCase c{std::string("select_var_") + (flag ? "set" : "unset"),
                  "test/programs/select_var.tile"};
    HostTensor x0 = rnd(rng, DType::F32, {384});
    c.args = {inout("x", x0), scalar("flag", flag)};
    exact(c, {0});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want = x0.v;
      for (int i = 0; i < 128; ++i)
        want[256 + i] = x0.v[(flag ? 128 : 0) + i];
      return closeTo("x", a[0].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
}

void geometry(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  {
    ProgramCase c{"nested_reduce_3x5x70", "test/programs/nested_reduce.tile"};
    c.args = {in("x", rnd(rng, DType::F32, {3, 5, 70})), output("y", DType::F32, {1})};
    c.check = [](const std::vector<CaseArg> &a) {
      double s = 0;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          for (int k = 0; k < 64; ++k)
            s += a[0].t.v[(i * 5 + j) * 70 + k];
      return closeTo("y", a[1].t, {s}, 1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 20, n = 50;
    ProgramCase c{"pairwise_l1_m20_n50", "test/programs/pairwise_l1.tile"};
    c.args = {in("a", rnd(rng, DType::F32, {m, 16})), in("b", rnd(rng, DType::F32, {n, 16})),
              output("d", DType::F32, {m, n}), output("near", DType::F32, {n}),
              output("far", DType::F32, {n})};
    for (int i : {2, 3, 4})
      c.check = [=](const std::vector<CaseArg> &a) {
        std::vector<double> d(m * n, 0.0), nr(n, INFINITY), fr(n, -INFINITY);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            for (int f = 0; f < 16; ++f)
              d[i * n + j] += std::fabs(a[0].t.v[i * 16 + f] - a[1].t.v[j * 16 + f]);
            nr[j] = std::min(nr[j], d[i * n + j]);
            fr[j] = std::max(fr[j], d[i * n + j]);
          }
        return closeTo("d", a[2].t, d, 1e-5, 1e-6) + closeTo("near", a[3].t, nr, 1e-5, 1e-6) +
               closeTo("far", a[4].t, fr, 1e-5, 1e-6);
      };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 150, k = 40;
    ProgramCase c{"nearest_centroid_n150_k40", "test/programs/nearest_centroid.tile"};
    c.args = {in("x", rnd(rng, DType::F32, {n, 64})), in("c", rnd(rng, DType::F32, {k, 64})),
              output("best", DType::I32, {n}), output("best_d", DType::F32, {n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> dmin(n, INFINITY);
      std::string bad;
      for (int64_t i = 0; i < n && bad.empty(); ++i) {
        std::vector<double> d(k, 0.0);
        for (int64_t q = 0; q < k; ++q) {
          for (int f = 0; f < 64; ++f)
            d[q] += (a[0].t.v[i * 64 + f] - a[1].t.v[q * 64 + f]) *
                    (a[0].t.v[i * 64 + f] - a[1].t.v[q * 64 + f]);
          dmin[i] = std::min(dmin[i], d[q]);
        }
        double b = a[2].t.v[i];
        if (!(b >= 0 && b < k) || d[(int64_t)b] > dmin[i] + 4e-3)
          bad = "best[" + std::to_string(i) + "] = " + std::to_string(b) +
                " is not a nearest centroid";
      }
      return bad + closeTo("best_d", a[3].t, dmin, 2e-3, 1e-4);
    };
    out.push_back(std::move(c));
  }
}

} // namespace

void tessera::testutil::addElementwiseCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  activations(out, rng);
  integers(out, rng);
  loops(out, rng);
  geometry(out, rng);
  asserts(out, rng); // last: the cases before it keep their inputs
}
