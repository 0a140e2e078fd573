//===- MatrixDescriptor.h - wgmma's shared-memory operands ------*- C++ -*-===//
//
// What a wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format") says
// about an operand in a `#tile.shared` slot: the byte offset of an
// instruction's first element, the leading and stride byte offsets, the
// swizzle mode and whether the operand is K-major (else read with the
// transpose bit). Host arithmetic only: the lowering adds the slot's address
// and packs the bits; the unit test reads every element back through the
// hardware's canonical layouts and swizzle and compares with the encoding.
//
// The encodings cut the contiguous axis into column blocks of `swizzle` bytes
// whose rows follow each other (SharedLayout.h). K-major: 8-row groups are
// 8 * swizzle bytes apart (the stride offset); one instruction's 16 K values
// (32 bytes) lie in one swizzle row, so the leading offset is unused. M- or
// N-major: the stride offset steps 8 K rows, the leading offset the column
// blocks along M or N (the slot's rows times the swizzle).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_ANALYSIS_MATRIXDESCRIPTOR_H
#define TESSERA_ANALYSIS_MATRIXDESCRIPTOR_H

#include "dialects/Tile/SharedLayout.h"

#include <cstdint>
#include <optional>

namespace tessera::analysis {

struct MatrixDescriptor {
  bool kMajor = true;
  unsigned swizzle = 128; // bytes: 32, 64 or 128
  int64_t lbo = 16, sbo = 1024;

  /// The descriptor's swizzle-mode field: 1 for 128 bytes, 2 for 64, 3 for 32.
  unsigned swizzleMode() const { return swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3; }
  /// Every field but the start address (bits 0-13).
  uint64_t highBits() const {
    return ((uint64_t)(lbo >> 4) & 0x3FFF) << 16 | ((uint64_t)(sbo >> 4) & 0x3FFF) << 32 |
           (uint64_t)swizzleMode() << 62;
  }
};

/// The descriptor of operand A ([M, K], `isA`) or B ([K, N]) stored in a slot
/// of geometry `geo`, or nullopt when wgmma cannot read it (unswizzled).
std::optional<MatrixDescriptor> describeOperand(const mlir::tile::SharedGeometry &geo, bool isA);

/// The byte offset in the slot of the instruction whose first element is
/// (mn, k) (M or N index, K index), or nullopt when it does not start on a
/// swizzle period (the descriptor's start must, for the hardware's swizzle of
/// address bits to find the encoding's bytes).
std::optional<int64_t> instructionStart(const mlir::tile::SharedGeometry &geo, bool isA, int64_t mn,
                                        int64_t k);

} // namespace tessera::analysis

#endif
