// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pingpong))' | FileCheck %s
// Two compute warpgroups take turns issuing a loop's waited-for dots; layouts,
// encodings and offsets are given in the input (a warp-specialized kernel after
// tile-insert-barriers, its producer branch left out).

// Attention's loop: S = Q K^T, then O += P V with P from registers. Each dot is
// issued in the warpgroup's turn, left in flight while the turn passes, then
// waited for; warpgroup 1 passes the first turn, warpgroup 0 takes the last.
// CHECK-LABEL: tile.kernel @attention
// CHECK: tile.barrier
// CHECK-NEXT: tile.turn_pass only 1
// CHECK-NEXT: scf.for
// CHECK: tile.turn_wait
// CHECK-NEXT: %[[S:.*]] = tile.warpgroup_dot %{{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: %[[SW:.*]] = tile.warpgroup_wait %[[S]] {pendings = 0 : i32}
// CHECK-NEXT: math.exp2 %[[SW]]
// CHECK: tile.turn_wait
// CHECK-NEXT: %[[O:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: %[[OW:.*]] = tile.warpgroup_wait %[[O]] {pendings = 0 : i32}
// CHECK: tile.mbarrier_arrive
// CHECK-NEXT: scf.yield %[[OW]]
// CHECK: tile.turn_wait only 0
// CHECK-NEXT: tile.barrier
#sh = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#shT = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#opa = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @attention(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.pingpong = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %q = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #sh>
  %k = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #shT>
  %v = tile.local_alloc {tile.offset = 24576 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %empty = tile.mbarrier_alloc {arrivals = 256 : i32, tile.offset = 32768 : i64} : !tile.mbarrier<1>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  tile.barrier
  %acc = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %k, %zero : !tile.memdesc<128x64xbf16, #sh>, !tile.memdesc<64x64xbf16, #shT> -> tensor<128x64xf32, #mma>
    %e = math.exp2 %s : tensor<128x64xf32, #mma>
    %h = tile.convert %e : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
    %p = tile.convert_layout %h : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #opa>
    %n = tile.warpgroup_dot %p, %v, %a : tensor<128x64xbf16, #opa>, !tile.memdesc<64x64xbf16, #sh> -> tensor<128x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
    scf.yield %n : tensor<128x64xf32, #mma>
  }
  tile.barrier
  %ob = tile.convert %acc : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
  tile.store %o[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #mma>
  tile.return
}

// -----

// Warpgroups side by side along N share P through shared memory (a block
// barrier in the loop): they cannot take turns, and nothing changes.
// CHECK-LABEL: tile.kernel @along_n
// CHECK-NOT: tile.turn_
// CHECK-NOT: isAsync
#sh = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [64, 32]}>
tile.kernel @along_n(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.pingpong = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %a = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %b = tile.local_alloc {tile.offset = 8192 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%x = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %a, %b, %x : !tile.memdesc<64x64xbf16, #sh>, !tile.memdesc<64x64xbf16, #sh> -> tensor<64x64xf32, #mma>
    tile.barrier
    scf.yield %s : tensor<64x64xf32, #mma>
  }
  %ob = tile.convert %r : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
  tile.store %o[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<64x64xbf16, #mma>
  tile.return
}

// -----

// A block barrier in the loop (a pre-loop write's, or a scratch conversion's)
// would need both warpgroups at once: no turns.
// CHECK-LABEL: tile.kernel @barrier_in_loop
// CHECK-NOT: tile.turn_
#sh = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
tile.kernel @barrier_in_loop(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.pingpong = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %a = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #sh>
  %b = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%x = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    tile.barrier
    %s = tile.warpgroup_dot %a, %b, %x : !tile.memdesc<128x64xbf16, #sh>, !tile.memdesc<64x64xbf16, #sh> -> tensor<128x64xf32, #mma>
    scf.yield %s : tensor<128x64xf32, #mma>
  }
  %ob = tile.convert %r : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
  tile.store %o[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #mma>
  tile.return
}

// -----

// Without the schedule option, or without a producer warpgroup, the pass
// leaves the loop alone; so it does a matmul's accumulating dot left in
// flight across iterations.
// CHECK-LABEL: tile.kernel @not_asked
// CHECK-NOT: tile.turn_
// CHECK-LABEL: tile.kernel @no_producer
// CHECK-NOT: tile.turn_
// CHECK-LABEL: tile.kernel @in_flight
// CHECK-NOT: tile.turn_
#sh = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
tile.kernel @not_asked(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %a = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #sh>
  %b = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%x = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %a, %b, %x : !tile.memdesc<128x64xbf16, #sh>, !tile.memdesc<64x64xbf16, #sh> -> tensor<128x64xf32, #mma>
    scf.yield %s : tensor<128x64xf32, #mma>
  }
  %ob = tile.convert %r : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
  tile.store %o[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #mma>
  tile.return
}
tile.kernel @no_producer(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.pingpong = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %a = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #sh>
  %b = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%x = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %a, %b, %x : !tile.memdesc<128x64xbf16, #sh>, !tile.memdesc<64x64xbf16, #sh> -> tensor<128x64xf32, #mma>
    scf.yield %s : tensor<128x64xf32, #mma>
  }
  %ob = tile.convert %r : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
  tile.store %o[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #mma>
  tile.return
}
tile.kernel @in_flight(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64, tile.pingpong = 1 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %a = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #sh>
  %b = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #sh>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%x = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %a, %b, %x {isAsync} : !tile.memdesc<128x64xbf16, #sh>, !tile.memdesc<64x64xbf16, #sh> -> tensor<128x64xf32, #mma>
    %w = tile.warpgroup_wait %s {pendings = 1 : i32} : tensor<128x64xf32, #mma>
    scf.yield %w : tensor<128x64xf32, #mma>
  }
  %f = tile.warpgroup_wait %r {pendings = 0 : i32} : tensor<128x64xf32, #mma>
  %ob = tile.convert %f : tensor<128x64xf32, #mma> -> tensor<128x64xbf16, #mma>
  tile.store %o[%c0, %c0], %ob : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #mma>
  tile.return
}
