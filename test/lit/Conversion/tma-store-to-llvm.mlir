// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// TMA stores of an accumulator, with encodings, offsets and the kernel's
// tensor maps given in the input (tile-tma-store and the allocation do not
// run first).

// A [64, 128] bf16 wgmma accumulator in two 64-column windows, two slots of
// 8192 bytes: per window, wait until at most one group still reads, a
// barrier, the window's stores to shared memory (two halves at a time), the
// proxy fence, a barrier, thread 0's store of the box at (col0 + 64 w, row0)
// and a commit. The wait at the end completes every group.
// CHECK-LABEL: llvm.func @store
// CHECK-SAME: %[[MAP:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[ISSUE:.*]] = llvm.icmp "eq" %[[TID]]
// CHECK: %[[ROW0:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[COL0:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[C0:.*]] = llvm.add %[[COL0]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%[[C0]], %[[ROW0]]], predicate = %[[ISSUE]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[C1:.*]] = llvm.add %[[COL0]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%[[C1]], %[[ROW0]]], predicate = %[[ISSUE]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: {read}
// CHECK: llvm.return
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @store(%c: !tile.tensor<?x?xbf16>, %i: i32, %j: i32) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 16384 : i64, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: i32, %z: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<2x64x64xbf16, #shared>
  %v = arith.constant dense<1.0> : tensor<64x128xbf16, #mma3>
  tile.tma_store %c[%i, %j], %v, %buf {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x128xbf16, #mma3>, !tile.memdesc<2x64x64xbf16, #shared>
  tile.tma_store_wait %buf : !tile.memdesc<2x64x64xbf16, #shared>
  tile.return
}

// -----

// In a warp-specialized kernel the barriers are the compute warps' (named
// barrier 1, 128 threads). A window of two boxes (f32, 64 columns): two
// stores from the slot, 8192 bytes apart, at columns col0 and col0 + 32.
// CHECK-LABEL: llvm.func @split
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %[[SRC0:.*]], box[%{{.*}}, %{{.*}}]
// CHECK: %[[OFF:.*]] = llvm.mlir.constant(8192 : i32)
// CHECK: llvm.getelementptr %{{.*}}[%[[OFF]]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
#shared = #tile.shared<{swizzle = 128, vec = 4, order = [1, 0]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
tile.kernel @split(%c: !tile.tensor<?x?xf32>, %i: i32) attributes {tile.num_warps = 4 : i64, tile.producer_warps = 4 : i64, tile.shared_bytes = 16384 : i64, tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 128 : i64}]} grid {
^bb0(%x: !tile.tensor<?x?xf32>, %y: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<1x64x64xf32, #shared>
  %v = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
  tile.tma_store %c[%i, %i], %v, %buf {map = 0 : i32} : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>, !tile.memdesc<1x64x64xf32, #shared>
  tile.tma_store_wait %buf : !tile.memdesc<1x64x64xf32, #shared>
  tile.return
}
