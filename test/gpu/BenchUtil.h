//===- BenchUtil.h - what tessera-gpu-bench's two modes share ----*- C++ -*-===//
//
// GpuBench.cpp (the runtime's figures) and DecodeBench.cpp (--decode) are one
// binary: the source tree they read programs from, and how a failing call
// ends the process (exit 2 for a missing driver or GPU, 1 otherwise), with
// the mode's name in the message. Needs TESSERA_SOURCE_DIR defined.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_GPU_BENCHUTIL_H
#define TESSERA_TEST_GPU_BENCHUTIL_H

#include "test/gpu/GpuUtil.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tessera::gputest {

/// The name errors are reported under; main sets the mode's.
inline const char *benchName = "tessera-gpu-bench";

/// TESSERA_SOURCE_DIR from the environment (the device's bundle), else the build's.
inline std::string sourceDir() {
  const char *d = getenv("TESSERA_SOURCE_DIR");
  return d && *d ? d : TESSERA_SOURCE_DIR;
}

[[noreturn]] inline void die(llvm::Error e) {
  int status = cuda::isEnvironmentError(e) ? 2 : 1;
  fprintf(stderr, "%s: %s\n", benchName, llvm::toString(std::move(e)).c_str());
  exit(status);
}
template <typename T> T must(llvm::Expected<T> v) {
  if (!v)
    die(v.takeError());
  return std::move(*v);
}
inline void must(llvm::Error e) {
  if (e)
    die(std::move(e));
}

/// tessera-gpu-bench --decode (DecodeBench.cpp): the process's exit status.
int decodeBenchMain(const std::string &lensDir, const std::vector<std::string> &variants);

} // namespace tessera::gputest

#endif
