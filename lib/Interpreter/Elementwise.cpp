//===- Elementwise.cpp - element-wise ops and element rounding -----------===//
//
// The element-level semantics of arith and math ops as the GPU code has them:
// float ops in float (f64 ops in double), rounded to f16/bf16 (nearest even)
// when that is the result type; integer ops wrap at their width; shifts clamp the amount as PTX
// does; integer division by zero is a fault. Conversions and printing are in
// Convert.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Program.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tessera;
using namespace tessera::interp;
using mlir::arith::CmpFPredicate;
using mlir::arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

uint16_t tessera::interp::floatToHalfBits(float v) {
  uint32_t x = llvm::bit_cast<uint32_t>(v);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7FFFFFFF;
  if (ax >= 0x7F800000)
    return sign | (ax > 0x7F800000 ? 0x7E00 : 0x7C00);
  if (ax >= 0x477FF000) // 65520 and above round to infinity
    return sign | 0x7C00;
  if (ax < 0x38800000) { // below 2^-14: a subnormal (or zero); v * 2^24 is exact
    float a = llvm::bit_cast<float>(ax);
    return sign | (uint16_t)std::nearbyint(a * 16777216.0f);
  }
  uint32_t e = ax - 0x38000000; // rebias the exponent from 127 to 15
  return sign | (uint16_t)((e + 0x0FFF + ((e >> 13) & 1)) >> 13);
}

float tessera::interp::halfBitsToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  if (exp == 0) {
    float m = (float)man * (1.0f / 16777216.0f);
    return sign ? -m : m;
  }
  if (exp == 31)
    return llvm::bit_cast<float>(sign | 0x7F800000 | (man << 13));
  return llvm::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

float tessera::interp::roundToHalf(float v) { return halfBitsToFloat(floatToHalfBits(v)); }

float tessera::interp::roundToBFloat(float v) {
  uint32_t x = llvm::bit_cast<uint32_t>(v);
  if ((x & 0x7FFFFFFF) > 0x7F800000)
    return llvm::bit_cast<float>((x | 0x00400000) & 0xFFFF0000);
  x += 0x7FFF + ((x >> 16) & 1);
  return llvm::bit_cast<float>(x & 0xFFFF0000);
}

double tessera::interp::f8Value(EK k, uint8_t bits) {
  return f8Decode(k == EK::F8E4M3 ? DType::F8E4M3 : DType::F8E5M2, bits);
}

uint8_t tessera::interp::f8Bits(EK k, double v) {
  return f8Encode(k == EK::F8E4M3 ? DType::F8E4M3 : DType::F8E5M2, v);
}

double tessera::interp::roundF(EK k, double v) {
  if (isF8EK(k))
    return f8Value(k, f8Bits(k, v));
  switch (k) {
  case EK::F32:
    return (float)v;
  case EK::F16:
    return roundToHalf((float)v);
  case EK::BF16:
    return roundToBFloat((float)v);
  default:
    return v;
  }
}

