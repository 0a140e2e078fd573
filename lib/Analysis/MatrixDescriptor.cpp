//===- MatrixDescriptor.cpp - wgmma's shared-memory operands ----*- C++ -*-===//
#include "lib/Analysis/MatrixDescriptor.h"

using namespace tessera::analysis;
using mlir::tile::SharedGeometry;

std::optional<MatrixDescriptor> tessera::analysis::describeOperand(const SharedGeometry &geo,
                                                                   bool isA) {
  if (geo.swizzle != 32 && geo.swizzle != 64 && geo.swizzle != 128)
    return std::nullopt;
  MatrixDescriptor d;
  // A is [M, K]: row-major means K contiguous. B is [K, N]: column-major.
  d.kMajor = isA ? geo.rowMajor : !geo.rowMajor;
  d.swizzle = geo.swizzle;
  d.sbo = 8 * (int64_t)geo.swizzle;
  d.lbo = d.kMajor ? 16 : geo.outerExtent() * geo.swizzle;
  return d;
}

std::optional<int64_t> tessera::analysis::instructionStart(const SharedGeometry &geo, bool isA,
                                                           int64_t mn, int64_t k) {
  mlir::tile::HostArith a;
  int64_t off = isA ? mlir::tile::sharedByteOffset(a, mn, k, geo)
                    : mlir::tile::sharedByteOffset(a, k, mn, geo);
  // On the first row of a swizzle period, the swizzled offset is the plain one.
  if (!geo.swizzle || off % (8 * (int64_t)geo.swizzle) >= geo.swizzle || off % 16)
    return std::nullopt;
  return off;
}
