//===- CasesReshape.cpp - reshape and permute -------------------*- C++ -*-===//
//
// test/programs/reshape.tile against float64: sums of groups of 32 through a
// rank-3 reshape (ragged rows, 2 and 8 rows per program), a rank-3 permute
// with its bool mask, an i32 block flattened and folded in two; and
// test/programs/num_sms.tile, a grid sized by num_sms().
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

using namespace tessera;
using namespace tessera::testutil;

void tessera::testutil::addReshapeCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  for (auto [m, n, bm] : {std::tuple<int64_t, int64_t, int64_t>{37, 256, 8}, {5, 96, 2}}) {
    ProgramCase c{"group_sums_m" + std::to_string(m) + "_n" + std::to_string(n),
                  "test/programs/reshape.tile", "group_sums"};
    c.params = {{"BM", bm}};
    int64_t g = n / 32;
    c.args = {in("x", rnd(rng, DType::F32, {m, n})), output("y", DType::F32, {m, g})};
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(m * g, 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          want[i * g + j / 32] += a[0].t.v[i * n + j];
      return closeTo("y", a[1].t, want, 1e-5, 1e-5);
    };
    out.push_back(std::move(c));
  }
  for (auto [a0, b0, c0, ba] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{7, 8, 16, 4}, {5, 3, 11, 2}}) {
    int64_t A = a0, B = b0, C = c0;
    ProgramCase c{"permute3_" + std::to_string(A) + "x" + std::to_string(B) + "x" +
                      std::to_string(C),
                  "test/programs/reshape.tile", "permute3"};
    c.params = {{"BA", ba}};
    c.args = {in("x", rnd(rng, DType::F32, {A, B, C})), output("out", DType::F32, {C, A, B})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(C * A * B);
      for (int64_t i = 0; i < A; ++i)
        for (int64_t j = 0; j < B; ++j)
          for (int64_t k = 0; k < C; ++k)
            want[(k * A + i) * B + j] = a[0].t.v[(i * B + j) * C + k];
      return closeTo("out", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  for (int64_t n : {5000, 100}) {
    // num_sms() in the grid clause (num_sms.tile): every block once.
    ProgramCase c{"sms_stride_n" + std::to_string(n), "test/programs/num_sms.tile",
                  "sms_stride_scale"};
    c.args = {in("x", rnd(rng, DType::F32, {n})), output("y", DType::F32, {n})};
    exact(c, {1});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> want(a[0].t.v);
      for (double &v : want)
        v *= 2;
      return closeTo("y", a[1].t, want, 0, 0);
    };
    out.push_back(std::move(c));
  }
  {
    ProgramCase c{"fold_4x32", "test/programs/reshape.tile", "fold"};
    c.args = {in("x", ints(rng, DType::I32, {4, 32}, -1000, 1000)),
              output("flat", DType::I32, {128}), output("halves", DType::I32, {2, 64})};
    exact(c, {1, 2});
    c.check = [=](const std::vector<CaseArg> &a) {
      std::vector<double> twice(a[0].t.v);
      for (double &v : twice)
        v *= 2;
      return closeTo("flat", a[1].t, a[0].t.v, 0, 0) + closeTo("halves", a[2].t, twice, 0, 0);
    };
    out.push_back(std::move(c));
  }
}
