//===- TileDialect.td - the tile dialect -------------------------*- tablegen -*-===//
//
// The `tile` dialect: Tessera's kernel-level IR. Tiles are value-semantic builtin
// ranked tensors with static shapes (an encoding attribute is reserved for layouts);
// scalars are plain builtin scalars. Global tensors are `!tile.tensor` handles.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let summary = "Tessera's tile-level kernel IR";
  let description = [{
    A kernel is a `tile.kernel` op. Its body runs once per program of a launch grid
    and computes on tiles: ranked tensors with static shapes and value semantics.
    Element-wise arithmetic on tiles and scalars uses the upstream `arith` and `math`
    ops; control flow uses `scf`. The ops of this dialect cover what those do not:
    program ids, global memory access with masking and padding, tensor-core dot
    products, reductions, and shape manipulation (splat, broadcast, expand,
    transpose) and element type conversion.
  }];
  let cppNamespace = "::mlir::tile";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD
