// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-insert-barriers))'


// Writing the operands before the wait that completes the dot is an error.
#ws4 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m4 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#b4 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
tile.kernel @early_write(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #m4>
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<64x64xbf16, #ws4>
  %d = tile.warpgroup_dot %buf, %buf, %zero {isAsync} : !tile.memdesc<64x64xbf16, #ws4>, !tile.memdesc<64x64xbf16, #ws4> -> tensor<64x64xf32, #m4>
  %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #b4>
  // expected-error @+1 {{shared memory written while an asynchronous warpgroup dot may read it}}
  %s = tile.reduce sum %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<64x128xf32, #b4> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b4}>>
  %done = tile.warpgroup_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #m4>
  tile.return
}

// -----

// Reusing a TMA store's buffer before the wait that completes its reads is an
// error.
#ws5 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m5 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#b5 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
tile.kernel @early_reuse(%a: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.tensor_maps = [{arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %v = arith.constant dense<1.0> : tensor<64x64xbf16, #m5>
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<1x64x64xbf16, #ws5>
  tile.tma_store %c[%c0, %c0], %v, %buf {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x64xbf16, #m5>, !tile.memdesc<1x64x64xbf16, #ws5>
  %t = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #b5>
  // expected-error @+1 {{shared memory written while a TMA store may read it}}
  %s = tile.reduce sum %t axis 1 {tile.scratch_offset = 0 : i64} : tensor<64x128xf32, #b5> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b5}>>
  tile.tma_store_wait %buf : !tile.memdesc<1x64x64xbf16, #ws5>
  tile.return
}
