// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-persistent))'

// Three grid axes: the virtual programs are one axis of at most two.
// expected-error @+1 {{persistent needs a grid of at most two axes; this one has 3}}
tile.kernel @batched(%c: !tile.tensor<?x?xf32>, %m: i32) attributes {tile.persistent = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %gm: i32):
  tile.yield %gm, %gm, %gm : i32, i32, i32
} {
  %p0 = tile.program_id 0
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  tile.store %c[%p0, %p0], %t : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// Split-K programs of one tile meet in a workspace; a loop over tiles would
// need them all resident.
// expected-error @+1 {{persistent does not combine with split-k}}
tile.kernel @split(%c: !tile.tensor<?x?xf32>, %m: i32) attributes {tile.persistent = 1 : i64, tile.split_k = 2 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %gm: i32):
  tile.yield %gm, %gm : i32, i32
} {
  %p0 = tile.program_id 0
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  tile.store %c[%p0, %p0], %t : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}
