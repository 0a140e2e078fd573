// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{arch=sm_80}))' | FileCheck %s
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{arch=sm_80},tile-allocate-shared{arch=sm_80},tile-insert-barriers))' | FileCheck %s --check-prefix=BAR
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{arch=sm_90a}))' | FileCheck %s --check-prefix=TMA
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{arch=sm_90a},tile-allocate-shared{arch=sm_90a},tile-insert-barriers))' | FileCheck %s --check-prefix=TMABAR
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{arch=sm_90a warp-specialize=true}))' | FileCheck %s --check-prefix=WS
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{arch=sm_90a warp-specialize=true},tile-allocate-shared{arch=sm_90a},tile-insert-barriers))' | FileCheck %s --check-prefix=WSBAR

// num_stages = 4: a 4-slot buffer per operand, a prologue of 3 copies (one
// commit group each, predicated on the iteration existing), and a steady
// state that waits for all but num_stages - 2 = 2 groups, copies ahead into
// the slot of iteration i + 3, commits, and reads slot i % 4. B is consumed
// through .T: it is copied as loaded ([64, 32], K contiguous) and read through
// the transposed view. After the loop, every group is waited for.
// CHECK-LABEL: tile.kernel @mm
// CHECK: %[[BA:.*]] = tile.local_alloc : () -> !tile.memdesc<4x128x32xbf16, #[[S:.*]]>
// CHECK: %[[BB:.*]] = tile.local_alloc : () -> !tile.memdesc<4x64x32xbf16, #[[S]]>
// CHECK-COUNT-3: tile.async_commit_group
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N:.*]] step
// CHECK-NEXT: tile.async_wait 2
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %[[NEXT]]], %{{.*}} if %[[VALID]] {layout = #{{.*}}, vec = 8 : i32}
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %[[NEXT]]], %{{.*}} if %[[VALID]]
// CHECK: tile.async_commit_group
// CHECK: %[[CB:.*]] = tile.memdesc_index %[[BB]]
// CHECK: %[[T:.*]] = tile.memdesc_trans %[[CB]] : !tile.memdesc<64x32xbf16, #{{.*}}> -> !tile.memdesc<32x64xbf16
// CHECK: tile.local_load %[[T]]
// CHECK-NOT: tile.load
// CHECK: scf.yield
// CHECK: tile.async_wait 0

// One barrier per iteration: after the wait, before the copies that reuse
// the slot the previous iteration read.
// BAR-LABEL: tile.kernel @mm
// BAR: scf.for
// BAR-NEXT: tile.async_wait 2
// BAR-NOT: tile.barrier
// BAR: tile.barrier
// BAR-NEXT: tile.async_copy
// BAR-NOT: tile.barrier
// BAR: scf.yield
// On sm_90a this loop (mma.sync dots, waited for in the iteration) keeps
// cp.async: TMA measured slower there (docs/BENCHMARKS.md).
// TMA-LABEL: tile.kernel @mm
// TMA-NOT: tile.tensor_maps
// TMA-NOT: tile.tma_copy
// TMA: tile.async_copy
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bt = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#s = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#st = #tile.shared<{swizzle = 64, vec = 8, order = [0, 1]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @mm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %x = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #blocked>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #blocked>) -> !tile.memdesc<128x32xbf16, #s>
    %xa = tile.local_load %ma : !tile.memdesc<128x32xbf16, #s> -> tensor<128x32xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
    %y = tile.load %b[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16, #blocked>
    %yt = tile.transpose %y : tensor<64x32xbf16, #blocked> -> tensor<32x64xbf16, #bt>
    %mb = tile.local_alloc %yt : (tensor<32x64xbf16, #bt>) -> !tile.memdesc<32x64xbf16, #st>
    %yb = tile.local_load %mb : !tile.memdesc<32x64xbf16, #st> -> tensor<32x64xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>>
    %d = tile.dot %xa, %yb, %acc : tensor<128x32xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>, tensor<32x64xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>> -> tensor<128x64xf32, #mma>
    scf.yield %d : tensor<128x64xf32, #mma>
  }
  tile.return
}

// -----

// A load with a non-zero pad (cp.async can only zero-fill) stays synchronous.
// CHECK-LABEL: tile.kernel @padded
// CHECK-NOT: tile.async_copy
// CHECK: tile.load
#b2 = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#s2 = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#m2 = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @padded(%a: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 3 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %pad = arith.constant 1.0 : bf16
  scf.for %k = %c0 to %n step %c1 : i32 {
    %x = tile.load %a[%c0, %k] pad %pad : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #b2>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #b2>) -> !tile.memdesc<128x32xbf16, #s2>
    %xa = tile.local_load %ma : !tile.memdesc<128x32xbf16, #s2> -> tensor<128x32xbf16, #tile.dot_op<{opIdx = 0, parent = #m2}>>
  }
  tile.return
}

// -----

