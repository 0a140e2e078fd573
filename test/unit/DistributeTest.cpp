//===- DistributeTest.cpp - per-thread elements of layouts ------*- C++ -*-===//
#include "lib/Conversion/TileToLLVM/Distribute.h"
#include "lib/Transforms/Layouts.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace tessera::conversion;

namespace {

class Distribute : public ::testing::Test {
protected:
  Distribute() { ctx.loadDialect<tile::TileDialect>(); }
  RankedTensorType tileOf(ArrayRef<int64_t> shape, Attribute layout) {
    return RankedTensorType::get(shape, Float32Type::get(&ctx), layout);
  }
  tile::BlockedLayoutAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                                  ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
    return tile::BlockedLayoutAttr::get(&ctx, spt, tpw, wpc, order);
  }
  MLIRContext ctx;
};

/// A thread's coordinates (root axes, before wrapping) from the distribution's
/// lane and warp bits, as threadBase computes them.
std::vector<int64_t> baseOf(const Distribution &d, unsigned lane, unsigned warp) {
  std::vector<int64_t> base(d.rank(), 0);
  for (auto [bit, b] : llvm::enumerate(d.lanes))
    if (b.axis >= 0 && (lane >> bit) & 1)
      base[b.axis] += b.value;
  for (auto [bit, b] : llvm::enumerate(d.warps))
    if (b.axis >= 0 && (warp >> bit) & 1)
      base[b.axis] += b.value;
  return base;
}

/// The same, computed independently from a blocked layout's parameters.
std::vector<int64_t> blockedBase(tile::BlockedLayoutAttr l, unsigned lane, unsigned warp) {
  std::vector<int64_t> base(l.getRank());
  unsigned ls = 1, ws = 1;
  for (unsigned a : l.getOrder()) {
    int64_t la = (lane / ls) % l.getThreadsPerWarp()[a];
    int64_t wa = (warp / ws) % l.getWarpsPerCTA()[a];
    ls *= l.getThreadsPerWarp()[a];
    ws *= l.getWarpsPerCTA()[a];
    base[a] =
        la * l.getSizePerThread()[a] + wa * l.getSizePerThread()[a] * l.getThreadsPerWarp()[a];
  }
  return base;
}

/// Simulates every thread: the union of (lane, warp, element) coordinates must
/// cover each coordinate of the tile, each the same number of times.
void expectCovers(const Distribution &d, ArrayRef<int64_t> shape, unsigned warps) {
  std::map<std::vector<int64_t>, int> count;
  for (unsigned warp = 0; warp < warps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      std::vector<int64_t> base = baseOf(d, lane, warp);
      if (auto l = dyn_cast<tile::BlockedLayoutAttr>(d.root))
        EXPECT_EQ(base, blockedBase(l, lane, warp));
      for (size_t i = 0; i < d.offsets.size(); ++i) {
        std::vector<int64_t> c;
        for (unsigned a = 0; a < d.rank(); ++a) {
          if (d.isSliced(a))
            continue;
          c.push_back((base[a] + d.constOffset(i, a)) % d.shape[a]);
        }
        ++count[c];
      }
    }
  int64_t numel = 1;
  for (int64_t s : shape)
    numel *= s;
  EXPECT_EQ((int64_t)count.size(), numel);
  std::set<int> multiplicities;
  for (auto &[c, n] : count)
    multiplicities.insert(n);
  EXPECT_EQ(multiplicities.size(), 1u) << "every element must be held equally often";
}

/// The mma.sync m16n8 accumulator fragment of the PTX ISA, written out: lane
/// l holds rows l/4 and l/4 + 8, columns 2(l%4) and 2(l%4) + 1; warps split M
/// (warp % wm), then N, into equal parts of fragments.
std::vector<std::vector<int64_t>> mmaReference(int64_t m, int64_t n, unsigned wm, unsigned wn,
                                               unsigned lane, unsigned warp) {
  int64_t fm = std::max<int64_t>(1, m / (16 * wm)), fn = std::max<int64_t>(1, n / (8 * wn));
  int64_t r0 = (warp % wm) * 16 * fm + lane / 4, c0 = (warp / wm) * 8 * fn + 2 * (lane % 4);
  std::vector<std::vector<int64_t>> out;
  for (int64_t i = 0; i < fm; ++i)
    for (int64_t j = 0; j < fn; ++j)
      for (int64_t c = 0; c < 4; ++c)
        out.push_back({(r0 + 16 * i + 8 * (c / 2)) % m, (c0 + 8 * j + c % 2) % n});
  return out;
}

