// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// TMA copies and transaction barriers, with encodings, offsets and the
// kernel's tensor maps given in the input (no pipelining or allocation pass
// runs first).

// The tensor map becomes a trailing 128-byte __grid_constant__ parameter.
// Thread 0 initialises the three barriers (one arrival each), fences the
// initialisation and the block synchronises. A [64, 128] bf16 slot with the
// 128-byte swizzle is two 64-column boxes, 8192 bytes apart: one arrival
// expecting 16384 bytes, two copies whose coordinates run innermost first
// (columns, rows, then the leading axes' indices, reversed). The wait loops on
// the phase parity.
// CHECK-LABEL: llvm.func @tma
// CHECK-SAME: %[[MAP:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 1, 1, 64, 64>, swizzle = 128 : i64}]
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]]
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %[[FIRST]]
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[ISSUE:.*]] = llvm.and %{{.*}}, %{{.*}} : i1
// CHECK: %[[BAR:.*]] = llvm.getelementptr
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16384 : i32)
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[BYTES]], predicate = %[[ISSUE]]
// CHECK: %[[ROW0:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[COL0:.*]] = llvm.mul
// CHECK: %[[C0:.*]] = llvm.add %[[COL0]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %[[BAR]], box[%[[C0]], %[[ROW0]], %[[H:.*]], %[[B:.*]]] predicate = %[[ISSUE]]
// CHECK: %[[C1:.*]] = llvm.add %[[COL0]]
// CHECK: %[[OFF1:.*]] = llvm.mlir.constant(8192 : i32)
// CHECK: %[[DST1:.*]] = llvm.getelementptr %{{.*}}[%[[OFF1]]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST1]], %[[MAP]], %[[BAR]], box[%[[C1]], %[[ROW0]], %[[H]], %[[B]]] predicate = %[[ISSUE]]
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %arg12, %{{.*}} : !llvm.ptr<3>, i32, i32
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @tma(%a: !tile.tensor<?x?x?x?xbf16>, %b: i32, %h: i32, %j: i32, %p: i1, %phase: i32) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 50176 : i64, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 1, 1, 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?x?x?xbf16>, %y: i32, %z: i32, %w: i32, %v: i1, %u: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32, tile.offset = 49152 : i64} : !tile.mbarrier<3>
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x128xbf16, #shared>
  %slot = tile.memdesc_index %buf[%c1] : !tile.memdesc<3x64x128xbf16, #shared> -> !tile.memdesc<64x128xbf16, #shared>
  tile.tma_copy %a[%b, %h, %j, %c0], %slot, %bars[%c1] if %p {map = 0 : i32} : !tile.tensor<?x?x?x?xbf16>, !tile.memdesc<64x128xbf16, #shared>, !tile.mbarrier<3>
  tile.mbarrier_wait %bars[%c1], %phase : !tile.mbarrier<3>
  tile.return
}

// -----

// A warp-specialized kernel: 4 compute warps and 4 producer warps launch 256
// threads; with registers moved the block holds the whole register file
// (.maxnreg 65536 / 256 = 256, rounded to 8: 256). A thread is a producer from
// thread 128 on; the first producer thread issues the copies; compute warps
// arrive on a barrier and synchronise among themselves (named barrier 1, 128
// threads).
// CHECK-LABEL: llvm.func @split
// CHECK-SAME: nvvm.maxnreg = 256 : i32, nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
// CHECK: llvm.icmp "uge" %{{.*}}, %[[C128]]
// CHECK: nvvm.setmaxregister decrease 40
// `in_producer leader`: the first producer thread runs the copies.
// CHECK: %[[LEAD:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.cond_br %[[LEAD]]
// CHECK: %[[FIRSTP:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}}, predicate = %[[FIRSTP]]
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @split(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.producer_warps = 4 : i64, tile.shared_bytes = 16448 : i64, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32, tile.offset = 16384 : i64} : !tile.mbarrier<1>
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<64x128xbf16, #shared>
  %p = tile.in_producer
  scf.if %p {
    tile.set_max_registers {count = 40 : i32}
    %l = tile.in_producer leader
    scf.if %l {
      tile.tma_copy %a[%c0, %c0], %buf, %bars[%c0] {map = 0 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #shared>, !tile.mbarrier<1>
    }
  } else {
    tile.set_max_registers {count = 232 : i32, increase}
    tile.mbarrier_arrive %bars[%c0] : !tile.mbarrier<1>
    tile.barrier
  }
  tile.return
}

