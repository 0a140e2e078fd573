//===- MatrixDescriptorTest.cpp - wgmma descriptors, read back ------------===//
//
// Reads every element of every wgmma instruction's operand through the
// hardware's view of a matrix descriptor, written here from the PTX ISA's
// canonical layouts (independently of the compiler): K-major, 8-row groups
// `sbo` apart, rows one swizzle width apart, K contiguous; M/N-major, runs of
// one swizzle width along M/N `lbo` apart, K rows one swizzle width apart,
// 8-row groups `sbo` apart; then the swizzle of absolute address bits
// (16-byte chunk bits XOR the bits from bit 7). Each address must be the one
// the slot's encoding gives that element (SharedLayout.h), for A and B, both
// majors, every swizzle, several tile sizes, at slot bases on 1024-byte
// boundaries. Swapping the two offsets of an M/N-major descriptor must break
// it (so the comparison can fail).
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/MatrixDescriptor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tessera::analysis;
using mlir::tile::SharedGeometry;

namespace {

/// The address wgmma reads for element (mn, k) of one instruction (indices
/// relative to its first element) whose descriptor starts at `start`.
int64_t hardwareAddress(int64_t start, const MatrixDescriptor &d, int64_t mn, int64_t k,
                        int64_t eltBytes) {
  int64_t s = d.swizzle, addr;
  if (d.kMajor) {
    addr = start + (mn / 8) * d.sbo + (mn % 8) * s + k * eltBytes;
  } else {
    int64_t run = s / eltBytes;
    addr = start + (mn / run) * d.lbo + (mn % run) * eltBytes + (k / 8) * d.sbo + (k % 8) * s;
  }
  return addr ^ (((addr >> 7) & (s / 16 - 1)) << 4);
}

struct Case {
  bool isA, rowMajor;
  unsigned swizzle;
  int64_t mnExtent, kExtent, instrMN;
  std::string name() const {
    return std::string(isA ? "A" : "B") + "_" +
           ((isA == rowMajor) ? "kmajor" : (isA ? "mmajor" : "nmajor")) + "_sw" +
           std::to_string(swizzle) + "_mn" + std::to_string(mnExtent) + "_k" +
           std::to_string(kExtent) + "_i" + std::to_string(instrMN);
  }
  SharedGeometry geometry() const {
    SharedGeometry g;
    g.rows = isA ? mnExtent : kExtent;
    g.cols = isA ? kExtent : mnExtent;
    g.eltBytes = 2;
    g.swizzle = swizzle;
    g.vec = 8;
    g.rowMajor = rowMajor;
    return g;
  }
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (bool isA : {true, false})
    for (bool rowMajor : {true, false})
      for (unsigned sw : {32u, 64u, 128u})
        for (int64_t mn : {64, 128, 256})
          for (int64_t k : {16, 32, 64, 128}) {
            Case c{isA, rowMajor, sw, mn, k, isA ? 64 : std::min<int64_t>(mn, 128)};
            int64_t inner = c.geometry().innerExtent() * 2;
            bool kMajor = isA == rowMajor;
            if (inner < sw || inner % sw || (!kMajor && c.instrMN * 2 < sw))
              continue;
            out.push_back(c);
          }
  return out;
}

/// Mismatched elements over every instruction of the slot.
int64_t mismatches(const Case &c, const MatrixDescriptor &d, int64_t slotBase) {
  SharedGeometry g = c.geometry();
  mlir::tile::HostArith a;
  int64_t bad = 0;
  for (int64_t mn0 = 0; mn0 < c.mnExtent; mn0 += c.instrMN)
    for (int64_t k0 = 0; k0 < c.kExtent; k0 += 16) {
      std::optional<int64_t> start = instructionStart(g, c.isA, mn0, k0);
      EXPECT_TRUE(start.has_value()) << c.name() << " at (" << mn0 << ", " << k0 << ")";
      if (!start)
        return -1;
      for (int64_t mn = 0; mn < c.instrMN; ++mn)
        for (int64_t k = 0; k < 16; ++k) {
          int64_t row = c.isA ? mn0 + mn : k0 + k, col = c.isA ? k0 + k : mn0 + mn;
          int64_t want = slotBase + mlir::tile::sharedByteOffset(a, row, col, g);
          if (hardwareAddress(slotBase + *start, d, mn, k, 2) != want)
            ++bad;
        }
    }
  return bad;
}

// One test over every case: each ctest is a process of its own.
TEST(Descriptors, ReadEveryElementWhereTheEncodingPutsIt) {
  std::vector<Case> all = cases();
  EXPECT_GT(all.size(), 60u);
  for (const Case &c : all) {
    SCOPED_TRACE(c.name());
    std::optional<MatrixDescriptor> d = describeOperand(c.geometry(), c.isA);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->kMajor, c.isA == c.rowMajor);
    for (int64_t base : {0, 1024, 5 * 1024})
      EXPECT_EQ(mismatches(c, *d, base), 0) << "at base " << base;
  }
}

TEST(DescriptorsCanFail, SwappedOffsetsOfAnNMajorOperandMisread) {
  Case c{false, true, 128, 256, 64, 128}; // B [64, 256], N contiguous: two column blocks
  std::optional<MatrixDescriptor> d = describeOperand(c.geometry(), false);
  ASSERT_TRUE(d.has_value());
  ASSERT_FALSE(d->kMajor);
  std::swap(d->lbo, d->sbo);
  EXPECT_GT(mismatches(c, *d, 0), 0);
}

TEST(DescriptorsCanFail, UnswizzledSlotsHaveNone) {
  SharedGeometry g;
  g.rows = 64;
  g.cols = 64;
  g.swizzle = 0;
  EXPECT_FALSE(describeOperand(g, true).has_value());
  EXPECT_FALSE(instructionStart(g, true, 0, 0).has_value());
}

TEST(DescriptorsCanFail, StartsOffASwizzlePeriodAreRefused) {
  SharedGeometry g;
  g.rows = 64;
  g.cols = 64;
  g.swizzle = 128;
  g.rowMajor = true;
  // Row 4 of an 8-row period: its swizzled offset is not its plain one.
  EXPECT_FALSE(instructionStart(g, true, 4, 0).has_value());
  EXPECT_TRUE(instructionStart(g, true, 8, 16).has_value());
}

} // namespace
