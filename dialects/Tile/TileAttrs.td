//===- TileAttrs.td - tile dialect attributes --------------------*- tablegen -*-===//
//
// Enumerations used by tile ops. Layout encodings for tiles join this file when
// layout assignment arrives; they attach to the `encoding` of the tile tensors.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "mlir/IR/EnumAttr.td"

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "the combining function of a reduction", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::tile";
}

#endif // TILE_ATTRS_TD
