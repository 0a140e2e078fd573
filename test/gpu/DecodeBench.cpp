//===- DecodeBench.cpp - decode attention on a paged KV cache ---*- C++ -*-===//
//
// tessera-gpu-bench --decode [DIR]: examples/decode_attention.tile
// (decode_partial, then decode_combine) on the shapes of the language issue's
// acceptance: 32 query heads over 8 KV heads, D = 128, bf16, one new token per
// sequence; B = 64 with context lengths uniform in 1..8192 and pages of 16, 1
// and 256 tokens; B = 1 with 32768 tokens. Each is split over the keys into
// enough programs for about 1, 2 and 4 per multiprocessor (one split at
// least). Pages are shuffled through the block table. Every configuration of
// the tune clause (BN x num_warps x num_stages) is timed at each split count,
// the pair of launches per sample: CUDA events, L2 flushed before each
// (autotune::LaunchTimer), median. Effective bandwidth counts the bytes the
// context lengths require (sum of lengths x K and V x KV heads x D x 2 bytes)
// against a device-to-device copy measured in the same run. Outputs of the
// best configuration are checked against a float64 reference on four
// sequences (every head). With a directory argument, the context lengths of
// each scenario are written there (decode-lens-<name>.txt) for the PyTorch
// SDPA comparison of scripts/device-run. Further arguments name other .tile
// files with the same two kernels and parameters (variants of the example's
// schedule), run after the example on the same scenarios, their lines
// labelled with the file's stem. TESSERA_DECODE_ONLY="<scenario> <config>" (as a
// line prints them, e.g. "b64_ps16 S=2 BN=64 num_warps=4 num_stages=4") runs that
// configuration alone, for a profiler (ncu --launch-skip 3 --launch-count 1).
// TESSERA_FLUSH=clean empties L2 with the memset and then a read of the
// buffer (autotune::Flush::Clean), so that no dirty line of the flush is
// written back while a sample runs; the header line names the flush.
//
//===----------------------------------------------------------------------===//
#include "test/gpu/BenchUtil.h"

#include "runtime/autotune/Tuner.h"
#include "runtime/bench/Compare.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>

using namespace tessera;
using namespace tessera::gputest;

