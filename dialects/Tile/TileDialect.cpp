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

namespace {
/// Short aliases for layouts in printed IR: #blocked, #slice, #mma, #dot_op.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr))
      os << "blocked";
    else if (isa<SliceLayoutAttr>(attr))
      os << "slice";
    else if (isa<MmaLayoutAttr>(attr))
      os << "mma";
    else if (isa<DotOperandLayoutAttr>(attr))
      os << "dot_op";
    else if (isa<SharedEncodingAttr>(attr))
      os << "shared";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Tile/TileOps.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
