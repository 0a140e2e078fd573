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
