// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-split-k))'

// The accumulator does not start from zeros: every split would add it.
// expected-error @+1 {{split-k needs a loop (not nested) that carries only a dot's f32 accumulator, starting from zeros; this kernel has none}}
tile.kernel @biased(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.split_k = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %init = tile.load %c[%p0, %p1] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %init) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// A batched kernel already uses axis 2.
// expected-error @+1 {{split-k adds a third grid axis; this kernel already uses axis 2}}
tile.kernel @batched(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.split_k = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w, %w : i32, i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// A store before the loop would run once per split.
tile.kernel @early_store(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.split_k = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{split-k runs the code before the reduction loop in every split; it must not write memory}}
  tile.store %c[%p0, %p1], %zero : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// A store inside the loop would write each split's partial state.
tile.kernel @store_in_loop(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.split_k = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    // expected-error @+1 {{split-k runs a share of the reduction loop in each split; the loop must not write memory}}
    tile.store %c[%p0, %p1], %d : !tile.tensor<?x?xf32>, tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// The running accumulator is read by more than its dot.
tile.kernel @acc_read_twice(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.split_k = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w, %w : i32, i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{split-k needs the accumulator used by its dot alone inside the loop}}
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%p0, %k] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %p1] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
    %s = arith.mulf %acc0, %acc0 : tensor<64x64xf32>
    %d = tile.dot %ta, %tb, %acc0 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%p0, %p1], %acc : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}
