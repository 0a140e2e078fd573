//===- SharedMemoryTest.cpp - shared-memory plans, simulated --------------===//
//
// Two properties of every shared-memory instruction the lowering emits, both
// from the same address functions the lowering instantiates with IR
// arithmetic (SharedLayout.h, SharedAccess.h):
//
//  - Round trip: every thread stores its elements of a tile (vector plan),
//    then every thread reads a tile of another layout (vector or ldmatrix plan,
//    ldmatrix simulated by its PTX ISA definition); each register must hold
//    the element its layout's Distribution says. Checked for operand staging
//    (A and B, K contiguous or not, every swizzle) and layout conversions.
//  - Bank conflicts: simulated per 8-lane phase (16-byte accesses and
//    ldmatrix), 16-lane (8-byte) or 32-lane phase. The old unswizzled staging
//    (a fixed copy: row-major, no swizzle) must show conflicts, so the test can
//    fail; the encodings the compiler chooses must show none.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Transforms/Layouts.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::analysis;

namespace {

class SharedMemory : public ::testing::Test {
protected:
  SharedMemory() { ctx.loadDialect<TileDialect>(); }
  MLIRContext ctx;

  Distribution dist(Attribute layout, ArrayRef<int64_t> shape) {
    auto d = cast<DistributedLayoutAttrInterface>(layout).distribute(shape);
    EXPECT_TRUE(succeeded(d));
    return *d;
  }
};

/// The value of element (row, col) of the test tile.
int64_t valueAt(int64_t row, int64_t col) { return row * 1000 + col + 1; }

/// The tile's own coordinates (row, col) of element i of thread (lane, warp).
std::pair<int64_t, int64_t> coordsOf(const Distribution &d, size_t i, unsigned lane,
                                     unsigned warp) {
  auto c = d.coordsOf(i, lane, warp);
  SmallVector<int64_t> own;
  for (unsigned ax = 0; ax < d.rank(); ++ax)
    if (!d.isSliced(ax))
      own.push_back(c[ax]);
  return {own.size() == 1 ? 0 : own[0], own.back()};
}

template <typename T> std::string str(T x) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << x;
  return s;
}

/// Shared memory as element slots keyed by byte offset.
using Memory = std::map<int64_t, int64_t>;

void simulateStore(const SharedPlan &p, unsigned warps, Memory &mem) {
  HostArith a;
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned lane = 0; lane < 32; ++lane) {
      auto base = threadBaseOf(a, p.dist, (int64_t)lane, (int64_t)w);
      for (const SharedInstr &in : p.instrs) {
        int64_t off = laneOffset(a, p, in, base, base, (int64_t)lane);
        for (unsigned e = 0; e < in.elems; ++e) {
          auto [r, c] = coordsOf(p.dist, in.first + e, lane, w);
          mem[off + e * p.geo.eltBytes] = valueAt(r, c);
        }
      }
    }
}

/// Loads per the plan; returns, per thread, its registers.
std::vector<std::vector<int64_t>> simulateLoad(const SharedPlan &p, unsigned warps,
                                               const Memory &mem) {
  HostArith a;
  std::vector<std::vector<int64_t>> regs(warps * 32,
                                         std::vector<int64_t>(p.dist.offsets.size(), -1));
  auto read = [&](int64_t off) {
    auto it = mem.find(off);
    return it == mem.end() ? -2 : it->second;
  };
  for (unsigned w = 0; w < warps; ++w) {
    // Every lane's row address (ldmatrix) or access offset.
    std::vector<std::vector<int64_t>> offs(32);
    for (unsigned lane = 0; lane < 32; ++lane) {
      auto base = threadBaseOf(a, p.dist, (int64_t)lane, (int64_t)w);
      auto warpBase = threadBaseOf(a, p.dist, (int64_t)0, (int64_t)w);
      for (const SharedInstr &in : p.instrs)
        offs[lane].push_back(laneOffset(a, p, in, base, warpBase, (int64_t)lane));
    }
    for (unsigned lane = 0; lane < 32; ++lane)
      for (auto [k, in] : llvm::enumerate(p.instrs)) {
        auto &mine = regs[w * 32 + lane];
        if (in.kind == SharedInstr::Vector) {
          for (unsigned e = 0; e < in.elems; ++e)
            mine[in.first + e] = read(offs[lane][k] + e * p.geo.eltBytes);
          continue;
        }
        // ldmatrix: matrix m's row r comes from lane 8m + r's address; thread t
        // gets row t/4, elements 2(t%4) and +1 (.trans: rows 2(t%4) and +1 of
        // column t/4).
        for (unsigned m = 0; m < in.num; ++m)
          for (unsigned e = 0; e < 2; ++e) {
            unsigned row = in.trans ? 2 * (lane % 4) + e : lane / 4;
            unsigned col = in.trans ? lane / 4 : 2 * (lane % 4) + e;
            mine[in.regs[m] + e] = read(offs[8 * m + row][k] + col * p.geo.eltBytes);
          }
      }
  }
  return regs;
}

