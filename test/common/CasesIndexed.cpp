//===- CasesIndexed.cpp - element-addressed loads and stores --------------===//
//
// The test/programs kernels that address elements by subscript: stencils with
// halos (zero padding and clamped edges), an embedding bag gathering table rows
// by i64 ids with ragged bag lengths, a permutation scatter, a 2-D gather with
// negative and out-of-range indices under a random mask, and a masked scatter
// into a tensor whose other elements must stay as they were.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <numeric>

using namespace tessera;
using namespace tessera::testutil;

namespace {

void stencils(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  for (auto [n, block] : {std::pair<int64_t, int64_t>{1000, 256}, {77, 128}}) {
    ProgramCase c{"stencil5_" + std::to_string(n) + "_b" + std::to_string(block),
                  "test/programs/stencil_halo.tile", "stencil5"};
    c.params = {{"BLOCK", block}};
    c.args = {in("x", rnd(rng, DType::F32, {n})), in("w", rnd(rng, DType::F32, {5})),
              output("y", DType::F32, {n})};
    c.check = [n](const std::vector<CaseArg> &a) {
      std::vector<double> want(n, 0.0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < 5; ++k) {
          int64_t j = i + k - 2;
          if (j >= 0 && j < n)
            want[i] += a[1].t.v[k] * a[0].t.v[j];
        }
      return closeTo("y", a[2].t, want, 1e-6, 1e-5);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t h = 37, w = 70;
    ProgramCase c{"blur3x3_37x70", "test/programs/stencil_halo.tile", "blur3x3"};
    c.args = {in("x", rnd(rng, DType::F32, {h, w})), output("y", DType::F32, {h, w})};
    c.check = [h, w](const std::vector<CaseArg> &a) {
      std::vector<double> want(h * w, 0.0);
      for (int64_t r = 0; r < h; ++r)
        for (int64_t q = 0; q < w; ++q) {
          for (int64_t dr = -1; dr <= 1; ++dr)
            for (int64_t dc = -1; dc <= 1; ++dc) {
              int64_t rr = std::clamp<int64_t>(r + dr, 0, h - 1);
              int64_t cc = std::clamp<int64_t>(q + dc, 0, w - 1);
              want[r * w + q] += a[0].t.v[rr * w + cc];
            }
          want[r * w + q] /= 9.0;
        }
      return closeTo("y", a[1].t, want, 1e-6, 1e-5);
    };
    out.push_back(std::move(c));
  }
}

void gathers(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  {
    int64_t v = 50, d = 100, b = 6, l = 5;
    ProgramCase c{"embedding_bag_v50_d100_b6_l5", "test/programs/embedding_bag.tile"};
    HostTensor ids = ints(rng, DType::I64, {b, l}, 0, v - 1);
    ids.v[1] = -3; // out of range: reads zero
    ids.v[7] = (double)v;
    ids.v[12] = 1e12; // far past the table, beyond 32 bits
    c.args = {in("table", rnd(rng, DType::BF16, {v, d})), in("ids", ids),
              in("wt", rnd(rng, DType::F32, {b, l})), in("len", ints(rng, DType::I32, {b}, 0, l)),
              output("out", DType::F32, {b, d})};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(b * d, 0.0);
      for (int64_t bag = 0; bag < b; ++bag)
        for (int64_t j = 0; j < (int64_t)a[3].t.v[bag]; ++j) {
          double id = a[1].t.v[bag * l + j];
          if (id < 0 || id >= v)
            continue;
          for (int64_t q = 0; q < d; ++q)
            want[bag * d + q] += a[0].t.v[(int64_t)id * d + q] * a[2].t.v[bag * l + j];
        }
      return closeTo("out", a[4].t, want, 1e-5, 1e-5);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 1000;
    ProgramCase c{"permute_1000", "test/programs/gather_scatter.tile", "permute"};
    HostTensor perm(DType::I32, {n});
    std::vector<int64_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    for (int64_t i = 0; i < n; ++i)
      perm.v[i] = (double)p[i];
    c.args = {in("x", rnd(rng, DType::F32, {n})), in("perm", perm), output("y", DType::F32, {n})};
    exact(c, {2});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i)
        want[p[i]] = a[0].t.v[i] * 2.0;
      return closeTo("y", a[2].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t m = 40, n = 50, r = 20, cn = 70;
    ProgramCase c{"take2d_40x50_r20_c70", "test/programs/gather_scatter.tile", "take2d"};
    c.args = {
        in("x", rnd(rng, DType::F32, {m, n})), in("rows", ints(rng, DType::I32, {r}, -3, m + 2)),
        in("cols", ints(rng, DType::I64, {r, cn}, -3, n + 2)),
        in("mask", ints(rng, DType::Bool, {r, cn}, 0, 1)), output("out", DType::F32, {r, cn})};
    exact(c, {4});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(r * cn);
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < cn; ++j) {
          int64_t row = (int64_t)a[1].t.v[i], col = (int64_t)a[2].t.v[i * cn + j];
          bool ok = a[3].t.v[i * cn + j] != 0 && row >= 0 && row < m && col >= 0 && col < n;
          want[i * cn + j] = ok ? a[0].t.v[row * n + col] : -1.0;
        }
      return closeTo("out", a[4].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    int64_t n = 300, k = 500;
    ProgramCase c{"scatter_masked_300_into_500", "test/programs/gather_scatter.tile",
                  "scatter_masked"};
    std::vector<int64_t> slots(k);
    std::iota(slots.begin(), slots.end(), 0);
    std::shuffle(slots.begin(), slots.end(), rng);
    HostTensor idx(DType::I32, {n});
    for (int64_t i = 0; i < n; ++i)
      idx.v[i] = (double)slots[i];
    HostTensor y0 = rnd(rng, DType::F32, {k});
    c.args = {in("v", rnd(rng, DType::F32, {n})), in("idx", idx), inout("y", y0)};
    exact(c, {2});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want = y0.v;
      for (int64_t i = 0; i < n; ++i)
        if (a[0].t.v[i] > 0)
          want[slots[i]] = a[0].t.v[i];
      return closeTo("y", a[2].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
}

} // namespace

void tessera::testutil::addIndexedCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  stencils(out, rng);
  gathers(out, rng);
}
