//===- TensorMapTest.cpp - what TMA can describe, and the map cache key ---===//
//
// Host-only: the reasons a tensor takes the cp.async variant instead of TMA,
// and that the cache key of a tensor map follows everything the map embeds
// (the base address above all). Encoding itself needs the driver: the GPU
// tests cover it.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/TensorMap.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::cuda;

namespace {

TensorMapSpec matrix(int64_t rows, int64_t cols, int64_t ld, std::vector<int64_t> box) {
  TensorMapSpec s;
  s.dtype = DType::BF16;
  s.shape = {rows, cols};
  s.strides = {ld, 1};
  s.box = std::move(box);
  s.swizzle = 128;
  return s;
}

TEST(TensorMap, DescribesAlignedRowMajorTiles) {
  EXPECT_EQ(tmaUnsupported(0x10000, matrix(4096, 4096, 4096, {128, 64})), "");
  EXPECT_EQ(tmaUnsupported(0x10000, matrix(1000, 1000, 1000, {64, 64})), ""); // ragged: OOB zero
}

TEST(TensorMap, NamesWhyATensorTakesTheCpAsyncVariant) {
  EXPECT_EQ(tmaUnsupported(0x10008, matrix(64, 64, 64, {64, 64})),
            "a base address not aligned to 16 bytes");
  EXPECT_EQ(tmaUnsupported(0x10000, matrix(64, 130, 130, {64, 64})),
            "a stride of 260 bytes (a multiple of 16 needed)");
  EXPECT_EQ(tmaUnsupported(0x10000, matrix(64, 64, 64, {64, 128})),
            "an innermost box of 256 bytes, wider than the 128-byte swizzle");
  EXPECT_EQ(tmaUnsupported(0x10000, matrix(64, 64, 64, {512, 64})),
            "a box extent of 512 (1 to 256)");
  EXPECT_EQ(tmaUnsupported(0x10000, matrix(64, 64, 64, {64, 4})),
            "an innermost box of 8 bytes (a multiple of 16 needed)");
  TensorMapSpec t = matrix(64, 64, 1, {64, 64});
  t.strides = {1, 64}; // column-major
  EXPECT_EQ(tmaUnsupported(0x10000, t), "an innermost axis that is not contiguous");
  TensorMapSpec s = matrix(64, 64, 64, {64, 64});
  s.swizzle = 16;
  EXPECT_EQ(tmaUnsupported(0x10000, s), "a swizzle of 16 bytes (0, 32, 64 or 128)");
}

TEST(TensorMap, CacheKeysFollowEverythingAMapEmbeds) {
  TensorMapSpec s = matrix(4096, 4096, 4096, {128, 64});
  std::string k = TensorMapCache::key(0x10000, s);
  EXPECT_EQ(k, TensorMapCache::key(0x10000, s));
  EXPECT_NE(k, TensorMapCache::key(0x20000, s)); // another buffer of the same signature
  TensorMapSpec other = s;
  other.shape[0] = 2048;
  EXPECT_NE(k, TensorMapCache::key(0x10000, other));
  other = s;
  other.strides[0] = 8192;
  EXPECT_NE(k, TensorMapCache::key(0x10000, other));
  other = s;
  other.box = {64, 64};
  EXPECT_NE(k, TensorMapCache::key(0x10000, other));
  other = s;
  other.swizzle = 64;
  EXPECT_NE(k, TensorMapCache::key(0x10000, other));
  other = s;
  other.dtype = DType::F16;
  EXPECT_NE(k, TensorMapCache::key(0x10000, other));
}

} // namespace