namespace {

/// TESSERA_FLUSH=clean: L2 emptied without dirty lines (see the file comment).
autotune::Flush flushMode() {
  const char *f = getenv("TESSERA_FLUSH");
  return f && std::string(f) == "clean" ? autotune::Flush::Clean : autotune::Flush::Write;
}

/// bf16 bits of uniform values in [-2, 2), fast enough for a gigabyte.
struct Bf16Source {
  uint64_t state;
  uint16_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    float f = (float)((z >> 40) * (1.0 / (1 << 24))) * 4.0f - 2.0f;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16); // nearest even
  }
};
double bf16Value(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

struct Scenario {
  std::string name;
  int64_t b, ps;
  std::vector<int64_t> lens;
};

constexpr int64_t kHQ = 32, kHK = 8, kD = 128;

struct Device {
  cuda::DeviceBuffer buf;
  static Device of(const void *data, size_t bytes) {
    Device d{must(cuda::DeviceBuffer::allocate(std::max<size_t>(bytes, 16)))};
    must(d.buf.copyFromHost(data, bytes));
    return d;
  }
  static Device zeros(size_t bytes) {
    Device d{must(cuda::DeviceBuffer::allocate(std::max<size_t>(bytes, 16)))};
    must(d.buf.fill(0xFF)); // poisoned: what is never written shows as NaN
    return d;
  }
};

/// Runs one scenario; false when a check fails.
bool run(jit::Runtime &rt, const jit::Program &prog, const Scenario &sc, double copyTBps,
         const std::string &lensDir, const std::string &label) {
  int64_t b = sc.b, ps = sc.ps;
  // Splits: about 1, 2 and 4 programs per multiprocessor (one split at least).
  std::vector<int64_t> splits;
  for (int64_t per : {1, 2, 4}) {
    int64_t n = std::max<int64_t>(1, (per * rt.multiprocessors() + b * kHK - 1) / (b * kHK));
    if (splits.empty() || splits.back() != n)
      splits.push_back(n);
  }
  int64_t maxS = splits.back();
  int64_t maxp = 0, pages = 0;
  double required = 0;
  for (int64_t len : sc.lens) {
    maxp = std::max(maxp, (len + ps - 1) / ps);
    pages += (len + ps - 1) / ps;
    required += (double)len * 2 * kHK * kD * 2;
  }
  std::mt19937 rng(7);
  std::vector<int32_t> order(pages);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int32_t> table(b * maxp, 0), lens(b);
  size_t next = 0;
  for (int64_t i = 0; i < b; ++i) {
    lens[i] = (int32_t)sc.lens[i];
    for (int64_t j = 0; j < (sc.lens[i] + ps - 1) / ps; ++j)
      table[i * maxp + j] = order[next++];
  }
  size_t cacheElts = (size_t)pages * ps * kHK * kD;
  std::vector<uint16_t> kh(cacheElts), vh(cacheElts), qh(b * kHQ * kD);
  Bf16Source src{0x1234 + (uint64_t)ps};
  for (auto *v : {&kh, &vh, &qh})
    for (uint16_t &x : *v)
      x = src.next();
  Device q = Device::of(qh.data(), qh.size() * 2), k = Device::of(kh.data(), kh.size() * 2),
         v = Device::of(vh.data(), vh.size() * 2), bt = Device::of(table.data(), table.size() * 4),
         cl = Device::of(lens.data(), lens.size() * 4),
         op = Device::zeros((size_t)b * maxS * kHQ * kD * 4),
         lp = Device::zeros((size_t)b * maxS * kHQ * 4),
         o = Device::zeros((size_t)b * kHQ * kD * 2);
  double scale = 1 / std::sqrt((double)kD);
  // The arguments for `s` splits (the partial buffers hold the most splits).
  auto argsFor = [&](int64_t s) {
    std::vector<jit::Arg> partial = {
        jit::TensorArg{q.buf.get(), DType::BF16, {b, 1, kHQ, kD}, {}},
        jit::TensorArg{k.buf.get(), DType::BF16, {pages, ps, kHK, kD}, {}},
        jit::TensorArg{v.buf.get(), DType::BF16, {pages, ps, kHK, kD}, {}},
        jit::TensorArg{bt.buf.get(), DType::I32, {b, maxp}, {}},
        jit::TensorArg{cl.buf.get(), DType::I32, {b}, {}},
        jit::TensorArg{op.buf.get(), DType::F32, {b, s, 1, kHQ, kD}, {}},
        jit::TensorArg{lp.buf.get(), DType::F32, {b, s, 1, kHQ}, {}},
        jit::ScalarArg::of(scale)};
    std::vector<jit::Arg> combine = {partial[5], partial[6],
                                     jit::TensorArg{o.buf.get(), DType::BF16, {b, 1, kHQ, kD}, {}}};
    return std::pair{partial, combine};
  };
  auto timer = must(autotune::LaunchTimer::create(flushMode()));
  double best = INFINITY;
  std::string bestConfig;
  std::map<std::string, int64_t> bestParams;
  int64_t bestS = 1;
  for (int64_t s : splits) {
    // Named references, not a structured binding: the timed lambda captures them.
    auto args = argsFor(s);
    const std::vector<jit::Arg> &partialArgs = args.first, &combineArgs = args.second;
    for (int64_t bn : {32, 64, 128})
      for (int64_t warps : {4, 8})
        for (int64_t stages : {2, 3, 4}) {
          jit::LaunchOptions lo;
          lo.params = {{"BN", bn}, {"num_warps", warps}, {"num_stages", stages}};
          std::string config = "S=" + std::to_string(s) + " BN=" + std::to_string(bn) +
                               " num_warps=" + std::to_string(warps) +
                               " num_stages=" + std::to_string(stages);
          if (const char *only = std::getenv("TESSERA_DECODE_ONLY");
              only && sc.name + " " + config != only)
            continue;
          auto pair = [&]() -> llvm::Error {
            if (auto r = rt.launch(prog, "decode_partial", partialArgs, lo); !r)
              return r.takeError();
            if (auto r = rt.launch(prog, "decode_combine", combineArgs); !r)
              return r.takeError();
            return llvm::Error::success();
          };
          auto t = timer.time(pair, 3, 20);
          if (!t) {
            std::string why = llvm::toString(t.takeError());
            printf("BENCH decode%s %s %s: %s\n", label.c_str(), sc.name.c_str(), config.c_str(),
                   why.substr(0, why.find('\n')).c_str());
            continue;
          }
          printf("BENCH decode%s %s %s: %.4f ms (min %.4f) %.2f TB/s effective, %.1f%% of copy\n",
                 label.c_str(), sc.name.c_str(), config.c_str(), t->ms, t->minMs,
                 required / t->ms / 1e9, 100 * required / t->ms / 1e9 / copyTBps);
          if (t->ms < best) {
            best = t->ms;
            bestParams = lo.params;
            bestS = s;
            bestConfig = config;
          }
        }
  }
  if (!std::isfinite(best))
    return false;
  // Check the best configuration's output.
  jit::LaunchOptions lo;
  lo.params = bestParams;
  auto [partialArgs, combineArgs] = argsFor(bestS);
  must(op.buf.fill(0xFF));
  must(o.buf.fill(0xFF));
  must(rt.launch(prog, "decode_partial", partialArgs, lo).takeError());
  must(rt.launch(prog, "decode_combine", combineArgs).takeError());
  must(cuda::check(cuda::driver()->cuCtxSynchronize(), "cuCtxSynchronize"));
  std::vector<uint16_t> got(b * kHQ * kD);
  must(o.buf.copyToHost(got.data(), got.size() * 2));
  std::vector<int64_t> idx(b);
  std::iota(idx.begin(), idx.end(), 0);
  auto byLen = [&](int64_t x, int64_t y) { return sc.lens[x] < sc.lens[y]; };
  std::vector<int64_t> check = {0, b - 1, *std::min_element(idx.begin(), idx.end(), byLen),
                                *std::max_element(idx.begin(), idx.end(), byLen)};
  double worst = 0;
  for (int64_t i : check)
    for (int64_t hq = 0; hq < kHQ; ++hq) {
      int64_t h = hq / (kHQ / kHK), len = sc.lens[i];
      auto at = [&](const std::vector<uint16_t> &c, int64_t tok, int64_t e) {
        int64_t page = table[i * maxp + tok / ps];
        return bf16Value(c[((page * ps + tok % ps) * kHK + h) * kD + e]);
      };
      std::vector<double> x(len);
      double top = -INFINITY, sum = 0;
      for (int64_t j = 0; j < len; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < kD; ++e)
          dot += bf16Value(qh[(i * kHQ + hq) * kD + e]) * at(kh, j, e);
        top = std::max(top, x[j] = dot * scale);
      }
      for (double &w : x)
        sum += (w = std::exp(w - top));
      for (int64_t e = 0; e < kD; ++e) {
        double want = 0;
        for (int64_t j = 0; j < len; ++j)
          want += x[j] * at(vh, j, e);
        want = len ? want / sum : 0;
        double g = bf16Value(got[(i * kHQ + hq) * kD + e]);
        worst = std::isnan(g) ? INFINITY : std::max(worst, std::fabs(g - want));
      }
    }
  bool ok = worst < 2e-2;
  printf("BENCH decode%s %s best %s: %.4f ms, %.2f TB/s effective (%.1f%% of the %.2f TB/s copy), "
         "%.0f MB required; max abs err %.2e over 4 sequences%s\n",
         label.c_str(), sc.name.c_str(), bestConfig.c_str(), best, required / best / 1e9,
         100 * required / best / 1e9 / copyTBps, copyTBps, required / 1e6, worst,
         ok ? "" : " CHECK FAILED");
  if (!lensDir.empty() && label.empty()) {
    std::ofstream f(lensDir + "/decode-lens-" + sc.name + ".txt");
    for (int64_t len : sc.lens)
      f << len << "\n";
  }
  return ok;
}

} // namespace

