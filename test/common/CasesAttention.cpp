//===- CasesAttention.cpp - attention variants beyond examples/attention --===//
//
// examples/gqa_attention.tile (grouped-query and multi-query attention, full
// and causal) against float64 references at ragged sequence lengths, with the
// producer warpgroup where sm_90a gives one, and its compute warpgroups taking
// turns. Tolerances as attention's: bf16
// inputs and output, f32 statistics.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <cmath>

using namespace tessera;
using namespace tessera::testutil;

namespace {

void gqa(std::vector<ProgramCase> &out, std::mt19937 &rng, bool causal, int64_t b, int64_t h,
         int64_t hk, int64_t n, int64_t d, std::map<std::string, int64_t> params = {}) {
  std::string name = std::string(causal ? "gqa_attention_causal" : "gqa_attention") + "_b" +
                     std::to_string(b) + "_h" + std::to_string(h) + "_hk" + std::to_string(hk) +
                     "_n" + std::to_string(n) + "_d" + std::to_string(d);
  for (auto &[p, v] : params)
    name += "_" +
            std::string(p == "num_warps"         ? "w"
                        : p == "num_stages"      ? "s"
                        : p == "warp-specialize" ? "ws"
                                                 : p) +
            std::to_string(v);
  ProgramCase c{name, "examples/gqa_attention.tile"};
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
  // The compute warpgroups taking turns (tile-pingpong).
  gqa(out, rng, true, 1, 8, 2, 300, 128,
      {{"BM", 128},
       {"BN", 128},
       {"num_warps", 8},
       {"num_stages", 2},
       {"warp-specialize", 1},
       {"pingpong", 1}});
}
