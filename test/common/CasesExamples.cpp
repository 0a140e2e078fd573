//===- CasesExamples.cpp - the examples/ programs as test cases -----------===//
//
// Each example at several shapes, ragged ones included, against float64
// references. Tolerances: exact where the kernel does one rounding of exact
// inputs, f32 math error for f32 outputs, one bf16/f16 ulp plus the f32 error
// for half-precision outputs, and sqrt(K)-scaled absolute error for dots.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

namespace {

void vectorAdd(std::vector<ProgramCase> &out, std::mt19937 &rng, int64_t n) {
  ProgramCase c{nameOf("vector_add", {{"n", n}}), "examples/vector_add.tile"};
  c.args = {in("x", rnd(rng, DType::F32, {n})), in("y", rnd(rng, DType::F32, {n})),
            output("z", DType::F32, {n})};
  exact(c, {2});
  c.check = [n](const std::vector<CaseArg> &a) {
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i)
      want[i] = (double)(float)(a[0].t.v[i] + a[1].t.v[i]);
    return closeTo("z", a[2].t, want, 0, 0);
  };
  out.push_back(std::move(c));
}

void softmax(std::vector<ProgramCase> &out, std::mt19937 &rng, int64_t m, int64_t n) {
  ProgramCase c{nameOf("softmax", {{"m", m}, {"n", n}}), "examples/softmax.tile"};
  c.args = {in("x", rnd(rng, DType::F32, {m, n}, -4, 4)), output("y", DType::F32, {m, n})};
  c.check = [m, n](const std::vector<CaseArg> &a) {
    return closeTo("y", a[1].t, softmaxRef(a[0].t, m, n), 1e-6, 1e-4);
  };
  out.push_back(std::move(c));
}

void layernorm(std::vector<ProgramCase> &out, std::mt19937 &rng, int64_t m, int64_t n) {
  ProgramCase c{nameOf("layernorm", {{"m", m}, {"n", n}}), "examples/layernorm.tile"};
  c.args = {in("x", rnd(rng, DType::F32, {m, n}, -2, 3)), in("w", rnd(rng, DType::F32, {n})),
            in("b", rnd(rng, DType::F32, {n})), output("y", DType::F32, {m, n}),
            scalar("eps", 1e-5)};
  c.check = [m, n](const std::vector<CaseArg> &a) {
    return closeTo("y", a[3].t, layernormRef(a[0].t, a[1].t, a[2].t, m, n, 1e-5), 1e-4, 1e-4);
  };
  out.push_back(std::move(c));
}

void rmsnorm(std::vector<ProgramCase> &out, std::mt19937 &rng, int64_t m, int64_t n) {
  ProgramCase c{nameOf("rmsnorm", {{"m", m}, {"n", n}}), "examples/rmsnorm.tile"};
  c.args = {in("x", rnd(rng, DType::BF16, {m, n}, -2, 2)), in("w", rnd(rng, DType::BF16, {n})),
            output("y", DType::BF16, {m, n}), scalar("eps", 1e-6)};
  c.check = [m, n](const std::vector<CaseArg> &a) {
    const auto &x = a[0].t.v, &w = a[1].t.v;
    std::vector<double> want(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double ss = 0;
      for (int64_t j = 0; j < n; ++j)
        ss += x[r * n + j] * x[r * n + j] / n;
      for (int64_t j = 0; j < n; ++j)
        want[r * n + j] = x[r * n + j] / std::sqrt(ss + 1e-6) * w[j];
    }
    return closeTo("y", a[2].t, want, 2e-2, 1.6e-2); // bf16 output: 2^-8 relative, plus f32 math
  };
  out.push_back(std::move(c));
}

void matmul(std::vector<ProgramCase> &out, std::mt19937 &rng, bool tn, int64_t m, int64_t n,
            int64_t k, std::map<std::string, int64_t> params = {}) {
  std::vector<std::pair<std::string, int64_t>> parts =
      withParams({{"m", m}, {"n", n}, {"k", k}}, params);
  ProgramCase c{nameOf(tn ? "matmul_tn" : "matmul", parts),
                tn ? "examples/matmul_tn.tile" : "examples/matmul.tile"};
  c.params = std::move(params);
  c.args = {in("a", tn ? rnd(rng, DType::BF16, {k, m}) : rnd(rng, DType::BF16, {m, k})),
            in("b", rnd(rng, DType::BF16, {k, n})), output("c", DType::BF16, {m, n})};
  c.check = [=](const std::vector<CaseArg> &a) {
    return closeTo("c", a[2].t, matmulRef(a[0].t, a[1].t, m, n, k, tn), 2e-3 * std::sqrt((double)k),
                   8e-3);
  };
  out.push_back(std::move(c));
}

