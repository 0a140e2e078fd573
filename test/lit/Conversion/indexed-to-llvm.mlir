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

// -----

// Index math that proves runs contiguous and aligned (a multiple of 64 plus
// arange, rows constant along the last axis, a mask against the last extent of
// an aligned tensor) moves four f32 at once; an offset of +1 breaks the
// alignment and each element is its own access again.
// CHECK-LABEL: llvm.func @runs
// CHECK: @p ld.global.v4.b32
// CHECK: @p st.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK: @p ld.global.b32
#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #blocked}>
#col = #tile.slice<{dim = 0, parent = #blocked}>
tile.kernel @runs(%x: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %pid = tile.program_id 0
  %c64 = arith.constant 64 : i32
  %s = arith.muli %pid, %c64 : i32
  %ss = tile.splat %s : tensor<64xi32, #col>
  %ar = tile.arange : tensor<64xi32, #col>
  %cols = arith.addi %ss, %ar : tensor<64xi32, #col>
  %c2 = tile.expand_dims %cols axis 0 : tensor<64xi32, #col> -> tensor<1x64xi32, #blocked>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #blocked> -> tensor<8x64xi32, #blocked>
  %rows = tile.arange : tensor<8xi32, #row>
  %r2 = tile.expand_dims %rows axis 1 : tensor<8xi32, #row> -> tensor<8x1xi32, #blocked>
  %rb = tile.broadcast %r2 : tensor<8x1xi32, #blocked> -> tensor<8x64xi32, #blocked>
  %n = tile.dim %x[1] : !tile.tensor<?x?xf32>
  %ns = tile.splat %n : tensor<8x64xi32, #blocked>
  %m = arith.cmpi slt, %cb, %ns : tensor<8x64xi32, #blocked>
  %v = tile.gather %x[%rb, %cb] mask %m : tensor<8x64xi1, #blocked> : !tile.tensor<?x?xf32>[tensor<8x64xi32, #blocked>, tensor<8x64xi32, #blocked>] -> tensor<8x64xf32, #blocked>
  tile.scatter %x[%rb, %cb], %v : !tile.tensor<?x?xf32>[tensor<8x64xi32, #blocked>, tensor<8x64xi32, #blocked>], tensor<8x64xf32, #blocked>
  %c1 = arith.constant dense<1> : tensor<8x64xi32, #blocked>
  %shifted = arith.addi %cb, %c1 : tensor<8x64xi32, #blocked>
  %w = tile.gather %x[%rb, %shifted] : !tile.tensor<?x?xf32>[tensor<8x64xi32, #blocked>, tensor<8x64xi32, #blocked>] -> tensor<8x64xf32, #blocked>
  tile.scatter %x[%rb, %cb], %w : !tile.tensor<?x?xf32>[tensor<8x64xi32, #blocked>, tensor<8x64xi32, #blocked>], tensor<8x64xf32, #blocked>
  tile.return
}

// -----

// Without the alignment specialization the same runs go element by element.
// CHECK-LABEL: llvm.func @unaligned
// CHECK-NOT: .v4.
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @unaligned(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64, tile.aligned = false} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %ar = tile.arange : tensor<512xi32, #blocked>
  %v = tile.gather %x[%ar] : !tile.tensor<?xf32>[tensor<512xi32, #blocked>] -> tensor<512xf32, #blocked>
  tile.scatter %x[%ar], %v : !tile.tensor<?xf32>[tensor<512xi32, #blocked>], tensor<512xf32, #blocked>
  tile.return
}

// -----

// A start the analysis cannot see through (a scalar argument) moves element by
// element, unless the program promises it is a multiple (tile.multiple_of).
// CHECK-LABEL: llvm.func @promised
// CHECK: @p ld.global.b32
// CHECK: @p ld.global.v4.b32
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @promised(%x: !tile.tensor<?xf32>, %s: i32) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %ar = tile.arange : tensor<512xi32, #blocked>
  %ss = tile.splat %s : tensor<512xi32, #blocked>
  %i = arith.addi %ss, %ar : tensor<512xi32, #blocked>
  %v = tile.gather %x[%i] : !tile.tensor<?xf32>[tensor<512xi32, #blocked>] -> tensor<512xf32, #blocked>
  %m = tile.multiple_of %s {divisor = 4 : i64} : i32
  %ms = tile.splat %m : tensor<512xi32, #blocked>
  %j = arith.addi %ms, %ar : tensor<512xi32, #blocked>
  %w = tile.gather %x[%j] : !tile.tensor<?xf32>[tensor<512xi32, #blocked>] -> tensor<512xf32, #blocked>
  %sum = arith.addf %v, %w : tensor<512xf32, #blocked>
  tile.scatter %x[%ar], %sum : !tile.tensor<?xf32>[tensor<512xi32, #blocked>], tensor<512xf32, #blocked>
  tile.return
}
