//===- Passes.td - tile IR transformations -----------------------*- tablegen -*-===//
//
// One def per pass; each lives in its own .cpp under lib/Transforms and has a lit
// test of the same name under test/lit/Transforms.
//
//===----------------------------------------------------------------------------===//

#ifndef TESSERA_TRANSFORMS_PASSES_TD
#define TESSERA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilePadExtents : Pass<"tile-pad-extents", "::mlir::tile::KernelOp"> {
  let summary = "pads tile extents that are not powers of two, masking the padding";
  let description = [{
    Code generation lays tiles out over lanes, warps and registers by powers of
    two. This pass gives every tile whose extents are not powers of two the
    next power of two along each such axis, and keeps the program's meaning by
    masking the padding wherever it could leak into a result: block loads and
    stores record their block extents (`extents`: the block origins and which
    tile elements are inside), element accesses and atomics AND a mask of the
    logical elements into theirs, reductions along a padded axis see the
    reduction's identity in the padding, and a dot whose K is padded sees
    zeros in the padded columns of A and rows of B, and an assert's condition
    holds in the padding. Element-wise math on the
    padding computes values nobody reads. A dot of f16/bf16 operands below
    mma.sync's m16n8k16 (the 4 to 8 query rows of grouped-query decode) pads
    its small extents up to the instruction's, wherever that extent occurs in
    the kernel, when the padded dot gives every warp a fragment: it then runs
    on tensor cores instead of FMA loops. Runs first, on tile IR without
    layouts; the interpreter runs the unpadded program.

    ```mlir
    %t = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<48xf32>
    // becomes
    %t = tile.load %x[%p] {extents = array<i64: 48>} : !tile.tensor<?xf32> -> tensor<64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect"];
}

def TileLegalizeFloat8 : Pass<"tile-legalize-float8", "::mlir::tile::KernelOp"> {
  let summary = "makes f8 values i8 bits and expands their conversions into integer math";
  let description = [{
    LLVM has no 8-bit float types, and PTX converts to and from them only on
    sm_89 and later. This pass gives every f8E4M3FN and f8E5M2 value (tiles,
    scalars, tensor arguments, constants) the i8 type of its bits, and expands
    every `tile.convert` from or to an f8 type into integer and f32 arithmetic
    that every target has: decoding is exact (through f32), encoding rounds to
    nearest even and saturates (a finite value or an infinity beyond the largest
    finite f8 value becomes it, as PTX's `cvt.satfinite` does; NaN stays NaN).
    Other types go through f32 first (exact for f16, bf16 and integers up to
    2^24, saturated beyond), f64 with round-to-odd so that it rounds once.
    Loads, stores, `where` and the data movement ops then move bytes. Runs
    first in code generation, before any pass that looks at element types;
    the interpreter runs f8 programs as they are.

    ```mlir
    %f = tile.convert %h : tensor<128xf8E4M3FN> -> tensor<128xf32>
    // becomes, with %h : tensor<128xi8>
    %u = arith.extui %h : tensor<128xi8> to tensor<128xi32>
    ...
    %f = arith.bitcast %v : tensor<128xi32> to tensor<128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::tile::KernelOp"> {
  let summary = "gives every tile a distributed layout and inserts layout conversions";
  let description = [{
    Attaches a layout encoding to every tile of a kernel. Loads, stores and
    other anchors get a coalesced blocked layout (16-byte vectors per thread
    along the contiguous axis, lanes along it, warps along the outer axes);
    `tile.dot` gets an mma accumulator layout (f16/bf16) or a blocked one (f32)
    with dot-operand layouts for its inputs; reductions give slice layouts;
    element-wise ops follow an mma-rooted operand, else their first
    non-constant one, so that attention's softmax runs in the dot's registers.
    Where an operand has the wrong layout it is recomputed there when it comes
    from index math (aranges, splats, element-wise ops, broadcasts), else a
    `tile.convert_layout` is inserted; loop-carried values take the layout
    each iteration produces. Conversions that fold away (no-ops, chains, splat
    constants) are removed and loop-invariant ones hoisted. Whether a dot
    runs on tensor cores, and on which instruction, is the target's answer
    (TargetInfo::tensorCoreInstr for `arch`).
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture code is generated for (sm_80, sm_90a, ...)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileStageOperands : Pass<"tile-stage-operands", "::mlir::tile::KernelOp"> {
  let summary = "stages tensor-core operands through swizzled shared memory";
  let description = [{
    Rewrites every `tile.convert_layout` into an mma dot-operand layout that
    is not a register permutation into a `tile.local_alloc` of the source
    with a `#tile.shared` encoding (stored along the source's fastest axis;
    the swizzle with the fewest bank conflicts for the writes and the
    ldmatrix reads, by the bank model) and a `tile.local_load` into the
    operand layout.

    ```mlir
    %a = tile.convert_layout %x : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #dot_op>
    // becomes
    %m = tile.local_alloc %x : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
    %a = tile.local_load %m : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #dot_op>
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileSoftwarePipeline : Pass<"tile-software-pipeline", "::mlir::tile::KernelOp"> {
  let summary = "overlaps a loop's operand loads with its compute (num_stages)";
  let description = [{
    For every `scf.for` whose loads only feed shared memory (staged
    tensor-core operands, through `.T` too) at coordinates computed from the
    induction variable and invariants: a buffer of `tile.num_stages` slots
    per load, a prologue of S-1 asynchronous copies (one commit group per
    iteration), and in each iteration `tile.async_wait` of S-2 groups, the copy
    for iteration i + S - 1 into the slot iteration i - 1 read, and the
    compute on slot i % S; `tile.async_wait 0` after the loop. Copies past the
    trip count are predicated off. Needs cp.async (`arch` sm_80 or later).
    On sm_90, in the aligned variant, a loop not nested in another loop
    copies with TMA (`tile.tma_copy`, `tile.mbarrier_wait`; the kernel's
    `tile.tensor_maps`). With `warp-specialize` (the pass option, or the
    kernel's `tile.warp_specialize` schedule option), a loop whose one
    warpgroup dot accumulates is split between a producer warpgroup and the
    compute warps (PipelineTma.cpp). Element-addressed loads (`tile.gather`)
    whose indices and mask come from the induction variable, invariants and,
    when the loop writes no global memory, other reads (a block table's page
    numbers, read again for each copy ahead) are copied by cp.async too
    (`tile.async_gather`) where the index math proves runs of 4 to 16 bytes.

    ```mlir
    scf.for %i = %lb to %ub step %s : i32 {
      tile.async_wait 1                     // num_stages = 3
      tile.async_copy %a[%p, %i2], %next if %valid {layout = #blocked, vec = 8 : i32} ...
      tile.async_commit_group
      %cur = tile.memdesc_index %buf[%slot] : ...
      %a = tile.local_load %cur : ...
      ...
    }
    tile.async_wait 0
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture (its asynchronous copies)">,
    Option<"warpSpecialize", "warp-specialize", "bool", "false",
           "give a matmul-like TMA loop a producer warpgroup">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect"];
}

def TileTmaStore : Pass<"tile-tma-store", "::mlir::tile::KernelOp"> {
  let summary = "stores tensor-core accumulators through shared memory and TMA";
  let description = [{
    With the kernel's `tile.tma_store` (the compiler's `tma-store` schedule
    option), on a target with TMA and in the aligned variant, each block store
    of a tile with an mma layout (looked through its conversion to a store
    layout) to a kernel argument TMA can describe becomes a `tile.tma_store`
    of the mma-layout value through a buffer of one or two swizzled slots of
    [rows, W] (W: the columns of a 128-byte row, or the whole tile), allocated
    at the top of the body, and a `tile.tma_store_wait` of the buffer after
    the op of the body that holds the store. The store's tensor map joins the
    kernel's `tile.tensor_maps`. The windows are written while the program
    goes on: in a persistent loop, the next tile's main loop overlaps them.

    ```mlir
    %buf = tile.local_alloc : !tile.memdesc<2x128x64xbf16, #shared>
    ...
    tile.tma_store %c[%i, %j], %acc, %buf {map = 2 : i32}
        : !tile.tensor<?x?xbf16>, tensor<128x256xbf16, #mma>, !tile.memdesc<2x128x64xbf16, #shared>
    ...
    tile.tma_store_wait %buf : !tile.memdesc<2x128x64xbf16, #shared>
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture (whether it has TMA)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAllocateShared : Pass<"tile-allocate-shared", "::mlir::tile::KernelOp"> {
  let summary = "gives every shared-memory buffer and scratch an offset, with liveness";
  let description = [{
    Records on every `tile.local_alloc` its byte offset (`tile.offset`) and
    on every op that needs scratch (layout conversions through shared memory,
    reductions across warps) the offset of its scratch
    (`tile.scratch_offset`); buffers not live at the same time share memory.
    The kernel's total goes to `tile.shared_bytes`; more than a block of
    `arch` may have is an error at the kernel.

    ```mlir
    %a = tile.local_alloc %x {tile.offset = 0 : i64} : (...) -> !tile.memdesc<...>
    %r = tile.reduce sum %y axis 0 {tile.scratch_offset = 16384 : i64} : ...
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture (its shared memory per block)">,
    Option<"checkLimit", "check-limit", "bool", "true",
           "report a kernel that needs more shared memory than a block may have">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "::mlir::tile::KernelOp"> {
  let summary = "orders shared-memory accesses with the barriers they need";
  let description = [{
    After tile-allocate-shared, inserts a `tile.barrier` before every
    shared-memory access that overlaps an access made since the last barrier
    where either writes (buffers through their views, scratch by its
    interval). Asynchronous copies wait for earlier readers of their buffer;
    their data counts as written at the `tile.async_wait` that completes
    them. Loops are analysed across their back edge.

    ```mlir
    %m = tile.local_alloc %x {tile.offset = 0 : i64} : (...) -> !tile.memdesc<...>
    tile.barrier
    %a = tile.local_load %m : ...
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileRotateDots : Pass<"tile-rotate-dots", "::mlir::tile::KernelOp"> {
  let summary = "overlaps a loop's second warpgroup dot with the next iteration's first";
  let description = [{
    With the kernel's `tile.rotate_dots` (the compiler's `rotate-dots`
    schedule option), a warp-specialized compute loop whose two warpgroup dots
    are waited for, the second accumulating into a loop-carried value
    (attention's S = Q K^T and O = O * alpha + P V), is rotated: iteration j
    waits for the second dot of iteration j - 2 (carried in flight) and
    releases its slot, converts P of j - 1 and updates the accumulator,
    issues its first dot and the second dot of j - 1 back to back, waits for
    the first only, and runs the element-wise work of iteration j (the
    softmax) while the second dot runs; nothing waits after it. A prologue
    runs the first part of iteration 0, an epilogue the rest; P (as the
    softmax makes it) and the scale factors are carried by the loop; the ring
    needs three slots or more.
    This is FlashAttention-3's intra-warpgroup overlap. Other loops are left
    as they are. Runs after tile-insert-barriers.

    ```mlir
    %aw = tile.warpgroup_wait %acc {pendings = 0 : i32} : ...
    scf.if %has_two_back {
      tile.mbarrier_arrive %empty[%slot_two_back] : !tile.mbarrier<3>
    }
    %u = arith.mulf %aw, %alpha_prev : ...
    %s = tile.warpgroup_dot %q, %kj, %zero {isAsync} : ...
    %o = tile.warpgroup_dot %p_prev, %v_prev, %u {isAsync} : ...
    %sw = tile.warpgroup_wait %s {pendings = 1 : i32} : ...
    ... the softmax of %sw ...
    scf.yield ..., %o, ...
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePingPong : Pass<"tile-ping-pong", "::mlir::tile::KernelOp"> {
  let summary = "makes a warp-specialized kernel's compute warpgroups take turns at their dots";
  let description = [{
    With the kernel's `tile.ping_pong` (the compiler's `ping-pong` schedule
    option), in a warp-specialized kernel with two compute warpgroups or more,
    every run of warpgroup dots issued together (up to a wait, a synchronous
    dot, or an op that is not pure) becomes a section the warpgroups enter in
    turn: warpgroup 0, then 1, and so on, then 0 again. While one warpgroup's
    dots run on the tensor cores, the others do their element-wise work (the
    softmax, in attention): FlashAttention-3's ping-pong schedule. The last
    warpgroup gives warpgroup 0 the first turn at the top of the compute
    warps' code, and warpgroup 0 takes back the last one at its end. Other
    kernels are left as they are. Runs after tile-rotate-dots.

    ```mlir
    tile.turn_begin
    scf.for %j = %lb to %ub step %c1 ... {
      tile.mbarrier_wait %full[%slot], %phase : !tile.mbarrier<2>
      tile.turn_wait
      %s = tile.warpgroup_dot %q, %k, %zero {isAsync} : ...
      %o = tile.warpgroup_dot %p, %v, %acc {isAsync} : ...
      tile.turn_pass
      %sw = tile.warpgroup_wait %s {pendings = 1 : i32} : ...
      ...
    }
    tile.turn_end
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileUniformMasks : Pass<"tile-uniform-masks", "::mlir::tile::KernelOp"> {
  let summary = "skips a loop's per-element masking where the mask holds everywhere";
  let description = [{
    A `where` over index comparisons in a loop (attention's `cols < N`, causal
    attention's `cols <= rows`) compares and selects per element on every
    iteration, although only a few iterations (the last key block, the
    diagonal ones) have an element the mask clears. For each `arith.select`
    in a loop whose mask is a conjunction of `slt`/`sle`/`sgt`/`sge`
    comparisons of i32 tiles affine in the element's coordinates (built from
    `tile.arange`, `tile.splat`, constants, `arith.addi`/`subi`, `arith.muli`
    by a constant, `tile.expand_dims`, `tile.broadcast`,
    `tile.convert_layout`), the pass tests from scalars whether the mask holds
    for every element (exactly: at the extreme offset, with no element
    wrapping in 32 bits) and branches; the mask's element-wise ops move into
    the branch that still needs them. Other selects are left alone. Runs last
    among the tile IR passes.

    ```mlir
    %all = arith.cmpi slt, %greatest, %c0_i64 : i64
    %s = scf.if %all -> (tensor<128x64xf32>) {
      scf.yield %x : tensor<128x64xf32>
    } else {
      %mask = arith.cmpi slt, %cols, %n : tensor<1x64xi32>
      %b = tile.broadcast %mask : tensor<1x64xi1> -> tensor<128x64xi1>
      %m = arith.select %b, %x, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
      scf.yield %m : tensor<128x64xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileSinkSharedLoads : Pass<"tile-sink-shared-loads", "::mlir::ModuleOp"> {
  let summary = "moves shared-memory loads of lowered kernels down to their first use";
  let description = [{
    Runs on the LLVM dialect after `convert-tile-to-llvm`. A layout conversion
    into mma operands loads every fragment (ldmatrix) before the first mma that
    uses it; this pass moves each shared-memory load, and the struct/vector
    extracts, inserts and bitcasts between it and its users, to just before its
    first user in the same block, so fragments stay live only while used. Loads
    never cross barriers or ops that may write memory.

    ```mlir
    %f = llvm.inline_asm has_side_effects "ldmatrix...", "=r,l" %addr : (!llvm.ptr<3>) -> i32
    ... // other mma.sync
    %d = llvm.inline_asm "mma.sync...", "..." %f, ... // %f's load now sits here
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileClusterPrograms : Pass<"tile-cluster-programs", "::mlir::tile::KernelOp"> {
  let summary = "launches programs in clusters that share the tiles they all load";
  let description = [{
    With the kernel's `cluster` schedule option C (`tile.cluster`) on sm_90,
    a block load in a loop whose tile is the same for C programs that differ
    in `program_id(0)` only (its tensor and coordinates, and every loop
    around it, do not depend on `program_id(0)`; no `scf.if` around it: a
    matmul's B) gets `tile.multicast = C`, and the kernel
    `tile.cluster_dims = [C, 1, 1]`: consecutive programs along axis 0 launch
    as one thread-block cluster, and tile-software-pipeline copies such a
    tile once per cluster by TMA, multicast into each program's slot. A
    kernel with no such load, or a persistent one, is left as it is. Runs
    before tile-group-programs, which keeps a cluster on one value of axis 1.

    ```mlir
    tile.kernel @matmul(...) attributes {tile.cluster = 2 : i64,
                                         tile.cluster_dims = array<i64: 2, 1, 1>} ...
      %b = tile.load %arg1[%k, %p1] {tile.multicast = 2 : i32} : ...
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture code is generated for (sm_80, sm_90a, ...)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileGroupPrograms : Pass<"tile-group-programs", "::mlir::tile::KernelOp"> {
  let summary = "orders a matmul's output tiles in groups of rows for L2 reuse";
  let description = [{
    The programs of a launch are independent and their order is unspecified,
    so any bijection of program ids keeps a kernel's meaning. When a kernel
    has a 2-D (or 3-D) grid and a `tile.dot` whose A operand depends on
    `program_id(0)` but not `program_id(1)` and whose B operand the other way
    round (a matmul's output tiles), the ids of axes 0 and 1 are remapped so
    that consecutively launched programs sweep `group` rows of axis 0 and then
    move along axis 1: a wave of programs shares the A rows and B columns it
    reads in L2 (Triton's grouped ordering). Other kernels are left as they
    are.

    ```mlir
    %p0 = tile.program_id x
    // uses of %p0 and %p1 become the grouped ids computed from
    // lin = p1 * num_programs(x) + p0
    ```
  }];
  let options = [
    Option<"group", "group", "unsigned", "8", "rows of axis 0 per group">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect"];
}

def TileSplitK : Pass<"tile-split-k", "::mlir::tile::KernelOp"> {
  let summary = "splits a matmul-like kernel's reduction loop over more programs (split-K)";
  let description = [{
    For a kernel with `tile.split_k = S` (S > 1: the compiler's `split-k`
    schedule option), runs S programs per output tile, each over a contiguous
    share of the iterations of the loop that accumulates a `tile.dot` from
    zeros, and reduces their partial accumulators through a global workspace:
    the grid gains a third axis of extent S, the loop's bounds come from
    `program_id(2)`, and after the loop each program publishes its partial
    (`tile.split_k_publish`); the last program of a tile to arrive sums the
    partials in split order (`tile.split_k_combine`) and alone runs the rest
    of the kernel. Output tiles that fill a fraction of the GPU's
    multiprocessors then fill S times as many.

    A kernel qualifies when its grid has at most two axes and axis 2 is not
    used, one loop of its body (not nested) carries exactly one value, an f32
    tile that starts as zeros and that a `tile.dot` accumulates, and nothing
    before that loop writes memory; otherwise the pass fails with an error
    at the kernel. Runs on tile IR before layouts; the interpreter never sees
    it (the split does not change the result beyond the order of additions).

    ```mlir
    %lo, %hi = (this split's share of [0, cdiv(K, BK)))
    %acc = scf.for %k = %lo to %hi ... { tile.dot ... }
    %last = tile.split_k_publish %acc {splits = 2 : i64} : tensor<128x128xf32>
    scf.if %last {
      %sum = tile.split_k_combine %acc {splits = 2 : i64} : tensor<128x128xf32>
      // the rest of the kernel, on %sum
    }
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePersistent : Pass<"tile-persistent", "::mlir::tile::KernelOp"> {
  let summary = "runs a grid of independent programs as a loop in as many as fit (persistent)";
  let description = [{
    For a kernel with `tile.persistent` (the compiler's `persistent` schedule
    option), the grid clause's n0 x n1 programs become virtual: the launch
    grid is one axis of n0 * n1, which the runtime clamps to the programs the
    GPU holds at once, and the body runs in a loop (`tile.persistent_loop`)
    from `program_id(x)` to n0 * n1 by `num_programs(x)`. In the loop,
    `program_id(x)` and `program_id(y)` are the virtual program's
    coordinates (t % n0, t / n0) and `num_programs` the grid clause's
    extents, computed in the body. A warp-specialized producer then keeps
    copying across tiles (tile-software-pipeline), so a program's next tile
    is loading while it stores the last.

    A grid of three axes or a split-K kernel is an error at the kernel. Runs
    on tile IR before layouts; the interpreter never sees it.

    ```mlir
    %n0 = arith.ceildivsi %M, %c128 : i32     // the grid clause, in the body
    %n1 = arith.ceildivsi %N, %c128 : i32
    %total = arith.muli %n0, %n1 : i32
    %p = tile.program_id x
    %np = tile.num_programs x
    scf.for %t = %p to %total step %np : i32 {
      %q0 = arith.remui %t, %n0 : i32       // was program_id(x)
      %q1 = arith.divui %t, %n0 : i32       // was program_id(y)
      ...
    } {tile.persistent_loop}
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TESSERA_TRANSFORMS_PASSES_TD
