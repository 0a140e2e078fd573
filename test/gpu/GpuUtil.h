//===- GpuUtil.h - host tensors for the GPU tests and benchmark -*- C++ -*-===//
//
// A host tensor keeps float64 values (the reference's precision) and knows how
// to move to and from a device buffer in its dtype (f16/bf16 rounded to nearest
// even). Device outputs are poisoned with 0xFF bytes first (NaN for floats, -1
// for integers) so that elements a kernel never wrote show up.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_GPU_GPUUTIL_H
#define TESSERA_TEST_GPU_GPUUTIL_H

#include "runtime/jit/Runtime.h"
#include "test/common/HostTensor.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tessera::gputest {

using namespace tessera::testutil;

/// A host tensor and its device copy.
struct DeviceTensor {
  HostTensor host;
  cuda::DeviceBuffer buf;

  static llvm::Expected<DeviceTensor> upload(HostTensor h) {
    auto b = cuda::DeviceBuffer::allocate(std::max<size_t>(h.bytes(), 16));
    if (!b)
      return b.takeError();
    std::vector<char> bytes = h.encode();
    if (llvm::Error e = b->copyFromHost(bytes.data(), bytes.size()))
      return std::move(e);
    return DeviceTensor{std::move(h), std::move(*b)};
  }
  /// Device memory filled with 0xFF bytes (NaN, or -1).
  static llvm::Expected<DeviceTensor> poisoned(DType t, std::vector<int64_t> shape) {
    HostTensor h(t, std::move(shape));
    auto b = cuda::DeviceBuffer::allocate(std::max<size_t>(h.bytes(), 16));
    if (!b)
      return b.takeError();
    if (llvm::Error e = b->fill(0xFF))
      return std::move(e);
    return DeviceTensor{std::move(h), std::move(*b)};
  }
  jit::TensorArg arg() const { return jit::TensorArg{buf.get(), host.dtype, host.shape, {}}; }
  llvm::Expected<HostTensor> download() const {
    std::vector<char> bytes(host.bytes());
    if (llvm::Error e = buf.copyToHost(bytes.data(), bytes.size()))
      return std::move(e);
    HostTensor h = host;
    h.decode(bytes);
    return h;
  }
};

} // namespace tessera::gputest

#endif
