//===- TileSplitKOps.td - split-K reduction ops ------------------*- tablegen -*-===//
//
// A kernel split along its reduction loop (tile-split-k) runs `splits` programs
// per output tile, each over a share of the loop; the partial accumulators
// meet in a global workspace. Each program publishes its partial, and the
// last program of a tile to arrive sums them (in split order, so the result
// does not depend on arrival order) and runs the rest of the kernel. The
// workspace and the per-tile arrival counters are hidden kernel parameters
// (docs/kernel-abi.md); the frontend never makes these ops.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_SPLIT_K_OPS_TD
#define TILE_SPLIT_K_OPS_TD

def Tile_SplitKWorkspace : Resource<"::mlir::tile::SplitKWorkspace">;

def Tile_SplitKPublishOp : Tile_Op<"split_k_publish",
    [MemoryEffects<[MemWrite<Tile_SplitKWorkspace>, MemRead<Tile_SplitKWorkspace>]>]> {
  let summary = "stores this program's partial accumulator; true in the last of its tile";
  let description = [{
    Every thread writes its elements of `partial` into the workspace slot of
    this program (output tile = program ids of axes 0 and 1, split = program
    id of axis 2), makes them visible to the device, and the block counts
    itself in its tile's arrival counter. The result is true in every thread
    of the tile's last program to arrive, which alone goes on to
    `tile.split_k_combine`. Every thread of the block must execute it.

    ```mlir
    %last = tile.split_k_publish %acc {splits = 4 : i64} : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$partial, ConfinedAttr<I64Attr, [IntMinValue<2>, IntMaxValue<16>]>:$splits);
  let results = (outs I1:$last);
  let assemblyFormat = "$partial attr-dict `:` type($partial)";
}

def Tile_SplitKCombineOp : Tile_Op<"split_k_combine",
    [MemoryEffects<[MemWrite<Tile_SplitKWorkspace>, MemRead<Tile_SplitKWorkspace>]>,
     AllTypesMatch<["partial", "result"]>]> {
  let summary = "sums the partial accumulators of every split of the tile";
  let description = [{
    In the last program of an output tile (after `tile.split_k_publish`
    returned true), the sum of the tile's published partials in split order
    0, 1, ..., splits - 1, in `partial`'s layout; the tile's arrival counter
    is reset for the next launch. `partial` is this program's own partial
    (already published): it gives the type and layout.

    ```mlir
    %sum = tile.split_k_combine %acc {splits = 4 : i64} : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$partial, ConfinedAttr<I64Attr, [IntMinValue<2>, IntMaxValue<16>]>:$splits);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$partial attr-dict `:` type($partial)";
}

#endif // TILE_SPLIT_K_OPS_TD