int64_t tessera::interp::wrapI(EK k, int64_t v) {
  switch (k) {
  case EK::I1:
    return v & 1;
  case EK::I32:
    return (int64_t)(int32_t)(uint32_t)(uint64_t)v;
  case EK::I8:
    return (int64_t)(int8_t)(uint8_t)(uint64_t)v;
  default:
    return v;
  }
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

namespace {

template <typename T> T maximumF(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <typename T> T minimumF(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

bool cmpF(int64_t pred, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  switch ((CmpFPredicate)pred) {
  case CmpFPredicate::AlwaysFalse:
    return false;
  case CmpFPredicate::OEQ:
    return !unordered && x == y;
  case CmpFPredicate::OGT:
    return !unordered && x > y;
  case CmpFPredicate::OGE:
    return !unordered && x >= y;
  case CmpFPredicate::OLT:
    return !unordered && x < y;
  case CmpFPredicate::OLE:
    return !unordered && x <= y;
  case CmpFPredicate::ONE:
    return !unordered && x != y;
  case CmpFPredicate::ORD:
    return !unordered;
  case CmpFPredicate::UEQ:
    return unordered || x == y;
  case CmpFPredicate::UGT:
    return unordered || x > y;
  case CmpFPredicate::UGE:
    return unordered || x >= y;
  case CmpFPredicate::ULT:
    return unordered || x < y;
  case CmpFPredicate::ULE:
    return unordered || x <= y;
  case CmpFPredicate::UNE:
    return unordered || x != y;
  case CmpFPredicate::UNO:
    return unordered;
  case CmpFPredicate::AlwaysTrue:
    return true;
  }
  return false;
}

bool cmpI(int64_t pred, EK k, int64_t x, int64_t y) {
  uint64_t ux = unsignedOf(k, x), uy = unsignedOf(k, y);
  switch ((CmpIPredicate)pred) {
  case CmpIPredicate::eq:
    return x == y;
  case CmpIPredicate::ne:
    return x != y;
  case CmpIPredicate::slt:
    return x < y;
  case CmpIPredicate::sle:
    return x <= y;
  case CmpIPredicate::sgt:
    return x > y;
  case CmpIPredicate::sge:
    return x >= y;
  case CmpIPredicate::ult:
    return ux < uy;
  case CmpIPredicate::ule:
    return ux <= uy;
  case CmpIPredicate::ugt:
    return ux > uy;
  case CmpIPredicate::uge:
    return ux >= uy;
  }
  return false;
}

/// One integer binary op; false on division by zero.
bool binI(Code c, EK k, int64_t x, int64_t y, int64_t &r) {
  uint64_t ux = unsignedOf(k, x), uy = unsignedOf(k, y);
  int64_t minV = k == EK::I64   ? std::numeric_limits<int64_t>::min()
                 : k == EK::I32 ? INT32_MIN
                 : k == EK::I8  ? INT8_MIN
                                : -1;
  unsigned w = widthOf(k);
  switch (c) {
  case Code::AddI:
    r = (int64_t)((uint64_t)x + (uint64_t)y);
    break;
  case Code::SubI:
    r = (int64_t)((uint64_t)x - (uint64_t)y);
    break;
  case Code::MulI:
    r = (int64_t)((uint64_t)x * (uint64_t)y);
    break;
  case Code::DivSI:
  case Code::RemSI:
  case Code::CeilDivSI:
  case Code::FloorDivSI: {
    if (y == 0)
      return false;
    if (x == minV && y == -1) { // overflow: wraps
      r = c == Code::RemSI                                                    ? 0
          : c == Code::DivSI || c == Code::CeilDivSI || c == Code::FloorDivSI ? minV
                                                                              : 0;
      break;
    }
    int64_t q = x / y, m = x % y;
    if (c == Code::DivSI)
      r = q;
    else if (c == Code::RemSI)
      r = m;
    else if (c == Code::CeilDivSI)
      r = q + (m != 0 && ((x < 0) == (y < 0)));
    else
      r = q - (m != 0 && ((x < 0) != (y < 0)));
    break;
  }
  case Code::DivUI:
    if (uy == 0)
      return false;
    r = (int64_t)(ux / uy);
    break;
  case Code::RemUI:
    if (uy == 0)
      return false;
    r = (int64_t)(ux % uy);
    break;
  case Code::MaxSI:
    r = std::max(x, y);
    break;
  case Code::MinSI:
    r = std::min(x, y);
    break;
  case Code::MaxUI:
    r = ux >= uy ? x : y;
    break;
  case Code::MinUI:
    r = ux <= uy ? x : y;
    break;
  case Code::AndI:
    r = x & y;
    break;
  case Code::OrI:
    r = x | y;
    break;
  case Code::XOrI:
    r = x ^ y;
    break;
  case Code::ShLI:
    r = uy >= w ? 0 : (int64_t)(ux << uy);
    break;
  case Code::ShRSI:
    r = x >> std::min<uint64_t>(uy, 63);
    break;
  case Code::ShRUI:
    r = uy >= w ? 0 : (int64_t)(ux >> uy);
    break;
  default:
    r = 0;
    break;
  }
  r = wrapI(k, r);
  return true;
}

/// A unary float op in T: float for f32, f16 and bf16 (rounded after), double for f64.
template <typename T> T unF(Code c, T x) {
  switch (c) {
  case Code::NegF:
    return -x;
  case Code::Exp:
    return std::exp(x);
  case Code::Exp2:
    return std::exp2(x);
  case Code::Log:
    return std::log(x);
  case Code::Log2:
    return std::log2(x);
  case Code::Log1p:
    return std::log1p(x);
  case Code::Expm1:
    return std::expm1(x);
  case Code::Sqrt:
    return std::sqrt(x);
  case Code::Rsqrt:
    return T(1) / std::sqrt(x);
  case Code::AbsF:
    return std::fabs(x);
  case Code::Tanh:
    return std::tanh(x);
  case Code::Sin:
    return std::sin(x);
  case Code::Cos:
    return std::cos(x);
  case Code::Erf:
    return std::erf(x);
  case Code::Floor:
    return std::floor(x);
  case Code::Ceil:
    return std::ceil(x);
  case Code::Round:
    return std::round(x);
  case Code::RoundEven:
    return std::nearbyint(x);
  case Code::Trunc:
    return std::trunc(x);
  default:
    return x;
  }
}

template <typename T> T binF(Code c, T x, T y) {
  switch (c) {
  case Code::AddF:
    return x + y;
  case Code::SubF:
    return x - y;
  case Code::MulF:
    return x * y;
  case Code::DivF:
    return x / y;
  case Code::RemF:
    return std::fmod(x, y);
  case Code::MaximumF:
    return maximumF(x, y);
  case Code::MinimumF:
    return minimumF(x, y);
  case Code::MaxNumF:
    return std::fmax(x, y);
  case Code::MinNumF:
    return std::fmin(x, y);
  case Code::PowF:
    return std::pow(x, y);
  case Code::Atan2:
    return std::atan2(x, y);
  default:
    return 0;
  }
}

} // namespace

TileRef tessera::interp::evalElementwise(const Inst &inst, llvm::ArrayRef<const Tile *> ins,
                                         Fault &fault) {
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  int64_t n = out->size();
  const Code c = inst.code;
  const EK k = inst.ek;
  if (c == Code::Select) {
    const Tile &cond = *ins[0], &a = *ins[1], &b = *ins[2];
    bool scalarCond = cond.size() == 1 && n != 1;
    for (int64_t e = 0; e < n; ++e) {
      bool t = cond.i[scalarCond ? 0 : e] != 0;
      if (isFloatEK(k))
        out->f[e] = t ? a.f[e] : b.f[e];
      else
        out->i[e] = t ? a.i[e] : b.i[e];
    }
    return out;
  }
  bool wide = k == EK::F64;
  if (c == Code::Fma) {
    for (int64_t e = 0; e < n; ++e)
      out->f[e] =
          wide ? std::fma(ins[0]->f[e], ins[1]->f[e], ins[2]->f[e])
               : roundF(k, std::fma((float)ins[0]->f[e], (float)ins[1]->f[e], (float)ins[2]->f[e]));
    return out;
  }
  if (c == Code::CmpF) {
    for (int64_t e = 0; e < n; ++e)
      out->i[e] = cmpF(inst.a, ins[0]->f[e], ins[1]->f[e]);
    return out;
  }
  if (c == Code::CmpI) {
    EK opk = (EK)inst.b;
    for (int64_t e = 0; e < n; ++e)
      out->i[e] = cmpI(inst.a, opk, ins[0]->i[e], ins[1]->i[e]);
    return out;
  }
  if (c >= Code::AddF && c <= Code::Atan2) {
    for (int64_t e = 0; e < n; ++e)
      out->f[e] = wide ? binF<double>(c, ins[0]->f[e], ins[1]->f[e])
                       : binF<float>(c, (float)ins[0]->f[e], (float)ins[1]->f[e]);
  } else if (c >= Code::AddI && c <= Code::ShRUI) {
    for (int64_t e = 0; e < n; ++e)
      if (!binI(c, k, ins[0]->i[e], ins[1]->i[e], out->i[e])) {
        fault = Fault{inst.op, "integer division by zero"};
        return nullptr;
      }
    return out;
  } else if (c == Code::AbsI) {
    for (int64_t e = 0; e < n; ++e) {
      int64_t x = ins[0]->i[e];
      out->i[e] = wrapI(k, x < 0 ? (int64_t)(0 - (uint64_t)x) : x);
    }
    return out;
  } else if (c == Code::Ctlz) {
    unsigned w = widthOf(k);
    for (int64_t e = 0; e < n; ++e) {
      uint64_t u = unsignedOf(k, ins[0]->i[e]);
      out->i[e] = u == 0 ? w : llvm::countl_zero(u) - (64 - w);
    }
    return out;
  } else {
    for (int64_t e = 0; e < n; ++e)
      out->f[e] = wide ? unF<double>(c, ins[0]->f[e]) : unF<float>(c, (float)ins[0]->f[e]);
  }
  if (k == EK::F16 || k == EK::BF16)
    for (double &v : out->f)
      v = roundF(k, v);
  return out;
}
