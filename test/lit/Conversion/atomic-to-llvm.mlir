// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// The atomics with their layouts and scratch given in the input: per element a
// relaxed device-scope atomicrmw or cmpxchg under a branch on its mask (which
// includes ownership), 0 where it did not run.

// A histogram update whose old values are unused: owner-guarded atomic adds,
// no scratch traffic.
// CHECK-LABEL: llvm.func @hist
// CHECK: llvm.cond_br
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.barrier
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @hist(%h: !tile.tensor<?xi32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %i = tile.arange : tensor<128xi32, #blocked>
  %o = tile.atomic_rmw add %h[%i], %i : !tile.tensor<?xi32>[tensor<128xi32, #blocked>], tensor<128xi32, #blocked>
  tile.return
}

// -----

// A float max and a compare-and-swap through the bits of the floats.
// CHECK-LABEL: llvm.func @fmax_cas
// CHECK: llvm.atomicrmw fmax %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK: llvm.bitcast %{{.*}} : f32 to i32
// CHECK: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") monotonic monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.bitcast %{{.*}} : i32 to f32
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @fmax_cas(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %i = tile.arange : tensor<128xi32, #blocked>
  %v = arith.constant dense<2.0> : tensor<128xf32, #blocked>
  %o = tile.atomic_rmw max %x[%i], %v : !tile.tensor<?xf32>[tensor<128xi32, #blocked>], tensor<128xf32, #blocked>
  %p = tile.atomic_cas %x[%i], %o, %v : !tile.tensor<?xf32>[tensor<128xi32, #blocked>], tensor<128xf32, #blocked>
  tile.scatter %x[%i], %p : !tile.tensor<?xf32>[tensor<128xi32, #blocked>], tensor<128xf32, #blocked>
  tile.return
}

// -----

// A scalar atomic whose old value is used: thread 0 updates, stores the old
// value in the op's scratch, and after a barrier every thread reads it.
// CHECK-LABEL: llvm.func @ticket
// CHECK: llvm.atomicrmw add
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
tile.kernel @ticket(%c: !tile.tensor<?xi32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 16 : i64} grid {
^bb0(%a: !tile.tensor<?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %t = tile.atomic_rmw add %c[%z], %one {tile.scratch_offset = 0 : i64} : !tile.tensor<?xi32>[i32], i32
  tile.scatter %c[%one], %t : !tile.tensor<?xi32>[i32], i32
  tile.return
}
