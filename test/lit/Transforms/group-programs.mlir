// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-group-programs))' | FileCheck %s

// A matmul: A's rows come from program_id(0), B's columns from program_id(1).
// Both ids are replaced by the grouped ones, computed once at the top from
// the linear launch index (8 rows of axis 0 per group).
// CHECK-LABEL: tile.kernel @matmul
// CHECK: %[[P0:.*]] = tile.program_id 0
// CHECK: %[[P1:.*]] = tile.program_id 1
// CHECK: %[[N0:.*]] = tile.num_programs 0
// CHECK: %[[N1:.*]] = tile.num_programs 1
// CHECK: %[[G:.*]] = arith.constant 8 : i32
// CHECK: %[[M:.*]] = arith.muli %[[P1]], %[[N0]]
// CHECK: %[[LIN:.*]] = arith.addi %[[M]], %[[P0]]
// CHECK: %[[W:.*]] = arith.muli %[[G]], %[[N1]]
// CHECK: %[[GI:.*]] = arith.divui %[[LIN]], %[[W]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[GI]], %[[G]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[N0]], %[[FIRST]]
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[G]]
// CHECK: %[[IN:.*]] = arith.remui %[[LIN]], %[[W]]
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK: %[[Q0:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK: %[[Q1:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK-NOT: tile.program_id
// CHECK: tile.load %{{.*}}[%[[Q0]], %{{.*}}]
// CHECK: tile.load %{{.*}}[%{{.*}}, %[[Q1]]]
// CHECK: tile.store %{{.*}}[%[[Q0]], %[[Q1]]]
tile.kernel @matmul(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// Attention's Q block depends on both ids (query block and head): the order
// stays (consecutive programs share a head's keys already).
// CHECK-LABEL: tile.kernel @attention_like
// CHECK-NOT: arith.minui
// CHECK: tile.return
tile.kernel @attention_like(%q: !tile.tensor<?x?xbf16>, %k: !tile.tensor<?x?xbf16>, %o: !tile.tensor<?x?xf32>, %n: i32) grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %tq = tile.load %q[%p0, %p1] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16>
  %tk = tile.load %k[%c0, %p1] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %tq, %tk, %zero : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.store %o[%p0, %p1], %s : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// A 1-D grid is left as it is.
// CHECK-LABEL: tile.kernel @one_axis
// CHECK-NOT: arith.minui
tile.kernel @one_axis(%a: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w : i32
} {
  %c0 = arith.constant 0 : i32
  %p0 = tile.program_id 0
  %ta = tile.load %a[%p0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %ta, %tb, %zero : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %c[%p0, %c0], %d : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// In clusters of 3 programs along axis 0 (tile-cluster-programs), a group
// covers a multiple of 3 rows (9), so that a cluster stays on one value of
// axis 1.
// CHECK-LABEL: tile.kernel @clustered
// CHECK: arith.constant 9 : i32
// CHECK: arith.minui
tile.kernel @clustered(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.cluster_dims = array<i64: 3, 1, 1>} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}
