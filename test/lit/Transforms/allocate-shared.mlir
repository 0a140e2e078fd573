// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-allocate-shared))' | FileCheck %s
// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-allocate-shared{arch=sm_80}))' 2>&1 | FileCheck %s --check-prefix=SM80

// Two buffers live at once get disjoint offsets; a third, allocated after the
// first is dead, reuses its memory. The swizzled buffers sit at multiples of
// 1024 bytes.
// CHECK-LABEL: tile.kernel @live
// CHECK-SAME: tile.shared_bytes = 32768
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i64}
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 16384 : i64}
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i64}
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @live(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #blocked>
  %m1 = tile.local_alloc %x : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
  %m2 = tile.local_alloc %x : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
  %l1 = tile.local_load %m1 : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  %m3 = tile.local_alloc %x : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
  %l2 = tile.local_load %m2 : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  %l3 = tile.local_load %m3 : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  tile.return
}

// -----

// A buffer used inside a loop it was allocated before stays live for the
// whole loop: the reduction's scratch inside the loop cannot take its memory.
// CHECK-LABEL: tile.kernel @loop
// CHECK: tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x64xbf16
// CHECK: scf.for
// CHECK: tile.reduce sum {{.*}} {tile.scratch_offset = 24576 : i64}
#b2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#s2 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @loop(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %buf = tile.local_alloc : () -> !tile.memdesc<3x64x64xbf16, #s2>
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %slot = tile.memdesc_index %buf[%i] : !tile.memdesc<3x64x64xbf16, #s2> -> !tile.memdesc<64x64xbf16, #s2>
    %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #b2>
    %r = tile.reduce sum %t axis 1 : tensor<64x128xf32, #b2> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b2}>>
  }
  tile.return
}

// -----

// A scan's scratch holds its whole tile, row-major with a padding element
// after every 32: (2048 + 64) f32; a bf16 tile is scanned as f32.
// CHECK-LABEL: tile.kernel @scans
// CHECK-SAME: tile.shared_bytes = 8448
// CHECK: tile.scan sum {{.*}} {tile.scratch_offset = 0 : i64}
// CHECK: tile.scan max {{.*}} {tile.scratch_offset = 0 : i64}
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @scans(%a: !tile.tensor<?x?xf32>, %h: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<16x128xf32, #b>
  %s = tile.scan sum %t axis 1 : tensor<16x128xf32, #b>
  %u = tile.load %h[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<16x128xbf16, #b>
  %m = tile.scan max %u axis 0 : tensor<16x128xbf16, #b>
  tile.return
}

// -----

// More than sm_80's 163 KiB is an error at the kernel.
// SM80: error: the kernel needs 196608 bytes of shared memory, more than the 166912 a block may have on sm_80; use smaller tiles or fewer stages (num_stages)
#s3 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @big() attributes {tile.num_warps = 4 : i64} grid {
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %buf = tile.local_alloc : () -> !tile.memdesc<6x128x128xbf16, #s3>
  %c0 = arith.constant 0 : i32
  %slot = tile.memdesc_index %buf[%c0] : !tile.memdesc<6x128x128xbf16, #s3> -> !tile.memdesc<128x128xbf16, #s3>
  tile.return
}