TEST_F(Distribute, Row1024Vec4) {
  auto t = tileOf({1024}, blocked({4}, {32}, {4}, {0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->offsets.size(), 8u); // 4-wide vectors, repeated twice
  EXPECT_EQ(d->constOffset(0, 0), 0);
  EXPECT_EQ(d->constOffset(3, 0), 3);
  EXPECT_EQ(d->constOffset(4, 0), 512); // second repetition
  expectCovers(*d, {1024}, 4);
}

TEST_F(Distribute, Tile2DRowMajor) {
  auto t = tileOf({64, 128}, blocked({1, 4}, {1, 32}, {4, 1}, {1, 0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->offsets.size(), 64u);
  // The 4 contiguous elements of a vector come first in struct order.
  EXPECT_EQ(d->constOffset(1, 1), 1);
  EXPECT_EQ(d->constOffset(1, 0), 0);
  expectCovers(*d, {64, 128}, 4);
}

TEST_F(Distribute, ReplicatedWhenLayoutIsLarger) {
  auto t = tileOf({16}, blocked({1}, {32}, {4}, {0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->offsets.size(), 1u);
  expectCovers(*d, {16}, 4);
}

TEST_F(Distribute, SliceKeepsOneElementPerRow) {
  auto parent = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  auto t = tileOf({64}, tile::SliceLayoutAttr::get(&ctx, 1, parent));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  ASSERT_EQ(d->sliced.size(), 1u);
  EXPECT_EQ(d->sliced[0], 1u);
  EXPECT_EQ(d->offsets.size(), 8u); // 64 rows over 2 lanes x 4 warps
  expectCovers(*d, {64}, 4);
}

TEST_F(Distribute, FindInvertsEnumeration) {
  auto t = tileOf({32, 64}, blocked({2, 4}, {4, 8}, {2, 2}, {1, 0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  for (size_t i = 0; i < d->offsets.size(); ++i)
    EXPECT_EQ(d->find(d->offsets[i]), std::optional<size_t>(i));
  EXPECT_EQ(d->contiguousRun(), 4u);
}

TEST_F(Distribute, DefaultLayoutsCoverTheirTiles) {
  for (auto shape :
       std::vector<std::vector<int64_t>>{{128}, {4096}, {128, 64}, {8, 2}, {4, 16, 64}}) {
    auto l = tile::getDefaultBlockedLayout(&ctx, shape, 4, 32);
    auto d = distribute(tileOf(shape, l));
    ASSERT_TRUE(succeeded(d));
    expectCovers(*d, shape, 4);
  }
}

struct MmaCase {
  const char *name;
  int64_t m, n;
  unsigned wm, wn;
};

class DistributeMma : public Distribute, public ::testing::WithParamInterface<MmaCase> {};

TEST_P(DistributeMma, MatchesThePtxFragmentLayout) {
  MmaCase p = GetParam();
  auto d = distribute(tileOf({p.m, p.n}, tile::MmaLayoutAttr::get(&ctx, 2, {p.wm, p.wn}, {16, 8})));
  ASSERT_TRUE(succeeded(d));
  for (unsigned warp = 0; warp < p.wm * p.wn; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      auto ref = mmaReference(p.m, p.n, p.wm, p.wn, lane, warp);
      auto base = baseOf(*d, lane, warp);
      ASSERT_EQ(ref.size(), d->offsets.size());
      for (size_t i = 0; i < ref.size(); ++i)
        EXPECT_EQ(ref[i], (std::vector<int64_t>{(base[0] + d->offsets[i][0]) % p.m,
                                                (base[1] + d->offsets[i][1]) % p.n}))
            << "lane " << lane << " warp " << warp << " element " << i;
    }
  expectCovers(*d, {p.m, p.n}, p.wm * p.wn);
  EXPECT_EQ(d->contiguousRun(), 2u); // c0, c1 (and c2, c3) are adjacent columns
}

INSTANTIATE_TEST_SUITE_P(Shapes, DistributeMma,
                         ::testing::Values(MmaCase{"m128_n64_w8x1", 128, 64, 8, 1},
                                           MmaCase{"m128_n128_w4x2", 128, 128, 4, 2},
                                           MmaCase{"m64_n64_w2x2", 64, 64, 2, 2},
                                           MmaCase{"m16_n64_w1x4", 16, 64, 1, 4}),
                         [](const auto &info) { return std::string(info.param.name); });

TEST_F(Distribute, MmaSlicesHoldWholeRowsAndColumns) {
  auto mma = tile::MmaLayoutAttr::get(&ctx, 2, {4, 2}, {16, 8});
  auto rows = distribute(tileOf({128}, tile::SliceLayoutAttr::get(&ctx, 1, mma)));
  ASSERT_TRUE(succeeded(rows));
  EXPECT_EQ(rows->offsets.size(), 4u); // 2 fragments x rows g and g + 8
  expectCovers(*rows, {128}, 8);
  auto cols = distribute(tileOf({64}, tile::SliceLayoutAttr::get(&ctx, 0, mma)));
  ASSERT_TRUE(succeeded(cols));
  EXPECT_EQ(cols->offsets.size(), 8u); // 4 fragments x a column pair
  expectCovers(*cols, {64}, 8);
  // A [128, 1] column broadcast source: the columns only replicate.
  auto column = distribute(tileOf({128, 1}, mma));
  ASSERT_TRUE(succeeded(column));
  expectCovers(*column, {128, 1}, 8);
}

TEST_F(Distribute, MmaOperandsCoverTheirTiles) {
  auto mma = tile::MmaLayoutAttr::get(&ctx, 2, {4, 2}, {16, 8});
  auto a = distribute(tileOf({128, 64}, tile::DotOperandLayoutAttr::get(&ctx, 0, mma)));
  auto b = distribute(tileOf({64, 128}, tile::DotOperandLayoutAttr::get(&ctx, 1, mma)));
  ASSERT_TRUE(succeeded(a) && succeeded(b));
  EXPECT_EQ(a->offsets.size(), 2u * 4 * 8); // fm x kSteps x 8 halves
  EXPECT_EQ(b->offsets.size(), 8u * 4 * 4); // fn x kSteps x 4 halves
  expectCovers(*a, {128, 64}, 8);
  expectCovers(*b, {64, 128}, 8);
}

TEST_F(Distribute, AccumulatorWithOneWarpColumnIsTheNextAOperand) {
  // S = Q K^T in mma [8, 1] feeds P V as A: each thread already holds its
  // A fragments (flash attention keeps P in registers).
  auto mma = tile::MmaLayoutAttr::get(&ctx, 2, {8, 1}, {16, 8});
  auto s = distribute(tileOf({128, 64}, mma));
  auto p = distribute(tileOf({128, 64}, tile::DotOperandLayoutAttr::get(&ctx, 0, mma)));
  ASSERT_TRUE(succeeded(s) && succeeded(p));
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(s->effective(s->lanes[i]), p->effective(p->lanes[i]));
  for (size_t i = 0; i < s->warps.size(); ++i)
    EXPECT_EQ(s->effective(s->warps[i]), p->effective(p->warps[i]));
  std::set<std::vector<int64_t>> sOffs, pOffs;
  for (auto &o : s->offsets)
    sOffs.insert(std::vector<int64_t>(o.begin(), o.end()));
  for (auto &o : p->offsets)
    pOffs.insert(std::vector<int64_t>(o.begin(), o.end()));
  EXPECT_EQ(sOffs, pOffs);
}

/// FMA operands (dot operands of a blocked accumulator) are distributions too:
/// each thread holds the accumulator rows (A) or columns (B) it computes, each
/// with the whole K.
TEST_F(Distribute, FmaOperandsHoldTheirRowsWithAllOfK) {
  auto parent = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  for (unsigned opIdx : {0u, 1u}) {
    SmallVector<int64_t> shape =
        opIdx == 0 ? SmallVector<int64_t>{64, 16} : SmallVector<int64_t>{16, 256};
    auto t = tileOf(shape, tile::DotOperandLayoutAttr::get(&ctx, opIdx, parent));
    auto d = distribute(t);
    ASSERT_TRUE(succeeded(d));
    unsigned keep = opIdx == 0 ? 0 : 1, kAxis = 1 - keep;
    SmallVector<int64_t> accShape =
        opIdx == 0 ? SmallVector<int64_t>{64, 1} : SmallVector<int64_t>{1, 256};
    auto acc = distribute(tileOf(accShape, parent));
    ASSERT_TRUE(succeeded(acc));
    for (unsigned warp = 0; warp < 4; ++warp)
      for (unsigned lane = 0; lane < 32; ++lane) {
        std::set<std::pair<int64_t, int64_t>> want, got;
        for (size_t i = 0; i < acc->offsets.size(); ++i)
          for (int64_t k = 0; k < shape[kAxis]; ++k)
            want.insert({acc->coordsOf(i, lane, warp)[keep], k});
        for (size_t i = 0; i < d->offsets.size(); ++i) {
          auto c = d->coordsOf(i, lane, warp);
          got.insert({c[keep], c[kAxis]});
        }
        EXPECT_EQ(got, want) << "opIdx " << opIdx << " lane " << lane << " warp " << warp;
      }
  }
  auto a = tileOf({64, 16}, tile::DotOperandLayoutAttr::get(&ctx, 0, parent));
  EXPECT_EQ(*elemsPerThread(a), 8u * 16); // the parent's rows, each with the whole K
}

} // namespace
