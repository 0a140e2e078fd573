// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-persistent))' | FileCheck %s

// The grid's n0 x n1 programs become one axis of n0 * n1; the body runs in a
// loop over them from program_id(x) by num_programs(x), where the program ids
// are the virtual program's coordinates and num_programs the grid's extents.
// CHECK-LABEL: tile.kernel @mm
// CHECK: grid {
// CHECK: %[[G0:.*]] = arith.ceildivsi
// CHECK: %[[G1:.*]] = arith.ceildivsi
// CHECK: %[[GT:.*]] = arith.muli %[[G0]], %[[G1]] : i32
// CHECK-NEXT: tile.yield %[[GT]] : i32
// CHECK: } {
// CHECK: %[[N0:.*]] = arith.ceildivsi %arg3
// CHECK: %[[N1:.*]] = arith.ceildivsi %arg4
// CHECK: %[[T:.*]] = arith.muli %[[N0]], %[[N1]] : i32
// CHECK: %[[P:.*]] = tile.program_id 0
// CHECK: %[[NP:.*]] = tile.num_programs 0
// CHECK: scf.for %[[V:.*]] = %[[P]] to %[[T]] step %[[NP]] : i32 {
// CHECK-NEXT: %[[Q0:.*]] = arith.remui %[[V]], %[[N0]] : i32
// CHECK-NEXT: %[[Q1:.*]] = arith.divui %[[V]], %[[N0]] : i32
// CHECK-NOT: tile.program_id
// CHECK-NOT: tile.num_programs
// CHECK: arith.addi %[[Q1]], %[[N1]] : i32
// CHECK: tile.load %arg0[%[[Q0]], %{{.*}}]
// CHECK: tile.store %arg2[%[[Q0]], %{{.*}}]
// CHECK: } {tile.persistent_loop}
// CHECK-NEXT: tile.return
tile.kernel @mm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %m: i32, %n: i32, %k: i32) attributes {tile.persistent = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %gm: i32, %gn: i32, %gk: i32):
  %c64 = arith.constant 64 : i32
  %g0 = arith.ceildivsi %gm, %c64 : i32
  %g1 = arith.ceildivsi %gn, %c64 : i32
  tile.yield %g0, %g1 : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %np1 = tile.num_programs 1
  %col = arith.addi %p1, %np1 : i32
  %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %i] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%i, %col] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %col], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// Without the option nothing changes.
// CHECK-LABEL: tile.kernel @plain
// CHECK: tile.yield %{{.*}}, %{{.*}} : i32, i32
// CHECK: tile.program_id 0
// CHECK-NOT: scf.for
// CHECK: tile.return
tile.kernel @plain(%c: !tile.tensor<?x?xf32>, %m: i32) grid {
^bb0(%z: !tile.tensor<?x?xf32>, %gm: i32):
  tile.yield %gm, %gm : i32, i32
} {
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  tile.store %c[%p0, %p1], %t : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}
