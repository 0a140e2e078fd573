// RUN: tessera-opt %s --convert-tile-to-llvm -verify-diagnostics

// Operands of an element access in another layout than the access are refused at
// the op, not paired element by element wrongly.
#a = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.kernel @mixed(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %i = tile.arange : tensor<512xi32, #a>
  // expected-error @+2 {{code generation of this access needs its indices and mask in the layout of the accessed tile (run tile-assign-layouts)}}
  // expected-error @+1 {{failed to legalize operation 'tile.gather' that was explicitly marked illegal}}
  %v = tile.gather %x[%i] : !tile.tensor<?xf32>[tensor<512xi32, #a>] -> tensor<512xf32, #b>
  %c1 = arith.constant 1 : i32
  tile.store %x[%c1], %v : !tile.tensor<?xf32>, tensor<512xf32, #b>
  tile.return
}
