//===- CasesExampleAttention.cpp - examples/attention as test cases -------===//
//
// examples/attention.tile, causal_attention.tile and attention_lse.tile at
// ragged sequence lengths, head dims 64, 96 and 128, plain and with each
// Hopper schedule (producer warpgroup, rotated dots, ping-pong, persistent,
// P through shared memory), against float64 references. Part of
// exampleCases, drawing from its generator in place so the other cases keep
// their inputs. Tolerances: bf16 inputs and output, f32 statistics.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

namespace {

void attention(std::vector<ProgramCase> &out, std::mt19937 &rng, bool causal, int64_t b, int64_t h,
               int64_t n, int64_t d, std::map<std::string, int64_t> params = {}) {
  ProgramCase c{nameOf(causal ? "causal_attention" : "attention",
                       withParams({{"b", b}, {"h", h}, {"n", n}, {"d", d}}, params)),
                causal ? "examples/causal_attention.tile" : "examples/attention.tile"};
  c.params = std::move(params);
  std::vector<int64_t> s = {b, h, n, d};
  double scale = 1.0 / std::sqrt((double)d);
  c.args = {in("q", rnd(rng, DType::BF16, s, -2, 2)), in("k", rnd(rng, DType::BF16, s, -2, 2)),
            in("v", rnd(rng, DType::BF16, s)), output("o", DType::BF16, s), scalar("scale", scale)};
  c.check = [=](const std::vector<CaseArg> &a) {
    return closeTo("o", a[3].t, attentionRef(a[0].t, a[1].t, a[2].t, causal, scale), 1e-2, 1.6e-2);
  };
  out.push_back(std::move(c));
}

/// examples/attention_lse.tile: the output as attention's, and each row's
/// natural log-sum-exp of its scaled scores against float64.
void attentionLse(std::vector<ProgramCase> &out, std::mt19937 &rng, bool causal, int64_t b,
                  int64_t h, int64_t n, int64_t d, std::map<std::string, int64_t> params = {}) {
  ProgramCase c{nameOf(causal ? "attention_lse_causal" : "attention_lse",
                       withParams({{"b", b}, {"h", h}, {"n", n}, {"d", d}}, params)),
                "examples/attention_lse.tile"};
  c.params = std::move(params);
  std::vector<int64_t> s = {b, h, n, d};
  double scale = 1.0 / std::sqrt((double)d);
  c.args = {in("q", rnd(rng, DType::BF16, s, -2, 2)), in("k", rnd(rng, DType::BF16, s, -2, 2)),
            in("v", rnd(rng, DType::BF16, s)),        output("o", DType::BF16, s),
            output("lse", DType::F32, {b, h, n}),     scalar("scale", scale),
            scalar("causal", causal ? 1 : 0)};
  c.check = [=](const std::vector<CaseArg> &a) {
    std::string err =
        closeTo("o", a[3].t, attentionRef(a[0].t, a[1].t, a[2].t, causal, scale), 1e-2, 1.6e-2);
    if (!err.empty())
      return err;
    const HostTensor &q = a[0].t, &k = a[1].t;
    std::vector<double> want(b * h * n);
    for (int64_t z = 0; z < b * h; ++z)
      for (int64_t i = 0; i < n; ++i) {
        std::vector<double> sc;
        for (int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
          double dot = 0;
          for (int64_t e = 0; e < d; ++e)
            dot += q.v[(z * n + i) * d + e] * k.v[(z * n + j) * d + e];
          sc.push_back(dot * scale);
        }
        double mx = *std::max_element(sc.begin(), sc.end()), sum = 0;
        for (double x : sc)
          sum += std::exp(x - mx);
        want[z * n + i] = mx + std::log(sum);
      }
    // f32 statistics over bf16 inputs: the scores' rounding, not the sum's.
    return closeTo("lse", a[4].t, want, 2e-3, 1e-3);
  };
  out.push_back(std::move(c));
}

} // namespace

