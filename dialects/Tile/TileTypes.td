//===- TileTypes.td - tile dialect types -------------------------*- tablegen -*-===//
//
// `!tile.tensor<?x64xbf16>`: a handle to a tensor in global memory (a kernel
// argument). Extents are dynamic (`?`) or static; strides are row-major and are
// the lowering's business. Also the type constraints shared by the ops.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "TileDialect.td"
include "mlir/IR/AttrTypeBase.td"

// The element types of the language: f32 f16 bf16 i32 i64 bool.
def Tile_ElementType : AnyTypeOf<[F16, BF16, F32, I1, I32, I64]>;
def Tile_FloatType : AnyTypeOf<[F16, BF16, F32]>;

// A tile: a statically shaped ranked tensor of language elements.
def Tile_Tile : StaticShapeTensorOf<[Tile_ElementType]>;
// A tile or a scalar (a 0-d value).
def Tile_Value : AnyTypeOf<[Tile_Tile, Tile_ElementType]>;

def Tile_TensorType : TypeDef<Tile_Dialect, "GlobalTensor"> {
  let mnemonic = "tensor";
  let summary = "a handle to a tensor in global memory";
  let description = [{
    A kernel argument naming a row-major tensor in global memory. Each extent is
    either static or dynamic (`?`, read at run time with `tile.dim`).

    ```mlir
    !tile.tensor<?x?xf32>
    !tile.tensor<?x64xbf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool isDynamicDim(unsigned i) const { return ::mlir::ShapedType::isDynamic(getShape()[i]); }
  }];
}

#endif // TILE_TYPES_TD
