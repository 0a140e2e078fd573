//===- CasesAtomics.cpp - atomics from many programs ----------------------===//
//
// The test/programs/atomics.tile kernels: a histogram with bins out of range,
// a split-K matmul accumulating with block-form atomic adds, segment max/min,
// compare-and-swap claims (checked by what any order of the claims gives), a
// ticket counter whose old values must be a permutation, and old values and
// exchanges over a tile smaller than the program's threads.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <set>

using namespace tessera;
using namespace tessera::testutil;

namespace {

HostTensor filled(DType d, std::vector<int64_t> s, double v) {
  HostTensor t(d, std::move(s));
  std::fill(t.v.begin(), t.v.end(), v);
  return t;
}

} // namespace

void tessera::testutil::addAtomicCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  const char *file = "test/programs/atomics.tile";
  {
    int64_t n = 5000, nb = 37;
    ProgramCase c{"histogram_5000_into_37", file, "histogram"};
    HostTensor h0 = ints(rng, DType::I32, {nb}, 0, 3);
    c.args = {in("x", ints(rng, DType::I32, {n}, -4, nb + 3)), inout("hist", h0)};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want = h0.v;
      for (double v : a[0].t.v)
        if (v >= 0 && v < nb)
          want[(int64_t)v] += 1;
      return closeTo("hist", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{100, 70, 200}, {64, 64, 96}}) {
    ProgramCase c{"splitk_atomic_m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" +
                      std::to_string(k),
                  file, "splitk"};
    c.args = {in("a", rnd(rng, DType::BF16, {m, k})), in("b", rnd(rng, DType::BF16, {k, n})),
              inout("c", HostTensor(DType::F32, {m, n}))};
    c.check = [=](const std::vector<CaseArg> &a) {
      return closeTo("c", a[2].t, matmulRef(a[0].t, a[1].t, m, n, k, false),
                     1e-4 * std::sqrt((double)k), 1e-4);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 3000, s = 50;
    ProgramCase c{"segment_max_3000_into_50", file, "segment_max"};
    c.args = {in("x", rnd(rng, DType::F32, {n}, -10, 10)),
              in("seg", ints(rng, DType::I32, {n}, -2, s + 1)),
              inout("out", filled(DType::F32, {s}, -1e30)),
              inout("first", filled(DType::I32, {s}, 1 << 30))};
    exact(c, {2, 3});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> mx(s, -1e30), fi(s, 1 << 30);
      for (int64_t i = 0; i < n; ++i) {
        int64_t g = (int64_t)a[1].t.v[i];
        if (g < 0 || g >= s)
          continue;
        mx[g] = std::max(mx[g], a[0].t.v[i]);
        fi[g] = std::min(fi[g], (double)i);
      }
      return closeTo("out", a[2].t, mx, 0, 0) + closeTo("first", a[3].t, fi, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 1000, k = 64;
    ProgramCase c{"claim_1000_keys_64", file, "claim"};
    c.args = {in("key", ints(rng, DType::I32, {n}, 0, k - 1)),
              inout("owner", filled(DType::I32, {k}, -1)), output("won", DType::I32, {n})};
    c.check = [=](const std::vector<CaseArg> &a) -> std::string {
      // Any order of claims is correct: each claimed key has exactly one
      // winner, the owner it records, and unclaimed keys stay -1.
      std::vector<int64_t> winners(k, 0);
      for (int64_t i = 0; i < n; ++i) {
        int64_t key = (int64_t)a[0].t.v[i];
        if (a[2].t.v[i] == 1) {
          ++winners[key];
          if (a[1].t.v[key] != (double)i)
            return "won[" + std::to_string(i) + "] but owner[" + std::to_string(key) +
                   "] = " + std::to_string((int64_t)a[1].t.v[key]);
        } else if (a[2].t.v[i] != 0) {
          return "won[" + std::to_string(i) + "] is neither 0 nor 1";
        }
      }
      std::set<int64_t> used;
      for (double v : a[0].t.v)
        used.insert((int64_t)v);
      for (int64_t key = 0; key < k; ++key)
        if (winners[key] != (used.count(key) ? 1 : 0) || (!used.count(key) && a[1].t.v[key] != -1))
          return "key " + std::to_string(key) + " has " + std::to_string(winners[key]) + " winners";
      return "";
    };
    out.push_back(std::move(c));
  }
  {
    int64_t p = 300;
    ProgramCase c{"tickets_300", file, "tickets"};
    c.args = {inout("counter", filled(DType::I32, {1}, 5)), output("got", DType::I32, {p})};
    c.check = [=](const std::vector<CaseArg> &a) -> std::string {
      std::vector<double> got = a[1].t.v;
      std::sort(got.begin(), got.end());
      for (int64_t i = 0; i < p; ++i)
        if (got[i] != (double)(5 + i))
          return "the tickets are not 5 .. " + std::to_string(4 + p) + " once each";
      return a[0].t.v[0] == (double)(5 + p)
                 ? ""
                 : "the counter ended at " + std::to_string((int64_t)a[0].t.v[0]);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 200;
    ProgramCase c{"bump_200", file, "bump"};
    HostTensor acc0 = rnd(rng, DType::F32, {n}), swap0 = ints(rng, DType::I32, {n}, -50, 50);
    c.args = {inout("acc", acc0), output("prev", DType::F32, {n}), inout("swap", swap0)};
    exact(c, {0, 1, 2});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> acc(n), sw(n);
      for (int64_t i = 0; i < n; ++i) {
        acc[i] = (double)(float)(acc0.v[i] + 1.0);
        sw[i] = i % 2 == 0 ? swap0.v[i] + (double)i * 1000 : (double)i;
      }
      return closeTo("acc", a[0].t, acc, 0, 0) + closeTo("prev", a[1].t, acc0.v, 0, 0) +
             closeTo("swap", a[2].t, sw, 0, 0);
    };
    out.push_back(std::move(c));
  }
}
