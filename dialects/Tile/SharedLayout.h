//===- SharedLayout.h - where a shared buffer's elements live ---*- C++ -*-===//
//
// The address function of `#tile.shared` encodings, written once as a template
// over the integer arithmetic it runs on: host integers (HostArith, for the
// attribute's byteOffset, the allocator and the bank-conflict model) or the
// values of generated code (an IR arithmetic in lib/Conversion). So the
// addresses the lowering emits are the ones the model checks.
//
// A slot is a 2-D tile [rows, cols] stored along its contiguous axis (`rowMajor`:
// the columns); unswizzled rows may be padded (scratch for layout conversions,
// where the padding the bank model prefers spreads rows over the banks). With a swizzle of S bytes
// the contiguous axis is cut into S-byte rows ("column blocks" of S / eltBytes elements); the outer
// extent's rows of one block follow each other, then the next block; then the 16-byte chunk bits
// [4, 4 + log2(S/16)) of the offset are XORed with bits [7, ...): the TMA / wgmma swizzle modes,
// needing a base aligned to 8 * S bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_DIALECTS_TILE_SHAREDLAYOUT_H
#define TESSERA_DIALECTS_TILE_SHAREDLAYOUT_H

#include "llvm/Support/MathExtras.h"

#include <cstdint>

namespace mlir::tile {

/// The geometry of one 2-D slot of a shared buffer.
struct SharedGeometry {
  int64_t rows = 0, cols = 0;
  unsigned eltBytes = 2;
  unsigned swizzle = 0; // bytes: 0, 32, 64, 128
  unsigned vec = 8;     // elements per swizzled unit (16 bytes)
  bool rowMajor = true; // the contiguous axis is the columns
  /// Bytes between rows beyond the row itself (unswizzled scratch only; the
  /// IR encodings have none).
  unsigned pad = 0;

  int64_t innerExtent() const { return rowMajor ? cols : rows; }
  int64_t outerExtent() const { return rowMajor ? rows : cols; }
  /// The alignment of the slot's base: the swizzle pattern's period.
  int64_t alignment() const { return swizzle ? 8 * (int64_t)swizzle : 16; }
  int64_t bytes() const { return rows * cols * eltBytes + (swizzle ? 0 : outerExtent() * pad); }
};

/// Integer arithmetic on the host.
struct HostArith {
  using Int = int64_t;
  Int c(int64_t v) { return v; }
  Int add(Int a, Int b) { return a + b; }
  Int mul(Int a, Int b) { return a * b; }
  Int udiv(Int a, Int b) { return a / b; }
  Int urem(Int a, Int b) { return a % b; }
  Int xor_(Int a, Int b) { return a ^ b; }
  Int and_(Int a, Int b) { return a & b; }
  Int shl(Int a, int64_t s) { return a << s; }
  Int lshr(Int a, int64_t s) { return a >> s; }
  /// `x == v ? a : b` for a constant v.
  Int selectEq(Int x, int64_t v, Int a, Int b) { return x == v ? a : b; }
};

/// The byte offset of element (row, col) of a slot.
template <typename Arith>
typename Arith::Int sharedByteOffset(Arith &a, typename Arith::Int row, typename Arith::Int col,
                                     const SharedGeometry &g) {
  using Int = typename Arith::Int;
  Int inner = g.rowMajor ? col : row, outer = g.rowMajor ? row : col;
  int64_t e = g.eltBytes;
  if (g.swizzle == 0)
    return a.add(a.mul(outer, a.c(g.innerExtent() * e + g.pad)), a.mul(inner, a.c(e)));
  int64_t s = g.swizzle, perRow = s / e;
  Int block = a.udiv(inner, a.c(perRow)), within = a.urem(inner, a.c(perRow));
  Int off = a.add(a.add(a.mul(block, a.c(g.outerExtent() * s)), a.mul(outer, a.c(s))),
                  a.mul(within, a.c(e)));
  Int phase = a.and_(a.lshr(off, 7), a.c(s / 16 - 1));
  return a.xor_(off, a.shl(phase, 4));
}

} // namespace mlir::tile

#endif