/// Stores `src`'s tile and reads it back as `dst`: every register must hold
/// its element.
void expectRoundTrip(const Distribution &src, const Distribution &dst, const SharedGeometry &g,
                     unsigned warps, bool wantLdmatrix) {
  FailureOr<SharedPlan> w = planVectors(src, g), r = readPlan(dst, g);
  ASSERT_TRUE(succeeded(w) && succeeded(r));
  EXPECT_EQ(r->instrs.front().kind == SharedInstr::Ldmatrix, wantLdmatrix);
  Memory mem;
  simulateStore(*w, warps, mem);
  auto regs = simulateLoad(*r, warps, mem);
  for (unsigned w2 = 0; w2 < warps; ++w2)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (size_t i = 0; i < dst.offsets.size(); ++i) {
        auto [row, col] = coordsOf(dst, i, lane, w2);
        ASSERT_EQ(regs[w2 * 32 + lane][i], valueAt(row, col))
            << "warp " << w2 << " lane " << lane << " element " << i << " (" << row << ", " << col
            << "), swizzle " << g.swizzle << (g.rowMajor ? " row-major" : " column-major");
      }
}

struct OperandCase {
  const char *name;
  unsigned opIdx;
  int64_t rows, cols;
  unsigned warps;
  bool kContiguous; // stored with the K axis contiguous
  bool f16;
};

class OperandStaging : public SharedMemory, public ::testing::WithParamInterface<OperandCase> {};

TEST_P(OperandStaging, RoundTripsAndHasNoBankConflicts) {
  const OperandCase &c = GetParam();
  Type elt = c.f16 ? (Type)Float16Type::get(&ctx) : (Type)BFloat16Type::get(&ctx);
  tessera::target::MmaInstr instr{2, 16, 8, 16};
  int64_t m = c.opIdx == 0 ? c.rows : 64, n = c.opIdx == 1 ? c.cols : 64;
  MmaLayoutAttr mma = getMmaLayout(&ctx, {m, n}, c.warps, instr);
  auto reader = DotOperandLayoutAttr::get(&ctx, c.opIdx, mma);
  // The writer: the coalesced load layout of the tile as it lies in memory
  // (transposed when the operand is read through .T).
  unsigned kAxis = c.opIdx == 0 ? 1 : 0;
  bool rowMajor = c.kContiguous == (kAxis == 1);
  SmallVector<int64_t> stored =
      rowMajor ? SmallVector<int64_t>{c.rows, c.cols} : SmallVector<int64_t>{c.cols, c.rows};
  BlockedLayoutAttr load = getDefaultBlockedLayout(&ctx, stored, c.warps, 16);
  BlockedLayoutAttr writer = rowMajor ? load : getTransposedLayout(load);
  auto src = RankedTensorType::get({c.rows, c.cols}, elt, writer);
  Distribution w = dist(writer, {c.rows, c.cols}), r = dist(reader, {c.rows, c.cols});

  // The old staging: row-major, unswizzled (a fixed copy of what the lowering
  // did before shared memory was IR). It conflicts.
  SharedGeometry old{c.rows, c.cols, 2, 0, 8, true};
  expectRoundTrip(w, r, old, c.warps, /*wantLdmatrix=*/true);
  FailureOr<SharedPlan> oldRead = readPlan(r, old);
  ASSERT_TRUE(succeeded(oldRead));
  EXPECT_GT(bankConflicts(*oldRead, c.warps), 0u) << "the old staging should conflict";

  // The encoding the compiler chooses: conflict-free both ways.
  SharedEncodingAttr enc = chooseStagingEncoding(src, reader);
  EXPECT_EQ(enc.isRowMajor(), rowMajor);
  SharedGeometry g{c.rows, c.cols, 2, enc.getSwizzle(), enc.getVec(), enc.isRowMajor()};
  expectRoundTrip(w, r, g, c.warps, /*wantLdmatrix=*/true);
  FailureOr<SharedPlan> write = planVectors(w, g), read = readPlan(r, g);
  ASSERT_TRUE(succeeded(write) && succeeded(read));
  EXPECT_EQ(read->instrs.front().trans, !c.kContiguous);
  EXPECT_EQ(bankConflicts(*write, c.warps), 0u) << "swizzle " << enc.getSwizzle();
  EXPECT_EQ(bankConflicts(*read, c.warps), 0u) << "swizzle " << enc.getSwizzle();
  EXPECT_GT(enc.getSwizzle(), 0u);
}

