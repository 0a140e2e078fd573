// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts))' | FileCheck %s

// Loads get coalesced blocked layouts (16 bytes per thread when the tile is big
// enough), element-wise ops follow them, reductions give slice layouts, and a
// scalar broadcast is made directly in its user's layout.
// CHECK-DAG: #[[ROW:.*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tile.kernel @softmax
// CHECK: %[[V:.*]] = tile.load {{.*}} -> tensor<1024xf32, #[[ROW]]>
// CHECK: %[[M:.*]] = tile.reduce max %[[V]] axis 0 : tensor<1024xf32, #[[ROW]]> -> f32
// CHECK: tile.splat %[[M]] : tensor<1024xf32, #[[ROW]]>
// CHECK: math.exp {{.*}} : tensor<1024xf32, #[[ROW]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
tile.kernel @softmax(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?x?xf32>):
  %d = tile.dim %a[0] : !tile.tensor<?x?xf32>
  tile.yield %d : i32
} {
  %c0 = arith.constant 0 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %row = tile.program_id 0
  %v = tile.load %x[%row, %c0] pad %ninf : !tile.tensor<?x?xf32> -> tensor<1024xf32>
  %m = tile.reduce max %v axis 0 : tensor<1024xf32> -> f32
  %ms = tile.splat %m : tensor<1024xf32>
  %s = arith.subf %v, %ms : tensor<1024xf32>
  %e = math.exp %s : tensor<1024xf32>
  tile.store %y[%row, %c0], %e : !tile.tensor<?x?xf32>, tensor<1024xf32>
  tile.return
}

// -----

// A small tile does not get more elements per thread than it has to give.
// CHECK-DAG: #[[SMALL:.*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tile.kernel @small
// CHECK: tile.load {{.*}} -> tensor<128xf32, #[[SMALL]]>
tile.kernel @small(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  %v = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<128xf32>
  tile.store %x[%p], %v : !tile.tensor<?xf32>, tensor<128xf32>
  tile.return
}

// -----

