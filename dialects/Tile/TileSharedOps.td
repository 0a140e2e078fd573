//===- TileSharedOps.td - shared memory in the tile dialect ------*- tablegen -*-===//
//
// Shared memory as IR: buffers (`!tile.memdesc`) are allocated, written from
// distributed tiles or by asynchronous copies from global memory, viewed per
// slot or transposed, and read back into a distributed layout. Code generation
// makes these ops (tile-stage-operands, tile-software-pipeline), gives every
// buffer an offset (tile-allocate-shared) and orders the accesses with
// barriers (tile-insert-barriers); the frontend never does.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_SHARED_OPS_TD
#define TILE_SHARED_OPS_TD

def Tile_SharedMemory : Resource<"::mlir::tile::SharedMemory">;

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "allocates a shared-memory buffer, optionally holding a tile";
  let description = [{
    A buffer of the shape and encoding of its type, live from here to its
    last use (views included). With `src`, the distributed tile is stored
    into it. tile-allocate-shared records its byte offset in the block's
    shared memory as `tile.offset`.

    ```mlir
    %m = tile.local_alloc %a : (tensor<128x64xbf16, #blocked>)
           -> !tile.memdesc<128x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
    %s = tile.local_alloc : () -> !tile.memdesc<3x128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins Optional<Tile_Tile>:$src);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type($src, $result)";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "stores a distributed tile into a shared-memory slot";
  let description = [{
    ```mlir
    tile.local_store %t, %slot : tensor<64x64xf32, #blocked>, !tile.memdesc<64x64xf32, #shared>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, Tile_MemDescType:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [MemoryEffects<[MemRead<Tile_SharedMemory>]>]> {
  let summary = "reads a shared-memory slot into a distributed tile";
  let description = [{
    Tensor-core operand layouts are read with `ldmatrix`, in the form that
    matches how the slot is stored: the plain form when the K axis is the
    contiguous one, `.trans` otherwise, so no operand is transposed by a
    round trip. Other layouts use vector loads.

    ```mlir
    %a = tile.local_load %slot : !tile.memdesc<128x64xbf16, #shared>
           -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_MemDescIndexOp : Tile_Op<"memdesc_index", [Pure]> {
  let summary = "a view of one slot of a multi-slot buffer";
  let description = [{
    ```mlir
    %slot = tile.memdesc_index %buf[%i] : !tile.memdesc<3x128x64xbf16, #shared>
              -> !tile.memdesc<128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src, I32:$index);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescTransOp : Tile_Op<"memdesc_trans", [Pure]> {
  let summary = "a view of a slot as the transposed tile";
  let description = [{
    The same bytes seen as the [cols, rows] tile: the encoding's order is
    reversed. A load consumed through `.T` is copied as it lies in global
    memory and read through this view.

    ```mlir
    %t = tile.memdesc_trans %k : !tile.memdesc<64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
           -> !tile.memdesc<128x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "starts copying a tile from global memory into a shared slot";
  let description = [{
    Reads what `tile.load %tensor[%coords]` of the slot's shape would read
    (the same coordinate convention; elements outside the tensor become 0;
    `extents`, as the load's, the block's extents of a padded tile, whose
    elements past them become 0 too) and writes it into `dst` asynchronously
    (cp.async). Each thread copies
    the elements `layout` gives it, in runs of `vec` elements along the
    tensor's last axis. With `pred` false nothing is read and the slot is
    zero-filled. The data may be read only after a `tile.async_wait` that
    covers the copy's group.

    ```mlir
    tile.async_copy %a[%i, %k], %slot if %p {layout = #blocked, vec = 8 : i32}
        : !tile.tensor<?x?xbf16>, !tile.memdesc<128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_Index>:$coords, Tile_MemDescType:$dst,
                       Optional<I1>:$pred, AnyAttr:$layout, I32Attr:$vec,
                       OptionalAttr<DenseI64ArrayAttr>:$extents);
  let assemblyFormat = [{
    $tensor `[` custom<Coords>($coords, type($coords)) `]` `,` $dst (`if` $pred^)? attr-dict `:` type($tensor) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "closes the group of the asynchronous copies issued since the last one";
  let description = [{
    ```mlir
    tile.async_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "waits until at most `num` copy groups of this thread are in flight";
  let description = [{
    The copies of older groups have landed for the thread that issued them;
    a barrier then makes them visible to the others.

    ```mlir
    tile.async_wait 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$num);
  let assemblyFormat = "$num attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "a barrier of the whole block, ordering its shared-memory accesses";
  let description = [{
    Inserted by tile-insert-barriers between shared-memory accesses that
    would otherwise race.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_FenceAsyncSharedOp : Tile_Op<"fence_async_shared",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "makes this thread's shared-memory writes visible to the async proxy";
  let description = [{
    Orders the thread's earlier generic-proxy writes to shared memory (stores,
    completed cp.async copies) before later async-proxy reads of it (wgmma
    operands). tile-insert-barriers puts one before each barrier that publishes
    such writes in a kernel with warpgroup dots.

    ```mlir
    tile.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILE_SHARED_OPS_TD
