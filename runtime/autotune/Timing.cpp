//===- Timing.cpp - timing a tuning space on the GPU ------------*- C++ -*-===//
//
// timeAll (Tuner.h): random inputs of the request's sizes (Inputs.cpp), each
// compiled candidate launched through the runtime and timed with CUDA events
// (LaunchTimer) within the search's budget, slow ones abandoned early, and
// every candidate's outputs compared with the reference candidate's (the
// default), so a configuration that computes something else never wins.
//
//===----------------------------------------------------------------------===//
#include "lib/Support/Errors.h"
#include "runtime/autotune/Tuner.h"

#include "dialects/Tile/Knobs.h"
#include "dialects/Tile/TileDialect.h"
#include "runtime/autotune/Model.h"
#include "runtime/cuda/Nvrtc.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

using namespace tessera;
using namespace tessera::autotune;

namespace {
double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

namespace {

/// The first candidate's outputs, against which the others are checked, with
/// each tensor's RMS (computed once: outputs of 4096^3 matmuls are 16M elements).
struct Reference {
  std::vector<std::vector<char>> bytes;
  std::vector<double> rms;
};

/// Runs `fn(begin, end, part)` over `n` elements split among the host's
/// threads (one part when `n` is small).
void inParallel(size_t n, const std::function<void(size_t, size_t, unsigned)> &fn,
                unsigned &parts) {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  parts = n < (1u << 20) ? 1u : std::min(hw, 16u);
  std::vector<std::thread> pool;
  for (unsigned p = 1; p < parts; ++p)
    pool.emplace_back(fn, n * p / parts, n * (p + 1) / parts, p);
  fn(0, n / parts, 0);
  for (auto &t : pool)
    t.join();
}

Reference makeReference(const Inputs &in, std::vector<std::vector<char>> bytes) {
  Reference ref;
  ref.rms.assign(bytes.size(), 0);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i].empty())
      continue;
    DType t = in.dtypes[i];
    size_t w = dtypeBytes(t), n = bytes[i].size() / w;
    std::vector<double> sums(16, 0);
    unsigned parts;
    inParallel(
        n,
        [&](size_t b, size_t e, unsigned part) {
          double s = 0;
          for (size_t k = b; k < e; ++k) {
            double r = decodeElement(t, bytes[i].data() + k * w);
            if (std::isfinite(r))
              s += r * r / n;
          }
          sums[part] = s;
        },
        parts);
    double rms = 0;
    for (unsigned p = 0; p < parts; ++p)
      rms += sums[p];
    ref.rms[i] = std::sqrt(rms);
  }
  ref.bytes = std::move(bytes);
  return ref;
}

/// "" when `got` matches the reference within the dtype's tolerance (relative
/// to the element and to the tensor's RMS).
std::string compareOutputs(const Inputs &in, const jit::KernelSignature &sig,
                           const std::vector<std::vector<char>> &got, const Reference &ref) {
  const std::vector<std::vector<char>> &want = ref.bytes;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].empty() || (got[i] == in.host[i] && want[i] == in.host[i])) // an input, untouched
      continue;
    DType t = in.dtypes[i];
    size_t w = dtypeBytes(t), n = got[i].size() / w;
    double rms = ref.rms[i];
    double tol = t == DType::BF16  ? 2e-2
                 : t == DType::F16 ? 4e-3
                 : t == DType::F32 ? 1e-3
                 : t == DType::F64 ? 1e-9
                                   : 0;
    std::vector<size_t> bads(16, 0), firsts(16, SIZE_MAX);
    unsigned parts;
    inParallel(
        n,
        [&](size_t b, size_t e, unsigned part) {
          size_t bad = 0, first = SIZE_MAX;
          for (size_t k = b; k < e; ++k) {
            double g = decodeElement(t, got[i].data() + k * w),
                   r = decodeElement(t, want[i].data() + k * w);
            bool ok = (std::isnan(g) && std::isnan(r)) || g == r ||
                      std::fabs(g - r) <= tol * (std::fabs(r) + rms);
            if (!ok && bad++ == 0)
              first = k;
          }
          bads[part] = bad;
          firsts[part] = first;
        },
        parts);
    size_t bad = 0, first = SIZE_MAX;
    for (unsigned p = 0; p < parts; ++p) {
      bad += bads[p];
      first = std::min(first, firsts[p]);
    }
    if (bad)
      return "'" + sig.params[i].name + "' differs from the reference configuration's in " +
             std::to_string(bad) + " of " + std::to_string(n) + " elements (first at " +
             std::to_string(first) + ")";
  }
  return "";
}

/// Configurations whose outputs agree, and the outputs of the first of them.
struct OutputGroup {
  Reference ref;
  std::vector<size_t> members; // candidate indices, in the order they ran
};

/// Groups kept apart before a configuration that agrees with none is failed
/// (each keeps a copy of the outputs).
constexpr size_t kMaxOutputGroups = 4;