// -----

// Turns of two compute warpgroups (8 compute warps, 4 producer warps). The
// warpgroup is the thread index over 128. The last warpgroup (1) gives
// warpgroup 0 the first turn on named barrier 2; a wait syncs 256 threads on
// barrier 2 + g; a pass arrives on barrier 2 + (g + 1) % 2; warpgroup 0 takes
// back the last turn on barrier 2.
// CHECK-LABEL: llvm.func @turns
// CHECK: llvm.icmp "uge"
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[G:.*]] = llvm.udiv %[[TID]], %{{.*}} : i32
// CHECK: %[[LAST:.*]] = llvm.icmp "eq" %[[G]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[LAST]]
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: %[[TID2:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[G2:.*]] = llvm.udiv %[[TID2]], %{{.*}} : i32
// CHECK: %[[ID:.*]] = llvm.add %[[G2]], %{{.*}} : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %{{.*}}
// CHECK: %[[G3:.*]] = llvm.udiv
// CHECK: %[[N:.*]] = llvm.add %[[G3]], %{{.*}} : i32
// CHECK: %[[NEXT:.*]] = llvm.urem %[[N]], %{{.*}} : i32
// CHECK: %[[ID2:.*]] = llvm.add %[[NEXT]], %{{.*}} : i32
// CHECK: nvvm.barrier.arrive id = %[[ID2]] number_of_threads = %{{.*}}
// CHECK: %[[G4:.*]] = llvm.udiv
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[G4]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[FIRST]]
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
tile.kernel @turns(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %p = tile.in_producer
  scf.if %p {
  } else {
    tile.turn_begin
    tile.turn_wait
    tile.turn_pass
    tile.turn_end
  }
  tile.return
}

// -----

// A kernel in clusters of 2: `.reqnctapercluster` through nvvm.cluster_dim.
// The cluster barrier is barrier.cluster arrive (relaxed) and wait, by
// every thread.
// The multicast copy expects the whole slot on the program's own barrier and
// issues the column blocks of its rank (block 0 by rank 0, block 1 by rank 1)
// with the mask of both programs. The cluster arrival: lanes 0 and 1 of each
// warp map the barrier into the cluster's programs 0 and 1 and arrive there.
// CHECK-LABEL: llvm.func @cluster
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16384 : i32)
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %[[BYTES]], predicate = %[[ISSUE:[^ ]*]]
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: %[[IS0:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}}
// CHECK-NEXT: %[[MINE0:.*]] = llvm.and %[[ISSUE]], %[[IS0]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]] predicate = %[[MINE0]]
// CHECK: %[[R1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[IS1:.*]] = llvm.icmp "eq" %[[RANK]], %[[R1]]
// CHECK-NEXT: %[[MINE1:.*]] = llvm.and %[[ISSUE]], %[[IS1]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]] predicate = %[[MINE1]]
// CHECK: %[[LANE:.*]] = llvm.urem
// CHECK: %[[SIGNALS:.*]] = llvm.icmp "ult" %[[LANE]]
// CHECK: llvm.cond_br %[[SIGNALS]]
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %[[LANE]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: llvm.return
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @cluster(%a: !tile.tensor<?x?xbf16>, %i: i32, %k: i32) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 16464 : i64, tile.cluster_dims = array<i64: 2, 1, 1>, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: i32, %z: i32):
  %two = arith.constant 2 : i32
  tile.yield %two : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32, tile.offset = 16384 : i64} : !tile.mbarrier<1>
  %empty = tile.mbarrier_alloc {arrivals = 8 : i32, tile.offset = 16392 : i64} : !tile.mbarrier<1>
  tile.cluster_barrier
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<64x128xbf16, #shared>
  tile.tma_copy %a[%k, %i], %buf, %bars[%c0] {map = 0 : i32, multicast = 2 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #shared>, !tile.mbarrier<1>
  tile.mbarrier_wait %bars[%c0], %c0 : !tile.mbarrier<1>
  tile.mbarrier_arrive %empty[%c0] {cluster = 2 : i32} : !tile.mbarrier<1>
  tile.cluster_barrier
  tile.return
}