// A bf16 dot gets an mma accumulator and dot-operand inputs; the accumulator
// is carried through the loop in the mma layout, converted once after it.
// CHECK-DAG: #[[MMA:.*]] = #tile.mma<{warpsPerCTA = [8, 1]}>
// CHECK-DAG: #[[A:.*]] = #tile.dot_op<{opIdx = 0, parent = #[[MMA]]}>
// CHECK-DAG: #[[B:.*]] = #tile.dot_op<{opIdx = 1, parent = #[[MMA]]}>
// CHECK-LABEL: tile.kernel @matmul
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[ZERO]]) -> (tensor<128x128xf32, #[[MMA]]>)
// CHECK:   tile.convert_layout {{.*}} -> tensor<128x64xbf16, #[[A]]>
// CHECK:   tile.convert_layout {{.*}} -> tensor<64x128xbf16, #[[B]]>
// CHECK:   %[[D:.*]] = tile.dot {{.*}}, %[[ARG]] : {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// CHECK:   scf.yield %[[D]] : tensor<128x128xf32, #[[MMA]]>
// CHECK: tile.convert_layout %[[ACC]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #blocked
tile.kernel @matmul(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %c[%c0, %c0], %acc : !tile.tensor<?x?xf32>, tensor<128x128xf32>
  tile.return
}

// -----

// An f32 dot stays on FMA: a blocked accumulator with blocked-parent operands.
// CHECK-LABEL: tile.kernel @fmadot
// CHECK: tile.dot {{.*}} : tensor<32x16xf32, #dot_op>, tensor<16x32xf32, #dot_op1> -> tensor<32x32xf32, #[[BL:blocked[0-9]*]]>
tile.kernel @fmadot(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<32x16xf32>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<16x32xf32>
  %d = tile.dot %ta, %tb, %zero : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  tile.store %a[%c0, %c0], %d : !tile.tensor<?x?xf32>, tensor<32x32xf32>
  tile.return
}

// -----

// expand_dims of a reduction result turns the slice back into its parent:
// no conversion. A leading-axis broadcast takes a slice of the result's layout.
// CHECK-DAG: #[[P:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S1:.*]] = #tile.slice<{dim = 1, parent = #[[P]]}>
// CHECK-DAG: #[[S0:.*]] = #tile.slice<{dim = 0, parent = #[[P]]}>
// CHECK-LABEL: tile.kernel @rows
// CHECK: %[[T:.*]] = tile.load {{.*}} -> tensor<64x128xf32, #[[P]]>
// CHECK: %[[R:.*]] = tile.reduce sum %[[T]] axis 1 : tensor<64x128xf32, #[[P]]> -> tensor<64xf32, #[[S1]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims %[[R]] axis 1 : tensor<64xf32, #[[S1]]> -> tensor<64x1xf32, #[[P]]>
// CHECK: tile.broadcast {{.*}} : tensor<64x1xf32, #[[P]]> -> tensor<64x128xf32, #[[P]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<128xf32, #[[S0]]>
// CHECK: tile.broadcast {{.*}} : tensor<128xf32, #[[S0]]> -> tensor<64x128xf32, #[[P]]>
tile.kernel @rows(%x: !tile.tensor<?x?xf32>, %w: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32>
  %r = tile.reduce sum %t axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  %e = tile.expand_dims %r axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  %eb = tile.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
  %wt = tile.load %w[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  %wb = tile.broadcast %wt : tensor<128xf32> -> tensor<64x128xf32>
  %s = arith.subf %t, %eb : tensor<64x128xf32>
  %m = arith.mulf %s, %wb : tensor<64x128xf32>
  tile.store %x[%c0, %c0], %m : !tile.tensor<?x?xf32>, tensor<64x128xf32>
  tile.return
}

// -----

// Transposing a blocked tile swaps its layout's axes: no data moves.
// CHECK-DAG: #[[K:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[KT:.*]] = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: tile.kernel @trans
// CHECK: tile.transpose {{.*}} : tensor<64x64xf32, #[[K]]> -> tensor<64x64xf32, #[[KT]]>
tile.kernel @trans(%x: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
  %tt = tile.transpose %t : tensor<64x64xf32> -> tensor<64x64xf32>
  tile.store %x[%c0, %c0], %tt : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// if results take the then-branch's layout; the else branch converts to it.
// CHECK-LABEL: tile.kernel @branch
// CHECK: scf.if {{.*}} -> (tensor<128xf32, #blocked>)
// CHECK: } else {
// CHECK: scf.yield {{.*}} : tensor<128xf32, #blocked>
tile.kernel @branch(%x: !tile.tensor<?xf32>, %p: i1) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: i1):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %r = scf.if %p -> (tensor<128xf32>) {
    %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
    scf.yield %t : tensor<128xf32>
  } else {
    %z = arith.constant dense<1.0> : tensor<128xf32>
    scf.yield %z : tensor<128xf32>
  }
  tile.store %x[%c0], %r : !tile.tensor<?xf32>, tensor<128xf32>
  tile.return
}

// -----

// A dtype conversion after a layout conversion happens first, in the source
// layout, so that the (narrower) result is what moves.
// CHECK-LABEL: tile.kernel @epilogue
// CHECK: %[[D:.*]] = tile.dot
// CHECK: %[[H:.*]] = tile.convert %[[D]] : tensor<128x128xf32, #mma> -> tensor<128x128xbf16, #mma>
// CHECK: tile.convert_layout %[[H]] : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked
tile.kernel @epilogue(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
  %d = tile.dot %ta, %tb, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %h = tile.convert %d : tensor<128x128xf32> -> tensor<128x128xbf16>
  tile.store %a[%c0, %c0], %h : !tile.tensor<?x?xbf16>, tensor<128x128xbf16>
  tile.return
}