/// Takes the largest group of agreeing configurations as right: the other
/// groups' configurations fail with "wrong output", their timings dropped,
/// and the winner is the fastest of the majority. A wrong first configuration
/// no longer makes every right one fail (nor wins itself). On a tie nothing
/// wins (`tied`; the groups are shown against the one that ran first): the
/// outputs depend on the configuration and nothing says which is right.
void decideByMajority(const Inputs &in, const jit::KernelSignature &sig,
                      std::vector<OutputGroup> &groups, std::vector<Candidate> &cands,
                      TimingSummary &sum) {
  if (groups.empty())
    return;
  size_t major = 0;
  for (size_t g = 1; g < groups.size(); ++g)
    if (groups[g].members.size() > groups[major].members.size())
      major = g;
  for (size_t g = 0; g < groups.size(); ++g)
    if (g != major && groups[g].members.size() == groups[major].members.size())
      sum.tied = true;
  sum.checkedAgainst = (int)groups[major].members.front();
  sum.agreed = (int)groups[major].members.size() - 1;
  sum.groups = (int)groups.size();
  sum.best = -1;
  double best = INFINITY;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::string bad;
    if (g != major)
      bad = "wrong output: " + compareOutputs(in, sig, groups[g].ref.bytes, groups[major].ref) +
            " (the reference agrees with " + std::to_string(groups[major].members.size()) +
            " configuration(s), this one with " + std::to_string(groups[g].members.size()) + ")";
    for (size_t i : groups[g].members) {
      Candidate &c = cands[i];
      if (g != major) {
        c.failed = bad;
        c.timed = false;
        ++sum.disagreed;
      } else if (c.timed && c.ms < best && !sum.tied) {
        best = c.ms;
        sum.best = (int)i;
      }
    }
  }
}

} // namespace

/// Flush::Clean's kernel: every thread reads 16-byte words of the buffer in a
/// grid-stride loop and folds them; the result is stored only if it equals a
/// marker, so the reads cannot be dropped and nothing is written in practice.
static constexpr const char *kScrubSource = R"(
extern "C" __global__ void tessera_l2_scrub(const uint4 *p, unsigned long long n, unsigned *sink) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u)
    *sink = acc;
}
)";

llvm::StringRef tessera::autotune::l2ScrubSource() { return kScrubSource; }

llvm::Expected<LaunchTimer> LaunchTimer::create(Flush mode) {
  auto flush = cuda::DeviceBuffer::allocate(256u << 20);
  if (!flush)
    return flush.takeError();
  auto a = cuda::Event::create();
  if (!a)
    return a.takeError();
  auto b = cuda::Event::create();
  if (!b)
    return b.takeError();
  LaunchTimer t(std::move(*flush), std::move(*a), std::move(*b));
  if (mode == Flush::Clean) {
    auto ptx = cuda::compileCuda(kScrubSource, "l2_scrub.cu", "compute_80");
    if (!ptx)
      return ptx.takeError();
    auto mod = cuda::Module::load(ptx->ptx);
    if (!mod)
      return mod.takeError();
    auto fn = mod->function("tessera_l2_scrub");
    if (!fn)
      return fn.takeError();
    auto sink = cuda::DeviceBuffer::allocate(4);
    if (!sink)
      return sink.takeError();
    t.scrub_ = *fn;
    t.scrubModule_ = std::move(*mod);
    t.sink_ = std::move(*sink);
  }
  return std::move(t);
}

