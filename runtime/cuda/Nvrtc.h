//===- Nvrtc.h - CUDA C++ compiled at run time (NVRTC, dlopen'd) -*- C++ -*-===//
//
// The hand-written CUDA baselines are compiled with NVRTC, loaded with dlopen
// like the driver: `$TESSERA_LIBNVRTC`, else libnvrtc.so.13 / libnvrtc.so
// (from $CUDA_HOME/lib64 or the loader path). Compiling needs no GPU. Errors
// name the call, NVRTC's error string and the whole compiler log; a missing
// library is an EnvironmentError (exit status 2).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_CUDA_NVRTC_H
#define TESSERA_RUNTIME_CUDA_NVRTC_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tessera::cuda {

struct NvrtcResult {
  std::string ptx;
  std::string log;     // warnings, when compiling succeeded
  std::string lowered; // the mangled name of the requested kernel
};

/// Compiles CUDA C++ `source` (named `name` in diagnostics) to PTX for
/// `arch` (e.g. sm_90a), with `options` added; `kernel`, when given, is an
/// extern "C" or C++ kernel name whose lowered name is returned.
llvm::Expected<NvrtcResult> compileCuda(llvm::StringRef source, llvm::StringRef name,
                                        llvm::StringRef arch,
                                        const std::vector<std::string> &options = {},
                                        llvm::StringRef kernel = "");

/// NVRTC's version as "major.minor", or an error when it cannot be loaded.
llvm::Expected<std::string> nvrtcVersion();

} // namespace tessera::cuda

#endif
