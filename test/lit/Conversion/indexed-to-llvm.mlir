// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// tile.gather and tile.scatter with their layouts given in the input: per
// element a 64-bit offset from the indices and strides, one unsigned compare
// per axis against its extent, the mask, and one predicated access.

// A 2-D gather: an i32 row index is sign-extended, an i64 column index is not;
// each is compared unsigned with its extent (negative indices are out); the
// pad moves in before the predicated load.
// CHECK-LABEL: llvm.func @gather
// CHECK: %[[E0:.*]] = llvm.zext %{{.*}} : i32 to i64
// CHECK: %[[E1:.*]] = llvm.zext %{{.*}} : i32 to i64
// CHECK: %[[I:.*]] = llvm.sext %{{.*}} : i32 to i64
// CHECK: llvm.icmp "ult" %[[I]], %[[E0]] : i64
// CHECK: llvm.mul %[[I]], %{{.*}} : i64
// CHECK-NOT: llvm.sext
// CHECK: llvm.icmp "ult" %{{.*}}, %[[E1]] : i64
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.inline_asm has_side_effects {{.*}}mov.b32 $0, $3;\0A @p ld.global.b32 $0, [$1];
// CHECK-NOT: ld.global.v
#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @gather(%x: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %i = arith.constant dense<3> : tensor<16x32xi32, #blocked>
  %j = arith.constant dense<5> : tensor<16x32xi64, #blocked>
  %m = arith.constant dense<true> : tensor<16x32xi1, #blocked>
  %pad = arith.constant 1.0 : f32
  %v = tile.gather %x[%i, %j] mask %m : tensor<16x32xi1, #blocked> pad %pad : !tile.tensor<?x?xf32>[tensor<16x32xi32, #blocked>, tensor<16x32xi64, #blocked>] -> tensor<16x32xf32, #blocked>
  %c1 = arith.constant 1 : i32
  tile.store %x[%c1, %c1], %v : !tile.tensor<?x?xf32>, tensor<16x32xf32, #blocked>
  tile.return
}

// -----

// A scatter whose tile is smaller than the layout: the replicas' writes are
// masked off (the owner test), as for tile.store.
// CHECK-LABEL: llvm.func @scatter
// CHECK: llvm.icmp "slt"
// CHECK: llvm.icmp "ult"
// CHECK: @p st.global.b32 [$1], $2;
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @scatter(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %i = tile.arange : tensor<64xi32, #blocked>
  %v = arith.constant dense<2.0> : tensor<64xf32, #blocked>
  tile.scatter %x[%i], %v : !tile.tensor<?xf32>[tensor<64xi32, #blocked>], tensor<64xf32, #blocked>
  tile.return
}