llvm::Error LaunchTimer::emptyL2(unsigned char byte) {
  if (llvm::Error e = flush_.fill(byte))
    return e;
  if (!scrub_)
    return llvm::Error::success();
  CUdeviceptr p = flush_.get(), sink = sink_->get();
  unsigned long long n = flush_.size() / 16;
  void *params[] = {&p, &n, &sink};
  return cuda::check(
      cuda::driver()->cuLaunchKernel(scrub_, 1024, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
      "cuLaunchKernel(tessera_l2_scrub)");
}

llvm::Expected<Timing>
LaunchTimer::time(const std::function<llvm::Error()> &launch, int warmup, int reps,
                  const std::function<std::string(const std::vector<double> &, double)> &stop) {
  for (int w = 0; w < warmup; ++w)
    if (llvm::Error e = launch())
      return std::move(e);
  Timing t;
  auto start = std::chrono::steady_clock::now();
  std::vector<double> times;
  while ((int)times.size() < reps) {
    if (llvm::Error e = emptyL2((unsigned char)times.size()))
      return std::move(e);
    if (llvm::Error e = a_.record(nullptr))
      return std::move(e);
    if (llvm::Error e = launch())
      return std::move(e);
    if (llvm::Error e = b_.record(nullptr))
      return std::move(e);
    auto ms = b_.elapsedSince(a_);
    if (!ms)
      return ms.takeError();
    times.push_back(*ms);
    if (stop)
      if (std::string why = stop(times, secondsSince(start)); !why.empty()) {
        t.stopped = why;
        break;
      }
  }
  std::sort(times.begin(), times.end());
  t.reps = (int)times.size();
  t.ms = times[times.size() / 2];
  t.minMs = times.front();
  t.maxMs = times.back();
  return t;
}

llvm::Expected<TimingSummary>
tessera::autotune::timeAll(jit::Runtime &rt, const jit::Program &program, const TuneRequest &req,
                           std::vector<Candidate> &cands, const TimingOptions &opts,
                           const Progress &progress) {
  auto t0 = std::chrono::steady_clock::now();
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  auto in = makeInputs(*sig, req.dims, opts.scalars, opts.seed, opts.given);
  if (!in)
    return in.takeError();
  const cuda::DriverAPI &api = *cuda::driver();
  auto sync = [&]() { return cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"); };
  auto timer = LaunchTimer::create();
  if (!timer)
    return timer.takeError();
  TimingSummary sum;
  // Configurations grouped by the outputs they computed (within the dtype's
  // tolerance of each group's first); the largest group is taken as right.
  std::vector<OutputGroup> groups;
  double best = INFINITY;
  for (size_t i = 0; i < cands.size(); ++i) {
    Candidate &c = cands[i];
    if (!c.compiled || c.duplicateOf >= 0) {
      if (progress)
        progress(i + 1, cands.size(), c);
      continue;
    }
    if (secondsSince(t0) > opts.budgetSeconds) {
      c.abandoned = "the search's time budget ran out before this configuration";
      sum.budgetExhausted = true;
      if (progress)
        progress(i + 1, cands.size(), c);
      continue;
    }
    jit::LaunchOptions lo;
    lo.params = c.config.params;
    lo.useTuned = false;
    auto fail = [&](llvm::Error e) {
      c.failed = llvm::toString(std::move(e));
      c.compiled = false;
    };
    // One checked run on fresh inputs.
    if (llvm::Error e = restore(*in)) {
      fail(std::move(e));
      continue;
    }
    auto info = rt.launch(program, sig->name, in->args, lo);
    if (!info) {
      fail(info.takeError());
      continue;
    }
    if (llvm::Error e = sync()) {
      fail(std::move(e));
      decideByMajority(*in, *sig, groups, cands, sum); // of what ran before it
      return sum;                                      // the context is unusable after a fault
    }
    if (auto res = rt.resources(info->key)) {
      c.registers = res->registers;
      c.spillBytes = res->localBytes;
      c.sharedBytes = info->sharedBytes + res->staticShared;
    } else {
      llvm::consumeError(res.takeError());
    }
    auto outs = outputs(*in);
    if (!outs)
      return outs.takeError();
    size_t g = 0;
    std::string firstBad;
    for (; g < groups.size(); ++g) {
      std::string bad = compareOutputs(*in, *sig, *outs, groups[g].ref);
      if (bad.empty())
        break;
      if (g == 0)
        firstBad = bad;
    }
    if (g == groups.size()) {
      if (groups.size() == kMaxOutputGroups) {
        c.failed = "wrong output: " + firstBad + ", and agrees with no configuration checked";
        ++sum.disagreed;
        if (progress)
          progress(i + 1, cands.size(), c);
        continue;
      }
      groups.push_back({makeReference(*in, std::move(*outs)), {}});
    }
    groups[g].members.push_back(i);
    // Timing: warm-up, then single launches between events, L2 flushed first;
    // candidates far slower than the best so far, or past their budget, stop early.
    auto timing =
        timer->time([&] { return rt.launch(program, sig->name, in->args, lo).takeError(); },
                    opts.warmup, opts.reps,
                    [&](const std::vector<double> &times, double seconds) {
                      std::vector<double> sorted = times;
                      std::sort(sorted.begin(), sorted.end());
                      double med = sorted[sorted.size() / 2];
                      if (times.size() >= 3 && med > opts.abandonFactor * best)
                        return "abandoned after " + std::to_string(times.size()) +
                               " runs: " + std::to_string(med / best).substr(0, 4) +
                               "x slower than the best so far";
                      if (seconds > opts.perConfigSeconds)
                        return "the per-configuration budget ran out after " +
                               std::to_string(times.size()) + " runs";
                      return std::string();
                    });
    if (!timing)
      return timing.takeError();
    c.abandoned = timing->stopped;
    c.timed = true;
    c.reps = timing->reps;
    c.ms = timing->ms;
    c.minMs = timing->minMs;
    c.maxMs = timing->maxMs;
    if (c.ms < best) {
      best = c.ms;
      sum.best = (int)i;
    }
    if (progress)
      progress(i + 1, cands.size(), c);
  }
  decideByMajority(*in, *sig, groups, cands, sum);
  // Duplicates share their original's timing.
  for (Candidate &c : cands)
    if (c.duplicateOf >= 0 && cands[c.duplicateOf].timed) {
      const Candidate &o = cands[c.duplicateOf];
      c.timed = true;
      c.ms = o.ms, c.minMs = o.minMs, c.maxMs = o.maxMs, c.reps = 0;
      c.registers = o.registers, c.spillBytes = o.spillBytes, c.sharedBytes = o.sharedBytes;
    }
  sum.seconds = secondsSince(t0);
  return sum;
}
