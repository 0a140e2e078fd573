//===- softmax.cpp - the Tessera C++ API, end to end ------------*- C++ -*-===//
//
// Loads examples/softmax.tile, runs it on a device tensor (twice: the second
// launch finds the compiled kernel in memory), overrides a tune parameter, and
// reads the result back. Usage: tessera-example-softmax [PATH/TO/softmax.tile]
// Exits 2 without a GPU, 1 if the result is wrong.
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Runtime.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace tessera;

int main(int argc, char **argv) {
  std::string path =
      argc > 1 ? argv[1] : std::string(TESSERA_SOURCE_DIR) + "/examples/softmax.tile";
  auto fail = [](llvm::Error e) {
    int status = cuda::isEnvironmentError(e) ? 2 : 1;
    fprintf(stderr, "error: %s\n", llvm::toString(std::move(e)).c_str());
    return status;
  };
  // 1. The program (parsed once) and the runtime (a context on GPU 0).
  auto program = jit::Program::fromFile(path);
  if (!program)
    return fail(program.takeError());
  auto rt = jit::Runtime::create();
  if (!rt)
    return fail(rt.takeError());

  // 2. Device tensors: x (random) and y, both [M, N] f32.
  const int64_t m = 64, n = 1000;
  std::vector<float> x(m * n), y(m * n);
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  for (float &v : x)
    v = normal(rng);
  auto dx = cuda::DeviceBuffer::allocate(x.size() * 4),
       dy = cuda::DeviceBuffer::allocate(y.size() * 4);
  if (!dx || !dy)
    return fail(dx ? dy.takeError() : dx.takeError());
  if (llvm::Error e = dx->copyFromHost(x.data(), x.size() * 4))
    return fail(std::move(e));
  std::vector<jit::Arg> args = {jit::TensorArg{dx->get(), DType::F32, {m, n}, {}},
                                jit::TensorArg{dy->get(), DType::F32, {m, n}, {}}};

  // 3. Launch: compiled on first use, then cached; parameters override the tune clause.
  for (int64_t warps : {4, 4, 8}) {
    jit::LaunchOptions opts;
    opts.params = {{"num_warps", warps}};
    auto info = (*rt)->launch(**program, "softmax", args, opts);
    if (!info)
      return fail(info.takeError());
    printf("softmax num_warps=%lld: %s, grid %lld, %u threads\n", (long long)warps,
           info->compiled ? (info->fromDisk ? "loaded from the disk cache" : "compiled") : "cached",
           (long long)info->grid[0], info->threads);
  }

  // 4. Read back and check one row against the CPU.
  if (llvm::Error e = dy->copyToHost(y.data(), y.size() * 4))
    return fail(std::move(e));
  double mx = -INFINITY, sum = 0, worst = 0;
  for (int64_t c = 0; c < n; ++c)
    mx = std::max(mx, (double)x[c]);
  for (int64_t c = 0; c < n; ++c)
    sum += std::exp(x[c] - mx);
  for (int64_t c = 0; c < n; ++c)
    worst = std::max(worst, std::fabs(y[c] - std::exp(x[c] - mx) / sum));
  printf("row 0: max abs error %.3g\n", worst);
  return worst < 1e-5 ? 0 : 1;
}