void tessera::testutil::addExampleAttentionCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  attention(out, rng, false, 1, 2, 256, 64);
  attention(out, rng, false, 2, 3, 200, 128);
  attention(out, rng, false, 1, 2, 77, 64);
  attention(out, rng, true, 1, 2, 256, 64);
  attention(out, rng, true, 2, 2, 200, 128);
  // Causal programs walk the (batch, head) pairs in sections of 8: 14 pairs
  // make a section of 8 and a last one of 6.
  attention(out, rng, true, 2, 7, 130, 64);
  // Warp-specialized attention (on sm_90a a producer warpgroup streams K and
  // V by TMA; the dots are waited for, each slot released at the end of its
  // iteration): ragged N over more blocks than slots, the wide tile with
  // registers moved, a sequence shorter than the ring, causal, 4 compute
  // warps, and persistent.
  std::map<std::string, int64_t> wide = {
      {"BM", 128}, {"BN", 128}, {"num_warps", 8}, {"num_stages", 2}, {"warp-specialize", 1}};
  std::map<std::string, int64_t> narrow = {
      {"BM", 128}, {"BN", 64}, {"num_warps", 8}, {"num_stages", 3}, {"warp-specialize", 1}};
  std::map<std::string, int64_t> oneGroup = {
      {"BM", 64}, {"BN", 64}, {"num_warps", 4}, {"num_stages", 3}, {"warp-specialize", 1}};
  std::map<std::string, int64_t> sideBySide = {
      {"BM", 64}, {"BN", 64}, {"num_warps", 8}, {"num_stages", 2}, {"warp-specialize", 1}};
  attention(out, rng, false, 1, 2, 520, 128, wide);
  attention(out, rng, false, 1, 3, 77, 64, narrow);
  attention(out, rng, true, 1, 2, 400, 128, wide);
  attention(out, rng, true, 1, 2, 333, 64, narrow);
  attention(out, rng, false, 1, 2, 300, 128, oneGroup);
  // Four compute warpgroups (BM=256, 16 warps) beside the producer: 640
  // threads, 104 registers per compute thread after setmaxnreg; full and
  // causal at ragged N, and rotated.
  std::map<std::string, int64_t> four = {
      {"BM", 256}, {"BN", 64}, {"num_warps", 16}, {"num_stages", 2}, {"warp-specialize", 1}};
  attention(out, rng, false, 1, 2, 600, 64, four);
  attention(out, rng, true, 1, 2, 333, 64, four);
  four["num_stages"] = 3;
  four["rotate-dots"] = 1;
  attention(out, rng, false, 1, 2, 520, 64, four);
  // The log-sum-exp output, full and causal, ragged N, with and without the
  // producer warpgroup.
  attentionLse(out, rng, false, 1, 2, 200, 64);
  attentionLse(out, rng, true, 2, 1, 333, 128);
  attentionLse(out, rng, true, 1, 2, 300, 128, wide);
  // Two warpgroups side by side along N (BM=64, 8 warps): P is spread over
  // both, so it goes through shared memory, with a barrier of the compute warps.
  attention(out, rng, true, 1, 2, 190, 64, sideBySide);
  // Persistent: 240 tiles, more than the GPU holds at once, with the producer's
  // ring running on across tiles while the compute warps store the last one.
  attention(out, rng, false, 2, 24, 600, 64,
            {{"BM", 128},
             {"BN", 64},
             {"num_warps", 8},
             {"num_stages", 2},
             {"warp-specialize", 1},
             {"persistent", 1}});
  // The second dot one iteration late (tile-rotate-dots; on sm_90a with the
  // producer warpgroup, elsewhere nothing changes): full and causal at ragged
  // N, D 64 and 128, BN 64 and 128, one key block (the rotated loop runs no
  // iteration), 4 compute warps, the log-sum-exp output, P through shared
  // memory (not rotated), and persistent (the ring runs on across tiles).
  std::map<std::string, int64_t> rot = wide;
  rot["num_stages"] = 3;
  rot["rotate-dots"] = 1;
  const std::string threeWide = "three stages of K and V blocks of 128x128 with Q need 224 KiB of "
                                "shared memory, more than sm_80 has";
  size_t from = out.size();
  attention(out, rng, false, 1, 2, 520, 128, rot);
  onlySm90(out, from, threeWide);
  attention(out, rng, true, 1, 2, 400, 64, rot);
  from = out.size();
  attention(out, rng, false, 2, 1, 100, 128, rot);
  onlySm90(out, from, threeWide);
  rot["BN"] = 64;
  attention(out, rng, true, 1, 3, 333, 128, rot);
  attention(out, rng, false, 1, 2, 77, 64, rot);
  attentionLse(out, rng, true, 1, 2, 300, 128, rot);
  oneGroup["rotate-dots"] = 1;
  attention(out, rng, false, 1, 2, 300, 128, oneGroup);
  sideBySide["rotate-dots"] = 1;
  attention(out, rng, true, 1, 2, 190, 64, sideBySide);
  rot["persistent"] = 1;
  attention(out, rng, false, 2, 24, 600, 64, rot);
  // The compute warpgroups in turns at their dots (tile-ping-pong; on sm_90a
  // with the producer warpgroup, elsewhere nothing changes): rotated, full
  // and causal, D 64 and 128; not rotated (each synchronous dot its own
  // turn); the log-sum-exp output; P through shared memory (barriers of the
  // compute warps between the turns); persistent (the turns run on across
  // tiles); one key block (the rotated loop runs no iteration).
  std::map<std::string, int64_t> pp = rot;
  pp.erase("persistent");
  pp["BN"] = 128;
  pp["ping-pong"] = 1;
  from = out.size();
  attention(out, rng, false, 1, 2, 520, 128, pp);
  onlySm90(out, from, threeWide);
  attention(out, rng, true, 1, 3, 333, 64, pp);
  from = out.size();
  attention(out, rng, false, 2, 1, 100, 128, pp);
  attentionLse(out, rng, true, 1, 2, 300, 128, pp);
  onlySm90(out, from, threeWide);
  pp["persistent"] = 1;
  pp["BN"] = 64;
  attention(out, rng, true, 2, 24, 600, 64, pp);
  pp.erase("persistent");
  pp.erase("rotate-dots");
  pp["num_stages"] = 2;
  attention(out, rng, true, 1, 2, 400, 128, pp);
  sideBySide.erase("rotate-dots");
  sideBySide["ping-pong"] = 1;
  attention(out, rng, false, 1, 2, 190, 64, sideBySide);
  // Head dim 96, not a power of two: the tiles are padded to 128 and masked
  // (tile-pad-extents); full and causal at ragged N.
  attention(out, rng, false, 1, 2, 200, 96);
  attention(out, rng, true, 2, 1, 333, 96);
  // Clusters of two programs along the query blocks (sm_90 with the producer
  // warpgroup; elsewhere nothing changes): each K and V block is copied once
  // per cluster by TMA, multicast into both programs' slots, and a slot is
  // refilled only once both programs' compute warps released it. Ragged N
  // (8 query blocks, the last masked), D 64 and BN 64, rotated, the
  // log-sum-exp output; 3 query blocks (the option dropped: whole clusters
  // only); causal (the loop's bounds vary with the query block: no load is
  // shared, no cluster). Their own generator: the cases above keep their inputs.
  std::mt19937 clusterRng(1717);
  std::map<std::string, int64_t> cl = wide;
  cl["cluster"] = 2;
  attention(out, clusterRng, false, 1, 2, 1000, 128, cl);
  attention(out, clusterRng, false, 1, 2, 300, 128, cl);
  attention(out, clusterRng, true, 1, 2, 1000, 128, cl);
  attentionLse(out, clusterRng, false, 1, 2, 512, 128, cl);
  std::map<std::string, int64_t> clNarrow = narrow;
  clNarrow["cluster"] = 2;
  attention(out, clusterRng, false, 2, 3, 700, 64, clNarrow);
  std::map<std::string, int64_t> clRot = cl;
  clRot["num_stages"] = 3;
  clRot["rotate-dots"] = 1;
  from = out.size();
  attention(out, clusterRng, false, 1, 2, 1000, 128, clRot);
  onlySm90(out, from, threeWide);
}
