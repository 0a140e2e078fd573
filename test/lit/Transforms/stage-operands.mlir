// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-stage-operands))' | FileCheck %s

// A and B of a dot are staged through swizzled shared memory and read back in
// their operand layouts; A is stored K-contiguous (row-major), B as it was
// loaded, N-contiguous (row-major too: the lowering reads it with .trans).
// CHECK-DAG: #[[S:.*]] = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
// CHECK-DAG: #[[A:.*]] = #tile.dot_op<{opIdx = 0, parent = #{{.*}}}>
// CHECK-DAG: #[[B:.*]] = #tile.dot_op<{opIdx = 1, parent = #{{.*}}}>
// CHECK-LABEL: tile.kernel @mm
// CHECK: %[[MA:.*]] = tile.local_alloc %{{.*}} : (tensor<128x64xbf16, #{{.*}}>) -> !tile.memdesc<128x64xbf16, #[[S]]>
// CHECK: tile.local_load %[[MA]] : !tile.memdesc<128x64xbf16, #[[S]]> -> tensor<128x64xbf16, #[[A]]>
// CHECK: %[[MB:.*]] = tile.local_alloc %{{.*}} : (tensor<64x128xbf16, #{{.*}}>) -> !tile.memdesc<64x128xbf16, #[[S]]>
// CHECK: tile.local_load %[[MB]] : !tile.memdesc<64x128xbf16, #[[S]]> -> tensor<64x128xbf16, #[[B]]>
// CHECK-NOT: tile.convert_layout
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blockedB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [8, 1], instrShape = [16, 8]}>
tile.kernel @mm(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #blocked>
  %y = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #blockedB>
  %xa = tile.convert_layout %x : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  %yb = tile.convert_layout %y : tensor<64x128xbf16, #blockedB> -> tensor<64x128xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>>
  %d = tile.dot %xa, %yb, %acc : tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>, tensor<64x128xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>> -> tensor<128x128xf32, #mma>
  tile.return
}

// -----

// K^T: the key block is loaded [64, 128] (D contiguous) and used transposed as
// B [128, 64]; its transposed blocked layout (order [0, 1]) is stored as it
// lies: column-major for the [128, 64] operand, K contiguous.
// CHECK-DAG: #[[T:.*]] = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
// CHECK-LABEL: tile.kernel @kt
// CHECK: tile.local_alloc %{{.*}} : (tensor<128x64xbf16, #{{.*}}>) -> !tile.memdesc<128x64xbf16, #[[T]]>
#kblocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#kt = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma4 = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @kt(%k: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %k[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #kblocked>
  %tt = tile.transpose %t : tensor<64x128xbf16, #kblocked> -> tensor<128x64xbf16, #kt>
  %b = tile.convert_layout %tt : tensor<128x64xbf16, #kt> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 1, parent = #mma4}>>
  tile.return
}

// -----

// A conversion that is a register permutation (an accumulator feeding the next
// dot as A) stays: no shared memory.
// CHECK-LABEL: tile.kernel @permute
// CHECK-NOT: tile.local_alloc
// CHECK: tile.convert_layout
#mma1 = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @permute() attributes {tile.num_warps = 4 : i64} grid {
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %h = arith.constant 1.0 : bf16
  %p = tile.splat %h : tensor<64x32xbf16, #mma1>
  %a = tile.convert_layout %p : tensor<64x32xbf16, #mma1> -> tensor<64x32xbf16, #tile.dot_op<{opIdx = 0, parent = #mma1}>>
  tile.return
}

// -----

