//===- Driver.h - the CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// Tessera never links libcuda: the driver API is loaded with dlopen on first
// use, so that every binary starts (and runs its CPU work) on machines without
// an NVIDIA driver. Every call goes through `check`, whose error names the
// call, the CUDA error name and message, and any log (a JIT log, say). A
// missing driver or GPU is an EnvironmentError, which the CLI reports with
// exit status 2; everything else is an ordinary error.
//
// The handles in Handles.h own what they create (move-only RAII; destructors
// never throw and ignore errors, as the driver may be shutting down).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_CUDA_DRIVER_H
#define TESSERA_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include "llvm/Support/Error.h"

#include <string>

namespace tessera::cuda {

// The driver entry points Tessera uses. cuda.h maps several names to their
// current versions (cuMemAlloc -> cuMemAlloc_v2); the symbol looked up is the
// mapped one.
// clang-format off
#define TESSERA_CUDA_DRIVER_FUNCS(X) \
  X(cuInit) \
  X(cuDriverGetVersion) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) \
  X(cuModuleLoadDataEx) \
  X(cuModuleUnload) \
  X(cuModuleGetFunction) \
  X(cuModuleGetGlobal) \
  X(cuFuncSetAttribute) \
  X(cuFuncGetAttribute) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuLaunchKernel) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuPointerGetAttributes) \
  X(cuMemsetD8) \
  X(cuMemsetD8Async) \
  X(cuMemcpyDtoDAsync) \
  X(cuStreamCreate) \
  X(cuStreamDestroy) \
  X(cuStreamSynchronize) \
  X(cuEventCreate) \
  X(cuEventDestroy) \
  X(cuEventRecord) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuLinkCreate) \
  X(cuLinkAddData) \
  X(cuLinkComplete) \
  X(cuLinkDestroy) \
  X(cuTensorMapEncodeTiled)
// clang-format on

struct DriverAPI {
#define TESSERA_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  TESSERA_CUDA_DRIVER_FUNCS(TESSERA_CUDA_DECLARE)
#undef TESSERA_CUDA_DECLARE
  int version = 0; // cuDriverGetVersion, e.g. 13000
};

/// The environment lacks something a GPU run needs (driver, GPU): exit status 2.
class EnvironmentError : public llvm::ErrorInfo<EnvironmentError> {
public:
  static char ID;
  explicit EnvironmentError(std::string message) : message_(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string message_;
};

/// Whether `e` is (or holds only) an EnvironmentError; `e` is left untouched.
bool isEnvironmentError(const llvm::Error &e);

/// The driver API, loaded and initialized (cuInit) once, thread-safely. Fails
/// with an EnvironmentError when libcuda.so.1 cannot be loaded or has no GPU.
llvm::Expected<const DriverAPI &> driver();

/// Success, or an error naming `call`, the CUDA error name and message, and
/// `log` when it is not empty.
llvm::Error check(CUresult rc, llvm::StringRef call, llvm::StringRef log = "");

} // namespace tessera::cuda

#endif
