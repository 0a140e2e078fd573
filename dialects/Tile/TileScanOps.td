//===- TileScanOps.td - scans with a combiner region ------------*- tablegen -*-===//
//
// The general associative scan: an inclusive prefix scan along one axis whose
// combining function is a region of scalar ops (the language's
// `scan(x, axis, (a, b) => ...)`). tile.scan keeps the fixed kinds (sum, max, min).
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_SCAN_OPS_TD
#define TILE_SCAN_OPS_TD

def Tile_AssociativeScanOp : Tile_Op<"associative_scan", [RecursiveMemoryEffects,
    AllTypesMatch<["src", "result"]>]> {
  let summary = "inclusive prefix scan of a tile along one axis with a combiner region";
  let description = [{
    Element `i` along `axis` of the result is `f(...f(f(x0, x1), x2)..., xi)`
    for the elements `x0..xi` of `src` along that axis, each line of the
    other axes on its own, where `f` is the `combiner` region: two scalars of
    the element type in (the earlier prefix first), one out through
    `tile.combiner_yield`. The combiner must be associative: the GPU code
    combines chunks of a line in parallel (the order of operands is kept, so
    it need not be commutative). Its ops are scalar and free of memory
    effects; it may use values defined outside (captured scalars).

    ```mlir
    %p = tile.associative_scan %x axis 1 : tensor<64x128xf32> {
    ^bb0(%a: f32, %b: f32):
      %m = arith.mulf %a, %b : f32
      tile.combiner_yield %m : f32
    }
    ```
  }];
  let arguments = (ins Tile_Tile:$src, I64Attr:$axis);
  let results = (outs Tile_Tile:$result);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = "$src `axis` $axis attr-dict `:` type($src) $combiner";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The value the combiner yields.
    ::mlir::Value getCombined();
  }];
}

def Tile_CombinerYieldOp : Tile_Op<"combiner_yield", [Pure, ReturnLike, Terminator,
    HasParent<"AssociativeScanOp">]> {
  let summary = "ends a scan's combiner with the combined value";
  let description = [{
    Terminates the `combiner` region of `tile.associative_scan` with one
    scalar of the scanned element type.

    ```mlir
    tile.combiner_yield %m : f32
    ```
  }];
  let arguments = (ins Tile_ElementType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // TILE_SCAN_OPS_TD
