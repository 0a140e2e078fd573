// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// Scans with their layouts and scratch given in the input: the owners store
// the tile into the scratch (row-major, a padding element after every 32),
// a barrier, each line's chunks scanned in order by the lanes of one warp
// with their totals combined by shfl.sync.up, a barrier, every thread loads
// its elements back.

// One line of 256 over 128 threads: 32 lanes of warp 0 take chunks of 8;
// the other warps only join the shuffles (their loads and stores branch).
// CHECK-LABEL: llvm.func @row
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.cond_br
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.fadd
// CHECK-COUNT-5: nvvm.shfl.sync up
// CHECK: nvvm.shfl.sync up
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
#blocked = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @row(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 1056 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<256xf32, #blocked>
  %s = tile.scan sum %t axis 0 {tile.scratch_offset = 0 : i64} : tensor<256xf32, #blocked>
  tile.store %x[%c0], %s : !tile.tensor<?xf32>, tensor<256xf32, #blocked>
  tile.return
}

// -----

// More lines (64) than threads per line allow: two lanes per line of 16
// elements (chunks of 8), integer max, one shuffle step; every thread works.
// CHECK-LABEL: llvm.func @cols
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.intr.smax
// CHECK: nvvm.shfl.sync up
// CHECK: nvvm.shfl.sync up
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @cols(%x: !tile.tensor<?x?xi32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 4224 : i64} grid {
^bb0(%a: !tile.tensor<?x?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xi32> -> tensor<16x64xi32, #blocked>
  %s = tile.scan max %t axis 0 {tile.scratch_offset = 0 : i64} : tensor<16x64xi32, #blocked>
  tile.store %x[%c0, %c0], %s : !tile.tensor<?x?xi32>, tensor<16x64xi32, #blocked>
  tile.return
}

// -----

// bf16 is scanned as f32 and rounded once.
// CHECK-LABEL: llvm.func @half
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.intr.minimum
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
#blocked = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @half(%x: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 1056 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<4x64xbf16, #blocked>
  %s = tile.scan min %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<4x64xbf16, #blocked>
  tile.store %x[%c0, %c0], %s : !tile.tensor<?x?xbf16>, tensor<4x64xbf16, #blocked>
  tile.return
}

// -----

// A combiner region is cloned at every combining step, with the running
// value first: in each chunk, across the lanes (the shuffled earlier total
// first) and when each chunk takes the total before it. A captured scalar
// (%cap) is used as it is. No widening: i32 in, i32 in the scratch.
// CHECK-LABEL: llvm.func @combined
// CHECK-SAME: %[[CAP:[a-z0-9]+]]: i32) attributes
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[LT:.*]] = llvm.icmp "slt" %[[S:.*]], %[[CAP]] : i32
// CHECK-NEXT: llvm.select %[[LT]], %[[S]], %[[CAP]] : i1, i32
// CHECK: %[[UP:.*]] = nvvm.shfl.sync up %{{.*}}, %[[TOT:.*]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT: %[[S2:.*]] = llvm.add %[[UP]], %[[TOT]] : i32
// CHECK-NEXT: %[[LT2:.*]] = llvm.icmp "slt" %[[S2]], %[[CAP]] : i32
// CHECK: nvvm.barrier0
#blocked = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @combined(%x: !tile.tensor<?xi32>, %cap: i32) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 1056 : i64} grid {
^bb0(%a: !tile.tensor<?xi32>, %b: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xi32> -> tensor<256xi32, #blocked>
  %s = tile.associative_scan %t axis 0 {tile.scratch_offset = 0 : i64} : tensor<256xi32, #blocked> {
  ^bb0(%l: i32, %r: i32):
    %sum = arith.addi %l, %r : i32
    %m = arith.minsi %sum, %cap : i32
    tile.combiner_yield %m : i32
  }
  tile.store %x[%c0], %s : !tile.tensor<?xi32>, tensor<256xi32, #blocked>
  tile.return
}
