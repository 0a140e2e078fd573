// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-rotate-dots))' | FileCheck %s

// Attention's compute loop after warp specialization: S = Q K^T, the row max
// and its scale factor, P, O = O * alpha + P V, the slot released. Rotated:
// the prologue (guarded by a non-empty range) runs iteration 0's first part
// with its dot waited for; the loop from iteration 1 waits for the P V of
// iteration j - 2 (carried in flight), with the carried alpha and P passed
// through that wait (what reads them runs after it), and releases its slot
// from iteration 2 on, converts the carried P (f32, as the softmax makes it) to the dot's
// operand and updates O, issues S and the previous iteration's P V back to
// back (async, alpha carried, V's slot recomputed from iv - 1), waits for S
// alone (pendings = 1) and runs the softmax; nothing waits after it, P V goes
// round the loop in flight. The epilogue waits for it, releases the slot
// before the last (if there was one) and runs the last iteration's second
// part.
// CHECK-LABEL: tile.kernel @attention
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : i32
// CHECK: %[[R:.*]]:2 = scf.if %[[ANY]]
// CHECK: tile.mbarrier_wait %[[FULL:.*]][%{{.*}}], %{{.*}}
// CHECK: %[[S0:.*]] = tile.warpgroup_dot %[[Q:.*]], %{{.*}}, %{{.*}} :
// CHECK-NOT: isAsync
// CHECK: %[[A0:.*]] = math.exp2
// CHECK: %[[P0:.*]] = math.exp2
// CHECK-NOT: tile.convert
// CHECK-NOT: tile.mbarrier_arrive
// CHECK: %[[FROM:.*]] = arith.addi %[[LB]], %{{.*}} : i32
// CHECK: %[[L:.*]]:4 = scf.for %[[IV:.*]] = %[[FROM]] to %[[UB]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[ALPHA:.*]] = %[[A0]], %[[P:.*]] = %[[P0]])
// CHECK: %[[PREV:.*]] = arith.subi %[[IV]], %{{.*}} : i32
// CHECK: %[[PREV2:.*]] = arith.subi %[[PREV]], %{{.*}} : i32
// CHECK-NEXT: %[[AW:.*]], %[[AWO:.*]]:2 = tile.warpgroup_wait %[[ACC]], %[[ALPHA]], %[[P]] {pendings = 0 : i32}
// CHECK-NEXT: %[[TWO:.*]] = arith.cmpi sge, %[[PREV2]], %[[LB]] : i32
// CHECK-NEXT: scf.if %[[TWO]] {
// CHECK-NEXT: %[[REL2:.*]] = arith.remsi %[[PREV2]], %{{.*}} : i32
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY:.*]][%[[REL2]]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[PH:.*]] = tile.convert %[[AWO]]#1 : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
// CHECK-NEXT: %[[PD:.*]] = tile.convert_layout %[[PH]]
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[AWO]]#0
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[E]]
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[AW]], %[[B]]
// CHECK: tile.mbarrier_wait %[[FULL]]
// CHECK: %[[S:.*]] = tile.warpgroup_dot %[[Q]], %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT: %[[VSLOT:.*]] = arith.remsi %[[PREV]], %{{.*}} : i32
// CHECK-NEXT: %[[V:.*]] = tile.memdesc_index %{{.*}}[%[[VSLOT]]]
// CHECK-NEXT: %[[O:.*]] = tile.warpgroup_dot %[[PD]], %[[V]], %[[U]] {isAsync}
// CHECK: %[[SW:.*]] = tile.warpgroup_wait %[[S]] {pendings = 1 : i32}
// CHECK: tile.reduce max %[[SW]]
// CHECK-NOT: tile.warpgroup_wait
// CHECK-NOT: tile.mbarrier_arrive
// CHECK: scf.yield %{{.*}}, %[[O]], %{{.*}}, %{{.*}} :
// CHECK: %[[LAST:.*]] = arith.addi %[[LB]], %{{.*}} : i32
// CHECK: %[[LW:.*]], %[[LWO:.*]]:2 = tile.warpgroup_wait %[[L]]#1, %[[L]]#2, %[[L]]#3 {pendings = 0 : i32}
// CHECK: %[[BEFORE:.*]] = arith.subi %[[LAST]], %{{.*}} : i32
// CHECK: %[[ANY2:.*]] = arith.cmpi sge, %[[BEFORE]], %[[LB]] : i32
// CHECK: scf.if %[[ANY2]] {
// CHECK: tile.mbarrier_arrive %[[EMPTY]]
// CHECK: }
// CHECK: %[[LE:.*]] = tile.expand_dims %[[LWO]]#0
// CHECK: %[[LB2:.*]] = tile.broadcast %[[LE]]
// CHECK: %[[LU:.*]] = arith.mulf %[[LW]], %[[LB2]]
// CHECK: %[[LPH:.*]] = tile.convert %[[LWO]]#1
// CHECK: %[[LPD:.*]] = tile.convert_layout %[[LPH]]
// CHECK: %[[LSLOT:.*]] = arith.remsi %[[LAST]], %{{.*}} : i32
// CHECK: %[[LV:.*]] = tile.memdesc_index %{{.*}}[%[[LSLOT]]]
// CHECK: %[[LO:.*]] = tile.warpgroup_dot %[[LPD]], %[[LV]], %[[LU]] :
// CHECK: tile.mbarrier_arrive %[[EMPTY]]
// CHECK: scf.yield %[[L]]#0, %[[LO]]
// CHECK: } else {
// CHECK: scf.yield
// CHECK: tile.store %{{.*}}, %[[R]]#1
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#swt = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
#row = #tile.slice<{dim = 1, parent = #mma}>
tile.kernel @attention(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %kb = tile.local_alloc : () -> !tile.memdesc<3x64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<3x64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %full = tile.mbarrier_alloc {arrivals = 2 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%mi = %ninf, %acc = %zero) -> (tensor<64xf32, #row>, tensor<64x64xf32, #mma>) : i32 {
    %slot = arith.remsi %j, %c3 : i32
    %par = arith.divsi %j, %c3 : i32
    tile.mbarrier_wait %full[%slot], %par : !tile.mbarrier<3>
    %ks = tile.memdesc_index %kb[%slot] : !tile.memdesc<3x64x64xbf16, #sw> -> !tile.memdesc<64x64xbf16, #sw>
    %kt = tile.memdesc_trans %ks : !tile.memdesc<64x64xbf16, #sw> -> !tile.memdesc<64x64xbf16, #swt>
    %vs = tile.memdesc_index %vb[%slot] : !tile.memdesc<3x64x64xbf16, #sw> -> !tile.memdesc<64x64xbf16, #sw>
    %s = tile.warpgroup_dot %q, %kt, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #swt> -> tensor<64x64xf32, #mma>
    %mx = tile.reduce max %s axis 1 : tensor<64x64xf32, #mma> -> tensor<64xf32, #row>
    %mn = arith.maximumf %mi, %mx : tensor<64xf32, #row>
    %d = arith.subf %mi, %mn : tensor<64xf32, #row>
    %alpha = math.exp2 %d : tensor<64xf32, #row>
    %e = tile.expand_dims %mn axis 1 : tensor<64xf32, #row> -> tensor<64x1xf32, #mma>
    %eb = tile.broadcast %e : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %sd = arith.subf %s, %eb : tensor<64x64xf32, #mma>
    %p = math.exp2 %sd : tensor<64x64xf32, #mma>
    %ae = tile.expand_dims %alpha axis 1 : tensor<64xf32, #row> -> tensor<64x1xf32, #mma>
    %ab = tile.broadcast %ae : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %scaled = arith.mulf %acc, %ab : tensor<64x64xf32, #mma>
    %ph = tile.convert %p : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vs, %scaled : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %rel = arith.remsi %j, %c3 : i32
    tile.mbarrier_arrive %empty[%rel] : !tile.mbarrier<3>
    scf.yield %mn, %next : tensor<64xf32, #row>, tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r#1 : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// Not asked for (no tile.rotate_dots): unchanged.
// CHECK-LABEL: tile.kernel @not_asked
// CHECK: scf.for
// CHECK-NOT: isAsync
// CHECK-NOT: tile.warpgroup_wait
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @not_asked(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// A block barrier in the loop (P through shared memory): unchanged.
// CHECK-LABEL: tile.kernel @barrier
// CHECK: scf.for
// CHECK-NOT: isAsync
// CHECK: tile.barrier
// CHECK-NOT: tile.warpgroup_wait
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @barrier(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    tile.barrier
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// No slot released in the loop (not a warp-specialized compute loop), and a
// loop with one dot (matmul): unchanged.
// CHECK-LABEL: tile.kernel @no_release
// CHECK-NOT: isAsync
// CHECK-NOT: tile.warpgroup_wait
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @no_release(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32, #mma>) : i32 {
    %next = tile.warpgroup_dot %q, %vb, %acc : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r2 : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// The smallest loop that is rotated (the accumulator feeds the dot directly,
// a ring of three slots), then three that are not: an unsigned loop (the
// guard and the last iteration are signed), a ring of two slots (a release
// two iterations late would wait behind the producer's own copy), a barrier
// wait after the release (it may need that release).
// CHECK-LABEL: tile.kernel @three_slots
// CHECK: scf.if
// CHECK: scf.for
// CHECK: tile.warpgroup_wait {{.*}} {pendings = 0 : i32}
// CHECK: tile.mbarrier_arrive
// CHECK: tile.warpgroup_dot {{.*}} {isAsync}
// CHECK: tile.warpgroup_dot {{.*}} {isAsync}
// CHECK: tile.warpgroup_wait {{.*}} {pendings = 1 : i32}
// CHECK: scf.yield
// CHECK: tile.warpgroup_wait {{.*}} {pendings = 0 : i32}
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @three_slots(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @unsigned_loop
// CHECK-NOT: isAsync
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @unsigned_loop(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for unsigned %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @two_slots
// CHECK-NOT: isAsync
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @two_slots(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<2>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<2>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @wait_after_release
// CHECK-NOT: isAsync
// CHECK: tile.return
#mma = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#dot = #tile.dot_op<{opIdx = 0, parent = #mma}>
tile.kernel @wait_after_release(%o: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 4 : i64, tile.rotate_dots = 1 : i64} grid {
^bb0(%z: !tile.tensor<?x?xf32>, %m: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %vb = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %empty = tile.mbarrier_alloc {arrivals = 128 : i32} : !tile.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.warpgroup_dot %q, %vb, %zero : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %ph = tile.convert %s : tensor<64x64xf32, #mma> -> tensor<64x64xbf16, #mma>
    %pd = tile.convert_layout %ph : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot>
    %next = tile.warpgroup_dot %pd, %vb, %acc : tensor<64x64xbf16, #dot>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    tile.mbarrier_wait %empty[%c0], %c0 : !tile.mbarrier<3>
    scf.yield %next : tensor<64x64xf32, #mma>
  }
  tile.store %o[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  tile.return
}
