//===- CasesF8.cpp - the f8e4m3 and f8e5m2 element types ---------*- C++ -*-===//
//
// test/programs/f8.tile against references from f8Encode/f8Decode (APFloat's
// Float8E4M3FN and Float8E5M2, saturated): every f8 code decoded; encodings of
// every representable value, of every midpoint between neighbours (ties to
// even) and of the floats next to it, of values beyond the largest finite one,
// infinities and NaN; f64 values just off a midpoint, where rounding through
// f32 first would round twice; f16 midpoints for f8e5m2. A dot of f8 tiles
// against a float64 matmul of the same values.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <cmath>
#include <limits>

using namespace tessera;
using namespace tessera::testutil;

namespace {

double dec(DType t, int code) { return f8Decode(t, (uint8_t)code); }
double rt(DType t, double v) { return dec(t, f8Encode(t, v)); }

/// f32 values that probe every rounding decision of both f8 formats.
std::vector<double> encodingProbes() {
  std::vector<double> out = {0.0,
                             -0.0,
                             1e-30,
                             -1e-30,
                             1e30,
                             -1e30,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             464.0,
                             480.0,
                             61440.0,
                             65504.0};
  for (auto [t, last] : {std::pair{DType::F8E4M3, 0x7e}, {DType::F8E5M2, 0x7b}})
    for (int c = 0; c < last; ++c) {
      float lo = (float)dec(t, c), hi = (float)dec(t, c + 1), mid = (lo + hi) / 2;
      for (float v : {lo, mid, std::nextafter(mid, INFINITY), std::nextafter(mid, 0.0f)}) {
        out.push_back(v);
        out.push_back(-v);
      }
    }
  return out;
}

void convert(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const std::string file = "test/programs/f8.tile";
  std::vector<double> probes = encodingProbes();
  for (int64_t n : {(int64_t)probes.size(), (int64_t)300}) {
    ProgramCase c{"f8_convert_n" + std::to_string(n), file, "f8_convert"};
    if (n == 300)
      c.params = {{"BLOCK", 128}};
    HostTensor x = rnd(rng, DType::F32, {n}, -500, 500), d = rnd(rng, DType::F64, {n}, -300, 300),
               h = rnd(rng, DType::F16, {n}, -60000, 60000), e4(DType::F8E4M3, {n}),
               e5(DType::F8E5M2, {n});
    for (int64_t i = 0; i < n; ++i) {
      if (i < (int64_t)probes.size())
        x.v[i] = probes[i];
      // f64 just above and just below each e4m3 midpoint: f32 would round it
      // onto the midpoint, and then to even.
      int code = (int)((i / 2) % 0x7e);
      double mid = (dec(DType::F8E4M3, code) + dec(DType::F8E4M3, code + 1)) / 2;
      if (i % 5 != 4)
        d.v[i] = mid * (1 + (i % 2 ? 1 : -1) * std::ldexp(1.0, -35)) * ((i / 252) % 2 ? -1 : 1);
      // f16 midpoints of e5m2 neighbours, and their f16 neighbours.
      int c5 = (int)(i % 0x7b);
      double mid5 = (dec(DType::F8E5M2, c5) + dec(DType::F8E5M2, c5 + 1)) / 2;
      if (i % 3 != 2)
        h.v[i] = roundTo(DType::F16, mid5 * (i % 3 == 0 ? 1 : -1));
      e4.v[i] = dec(DType::F8E4M3, (int)(i % 256));
      e5.v[i] = dec(DType::F8E5M2, (int)((i * 7) % 256));
    }
    c.args = {in("x", x),
              in("d", d),
              in("h", h),
              in("e4", e4),
              in("e5", e5),
              output("q4", DType::F8E4M3, {n}),
              output("q5", DType::F8E5M2, {n}),
              output("q4d", DType::F8E4M3, {n}),
              output("q5h", DType::F8E5M2, {n}),
              output("back4", DType::F32, {n}),
              output("back5", DType::F32, {n}),
              output("halves", DType::F16, {n}),
              output("brains", DType::BF16, {n}),
              output("wides", DType::F64, {n}),
              output("ints", DType::I32, {n}),
              output("swap", DType::F8E5M2, {n}),
              output("picked", DType::F8E4M3, {n})};
    exact(c, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<std::vector<double>> want(12, std::vector<double>(n));
      for (int64_t i = 0; i < n; ++i) {
        double xv = a[0].t.v[i], av = a[3].t.v[i], bv = a[4].t.v[i];
        want[0][i] = rt(DType::F8E4M3, xv);
        want[1][i] = rt(DType::F8E5M2, xv);
        want[2][i] = rt(DType::F8E4M3, a[1].t.v[i]);
        want[3][i] = rt(DType::F8E5M2, a[2].t.v[i]);
        want[4][i] = av;
        want[5][i] = bv;
        want[6][i] = av;
        want[7][i] = bv;
        want[8][i] = av;
        want[9][i] = std::isnan(bv) ? 0 : std::clamp(std::trunc(bv), -2147483648.0, 2147483647.0);
        want[10][i] = rt(DType::F8E5M2, av);
        want[11][i] = xv > 0 ? av : rt(DType::F8E4M3, bv);
      }
      std::string r;
      for (int k = 0; k < 12; ++k)
        r += closeTo(a[5 + k].name, a[5 + k].t, want[k], 0, 0);
      return r;
    };
    out.push_back(std::move(c));
  }
}

void dot(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const std::string file = "test/programs/f8.tile";
  for (auto [m, n, k, bm] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{37, 45, 70, 32}, {64, 32, 96, 64}}) {
    ProgramCase c{"f8_dot_m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" +
                      std::to_string(k),
                  file, "f8_dot"};
    c.params = {{"BM", bm}};
    c.args = {in("a", rnd(rng, DType::F8E4M3, {m, k}, -2, 2)),
              in("b", rnd(rng, DType::F8E4M3, {k, n}, -2, 2)),
              in("a5", rnd(rng, DType::F8E5M2, {m, k}, -8, 8)),
              in("b5", rnd(rng, DType::F8E5M2, {k, n}, -8, 8)),
              output("c", DType::F32, {m, n}),
              output("c5", DType::F32, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      // Products of f8 values are exact in f32; the sums round in f32.
      return closeTo("c", a[4].t, matmulRef(a[0].t, a[1].t, m, n, k, false), 1e-3, 1e-5) +
             closeTo("c5", a[5].t, matmulRef(a[2].t, a[3].t, m, n, k, false), 1e-2, 1e-5);
    };
    out.push_back(std::move(c));
  }
}

} // namespace

void tessera::testutil::addF8Cases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  convert(out, rng);
  dot(out, rng);
}
