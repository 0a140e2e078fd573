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

/// Simulates every thread: the union of (lane, warp, element) coordinates must
/// cover each coordinate of the tile, each the same number of times.
void expectCovers(const Distribution &d, ArrayRef<int64_t> shape, unsigned warps) {
  auto l = d.blocked;
  std::map<std::vector<int64_t>, int> count;
  for (unsigned warp = 0; warp < warps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      // Per-axis lane and warp ids, fastest axis first (as threadBase does).
      std::vector<int64_t> base(l.getRank());
      unsigned ls = 1, ws = 1;
      for (unsigned a : l.getOrder()) {
        int64_t la = (lane / ls) % l.getThreadsPerWarp()[a];
        int64_t wa = (warp / ws) % l.getWarpsPerCTA()[a];
        ls *= l.getThreadsPerWarp()[a];
        ws *= l.getWarpsPerCTA()[a];
        base[a] = la * l.getSizePerThread()[a] +
                  wa * l.getSizePerThread()[a] * l.getThreadsPerWarp()[a];
      }
      for (size_t i = 0; i < d.elems.size(); ++i) {
        std::vector<int64_t> c;
        for (unsigned a = 0; a < l.getRank(); ++a) {
          if (llvm::is_contained(d.sliced, a))
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

TEST_F(Distribute, Row1024Vec4) {
  auto t = tileOf({1024}, blocked({4}, {32}, {4}, {0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->elems.size(), 8u); // 4-wide vectors, repeated twice
  EXPECT_EQ(d->constOffset(0, 0), 0);
  EXPECT_EQ(d->constOffset(3, 0), 3);
  EXPECT_EQ(d->constOffset(4, 0), 512); // second repetition
  expectCovers(*d, {1024}, 4);
}

TEST_F(Distribute, Tile2DRowMajor) {
  auto t = tileOf({64, 128}, blocked({1, 4}, {1, 32}, {4, 1}, {1, 0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->elems.size(), 64u);
  // The 4 contiguous elements of a vector come first in struct order.
  EXPECT_EQ(d->constOffset(1, 1), 1);
  EXPECT_EQ(d->constOffset(1, 0), 0);
  expectCovers(*d, {64, 128}, 4);
}

TEST_F(Distribute, ReplicatedWhenLayoutIsLarger) {
  auto t = tileOf({16}, blocked({1}, {32}, {4}, {0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->elems.size(), 1u);
  expectCovers(*d, {16}, 4);
}

TEST_F(Distribute, SliceKeepsOneElementPerRow) {
  auto parent = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  auto t = tileOf({64}, tile::SliceLayoutAttr::get(&ctx, 1, parent));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  ASSERT_EQ(d->sliced.size(), 1u);
  EXPECT_EQ(d->sliced[0], 1u);
  EXPECT_EQ(d->elems.size(), 8u); // 64 rows over 2 lanes x 4 warps
  expectCovers(*d, {64}, 4);
}

TEST_F(Distribute, IndexOfInvertsEnumeration) {
  auto t = tileOf({32, 64}, blocked({2, 4}, {4, 8}, {2, 2}, {1, 0}));
  auto d = distribute(t);
  ASSERT_TRUE(succeeded(d));
  for (size_t i = 0; i < d->elems.size(); ++i)
    EXPECT_EQ(d->indexOf(d->elems[i]), i);
}

TEST_F(Distribute, DefaultLayoutsCoverTheirTiles) {
  for (auto shape : std::vector<std::vector<int64_t>>{{128}, {4096}, {128, 64}, {8, 2}, {4, 16, 64}}) {
    auto l = tile::getDefaultBlockedLayout(&ctx, shape, 4, 32);
    auto d = distribute(tileOf(shape, l));
    ASSERT_TRUE(succeeded(d));
    expectCovers(*d, shape, 4);
  }
}

TEST_F(Distribute, RejectsMma) {
  auto t = tileOf({64, 64}, tile::MmaLayoutAttr::get(&ctx, {4, 1}));
  EXPECT_TRUE(failed(distribute(t)));
}

} // namespace