const OperandCase kOperands[] = {
    {"A_128x64_KContiguous_Bf16", 0, 128, 64, 8, true, false},
    {"A_128x32_KContiguous_Bf16", 0, 128, 32, 4, true, false},
    {"A_64x128_KContiguous_F16", 0, 64, 128, 4, true, true},
    {"A_128x64_Transposed_Bf16", 0, 128, 64, 8, false, false},
    {"A_64x64_Transposed_F16", 0, 64, 64, 4, false, true},
    {"B_64x128_NContiguous_Bf16", 1, 64, 128, 8, false, false},
    {"B_32x128_NContiguous_Bf16", 1, 32, 128, 4, false, false},
    {"B_64x64_NContiguous_F16", 1, 64, 64, 4, false, true},
    {"B_128x64_KContiguous_Bf16", 1, 128, 64, 4, true, false}, // attention's K^T, D = 128
    {"B_64x128_KContiguous_Bf16", 1, 64, 128, 8, true, false}, // K^T, D = 64, BN = 128
    {"B_128x128_KContiguous_F16", 1, 128, 128, 8, true, true},
};
INSTANTIATE_TEST_SUITE_P(Operands, OperandStaging, ::testing::ValuesIn(kOperands),
                         [](const auto &info) { return std::string(info.param.name); });

/// Layout conversions through scratch round-trip in the slot the compiler
/// chooses, without conflicts where a conflict-free slot exists.
TEST_F(SharedMemory, ConversionsRoundTrip) {
  Type f32 = Float32Type::get(&ctx), bf16 = BFloat16Type::get(&ctx);
  auto mma = MmaLayoutAttr::get(&ctx, 2, {4, 2}, {16, 8});
  auto blocked = getDefaultBlockedLayout(&ctx, {128, 128}, 8, 32);
  auto blocked16 = getDefaultBlockedLayout(&ctx, {128, 128}, 8, 16);
  struct Conv {
    RankedTensorType src, dst;
  };
  for (Conv c : {Conv{RankedTensorType::get({128, 128}, f32, mma),
                      RankedTensorType::get({128, 128}, f32, blocked)},
                 Conv{RankedTensorType::get({128, 128}, bf16, mma),
                      RankedTensorType::get({128, 128}, bf16, blocked16)},
                 Conv{RankedTensorType::get({128, 128}, f32, blocked),
                      RankedTensorType::get({128, 128}, f32, mma)}}) {
    std::optional<SharedGeometry> g = conversionScratch(c.src, c.dst);
    ASSERT_TRUE(g);
    Distribution s = dist(c.src.getEncoding(), c.src.getShape()),
                 d = dist(c.dst.getEncoding(), c.dst.getShape());
    expectRoundTrip(s, d, *g, 8, /*wantLdmatrix=*/false);
    FailureOr<SharedPlan> w = planVectors(s, *g), r = readPlan(d, *g);
    EXPECT_EQ(bankConflicts(*w, 8) + bankConflicts(*r, 8), 0u)
        << str(c.src) << " -> " << str(c.dst) << ": swizzle " << g->swizzle;
  }
}

