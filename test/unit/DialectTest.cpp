//===- DialectTest.cpp - tile ops through the C++ API -----------*- C++ -*-===//
#include "dialects/Tile/TileDialect.h"
#include "lib/IRGen/IRGen.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class TileDialectTest : public ::testing::Test {
protected:
  TileDialectTest() {
    DialectRegistry r;
    tessera::registerTileIRDialects(r);
    ctx.appendDialectRegistry(r);
    ctx.loadAllAvailableDialects();
    ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      errors += d.str() + "\n";
      return success();
    });
  }
  OwningOpRef<ModuleOp> parse(const char *src) { return parseSourceString<ModuleOp>(src, &ctx); }
  MLIRContext ctx;
  std::string errors;
};

TEST_F(TileDialectTest, BuildKernelWithBuilder) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto t = tile::GlobalTensorType::get(&ctx, {ShapedType::kDynamic}, b.getF32Type());
  auto k = tile::KernelOp::create(b, loc, "copy", b.getFunctionType({t, t}, {}));
  b.setInsertionPointToStart(&k.getGrid().front());
  Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
  tile::YieldOp::create(b, loc, ValueRange{one});
  b.setInsertionPointToStart(&k.getBody().front());
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0);
  auto tileTy = RankedTensorType::get({128}, b.getF32Type());
  Value v =
      tile::LoadOp::create(b, loc, tileTy, k.getBody().getArgument(0), ValueRange{pid}, Value(),
                           /*extents=*/nullptr);
  tile::StoreOp::create(b, loc, k.getBody().getArgument(1), ValueRange{pid}, v,
                        /*extents=*/nullptr);
  tile::ReturnOp::create(b, loc);
  EXPECT_TRUE(succeeded(verify(module))) << errors;
  module->erase();
}

TEST_F(TileDialectTest, GlobalTensorTypeRoundTrip) {
  auto m = parse("module { tile.kernel @k(%x: !tile.tensor<?x64xbf16>) grid {\n"
                 "^bb0(%a: !tile.tensor<?x64xbf16>):\n"
                 "  %c = arith.constant 1 : i32\n  tile.yield %c : i32\n} {\n  tile.return\n} }");
  ASSERT_TRUE(m) << errors;
  auto k = *m->getOps<tile::KernelOp>().begin();
  auto t = cast<tile::GlobalTensorType>(k.getArgumentTypes()[0]);
  EXPECT_EQ(t.getRank(), 2);
  EXPECT_TRUE(t.isDynamicDim(0));
  EXPECT_EQ(t.getShape()[1], 64);
  EXPECT_TRUE(t.getElementType().isBF16());
}

TEST_F(TileDialectTest, RejectsZeroExtentTensor) {
  auto m = parse("module { tile.kernel @k(%x: !tile.tensor<0xf32>) grid {\n"
                 "^bb0(%a: !tile.tensor<0xf32>):\n  %c = arith.constant 1 : i32\n"
                 "  tile.yield %c : i32\n} {\n  tile.return\n} }");
  EXPECT_FALSE(m);
  EXPECT_NE(errors.find("tensor extents must be positive"), std::string::npos) << errors;
}

TEST_F(TileDialectTest, DimFoldsStaticExtent) {
  auto m =
      parse("module { tile.kernel @k(%x: !tile.tensor<?x64xf32>) grid {\n"
            "^bb0(%a: !tile.tensor<?x64xf32>):\n  %d = tile.dim %a[1] : !tile.tensor<?x64xf32>\n"
            "  tile.yield %d : i32\n} {\n  tile.return\n} }");
  ASSERT_TRUE(m) << errors;
  auto k = *m->getOps<tile::KernelOp>().begin();
  auto dim = *k.getGrid().getOps<tile::DimOp>().begin();
  SmallVector<OpFoldResult> folded;
  ASSERT_TRUE(succeeded(dim->fold(folded)));
  ASSERT_EQ(folded.size(), 1u);
  auto attr = dyn_cast<IntegerAttr>(cast<Attribute>(folded[0]));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getInt(), 64);
}

} // namespace