// With warp-specialize, on sm_90a, a loop whose one warpgroup dot accumulates
// is split:
// the scalars the copies need and the buffers and barriers come first, then a
// producer warpgroup (tile.in_producer) loops on its own, waiting for each
// slot's release (`empty`: 128 arrivals, one per compute thread; parity
// ((k / 4) & 1) ^ 1, so the first round passes) and refilling it by TMA; the
// compute warps run the rest of the body: wait for the slot's copies
// (`full`), keep the dot's group in flight, and release the previous
// iteration's slot once it is complete. With 4 compute warps no registers move.
// Without it, the loop copies through TMA, with one tensor map per operand
// (A's [128, 32] box, 64-byte swizzle; B's [32, 128] slot as two [32, 64]
// boxes of the 128-byte swizzle), four barriers expecting two arrivals (one per copy); a prologue of
// S - 1 = 3 iterations; each iteration waits for its slot's phase,
// (k / 4) & 1, issues its dot, and once the previous iteration's dot is
// complete (the wait of pendings 1) copies 3 iterations ahead into that slot.
// TMA-LABEL: tile.kernel @wgmma
// TMA-SAME: tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 128, 32>, swizzle = 64 : i64}, {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}]
// TMA-NOT: tile.in_producer
// TMA: %[[BARS:.*]] = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<4>
// TMA-COUNT-3: tile.tma_copy %arg1[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%{{.*}}] if %{{.*}} {map = 1 : i32}
// TMA: scf.for %[[I:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:.*]] iter_args
// TMA: %[[K:.*]] = arith.divsi %{{.*}}, %[[STEP]] : i32
// TMA: %[[CUR:.*]] = arith.remsi %[[K]], %{{.*}} : i32
// TMA: %[[ROUND:.*]] = arith.divsi %[[K]], %{{.*}} : i32
// TMA: %[[PHASE:.*]] = arith.andi %[[ROUND]], %{{.*}} : i32
// TMA: tile.mbarrier_wait %[[BARS]][%[[CUR]]], %[[PHASE]] : !tile.mbarrier<4>
// TMA-NOT: tile.tma_copy
// TMA: tile.warpgroup_dot %{{.*}} {isAsync}
// TMA-NEXT: tile.warpgroup_wait %{{.*}} {pendings = 1 : i32}
// TMA: %[[AHEAD:.*]] = arith.addi %[[K]], %{{.*}} : i32
// TMA: %[[NEXT:.*]] = arith.remsi %[[AHEAD]], %{{.*}} : i32
// TMA: tile.tma_copy %arg0[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%[[NEXT]]] if %{{.*}} {map = 0 : i32}
// TMA: tile.tma_copy %arg1[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%[[NEXT]]] if %{{.*}} {map = 1 : i32}
// TMA-NOT: tile.async
// TMA: scf.yield
// TMA-NOT: tile.async_wait

// The copies need no barrier after them (every reader waits on the
// barrier); the one before them, after every warpgroup's wait, lets the slot
// the previous iteration read be refilled, and nothing is fenced (the async
// proxy writes the data).
// TMABAR-LABEL: tile.kernel @wgmma
// TMABAR: tile.mbarrier_alloc
// TMABAR: scf.for
// TMABAR: tile.mbarrier_wait
// TMABAR-NOT: tile.fence_async_shared
// TMABAR-NOT: tile.barrier
// TMABAR: tile.warpgroup_wait %{{.*}} {pendings = 1 : i32}
// TMABAR-NOT: tile.tma_copy
// TMABAR: tile.barrier
// TMABAR-NEXT: tile.tma_copy
// TMABAR-NOT: tile.barrier
// TMABAR: scf.yield

// WS-LABEL: tile.kernel @wgmma
// WS-SAME: tile.producer_warps = 4 : i64
// WS: %[[A:.*]] = tile.local_alloc : () -> !tile.memdesc<4x128x32xbf16
// WS: %[[B:.*]] = tile.local_alloc : () -> !tile.memdesc<4x32x128xbf16
// WS: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<4>
// WS: %[[FULL:.*]] = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<4>
// WS: %[[P:.*]] = tile.in_producer
// WS: scf.if %[[P]] {
// WS-NOT: tile.set_max_registers
// Only the issuing thread runs the producer loop (no producer thread can fall
// two phases behind an `empty` barrier).
// WS: %[[L:.*]] = tile.in_producer leader
// WS-NEXT: scf.if %[[L]] {
// WS-NEXT: scf.for %[[PI:.*]] =
// WS: %[[PAR:.*]] = arith.xori
// WS: tile.mbarrier_wait %[[EMPTY]][%[[PS:.*]]], %[[PAR]]
// WS: tile.tma_copy %arg0[%{{.*}}, %[[PI]]], %{{.*}}, %[[FULL]][%[[PS]]] {map = 0 : i32}
// WS: tile.tma_copy %arg1[%[[PI]], %{{.*}}], %{{.*}}, %[[FULL]][%[[PS]]] {map = 1 : i32}
// WS: } else {
// WS: scf.for
// WS: tile.mbarrier_wait %[[FULL]]
// WS-NOT: tile.tma_copy
// WS: tile.warpgroup_dot %{{.*}} {isAsync}
// WS-NEXT: tile.warpgroup_wait %{{.*}} {pendings = 1 : i32}
// WS: scf.if
// WS: tile.mbarrier_arrive %[[EMPTY]]
// WS: tile.warpgroup_wait %{{.*}} {pendings = 0 : i32}
// WS: tile.store

