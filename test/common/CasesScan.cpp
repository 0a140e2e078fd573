//===- CasesScan.cpp - cumsum, cummax and cummin -----------------*- C++ -*-===//
//
// test/programs/scan.tile against float64 prefix scans: f32 rows with ragged
// widths and NaNs (cummax/cummin propagate them from where they appear), at
// 1, 4 and 16 rows per program; i32 columns whose sums wrap; a row of 48
// (padded to 64); long bf16 rows. test/programs/scan_with.tile (scans with a
// combiner of the program's own) against the same folds in float64 or int64.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <cmath>
#include <cstdint>
#include <functional>

using namespace tessera;
using namespace tessera::testutil;

namespace {

/// Folds each line of an [m, n] tensor (rows, or columns when `cols`) in order
/// with `f`, the running value first.
std::vector<double> fold(const HostTensor &x, int64_t m, int64_t n, bool cols,
                         const std::function<double(double, double)> &f) {
  std::vector<double> out(m * n);
  int64_t lines = cols ? n : m, len = cols ? m : n;
  for (int64_t l = 0; l < lines; ++l) {
    double acc = 0;
    for (int64_t j = 0; j < len; ++j) {
      int64_t idx = cols ? j * n + l : l * n + j;
      acc = j ? f(acc, x.v[idx]) : x.v[idx];
      out[idx] = acc;
    }
  }
  return out;
}

void addScanWithCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const std::string file = "test/programs/scan_with.tile";
  for (auto [m, n, bm] :
       {std::tuple<int64_t, int64_t, int64_t>{37, 100, 4}, {5, 1000, 1}, {16, 7, 4}}) {
    ProgramCase c{"cumprod_m" + std::to_string(m) + "_n" + std::to_string(n) + "_bm" +
                      std::to_string(bm),
                  file, "cumprod"};
    c.params = {{"BM", bm}};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, 0.97, 1.03)), output("out", DType::F32, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("out", a[1].t, fold(a[0].t, m, n, false, std::multiplies<double>()), 1e-6,
                     1e-4);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{9, 100}, {3, 2000}, {4, 1}}) {
    ProgramCase c{"fill_and_cap_m" + std::to_string(m) + "_n" + std::to_string(n), file,
                  "fill_and_cap"};
    HostTensor x = ints(rng, DType::I32, {m, n}, -50, 50);
    for (double &v : x.v) // mostly zeros: the fill has gaps to fill
      if ((int64_t)v % 3 != 0)
        v = 0;
    const double cap = 500;
    c.args = {in("x", x), output("fill", DType::I32, {m, n}), output("sat", DType::I32, {m, n}),
              scalar("cap", cap)};
    exact(c, {1, 2});
    c.check = [=](const std::vector<CaseArg> &a) {
      HostTensor mag = a[0].t;
      for (double &v : mag.v)
        v = std::fabs(v);
      return closeTo("fill", a[1].t,
                     fold(a[0].t, m, n, false, [](double p, double v) { return v != 0 ? v : p; }),
                     0, 0) +
             closeTo(
                 "sat", a[2].t,
                 fold(mag, m, n, false, [&](double p, double v) { return std::min(p + v, cap); }),
                 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n, bn] : {std::tuple<int64_t, int64_t, int64_t>{100, 37, 8}, {33, 64, 32}}) {
    ProgramCase c{"largest_m" + std::to_string(m) + "_n" + std::to_string(n), file, "largest"};
    c.params = {{"BN", bn}};
    HostTensor x = ints(rng, DType::BF16, {m, n}, -8, 8); // ties in magnitude are common
    c.args = {in("x", x), output("out", DType::BF16, {m, n})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("out", a[1].t,
                     fold(a[0].t, m, n, true,
                          [](double p, double v) { return std::fabs(v) > std::fabs(p) ? v : p; }),
                     0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{6, 300}, {2, 1024}}) {
    ProgramCase c{"logcumsumexp_m" + std::to_string(m) + "_n" + std::to_string(n), file,
                  "logcumsumexp"};
    c.args = {in("x", rnd(rng, DType::F32, {m, n}, -5, 5)), output("out", DType::F32, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("out", a[1].t,
                     fold(a[0].t, m, n, false,
                          [](double p, double v) {
                            return std::max(p, v) + std::log1p(std::exp(-std::fabs(p - v)));
                          }),
                     1e-4, 1e-5);
    };
    out.push_back(std::move(c));
  }
  for (int64_t n : {200, 1000}) {
    ProgramCase c{"int_product_n" + std::to_string(n), file, "int_product"};
    HostTensor x = ints(rng, DType::I64, {n}, -1, 1);
    for (size_t i = 0; i < x.v.size(); ++i) // +-1 with a few 2s: products stay below 2^53
      x.v[i] = i % 50 == 7 ? 2 : x.v[i] == 0 ? 1 : x.v[i];
    c.args = {in("x", x), output("out", DType::I64, {n})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("out", a[1].t, fold(a[0].t, 1, n, false, std::multiplies<double>()), 0, 0);
    };
    out.push_back(std::move(c));
  }
}

/// The inclusive scan of each row of an [m, n] tensor (every element of a
/// row after a NaN is NaN for max and min).
std::vector<double> rowScan(const HostTensor &x, int64_t m, int64_t n, char kind) {
  std::vector<double> out(m * n);
  for (int64_t i = 0; i < m; ++i) {
    double acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      double v = x.v[i * n + j];
      if (kind == '+')
        acc = j ? acc + v : v;
      else if (j && (std::isnan(acc) || std::isnan(v)))
        acc = NAN;
      else
        acc = !j ? v : kind == '>' ? std::max(acc, v) : std::min(acc, v);
      out[i * n + j] = acc;
    }
  }
  return out;
}

} // namespace