/// The memo answers as the computation does, for each pair of types (two
/// pairs that differ only in element type or in layout get their own answers).
TEST_F(SharedMemory, ConversionScratchMemoAnswersAsItsComputation) {
  Type f32 = Float32Type::get(&ctx), bf16 = BFloat16Type::get(&ctx);
  auto mma = MmaLayoutAttr::get(&ctx, 2, {4, 2}, {16, 8});
  auto blocked = getDefaultBlockedLayout(&ctx, {128, 64}, 8, 32);
  auto blocked16 = getDefaultBlockedLayout(&ctx, {128, 64}, 8, 16);
  auto same = [](const std::optional<SharedGeometry> &a, const std::optional<SharedGeometry> &b) {
    return a.has_value() == b.has_value() &&
           (!a || (a->rows == b->rows && a->cols == b->cols && a->eltBytes == b->eltBytes &&
                   a->swizzle == b->swizzle && a->vec == b->vec && a->pad == b->pad &&
                   a->rowMajor == b->rowMajor));
  };
  for (auto [src, dst] : {std::pair{RankedTensorType::get({128, 64}, f32, mma),
                                    RankedTensorType::get({128, 64}, f32, blocked)},
                          std::pair{RankedTensorType::get({128, 64}, bf16, mma),
                                    RankedTensorType::get({128, 64}, bf16, blocked)},
                          std::pair{RankedTensorType::get({128, 64}, bf16, mma),
                                    RankedTensorType::get({128, 64}, bf16, blocked16)},
                          std::pair{RankedTensorType::get({128, 64}, bf16, blocked16),
                                    RankedTensorType::get({128, 64}, bf16, mma)}}) {
    std::optional<SharedGeometry> want = conversionScratchUncached(src, dst);
    EXPECT_TRUE(same(conversionScratch(src, dst), want)) << str(src) << " -> " << str(dst);
    EXPECT_TRUE(same(conversionScratch(src, dst), want)) << "again: " << str(src);
  }
}

/// Reductions across warps: partials of distinct rows land in distinct banks.
TEST_F(SharedMemory, ReductionScratchHasNoBankConflicts) {
  auto mma = MmaLayoutAttr::get(&ctx, 2, {2, 4}, {16, 8});
  // Warps along the reduced axis: the partials cross warps.
  auto blocked = BlockedLayoutAttr::get(&ctx, {1, 4}, {4, 8}, {1, 8}, {1, 0});
  for (Attribute l : {(Attribute)mma, (Attribute)blocked}) {
    Distribution d = dist(l, {64, 256});
    std::optional<ReduceScratch> r = reduceScratch(d, /*tileAxis=*/1, 4);
    ASSERT_TRUE(r);
    EXPECT_EQ(reduceBankConflicts(d, *r, 8), 0u) << str(l);
  }
}

/// A swizzled slot whose column blocks are far apart conflicts for 16-byte
/// stores that span two blocks: the model sees it (and the chooser avoids it).
TEST_F(SharedMemory, ModelSeesConflictsAcrossColumnBlocks) {
  auto blocked = BlockedLayoutAttr::get(&ctx, {1, 8}, {4, 8}, {8, 1}, {1, 0});
  Distribution d = dist(blocked, {128, 64});
  SharedGeometry g64{128, 64, 2, 64, 8, true}, g128{128, 64, 2, 128, 8, true};
  EXPECT_GT(bankConflicts(*planVectors(d, g64), 8), 0u);
  EXPECT_EQ(bankConflicts(*planVectors(d, g128), 8), 0u);
}

/// The lowering computes some offsets as others plus a constant; the constant
/// must hold in every lane of every warp.
TEST_F(SharedMemory, OffsetBasesAreExact) {
  auto mma = MmaLayoutAttr::get(&ctx, 2, {4, 2}, {16, 8});
  Distribution a = dist(DotOperandLayoutAttr::get(&ctx, 0, mma), {128, 64});
  SharedGeometry g{128, 64, 2, 128, 8, true};
  SharedPlan p = *planLdmatrix(a, g);
  std::vector<OffsetBase> bases = offsetBases(p);
  size_t refs = 0;
  for (auto [i, b] : llvm::enumerate(bases)) {
    refs += b.ref == i;
    for (unsigned w = 0; w < 8; ++w) {
      auto mine = laneAccesses(p, p.instrs[i], w), ref = laneAccesses(p, p.instrs[b.ref], w);
      for (unsigned l = 0; l < 32; ++l)
        EXPECT_EQ(mine[l].offset, ref[l].offset + b.delta);
    }
  }
  EXPECT_EQ(refs, 4u); // one per 16-deep k step; the row fragments add constants
}

} // namespace
