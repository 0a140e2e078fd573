//===- Cublas.cpp - the vendor matmul, loaded at run time -----------------===//
#include "runtime/cuda/Cublas.h"

#include "runtime/cuda/Driver.h"

#include <cublas_api.h>

#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::cuda;

namespace {

struct Api {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void *, const void *, cudaDataType, int,
                                    const void *, cudaDataType, int, const void *, void *,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx gemmEx = nullptr;
  decltype(&::cublasGetStatusString) statusString = nullptr;
  std::string error;
};

const Api &api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> names;
    if (const char *p = getenv("TESSERA_LIBCUBLAS"))
      names.push_back(p);
    else
      names = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    void *lib = nullptr;
    std::string tried;
    for (const std::string &n : names) {
      tried += (tried.empty() ? "" : ", ") + n;
      if (!n.empty() && (lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    }
    if (!lib) {
      a.error = "no cuBLAS: cannot load " + tried + " (set TESSERA_LIBCUBLAS)";
      return;
    }
    a.create = reinterpret_cast<decltype(a.create)>(dlsym(lib, "cublasCreate_v2"));
    a.destroy = reinterpret_cast<decltype(a.destroy)>(dlsym(lib, "cublasDestroy_v2"));
    a.gemmEx = reinterpret_cast<decltype(a.gemmEx)>(dlsym(lib, "cublasGemmEx"));
    a.statusString =
        reinterpret_cast<decltype(a.statusString)>(dlsym(lib, "cublasGetStatusString"));
    if (!a.create || !a.destroy || !a.gemmEx || !a.statusString)
      a.error = "the cuBLAS library lacks cublasCreate_v2, cublasGemmEx or cublasGetStatusString";
  });
  return a;
}

llvm::Error checkCublas(cublasStatus_t s, const char *call) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 std::string(call) + " failed: " + api().statusString(s));
}

} // namespace

llvm::Expected<Cublas> Cublas::create() {
  const Api &a = api();
  if (!a.error.empty())
    return llvm::make_error<EnvironmentError>(a.error);
  cublasHandle_t h = nullptr;
  if (llvm::Error e = checkCublas(a.create(&h), "cublasCreate"))
    return std::move(e);
  return Cublas(h);
}

Cublas::~Cublas() {
  if (h_)
    (void)api().destroy(static_cast<cublasHandle_t>(h_));
}

llvm::Error Cublas::gemm(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, const Gemm &g) const {
  // Row-major C = A B is column-major C^T = B^T A^T; A stored [K, M] is A^T
  // column-major, transposed back by the operation.
  float alpha = 1, beta = 0;
  cudaDataType t = g.bf16 ? CUDA_R_16BF : CUDA_R_16F;
  cudaDataType out = g.f32Out ? CUDA_R_32F : t;
  std::string call = std::string("cublasGemmEx(") + (g.bf16 ? "bf16" : "f16") +
                     (g.aTransposed ? ", A transposed" : "") + (g.f32Out ? ", f32 out" : "") +
                     ", f32 compute)";
  return checkCublas(api().gemmEx(static_cast<cublasHandle_t>(h_), CUBLAS_OP_N,
                                  g.aTransposed ? CUBLAS_OP_T : CUBLAS_OP_N, g.n, g.m, g.k, &alpha,
                                  reinterpret_cast<const void *>(b), t, g.n,
                                  reinterpret_cast<const void *>(a), t, g.aTransposed ? g.m : g.k,
                                  &beta, reinterpret_cast<void *>(c), out, g.n, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     call.c_str());
}
