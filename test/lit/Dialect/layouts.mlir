// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// Every distributed layout prints and parses back to itself.

// CHECK-DAG: #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #tile.slice<{dim = 1, parent = #{{.*}}}>
// CHECK-DAG: #tile.dot_op<{opIdx = 0, parent = #{{.*}}}>
// CHECK-LABEL: tile.kernel @layouts
tile.kernel @layouts() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %f = arith.constant 1.0 : f32
  %h = arith.constant 1.0 : bf16
  %a = tile.splat %f : tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
  %b = tile.splat %f : tensor<64x64xf32, #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
  %s = tile.splat %f : tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>}>>
  %o = tile.splat %h : tensor<64x32xbf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>}>>
  tile.return
}
