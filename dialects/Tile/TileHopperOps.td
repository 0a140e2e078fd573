//===- TileHopperOps.td - sm_90a's asynchronous units ------------*- tablegen -*-===//
//
// What sm_90a adds on top of shared memory (TileSharedOps.td): warpgroup dots
// (wgmma) and their waits, mbarriers, TMA copies and stores, cluster barriers,
// the producer/compute split of a warp-specialized kernel with its register
// budgets, and the compute warpgroups' turns. Code generation makes these ops
// (tile-stage-operands, tile-software-pipeline, tile-tma-store,
// tile-ping-pong); the frontend never does.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_HOPPER_OPS_TD
#define TILE_HOPPER_OPS_TD

def Tile_WarpgroupDotOp : Tile_Op<"warpgroup_dot", [
    MemoryEffects<[MemRead<Tile_SharedMemory>]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "a warpgroup matrix product (wgmma), B from shared memory, A from either";
  let description = [{
    `result = a x b + acc` with B [K, N] read by wgmma from shared memory
    through a matrix descriptor built from its encoding (swizzled, either axis
    contiguous: the descriptor's transpose bit reads an N-major operand as it
    is stored). A [M, K] is either a shared-memory slot read the same way, or
    a tile in registers with the A layout of the accumulator's mma layout
    (`#tile.dot_op<{opIdx = 0, parent = ...}>`, wgmma's register form): a
    value that already lies in the threads that multiply it, such as
    attention's P, converted from the accumulator of a previous dot, is used
    where it is. The accumulator has a version-3 mma layout.
    tile-stage-operands makes this op from a `tile.dot` whose accumulator
    tile-assign-layouts gave a version-3 layout; the lowering waits for the
    products before the result is used, unless `isAsync` is set: then the
    products stay in flight (one wgmma group) until a `tile.warpgroup_wait`
    of the result (tile-software-pipeline sets it on a loop's accumulating
    dots).

    ```mlir
    %d = tile.warpgroup_dot %a, %b, %c
           : !tile.memdesc<128x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>,
             !tile.memdesc<64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
             -> tensor<128x128xf32, #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>>
    %e = tile.warpgroup_dot %p, %v, %c
           : tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>}>>,
             !tile.memdesc<64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
             -> tensor<128x128xf32, #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_MemDescType, Tile_Tile]>:$a, Tile_MemDescType:$b,
                       Tile_Tile:$acc, UnitAttr:$isAsync);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether A is read from registers (wgmma's register form).
    bool hasRegisterA() { return isa<mlir::RankedTensorType>(getA().getType()); }
  }];
}

def Tile_WarpgroupWaitOp : Tile_Op<"warpgroup_wait",
    [AllTypesMatch<["value", "result"]>]> {
  let summary = "waits until at most `pendings` groups of asynchronous warpgroup dots run";
  let description = [{
    Returns its operand, the result of an asynchronous `tile.warpgroup_dot`,
    once all but the last `pendings` wgmma groups the warpgroup committed are
    complete. With `pendings = 1` after a loop's accumulating dot, the dot of
    the previous iteration is complete (its shared-memory operands may be
    overwritten) while this one runs on: the result then only feeds the next
    iteration's dot, which accumulates into the same registers. `pendings = 0`
    after the loop makes the accumulator readable.

    The `ordered` f32 tiles are returned unchanged, but only after the wait:
    what is computed from the results runs after it. A rotated attention loop
    passes P's f32 source through the wait for the previous P V product, so
    that P's conversion into the registers of the next product's A fragment
    cannot run while that product still reads them (a pure conversion may
    otherwise be scheduled anywhere before its first use).

    ```mlir
    %r = tile.warpgroup_wait %d {pendings = 1 : i32} : tensor<128x128xf32, #mma3>
    %o, %p2 = tile.warpgroup_wait %acc, %p {pendings = 0 : i32}
        : tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma1> -> tensor<128x64xf32, #mma1>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Variadic<StaticShapeTensorOf<[F32]>>:$ordered,
                       I32Attr:$pendings);
  let results = (outs Tile_Tile:$result, Variadic<StaticShapeTensorOf<[F32]>>:$orderedResults);
  let assemblyFormat = [{
    $value (`,` $ordered^)? attr-dict `:` type($value)
    (`,` type($ordered)^ `->` type($orderedResults))?
  }];
  let builders = [
    OpBuilder<(ins "Value":$value, "ValueRange":$ordered, "uint32_t":$pendings), [{
      build($_builder, $_state, value.getType(), ordered.getTypes(), value, ordered, pendings);
    }]>,
    OpBuilder<(ins "Value":$value, "uint32_t":$pendings), [{
      build($_builder, $_state, value, ValueRange{}, pendings);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_MBarrierAllocOp : Tile_Op<"mbarrier_alloc", [
    MemoryEffects<[MemAlloc<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "allocates and initialises a row of transaction barriers";
  let description = [{
    One thread initialises each barrier to expect `arrivals` arrivals per
    phase (phase 0 running); the block then synchronises, so every thread
    sees them initialised. tile-allocate-shared places them (`tile.offset`);
    they live to the end of the kernel. Each program executes the op at most
    once (tile-software-pipeline makes it only before a loop that is not
    inside another loop).

    ```mlir
    %bars = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<3>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$arrivals);
  let results = (outs Tile_MBarrierType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "starts a TMA copy of a tile from global memory into a shared slot";
  let description = [{
    Reads what `tile.load %tensor[%coords]` of the slot's shape would read
    (elements outside the tensor become 0) and writes it into `dst` in the
    slot's encoding, through `cp.async.bulk.tensor` with the tensor map
    `map` of the kernel's `tile.tensor_maps` (one copy per column block of a
    swizzled slot). One thread of the block arrives on barrier `index` of
    `bars`, expecting the slot's bytes, and issues the copies; the barrier's
    phase completes when they have landed. With `pred` false nothing happens.

    With `multicast = C` the kernel runs in clusters of C programs
    (tile-cluster-programs) that all copy the same tile at this point: the
    program of rank r in its cluster issues the column blocks j with
    j mod C = r, each written into the same slot of every program of the
    cluster and completing on the same barrier there, so that each program's
    barrier still receives the whole slot's bytes.

    ```mlir
    tile.tma_copy %a[%i, %k], %slot, %bars[%s] if %p {map = 0 : i32}
        : !tile.tensor<?x?xbf16>, !tile.memdesc<128x64xbf16, #shared>, !tile.mbarrier<3>
    tile.tma_copy %b[%k, %j], %slot, %bars[%s] {map = 1 : i32, multicast = 2 : i32}
        : !tile.tensor<?x?xbf16>, !tile.memdesc<64x256xbf16, #shared>, !tile.mbarrier<3>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<I32>:$coords, Tile_MemDescType:$dst,
                       Tile_MBarrierType:$bars, I32:$index, Optional<I1>:$pred,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$map,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>, IntMaxValue<16>]>>:$multicast);
  let assemblyFormat = [{
    $tensor `[` $coords `]` `,` $dst `,` $bars `[` $index `]` (`if` $pred^)? attr-dict `:`
    type($tensor) `,` qualified(type($dst)) `,` qualified(type($bars))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreOp : Tile_Op<"tma_store",
    [MemoryEffects<[MemWrite, MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "stores a tile into a global tensor through shared memory and TMA";
  let description = [{
    Writes what `tile.store %tensor[%coords], %value` writes (elements outside
    the tensor are not written) by staging `value` one column window of the
    slot's shape at a time into the slots of `buf` (in turn) and storing each
    window with `cp.async.bulk.tensor` through tensor map `map` of the
    kernel's `tile.tensor_maps`, issued by thread 0 as one bulk group. Before
    a slot is written again, the group that read it last has finished reading
    it (at most `slots - 1` groups of the thread stay in flight): the stores
    run on while the program goes on (the next tile of a persistent loop).
    The op orders its own shared-memory accesses (barriers of the compute
    warps, a proxy fence before each store); `tile.tma_store_wait` completes
    the stores. The value's layout must give every thread the same elements
    of each window (the mma layouts do). tile-tma-store makes it.

    ```mlir
    tile.tma_store %c[%i, %j], %acc, %buf {map = 2 : i32}
        : !tile.tensor<?x?xbf16>, tensor<128x256xbf16, #mma>, !tile.memdesc<2x128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<I32>:$coords, Tile_Tile:$value,
                       Tile_MemDescType:$buf, ConfinedAttr<I32Attr, [IntNonNegative]>:$map);
  let assemblyFormat = [{
    $tensor `[` $coords `]` `,` $value `,` $buf attr-dict `:` type($tensor) `,` type($value) `,`
    qualified(type($buf))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreWaitOp : Tile_Op<"tma_store_wait",
    [MemoryEffects<[MemWrite, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "completes the TMA stores a program has issued";
  let description = [{
    Waits until the bulk groups of `tile.tma_store` (every store of the
    thread) are complete: their writes to global memory are done and `buf`
    is no longer read. tile-tma-store puts one after the last store of each
    buffer, before the program ends.

    ```mlir
    tile.tma_store_wait %buf : !tile.memdesc<2x128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$buf);
  let assemblyFormat = "$buf attr-dict `:` qualified(type($buf))";
}

// Writes: the copies it completes become visible (and it must not be erased).
def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "waits until a barrier's phase of the given parity has completed";
  let description = [{
    Every thread waits (mbarrier.try_wait.parity) until barrier `index` of
    `bars` has completed the phase whose parity is `phase` (0 or 1); the TMA
    copies that completed on it are then visible to the thread.

    ```mlir
    tile.mbarrier_wait %bars[%s], %phase : !tile.mbarrier<3>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$bars, I32:$index, I32:$phase);
  let assemblyFormat = "$bars `[` $index `]` `,` $phase attr-dict `:` qualified(type($bars))";
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "every executing thread arrives on a barrier";
  let description = [{
    Releases what the thread did before (its reads of a slot, in a
    warp-specialized loop: the producer may then refill the slot). The
    barrier's `arrivals` count the threads that arrive per phase.

    With `cluster = C` (a kernel in clusters of C programs), each warp
    arrives once on the barrier at the same place in every program of its
    cluster (lane r on the one of the program of rank r): the barrier then
    counts warps times C arrivals per phase, and its phase completes when
    every warp of the cluster has released the slot.

    ```mlir
    tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<4>
    tile.mbarrier_arrive %empty[%s] {cluster = 2 : i32} : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$bars, I32:$index,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>, IntMaxValue<16>]>>:$cluster);
  let assemblyFormat = "$bars `[` $index `]` attr-dict `:` qualified(type($bars))";
  let hasVerifier = 1;
}

def Tile_ClusterBarrierOp : Tile_Op<"cluster_barrier",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "synchronises every thread of the programs of a cluster";
  let description = [{
    In a kernel launched in clusters (`tile.cluster_dims`), every thread of
    every program of the cluster arrives and waits (barrier.cluster, the
    arrival relaxed: it orders no memory but what was fenced for the cluster
    before, as `tile.mbarrier_alloc` fences its initialisation). Placed after
    the barriers that multicast copies and cluster arrivals target are
    initialised, and at the end of the kernel, so that no program exits while
    another may still arrive on its barriers or write into its shared
    memory.

    ```mlir
    tile.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_InProducerOp : Tile_Op<"in_producer", [Pure]> {
  let summary = "whether this thread belongs to the kernel's producer warps";
  let description = [{
    In a kernel with `tile.producer_warps = P`, the block has `num_warps + P`
    warps; the last P are the producer warps (they issue TMA copies), the
    first `num_warps` compute (every layout distributes over those). True in
    the producer warps; with `leader`, only in the first producer thread, the
    one that issues the copies.

    ```mlir
    %p = tile.in_producer
    %l = tile.in_producer leader
    ```
  }];
  let arguments = (ins UnitAttr:$leader);
  let results = (outs I1:$result);
  let assemblyFormat = "(`leader` $leader^)? attr-dict";
}

def Tile_SetMaxRegistersOp : Tile_Op<"set_max_registers",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "moves registers between the warpgroups of a warp-specialized kernel";
  let description = [{
    Every warp of the executing warpgroups sets its register budget to `count`
    per thread (setmaxnreg): down in the producer warps, which need few, up in
    the compute warps, which hold the accumulators.

    ```mlir
    tile.set_max_registers {count = 232 : i32, increase}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<24>, IntMaxValue<256>]>:$count,
                       UnitAttr:$increase);
  let assemblyFormat = "attr-dict";
}

// Turns: the compute warpgroups of a warp-specialized kernel take turns at the
// sections tile-ping-pong marks (its warpgroup dots). Each op has a named
// barrier per warpgroup behind it; the kernel needs two compute warpgroups or
// more (`num_warps` a multiple of 4, at least 8) and producer warps.
class Tile_TurnOp<string mnemonic> : Tile_Op<mnemonic,
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_TurnBeginOp : Tile_TurnOp<"turn_begin"> {
  let summary = "gives the first turn to the first compute warpgroup";
  let description = [{
    The last compute warpgroup passes the turn to warpgroup 0, before any
    `tile.turn_wait`; the other warpgroups do nothing.

    ```mlir
    tile.turn_begin
    ```
  }];
}

def Tile_TurnWaitOp : Tile_TurnOp<"turn_wait"> {
  let summary = "waits until it is the executing warpgroup's turn";
  let description = [{
    Compute warpgroup g waits until warpgroup g - 1 (the last one, for
    warpgroup 0) has passed the turn to it with `tile.turn_pass`.

    ```mlir
    tile.turn_wait
    %s = tile.warpgroup_dot %q, %k, %zero {isAsync} : ...
    tile.turn_pass
    ```
  }];
}

def Tile_TurnPassOp : Tile_TurnOp<"turn_pass"> {
  let summary = "passes the turn to the next compute warpgroup";
  let description = [{
    Compute warpgroup g lets warpgroup g + 1 (warpgroup 0, from the last one)
    go on from its `tile.turn_wait`; it does not wait itself.

    ```mlir
    tile.turn_pass
    ```
  }];
}

def Tile_TurnEndOp : Tile_TurnOp<"turn_end"> {
  let summary = "takes back the last turn";
  let description = [{
    Warpgroup 0 waits for the turn the last warpgroup passed it last, after
    every `tile.turn_pass`, so that each pass meets one wait; the other
    warpgroups do nothing.

    ```mlir
    tile.turn_end
    ```
  }];
}

#endif // TILE_HOPPER_OPS_TD
