//===- CasesDecode.cpp - decode attention over a paged KV cache -----------===//
//
// examples/decode_attention.tile, each kernel on its own: decode_partial over
// a KV cache whose pages are shuffled through the block table (entries past a
// sequence's length hold pages far out of range, so a read there would show),
// with ragged context lengths (0 included), page sizes below, equal to and
// above the key block, one and several new tokens per sequence (speculative
// decoding: R = T * G rows, 12 of them padded to 16), 1 to 3 splits and 2 to 4
// pipeline stages (the paged K and V gathers copied ahead by cp.async), and
// one query head per KV head (a single row);
// decode_combine over random partials, some splits empty (-inf).
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace tessera;
using namespace tessera::testutil;

namespace {

struct PartialShape {
  int64_t b, t, hq, hk, d, ps, s, bn, stages;
  std::vector<int64_t> lens;
};

void partial(std::vector<ProgramCase> &out, std::mt19937 &rng, const PartialShape &p) {
  int64_t g = p.hq / p.hk, maxp = 0, pages = 0;
  for (int64_t len : p.lens) {
    maxp = std::max(maxp, (len + p.ps - 1) / p.ps);
    pages += (len + p.ps - 1) / p.ps;
  }
  maxp += 1; // one entry past the longest sequence: unread
  pages += 3;
  // The pages of every sequence, shuffled over the cache.
  std::vector<int64_t> order(pages);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  HostTensor table(DType::I32, {p.b, maxp}), lens(DType::I32, {p.b});
  size_t next = 0;
  for (int64_t i = 0; i < p.b; ++i) {
    lens.v[i] = (double)p.lens[i];
    int64_t used = (p.lens[i] + p.ps - 1) / p.ps;
    for (int64_t j = 0; j < maxp; ++j)
      table.v[i * maxp + j] = j < used ? (double)order[next++] : (double)(1 << 30);
  }
  std::string name = "decode_partial_b" + std::to_string(p.b) + "_t" + std::to_string(p.t) + "_g" +
                     std::to_string(g) + "_d" + std::to_string(p.d) + "_ps" + std::to_string(p.ps) +
                     "_s" + std::to_string(p.s) + "_bn" + std::to_string(p.bn) + "_st" +
                     std::to_string(p.stages);
  ProgramCase c{name, "examples/decode_attention.tile", "decode_partial"};
  c.params = {{"BN", p.bn}, {"num_stages", p.stages}};
  double scale = 1.0 / std::sqrt((double)p.d);
  c.args = {in("q", rnd(rng, DType::BF16, {p.b, p.t, p.hq, p.d}, -2, 2)),
            in("k_cache", rnd(rng, DType::BF16, {pages, p.ps, p.hk, p.d}, -2, 2)),
            in("v_cache", rnd(rng, DType::BF16, {pages, p.ps, p.hk, p.d})),
            in("block_table", table),
            in("ctx_len", lens),
            output("o_part", DType::F32, {p.b, p.s, p.t, p.hq, p.d}),
            output("lse_part", DType::F32, {p.b, p.s, p.t, p.hq}),
            scalar("scale", scale)};
  c.check = [=](const std::vector<CaseArg> &a) {
    const HostTensor &q = a[0].t, &kc = a[1].t, &vc = a[2].t;
    std::vector<double> o(p.b * p.s * p.t * p.hq * p.d, 0.0), lse(p.b * p.s * p.t * p.hq);
    auto at = [&](const HostTensor &cache, int64_t seq, int64_t tok, int64_t h, int64_t e) {
      int64_t page = (int64_t)table.v[seq * maxp + tok / p.ps];
      return cache.v[((page * p.ps + tok % p.ps) * p.hk + h) * p.d + e];
    };
    for (int64_t i = 0; i < p.b; ++i) {
      int64_t len = p.lens[i], blocks = (len + p.bn - 1) / p.bn;
      int64_t per = (blocks + p.s - 1) / p.s;
      for (int64_t s = 0; s < p.s; ++s) {
        int64_t lo = s * per * p.bn, hi = std::min(std::min(s * per + per, blocks) * p.bn, len);
        for (int64_t t = 0; t < p.t; ++t)
          for (int64_t hq = 0; hq < p.hq; ++hq) {
            int64_t h = hq / g, row = ((i * p.s + s) * p.t + t) * p.hq + hq;
            int64_t end = std::min(hi, len - p.t + 1 + t);
            std::vector<double> x;
            for (int64_t j = lo; j < end; ++j) {
              double dot = 0;
              for (int64_t e = 0; e < p.d; ++e)
                dot += q.v[((i * p.t + t) * p.hq + hq) * p.d + e] * at(kc, i, j, h, e);
              x.push_back(dot * scale * 1.4426950408889634);
            }
            if (x.empty()) {
              lse[row] = -INFINITY;
              continue;
            }
            double top = *std::max_element(x.begin(), x.end()), sum = 0;
            for (double &v : x)
              sum += (v = std::exp2(v - top));
            lse[row] = top + std::log2(sum);
            for (int64_t e = 0; e < p.d; ++e) {
              double acc = 0;
              for (size_t j = 0; j < x.size(); ++j)
                acc += x[j] * at(vc, i, lo + j, h, e);
              o[row * p.d + e] = acc / sum;
            }
          }
      }
    }
    // P rounds to bf16 before the second dot: about 2^-9 relative per weight.
    std::string err = closeTo("o_part", a[5].t, o, 1e-2, 1e-2);
    return err.empty() ? closeTo("lse_part", a[6].t, lse, 2e-3, 1e-4) : err;
  };
  out.push_back(std::move(c));
}

void combine(std::vector<ProgramCase> &out, std::mt19937 &rng, int64_t b, int64_t s, int64_t t,
             int64_t hq, int64_t d) {
  ProgramCase c{"decode_combine_b" + std::to_string(b) + "_s" + std::to_string(s) + "_t" +
                    std::to_string(t) + "_h" + std::to_string(hq) + "_d" + std::to_string(d),
                "examples/decode_attention.tile", "decode_combine"};
  HostTensor lse = rnd(rng, DType::F32, {b, s, t, hq}, -20, 20);
  std::bernoulli_distribution empty(0.25);
  for (double &x : lse.v)
    if (empty(rng))
      x = -INFINITY;
  for (int64_t i = 0; i < s; ++i) // (0, 0, 0, 0): no split saw a key
    lse.v[i * t * hq] = -INFINITY;
  c.args = {in("o_part", rnd(rng, DType::F32, {b, s, t, hq, d})), in("lse_part", lse),
            output("o", DType::BF16, {b, t, hq, d})};
  c.check = [=](const std::vector<CaseArg> &a) {
    std::vector<double> want(b * t * hq * d, 0.0);
    for (int64_t i = 0; i < b; ++i)
      for (int64_t r = 0; r < t * hq; ++r) {
        double top = -INFINITY, total = 0;
        for (int64_t j = 0; j < s; ++j)
          top = std::max(top, a[1].t.v[(i * s + j) * t * hq + r]);
        if (top == -INFINITY)
          continue;
        std::vector<double> w(s);
        for (int64_t j = 0; j < s; ++j)
          total += (w[j] = std::exp2(a[1].t.v[(i * s + j) * t * hq + r] - top));
        for (int64_t e = 0; e < d; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < s; ++j)
            acc += w[j] * a[0].t.v[((i * s + j) * t * hq + r) * d + e];
          want[(i * t * hq + r) * d + e] = acc / total;
        }
      }
    return closeTo("o", a[2].t, want, 1e-5, 8e-3); // bf16 output
  };
  out.push_back(std::move(c));
}

} // namespace

void tessera::testutil::addDecodeCases(std::vector<ProgramCase> &out, std::mt19937 &rng) {
  // Plain decode, G = 4: page 16 under a 32-key block, a sequence with no keys.
  partial(out, rng, {3, 1, 8, 2, 64, 16, 1, 32, 3, {77, 0, 300}});
  // Split in 3, pages of 1 token, 64-key blocks (splits left empty by short sequences).
  partial(out, rng, {2, 1, 8, 2, 64, 1, 3, 64, 4, {200, 33}});
  // Speculative: 3 new tokens (12 rows, padded to 16), pages of 128 over 32-key blocks, D=128.
  partial(out, rng, {2, 3, 8, 2, 128, 128, 2, 32, 2, {150, 5}});
  combine(out, rng, 3, 5, 1, 8, 64);
  combine(out, rng, 2, 1, 2, 4, 128);
  // As many query heads as KV heads: one row per program, a dot of M = 1.
  partial(out, rng, {2, 1, 2, 2, 64, 16, 2, 32, 3, {50, 17}});
}
