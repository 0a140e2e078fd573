// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-ping-pong))' | FileCheck %s

// Attention's compute warps after rotation, two warpgroups: the prologue's
// synchronous dot is a section of its own; in the loop, S and the previous
// iteration's P V are issued together (the rescale between them is pure) and
// form one section, which ends before the wait for S. The last warpgroup
// gives the first turn at the top of the compute branch, warpgroup 0 takes
// the last one back at its end; the producer branch has no turns.
// CHECK-LABEL: tile.kernel @rotated
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: tile.turn
// CHECK: } else {
// CHECK-NEXT: tile.turn_begin
// CHECK: tile.mbarrier_wait
// CHECK-NEXT: tile.turn_wait
// CHECK-NEXT: %[[S0:.*]] = tile.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: tile.warpgroup_wait %[[S0]] {pendings = 0 : i32}
// CHECK: scf.for
// CHECK: tile.mbarrier_wait
// CHECK-NEXT: tile.turn_wait
// CHECK-NEXT: %[[S:.*]] = tile.warpgroup_dot %{{.*}} {isAsync}
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[O:.*]] = tile.warpgroup_dot %{{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: tile.warpgroup_wait %[[S]] {pendings = 1 : i32}
// CHECK-NOT: tile.turn
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.turn_end
// CHECK-NEXT: }
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @rotated(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.ping_pong = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %full = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc {arrivals = 256 : i32} : !tile.mbarrier<2>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %p = tile.in_producer
  scf.if %p {
    tile.set_max_registers {count = 40 : i32}
  } else {
    tile.mbarrier_wait %full[%c0], %c0 : !tile.mbarrier<2>
    %s0 = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    %h0 = tile.convert %s0 : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
    %p0 = tile.convert_layout %h0 : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #dot>
    %r:2 = scf.for %j = %c1 to %n step %c1 iter_args(%acc = %zero, %pp = %p0) -> (tensor<128x64xf32, #mma>, tensor<128x64xbf16, #dot>) : i32 {
      tile.mbarrier_wait %full[%c0], %c0 : !tile.mbarrier<2>
      %s = tile.warpgroup_dot %q, %kb, %zero {isAsync} : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
      %u = arith.mulf %acc, %acc : tensor<128x64xf32, #mma>
      %next = tile.warpgroup_dot %pp, %kb, %u {isAsync} : tensor<128x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
      %sw = tile.warpgroup_wait %s {pendings = 1 : i32} : tensor<128x64xf32, #mma>
      %e = math.exp2 %sw : tensor<128x64xf32, #mma>
      %h = tile.convert %e : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
      %pd = tile.convert_layout %h : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #dot>
      %ow = tile.warpgroup_wait %next {pendings = 0 : i32} : tensor<128x64xf32, #mma>
      tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<2>
      scf.yield %ow, %pd : tensor<128x64xf32, #mma>, tensor<128x64xbf16, #dot>
    }
    tile.store %o[%c0, %c0], %r#0 : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mma>
  }
  tile.return
}

// -----

// Attention's compute warps without rotation: S at the top of the loop body,
// P V at its bottom, the softmax between them. P V of block j and S of block
// j + 1 form one turn across the back edge (only the slot's release and the
// next slot's wait lie between them): the wait before the loop and before
// P V, the pass after S and after the loop. S is waited for after its pass;
// P V, the turn's first dot, is waited for inside it. A loop with a block
// barrier after its last dot keeps one turn per dot.
// CHECK-LABEL: tile.kernel @spanning
// CHECK: tile.turn_begin
// CHECK: tile.turn_wait
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.mbarrier_wait
// CHECK-NEXT: %[[S:.*]] = tile.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: %[[SW:.*]] = tile.warpgroup_wait %[[S]] {pendings = 0 : i32}
// CHECK-NEXT: math.exp2 %[[SW]]
// CHECK: tile.convert_layout
// CHECK-NEXT: tile.turn_wait
// CHECK-NEXT: %[[O:.*]] = tile.warpgroup_dot
// CHECK-NOT: isAsync
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK-NEXT: scf.yield %[[O]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.turn_pass
// CHECK: scf.for
// CHECK: tile.turn_wait
// CHECK-NEXT: tile.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK: tile.turn_wait
// CHECK-NEXT: tile.warpgroup_dot
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: tile.warpgroup_wait
// CHECK-NEXT: tile.barrier
// CHECK: tile.turn_end
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @spanning(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.ping_pong = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %full = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<2>
  %empty = tile.mbarrier_alloc {arrivals = 256 : i32} : !tile.mbarrier<2>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %p = tile.in_producer
  scf.if %p {
  } else {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
      tile.mbarrier_wait %full[%c0], %c0 : !tile.mbarrier<2>
      %s = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
      %e = math.exp2 %s : tensor<128x64xf32, #mma>
      %h = tile.convert %e : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
      %pd = tile.convert_layout %h : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #dot>
      %next = tile.warpgroup_dot %pd, %kb, %acc : tensor<128x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
      tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<2>
      scf.yield %next : tensor<128x64xf32, #mma>
    }
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<128x64xf32, #mma>) : i32 {
      %s = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
      %e = math.exp2 %s : tensor<128x64xf32, #mma>
      %h = tile.convert %e : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
      %pd = tile.convert_layout %h : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #dot>
      %next = tile.warpgroup_dot %pd, %kb, %acc : tensor<128x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
      tile.barrier
      scf.yield %next : tensor<128x64xf32, #mma>
    }
    tile.store %o[%c0, %c0], %r2 : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mma>
  }
  tile.return
}

// -----

// Dots the lowering waits for each end their section, even with only pure
// ops between them (the softmax stays outside the turns); a conversion
// through scratch (which synchronises the compute warps) is not pure enough.
// A dot the lowering waited for becomes asynchronous, waited for after its
// turn passes.
// CHECK-LABEL: tile.kernel @sections
// CHECK: tile.turn_begin
// CHECK: tile.turn_wait
// CHECK-NEXT: %[[A:.*]] = tile.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: %[[AW:.*]] = tile.warpgroup_wait %[[A]] {pendings = 0 : i32}
// CHECK-NEXT: math.exp2 %[[AW]]
// CHECK: tile.turn_wait
// CHECK-NEXT: tile.warpgroup_dot
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: tile.convert %
// CHECK-NEXT: tile.convert_layout {{.*}}tile.scratch_offset
// CHECK-NEXT: tile.turn_wait
// CHECK-NEXT: tile.warpgroup_dot
// CHECK-NEXT: tile.turn_pass
// CHECK-NOT: tile.turn_wait
// CHECK: tile.turn_end
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @sections(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.ping_pong = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %p = tile.in_producer
  scf.if %p {
  } else {
    %a = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    %e = math.exp2 %a : tensor<128x64xf32, #mma>
    %h = tile.convert %e : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
    %pd = tile.convert_layout %h : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #dot>
    %b = tile.warpgroup_dot %pd, %kb, %a {isAsync} : tensor<128x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    %h2 = tile.convert %a : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
    %pd2 = tile.convert_layout %h2 {tile.scratch_offset = 0 : i64} : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #dot>
    %c = tile.warpgroup_dot %pd2, %kb, %b {isAsync} : tensor<128x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    %cw = tile.warpgroup_wait %c {pendings = 0 : i32} : tensor<128x64xf32, #mma>
    tile.store %o[%c0, %c0], %cw : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mma>
  }
  tile.return
}

// -----

// Left as they are: not asked for, one compute warpgroup, no producer warps,
// warpgroups side by side along N (sharing rows).
// CHECK-LABEL: tile.kernel @not_asked
// CHECK-NOT: tile.turn
// CHECK-LABEL: tile.kernel @one_warpgroup
// CHECK-NOT: tile.turn
// CHECK-LABEL: tile.kernel @no_producer
// CHECK-NOT: tile.turn
// CHECK-LABEL: tile.kernel @shared_rows
// CHECK-NOT: tile.turn
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#mma4 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#mman = #tile.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [64, 32]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @not_asked(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %p = tile.in_producer
  scf.if %p {
  } else {
    %a = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    tile.store %o[%c0, %c0], %a : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mma>
  }
  tile.return
}
tile.kernel @one_warpgroup(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64, tile.producer_warps = 4 : i64, tile.ping_pong = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma4>
  %p = tile.in_producer
  scf.if %p {
  } else {
    %a = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma4>
    tile.store %o[%c0, %c0], %a : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma4>
  }
  tile.return
}
tile.kernel @no_producer(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 8 : i64, tile.ping_pong = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %a = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<128x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
  tile.store %o[%c0, %c0], %a : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mma>
  tile.return
}
tile.kernel @shared_rows(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.ping_pong = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mman>
  %p = tile.in_producer
  scf.if %p {
  } else {
    %a = tile.warpgroup_dot %q, %kb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mman>
    tile.store %o[%c0, %c0], %a : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mman>
  }
  tile.return
}
