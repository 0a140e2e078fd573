//===- TileDialect.cpp - the tile dialect -----------------------*- C++ -*-===//
//
// Registers the tile dialect's types, attributes and ops.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "dialects/Tile/TileDialect.cpp.inc"
#include "dialects/Tile/TileEnums.cpp.inc"

void TileDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Tile/TileOps.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