// A wgmma dot (version-3 accumulator) reads both operands from shared memory:
// the loaded tiles are stored with the swizzle its descriptors need, A
// K-contiguous, B as loaded (N-contiguous, read with the transpose bit), and
// the dot becomes a warpgroup_dot of the two buffers; nothing is loaded back.
// CHECK-DAG: #[[W:.*]] = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
// CHECK-DAG: #[[W64:.*]] = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
// CHECK-LABEL: tile.kernel @wgmma
// CHECK: %[[MA:.*]] = tile.local_alloc %{{.*}} : (tensor<128x32xbf16, #{{.*}}>) -> !tile.memdesc<128x32xbf16, #[[W64]]>
// CHECK: %[[MB:.*]] = tile.local_alloc %{{.*}} : (tensor<32x128xbf16, #{{.*}}>) -> !tile.memdesc<32x128xbf16, #[[W]]>
// CHECK: tile.warpgroup_dot %[[MA]], %[[MB]], %{{.*}} : !tile.memdesc<128x32xbf16, #[[W64]]>, !tile.memdesc<32x128xbf16, #[[W]]> -> tensor<128x128xf32, #{{.*}}>
// CHECK-NOT: tile.local_load
// CHECK-NOT: tile.convert_layout
#wa = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]}>
#wb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>
#mma3 = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
tile.kernel @wgmma(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<128x128xf32, #mma3>
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x32xbf16, #wa>
  %y = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x128xbf16, #wb>
  %xa = tile.convert_layout %x : tensor<128x32xbf16, #wa> -> tensor<128x32xbf16, #tile.dot_op<{opIdx = 0, parent = #mma3}>>
  %yb = tile.convert_layout %y : tensor<32x128xbf16, #wb> -> tensor<32x128xbf16, #tile.dot_op<{opIdx = 1, parent = #mma3}>>
  %d = tile.dot %xa, %yb, %acc : tensor<128x32xbf16, #tile.dot_op<{opIdx = 0, parent = #mma3}>>, tensor<32x128xbf16, #tile.dot_op<{opIdx = 1, parent = #mma3}>> -> tensor<128x128xf32, #mma3>
  tile.return
}

// -----

// Attention's second product: P, the accumulator of the first wgmma dot
// converted to bf16, is in the registers of the threads that multiply it
// (the conversion into the A layout only renames registers), so the second
// dot reads it in wgmma's register form; only V is stored. The first dot's
// loaded A still goes through shared memory.
// CHECK-LABEL: tile.kernel @register_a
// CHECK: %[[S:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : !tile.memdesc<128x64xbf16, {{.*}}>, !tile.memdesc<64x64xbf16, {{.*}}> -> tensor<128x64xf32, #[[M:.*]]>
// CHECK: %[[P:.*]] = tile.convert %[[S]]
// CHECK: %[[PA:.*]] = tile.convert_layout %[[P]] : tensor<128x64xbf16, #[[M]]> -> tensor<128x64xbf16, #[[OPA:.*]]>
// CHECK: %[[MV:.*]] = tile.local_alloc %{{.*}} : (tensor<64x64xbf16, #{{.*}}>) -> !tile.memdesc<64x64xbf16
// CHECK: tile.warpgroup_dot %[[PA]], %[[MV]], %{{.*}} : tensor<128x64xbf16, #[[OPA]]>, !tile.memdesc<64x64xbf16
#ra = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#rm = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
tile.kernel @register_a(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : tensor<128x64xf32, #rm>
  %q = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #ra>
  %k = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #ra>
  %v = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #ra>
  %qa = tile.convert_layout %q : tensor<128x64xbf16, #ra> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #rm}>>
  %kb = tile.convert_layout %k : tensor<64x64xbf16, #ra> -> tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #rm}>>
  %s = tile.dot %qa, %kb, %acc : tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #rm}>>, tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #rm}>> -> tensor<128x64xf32, #rm>
  %p = tile.convert %s : tensor<128x64xf32, #rm> -> tensor<128x64xbf16, #rm>
  %pa = tile.convert_layout %p : tensor<128x64xbf16, #rm> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #rm}>>
  %vb = tile.convert_layout %v : tensor<64x64xbf16, #ra> -> tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #rm}>>
  %o = tile.dot %pa, %vb, %s : tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #rm}>>, tensor<64x64xbf16, #tile.dot_op<{opIdx = 1, parent = #rm}>> -> tensor<128x64xf32, #rm>
  %ob = tile.convert %o : tensor<128x64xf32, #rm> -> tensor<128x64xbf16, #rm>
  tile.store %a[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #rm>
  tile.return
}
