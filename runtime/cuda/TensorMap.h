//===- TensorMap.h - TMA tensor maps, encoded on the host -------*- C++ -*-===//
//
// A TMA load (cp.async.bulk.tensor) reads a box of a global tensor through a
// 128-byte tensor map that the host encodes with cuTensorMapEncodeTiled (the
// dlopen'd driver, checked like every call) and the kernel receives by value
// as a __grid_constant__ parameter. A map embeds the tensor's base address,
// so maps are cached by address, shape, strides, box and swizzle: a new
// buffer never reuses a stale map. `tmaUnsupported` says why TMA cannot
// describe a tensor (then the launch takes the cp.async variant), checked on
// the host before the driver is asked.
//
// Shapes, strides and boxes are listed outermost first, strides in elements,
// the innermost stride 1.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_CUDA_TENSORMAP_H
#define TESSERA_RUNTIME_CUDA_TENSORMAP_H

#include "lib/Support/DType.h"

#include <cuda.h>

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::cuda {

struct TensorMapSpec {
  DType dtype = DType::BF16;
  std::vector<int64_t> shape, strides; // outermost first; strides in elements
  std::vector<int64_t> box;            // the box TMA moves, outermost first
  unsigned swizzle = 128;              // bytes: 0, 32, 64 or 128
};

/// Why TMA cannot describe `spec` at `base` ("" when it can): rank 1 to 5,
/// a 16-byte aligned base, the innermost axis contiguous, other strides
/// multiples of 16 bytes below 2^40, extents up to 2^32, box extents 1 to 256 with an
/// innermost run of a multiple of 16 bytes and at most the swizzle width.
std::string tmaUnsupported(CUdeviceptr base, const TensorMapSpec &spec);

/// Encodes the tensor map of `spec` at `base` (cuTensorMapEncodeTiled; out of
/// bounds elements read as zero).
llvm::Expected<CUtensorMap> encodeTensorMap(CUdeviceptr base, const TensorMapSpec &spec);

/// Encoded maps by address, shape, strides, box and swizzle.
class TensorMapCache {
public:
  llvm::Expected<const CUtensorMap *> get(CUdeviceptr base, const TensorMapSpec &spec);
  size_t size() const { return maps_.size(); }
  /// Forgets every map (pointers from `get` dangle afterwards).
  void clear() { maps_.clear(); }
  /// The cache key of `spec` at `base` (what a map depends on).
  static std::string key(CUdeviceptr base, const TensorMapSpec &spec);

private:
  std::map<std::string, CUtensorMap> maps_;
};

} // namespace tessera::cuda

#endif
