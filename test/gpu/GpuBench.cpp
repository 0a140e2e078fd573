//===- GpuBench.cpp - the runtime's figures on a GPU ------------*- C++ -*-===//
//
// tessera-gpu-bench: softmax bandwidth (f32 16384x8192 and bf16 32768x4096,
// each num_warps choice, beside a device-to-device copy of the same bytes),
// the first launch of a new specialization (compile, load), and the host time
// of a cached launch. Medians of CUDA-event timings after warm-up, on fresh
// random inputs, outputs checked against a float64 CPU reference (sampled rows).
// Prints one `BENCH` line per figure; exits 1 if a check fails. With --decode
// [DIR [FILE...]], decode attention instead (DecodeBench.cpp); with
// --first-launch, the first launches alone.
//
//===----------------------------------------------------------------------===//
#include "lib/Support/Clock.h"
#include "test/gpu/BenchUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

using namespace tessera;
using namespace tessera::gputest;

namespace {

/// Median milliseconds per call of `fn` (reps of `inner` back-to-back calls between events).
double medianMs(const std::function<void()> &fn, int warmup = 10, int reps = 15, int inner = 10) {
  for (int i = 0; i < warmup; ++i)
    fn();
  auto a = must(cuda::Event::create()), b = must(cuda::Event::create());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    must(a.record(nullptr));
    for (int i = 0; i < inner; ++i)
      fn();
    must(b.record(nullptr));
    t.push_back(must(b.elapsedSince(a)) / inner);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

bool checkSoftmaxRows(const DeviceTensor &x, const DeviceTensor &y, int64_t m, int64_t n,
                      double atol) {
  HostTensor got = must(y.download());
  for (int64_t r : {int64_t(0), m / 3, m - 1}) {
    double mx = -INFINITY, s = 0;
    for (int64_t c = 0; c < n; ++c)
      mx = std::max(mx, x.host.v[r * n + c]);
    for (int64_t c = 0; c < n; ++c)
      s += std::exp(x.host.v[r * n + c] - mx);
    for (int64_t c = 0; c < n; ++c) {
      double want = std::exp(x.host.v[r * n + c] - mx) / s, g = got.v[r * n + c];
      if (!(std::fabs(g - want) <= atol + 1e-2 * want)) {
        printf("CHECK FAILED softmax row %lld col %lld: got %g want %g\n", (long long)r,
               (long long)c, g, want);
        return false;
      }
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "--decode") {
    benchName = "tessera-gpu-bench --decode";
    return decodeBenchMain(argc > 2 ? argv[2] : "",
                           std::vector<std::string>(argv + std::min(argc, 3), argv + argc));
  }
  // --first-launch: section 2 alone (what an A/B of code generation settings needs).
  bool firstOnly = argc > 1 && std::string(argv[1]) == "--first-launch";
  std::mt19937 rng(42);
  llvm::SmallString<128> cacheDir;
  if (llvm::sys::fs::createUniqueDirectory("tessera-bench-cache", cacheDir))
    return 1;
  jit::RuntimeOptions ro;
  ro.cacheDir = std::string(cacheDir);
  auto rt = must(jit::Runtime::create(ro));
  printf("BENCH device %s (%s), driver %d, %s\n", must(rt->context().name()).c_str(),
         rt->arch().c_str(), cuda::driver()->version, jit::compilerVersion().c_str());
  bool ok = true;
  auto &api = *cuda::driver();

  // 1. Softmax bandwidth beside a copy of the same bytes.
  struct SmCase {
    const char *file;
    DType dtype;
    int64_t m, n;
  };
  for (SmCase c : firstOnly
                      ? std::vector<SmCase>{}
                      : std::vector<SmCase>{
                            SmCase{"examples/softmax.tile", DType::F32, 16384, 8192},
                            SmCase{"test/programs/softmax_bf16.tile", DType::BF16, 32768, 4096},
                            SmCase{"examples/softmax.tile", DType::F32, 32768, 4096}}) {
    auto prog = must(jit::Program::fromFile(sourceDir() + "/" + c.file));
    auto x = must(DeviceTensor::upload(HostTensor(c.dtype, {c.m, c.n}).random(rng, -4, 4)));
    auto y = must(DeviceTensor::poisoned(c.dtype, {c.m, c.n}));
    double bytes = 2.0 * x.host.bytes();
    auto dst = must(cuda::DeviceBuffer::allocate(x.host.bytes()));
    double copy = medianMs([&] {
      must(cuda::check(api.cuMemcpyDtoDAsync(dst.get(), x.buf.get(), x.host.bytes(), nullptr),
                       "cuMemcpyDtoDAsync"));
    });
    printf("BENCH copy %s %lldx%lld (read+write %.0f MB): %.3f ms %.2f TB/s\n",
           dtypeName(c.dtype).data(), (long long)c.m, (long long)c.n, bytes / 1e6, copy,
           bytes / copy / 1e9);
    for (int64_t warps : {4, 8, 16}) {
      jit::LaunchOptions lo;
      lo.params = {{"num_warps", warps}};
      std::vector<jit::Arg> args = {x.arg(), y.arg()};
      must(rt->launch(*prog, "", args, lo));
      must(cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"));
      bool good = checkSoftmaxRows(x, y, c.m, c.n, c.dtype == DType::F32 ? 1e-6 : 1e-3);
      ok &= good;
      double t = medianMs([&] { must(rt->launch(*prog, "", args, lo)); });
      printf("BENCH softmax %s %lldx%lld num_warps=%lld: %.3f ms %.2f TB/s (%.0f%% of copy)%s\n",
             dtypeName(c.dtype).data(), (long long)c.m, (long long)c.n, (long long)warps, t,
             bytes / t / 1e9, 100 * copy / t, good ? "" : " CHECK FAILED");
    }
  }

  // 2. First launch of new specializations: compile (frontend, codegen), load (the assembler:
  // ptxas or the driver's JIT), launch.
  struct First {
    const char *file;
    std::vector<int64_t> dims;
  };
  auto firstLaunch = [&](jit::Runtime &r, const char *what, const std::string &file,
                         std::vector<jit::Arg> args) {
    auto prog = must(jit::Program::fromFile(sourceDir() + "/" + file));
    auto t0 = std::chrono::steady_clock::now();
    auto info = must(r.launch(*prog, "", args));
    must(cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"));
    double ms = msSince(t0);
    printf("BENCH first launch %s %s: %.1f ms (compile %.1f ms%s, load %.1f ms%s; cost model "
           "%.1f%s, frontend %.1f, passes %.1f, LLVM %.1f, JIT %.1f, module %.1f ms; %s)\n",
           file.c_str(), what, ms, info.compileMs, info.fromDisk ? " from the disk cache" : "",
           info.loadMs,
           (info.cubinFromDisk ? ", cubin from the disk cache" : ", " + info.assembler).c_str(),
           info.modelMs, info.modelFromDisk ? " (its choice from the disk cache)" : "",
           info.frontendMs, info.passesMs, info.llvmMs, info.jitMs, info.moduleMs,
           info.config.c_str());
  };
  {
    // N=1500: BN=2048, a specialization section 1 did not compile.
    auto x = must(DeviceTensor::upload(HostTensor(DType::F32, {1000, 1500}).random(rng)));
    auto y = must(DeviceTensor::poisoned(DType::F32, {1000, 1500}));
    auto a = must(DeviceTensor::upload(HostTensor(DType::BF16, {1000, 1000}).random(rng)));
    auto cm = must(DeviceTensor::poisoned(DType::BF16, {1000, 1000}));
    std::vector<int64_t> qs = {1, 4, 1000, 128};
    auto q = must(DeviceTensor::upload(HostTensor(DType::BF16, qs).random(rng)));
    auto o = must(DeviceTensor::poisoned(DType::BF16, qs));
    std::vector<int64_t> qs64 = {1, 4, 1000, 64};
    auto q64 = must(DeviceTensor::upload(HostTensor(DType::BF16, qs64).random(rng)));
    auto o64 = must(DeviceTensor::poisoned(DType::BF16, qs64));
    firstLaunch(*rt, "(cold)", "examples/softmax.tile", {x.arg(), y.arg()});
    firstLaunch(*rt, "(cold)", "examples/matmul.tile", {a.arg(), a.arg(), cm.arg()});
    firstLaunch(*rt, "(cold) D=128", "examples/attention.tile",
                {q.arg(), q.arg(), q.arg(), o.arg(), jit::ScalarArg::of(0.1)});
    firstLaunch(*rt, "(cold) D=64", "examples/attention.tile",
                {q64.arg(), q64.arg(), q64.arg(), o64.arg(), jit::ScalarArg::of(0.1)});
    firstLaunch(*rt, "(cold) D=64", "examples/causal_attention.tile",
                {q64.arg(), q64.arg(), q64.arg(), o64.arg(), jit::ScalarArg::of(0.1)});
    // A new process with the same disk cache: no code generation.
    auto rt2 = must(jit::Runtime::create(ro));
    firstLaunch(*rt2, "(disk cache)", "examples/softmax.tile", {x.arg(), y.arg()});
    firstLaunch(*rt2, "(disk cache) D=128", "examples/attention.tile",
                {q.arg(), q.arg(), q.arg(), o.arg(), jit::ScalarArg::of(0.1)});
  }
  if (firstOnly) {
    printf("BENCH %s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
    return ok ? 0 : 1;
  }

  // 3. Host time of a cached launch (the launch call, asynchronous): 21
  // rounds of 200 launches, the median round's time per launch.
  auto hostUs = [&](const jit::Program &prog, const std::vector<jit::Arg> &args, const char *what,
                    unsigned maps) {
    jit::LaunchInfo first = must(rt->launch(prog, "", args));
    if (first.tensorMaps != maps) {
      printf("CHECK FAILED %s: %u tensor maps, expected %u\n", what, first.tensorMaps, maps);
      ok = false;
    }
    std::vector<double> perLaunchUs;
    for (int r = 0; r < 21; ++r) {
      must(cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"));
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i)
        must(rt->launch(prog, "", args));
      perLaunchUs.push_back(msSince(t0) * 1000 / 200);
    }
    std::sort(perLaunchUs.begin(), perLaunchUs.end());
    printf("BENCH cached launch host time (%s, Runtime::launch): median %.2f us, min %.2f us\n",
           what, perLaunchUs[perLaunchUs.size() / 2], perLaunchUs.front());
    // The floor: the same driver call without the runtime.
    std::optional<jit::Runtime::RawLaunch> raw = rt->lastLaunch();
    if (!raw) {
      printf("CHECK FAILED %s: no last launch\n", what);
      ok = false;
      return;
    }
    std::vector<double> rawUs;
    for (int r = 0; r < 21; ++r) {
      must(cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"));
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i)
        must(cuda::check(api.cuLaunchKernel(raw->fn, raw->grid[0], raw->grid[1], raw->grid[2],
                                            raw->threads, 1, 1, raw->sharedBytes, nullptr,
                                            raw->params, nullptr),
                         "cuLaunchKernel"));
      rawUs.push_back(msSince(t0) * 1000 / 200);
    }
    std::sort(rawUs.begin(), rawUs.end());
    printf(
        "BENCH cached launch host time (%s, cuLaunchKernel alone): median %.2f us, min %.2f us\n",
        what, rawUs[rawUs.size() / 2], rawUs.front());
  };
  {
    // A TMA matmul: two tensor maps looked up per launch.
    auto prog = must(jit::Program::fromFile(sourceDir() + "/examples/matmul.tile"));
    auto a = must(DeviceTensor::upload(HostTensor(DType::BF16, {128, 128}).random(rng)));
    auto c = must(DeviceTensor::poisoned(DType::BF16, {128, 128}));
    hostUs(*prog, {a.arg(), a.arg(), c.arg()}, "matmul 128^3, TMA on sm_90a",
           rt->arch() == "sm_90a" ? 2 : 0);
  }
  {
    auto prog = must(jit::Program::fromFile(sourceDir() + "/examples/vector_add.tile"));
    auto x = must(DeviceTensor::upload(HostTensor(DType::F32, {4096}).random(rng)));
    auto z = must(DeviceTensor::poisoned(DType::F32, {4096}));
    std::vector<jit::Arg> args = {x.arg(), x.arg(), z.arg()};
    hostUs(*prog, args, "vector_add N=4096", 0);
    must(cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"));
    HostTensor got = must(z.download());
    for (size_t i = 0; i < got.size(); ++i)
      if (got.v[i] != (double)(float)(2 * x.host.v[i])) {
        printf("CHECK FAILED vector_add element %zu\n", i);
        ok = false;
        break;
      }
  }
  printf("BENCH %s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}
