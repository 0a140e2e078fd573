// RUN: tessera-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts,tile-stage-operands,tile-allocate-shared,tile-insert-barriers),convert-tile-to-llvm)' -verify-diagnostics

// Ops without a GPU lowering yet are reported at their location.
tile.kernel @unsupported(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  // expected-error @+1 {{print() of a tile runs only in the interpreter (tessera run --interpret); on the GPU, print a scalar (a reduction or an element)}}
  tile.print "t = ", %t : tensor<128xf32>
  tile.return
}