void matmulF16(std::vector<ProgramCase> &out, std::mt19937 &rng, int64_t m, int64_t n, int64_t k) {
  ProgramCase c{nameOf("matmul_f16", {{"m", m}, {"n", n}, {"k", k}}), "examples/matmul_f16.tile"};
  c.args = {in("a", rnd(rng, DType::F16, {m, k})), in("b", rnd(rng, DType::F16, {k, n})),
            output("c", DType::F16, {m, n})};
  c.check = [=](const std::vector<CaseArg> &a) {
    return closeTo("c", a[2].t, matmulRef(a[0].t, a[1].t, m, n, k, false),
                   1e-3 * std::sqrt((double)k), 2e-3);
  };
  out.push_back(std::move(c));
}

/// examples/matmul_epilogue.tile: GELU into bf16, or ReLU into f32.
void matmulEpilogue(std::vector<ProgramCase> &out, std::mt19937 &rng, bool gelu, int64_t m,
                    int64_t n, int64_t k, std::map<std::string, int64_t> params = {}) {
  ProgramCase c{nameOf(gelu ? "matmul_bias_gelu" : "matmul_bias_relu",
                       {{"m", m}, {"n", n}, {"k", k}, {"p", (int64_t)params.size()}}),
                "examples/matmul_epilogue.tile", gelu ? "matmul_bias_gelu" : "matmul_bias_relu"};
  c.params = std::move(params);
  DType outType = gelu ? DType::BF16 : DType::F32;
  c.args = {in("a", rnd(rng, DType::BF16, {m, k})), in("b", rnd(rng, DType::BF16, {k, n})),
            in("bias", rnd(rng, DType::F32, {n}, -2, 2)), output("c", outType, {m, n})};
  c.check = [=](const std::vector<CaseArg> &a) {
    std::vector<double> want = matmulRef(a[0].t, a[1].t, m, n, k, false);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double x = want[i * n + j] + a[2].t.v[j];
        want[i * n + j] = gelu
                              ? 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
                              : std::max(x, 0.0);
      }
    // bf16: one ulp of the output plus the dot's error; f32: the dot's.
    return closeTo("c", a[3].t, want, 2e-3 * std::sqrt((double)k), gelu ? 8e-3 : 1e-4);
  };
  out.push_back(std::move(c));
}

} // namespace