// Neither branch needs a block barrier: the slots are ordered by the
// barriers alone.
// WSBAR-LABEL: tile.kernel @wgmma
// WSBAR-NOT: tile.barrier
// WSBAR: tile.return

// A warpgroup dot accumulating into the loop-carried value becomes
// asynchronous: its group stays in flight until the wait of pendings 1 after
// it (the previous iteration's dot is then complete), and one of 0 follows
// the loop. Copies run num_stages - 2 = 2 iterations ahead (2 in the prologue,
// all but 1 group waited for), into the slot read two iterations earlier.
// CHECK-LABEL: tile.kernel @wgmma
// CHECK-COUNT-2: tile.async_commit_group
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait 1
// CHECK: %[[D:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT: %[[W:.*]] = tile.warpgroup_wait %[[D]] {pendings = 1 : i32}
// CHECK-NEXT: scf.yield %[[W]]
// CHECK: tile.async_wait 0
// CHECK-NEXT: %[[DONE:.*]] = tile.warpgroup_wait %{{.*}} {pendings = 0 : i32}
// CHECK: tile.convert %[[DONE]]

// The barrier before each iteration's copies comes after the previous
// iteration's wait, and publishes the landed copies to the async proxy.
// BAR-LABEL: tile.kernel @wgmma
// BAR: scf.for
// BAR-NEXT: tile.async_wait 1
// BAR-NOT: tile.barrier
// BAR: tile.fence_async_shared
// BAR-NEXT: tile.barrier
// BAR-NEXT: tile.async_copy
#wa = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#wb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#ws = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#wsb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @wgmma(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma3>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma3>) : i32 {
    %x = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #wa>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #wa>) -> !tile.memdesc<128x32xbf16, #ws>
    %y = tile.load %b[%k, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #wb>
    %mb = tile.local_alloc %y : (tensor<32x128xbf16, #wb>) -> !tile.memdesc<32x128xbf16, #wsb>
    %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x32xbf16, #ws>, !tile.memdesc<32x128xbf16, #wsb> -> tensor<128x128xf32, #mma3>
    scf.yield %d : tensor<128x128xf32, #mma3>
  }
  %o = tile.convert %r : tensor<128x128xf32, #mma3> -> tensor<128x128xbf16, #mma3>
  tile.store %a[%c0, %c0], %o : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #mma3>
  tile.return
}

// -----

// A padded tile (tile-pad-extents: a block of 96 columns in a 128-column tile)
// is copied by cp.async with the load's extents, in runs that stop at the
// last extent; TMA, whose box would read on into the tensor, is not used for
// the loop, nor is the producer warpgroup.
// CHECK-LABEL: tile.kernel @extents
// CHECK: scf.for
// CHECK: tile.async_copy {{.*}} {extents = array<i64: 32, 96>, layout = #{{.*}}, vec = 8 : i32}
// TMA-LABEL: tile.kernel @extents
// TMA-NOT: tile.tma_copy
// TMA: tile.async_copy {{.*}}extents = array<i64: 32, 96>
// TMA-NOT: tile.tma_copy
// TMA: tile.return
// WS-LABEL: tile.kernel @extents
// WS-NOT: tile.producer_warps
// WS-NOT: tile.tma_copy
// WS: tile.async_copy {{.*}}extents = array<i64: 32, 96>
#ea = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#eb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#es = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#esb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#emma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @extents(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 3 : i64, tile.warp_specialize = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #emma>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #emma>) : i32 {
    %x = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #ea>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #ea>) -> !tile.memdesc<128x32xbf16, #es>
    %y = tile.load %b[%k, %c0] {extents = array<i64: 32, 96>} : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #eb>
    %mb = tile.local_alloc %y : (tensor<32x128xbf16, #eb>) -> !tile.memdesc<32x128xbf16, #esb>
    %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x32xbf16, #es>, !tile.memdesc<32x128xbf16, #esb> -> tensor<128x128xf32, #emma>
    scf.yield %d : tensor<128x128xf32, #emma>
  }
  %o = tile.convert %r : tensor<128x128xf32, #emma> -> tensor<128x128xbf16, #emma>
  tile.store %a[%c0, %c0], %o : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #emma>
  tile.return
}

// -----

