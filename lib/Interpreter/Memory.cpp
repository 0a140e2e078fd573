//===- Memory.cpp - the interpreter's accesses to tensor arguments --------===//
//
// Loads that pad, stores that mask, gathers, scatters and atomics over the
// kernel's tensor arguments (each an Arg with its element type, shape and
// element strides). An access outside a tensor reads the pad (zero without
// one) and writes nothing. Atomics of all programs are serialized.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Frame.h"

#include "dialects/Tile/TileDialect.h"

#include <cmath>
#include <cstring>
#include <mutex>

using namespace tessera;
using namespace tessera::interp;

/// Element strides of a tensor argument (row-major unless given).
static llvm::SmallVector<int64_t, 4> stridesOf(const Arg &a) {
  llvm::SmallVector<int64_t, 4> s(a.shape.size(), 1);
  if (!a.strides.empty())
    return llvm::SmallVector<int64_t, 4>(a.strides.begin(), a.strides.end());
  for (int i = (int)a.shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * a.shape[i + 1];
  return s;
}

static double readFloat(const Arg &a, int64_t off) {
  const char *p = (const char *)a.data;
  switch (a.dtype) {
  case DType::F8E4M3:
    return f8Value(EK::F8E4M3, (uint8_t)p[off]);
  case DType::F8E5M2:
    return f8Value(EK::F8E5M2, (uint8_t)p[off]);
  case DType::F64: {
    double d;
    std::memcpy(&d, p + off * 8, 8);
    return d;
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p + off * 4, 4);
    return f;
  }
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, p + off * 2, 2);
    return halfBitsToFloat(h);
  }
  default: {
    uint16_t h;
    std::memcpy(&h, p + off * 2, 2);
    uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  }
}
// Integers are read into the signless form (u8 and u32 as the i8 and i32 with
// their bits).
static int64_t readInt(const Arg &a, int64_t off) {
  const char *p = (const char *)a.data;
  switch (a.dtype) {
  case DType::I8:
  case DType::U8:
  case DType::F8E4M3: // as code generation sees f8: bits (tile-legalize-float8)
  case DType::F8E5M2:
    return (int8_t)p[off];
  case DType::I32:
  case DType::U32: {
    int32_t x;
    std::memcpy(&x, p + off * 4, 4);
    return x;
  }
  case DType::I64: {
    int64_t x;
    std::memcpy(&x, p + off * 8, 8);
    return x;
  }
  default:
    return p[off] != 0;
  }
}
static void writeElement(const Arg &a, int64_t off, const Tile &t, int64_t e) {
  char *p = (char *)a.data;
  switch (a.dtype) {
  case DType::F64:
    std::memcpy(p + off * 8, &t.f[e], 8);
    break;
  case DType::F32: {
    float f = (float)t.f[e];
    std::memcpy(p + off * 4, &f, 4);
    break;
  }
  case DType::F16: {
    uint16_t h = floatToHalfBits((float)t.f[e]);
    std::memcpy(p + off * 2, &h, 2);
    break;
  }
  case DType::BF16: {
    uint32_t u;
    float f = roundToBFloat((float)t.f[e]);
    std::memcpy(&u, &f, 4);
    uint16_t h = (uint16_t)(u >> 16);
    std::memcpy(p + off * 2, &h, 2);
    break;
  }
  case DType::I8:
  case DType::U8:
    p[off] = (char)(uint8_t)t.i[e];
    break;
  case DType::F8E4M3:
  case DType::F8E5M2: // a value, or its bits after tile-legalize-float8
    p[off] = isFloatEK(t.ek) ? (char)f8Bits(t.ek, t.f[e]) : (char)t.i[e];
    break;
  case DType::I32:
  case DType::U32: {
    int32_t x = (int32_t)t.i[e];
    std::memcpy(p + off * 4, &x, 4);
    break;
  }
  case DType::I64: {
    int64_t x = t.i[e];
    std::memcpy(p + off * 8, &x, 8);
    break;
  }
  case DType::Bool:
    p[off] = t.i[e] != 0;
    break;
  }
}

