//===- CasesFma.cpp - the fma built-in ---------------------------*- C++ -*-===//
//
// test/programs/fma.tile against std::fma: f32 and f64 exactly, bf16 as one
// f32 rounding then one to bf16, a scalar and a broadcast row. The first
// elements are chosen so that a multiply and an add rounded apart differ from
// the fused result: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 fused, 0 apart.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

void tessera::testutil::addFmaCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{40, 300}, {3, 64}}) {
    ProgramCase c{"fma_m" + std::to_string(m) + "_n" + std::to_string(n), "test/programs/fma.tile"};
    HostTensor x = rnd(rng, DType::F32, {m, n}, -3, 3), w = rnd(rng, DType::F32, {m, n}, -3, 3),
               z = rnd(rng, DType::F32, {m, n}, -3, 3), xd = rnd(rng, DType::F64, {m, n}, -3, 3);
    const double near1 = 1.0 + std::ldexp(1.0, -12);
    x.v[0] = w.v[0] = xd.v[0] = near1;
    z.v[0] = -(1.0 + std::ldexp(1.0, -11));
    xd.v[1] = 1.0 + std::ldexp(1.0, -27); // (1 + 2^-27)^2 - 1 = 2^-26 + 2^-54: 2^-54 is lost apart
    const double s = -1.375;
    c.args = {in("x", x),
              in("w", w),
              in("z", z),
              output("y", DType::F32, {m, n}),
              in("xb", rnd(rng, DType::BF16, {m, n}, -4, 4)),
              output("h", DType::BF16, {m, n}),
              in("bias", rnd(rng, DType::F32, {n}, -2, 2)),
              output("r", DType::F32, {m, n}),
              in("xd", xd),
              output("d", DType::F64, {m, n}),
              scalar("s", s)};
    exact(c, {3, 5, 7, 9});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> y(m * n), h(m * n), r(m * n), d(m * n);
      for (int64_t i = 0; i < m * n; ++i) {
        auto f = [&](int k) { return (float)a[k].t.v[i]; };
        y[i] = std::fma(f(0), f(1), f(2));
        h[i] = roundTo(DType::BF16, std::fma(f(4), f(4), 1.0f));
        r[i] = std::fma(f(0), (float)s, (float)a[6].t.v[i % n]);
        d[i] = std::fma(a[8].t.v[i], a[8].t.v[i], -1.0);
      }
      std::string bad;
      if (y[0] != std::ldexp(1.0, -24) || d[1] != std::ldexp(1.0, -26) + std::ldexp(1.0, -54))
        bad = "the reference is not fused; ";
      return bad + closeTo("y", a[3].t, y, 0, 0) + closeTo("h", a[5].t, h, 0, 0) +
             closeTo("r", a[7].t, r, 0, 0) + closeTo("d", a[9].t, d, 0, 0);
    };
    out.push_back(std::move(c));
  }
}