// Two loops under warp specialization: the first gets the producer warpgroup;
// the second, which runs in the compute warps alone, keeps cp.async (a second
// ring of TMA barriers would need the producer warps to initialise and fill).
// WS-LABEL: tile.kernel @two_loops
// WS-SAME: tile.producer_warps = 4 : i64
// WS-COUNT-2: tile.mbarrier_alloc
// WS-NOT: tile.mbarrier_alloc
// WS: scf.if
// WS: tile.tma_copy
// WS: } else {
// WS: tile.warpgroup_wait %{{.*}} {pendings = 0 : i32}
// WS-NOT: tile.tma_copy
// WS: tile.async_copy
// WS-NOT: tile.tma_copy
// WS: tile.return
#ta = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#tb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#ts = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#tsb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#tm3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @two_loops(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tm3>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tm3>) : i32 {
    %x = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #ta>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #ta>) -> !tile.memdesc<128x32xbf16, #ts>
    %y = tile.load %b[%k, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #tb>
    %mb = tile.local_alloc %y : (tensor<32x128xbf16, #tb>) -> !tile.memdesc<32x128xbf16, #tsb>
    %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x32xbf16, #ts>, !tile.memdesc<32x128xbf16, #tsb> -> tensor<128x128xf32, #tm3>
    scf.yield %d : tensor<128x128xf32, #tm3>
  }
  %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<128x128xf32, #tm3>) : i32 {
    %x = tile.load %a[%c1, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #ta>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #ta>) -> !tile.memdesc<128x32xbf16, #ts>
    %y = tile.load %b[%k, %c1] : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #tb>
    %mb = tile.local_alloc %y : (tensor<32x128xbf16, #tb>) -> !tile.memdesc<32x128xbf16, #tsb>
    %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x32xbf16, #ts>, !tile.memdesc<32x128xbf16, #tsb> -> tensor<128x128xf32, #tm3>
    scf.yield %d : tensor<128x128xf32, #tm3>
  }
  %o = tile.convert %r2 : tensor<128x128xf32, #tm3> -> tensor<128x128xbf16, #tm3>
  tile.store %a[%c0, %c0], %o : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #tm3>
  tile.return
}

// -----

// In a persistent loop (tile-persistent) the producer runs its own loop over
// the program's tiles, recomputing the tile's coordinates from the loop's
// variable, and the ring runs on across tiles: iteration k of the j-th tile
// is the ring's j * trip + k, in both branches. The compute warps release the
// last iteration's slot after the wait that ends the loop. Without warp
// specialization, the loop in a loop keeps cp.async.
// WS-LABEL: tile.kernel @persistent
// WS-SAME: tile.producer_warps = 4 : i64
// WS: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 128 : i32}
// WS: %[[FULL:.*]] = tile.mbarrier_alloc {arrivals = 2 : i32}
// WS: tile.in_producer leader
// WS: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// WS: %[[ROW:.*]] = arith.remui %[[T]]
// WS: %[[J:.*]] = arith.divsi
// WS: %[[TRIP:.*]] = arith.maxsi
// WS: %[[BASE:.*]] = arith.muli %[[J]], %[[TRIP]]
// WS: scf.for %[[PI:.*]] =
// WS: %[[G:.*]] = arith.addi %[[BASE]], %{{.*}}
// WS: %[[PSLOT:.*]] = arith.remsi %[[G]], %{{.*}}
// WS: %[[ROUND:.*]] = arith.divsi %[[G]], %{{.*}}
// WS: %[[ODD:.*]] = arith.andi %[[ROUND]], %{{.*}}
// WS: %[[PAR:.*]] = arith.xori %[[ODD]], %{{.*}}
// WS: tile.mbarrier_wait %[[EMPTY]][%[[PSLOT]]], %[[PAR]]
// WS: tile.tma_copy %arg0[%[[ROW]], %[[PI]]], %{{.*}}, %[[FULL]][%[[PSLOT]]]
// WS: } else {
// WS: scf.for
// WS: %[[CTRIP:.*]] = arith.maxsi
// WS: %[[CBASE:.*]] = arith.muli %{{.*}}, %[[CTRIP]]
// WS: scf.for
// WS: %[[CG:.*]] = arith.addi %[[CBASE]], %{{.*}}
// WS: %[[CSLOT:.*]] = arith.remsi %[[CG]], %{{.*}}
// WS: %[[CROUND:.*]] = arith.divsi %[[CG]], %{{.*}}
// WS: %[[CPAR:.*]] = arith.andi %[[CROUND]], %{{.*}}
// WS: tile.mbarrier_wait %[[FULL]][%[[CSLOT]]], %[[CPAR]]
// WS: scf.if
// WS-NEXT: %[[PREV:.*]] = arith.addi %[[CG]], %{{.*}}
// WS-NEXT: %[[PSL:.*]] = arith.remsi %[[PREV]], %{{.*}}
// WS-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[PSL]]]
// WS: %[[DONE:.*]] = tile.warpgroup_wait %{{.*}} {pendings = 0 : i32}
// WS-NEXT: arith.constant 0
// WS-NEXT: arith.cmpi sgt, %[[CTRIP]]
// WS-NEXT: scf.if
// WS-NEXT: %[[END:.*]] = arith.addi %[[CBASE]], %[[CTRIP]]
// WS: %[[LAST:.*]] = arith.addi %[[END]], %{{.*}}
// WS: %[[LSL:.*]] = arith.remsi %[[LAST]], %{{.*}}
// WS-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[LSL]]]
// WS: tile.store
// WS: } {tile.persistent_loop}
// TMA-LABEL: tile.kernel @persistent
// TMA-NOT: tile.tma_copy
// TMA: tile.async_copy
// TMA-NOT: tile.tma_copy
// TMA: tile.return
#pa = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#pb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#ps = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#psb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#pm3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @persistent(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: i32):
  tile.yield %z : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #pm3>
  %first = tile.program_id 0
  %step = tile.num_programs 0
  scf.for %t = %first to %n step %step : i32 {
    %row = arith.remui %t, %c8 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #pm3>) : i32 {
      %x = tile.load %a[%row, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #pa>
      %ma = tile.local_alloc %x : (tensor<128x32xbf16, #pa>) -> !tile.memdesc<128x32xbf16, #ps>
      %y = tile.load %b[%k, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #pb>
      %mb = tile.local_alloc %y : (tensor<32x128xbf16, #pb>) -> !tile.memdesc<32x128xbf16, #psb>
      %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x32xbf16, #ps>, !tile.memdesc<32x128xbf16, #psb> -> tensor<128x128xf32, #pm3>
      scf.yield %d : tensor<128x128xf32, #pm3>
    }
    %o = tile.convert %r : tensor<128x128xf32, #pm3> -> tensor<128x128xbf16, #pm3>
    tile.store %a[%row, %c0], %o : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #pm3>
  } {tile.persistent_loop}
  tile.return
}

// -----

// TMA barriers are initialised once per program: a loop inside another loop
// keeps cp.async; so does the unaligned specialization.
// TMA-LABEL: tile.kernel @nested
// TMA-NOT: tile.tensor_maps
// TMA-NOT: tile.tma_copy
// TMA: tile.async_copy
// TMA-LABEL: tile.kernel @unaligned
// TMA-NOT: tile.tma_copy
// TMA: tile.load
#b3 = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#s3 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m3 = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @nested(%a: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 3 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #m3>
  scf.for %j = %c0 to %n step %c1 : i32 {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #m3>) : i32 {
      %x = tile.load %a[%j, %k] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #b3>
      %m = tile.local_alloc %x : (tensor<64x64xbf16, #b3>) -> !tile.memdesc<64x64xbf16, #s3>
      %xa = tile.local_load %m : !tile.memdesc<64x64xbf16, #s3> -> tensor<64x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m3}>>
      %xb = tile.local_load %m : !tile.memdesc<64x64xbf16, #s3> -> tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #m3}>>
      %d = tile.dot %xa, %xb, %acc : tensor<64x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m3}>>, tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #m3}>> -> tensor<64x64xf32, #m3>
      scf.yield %d : tensor<64x64xf32, #m3>
    }
  }
  tile.return
}
tile.kernel @unaligned(%a: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 3 : i64, tile.aligned = false} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #m3>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #m3>) : i32 {
    %x = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #b3>
    %m = tile.local_alloc %x : (tensor<64x64xbf16, #b3>) -> !tile.memdesc<64x64xbf16, #s3>
    %xa = tile.local_load %m : !tile.memdesc<64x64xbf16, #s3> -> tensor<64x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m3}>>
    %xb = tile.local_load %m : !tile.memdesc<64x64xbf16, #s3> -> tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #m3}>>
    %d = tile.dot %xa, %xb, %acc : tensor<64x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m3}>>, tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #m3}>> -> tensor<64x64xf32, #m3>
    scf.yield %d : tensor<64x64xf32, #m3>
  }
  tile.return
}

