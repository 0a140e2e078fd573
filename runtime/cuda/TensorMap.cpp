//===- TensorMap.cpp - TMA tensor maps, encoded on the host ---------------===//
#include "runtime/cuda/TensorMap.h"

#include "lib/Support/Errors.h"
#include "runtime/cuda/Driver.h"

#include "llvm/ADT/Twine.h"

using namespace tessera;
using namespace tessera::cuda;

namespace {

std::optional<CUtensorMapDataType> tmaType(DType t) {
  switch (t) {
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::F64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::U32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case DType::Bool:
  case DType::I8: // a copy moves bits: signedness does not matter
  case DType::U8:
  case DType::F8E4M3:
  case DType::F8E5M2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return std::nullopt;
}

std::optional<CUtensorMapSwizzle> tmaSwizzle(unsigned bytes) {
  switch (bytes) {
  case 0:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return std::nullopt;
}

} // namespace

std::string tessera::cuda::tmaUnsupported(CUdeviceptr base, const TensorMapSpec &spec) {
  size_t rank = spec.shape.size();
  int64_t e = dtypeBytes(spec.dtype);
  if (rank < 1 || rank > 5)
    return "rank " + std::to_string(rank) + " (TMA describes 1 to 5 axes)";
  if (spec.strides.size() != rank || spec.box.size() != rank)
    return "shape, strides and box differ in rank";
  if (!tmaSwizzle(spec.swizzle))
    return "a swizzle of " + std::to_string(spec.swizzle) + " bytes (0, 32, 64 or 128)";
  if (base % 16)
    return "a base address not aligned to 16 bytes";
  if (spec.strides.back() != 1)
    return "an innermost axis that is not contiguous";
  for (size_t d = 0; d < rank; ++d) {
    if (spec.shape[d] < 1 || spec.shape[d] > (int64_t(1) << 32))
      return "an extent of " + std::to_string(spec.shape[d]) + " (1 to 2^32)";
    if (spec.box[d] < 1 || spec.box[d] > 256)
      return "a box extent of " + std::to_string(spec.box[d]) + " (1 to 256)";
    if (d + 1 < rank && (spec.strides[d] * e) % 16)
      return "a stride of " + std::to_string(spec.strides[d] * e) +
             " bytes (a multiple of 16 needed)";
    if (d + 1 < rank && spec.strides[d] * e >= (int64_t(1) << 40))
      return "a stride of " + std::to_string(spec.strides[d] * e) + " bytes (below 2^40 needed)";
  }
  int64_t inner = spec.box.back() * e;
  if (inner % 16)
    return "an innermost box of " + std::to_string(inner) + " bytes (a multiple of 16 needed)";
  if (spec.swizzle && inner > spec.swizzle)
    return "an innermost box of " + std::to_string(inner) + " bytes, wider than the " +
           std::to_string(spec.swizzle) + "-byte swizzle";
  return "";
}

llvm::Expected<CUtensorMap> tessera::cuda::encodeTensorMap(CUdeviceptr base,
                                                           const TensorMapSpec &spec) {
  if (std::string why = tmaUnsupported(base, spec); !why.empty())
    return makeError("TMA cannot describe this tensor: " + why);
  auto d = driver();
  if (!d)
    return d.takeError();
  size_t rank = spec.shape.size();
  int64_t e = dtypeBytes(spec.dtype);
  // The driver lists axes innermost first, strides in bytes without the innermost.
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (size_t i = 0; i < rank; ++i) {
    size_t d = rank - 1 - i;
    dims[i] = (cuuint64_t)spec.shape[d];
    box[i] = (cuuint32_t)spec.box[d];
    elementStrides[i] = 1;
    if (i > 0)
      strides[i - 1] = (cuuint64_t)(spec.strides[d] * e);
  }
  CUtensorMap map; // the type is 128-byte aligned; the driver needs 64
  if (llvm::Error err =
          check(d->cuTensorMapEncodeTiled(
                    &map, *tmaType(spec.dtype), (cuuint32_t)rank, reinterpret_cast<void *>(base),
                    dims, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                    *tmaSwizzle(spec.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                "cuTensorMapEncodeTiled"))
    return std::move(err);
  return map;
}

std::string TensorMapCache::key(CUdeviceptr base, const TensorMapSpec &spec) {
  std::string k =
      std::to_string(base) + "|" + dtypeName(spec.dtype).str() + "|" + std::to_string(spec.swizzle);
  for (const auto *list : {&spec.shape, &spec.strides, &spec.box}) {
    k += "|";
    for (int64_t v : *list)
      k += std::to_string(v) + ",";
  }
  return k;
}

llvm::Expected<const CUtensorMap *> TensorMapCache::get(CUdeviceptr base,
                                                        const TensorMapSpec &spec) {
  std::string k = key(base, spec);
  if (auto it = maps_.find(k); it != maps_.end())
    return &it->second;
  auto map = encodeTensorMap(base, spec);
  if (!map)
    return map.takeError();
  return &maps_.emplace(k, *map).first->second;
}
