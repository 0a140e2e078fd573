//===- Clock.h - elapsed wall-clock time ------------------------*- C++ -*-===//
//
// Milliseconds since a steady_clock time point: what compile, load and launch
// timings report (LaunchInfo, CompiledKernel, the bench).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_SUPPORT_CLOCK_H
#define TESSERA_SUPPORT_CLOCK_H

#include <chrono>

namespace tessera {

inline double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace tessera

#endif