int tessera::gputest::decodeBenchMain(const std::string &lensDir,
                                      const std::vector<std::string> &variants) {
  std::string dir = sourceDir();
  llvm::SmallString<128> cacheDir;
  if (llvm::sys::fs::createUniqueDirectory("tessera-decode-cache", cacheDir))
    return 1;
  jit::RuntimeOptions ro;
  ro.cacheDir = std::string(cacheDir);
  auto rt = must(jit::Runtime::create(ro));
  std::vector<std::pair<std::string, std::shared_ptr<jit::Program>>> progs;
  progs.emplace_back("", must(jit::Program::fromFile(dir + "/examples/decode_attention.tile")));
  for (const std::string &path : variants)
    progs.emplace_back(" " + llvm::sys::path::stem(path).str(), must(jit::Program::fromFile(path)));
  double copy = must(bench::measureCopyTBps());
  printf("BENCH decode device %s (%s): copy %.2f TB/s (1 GiB device to device, read + write); "
         "L2 flushed by %s\n",
         must(rt->context().name()).c_str(), rt->arch().c_str(), copy,
         flushMode() == autotune::Flush::Clean ? "a 256 MiB memset and a read of it"
                                               : "a 256 MiB memset");
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int64_t> len(1, 8192);
  std::vector<int64_t> lens(64);
  for (int64_t &l : lens)
    l = len(rng);
  bool ok = true;
  for (auto &[label, prog] : progs) {
    for (int64_t ps : {16, 1, 256})
      ok &= run(*rt, *prog, {"b64_ps" + std::to_string(ps), 64, ps, lens}, copy, lensDir, label);
    ok &= run(*rt, *prog, {"b1_ctx32768_ps16", 1, 16, {32768}}, copy, lensDir, label);
  }
  printf("BENCH decode %s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}