// -----

// A gather of paged rows (decode attention's K): its indices come from the
// induction variable and a read of a block table, which the loop (writing no
// global memory) lets run ahead. The prologue reads the pages of iterations 0
// and 1 for their copies, then those of iteration 2 for the loop to carry;
// each iteration copies with the carried pages and reads those of the copy
// the next one issues (i + 3); the original read, used by nothing else, goes.
// The rows land by cp.async (tile.async_gather) with runs of 8 elements along
// the contiguous head dimension; on sm_90a too (TMA moves boxes only).
// CHECK-LABEL: tile.kernel @paged
// CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x128xbf16
// CHECK: tile.gather %{{.*}}[%{{.*}}] mask
// CHECK: tile.async_gather %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} mask %{{.*}} : tensor<64x128xi1, #{{.*}}> if %{{.*}} {vec = 8 : i32}
// CHECK: tile.async_commit_group
// CHECK: tile.gather %{{.*}}[%{{.*}}] mask
// CHECK: tile.async_gather
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[PRE:.*]] = tile.gather %{{.*}}[%{{.*}}] mask
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PAGE:.*]] = %[[PRE]])
// CHECK-NEXT: tile.async_wait 1
// CHECK-NOT: tile.gather
// CHECK: arith.muli %[[PAGE]]
// CHECK: tile.async_gather
// CHECK: tile.async_commit_group
// CHECK: arith.constant 3 : i32
// CHECK: %[[NEXT:.*]] = tile.gather %{{.*}}[%{{.*}}] mask
// CHECK-NOT: tile.gather
// CHECK: tile.local_load
// CHECK: scf.yield %{{.*}}, %[[NEXT]]
// CHECK: tile.async_wait 0
// TMA-LABEL: tile.kernel @paged
// TMA-NOT: tile.tma_copy
// TMA: tile.async_gather
#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #blk}>
#col = #tile.slice<{dim = 0, parent = #blk}>
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
tile.kernel @paged(%k: !tile.tensor<?x?xbf16>, %table: !tile.tensor<?xi32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 3 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?xi32>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bn = arith.constant dense<64> : tensor<64xi32, #row>
  %ps = arith.constant dense<16> : tensor<64xi32, #row>
  %len = tile.splat %n : tensor<64xi32, #row>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x64xf32, #mma>) : i32 {
    %jj = tile.splat %j : tensor<64xi32, #row>
    %base = arith.muli %jj, %bn : tensor<64xi32, #row>
    %ar = tile.arange : tensor<64xi32, #row>
    %tok = arith.addi %base, %ar : tensor<64xi32, #row>
    %live = arith.cmpi slt, %tok, %len : tensor<64xi32, #row>
    %pi = arith.divsi %tok, %ps : tensor<64xi32, #row>
    %page = tile.gather %table[%pi] mask %live : tensor<64xi1, #row> : !tile.tensor<?xi32>[tensor<64xi32, #row>] -> tensor<64xi32, #row>
    %slot = arith.remsi %tok, %ps : tensor<64xi32, #row>
    %row16 = arith.muli %page, %ps : tensor<64xi32, #row>
    %rowi = arith.addi %row16, %slot : tensor<64xi32, #row>
    %r2 = tile.expand_dims %rowi axis 1 : tensor<64xi32, #row> -> tensor<64x1xi32, #blk>
    %rows = tile.broadcast %r2 : tensor<64x1xi32, #blk> -> tensor<64x128xi32, #blk>
    %d = tile.arange : tensor<128xi32, #col>
    %d2 = tile.expand_dims %d axis 0 : tensor<128xi32, #col> -> tensor<1x128xi32, #blk>
    %cols = tile.broadcast %d2 : tensor<1x128xi32, #blk> -> tensor<64x128xi32, #blk>
    %l2 = tile.expand_dims %live axis 1 : tensor<64xi1, #row> -> tensor<64x1xi1, #blk>
    %m = tile.broadcast %l2 : tensor<64x1xi1, #blk> -> tensor<64x128xi1, #blk>
    %kt = tile.gather %k[%rows, %cols] mask %m : tensor<64x128xi1, #blk> : !tile.tensor<?x?xbf16>[tensor<64x128xi32, #blk>, tensor<64x128xi32, #blk>] -> tensor<64x128xbf16, #blk>
    %a = tile.local_alloc %kt : (tensor<64x128xbf16, #blk>) -> !tile.memdesc<64x128xbf16, #s>
    %b = tile.local_load %a : !tile.memdesc<64x128xbf16, #s> -> tensor<64x128xbf16, #blk>
    scf.yield %acc : tensor<16x64xf32, #mma>
  }
  tile.return
}

