//===- CasesAttention.cpp - attention variants beyond examples/attention --===//
//
// examples/gqa_attention.tile (grouped-query and multi-query attention, full
// and causal), examples/gqa_grouped_attention.tile (the same, a group's query
// heads stacked in one program, so each key/value block is read once per
// group) and examples/varlen_attention.tile (packed batches of sequences
// of any length) against float64 references at ragged sequence lengths, with the
// producer warpgroup where sm_90a gives one. Tolerances as attention's: bf16
// inputs and output, f32 statistics.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

namespace {

void gqa(std::vector<ProgramCase> &out, std::mt19937 &rng, bool causal, int64_t b, int64_t h,
         int64_t hk, int64_t n, int64_t d, std::map<std::string, int64_t> params = {},
         bool grouped = false) {
  std::string kernel = grouped ? "gqa_grouped_attention" : "gqa_attention";
  std::string name =
      nameOf((causal ? kernel + "_causal" : kernel).c_str(),
             withParams({{"b", b}, {"h", h}, {"hk", hk}, {"n", n}, {"d", d}}, params));
  ProgramCase c{name, "examples/" + kernel + ".tile"};
  c.params = std::move(params);
  std::vector<int64_t> qs = {b, h, n, d}, kvs = {b, hk, n, d};
  double scale = 1.0 / std::sqrt((double)d);
  c.args = {in("q", rnd(rng, DType::BF16, qs, -2, 2)),
            in("k", rnd(rng, DType::BF16, kvs, -2, 2)),
            in("v", rnd(rng, DType::BF16, kvs)),
            output("o", DType::BF16, qs),
            scalar("scale", scale),
            scalar("causal", causal ? 1 : 0)};
  c.check = [=](const std::vector<CaseArg> &a) {
    return closeTo("o", a[3].t, attentionRef(a[0].t, a[1].t, a[2].t, causal, scale), 1e-2, 1.6e-2);
  };
  out.push_back(std::move(c));
}

/// examples/varlen_attention.tile: sequences of `lens` packed into [T, H, D],
/// each against attentionRef on its own rows.
void varlen(std::vector<ProgramCase> &out, std::mt19937 &rng, bool causal,
            std::vector<int64_t> lens, int64_t h, int64_t d,
            std::map<std::string, int64_t> params = {}) {
  std::vector<int64_t> cu = {0};
  for (int64_t n : lens)
    cu.push_back(cu.back() + n);
  int64_t t = cu.back(), longest = *std::max_element(lens.begin(), lens.end());
  std::string name =
      nameOf(causal ? "varlen_attention_causal" : "varlen_attention",
             withParams({{"s", (int64_t)lens.size()}, {"t", t}, {"h", h}, {"d", d}}, params));
  ProgramCase c{name, "examples/varlen_attention.tile"};
  c.params = std::move(params);
  HostTensor offsets(DType::I32, {(int64_t)cu.size()});
  for (size_t i = 0; i < cu.size(); ++i)
    offsets.v[i] = (double)cu[i];
  double scale = 1.0 / std::sqrt((double)d);
  std::vector<int64_t> shape = {t, h, d};
  c.args = {in("q", rnd(rng, DType::BF16, shape, -2, 2)),
            in("k", rnd(rng, DType::BF16, shape, -2, 2)),
            in("v", rnd(rng, DType::BF16, shape)),
            output("o", DType::BF16, shape),
            in("cu_seqlens", offsets),
            scalar("max_seqlen", (double)longest),
            scalar("scale", scale),
            scalar("causal", causal ? 1 : 0)};
  c.check = [=](const std::vector<CaseArg> &a) {
    std::vector<double> want(t * h * d);
    for (size_t z = 0; z + 1 < cu.size(); ++z) {
      int64_t n = cu[z + 1] - cu[z];
      // Sequence z as [1, H, n, D], its reference scattered back.
      std::vector<HostTensor> seq(3, HostTensor(DType::BF16, {1, h, n, d}));
      for (int x = 0; x < 3; ++x)
        for (int64_t r = 0; r < n; ++r)
          for (int64_t g = 0; g < h; ++g)
            for (int64_t e = 0; e < d; ++e)
              seq[x].v[(g * n + r) * d + e] = a[x].t.v[((cu[z] + r) * h + g) * d + e];
      std::vector<double> ref = attentionRef(seq[0], seq[1], seq[2], causal, scale);
      for (int64_t r = 0; r < n; ++r)
        for (int64_t g = 0; g < h; ++g)
          for (int64_t e = 0; e < d; ++e)
            want[((cu[z] + r) * h + g) * d + e] = ref[(g * n + r) * d + e];
    }
    return closeTo("o", a[3].t, want, 1e-2, 1.6e-2);
  };
  out.push_back(std::move(c));
}

} // namespace

