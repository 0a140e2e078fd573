//===- Cublas.h - the vendor matmul, loaded at run time ---------*- C++ -*-===//
//
// cuBLAS through dlopen (`$TESSERA_LIBCUBLAS`, else libcublas.so.13 / .so.12 /
// .so): a move-only handle and a row-major bf16 or f16 GEMM with f32
// accumulation, A stored either way, C in the operands' type or f32
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
  /// The operands' storage.
  struct Gemm {
    int m = 0, n = 0, k = 0;
    bool bf16 = true;         // else f16 operands
    bool f32Out = false;      // C in f32, else in the operands' type
    bool aTransposed = false; // A stored as [K, M]
  };
  /// C[M, N] = A[M, K] B[K, N], row-major, f32 accumulation, on the null stream.
  llvm::Error gemm(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, const Gemm &g) const;

private:
  explicit Cublas(void *h) : h_(h) {}
  void *h_ = nullptr;
};

} // namespace tessera::cuda

#endif