// -----

// A loop that stores to global memory may not read the block table ahead: the
// gather stays synchronous.
// CHECK-LABEL: tile.kernel @paged_writes
// CHECK-NOT: tile.async_gather
// CHECK: scf.for
// CHECK: tile.gather %{{.*}}[%{{.*}}] mask
// CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}]
#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #blk}>
#col = #tile.slice<{dim = 0, parent = #blk}>
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @paged_writes(%k: !tile.tensor<?x?xbf16>, %table: !tile.tensor<?xi32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 3 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?xi32>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %len = tile.splat %n : tensor<64xi32, #row>
  scf.for %j = %c0 to %n step %c1 : i32 {
    %jj = tile.splat %j : tensor<64xi32, #row>
    %ar = tile.arange : tensor<64xi32, #row>
    %tok = arith.addi %jj, %ar : tensor<64xi32, #row>
    %live = arith.cmpi slt, %tok, %len : tensor<64xi32, #row>
    %page = tile.gather %table[%tok] mask %live : tensor<64xi1, #row> : !tile.tensor<?xi32>[tensor<64xi32, #row>] -> tensor<64xi32, #row>
    tile.scatter %table[%tok], %tok mask %live : tensor<64xi1, #row> : !tile.tensor<?xi32>[tensor<64xi32, #row>], tensor<64xi32, #row>
    %r2 = tile.expand_dims %page axis 1 : tensor<64xi32, #row> -> tensor<64x1xi32, #blk>
    %rows = tile.broadcast %r2 : tensor<64x1xi32, #blk> -> tensor<64x128xi32, #blk>
    %d = tile.arange : tensor<128xi32, #col>
    %d2 = tile.expand_dims %d axis 0 : tensor<128xi32, #col> -> tensor<1x128xi32, #blk>
    %cols = tile.broadcast %d2 : tensor<1x128xi32, #blk> -> tensor<64x128xi32, #blk>
    %kt = tile.gather %k[%rows, %cols] : !tile.tensor<?x?xbf16>[tensor<64x128xi32, #blk>, tensor<64x128xi32, #blk>] -> tensor<64x128xbf16, #blk>
    %a = tile.local_alloc %kt : (tensor<64x128xbf16, #blk>) -> !tile.memdesc<64x128xbf16, #s>
    %b = tile.local_load %a : !tile.memdesc<64x128xbf16, #s> -> tensor<64x128xbf16, #blk>
    scf.yield
  }
  tile.return
}

// -----

// Attention's loop: S = Q K^T, then P V with P from registers, both dots
// waited for. Warp-specialized, K and V come by TMA from the producer; each
// compute iteration waits on its slot's `full` barrier and releases the slot
// on `empty` at its end (every read of it is complete there), with no other
// release and no wait on warpgroup groups. Without the option, the loop keeps
// cp.async (TMA measured slower for it without a producer).
// TMA-LABEL: tile.kernel @attention_like
// TMA-NOT: tile.tma_copy
// TMA: tile.async_copy
// TMA-NOT: tile.tma_copy
// TMA: tile.return
// WS-LABEL: tile.kernel @attention_like
// WS-SAME: tile.producer_warps = 4 : i64
// WS: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<2>
// WS: %[[FULL:.*]] = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<2>
// WS: scf.if %{{.*}} {
// WS: tile.mbarrier_wait %[[EMPTY]][%[[PS:.*]]], %{{.*}}
// WS: tile.tma_copy %arg1[%{{.*}}], %{{.*}}, %[[FULL]][%[[PS]]]
// WS: tile.tma_copy %arg2[%{{.*}}], %{{.*}}, %[[FULL]][%[[PS]]]
// WS: } else {
// WS: scf.for
// WS: %[[SLOT:.*]] = arith.remsi
// WS: tile.mbarrier_wait %[[FULL]][%[[SLOT]]]
// WS-NOT: isAsync
// WS: tile.warpgroup_dot
// WS-NOT: isAsync
// WS: tile.warpgroup_dot
// WS-NOT: tile.warpgroup_wait
// WS: %[[REL:.*]] = arith.remsi
// WS-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[REL]]]
// WS-NEXT: scf.yield
// WS-NOT: tile.mbarrier_arrive
// WS: tile.return
// Q, stored before the loop and read by every iteration's first dot, is
// published by one barrier before the loop: the compute loop has none.
// WSBAR-LABEL: tile.kernel @attention_like
// WSBAR: } else {
// WSBAR: tile.local_alloc %{{.*}} {tile.offset
// WSBAR: tile.fence_async_shared
// WSBAR-NEXT: tile.barrier
// WSBAR-NEXT: scf.for
// WSBAR-NOT: tile.barrier
// WSBAR: scf.yield
#qb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#kt = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#am = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#as = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#ast = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
#aop = #tile.dot_op<{opIdx = 0, parent = #am}>
tile.kernel @attention_like(%q: !tile.tensor<?x?xbf16>, %k: !tile.tensor<?x?xbf16>, %v: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %w: !tile.tensor<?x?xbf16>, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #am>
  %qt = tile.load %q[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #qb>
  %qs = tile.local_alloc %qt : (tensor<64x64xbf16, #qb>) -> !tile.memdesc<64x64xbf16, #as>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #am>) : i32 {
    %kl = tile.load %k[%j, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #qb>
    %kT = tile.transpose %kl : tensor<64x64xbf16, #qb> -> tensor<64x64xbf16, #kt>
    %ks = tile.local_alloc %kT : (tensor<64x64xbf16, #kt>) -> !tile.memdesc<64x64xbf16, #ast>
    %s = tile.warpgroup_dot %qs, %ks, %zero : !tile.memdesc<64x64xbf16, #as>, !tile.memdesc<64x64xbf16, #ast> -> tensor<64x64xf32, #am>
    %p = tile.convert %s : tensor<64x64xf32, #am> -> tensor<64x64xbf16, #am>
    %pa = tile.convert_layout %p : tensor<64x64xbf16, #am> -> tensor<64x64xbf16, #aop>
    %vl = tile.load %v[%j, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #qb>
    %vs = tile.local_alloc %vl : (tensor<64x64xbf16, #qb>) -> !tile.memdesc<64x64xbf16, #as>
    %d = tile.warpgroup_dot %pa, %vs, %acc : tensor<64x64xbf16, #aop>, !tile.memdesc<64x64xbf16, #as> -> tensor<64x64xf32, #am>
    scf.yield %d : tensor<64x64xf32, #am>
  }
  %o = tile.convert %r : tensor<64x64xf32, #am> -> tensor<64x64xbf16, #am>
  tile.store %q[%c0, %c0], %o : !tile.tensor<?x?xbf16>, tensor<64x64xbf16, #am>
  tile.return
}

// -----

// In clusters of 2 (tile-cluster-programs marked B shared), B's copies are
// multicast. A second row of barriers, `empty`, counts one arrival per warp
// of each program of the cluster (4 x 2); a cluster barrier follows the
// barriers' initialisation and another ends the kernel. From the second
// iteration on, once the previous iteration's dot is complete, every warp
// releases its slot to the cluster and the block waits for the cluster's
// release, phase ((k - 1) / 4) & 1, before refilling it.
// TMA-LABEL: tile.kernel @multicast
// TMA: %[[BARS:.*]] = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<4>
// TMA-NEXT: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 8 : i32} : !tile.mbarrier<4>
// TMA-NEXT: tile.cluster_barrier
// TMA-COUNT-3: tile.tma_copy %arg1[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%{{.*}}] if %{{.*}} {map = 1 : i32, multicast = 2 : i32}
// TMA: scf.for
// TMA: tile.warpgroup_wait %{{.*}} {pendings = 1 : i32}
// TMA: %[[STARTED:.*]] = arith.cmpi sgt, %[[K:.*]], %{{.*}} : i32
// TMA-NEXT: scf.if %[[STARTED]] {
// TMA: %[[PREV:.*]] = arith.subi %[[K]], %{{.*}} : i32
// TMA: %[[SLOT:.*]] = arith.remsi %[[PREV]], %{{.*}} : i32
// TMA: %[[ROUND:.*]] = arith.divsi %[[PREV]], %{{.*}} : i32
// TMA: %[[PAR:.*]] = arith.andi %[[ROUND]], %{{.*}} : i32
// TMA: tile.mbarrier_arrive %[[EMPTY]][%[[SLOT]]] {cluster = 2 : i32} : !tile.mbarrier<4>
// TMA-NEXT: tile.mbarrier_wait %[[EMPTY]][%[[SLOT]]], %[[PAR]] : !tile.mbarrier<4>
// TMA-NEXT: }
// TMA: tile.tma_copy %arg0[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%{{.*}}] if %{{.*}} {map = 0 : i32}
// TMA: tile.tma_copy %arg1[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%{{.*}}] if %{{.*}} {map = 1 : i32, multicast = 2 : i32}
// TMA: scf.yield
// TMA: tile.store
// TMA-NEXT: tile.cluster_barrier
// TMA-NEXT: tile.return

// Warp-specialized: `empty` counts one arrival per compute warp of each
// program; a cluster barrier before the split and one at the end; the
// producer multicasts B, the compute warps release their slot to the cluster.
// WS-LABEL: tile.kernel @multicast
// WS-SAME: tile.cluster_dims = array<i64: 2, 1, 1>
// WS: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 8 : i32} : !tile.mbarrier<4>
// WS: tile.cluster_barrier
// WS-NEXT: tile.in_producer
// WS: tile.tma_copy %arg0[{{.*}}] {map = 0 : i32}
// WS-NEXT: tile.memdesc_index
// WS: tile.tma_copy %arg1[{{.*}}] {map = 1 : i32, multicast = 2 : i32}
// WS: } else {
// WS: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] {cluster = 2 : i32}
// WS: tile.cluster_barrier
// WS-NEXT: tile.return

// The cp.async loop (sm_80) multicasts nothing: no cluster.
// CHECK-LABEL: tile.kernel @multicast
// CHECK-NOT: tile.cluster_dims
// CHECK-NOT: tile.cluster_barrier
// CHECK: tile.return
#ma = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#msa = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#msb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mmc = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @multicast(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.num_stages = 4 : i64, tile.cluster_dims = array<i64: 2, 1, 1>} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: i32):
  %two = arith.constant 2 : i32
  tile.yield %two : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mmc>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mmc>) : i32 {
    %x = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #ma>
    %ma = tile.local_alloc %x : (tensor<128x32xbf16, #ma>) -> !tile.memdesc<128x32xbf16, #msa>
    %y = tile.load %b[%k, %c0] {tile.multicast = 2 : i32} : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #mb>
    %mb = tile.local_alloc %y : (tensor<32x128xbf16, #mb>) -> !tile.memdesc<32x128xbf16, #msb>
    %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x32xbf16, #msa>, !tile.memdesc<32x128xbf16, #msb> -> tensor<128x128xf32, #mmc>
    scf.yield %d : tensor<128x128xf32, #mmc>
  }
  %o = tile.convert %r : tensor<128x128xf32, #mmc> -> tensor<128x128xbf16, #mmc>
  tile.store %a[%p0, %c0], %o : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #mmc>
  tile.return
}