std::vector<ProgramCase> tessera::testutil::exampleCases() {
  std::vector<ProgramCase> out;
  std::mt19937 rng(2026);
  for (int64_t n : {int64_t(1) << 20, int64_t(100003), int64_t(1)})
    vectorAdd(out, rng, n);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{512, 4096}, {333, 1000}, {7, 1}, {3, 20000}})
    softmax(out, rng, m, n);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{257, 1000}, {64, 4096}, {5, 3}})
    layernorm(out, rng, m, n);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{257, 1000}, {16, 8192}})
    rmsnorm(out, rng, m, n);
  for (bool tn : {false, true})
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{512, 512, 512},
                           {300, 200, 130},
                           {128, 256, 64},
                           {1, 8, 8},
                           // K smaller than one block; a long pipelined K with a
                           // ragged last block (aligned rows: cp.async).
                           {256, 192, 40},
                           {200, 136, 1000}})
      matmul(out, rng, tn, m, n, k);
  // Configurations the tuner may pick, on ragged shapes. On sm_90a: wgmma
  // N = 256 with two warpgroups along M; warpgroups split along N (N = 64)
  // with a 32-deep K (64-byte swizzle) copied 3 iterations ahead; one
  // warpgroup with two 64-row instructions; A stored M-major (transpose bit).
  matmul(out, rng, false, 192, 320, 100,
         {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 4}});
  matmul(out, rng, false, 130, 70, 200,
         {{"BM", 64}, {"BN", 128}, {"BK", 32}, {"num_warps", 8}, {"num_stages", 5}});
  matmul(out, rng, false, 256, 136, 64,
         {{"BM", 128}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 3}});
  matmul(out, rng, true, 100, 72, 300,
         {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 4}});
  // Split-K (the compiler's schedule option): uneven shares of a ragged K
  // (32 iterations in 3 splits), splits with no iteration at all (2 in 4),
  // the other operand major, and the wide tile.
  matmul(out, rng, false, 300, 200, 1000,
         {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 3}, {"split-k", 3}});
  matmul(out, rng, false, 130, 72, 40,
         {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 3}, {"split-k", 4}});
  matmul(
      out, rng, true, 256, 192, 520,
      {{"BM", 128}, {"BN", 128}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 3}, {"split-k", 2}});
  matmul(
      out, rng, false, 192, 320, 700,
      {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 3}, {"split-k", 2}});
  // Warp specialization (on sm_90a a producer warpgroup; elsewhere, and in
  // the cp.async variant, the option changes nothing): a ragged K over more
  // iterations than stages, the wide tile with registers moved, a loop
  // shorter than the ring, and 4 compute warps with A stored M-major.
  matmul(out, rng, false, 300, 264, 1000,
         {{"BM", 128},
          {"BN", 128},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 4},
          {"warp-specialize", 1}});
  matmul(out, rng, false, 256, 512, 520,
         {{"BM", 128},
          {"BN", 256},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 3},
          {"warp-specialize", 1}});
  matmul(out, rng, false, 130, 72, 40,
         {{"BM", 64},
          {"BN", 64},
          {"BK", 32},
          {"num_warps", 4},
          {"num_stages", 4},
          {"warp-specialize", 1}});
  matmul(out, rng, true, 200, 136, 300,
         {{"BM", 64},
          {"BN", 128},
          {"BK", 32},
          {"num_warps", 4},
          {"num_stages", 3},
          {"warp-specialize", 1}});
  // Persistent (programs loop over the output tiles): more tiles than the
  // GPU holds at once, so programs take two, with the producer's ring running
  // on across tiles (ragged K of 4 iterations in 3 slots; one iteration per
  // tile), also with the two compute warpgroups in turns at the accumulating
  // dot (tile-ping-pong); without warp specialization (cp.async in the loop
  // over tiles); 4 compute warps with A stored M-major.
  std::map<std::string, int64_t> persistentWs = {{"BM", 128},       {"BN", 128},
                                                 {"BK", 64},        {"num_warps", 8},
                                                 {"num_stages", 3}, {"warp-specialize", 1},
                                                 {"persistent", 1}};
  matmul(out, rng, false, 1664, 1408, 200, persistentWs);
  persistentWs["ping-pong"] = 1;
  matmul(out, rng, false, 1664, 1408, 200, persistentWs);
  matmul(out, rng, false, 2100, 2100, 40,
         {{"BM", 128},
          {"BN", 256},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 3},
          {"warp-specialize", 1},
          {"persistent", 1}});
  matmul(out, rng, false, 2304, 2048, 72,
         {{"BM", 128},
          {"BN", 128},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 3},
          {"persistent", 1}});
  matmul(out, rng, true, 2048, 2048, 100,
         {{"BM", 64},
          {"BN", 128},
          {"BK", 32},
          {"num_warps", 4},
          {"num_stages", 4},
          {"warp-specialize", 1},
          {"persistent", 1}});
  // Clusters along axis 0 sharing B by TMA multicast (on sm_90a; elsewhere
  // the option changes nothing): a ragged K, the wide tile in clusters of 2
  // and of 4 (each program issues one of B's four column blocks), K below one
  // block with B one column block wide (rank 0 issues it all), A stored
  // M-major, the fused epilogue, and a grid of 3 rows that no cluster of 2
  // divides (the option is dropped).
  std::map<std::string, int64_t> clustered = {{"BM", 128},      {"BN", 128},       {"BK", 64},
                                              {"num_warps", 8}, {"num_stages", 4}, {"cluster", 2}};
  matmul(out, rng, false, 500, 264, 1000, clustered);
  matmul(out, rng, false, 300, 264, 1000, clustered);
  matmulEpilogue(out, rng, true, 512, 200, 300, clustered);
  clustered["BN"] = 256;
  clustered["num_stages"] = 3; // four of this tile need more shared memory than sm_80 has
  matmul(out, rng, false, 512, 520, 520, clustered);
  clustered["cluster"] = 4;
  matmul(out, rng, false, 512, 520, 520, clustered);
  matmul(out, rng, false, 200, 72, 40,
         {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 3}, {"cluster", 2}});
  matmul(
      out, rng, true, 256, 136, 300,
      {{"BM", 64}, {"BN", 128}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 4}, {"cluster", 2}});
  // With a producer warpgroup multicasting B: two compute warpgroups, and
  // one whose B is one column block (rank 1's producer copies only A).
  clustered = {{"BM", 128},      {"BN", 128},       {"BK", 64},
               {"num_warps", 8}, {"num_stages", 4}, {"warp-specialize", 1},
               {"cluster", 2}};
  matmul(out, rng, false, 500, 264, 1000, clustered);
  matmul(out, rng, false, 256, 72, 300,
         {{"BM", 64},
          {"BN", 64},
          {"BK", 64},
          {"num_warps", 4},
          {"num_stages", 3},
          {"warp-specialize", 1},
          {"cluster", 2}});
  // Rows of A of 600 bytes: TMA cannot describe A, the cp.async variant splits.
  matmul(out, rng, false, 200, 136, 300,
         {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 3}, {"split-k", 2}});
  // Fused epilogues: ragged, K below one block, and the wide tuned tile.
  for (bool gelu : {true, false}) {
    matmulEpilogue(out, rng, gelu, 300, 200, 130);
    matmulEpilogue(out, rng, gelu, 130, 72, 40);
    // (Three stages: four of this tile need more shared memory than sm_80 has.)
    matmulEpilogue(out, rng, gelu, 256, 264, 192,
                   {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 3}});
  }
  // A long K behind an epilogue whose layout conversion reuses the operand
  // buffers (the last asynchronous dot must be complete in every warpgroup).
  matmulEpilogue(out, rng, false, 768, 512, 1024,
                 {{"BM", 128}, {"BN", 128}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 3}});
  // The epilogue runs once per tile, on the combined sum (GELU is not linear).
  matmulEpilogue(
      out, rng, true, 200, 264, 600,
      {{"BM", 128}, {"BN", 128}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 3}, {"split-k", 4}});
  matmulF16(out, rng, 300, 200, 130);
  matmulF16(out, rng, 256, 512, 1000);
  addExampleAttentionCases(out, rng);
  // Epilogues through shared memory and TMA stores (on sm_90a; elsewhere the
  // option changes nothing): ragged M and N over the wide tile; persistent
  // and warp-specialized with four stages of the wide tile, with ragged
  // tiles and K below one block, and with 4 compute warps and A M-major;
  // persistent without a producer; C whose rows of 200 bytes TMA cannot
  // describe (the store stays); f32 out of a fused epilogue. Four stages of
  // the wide tile (192 KiB) are for sm_90's shared memory only.
  size_t wideFourStages = out.size();
  matmul(out, rng, false, 300, 264, 1000,
         {{"BM", 128},
          {"BN", 256},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 4},
          {"tma-store", 1}});
  matmul(out, rng, false, 1664, 1408, 200,
         {{"BM", 128},
          {"BN", 256},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 4},
          {"warp-specialize", 1},
          {"persistent", 1},
          {"tma-store", 1}});
  onlySm90(out, wideFourStages,
           "four stages of the 128x256 tile need 192 KiB of shared memory, more than sm_80 has "
           "(the TMA-store schedule is for sm_90)");
  matmul(out, rng, false, 2100, 2100, 40,
         {{"BM", 128},
          {"BN", 128},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 4},
          {"warp-specialize", 1},
          {"persistent", 1},
          {"tma-store", 1}});
  matmul(out, rng, true, 2048, 2048, 100,
         {{"BM", 64},
          {"BN", 128},
          {"BK", 32},
          {"num_warps", 4},
          {"num_stages", 4},
          {"warp-specialize", 1},
          {"persistent", 1},
          {"tma-store", 1}});
  matmul(out, rng, false, 2304, 2048, 72,
         {{"BM", 128},
          {"BN", 128},
          {"BK", 64},
          {"num_warps", 8},
          {"num_stages", 3},
          {"persistent", 1},
          {"tma-store", 1}});
  matmul(
      out, rng, false, 200, 100, 300,
      {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 3}, {"tma-store", 1}});
  matmulEpilogue(out, rng, false, 300, 200, 130,
                 {{"BM", 128},
                  {"BN", 128},
                  {"BK", 64},
                  {"num_warps", 8},
                  {"num_stages", 3},
                  {"tma-store", 1}});
  std::mt19937 decodeRng(1616);
  addDecodeCases(out, decodeRng);
  std::mt19937 attentionRng(1515);
  addAttentionCases(out, attentionRng);
  return out;
}
