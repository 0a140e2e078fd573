//===- LayoutCoordsTest.cpp - coordinates emitted for each layout -*- C++ -*-===//
//
// Runs the coordinate code that layoutCoords emits (LLVM dialect integer ops) for
// every lane and warp of a block, with a tiny evaluator, and checks that each
// element of the tile is held by the expected number of threads: once for an
// accumulator, once per warp that shares it for a dot operand.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Distribute.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;
using namespace tessera::conversion;

namespace {

int64_t eval(Value v) {
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast<LLVM::ConstantOp>(op))
    return cast<IntegerAttr>(c.getValue()).getInt();
  int64_t a = eval(op->getOperand(0)), b = eval(op->getOperand(1));
  if (isa<LLVM::AddOp>(op))
    return a + b;
  if (isa<LLVM::MulOp>(op))
    return a * b;
  if (isa<LLVM::UDivOp>(op))
    return a / b;
  if (isa<LLVM::URemOp>(op))
    return a % b;
  ADD_FAILURE() << "unexpected op " << op->getName().getStringRef().str();
  return 0;
}

struct CoordCase {
  const char *name;
  std::vector<int64_t> shape;
  int kind; // 0: mma accumulator, 1: dot_op A of mma, 2: dot_op B of mma, 3/4: FMA A/B
  unsigned wm, wn;
  int copies; // threads holding each element
};

class LayoutCoords : public ::testing::TestWithParam<CoordCase> {};

TEST_P(LayoutCoords, EveryElementHeldAsOftenAsExpected) {
  const CoordCase &c = GetParam();
  MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect, LLVM::LLVMDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  unsigned warps = c.wm * c.wn;
  Attribute layout;
  auto mma = tile::MmaLayoutAttr::get(&ctx, 2, {c.wm, c.wn}, {16, 8});
  auto blocked = tile::BlockedLayoutAttr::get(&ctx, {2, 2}, {8, 4}, {c.wm, c.wn}, {1, 0});
  switch (c.kind) {
  case 0:
    layout = mma;
    break;
  case 1:
    layout = tile::DotOperandLayoutAttr::get(&ctx, 0, mma);
    break;
  case 2:
    layout = tile::DotOperandLayoutAttr::get(&ctx, 1, mma);
    break;
  case 3:
    layout = tile::DotOperandLayoutAttr::get(&ctx, 0, blocked);
    break;
  default:
    layout = tile::DotOperandLayoutAttr::get(&ctx, 1, blocked);
    break;
  }
  auto type = RankedTensorType::get(c.shape, b.getBF16Type(), layout);
  FailureOr<size_t> n = elemsPerThread(type);
  ASSERT_TRUE(succeeded(n));
  std::map<std::pair<int64_t, int64_t>, int> held;
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned l = 0; l < 32; ++l) {
      Value lane = LLVM::ConstantOp::create(b, loc, b.getI32Type(), l);
      Value warp = LLVM::ConstantOp::create(b, loc, b.getI32Type(), w);
      auto coords = layoutCoords(b, loc, type, lane, warp);
      ASSERT_TRUE(succeeded(coords));
      ASSERT_EQ(coords->size(), *n);
      for (auto &xy : *coords) {
        int64_t r = eval(xy[0]), col = eval(xy[1]);
        ASSERT_TRUE(r >= 0 && r < c.shape[0] && col >= 0 && col < c.shape[1])
            << "(" << r << ", " << col << ") outside the tile";
        ++held[{r, col}];
      }
    }
  EXPECT_EQ((int64_t)held.size(), c.shape[0] * c.shape[1]);
  for (auto &[xy, count] : held)
    ASSERT_EQ(count, c.copies) << "element (" << xy.first << ", " << xy.second << ")";
  module->erase();
}

INSTANTIATE_TEST_SUITE_P(
    Conversion, LayoutCoords,
    ::testing::Values(CoordCase{"MmaAcc128x128W8x1", {128, 128}, 0, 8, 1, 1},
                      CoordCase{"MmaAcc64x64W2x2", {64, 64}, 0, 2, 2, 1},
                      CoordCase{"MmaA128x64W8x1", {128, 64}, 1, 8, 1, 1},
                      CoordCase{"MmaA64x32W2x2SharedByWn", {64, 32}, 1, 2, 2, 2},
                      CoordCase{"MmaB64x128W8x1SharedByWm", {64, 128}, 2, 8, 1, 8},
                      CoordCase{"MmaB32x64W2x2", {32, 64}, 2, 2, 2, 2},
                      CoordCase{"FmaA32x16", {32, 16}, 3, 2, 1, 4},
                      CoordCase{"FmaB16x32", {16, 32}, 4, 2, 1, 16}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