/// Visits every element of a load or store: `fn(element, offset or -1 when outside)`.
template <typename F>
static void forEachAccess(const Inst &inst, const Frame &f, llvm::ArrayRef<int64_t> tileShape,
                          F fn) {
  const Arg &a = f.args[inst.a];
  size_t r = a.shape.size(), k = tileShape.size();
  llvm::SmallVector<int64_t, 4> base(r), strides = stridesOf(a);
  // A padded tile's blocks have its block extents; elements past them are outside.
  llvm::ArrayRef<int64_t> block = inst.extents.empty() ? tileShape : inst.extents;
  for (size_t d = 0; d < r; ++d) {
    int64_t c = f.in(inst, d).i[0];
    base[d] = d < r - k ? c : c * block[d - (r - k)];
  }
  // Odometer over the tile's indices.
  int64_t n = 1;
  for (int64_t s : tileShape)
    n *= s;
  llvm::SmallVector<int64_t, 4> idx(k, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < r; ++d) {
      int64_t g = base[d] + (d < r - k ? 0 : idx[d - (r - k)]);
      inside &= g >= 0 && g < a.shape[d] && (d < r - k || idx[d - (r - k)] < block[d - (r - k)]);
      off += g * strides[d];
    }
    fn(e, inside ? off : -1);
    for (int d = (int)k - 1; d >= 0; --d) {
      if (++idx[d] < tileShape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Element `e` of `out`: the tensor's element at `off`, or the pad (zero
/// without one) where `off` is -1 (outside the tensor, or masked).
static void readOrPad(const Arg &a, int64_t off, const Tile *pad, Tile &out, int64_t e) {
  if (isFloatEK(out.ek))
    out.f[e] = off >= 0 ? readFloat(a, off) : pad ? pad->f[0] : 0.0;
  else
    out.i[e] = off >= 0 ? readInt(a, off) : pad ? pad->i[0] : 0;
}

TileRef tessera::interp::load(const Inst &inst, const Frame &f) {
  const Arg &a = f.args[inst.a];
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  const Tile *pad = inst.b ? &f.in(inst, a.shape.size()) : nullptr;
  forEachAccess(inst, f, inst.shape,
                [&](int64_t e, int64_t off) { readOrPad(a, off, pad, *out, e); });
  return out;
}

void tessera::interp::store(const Inst &inst, const Frame &f) {
  const Arg &a = f.args[inst.a];
  const Tile &v = f.in(inst, a.shape.size());
  forEachAccess(inst, f, v.shape, [&](int64_t e, int64_t off) {
    if (off >= 0)
      writeElement(a, off, v, e);
  });
}

/// Visits every element of a gather, scatter or atomic: `fn(element, offset
/// or -1 when an index is outside the tensor or `mask` is false there)`. The
/// indices are the first operands, one per axis.
template <typename F>
static void forEachIndexed(const Inst &inst, const Frame &f, const Tile *mask, F fn) {
  const Arg &a = f.args[inst.a];
  size_t r = a.shape.size();
  llvm::SmallVector<int64_t, 4> strides = stridesOf(a);
  int64_t n = f.in(inst, 0).size();
  for (int64_t e = 0; e < n; ++e) {
    bool inside = !mask || mask->i[e] != 0;
    int64_t off = 0;
    for (size_t d = 0; d < r && inside; ++d) {
      int64_t g = f.in(inst, d).i[e];
      inside = g >= 0 && g < a.shape[d];
      off += g * strides[d];
    }
    fn(e, inside ? off : -1);
  }
}

TileRef tessera::interp::gather(const Inst &inst, const Frame &f) {
  const Arg &a = f.args[inst.a];
  size_t r = a.shape.size();
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  const Tile *pad = inst.b & 2 ? &f.in(inst, r + (inst.b & 1)) : nullptr;
  // Operands: the indices, then the mask (inst.b & 1), then the pad (inst.b & 2).
  const Tile *mask = inst.b & 1 ? &f.in(inst, r) : nullptr;
  forEachIndexed(inst, f, mask, [&](int64_t e, int64_t off) { readOrPad(a, off, pad, *out, e); });
  return out;
}

/// Elements are written in row-major order of the access, so of two that
/// name one tensor element the later one's value stays.
void tessera::interp::scatter(const Inst &inst, const Frame &f) {
  const Arg &a = f.args[inst.a];
  // Operands: the indices, the value, then the mask (inst.b & 1).
  const Tile &v = f.in(inst, a.shape.size());
  const Tile *mask = inst.b & 1 ? &f.in(inst, a.shape.size() + 1) : nullptr;
  forEachIndexed(inst, f, mask, [&](int64_t e, int64_t off) {
    if (off >= 0)
      writeElement(a, off, v, e);
  });
}

/// Atomics of all programs are serialized (programs run on several threads).
static std::mutex atomicMutex;

/// tile.atomic_rmw (`inst.b` = kind * 2 + has mask) and tile.atomic_cas
/// (`cas`; `inst.b` = has mask): operands are the indices, (cmp,) the value,
/// then the mask. Floats add in f32 and round to the element type, as the
/// GPU's atomics do; integers wrap.
TileRef tessera::interp::atomic(const Inst &inst, const Frame &f, bool cas) {
  const Arg &a = f.args[inst.a];
  size_t r = a.shape.size();
  auto kind = (mlir::tile::AtomicKind)(inst.b >> 1);
  const Tile &v = f.in(inst, r + (cas ? 1 : 0));
  const Tile *cmp = cas ? &f.in(inst, r) : nullptr;
  const Tile *mask = inst.b & 1 ? &f.in(inst, inst.in.size() - 1) : nullptr;
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  bool fl = isFloatEK(inst.ek);
  std::lock_guard<std::mutex> lock(atomicMutex);
  Tile next(inst.ek, {});
  forEachIndexed(inst, f, mask, [&](int64_t e, int64_t off) {
    if (off < 0)
      return;
    if (fl) {
      float old = (float)readFloat(a, off), x = (float)v.f[e];
      out->f[e] = old;
      if (cas) {
        uint32_t ob, cb;
        float c = (float)cmp->f[e];
        std::memcpy(&ob, &old, 4);
        std::memcpy(&cb, &c, 4);
        if (ob != cb)
          return;
        next.f[0] = x;
      } else {
        float n = kind == mlir::tile::AtomicKind::add ? old + x
                  : kind == mlir::tile::AtomicKind::max
                      ? (std::isnan(old) || std::isnan(x) ? std::fmax(old, x) : std::max(old, x))
                  : kind == mlir::tile::AtomicKind::min
                      ? (std::isnan(old) || std::isnan(x) ? std::fmin(old, x) : std::min(old, x))
                      : x;
        next.f[0] = roundF(inst.ek, n);
      }
    } else {
      int64_t old = readInt(a, off), x = v.i[e];
      out->i[e] = old;
      if (cas) {
        if (old != cmp->i[e])
          return;
        next.i[0] = x;
      } else {
        int64_t n = kind == mlir::tile::AtomicKind::add   ? (int64_t)((uint64_t)old + (uint64_t)x)
                    : kind == mlir::tile::AtomicKind::max ? std::max(old, x)
                    : kind == mlir::tile::AtomicKind::min ? std::min(old, x)
                                                          : x;
        next.i[0] = wrapI(inst.ek, n);
      }
    }
    writeElement(a, off, next, 0);
  });
  return out;
}
