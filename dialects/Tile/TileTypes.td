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

// The element types of the language: f32 f16 bf16 f64 f8E4M3FN f8E5M2 i8 i32 i64
// bool (the language's u8 and u32 are i8 and i32 here: integers are signless).
// Code generation sees no f8 (tile-legalize-float8 makes them i8 bits).
def Tile_ElementType : AnyTypeOf<[F16, BF16, F32, F64, F8E4M3FN, F8E5M2, I1, I8, I32, I64]>;
// Coordinates, extents and grid sizes: i32, or i64 in the 64-bit size class
// (kernels for tensors with an extent of 2^31 or more).
def Tile_Index : AnyTypeOf<[I32, I64], "32- or 64-bit signless integer">;
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

def Tile_MemDescType : TypeDef<Tile_Dialect, "MemDesc"> {
  let mnemonic = "memdesc";
  let summary = "a buffer in shared memory";
  let description = [{
    A buffer of the block's shared memory holding a 2-D tile, or several
    (a leading extent of slots: the stages of a software pipeline). The
    encoding (`#tile.shared`) says where each element of a slot lives; slots
    follow each other, each aligned as the encoding needs. Made by
    `tile.local_alloc`; `tile.memdesc_index` views one slot and
    `tile.memdesc_trans` views a slot transposed.

    ```mlir
    !tile.memdesc<128x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
    !tile.memdesc<3x64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    /// The 2-D geometry of one slot (SharedLayout.h).
    ::mlir::tile::SharedGeometry getGeometry() const;
    /// Bytes of one slot, padded to the encoding's alignment, and of the buffer.
    int64_t getSlotBytes() const;
    int64_t getBytes() const;
  }];
}

def Tile_MBarrierType : TypeDef<Tile_Dialect, "MBarrier"> {
  let mnemonic = "mbarrier";
  let summary = "a row of transaction barriers in shared memory";
  let description = [{
    `count` mbarrier objects (8 bytes each) in the block's shared memory, one
    per slot of a pipelined buffer: a TMA copy completes its bytes on the
    slot's barrier, and readers wait for the barrier's phase. Made by
    `tile.mbarrier_alloc`.

    ```mlir
    !tile.mbarrier<3>
    ```
  }];
  let parameters = (ins "unsigned":$count);
  let assemblyFormat = "`<` $count `>`";
  let extraClassDeclaration = [{
    /// Bytes of one mbarrier object, and of the row.
    static constexpr int64_t kBytes = 8;
    int64_t getBytes() const { return kBytes * getCount(); }
  }];
}

#endif // TILE_TYPES_TD
