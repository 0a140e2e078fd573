// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-split-k))' | FileCheck %s

// A matmul split in 4: the grid gains axis 2 (4 splits), split z runs
// iterations [z * per, min(n, (z + 1) * per)) with per = cdiv(n, 4), and the
// store runs on the combined sum in the last program of the tile only.
// CHECK-LABEL: tile.kernel @matmul
// CHECK: %[[S:.*]] = arith.constant 4 : i32
// CHECK: tile.yield %{{.*}}, %{{.*}}, %[[S]] : i32, i32, i32
// CHECK: %[[Z:.*]] = tile.program_id 2
// CHECK: %[[SPAN:.*]] = arith.subi %[[N:.*]], %[[C0:.*]] : i32
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi %[[SPAN]], %[[C1:.*]] : i32
// CHECK: %[[POS:.*]] = arith.maxsi %[[TRIPS]]
// CHECK: %[[PER:.*]] = arith.ceildivsi %[[POS]]
// CHECK: %[[CHUNK:.*]] = arith.muli %[[PER]], %[[C1]]
// CHECK: %[[OFF:.*]] = arith.muli %[[Z]], %[[CHUNK]]
// CHECK: %[[LO:.*]] = arith.addi %[[C0]], %[[OFF]]
// CHECK: %[[END:.*]] = arith.addi %[[LO]], %[[CHUNK]]
// CHECK: %[[HI:.*]] = arith.minsi %[[N]], %[[END]]
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] step %[[C1]]
// CHECK: tile.dot
// CHECK: %[[LAST:.*]] = tile.split_k_publish %[[ACC]] {splits = 4 : i64} : tensor<64x64xf32>
// CHECK-NEXT: scf.if %[[LAST]] {
// CHECK-NEXT: %[[SUM:.*]] = tile.split_k_combine %[[ACC]] {splits = 4 : i64} : tensor<64x64xf32>
// CHECK-NEXT: %[[OUT:.*]] = tile.convert %[[SUM]]
// CHECK-NEXT: tile.store %{{.*}}[%{{.*}}, %{{.*}}], %[[OUT]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
tile.kernel @matmul(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.split_k = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xbf16>, %w: i32):
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
  %out = tile.convert %acc : tensor<64x64xf32> -> tensor<64x64xbf16>
  tile.store %c[%p0, %p1], %out : !tile.tensor<?x?xbf16>, tensor<64x64xbf16>
  tile.return
}

// -----

// Without tile.split_k (or with 1) the kernel stays as it is.
// CHECK-LABEL: tile.kernel @unsplit
// CHECK-NOT: tile.split_k_publish
// CHECK: tile.yield %{{.*}}, %{{.*}} : i32, i32
tile.kernel @unsplit(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.split_k = 1 : i64} grid {
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
