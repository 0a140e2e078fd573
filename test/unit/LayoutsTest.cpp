//===- LayoutsTest.cpp - default layout choices -----------------*- C++ -*-===//
#include "lib/Transforms/Layouts.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

struct LayoutCase {
  const char *name;
  std::vector<int64_t> shape;
  unsigned bits;
  unsigned warps;
  unsigned vec; // expected elements per thread along the last axis
};

class DefaultLayout : public ::testing::TestWithParam<LayoutCase> {
protected:
  DefaultLayout() { ctx.loadDialect<tile::TileDialect>(); }
  MLIRContext ctx;
};

TEST_P(DefaultLayout, CoversLanesAndWarps) {
  const LayoutCase &c = GetParam();
  auto l = tile::getDefaultBlockedLayout(&ctx, c.shape, c.warps, c.bits);
  unsigned lanes = 1, warps = 1;
  for (unsigned t : l.getThreadsPerWarp())
    lanes *= t;
  for (unsigned w : l.getWarpsPerCTA())
    warps *= w;
  EXPECT_EQ(lanes, 32u);
  EXPECT_EQ(warps, c.warps);
  EXPECT_EQ(l.getSizePerThread().back(), c.vec);
  EXPECT_EQ(l.getOrder()[0], c.shape.size() - 1); // the last axis is the fastest
}

INSTANTIATE_TEST_SUITE_P(Layouts, DefaultLayout,
                         ::testing::Values(LayoutCase{"Row1024F32", {1024}, 32, 4, 4},
                                           LayoutCase{
                                               "Row128F32NoOversubscription", {128}, 32, 4, 1},
                                           LayoutCase{"Tile128x64BF16", {128, 64}, 16, 8, 8},
                                           LayoutCase{"Tile64x64F32", {64, 64}, 32, 4, 4},
                                           LayoutCase{"Narrow8x2F32", {8, 2}, 32, 4, 1},
                                           LayoutCase{"Rank3", {4, 16, 64}, 16, 4, 8}),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(Layouts, MmaSplitsRowsFirst) {
  MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect>();
  tessera::target::MmaInstr instr{2, 16, 8, 16};
  auto m = tile::getMmaLayout(&ctx, {128, 128}, 8, instr);
  EXPECT_EQ(m.getWarpsPerCTA()[0], 8u);
  EXPECT_EQ(m.getWarpsPerCTA()[1], 1u);
  EXPECT_EQ(m.getVersion(), 2u);
  EXPECT_EQ(m.getInstrShape()[0], 16u);
  EXPECT_EQ(m.getInstrShape()[1], 8u);
  auto small = tile::getMmaLayout(&ctx, {32, 64}, 8, instr);
  EXPECT_EQ(small.getWarpsPerCTA()[0] * small.getWarpsPerCTA()[1], 8u);
  EXPECT_EQ(small.getWarpsPerCTA()[0], 2u);
}

} // namespace
