//===- CasesInts.cpp - the i8, u8 and u32 element types ----------*- C++ -*-===//
//
// test/programs/ints.tile against references computed with the C++ types of
// the same width (uint8_t, int8_t, uint32_t: wrapping arithmetic, unsigned
// division and order), float-to-integer conversions saturating. Inputs cover
// each type's whole range (u32 values above 2^31, where signed and unsigned
// order differ), with ragged widths.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

namespace {

/// Float to integer as the language converts: truncated, saturated, NaN to 0.
double saturate(float f, double lo, double hi) {
  if (std::isnan(f))
    return 0;
  return std::min(std::max((double)std::trunc(f), lo), hi);
}

void elementwise(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const std::string file = "test/programs/ints.tile";
  for (auto [m, n, bm, s, k] :
       {std::tuple<int64_t, int64_t, int64_t, uint32_t, int8_t>{19, 100, 4, 3000000007u, -3},
        {3, 700, 1, 5u, 77}}) {
    ProgramCase c{"ints_elementwise_m" + std::to_string(m) + "_n" + std::to_string(n), file,
                  "int_elementwise"};
    c.params = {{"BM", bm}};
    c.args = {in("a", ints(rng, DType::U8, {m, n}, 0, 255)),
              in("b", ints(rng, DType::I8, {m, n}, -128, 127)),
              in("w", ints(rng, DType::U32, {m, n}, 0, UINT32_MAX)),
              scalar("s", s),
              scalar("k", k),
              output("u8ops", DType::U8, {m, n}),
              output("i8ops", DType::I8, {m, n}),
              output("u32ops", DType::U32, {m, n}),
              output("flags", DType::I32, {m, n}),
              output("wide", DType::I64, {m, n}),
              output("floats", DType::F32, {m, n}),
              output("sat8", DType::U8, {m, n}),
              output("sat32", DType::U32, {m, n}),
              output("sati8", DType::I8, {m, n})};
    exact(c, {5, 6, 7, 8, 9, 11, 12, 13});
    c.check = [=](const std::vector<CaseArg> &a) {
      const HostTensor &as = a[0].t, &bs = a[1].t, &ws = a[2].t;
      size_t sz = m * n;
      std::vector<double> u8o(sz), i8o(sz), u32o(sz), fl(sz), wd(sz), fs(sz), s8(sz), s32(sz),
          si8(sz);
      for (size_t i = 0; i < sz; ++i) {
        uint8_t x = (uint8_t)as.v[i];
        int8_t y = (int8_t)bs.v[i];
        uint32_t z = (uint32_t)ws.v[i];
        uint8_t t = (uint8_t)((uint8_t)((uint8_t)(x + 100) * 3) / 7);
        u8o[i] = (uint8_t)(t + std::max(x, (uint8_t)y) % 13);
        int8_t y3 = (int8_t)(y * 3), ay = (int8_t)(y < 0 ? -y : y);
        i8o[i] = (int8_t)((int8_t)(y3 / -5) + (int8_t)(ay % 7) - k);
        u32o[i] = (uint32_t)(z / s + z % 1000u + std::min(z, s) * 2u);
        fl[i] = (x > 200) + 2 * (z > s) + 4 * (y < k) + 8 * ((int)x > (int)y) +
                16 * (std::min(s, 7u) == 7u);
        wd[i] = (double)((int64_t)x + (int64_t)y * 1000 + (int64_t)z * 1000000);
        fs[i] = (double)x - (double)y * 0.5 + (double)(float)z;
        float f = (float)y * 3.0f + (float)x;
        s8[i] = saturate(f, 0, 255);
        s32[i] = saturate((float)z * 2.0f - 1e9f, 0, 4294967295.0);
        si8[i] = saturate(f, -128, 127);
      }
      return closeTo("u8ops", a[5].t, u8o, 0, 0) + closeTo("i8ops", a[6].t, i8o, 0, 0) +
             closeTo("u32ops", a[7].t, u32o, 0, 0) + closeTo("flags", a[8].t, fl, 0, 0) +
             closeTo("wide", a[9].t, wd, 0, 0) + closeTo("floats", a[10].t, fs, 0, 1e-6) +
             closeTo("sat8", a[11].t, s8, 0, 0) + closeTo("sat32", a[12].t, s32, 0, 0) +
             closeTo("sati8", a[13].t, si8, 0, 0);
    };
    out.push_back(std::move(c));
  }
}

void rows(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const std::string file = "test/programs/ints.tile";
  for (auto [m, n] : {std::pair<int64_t, int64_t>{6, 300}, {2, 1024}, {5, 33}}) {
    ProgramCase c{"ints_rows_m" + std::to_string(m) + "_n" + std::to_string(n), file, "int_rows"};
    HostTensor a = ints(rng, DType::U8, {m, n}, 0, 255);
    for (double &v : a.v) // zeros for the forward fill to skip
      if (rng() % 3 == 0)
        v = 0;
    c.args = {in("a", a),
              in("w", ints(rng, DType::U32, {m, n}, 0, UINT32_MAX)),
              in("b", ints(rng, DType::I8, {m, n}, -128, 127)),
              output("top", DType::U8, {m}),
              output("low", DType::U32, {m}),
              output("at", DType::I32, {m}),
              output("at32", DType::I32, {m}),
              output("total", DType::U8, {m}),
              output("wsum", DType::I32, {m}),
              output("run", DType::U32, {m, n}),
              output("least", DType::I8, {m}),
              output("fill", DType::U8, {m, n})};
    exact(c, {3, 4, 5, 6, 7, 8, 9, 10, 11});
    c.check = [=](const std::vector<CaseArg> &args) {
      const HostTensor &as = args[0].t, &ws = args[1].t, &bs = args[2].t;
      std::vector<double> top(m), low(m), at(m), at32(m), total(m), wsum(m), run(m * n), least(m),
          fill(m * n);
      for (int64_t i = 0; i < m; ++i) {
        uint8_t hi = 0, tot = 0, last = 0;
        uint32_t lo = UINT32_MAX, runMax = 0;
        int8_t small = INT8_MAX;
        int64_t sum = 0, atHi = 0, atLo = 0;
        for (int64_t j = 0; j < n; ++j) {
          uint8_t x = (uint8_t)as.v[i * n + j];
          uint32_t z = (uint32_t)ws.v[i * n + j];
          if (j == 0 || x > hi) { // the first index of the extreme
            hi = x;
            atHi = j;
          }
          if (j == 0 || z < lo) {
            lo = z;
            atLo = j;
          }
          tot = (uint8_t)(tot + x);
          sum += x;
          runMax = j == 0 ? z : std::max(runMax, z);
          run[i * n + j] = runMax;
          small = std::min(small, (int8_t)bs.v[i * n + j]);
          last = x == 0 ? last : x;
          fill[i * n + j] = last;
        }
        top[i] = hi;
        low[i] = lo;
        at[i] = (double)atHi;
        at32[i] = (double)atLo;
        total[i] = tot;
        wsum[i] = (double)sum;
        least[i] = small;
      }
      return closeTo("top", args[3].t, top, 0, 0) + closeTo("low", args[4].t, low, 0, 0) +
             closeTo("at", args[5].t, at, 0, 0) + closeTo("at32", args[6].t, at32, 0, 0) +
             closeTo("total", args[7].t, total, 0, 0) + closeTo("wsum", args[8].t, wsum, 0, 0) +
             closeTo("run", args[9].t, run, 0, 0) + closeTo("least", args[10].t, least, 0, 0) +
             closeTo("fill", args[11].t, fill, 0, 0);
    };
    out.push_back(std::move(c));
  }
}

} // namespace

void tessera::testutil::addIntCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  elementwise(out, rng);
  rows(out, rng);
}
