//===- Cublas.h - the vendor matmul, loaded at run time ---------*- C++ -*-===//
//
// cuBLAS through dlopen (`$TESSERA_LIBCUBLAS`, else libcublas.so.13 / .so.12 /
// .so): a move-only handle and a row-major bf16 GEMM with f32 accumulation
// (cublasGemmEx on the transposed problem). Errors name the call and cuBLAS's
// status string; a missing library is an EnvironmentError.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_CUDA_CUBLAS_H
#define TESSERA_RUNTIME_CUDA_CUBLAS_H

#include <cuda.h>

#include "llvm/Support/Error.h"

#include <utility>

namespace tessera::cuda {

class Cublas {
public:
  static llvm::Expected<Cublas> create();
  Cublas(Cublas &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Cublas &operator=(Cublas &&o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  Cublas(const Cublas &) = delete;
  Cublas &operator=(const Cublas &) = delete;
  ~Cublas();
  /// C[M, N] = A[M, K] B[K, N], row-major, bf16 (else f16) operands and
  /// result, f32 accumulation, on the null stream.
  llvm::Error gemm(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int m, int n, int k,
                   bool bf16 = true) const;

private:
  explicit Cublas(void *h) : h_(h) {}
  void *h_ = nullptr;
};

} // namespace tessera::cuda

#endif
