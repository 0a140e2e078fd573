//===- GpuFixture.h - the GoogleTest fixture of the GPU tests ---*- C++ -*-===//
//
// One Runtime for the whole test binary (skipping every test when it cannot be
// created: no driver or GPU), programs loaded from $TESSERA_SOURCE_DIR or the
// source tree, and helpers to upload, poison, run and compare.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_GPU_GPUFIXTURE_H
#define TESSERA_TEST_GPU_GPUFIXTURE_H

#include "test/gpu/GpuUtil.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

namespace tessera::gputest {

inline std::string sourceDir() {
  const char *d = getenv("TESSERA_SOURCE_DIR");
  return d && *d ? d : TESSERA_SOURCE_DIR;
}

class Gpu : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (runtime || !skipReason.empty())
      return;
    // TESSERA_GPU_TEST_ARCH runs the same tests on another architecture's code
    // (sm_80 PTX on an H200: the sm_80 path where there is no A100).
    jit::RuntimeOptions ro;
    if (const char *arch = getenv("TESSERA_GPU_TEST_ARCH"))
      ro.arch = arch;
    // A tuning database of this process's own: the tests store entries (and
    // must not find a user's, or another run's).
    llvm::SmallString<128> db;
    if (!llvm::sys::fs::createTemporaryFile("tessera-gpu-tests-tuning", "json", db)) {
      static std::string path;
      path = db.str().str();
      llvm::sys::fs::remove(path); // a missing database is an empty one; an empty file is not
      std::atexit([] {
        llvm::sys::fs::remove(path);
        llvm::sys::fs::remove(path + ".lock");
      });
      ro.tuningDB = path;
    }
    auto rt = jit::Runtime::create(ro);
    if (!rt) {
      skipReason = llvm::toString(rt.takeError());
      return;
    }
    runtime = std::move(*rt);
  }
  void SetUp() override {
    if (!runtime)
      GTEST_SKIP() << "no GPU: " << skipReason;
  }
  static std::shared_ptr<jit::Program> program(const std::string &rel) {
    static std::map<std::string, std::shared_ptr<jit::Program>> cache;
    auto &p = cache[rel];
    if (!p) {
      auto loaded = jit::Program::fromFile(sourceDir() + "/" + rel);
      if (!loaded) {
        ADD_FAILURE() << llvm::toString(loaded.takeError());
        return nullptr;
      }
      p = *loaded;
    }
    return p;
  }
  /// Launches and waits; fails the test on any error.
  static void run(const std::string &rel, std::vector<jit::Arg> args, const char *kernel = "") {
    auto p = program(rel);
    ASSERT_TRUE(p);
    auto info = runtime->launch(*p, kernel, args);
    ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
    auto &api = *cuda::driver();
    llvm::Error e = cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize");
    ASSERT_FALSE((bool)e) << llvm::toString(std::move(e));
  }
  static DeviceTensor up(HostTensor h) {
    auto d = DeviceTensor::upload(std::move(h));
    EXPECT_TRUE((bool)d);
    return d ? std::move(*d) : DeviceTensor{};
  }
  static DeviceTensor poison(DType t, std::vector<int64_t> shape) {
    auto d = DeviceTensor::poisoned(t, std::move(shape));
    EXPECT_TRUE((bool)d);
    return d ? std::move(*d) : DeviceTensor{};
  }
  static void expectClose(const DeviceTensor &out, const std::vector<double> &want, double atol,
                          double rtol) {
    auto got = out.download();
    ASSERT_TRUE((bool)got) << llvm::toString(got.takeError());
    Compare c = compare(*got, want, atol, rtol);
    EXPECT_EQ(c.bad, 0u) << c.bad << " of " << want.size() << " elements off; first at " << c.first
                         << ": got " << c.gotFirst << ", want " << c.wantFirst << " (max abs err "
                         << c.maxAbs << ")";
  }
  static inline std::unique_ptr<jit::Runtime> runtime;
  static inline std::string skipReason;
  std::mt19937 rng{1234};
};

inline jit::Arg scalar(double v) { return jit::ScalarArg::of(v); }

} // namespace tessera::gputest

#endif
