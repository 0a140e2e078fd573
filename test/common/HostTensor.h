//===- HostTensor.h - float64 host tensors for tests ------------*- C++ -*-===//
//
// A host tensor keeps float64 values (the references' precision) and converts
// to and from the bytes of its dtype (f16/bf16 rounded to nearest even). Shared
// by the interpreter tests (CI), the GPU tests and the GPU benchmark, with a
// comparison that counts elements outside atol + rtol * |want|.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_COMMON_HOSTTENSOR_H
#define TESSERA_TEST_COMMON_HOSTTENSOR_H

#include "lib/Support/DType.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tessera::testutil {

inline uint16_t halfBits(double v, const llvm::fltSemantics &sem) {
  llvm::APFloat f(v);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint16_t)f.bitcastToAPInt().getZExtValue();
}
inline double fromHalfBits(uint16_t b, const llvm::fltSemantics &sem) {
  llvm::APFloat f(sem, llvm::APInt(16, b));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> v;

  HostTensor() = default;
  HostTensor(DType t, std::vector<int64_t> s) : dtype(t), shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    v.assign(n, 0.0);
  }
  size_t size() const { return v.size(); }
  size_t bytes() const { return v.size() * dtypeBytes(dtype); }
  /// Uniform random values in [lo, hi), rounded to the dtype.
  HostTensor &random(std::mt19937 &rng, double lo = -1, double hi = 1) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (double &x : v)
      x = isInt(dtype) ? std::floor(u(rng)) : u(rng);
    roundToDtype();
    return *this;
  }
  void roundToDtype() {
    std::vector<char> b = encode();
    decode(b);
  }
  std::vector<char> encode() const {
    std::vector<char> out(bytes());
    for (size_t i = 0; i < v.size(); ++i) {
      char *p = out.data() + i * dtypeBytes(dtype);
      switch (dtype) {
      case DType::F64:
        std::memcpy(p, &v[i], 8);
        break;
      case DType::F32: {
        float f = (float)v[i];
        std::memcpy(p, &f, 4);
        break;
      }
      case DType::F16: {
        uint16_t h = halfBits(v[i], llvm::APFloat::IEEEhalf());
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::BF16: {
        uint16_t h = halfBits(v[i], llvm::APFloat::BFloat());
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::I32: {
        int32_t x = (int32_t)v[i];
        std::memcpy(p, &x, 4);
        break;
      }
      case DType::I64: {
        int64_t x = (int64_t)v[i];
        std::memcpy(p, &x, 8);
        break;
      }
      case DType::Bool: {
        *p = v[i] != 0;
        break;
      }
      case DType::I8:
      case DType::U8:
        *p = (char)(uint8_t)(int64_t)v[i];
        break;
      case DType::F8E4M3:
      case DType::F8E5M2:
        *p = (char)f8Encode(dtype, v[i]);
        break;
      case DType::U32: {
        uint32_t x = (uint32_t)(int64_t)v[i];
        std::memcpy(p, &x, 4);
        break;
      }
      }
    }
    return out;
  }
  void decode(const std::vector<char> &in) {
    for (size_t i = 0; i < v.size(); ++i) {
      const char *p = in.data() + i * dtypeBytes(dtype);
      switch (dtype) {
      case DType::F64:
        std::memcpy(&v[i], p, 8);
        break;
      case DType::F32: {
        float f;
        std::memcpy(&f, p, 4);
        v[i] = f;
        break;
      }
      case DType::F16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v[i] = fromHalfBits(h, llvm::APFloat::IEEEhalf());
        break;
      }
      case DType::BF16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v[i] = fromHalfBits(h, llvm::APFloat::BFloat());
        break;
      }
      case DType::I32: {
        int32_t x;
        std::memcpy(&x, p, 4);
        v[i] = x;
        break;
      }
      case DType::I64: {
        int64_t x;
        std::memcpy(&x, p, 8);
        v[i] = (double)x;
        break;
      }
      case DType::Bool: {
        v[i] = *p != 0;
        break;
      }
      case DType::I8:
        v[i] = (int8_t)*p;
        break;
      case DType::U8:
        v[i] = (uint8_t)*p;
        break;
      case DType::F8E4M3:
      case DType::F8E5M2:
        v[i] = f8Decode(dtype, (uint8_t)*p);
        break;
      case DType::U32: {
        uint32_t x;
        std::memcpy(&x, p, 4);
        v[i] = x;
        break;
      }
      }
    }
  }
};

/// Max |got - want| over elements, and whether every element is within
/// atol + rtol * |want| (and finite where want is; NaN where want is NaN).
struct Compare {
  double maxAbs = 0;
  size_t bad = 0, first = 0;
  double gotFirst = 0, wantFirst = 0;
};
inline Compare compare(const HostTensor &got, const std::vector<double> &want, double atol,
                       double rtol) {
  Compare c;
  for (size_t i = 0; i < want.size(); ++i) {
    double d = std::fabs(got.v[i] - want[i]);
    // A NaN is right only where a NaN is wanted.
    bool ok =
        (std::isnan(want[i]) && std::isnan(got.v[i])) ||
        (std::isfinite(got.v[i]) == std::isfinite(want[i]) &&
         (d <= atol + rtol * std::fabs(want[i]) || (std::isinf(want[i]) && got.v[i] == want[i])));
    if (std::isfinite(d))
      c.maxAbs = std::max(c.maxAbs, d);
    if (!ok && c.bad++ == 0) {
      c.first = i;
      c.gotFirst = got.v[i];
      c.wantFirst = want[i];
    }
  }
  return c;
}

} // namespace tessera::testutil

#endif
