//===- RobustnessTests.cpp - the runtime under load and misuse --*- C++ -*-===//
//
// One runtime shared by eight threads, a million cached launches with flat
// host memory, a failed assert that leaves the context usable, and every way
// a launch is refused, each followed by a good launch. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "test/gpu/GpuFixture.h"

#include "test/common/Cases.h"

#include "lib/Target/PTX.h"

#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <unistd.h>

using namespace tessera;
using namespace tessera::gputest;

namespace {

/// A runtime of the test's own (the fixture's is shared), with no tuning
/// database and no disk cache, configured by `set`.
std::unique_ptr<jit::Runtime> ownRuntime(llvm::function_ref<void(jit::RuntimeOptions &)> set) {
  jit::RuntimeOptions ro;
  ro.tuningDB = "off";
  ro.cacheDir = "off";
  set(ro);
  auto rt = jit::Runtime::create(ro);
  if (!rt) {
    ADD_FAILURE() << llvm::toString(rt.takeError());
    return nullptr;
  }
  return std::move(*rt);
}

// One runtime shared by eight threads (Runtime.h, "Threads"): their first
// launches of one new kernel with the same sizes, all at once, compile it
// once; each thread launches two kernels 100 times on a stream of its own,
// with a scalar of its own, each result checked.
TEST_F(Gpu, ThreadsShareOneRuntime) {
  auto p = jit::Program::fromSource(
      "threads.tile", "kernel scale(x: tensor<f32, [N]>, y: tensor<f32, [N]>, a: f32)\n"
                      "  tune BLOCK in [128] grid [cdiv(N, BLOCK)] {\n"
                      "  let i = program_id(0);\n"
                      "  store(y, [i], a * load(x, [i], [BLOCK]));\n}\n"
                      "kernel shift(x: tensor<f32, [N]>, y: tensor<f32, [N]>, b: f32)\n"
                      "  tune BLOCK in [256] grid [cdiv(N, BLOCK)] {\n"
                      "  let i = program_id(0);\n"
                      "  store(y, [i], load(x, [i], [BLOCK]) + b);\n}\n");
  ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
  constexpr int kThreads = 8;
  auto &api = *cuda::driver();
  std::vector<DeviceTensor> xs, ys, zs;
  std::vector<CUstream> streams(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    int64_t n = 4000; // one launch signature for all: one compile
    xs.push_back(up(HostTensor(DType::F32, {n}).random(rng)));
    ys.push_back(poison(DType::F32, {n}));
    zs.push_back(poison(DType::F32, {n}));
    ASSERT_FALSE(
        (bool)cuda::check(api.cuStreamCreate(&streams[t], CU_STREAM_NON_BLOCKING), "stream"));
  }
  size_t before = runtime->loadedKernels();
  std::atomic<int> ready{0}, compiled{0};
  std::vector<std::string> errors(kThreads);
  auto work = [&](int t) {
    jit::LaunchOptions lo;
    lo.stream = streams[t];
    auto launch = [&](const char *kernel, DeviceTensor &out, double s) -> bool {
      auto info = runtime->launch(**p, kernel, {xs[t].arg(), out.arg(), jit::ScalarArg::of(s)}, lo);
      if (!info) {
        errors[t] = llvm::toString(info.takeError());
        return false;
      }
      compiled += info->compiled && std::string(kernel) == "scale";
      return true;
    };
    for (++ready; ready < kThreads;) // all at once
      std::this_thread::yield();
    for (int i = 0; i < 100; ++i)
      if (!launch("scale", ys[t], t + 1) || !launch("shift", zs[t], -t))
        return;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(work, t);
  for (std::thread &th : threads)
    th.join();
  ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "sync"));
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(errors[t], "");
    std::vector<double> scaled(xs[t].host.v), shifted(xs[t].host.v);
    for (double &v : scaled)
      v = (double)((float)(t + 1) * (float)v);
    for (double &v : shifted)
      v = (double)((float)v - (float)t);
    expectClose(ys[t], scaled, 0, 0);
    expectClose(zs[t], shifted, 0, 0);
    api.cuStreamDestroy(streams[t]);
  }
  // One specialization per kernel (N is not specialized): compiled once each.
  EXPECT_EQ(compiled.load(), 1);
  EXPECT_EQ(runtime->loadedKernels(), before + 2);
  std::printf("threads: %d threads on %d streams, %d launches of 2 kernels, %d compile(s), "
              "%zu error(s)\n",
              kThreads, kThreads, kThreads * 200, compiled.load(),
              (size_t)std::count_if(errors.begin(), errors.end(),
                                    [](const std::string &e) { return !e.empty(); }));
}

