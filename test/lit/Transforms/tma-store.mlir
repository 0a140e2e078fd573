// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-tma-store{arch=sm_90a}))' | FileCheck %s
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-tma-store{arch=sm_80}))' | FileCheck %s --check-prefix=AMPERE

// A [128, 256] bf16 accumulator stored through its conversion to a store
// layout: a buffer of two [128, 64] slots with the 128-byte swizzle just
// before the store (no loop holds it), the store of the mma-layout value
// through the kernel's third tensor map (the loads' two come first), and the
// wait after it. The conversion is gone. Without TMA (sm_80) nothing changes.
// CHECK: #[[SW:.*]] = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
// CHECK-LABEL: tile.kernel @epilogue
// CHECK-SAME: tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}, {arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}, {arg = 2 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}]
// CHECK: %[[ACC:.*]] = tile.convert %{{.*}} : tensor<128x256xf32, #[[MMA:.*]]> -> tensor<128x256xbf16, #[[MMA]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<2x128x64xbf16, #[[SW]]>
// CHECK-NEXT: tile.tma_store %arg2[%{{.*}}, %{{.*}}], %[[ACC]], %[[BUF]] {map = 2 : i32} : <?x?xbf16>, tensor<128x256xbf16, #[[MMA]]>, !tile.memdesc<2x128x64xbf16
// CHECK-NEXT: tile.tma_store_wait %[[BUF]]
// CHECK-NEXT: tile.return
// AMPERE-LABEL: tile.kernel @epilogue
// AMPERE-NOT: tile.tma_store %
// AMPERE: tile.store
#mma3 = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 256]}>
#st = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
tile.kernel @epilogue(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.tma_store = 1 : i64, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}, {arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %i = tile.program_id 0
  %j = tile.program_id 1
  %acc = arith.constant dense<1.0> : tensor<128x256xf32, #mma3>
  %h = tile.convert %acc : tensor<128x256xf32, #mma3> -> tensor<128x256xbf16, #mma3>
  %s = tile.convert_layout %h : tensor<128x256xbf16, #mma3> -> tensor<128x256xbf16, #st>
  tile.store %c[%i, %j], %s : !tile.tensor<?x?xbf16>, tensor<128x256xbf16, #st>
  tile.return
}

// -----

// f32 out of an mma.sync accumulator whose two warps along N hold 32 columns
// each: a window must span both (64 columns, two 32-column boxes of 128
// bytes), so one slot; in a persistent loop, the wait follows the loop.
// CHECK: #[[SW:.*]] = #tile.shared<{swizzle = 128, vec = 4, order = [1, 0]}>
// CHECK-LABEL: tile.kernel @persistent
// CHECK-SAME: tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 128 : i64}]
// CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<1x64x64xf32, #[[SW]]>
// CHECK: scf.for
// CHECK: tile.tma_store %arg0[%{{.*}}, %{{.*}}], %{{.*}}, %[[BUF]] {map = 0 : i32}
// CHECK: } {tile.persistent_loop}
// CHECK-NEXT: tile.tma_store_wait %[[BUF]]
#mma = #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
tile.kernel @persistent(%c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.tma_store = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %c0 to %n step %c1 : i32 {
    %acc = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
    tile.store %c[%t, %c0], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  } {tile.persistent_loop}
  tile.return
}

// -----

// A tile of 32 halves a row (64 bytes) is one window with the 64-byte
// swizzle, in one slot.
// CHECK: #[[SW:.*]] = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
// CHECK-LABEL: tile.kernel @narrow
// CHECK-SAME: box = array<i64: 64, 32>, swizzle = 64 : i64
// CHECK: tile.local_alloc : () -> !tile.memdesc<1x64x32xf16, #[[SW]]>
// CHECK: tile.tma_store
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @narrow(%c: !tile.tensor<?x?xf16>) attributes {tile.num_warps = 4 : i64, tile.tma_store = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<1.0> : tensor<64x32xf16, #mma>
  tile.store %c[%c0, %c0], %acc : !tile.tensor<?x?xf16>, tensor<64x32xf16, #mma>
  tile.return
}

// -----

// Stores that stay: without the schedule option; a blocked tile; an unaligned
// tensor of this variant; 64-bit coordinates; padded extents; i32 elements.
// CHECK-LABEL: tile.kernel @off
// CHECK-NOT: tile.tma_store %
// CHECK: tile.store
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @off(%c: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
  tile.store %c[%c0, %c0], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @stay
// CHECK-NOT: tile.tma_store %
// CHECK-COUNT-5: tile.store
// CHECK-NOT: tile.local_alloc
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#bl = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @stay(%c: !tile.tensor<?x?xf32>, %u: !tile.tensor<?x?xf32>, %v: !tile.tensor<?x?xi32>) attributes {tile.num_warps = 4 : i64, tile.tma_store = 1 : i64, tile.unaligned_args = array<i64: 1>} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>, %x: !tile.tensor<?x?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %l0 = arith.constant 0 : i64
  %acc = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
  %blk = arith.constant dense<1.0> : tensor<64x64xf32, #bl>
  %int = arith.constant dense<1> : tensor<64x64xi32, #mma>
  tile.store %c[%c0, %c0], %blk : !tile.tensor<?x?xf32>, tensor<64x64xf32, #bl>
  tile.store %u[%c0, %c0], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.store %c[%l0 : i64, %l0 : i64], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.store %c[%c0, %c0], %acc {extents = array<i64: 48, 64>} : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.store %v[%c0, %c0], %int : !tile.tensor<?x?xi32>, tensor<64x64xi32, #mma>
  tile.return
}

// -----

// A tensor the program also reads stays with its ordinary store: the TMA
// store would complete only at the program's end.
// CHECK-LABEL: tile.kernel @also_read
// CHECK-NOT: tile.tma_store %
// CHECK: tile.store
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#bl = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @also_read(%c: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64, tile.tma_store = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
  tile.store %c[%c0, %c0], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  %back = tile.load %c[%c1, %c0] : !tile.tensor<?x?xf32> -> tensor<64x64xf32, #bl>
  tile.return
}
