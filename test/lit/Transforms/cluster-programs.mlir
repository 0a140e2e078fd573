// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-cluster-programs))' | FileCheck %s
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-cluster-programs{arch=sm_80}))' | FileCheck %s --check-prefix=AMPERE

// A matmul with `cluster = 2`: B's tile depends on program_id(1) and the
// loop's variable only, so two programs that differ in program_id(0) load
// the same one; A's depends on program_id(0).
// CHECK-LABEL: tile.kernel @matmul
// CHECK-SAME: tile.cluster_dims = array<i64: 2, 1, 1>
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : <?x?xbf16> -> tensor<64x32xbf16>
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.multicast = 2 : i32} : <?x?xbf16> -> tensor<32x64xbf16>
// Not on sm_80: no clusters there.
// AMPERE-LABEL: tile.kernel @matmul
// AMPERE-NOT: tile.cluster_dims
// AMPERE-NOT: tile.multicast
tile.kernel @matmul(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.cluster = 2 : i64} grid {
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

// Without the option nothing changes.
// CHECK-LABEL: tile.kernel @no_option
// CHECK-NOT: tile.cluster_dims
// CHECK-NOT: tile.multicast
tile.kernel @no_option(%b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>, %n: i32) grid {
^bb0(%y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xbf16>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p1 = tile.program_id 1
  scf.for %k = %c0 to %n step %c1 : i32 {
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    tile.store %c[%k, %p1], %tb : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
  }
  tile.return
}

// -----

// Nothing can be shared: the loop's bound depends on program_id(0) (causal
// attention's key blocks), a coordinate carried by the loop starts from it,
// a load outside any loop, a load under an `if`. No cluster is formed.
// CHECK-LABEL: tile.kernel @nothing_shared
// CHECK-NOT: tile.cluster_dims
// CHECK-NOT: tile.multicast
// CHECK: tile.return
tile.kernel @nothing_shared(%b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.cluster = 2 : i64} grid {
^bb0(%y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xbf16>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %ub = arith.addi %p0, %c1 : i32
  scf.for %k = %c0 to %ub step %c1 : i32 {
    %t = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    tile.store %c[%k, %p1], %t : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
  }
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%row = %p0) -> (i32) : i32 {
    %t = tile.load %b[%row, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    tile.store %c[%k, %p1], %t : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
    %next = arith.addi %row, %c1 : i32
    scf.yield %next : i32
  }
  %once = tile.load %b[%c0, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
  tile.store %c[%c0, %p1], %once : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
  %first = arith.cmpi eq, %p0, %c0 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    scf.if %first {
      %t = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
      tile.store %c[%k, %p1], %t : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
    }
  }
  tile.return
}

// -----

// A persistent kernel's programs walk different tiles: left alone.
// CHECK-LABEL: tile.kernel @persistent
// CHECK-NOT: tile.cluster_dims
// CHECK-NOT: tile.multicast
tile.kernel @persistent(%b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>, %n: i32) attributes {tile.cluster = 2 : i64, tile.persistent = 1 : i64} grid {
^bb0(%y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xbf16>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p1 = tile.program_id 1
  scf.for %k = %c0 to %n step %c1 : i32 {
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    tile.store %c[%k, %p1], %tb : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
  }
  tile.return
}

// -----

// Values the programs of a cluster may not share although nothing of
// program_id(0) reaches them: a column from an atomic's old value (a tile
// scheduler's counter), and tiles of a tensor the kernel writes.
// CHECK-LABEL: tile.kernel @not_the_same
// CHECK-NOT: tile.cluster_dims
// CHECK-NOT: tile.multicast
// CHECK: tile.return
tile.kernel @not_the_same(%b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>, %ctr: !tile.tensor<?xi32>, %n: i32) attributes {tile.cluster = 2 : i64} grid {
^bb0(%y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xbf16>, %w: !tile.tensor<?xi32>, %v: i32):
  tile.yield %v, %v : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = tile.atomic_rmw add %ctr[%c0], %c1 : !tile.tensor<?xi32>[i32], i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %tb = tile.load %b[%k, %t] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    tile.store %c[%k, %c0], %tb : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %tc = tile.load %c[%k, %c1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    tile.store %c[%k, %c0], %tc : !tile.tensor<?x?xbf16>, tensor<32x64xbf16>
  }
  tile.return
}
