//===- Convert.cpp - conversions and printing in the interpreter ---------===//
//
// tile.convert as the GPU code has it: float to integer truncates toward
// zero, saturating, NaN to 0; integer to float rounds to the target type;
// f64 to f16 or bf16 rounds once (not through f32); a bitcast keeps the
// element bits. Printing formats tiles as tile.print does on the GPU.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Program.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tessera;
using namespace tessera::interp;

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

namespace {

int64_t floatToInt(double v, EK to, bool isUnsigned) {
  if (std::isnan(v))
    return 0;
  v = std::trunc(v);
  double lo, hi;
  if (to == EK::I64) {
    lo = isUnsigned ? 0 : -9223372036854775808.0;
    hi = isUnsigned ? 18446744073709551615.0 : 9223372036854775807.0;
    if (v <= lo)
      return isUnsigned ? 0 : std::numeric_limits<int64_t>::min();
    if (v >= hi)
      return isUnsigned ? -1 : std::numeric_limits<int64_t>::max();
    return isUnsigned ? (int64_t)(uint64_t)v : (int64_t)v;
  }
  double half = to == EK::I8 ? 128.0 : 2147483648.0;
  lo = isUnsigned ? 0 : -half;
  hi = isUnsigned ? 2 * half - 1 : half - 1;
  v = std::min(std::max(v, lo), hi);
  return wrapI(to, (int64_t)v);
}

double intToFloat(int64_t v, EK from, bool isUnsigned, EK to) {
  if (from == EK::I1)
    return (double)(v & 1);
  if (to == EK::F64 || isF8EK(to)) // one rounding, at most
    return roundF(to, isUnsigned ? (double)unsignedOf(from, v) : (double)v);
  bool big = isUnsigned ? unsignedOf(from, v) >= (1u << 24) : (v >= (1 << 24) || v <= -(1 << 24));
  if (to == EK::F32 || !big)
    return roundF(to, isUnsigned ? (float)unsignedOf(from, v) : (float)v);
  // Avoid double rounding through float: round the integer once.
  llvm::APFloat f(to == EK::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat());
  llvm::APSInt i(llvm::APInt(64, (uint64_t)(isUnsigned ? unsignedOf(from, v) : v)), isUnsigned);
  f.convertFromAPInt(i, !isUnsigned, llvm::APFloat::rmNearestTiesToEven);
  bool lost;
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToFloat();
}

} // namespace

namespace {
/// An f64 value as f16 or bf16, rounded once (not through f32).
double narrowF64(EK to, double v) {
  llvm::APFloat f(v);
  bool lost;
  f.convert(to == EK::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
            llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}
} // namespace

namespace {
/// The bits of an element (floats of 16 bits and less are rounded already).
uint64_t bitsOf(const Tile &t, int64_t e) {
  switch (t.ek) {
  case EK::F32:
    return llvm::bit_cast<uint32_t>((float)t.f[e]);
  case EK::F64:
    return llvm::bit_cast<uint64_t>(t.f[e]);
  case EK::F8E4M3:
  case EK::F8E5M2:
    return f8Bits(t.ek, t.f[e]);
  default:
    return unsignedOf(t.ek, t.i[e]);
  }
}
/// arith.bitcast: the same bits as another type of their width.
TileRef reinterpret(const Inst &inst, const Tile &src) {
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  for (int64_t e = 0, n = out->size(); e < n; ++e) {
    uint64_t b = bitsOf(src, e);
    switch (inst.ek) {
    case EK::F32:
      out->f[e] = llvm::bit_cast<float>((uint32_t)b);
      break;
    case EK::F64:
      out->f[e] = llvm::bit_cast<double>(b);
      break;
    case EK::F8E4M3:
    case EK::F8E5M2:
      out->f[e] = f8Value(inst.ek, (uint8_t)b);
      break;
    default:
      out->i[e] = wrapI(inst.ek, (int64_t)b);
      break;
    }
  }
  return out;
}
} // namespace

TileRef tessera::interp::evalConvert(const Inst &inst, const Tile &src) {
  if (inst.b == 3)
    return reinterpret(inst, src);
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  int64_t n = out->size();
  EK from = src.ek, to = inst.ek;
  bool isUnsigned = inst.b == 1, bitTrunc = inst.b == 2;
  for (int64_t e = 0; e < n; ++e) {
    if (isFloatEK(from)) {
      double v = src.f[e];
      if (from == EK::F64 && (to == EK::F16 || to == EK::BF16))
        out->f[e] = narrowF64(to, v);
      else if (isFloatEK(to))
        out->f[e] = roundF(to, v);
      else if (to == EK::I1)
        out->i[e] = v != 0;
      else
        out->i[e] = floatToInt(v, to, isUnsigned);
    } else {
      int64_t v = src.i[e];
      if (isFloatEK(to))
        out->f[e] = intToFloat(v, from, isUnsigned, to);
      else if (to == EK::I1)
        out->i[e] = bitTrunc ? (v & 1) : (v != 0);
      else if (from == EK::I1 || isUnsigned)
        out->i[e] = wrapI(to, (int64_t)unsignedOf(from, v));
      else
        out->i[e] = wrapI(to, v);
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

void printElement(llvm::raw_ostream &os, const Tile &t, int64_t idx) {
  if (isFloatEK(t.ek))
    os << llvm::format("%.6g", (double)t.f[idx]);
  else if (t.ek == EK::I1)
    os << (t.i[idx] ? "true" : "false");
  else
    os << t.i[idx];
}

void printAxis(llvm::raw_ostream &os, const Tile &t, unsigned axis, int64_t base, bool elide) {
  int64_t ext = t.shape[axis], stride = 1;
  for (unsigned a = axis + 1; a < t.shape.size(); ++a)
    stride *= t.shape[a];
  const int64_t edge = 3;
  os << "[";
  for (int64_t x = 0; x < ext; ++x) {
    if (elide && ext > 2 * edge && x == edge) {
      os << (x ? ", " : "") << "...";
      x = ext - edge - 1;
      continue;
    }
    if (x)
      os << ", ";
    if (axis + 1 == t.shape.size())
      printElement(os, t, base + x);
    else
      printAxis(os, t, axis + 1, base + x * stride, elide);
  }
  os << "]";
}

} // namespace

void tessera::interp::printTile(llvm::raw_ostream &os, const Tile &t) {
  if (t.shape.empty()) {
    printElement(os, t, 0);
    return;
  }
  printAxis(os, t, 0, 0, t.size() > 256);
}
