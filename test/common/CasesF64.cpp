//===- CasesF64.cpp - the f64 element type -----------------------*- C++ -*-===//
//
// test/programs/f64.tile against float64 references: element-wise arithmetic
// (a fused multiply-add is allowed: within 1e-15 relative), sqrt, conversions
// to f32, i32 (truncating) and bf16 (one rounding), i32 and f32 back to f64
// (exact), ragged widths; row sums, maxima, running sums and a running product
// through a combiner.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

void tessera::testutil::addF64Cases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const std::string file = "test/programs/f64.tile";
  for (auto [m, n, bm] : {std::tuple<int64_t, int64_t, int64_t>{37, 100, 4}, {3, 1000, 1}}) {
    ProgramCase c{"f64_elementwise_m" + std::to_string(m) + "_n" + std::to_string(n), file,
                  "f64_elementwise"};
    c.params = {{"BM", bm}};
    const double s = 0.1234567890123;
    HostTensor x = rnd(rng, DType::F64, {m, n}, -2, 2), y = rnd(rng, DType::F64, {m, n}, 0.5, 2);
    c.args = {in("x", x),
              in("y", y),
              scalar("s", s),
              output("out", DType::F64, {m, n}),
              output("root", DType::F64, {m, n}),
              output("narrow", DType::F32, {m, n}),
              output("brain", DType::BF16, {m, n}),
              output("whole", DType::I32, {m, n}),
              output("wide", DType::F64, {m, n})};
    exact(c, {4, 5, 7, 8});
    c.check = [=](const std::vector<CaseArg> &a) {
      const HostTensor &xs = a[0].t, &ys = a[1].t;
      std::vector<double> o(m * n), r(m * n), f(m * n), b(m * n), w(m * n), wd(m * n);
      for (int64_t i = 0; i < m * n; ++i) {
        double p = xs.v[i], q = ys.v[i];
        o[i] = p > q ? p / q : p * q - s;
        r[i] = std::sqrt(std::fabs(p)) + 0.5;
        f[i] = (float)p;
        b[i] = roundTo(DType::BF16, p * 100.0);
        w[i] = std::trunc(p * 1000.0);
        wd[i] = w[i] + (double)(float)p;
      }
      return closeTo("out", a[3].t, o, 0, 1e-15) + closeTo("root", a[4].t, r, 0, 0) +
             closeTo("narrow", a[5].t, f, 0, 0) + closeTo("brain", a[6].t, b, 0, 0) +
             closeTo("whole", a[7].t, w, 0, 0) + closeTo("wide", a[8].t, wd, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 300}, {2, 2048}}) {
    ProgramCase c{"f64_rows_m" + std::to_string(m) + "_n" + std::to_string(n), file, "f64_rows"};
    c.args = {in("x", rnd(rng, DType::F64, {m, n}, -1, 1)), output("total", DType::F64, {m}),
              output("top", DType::F64, {m}), output("run", DType::F64, {m, n}),
              output("prod", DType::F64, {m, n})};
    exact(c, {2});
    c.check = [=](const std::vector<CaseArg> &a) {
      const HostTensor &xs = a[0].t;
      std::vector<double> tot(m), top(m), run(m * n), prod(m * n);
      for (int64_t i = 0; i < m; ++i) {
        double acc = 0, p = 1, hi = -INFINITY;
        for (int64_t j = 0; j < n; ++j) {
          double v = xs.v[i * n + j];
          acc += v;
          hi = std::max(hi, v);
          p *= v * 0.01 + 1.0;
          run[i * n + j] = acc;
          prod[i * n + j] = p;
        }
        tot[i] = acc;
        top[i] = hi;
      }
      // Sums and products in another order: within a few ulps per step.
      return closeTo("total", a[1].t, tot, 1e-12, 1e-12) + closeTo("top", a[2].t, top, 0, 0) +
             closeTo("run", a[3].t, run, 1e-12, 1e-12) + closeTo("prod", a[4].t, prod, 0, 1e-13);
    };
    out.push_back(std::move(c));
  }
}