void tessera::testutil::addAttentionCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  // Groups of 4 over two batches, ragged N; multi-query (one key/value head)
  // causal; groups of 2 with the producer warpgroup, full and causal.
  gqa(out, rng, false, 2, 8, 2, 200, 128);
  gqa(out, rng, true, 1, 4, 1, 333, 64);
  gqa(out, rng, false, 1, 6, 3, 300, 128,
      {{"BM", 128}, {"BN", 128}, {"num_warps", 8}, {"num_stages", 2}, {"warp-specialize", 1}});
  gqa(out, rng, true, 2, 4, 2, 257, 64,
      {{"BM", 128}, {"BN", 64}, {"num_warps", 8}, {"num_stages", 3}, {"warp-specialize", 1}});
  // In clusters of 2 query blocks sharing K and V by TMA multicast (the
  // producer warpgroup's copies), and the plain loop (cp.async: no cluster).
  gqa(out, rng, false, 1, 6, 3, 500, 128,
      {{"BM", 128},
       {"BN", 128},
       {"num_warps", 8},
       {"num_stages", 2},
       {"warp-specialize", 1},
       {"cluster", 2}});
  gqa(out, rng, false, 1, 4, 2, 256, 64,
      {{"BM", 64}, {"BN", 64}, {"num_warps", 4}, {"cluster", 2}});
  // The second dot one iteration late (tile-rotate-dots), full and causal.
  const std::string threeWide = "three stages of K and V blocks of 128x128 with Q need 224 KiB of "
                                "shared memory, more than sm_80 has";
  size_t from = out.size();
  gqa(out, rng, false, 1, 8, 2, 300, 128,
      {{"BM", 128},
       {"BN", 128},
       {"num_warps", 8},
       {"num_stages", 3},
       {"warp-specialize", 1},
       {"rotate-dots", 1}});
  onlySm90(out, from, threeWide);
  gqa(out, rng, true, 2, 4, 1, 257, 64,
      {{"BM", 128},
       {"BN", 64},
       {"num_warps", 8},
       {"num_stages", 3},
       {"warp-specialize", 1},
       {"rotate-dots", 1}});
  // A group's heads stacked in one program: groups of 4 and of 3 (which does
  // not divide BM: the last rows are masked off), multi-query causal, with the
  // producer warpgroup and the second dot one iteration late.
  gqa(out, rng, false, 2, 8, 2, 200, 128, {}, true);
  gqa(out, rng, true, 1, 6, 2, 333, 64, {}, true);
  gqa(out, rng, true, 1, 4, 1, 150, 64, {{"BM", 64}, {"BN", 64}, {"num_warps", 4}}, true);
  from = out.size();
  gqa(out, rng, false, 1, 8, 2, 300, 128,
      {{"BM", 128}, {"BN", 128}, {"num_warps", 8}, {"num_stages", 3}, {"warp-specialize", 1}},
      true);
  onlySm90(out, from, threeWide);
  gqa(out, rng, true, 2, 8, 2, 257, 64,
      {{"BM", 128},
       {"BN", 64},
       {"num_warps", 8},
       {"num_stages", 3},
       {"warp-specialize", 1},
       {"rotate-dots", 1}},
      true);
  // Stacked groups with the warpgroups in turns (tile-ping-pong), rotated.
  from = out.size();
  gqa(out, rng, true, 1, 8, 2, 300, 128,
      {{"BM", 128},
       {"BN", 128},
       {"num_warps", 8},
       {"num_stages", 3},
       {"warp-specialize", 1},
       {"rotate-dots", 1},
       {"ping-pong", 1}},
      true);
  onlySm90(out, from, threeWide);
  // Packed batches: sequences shorter than one block, of one row, ragged,
  // and longer than the rest; full and causal, D 64 and 128.
  varlen(out, rng, false, {100, 257, 1, 64}, 2, 64);
  varlen(out, rng, true, {300, 17, 129}, 3, 128);
  varlen(out, rng, true, {200, 64, 333}, 2, 64,
         {{"BM", 128}, {"BN", 128}, {"num_warps", 8}, {"num_stages", 3}});
  // Clusters of two programs along the query blocks (sm_90 with the producer
  // warpgroup): the key/value blocks multicast, per query head and per
  // stacked group.
  std::map<std::string, int64_t> cl = {
      {"BM", 128},   {"BN", 128}, {"num_warps", 8}, {"num_stages", 2}, {"warp-specialize", 1},
      {"cluster", 2}};
  gqa(out, rng, false, 1, 8, 2, 1000, 128, cl);
  gqa(out, rng, false, 1, 8, 2, 1000, 128, cl, true);
}