void tessera::testutil::addScanCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  for (auto [m, n, bm] : {std::tuple<int64_t, int64_t, int64_t>{37, 100, 4},
                          {5, 1000, 1},
                          {64, 33, 16},
                          {3, 7, 16}}) {
    ProgramCase c{"row_scans_m" + std::to_string(m) + "_n" + std::to_string(n) + "_bm" +
                      std::to_string(bm),
                  "test/programs/scan.tile", "row_scans"};
    c.params = {{"BM", bm}};
    HostTensor x = rnd(rng, DType::F32, {m, n}, -1, 1);
    for (int64_t i = 1; i < m; i += 4) // a NaN in every fourth row
      x.v[i * n + (i * 5) % n] = NAN;
    c.args = {in("x", x), output("s", DType::F32, {m, n}), output("hi", DType::F32, {m, n}),
              output("lo", DType::F32, {m, n})};
    exact(c, {2, 3});
    c.check = [=](const std::vector<CaseArg> &a) {
      const HostTensor &xs = a[0].t;
      return closeTo("s", a[1].t, rowScan(xs, m, n, '+'), 1e-4, 1e-5) +
             closeTo("hi", a[2].t, rowScan(xs, m, n, '>'), 0, 0) +
             closeTo("lo", a[3].t, rowScan(xs, m, n, '<'), 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n, bn] : {std::tuple<int64_t, int64_t, int64_t>{37, 100, 32}, {128, 8, 8}}) {
    ProgramCase c{"col_cumsum_m" + std::to_string(m) + "_n" + std::to_string(n),
                  "test/programs/scan.tile", "col_cumsum"};
    c.params = {{"BN", bn}};
    HostTensor x = ints(rng, DType::I32, {m, n}, -1000, 1000);
    x.v[3 * n + 1] = 2147483647.0; // the column's sum wraps from here
    x.v[4 * n + 1] = 2147483647.0;
    c.args = {in("x", x), output("out", DType::I32, {m, n})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(m * n);
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t i = 0; i < m; ++i) {
          acc = (int64_t)(int32_t)(uint32_t)(acc + (int64_t)a[0].t.v[i * n + j]);
          want[i * n + j] = (double)acc;
        }
      }
      return closeTo("out", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (int64_t n : {48, 30}) {
    ProgramCase c{"odd_cummax_n" + std::to_string(n), "test/programs/scan.tile", "odd_cummax"};
    HostTensor x = rnd(rng, DType::F32, {5, n}, -1, 1);
    c.args = {in("x", x), output("out", DType::F32, {5, n})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("out", a[1].t, rowScan(a[0].t, 5, n, '>'), 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{3, 4096}, {2, 1500}}) {
    ProgramCase c{"long_cumsum_m" + std::to_string(m) + "_n" + std::to_string(n),
                  "test/programs/scan.tile", "long_cumsum"};
    HostTensor x = rnd(rng, DType::BF16, {m, n}, -1, 1);
    c.args = {in("x", x), output("out", DType::BF16, {m, n})};
    c.check = [=](const std::vector<CaseArg> &a) {
      // Summed in f32, rounded once to bf16 (8 bits).
      return closeTo("out", a[1].t, rowScan(a[0].t, m, n, '+'), 1e-2, 1.0 / 128);
    };
    out.push_back(std::move(c));
  }
  addScanWithCases(out, rng);
}
