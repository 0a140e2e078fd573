// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-insert-barriers))' | FileCheck %s

// A store then a load of the same buffer: one barrier between them; a load
// of another buffer needs none.
// CHECK-LABEL: tile.kernel @raw
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 16384
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_load
// CHECK-NOT: tile.barrier
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @raw(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #blocked>
  %m1 = tile.local_alloc %x {tile.offset = 0 : i64} : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
  %m2 = tile.local_alloc %x {tile.offset = 16384 : i64} : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
  %l1 = tile.local_load %m1 : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  %l2 = tile.local_load %m2 : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  tile.return
}

// -----

// A pipelined loop: the copy into the slot read by the previous iteration
// waits for a barrier after the wait; the read of the landed slot then needs
// none. One barrier per iteration.
// CHECK-LABEL: tile.kernel @pipelined
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait 1
// CHECK-NEXT: tile.memdesc_index
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.async_copy
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: tile.memdesc_index
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: }
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @pipelined(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x128x64xbf16, #s>
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    tile.async_wait 1
    %next = tile.memdesc_index %buf[%i] : !tile.memdesc<3x128x64xbf16, #s> -> !tile.memdesc<128x64xbf16, #s>
    tile.async_copy %a[%i, %c0], %next {layout = #b, vec = 8 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<128x64xbf16, #s>
    tile.async_commit_group
    %cur = tile.memdesc_index %buf[%c0] : !tile.memdesc<3x128x64xbf16, #s> -> !tile.memdesc<128x64xbf16, #s>
    %t = tile.local_load %cur : !tile.memdesc<128x64xbf16, #s> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m}>>
  }
  tile.return
}

// -----

// Scratch of two reductions at the same offset: the second waits for the
// first's reads.
// CHECK-LABEL: tile.kernel @scratch
// CHECK: tile.reduce
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.reduce
#b2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
tile.kernel @scratch(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #b2>
  %r = tile.reduce sum %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<64x128xf32, #b2> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b2}>>
  %s = tile.reduce max %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<64x128xf32, #b2> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b2}>>
  tile.return
}

// -----

// An asynchronous warpgroup dot reads its operands until the wait of
// pendings 0 after the loop, past the barrier in the loop: the scratch that
// reuses the operand buffer gets a barrier after that wait.
// CHECK-LABEL: tile.kernel @async_dot
// CHECK: scf.for
// CHECK: tile.warpgroup_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK: tile.warpgroup_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NOT: tile.reduce
// CHECK: tile.barrier
// CHECK-NEXT: tile.reduce
#ws = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#b3 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
tile.kernel @async_dot(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #m3>
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x64xbf16, #ws>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #m3>) : i32 {
    %cur = tile.memdesc_index %buf[%i] : !tile.memdesc<3x64x64xbf16, #ws> -> !tile.memdesc<64x64xbf16, #ws>
    %d = tile.warpgroup_dot %cur, %cur, %acc {isAsync} : !tile.memdesc<64x64xbf16, #ws>, !tile.memdesc<64x64xbf16, #ws> -> tensor<64x64xf32, #m3>
    %w = tile.warpgroup_wait %d {pendings = 1 : i32} : tensor<64x64xf32, #m3>
    tile.barrier
    scf.yield %w : tensor<64x64xf32, #m3>
  }
  %done = tile.warpgroup_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #m3>
  %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #b3>
  %s = tile.reduce sum %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<64x128xf32, #b3> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b3}>>
  tile.return
}


// -----

// A TMA store counts as a barrier (no barrier before the reduction's scratch
// that follows it elsewhere); after its wait, the buffer's bytes reused by
// scratch get a barrier (thread 0 alone waited).
// CHECK-LABEL: tile.kernel @tma_store_reuse
// CHECK: tile.tma_store
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.tma_store_wait
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.reduce
#ws6 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m6 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#b6 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
tile.kernel @tma_store_reuse(%a: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.tensor_maps = [{arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %v = arith.constant dense<1.0> : tensor<64x64xbf16, #m6>
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<1x64x64xbf16, #ws6>
  tile.tma_store %c[%c0, %c0], %v, %buf {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x64xbf16, #m6>, !tile.memdesc<1x64x64xbf16, #ws6>
  %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #b6>
  tile.tma_store_wait %buf : !tile.memdesc<1x64x64xbf16, #ws6>
  %s = tile.reduce sum %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<64x128xf32, #b6> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b6}>>
  tile.return
}

// -----

// A buffer stored before a loop and read in every iteration: one barrier
// before the loop instead of one per iteration. When the loop also writes
// the buffer (a barrier in the body is needed anyway), the body's barrier
// orders the store before the loop too, and none is added before it.
// CHECK-LABEL: tile.kernel @hoisted
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.for
// CHECK-NOT: tile.barrier
// CHECK: tile.return
#hb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#hs = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#hm = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @hoisted(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #hb>
  %q = tile.local_alloc %x {tile.offset = 0 : i64} : (tensor<128x64xbf16, #hb>) -> !tile.memdesc<128x64xbf16, #hs>
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    %l = tile.local_load %q : !tile.memdesc<128x64xbf16, #hs> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #hm}>>
  }
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @kept_in_loop
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
#kb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#ks = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#km = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @kept_in_loop(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #kb>
  %q = tile.local_alloc %x {tile.offset = 0 : i64} : (tensor<128x64xbf16, #kb>) -> !tile.memdesc<128x64xbf16, #ks>
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    %l = tile.local_load %q : !tile.memdesc<128x64xbf16, #ks> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #km}>>
    tile.local_store %x, %q : tensor<128x64xbf16, #kb>, !tile.memdesc<128x64xbf16, #ks>
  }
  tile.return
}
