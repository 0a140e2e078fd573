// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// The shared-memory ops and types print and parse back to themselves.

// CHECK-DAG: #[[S:.*]] = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
// CHECK-DAG: #[[T:.*]] = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
// CHECK-DAG: #[[P:.*]] = #tile.shared<{swizzle = 0, vec = 4, order = [1, 0]}>
// CHECK-LABEL: tile.kernel @pipeline
// CHECK: %[[BUF:.*]] = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x128xbf16, #[[S]]>
// CHECK: %[[SLOT:.*]] = tile.memdesc_index %[[BUF]][%{{.*}}] : !tile.memdesc<3x64x128xbf16, #[[S]]> -> !tile.memdesc<64x128xbf16, #[[S]]>
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[SLOT]] if %{{.*}} {layout = #{{.*}}, vec = 8 : i32} : <?x?xbf16>, !tile.memdesc<64x128xbf16, #[[S]]>
// CHECK: tile.async_commit_group
// CHECK: tile.async_wait 1
// CHECK: tile.barrier
// CHECK: %[[KT:.*]] = tile.memdesc_trans %[[SLOT]] : !tile.memdesc<64x128xbf16, #[[S]]> -> !tile.memdesc<128x64xbf16, #[[T]]>
// CHECK: tile.local_load %[[KT]] : !tile.memdesc<128x64xbf16, #[[T]]> -> tensor<128x64xbf16, #{{.*}}>
// CHECK: %[[M:.*]] = tile.local_alloc %{{.*}} : (tensor<64x64xf32, #{{.*}}>) -> !tile.memdesc<64x64xf32, #[[P]]>
// CHECK: tile.local_store %{{.*}}, %[[M]] : tensor<64x64xf32, #{{.*}}>, !tile.memdesc<64x64xf32, #[[P]]>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#fblocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#sharedT = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
#plain = #tile.shared<{swizzle = 0, vec = 4, order = [1, 0]}>
tile.kernel @pipeline(%k: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %f = arith.constant 1.0 : f32
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x128xbf16, #shared>
  %slot = tile.memdesc_index %buf[%c0] : !tile.memdesc<3x64x128xbf16, #shared> -> !tile.memdesc<64x128xbf16, #shared>
  tile.async_copy %k[%c0, %c0], %slot if %true {layout = #blocked, vec = 8 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #shared>
  tile.async_commit_group
  tile.async_wait 1
  tile.barrier
  %kt = tile.memdesc_trans %slot : !tile.memdesc<64x128xbf16, #shared> -> !tile.memdesc<128x64xbf16, #sharedT>
  %b = tile.local_load %kt : !tile.memdesc<128x64xbf16, #sharedT> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>>
  %t = tile.splat %f : tensor<64x64xf32, #fblocked>
  %m = tile.local_alloc %t : (tensor<64x64xf32, #fblocked>) -> !tile.memdesc<64x64xf32, #plain>
  tile.local_store %t, %m : tensor<64x64xf32, #fblocked>, !tile.memdesc<64x64xf32, #plain>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @tma
// CHECK-SAME: tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]
// CHECK: %[[BARS:.*]] = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<3>
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %[[BARS]][%{{.*}}] if %{{.*}} {map = 0 : i32} : <?x?xbf16>, !tile.memdesc<64x128xbf16, #{{.*}}>, !tile.mbarrier<3>
// CHECK: tile.mbarrier_wait %[[BARS]][%{{.*}}], %{{.*}} : !tile.mbarrier<3>
// CHECK: %[[P:.*]] = tile.in_producer
// CHECK: scf.if %[[P]]
// CHECK: tile.set_max_registers {count = 40 : i32}
// CHECK: tile.set_max_registers {count = 232 : i32, increase}
// CHECK: tile.mbarrier_arrive %[[BARS]][%{{.*}}] : !tile.mbarrier<3>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @tma(%k: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<3>
  %buf = tile.local_alloc : () -> !tile.memdesc<3x64x128xbf16, #shared>
  %slot = tile.memdesc_index %buf[%c0] : !tile.memdesc<3x64x128xbf16, #shared> -> !tile.memdesc<64x128xbf16, #shared>
  tile.tma_copy %k[%c0, %c0], %slot, %bars[%c0] if %true {map = 0 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #shared>, !tile.mbarrier<3>
  tile.mbarrier_wait %bars[%c0], %c0 : !tile.mbarrier<3>
  %p = tile.in_producer
  scf.if %p {
    tile.set_max_registers {count = 40 : i32}
  } else {
    tile.set_max_registers {count = 232 : i32, increase}
    tile.mbarrier_arrive %bars[%c0] : !tile.mbarrier<3>
  }
  tile.return
}

// -----

// A kernel in clusters of 2: a multicast copy, a cluster-wide arrival, the
// cluster barrier.
// CHECK-LABEL: tile.kernel @cluster
// CHECK: tile.cluster_barrier
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] {map = 0 : i32, multicast = 2 : i32} : <?x?xbf16>, !tile.memdesc<64x128xbf16, #{{.*}}>, !tile.mbarrier<3>
// CHECK: tile.mbarrier_arrive %{{.*}}[%{{.*}}] {cluster = 2 : i32} : !tile.mbarrier<3>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @cluster(%k: !tile.tensor<?x?xbf16>) attributes {tile.cluster_dims = array<i64: 2, 1, 1>, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 2 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<3>
  %empty = tile.mbarrier_alloc {arrivals = 8 : i32} : !tile.mbarrier<3>
  tile.cluster_barrier
  %buf = tile.local_alloc : () -> !tile.memdesc<3x64x128xbf16, #shared>
  %slot = tile.memdesc_index %buf[%c0] : !tile.memdesc<3x64x128xbf16, #shared> -> !tile.memdesc<64x128xbf16, #shared>
  tile.tma_copy %k[%c0, %c0], %slot, %bars[%c0] {map = 0 : i32, multicast = 2 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #shared>, !tile.mbarrier<3>
  tile.mbarrier_arrive %empty[%c0] {cluster = 2 : i32} : !tile.mbarrier<3>
  tile.cluster_barrier
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @gather_copy
// CHECK: tile.async_gather %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} mask %{{.*}} : tensor<64x64xi1, #{{.*}}> if %{{.*}} {vec = 8 : i32} : <?x?xbf16>[tensor<64x64xi32, #{{.*}}>, tensor<64x64xi32, #{{.*}}>], !tile.memdesc<64x64xbf16, #{{.*}}>
#gb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @gather_copy(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %true = arith.constant true
  %i = arith.constant dense<0> : tensor<64x64xi32, #gb>
  %k = arith.constant dense<true> : tensor<64x64xi1, #gb>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.async_gather %x[%i, %i], %m mask %k : tensor<64x64xi1, #gb> if %true {vec = 8 : i32} : !tile.tensor<?x?xbf16>[tensor<64x64xi32, #gb>, tensor<64x64xi32, #gb>], !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @tma_store
// CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<2x64x64xbf16, #{{.*}}>
// CHECK: tile.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %[[BUF]] {map = 0 : i32} : <?x?xbf16>, tensor<64x128xbf16, #{{.*}}>, !tile.memdesc<2x64x64xbf16, #{{.*}}>
// CHECK: tile.tma_store_wait %[[BUF]] : !tile.memdesc<2x64x64xbf16, #{{.*}}>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @tma_store(%k: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %buf = tile.local_alloc : () -> !tile.memdesc<2x64x64xbf16, #shared>
  %v = arith.constant dense<1.0> : tensor<64x128xbf16, #mma>
  tile.tma_store %k[%c0, %c0], %v, %buf {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x128xbf16, #mma>, !tile.memdesc<2x64x64xbf16, #shared>
  tile.tma_store_wait %buf : !tile.memdesc<2x64x64xbf16, #shared>
  tile.return
}

// -----

// The turns of a warp-specialized kernel's compute warpgroups.
// CHECK-LABEL: tile.kernel @turns
// CHECK: tile.turn_begin
// CHECK-NEXT: tile.turn_wait
// CHECK-NEXT: tile.turn_pass
// CHECK-NEXT: tile.turn_end
tile.kernel @turns(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  tile.turn_begin
  tile.turn_wait
  tile.turn_pass
  tile.turn_end
  tile.return
}

// -----

// Warpgroup dots and their waits; a wait may order f32 tiles after it.
// CHECK-LABEL: tile.kernel @warpgroup_waits
// CHECK: %[[D:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
// CHECK: %[[W:.*]] = tile.warpgroup_wait %[[D]] {pendings = 1 : i32} : tensor<64x64xf32, #mma>
// CHECK: %{{.*}}, %{{.*}}:2 = tile.warpgroup_wait %[[W]], %[[P:.*]], %[[P]] {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
#sw = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mw = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @warpgroup_waits() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sw>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #mw>
  %p = arith.constant dense<1.0> : tensor<64x64xf32, #mw>
  %d = tile.warpgroup_dot %a, %a, %acc {isAsync} : !tile.memdesc<64x64xbf16, #sw>, !tile.memdesc<64x64xbf16, #sw> -> tensor<64x64xf32, #mw>
  %w = tile.warpgroup_wait %d {pendings = 1 : i32} : tensor<64x64xf32, #mw>
  %x:3 = tile.warpgroup_wait %w, %p, %p {pendings = 0 : i32} : tensor<64x64xf32, #mw>, tensor<64x64xf32, #mw>, tensor<64x64xf32, #mw> -> tensor<64x64xf32, #mw>, tensor<64x64xf32, #mw>
  tile.return
}
