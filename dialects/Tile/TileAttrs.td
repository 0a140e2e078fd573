//===- TileAttrs.td - tile dialect attributes --------------------*- tablegen -*-===//
//
// Enumerations used by tile ops, and the distributed layouts that the
// tile-assign-layouts pass attaches to tiles as their tensor `encoding`. A layout
// says which thread of which warp holds which elements of a tile; it does not
// depend on the tile's shape (a layout smaller than the tile repeats, a larger
// one replicates), so the same layout serves a value before and after a
// broadcast.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "TileInterfaces.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "the combining function of a reduction", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::tile";
}

// A distributed layout: one attribute implementing DistributedLayoutAttrInterface.
class Tile_LayoutAttr<string name, string attrMnemonic>
    : AttrDef<Tile_Dialect, name, [DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface,
                                                               ["distribute", "getNumWarps"]>]> {
  let mnemonic = attrMnemonic;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_BlockedLayoutAttr : Tile_LayoutAttr<"BlockedLayout", "blocked"> {
  let summary = "a blocked distribution of a tile over registers, lanes and warps";
  let description = [{
    Each thread holds `sizePerThread[d]` consecutive elements along each axis d;
    `threadsPerWarp` lanes and `warpsPerCTA` warps are laid out over the axes
    (their products are 32 and the kernel's number of warps). `order` lists the
    axes from the fastest-varying one. The layout covers a block of
    `sizePerThread * threadsPerWarp * warpsPerCTA` elements per axis; a larger
    tile repeats the block (each thread holds several), a smaller one wraps
    around (elements are replicated over threads).

    ```mlir
    tensor<128x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16],
                                      warpsPerCTA = [4, 1], order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
  }];
}

def Tile_SliceLayoutAttr : Tile_LayoutAttr<"SliceLayout", "slice"> {
  let summary = "the layout of a tile with one axis of its parent's layout removed";
  let description = [{
    The result of reducing axis `dim` of a tile in layout `parent`: element i
    lives where the parent keeps the elements that were combined into it.
    `tile.expand_dims` along `dim` turns it back into the parent layout.

    ```mlir
    #tile.slice<{dim = 1, parent = #tile.blocked<{...}>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
}

def Tile_MmaLayoutAttr : Tile_LayoutAttr<"MmaLayout", "mma"> {
  let summary = "the accumulator layout of tensor-core products";
  let description = [{
    The accumulator of a tensor-core instruction family: `version` 2 is
    mma.sync (Ampere and later), whose `instrShape` is the [M, N] of one
    instruction's accumulator fragment ([16, 8] for m16n8k16). Warps tile the
    [M, N] accumulator in a `warpsPerCTA` grid; in a version-2 fragment lane l
    holds rows l/4 and l/4 + 8, columns 2*(l%4) and 2*(l%4) + 1. Version 3 is
    wgmma (sm_90a): `instrShape` [64, N] is one warpgroup instruction's
    accumulator; the four warps of a warpgroup hold 16 rows each (warp w of a
    group rows 16*w.., each 8 columns as a version-2 fragment), warpgroups
    split M and then N (`warpsPerCTA[0]` is a multiple of 4).

    ```mlir
    #tile.mma<{version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
    #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
    ```
  }];
  let parameters = (ins "unsigned":$version, ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
}

def Tile_DotOperandLayoutAttr : Tile_LayoutAttr<"DotOperandLayout", "dot_op"> {
  let summary = "the layout of a dot operand for a given accumulator layout";
  let description = [{
    Operand `opIdx` (0 for A [M, K], 1 for B [K, N]) of a `tile.dot` whose
    result has layout `parent`: an mma layout (tensor-core fragments, fed by
    ldmatrix) or a blocked layout (FMA products, each thread holding the rows or
    columns it needs).

    ```mlir
    #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent);
}

def Tile_SharedEncodingAttr : AttrDef<Tile_Dialect, "SharedEncoding",
    [DeclareAttrInterfaceMethods<Tile_SharedEncodingInterface>]> {
  let mnemonic = "shared";
  let summary = "where the elements of a 2-D tile live in shared memory";
  let description = [{
    The tile is stored along `order` (the fastest-varying axis first) with
    the NVIDIA swizzle of `swizzle` bytes (0, 32, 64 or 128, the modes of TMA
    and of wgmma matrix descriptors): the contiguous axis is cut into
    `swizzle`-byte rows, the rows of each such column block follow each
    other, and within every 8 * `swizzle` bytes the 16-byte chunk index is
    XORed with the row index (address bits [4, 4 + log2(swizzle / 16)) ^=
    bits [7, ...)). `vec` elements (16 bytes) form the unit swizzling moves;
    accesses of up to `vec` elements along the contiguous axis stay
    contiguous. Chosen so that the lanes of every ldmatrix and store phase
    reach distinct banks.

    ```mlir
    #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzle, "unsigned":$vec, ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same storage seen as the transposed tile: the order reversed.
    SharedEncodingAttr transposed() const;
    /// Whether the contiguous axis is the last one (columns).
    bool isRowMajor() const { return getOrder()[0] == 1; }
  }];
}

#endif // TILE_ATTRS_TD
