// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// reshape and permute with their layouts and scratch given in the input: the
// owners store the source row-major into the scratch, a barrier, every thread
// loads its result elements (for a permute, from the permuted coordinates).

// A bool tile is stored as bytes; its 4x2 replication (8 threads per
// element row) writes each element once, under a branch.
// CHECK-LABEL: llvm.func @flatten
// CHECK: llvm.zext %{{.*}} : i1 to i8
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}} : i8, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK: llvm.trunc %{{.*}} : i8 to i1
#a = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @flatten(%x: !tile.tensor<?xi32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 132 : i64} grid {
^bb0(%a: !tile.tensor<?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %i = tile.arange : tensor<128xi32, #b>
  %m = arith.constant dense<true> : tensor<4x32xi1, #a>
  %f = tile.reshape %m {tile.scratch_offset = 0 : i64} : tensor<4x32xi1, #a> -> tensor<128xi1, #b>
  tile.scatter %x[%i], %i mask %f : tensor<128xi1, #b> : !tile.tensor<?xi32>[tensor<128xi32, #b>], tensor<128xi32, #b>
  tile.return
}

// -----

// A permute reads each result element at the source's row-major index of its
// permuted coordinates: result (k, i, j) from source (i, j, k) of 2x4x8, that
// is i * 32 + j * 8 + k.
// CHECK-LABEL: llvm.func @perm
// CHECK: nvvm.barrier0
// CHECK: llvm.mlir.constant(32 : i32)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
#c = #tile.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>
#d = #tile.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [8, 2, 2], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]}>
tile.kernel @perm(%x: !tile.tensor<?x?x?xf32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 264 : i64} grid {
^bb0(%a: !tile.tensor<?x?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0, %c0] : !tile.tensor<?x?x?xf32> -> tensor<2x4x8xf32, #c>
  %p = tile.permute %t [2, 0, 1] {tile.scratch_offset = 0 : i64} : tensor<2x4x8xf32, #c> -> tensor<8x2x4xf32, #d>
  tile.store %x[%c0, %c0, %c0], %p : !tile.tensor<?x?x?xf32>, tensor<8x2x4xf32, #d>
  tile.return
}
