// RUN: tessera-opt %s -split-input-file --canonicalize | FileCheck %s
// The tile ops' canonicalization patterns.

// x + dot(a, b, 0) and dot(a, b, 0) + x accumulate into x.
// CHECK-LABEL: tile.kernel @accumulate_in_dot
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[X:.*]] : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
// CHECK: %[[E:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[D]] : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
// CHECK-NOT: arith.addf
// CHECK: tile.store %{{.*}}[%{{.*}}], %[[E]]
tile.kernel @accumulate_in_dot(%a: !tile.tensor<?x?xbf16>, %o: !tile.tensor<?x?xf32>) grid {
^bb0(%x0: !tile.tensor<?x?xbf16>, %x1: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %x = tile.load %o[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x32xf32>
  %p = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x16xbf16>
  %v = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<16x32xbf16>
  %d = tile.dot %p, %v, %z : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
  %s = arith.addf %x, %d : tensor<64x32xf32>
  %e = tile.dot %p, %v, %z : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
  %t = arith.addf %e, %s : tensor<64x32xf32>
  tile.store %o[%c0, %c0], %t : !tile.tensor<?x?xf32>, tensor<64x32xf32>
  tile.return
}

// -----

// Not folded: a dot used twice, and a dot whose accumulator is not zero.
// CHECK-LABEL: tile.kernel @keep_the_sum
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
// CHECK: arith.addf %{{.*}}, %[[D]]
// CHECK: tile.store %{{.*}}[%{{.*}}], %[[D]]
// CHECK: %[[E:.*]] = tile.dot
// CHECK: arith.addf %{{.*}}, %[[E]]
tile.kernel @keep_the_sum(%a: !tile.tensor<?x?xbf16>, %o: !tile.tensor<?x?xf32>) grid {
^bb0(%x0: !tile.tensor<?x?xbf16>, %x1: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %h = arith.constant dense<0.5> : tensor<64x32xf32>
  %x = tile.load %o[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x32xf32>
  %p = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x16xbf16>
  %v = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<16x32xbf16>
  %d = tile.dot %p, %v, %z : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
  %s = arith.addf %x, %d : tensor<64x32xf32>
  tile.store %o[%c0, %c0], %s : !tile.tensor<?x?xf32>, tensor<64x32xf32>
  tile.store %o[%c0, %c0], %d : !tile.tensor<?x?xf32>, tensor<64x32xf32>
  %e = tile.dot %p, %v, %h : tensor<64x16xbf16>, tensor<16x32xbf16> -> tensor<64x32xf32>
  %t = arith.addf %x, %e : tensor<64x32xf32>
  tile.store %o[%c0, %c0], %t : !tile.tensor<?x?xf32>, tensor<64x32xf32>
  tile.return
}
