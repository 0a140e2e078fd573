//===- TileInterfaces.td - tile dialect attribute interfaces -----*- tablegen -*-===//
//
// The interfaces that make the layout system open: a distributed layout (which
// thread holds which elements of a tile in registers) and a shared-memory
// encoding (where each element of a buffer lives in shared memory) are
// attributes implementing one of these, so that a new layout is one new
// attribute rather than edits across the compiler.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_INTERFACES_TD
#define TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_DistributedLayoutInterface : AttrInterface<"DistributedLayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A distributed layout: which registers of which lanes of which warps hold
    which elements of a tile. A layout answers with a `Distribution`
    (Distribution.h): what each lane and warp bit moves along each axis of its
    root layout, plus each register's offset. Reductions, broadcasts, stores and
    layout conversions all work from that answer.
  }];
  let methods = [
    InterfaceMethod<[{
        The distribution of a tile of `shape` (the tile's own shape) in this
        layout; fails when the layout does not fit the rank.
      }], "::mlir::FailureOr<::mlir::tile::Distribution>", "distribute",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"The number of warps the layout spreads a tile over.",
      "unsigned", "getNumWarps">,
    InterfaceMethod<"How many elements of a tile of `shape` each thread holds (-1: none fits).",
      "int64_t", "getElemsPerThread", (ins "::llvm::ArrayRef<int64_t>":$shape), [{}], [{
        ::mlir::FailureOr<::mlir::tile::Distribution> d = $_attr.distribute(shape);
        return ::mlir::failed(d) ? -1 : (int64_t)d->offsets.size();
      }]>,
  ];
}

def Tile_SharedEncodingInterface : AttrInterface<"SharedEncodingAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A shared-memory encoding: where each element of a 2-D buffer lives, as a
    byte offset from the buffer's base. The lowering emits the same function
    (SharedLayout.h, templated over host or IR arithmetic) and the
    bank-conflict model evaluates it on the host.
  }];
  let methods = [
    InterfaceMethod<[{
        The byte offset of element (`row`, `col`) of a [`rows`, `cols`] buffer
        of `eltBytes`-byte elements.
      }], "int64_t", "byteOffset",
      (ins "int64_t":$row, "int64_t":$col, "int64_t":$rows, "int64_t":$cols,
           "unsigned":$eltBytes)>,
    InterfaceMethod<"The alignment the buffer's base needs, in bytes.",
      "int64_t", "getAlignment">,
  ];
}

#endif // TILE_INTERFACES_TD