namespace {
/// This process's resident memory in KiB (/proc/self/statm), 0 where unknown.
int64_t residentKiB() {
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  long size = 0, resident = 0;
  int n = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : 0;
}
} // namespace

TEST_F(Gpu, AMillionCachedLaunchesKeepHostMemoryFlat) {
  // The soak: one kernel, launched a million times on two alternating buffer
  // pairs (the repeat path patches the pointers), synchronised every 10000
  // launches. Resident host memory after the first 10000 launches must not
  // grow by more than 1 MiB over the rest, and the last outputs must be right.
  auto p = jit::Program::fromSource(
      "soak.tile", "kernel axpy(x: tensor<f32, [N]>, y: tensor<f32, [N]>, a: f32)\n"
                   "  tune BLOCK in [256] grid [cdiv(N, BLOCK)] {\n"
                   "  let i = program_id(0);\n"
                   "  store(y, [i], a * load(x, [i], [BLOCK]) + 1.0);\n}\n");
  ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
  int64_t n = 1000;
  DeviceTensor x[2] = {up(HostTensor(DType::F32, {n}).random(rng)),
                       up(HostTensor(DType::F32, {n}).random(rng))};
  DeviceTensor y[2] = {poison(DType::F32, {n}), poison(DType::F32, {n})};
  auto &api = *cuda::driver();
  constexpr int64_t kLaunches = 1000000, kWarmup = 10000, kSync = 10000;
  int64_t warm = 0, compiles = 0;
  auto t0 = std::chrono::steady_clock::now(), t1 = t0;
  for (int64_t i = 0; i < kLaunches; ++i) {
    int b = i & 1;
    auto info = runtime->launch(**p, "axpy", {x[b].arg(), y[b].arg(), jit::ScalarArg::of(2.0)});
    ASSERT_TRUE((bool)info) << "launch " << i << ": " << llvm::toString(info.takeError());
    compiles += info->compiled;
    if ((i + 1) % kSync == 0)
      ASSERT_FALSE((bool)cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize"));
    if (i + 1 == kWarmup) {
      warm = residentKiB();
      t1 = std::chrono::steady_clock::now();
    }
  }
  int64_t after = residentKiB();
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count() /
      (kLaunches - kWarmup);
  for (int b = 0; b < 2; ++b) {
    std::vector<double> want(x[b].host.v);
    for (double &v : want)
      v = (double)(2.0f * (float)v + 1.0f);
    expectClose(y[b], want, 1e-6, 1e-6);
  }
  EXPECT_LE(compiles, 1);
  EXPECT_LE(after - warm, 1024) << "resident memory grew from " << warm << " KiB to " << after
                                << " KiB";
  std::printf("soak: %lld launches, %.2f us each after warm-up; resident memory %lld KiB after "
              "%lld launches, %lld KiB after %lld\n",
              (long long)kLaunches, us, (long long)warm, (long long)kWarmup, (long long)after,
              (long long)kLaunches);
}

TEST_F(Gpu, AFailedAssertIsAnErrorAndTheContextStaysUsable) {
  // A debug runtime of its own (the fixture's drops asserts): one bad index
  // fails the launch with the assert's site, kernel, program and message;
  // the next launch, with good indices, runs and gives the right rows.
  auto debug = ownRuntime([](jit::RuntimeOptions &ro) { ro.debug = true; });
  ASSERT_TRUE(debug);
  auto p = program("test/programs/asserts.tile");
  ASSERT_TRUE(p);
  int64_t t = 40, v = 50, d = 100;
  HostTensor idx(DType::I32, {t});
  for (int64_t i = 0; i < t; ++i)
    idx.v[i] = (double)((i * 7) % v);
  idx.v[20] = 60; // program 1 along axis 0 (16 rows each)
  auto table = up(HostTensor(DType::F32, {v, d}).random(rng));
  auto out = poison(DType::F32, {t, d});
  auto bad = up(idx);
  auto info = debug->launch(*p, "gather_rows", {bad.arg(), table.arg(), out.arg()});
  ASSERT_FALSE((bool)info);
  std::string err = llvm::toString(info.takeError());
  EXPECT_NE(err.find("asserts.tile:14:3: assertion failed in kernel 'gather_rows', program (1, "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("): an index outside the table"), std::string::npos) << err;
  // Without --debug the same launch runs (the assert is not compiled in).
  const char *env = getenv("TESSERA_DEBUG");
  if (!env || !*env || std::string(env) == "0")
    EXPECT_TRUE((bool)runtime->launch(*p, "gather_rows", {bad.arg(), table.arg(), out.arg()}));
  ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
  idx.v[20] = 3;
  auto good = up(idx);
  auto again = debug->launch(*p, "gather_rows", {good.arg(), table.arg(), out.arg()});
  ASSERT_TRUE((bool)again) << llvm::toString(again.takeError());
  std::vector<double> want(t * d);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < d; ++j)
      want[i * d + j] = table.host.v[(int64_t)idx.v[i] * d + j];
  expectClose(out, want, 0, 0);
}

TEST_F(Gpu, TimingsSayWhereAFirstLaunchsTimeWent) {
  // RuntimeOptions::timings: the first launch of a specialization prints its
  // stages (the cost model, frontend, passes, LLVM, the assembler, module load),
  // and LaunchInfo carries them; a repeat launch prints nothing.
  auto rt = ownRuntime([](jit::RuntimeOptions &ro) { ro.timings = true; });
  ASSERT_TRUE(rt);
  auto p = program("examples/softmax.tile");
  ASSERT_TRUE(p);
  auto x = up(HostTensor(DType::F32, {64, 1000}).random(rng));
  auto y = poison(DType::F32, {64, 1000});
  testing::internal::CaptureStderr();
  auto info = rt->launch(*p, "softmax", {x.arg(), y.arg()});
  auto again = rt->launch(*p, "softmax", {x.arg(), y.arg()});
  std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
  ASSERT_TRUE((bool)again) << llvm::toString(again.takeError());
  EXPECT_TRUE(info->modeled);
  EXPECT_GT(info->modelMs, 0);
  EXPECT_GT(info->frontendMs, 0);
  EXPECT_GT(info->passesMs, 0);
  EXPECT_GT(info->llvmMs, 0);
  EXPECT_GT(info->jitMs, 0);
  EXPECT_NEAR(info->jitMs + info->moduleMs, info->loadMs, 1e-6);
  EXPECT_FALSE(again->compiled);
  EXPECT_NE(printed.find("tessera: timings of softmax [num_warps="), std::string::npos) << printed;
  // The toolkit's ptxas where the machine has it (the GPU machines do), unless
  // the environment asks for the driver's JIT.
  auto ptxas = target::findPtxas();
  const char *forced = getenv("TESSERA_PTX_ASSEMBLER");
  bool driver = !ptxas || (forced && std::string(forced) == "driver");
  if (!ptxas)
    llvm::consumeError(ptxas.takeError());
  EXPECT_EQ(info->assembler, driver ? "driver JIT" : "ptxas");
  EXPECT_NE(printed.find(" ms, " + info->assembler + " "), std::string::npos) << printed;
  EXPECT_EQ(printed.find("timings of", printed.find("timings of") + 1), std::string::npos)
      << "one line per compile: " << printed;
  ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
}

TEST_F(Gpu, ANewProcessTakesTheCostModelsChoiceFromTheDiskCache) {
  // Two runtimes on one fresh disk cache, as two processes would be: the
  // second's first launch reads the model's choice (and the PTX, and the
  // cubin) instead of running the model, and launches the same parameters.
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tessera-model-cache", dir));
  std::string cacheDir(dir);
  auto p = program("examples/softmax.tile");
  ASSERT_TRUE(p);
  auto x = up(HostTensor(DType::F32, {96, 700}).random(rng));
  auto y = poison(DType::F32, {96, 700});
  auto first = ownRuntime([&](jit::RuntimeOptions &ro) { ro.cacheDir = cacheDir; });
  auto second = ownRuntime([&](jit::RuntimeOptions &ro) { ro.cacheDir = cacheDir; });
  ASSERT_TRUE(first && second);
  auto a = first->launch(*p, "softmax", {x.arg(), y.arg()});
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  auto b = second->launch(*p, "softmax", {x.arg(), y.arg()});
  ASSERT_TRUE((bool)b) << llvm::toString(b.takeError());
  EXPECT_TRUE(a->modeled);
  EXPECT_FALSE(a->modelFromDisk);
  EXPECT_TRUE(b->modeled);
  EXPECT_TRUE(b->modelFromDisk);
  EXPECT_TRUE(b->fromDisk);
  EXPECT_EQ(a->config, b->config);
  ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
  std::vector<double> want(96 * 700);
  for (int64_t i = 0; i < 96; ++i) {
    double m = -1e300, sum = 0;
    for (int64_t j = 0; j < 700; ++j)
      m = std::max(m, x.host.v[i * 700 + j]);
    for (int64_t j = 0; j < 700; ++j)
      sum += std::exp(x.host.v[i * 700 + j] - m);
    for (int64_t j = 0; j < 700; ++j)
      want[i * 700 + j] = std::exp(x.host.v[i * 700 + j] - m) / sum;
  }
  expectClose(y, want, 1e-5, 1e-6);
}

TEST_F(Gpu, LaunchErrorsAreReportedAndLeaveTheProcessUsable) {
  // Every way a launch can be refused, each followed by a good launch that
  // must run and give the right answer (the process and context stay usable).
  auto p = jit::Program::fromSource(
      "errors.tile",
      "kernel scale(x: tensor<f32, [N]>, y: tensor<f32, [N]>, a: f32)\n"
      "  tune BLOCK in [128] grid [cdiv(N, BLOCK)] {\n"
      "  store(y, [program_id(0)], a * load(x, [program_id(0)], [BLOCK]));\n}\n"
      "kernel tall(x: tensor<f32, [M, N]>, k: i32) grid [1, M] {\n"
      "  store(x, [program_id(1), 0], load(x, [program_id(1), 0], [16]) * k.to(f32));\n}\n");
  ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
  int64_t n = 1000;
  auto x = up(HostTensor(DType::F32, {n}).random(rng));
  auto y = poison(DType::F32, {n});
  auto half = poison(DType::F16, {n});
  std::vector<float> host(n, 1.0f);
  CUdeviceptr freed = 0;
  {
    auto b = cuda::DeviceBuffer::allocate(n * 4);
    ASSERT_TRUE((bool)b);
    freed = b->get();
  }
  auto tallBuf = cuda::DeviceBuffer::allocate(70000 * 16 * 4);
  ASSERT_TRUE((bool)tallBuf);
  auto f32 = [](CUdeviceptr ptr, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
    return jit::Arg(jit::TensorArg{ptr, DType::F32, std::move(shape), std::move(strides)});
  };
  struct Row {
    const char *what, *kernel;
    std::vector<jit::Arg> args;
    const char *message;
  };
  CUdeviceptr xp = x.buf.get(), yp = y.buf.get();
  std::vector<Row> table = {
      {"too few arguments", "scale", {x.arg(), y.arg()}, "takes 3 arguments, got 2"},
      {"a scalar for a tensor",
       "scale",
       {jit::ScalarArg::of(1), y.arg(), jit::ScalarArg::of(2)},
       "is a tensor<f32>, got a scalar"},
      {"a wrong dtype",
       "scale",
       {x.arg(), half.arg(), jit::ScalarArg::of(2)},
       "must hold f32, got f16"},
      {"a wrong rank",
       "scale",
       {f32(xp, {10, 100}), y.arg(), jit::ScalarArg::of(2)},
       "must have rank 1"},
      {"dims that disagree",
       "scale",
       {f32(xp, {999}), y.arg(), jit::ScalarArg::of(2)},
       "dim N is 999"},
      {"a strided last axis",
       "scale",
       {f32(xp, {500}, {2}), f32(yp, {500}), jit::ScalarArg::of(2)},
       "contiguous along its last axis"},
      {"a null pointer",
       "scale",
       {f32(0, {n}), y.arg(), jit::ScalarArg::of(2)},
       "is a null pointer"},
      {"a host pointer",
       "scale",
       {f32((CUdeviceptr)(uintptr_t)host.data(), {n}), y.arg(), jit::ScalarArg::of(2)},
       "is not memory the CUDA driver knows"},
      {"freed device memory",
       "scale",
       {f32(freed, {n}), y.arg(), jit::ScalarArg::of(2)},
       "is not memory the CUDA driver knows"},
      {"a tensor past its allocation",
       "scale",
       {f32(xp + 64, {n}), f32(yp + 64, {n}), jit::ScalarArg::of(2)},
       "but its allocation"},
      {"an output overlapping an input",
       "scale",
       {f32(xp, {n}), f32(xp + 4, {n}), jit::ScalarArg::of(2)},
       "overlap, and 'y' is written"},
      {"a grid past 65535 along y",
       "tall",
       {f32(tallBuf->get(), {70000, 16}), jit::ScalarArg::of(2)},
       "at most 65535"},
      {"a fractional integer scalar",
       "tall",
       {f32(tallBuf->get(), {100, 16}), jit::ScalarArg::of(2.5)},
       "'k' is a i32"},
      {"an unknown kernel", "nope", {x.arg(), y.arg(), jit::ScalarArg::of(2)}, "nope"},
  };
  for (const Row &r : table) {
    SCOPED_TRACE(r.what);
    auto info = runtime->launch(**p, r.kernel, r.args);
    ASSERT_FALSE((bool)info);
    std::string msg = llvm::toString(info.takeError());
    EXPECT_NE(msg.find(r.message), std::string::npos) << msg;
    auto ok = runtime->launch(**p, "scale", {x.arg(), y.arg(), jit::ScalarArg::of(3)});
    ASSERT_TRUE((bool)ok) << llvm::toString(ok.takeError());
    ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "sync"));
    std::vector<double> want(x.host.v);
    for (double &v : want)
      v = (double)(3.0f * (float)v);
    expectClose(y, want, 0, 0);
  }
}

} // namespace
