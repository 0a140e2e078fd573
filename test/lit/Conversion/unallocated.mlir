// RUN: tessera-opt %s --convert-tile-to-llvm -verify-diagnostics
// A shared buffer without an offset cannot be lowered: tile-allocate-shared
// comes first (the lowering never guesses one).
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @unallocated() attributes {tile.num_warps = 4 : i64} grid {
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  // expected-error @+2 {{a shared buffer without an offset: run tile-allocate-shared first}}
  // expected-error @+1 {{failed to legalize operation 'tile.local_alloc' that was explicitly marked illegal}}
  %m = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #s>
  tile.return
}
