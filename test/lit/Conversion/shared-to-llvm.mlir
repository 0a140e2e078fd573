// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// The shared-memory ops, with their layouts, encodings and offsets given in
// the input (no layout or allocation pass runs first).

// A buffer at its offset, stored with 16-byte vectors; read back as a
// K-contiguous A operand with plain ldmatrix.x4 and as a K^T-style B operand
// (the transposed view: K contiguous) with plain ldmatrix too.
// CHECK-LABEL: llvm.func @stage
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @tessera_smem
// CHECK: llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#sharedT = #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @stage(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 16384 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %x = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #blocked>
  %m = tile.local_alloc %x {tile.offset = 0 : i64} : (tensor<128x64xbf16, #blocked>) -> !tile.memdesc<128x64xbf16, #shared>
  tile.barrier
  %l = tile.local_load %m : !tile.memdesc<128x64xbf16, #shared> -> tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>
  %t = tile.memdesc_trans %m : !tile.memdesc<128x64xbf16, #shared> -> !tile.memdesc<64x128xbf16, #sharedT>
  tile.barrier
  %b = tile.local_load %t : !tile.memdesc<64x128xbf16, #sharedT> -> tensor<64x128xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  %d = tile.dot %l, %b, %acc : tensor<128x64xbf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>, tensor<64x128xbf16, #tile.dot_op<{opIdx = 1, parent = #mma}>> -> tensor<128x128xf32, #mma>
  %db = tile.convert %d : tensor<128x128xf32, #mma> -> tensor<128x128xbf16, #mma>
  tile.store %a[%c0, %c0], %db : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #mma>
  tile.return
}

// -----

// A padded tile's copy: the column origin is the block coordinate times the
// extent (96), and a run past the extent is masked off (zero fill) like one
// outside the tensor.
// CHECK-LABEL: llvm.func @copy_extents
// CHECK: %[[E:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: llvm.mul %{{.*}}, %[[E]] : i32
// CHECK: %[[E2:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: llvm.icmp "slt" %{{.*}}, %[[E2]] : i32
// CHECK: nvvm.cp.async.shared.global
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @copy_extents(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 16384 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %slot = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<64x128xbf16, #s>
  tile.async_copy %a[%c1, %c1], %slot {extents = array<i64: 64, 96>, layout = #b, vec = 8 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #s>
  tile.async_commit_group
  tile.async_wait 0
  tile.return
}

// -----

// Asynchronous copies: 16-byte cp.async.cg with a source size of 0 when the
// element run is masked off (zero fill), a slot of a 3-slot buffer at 16 KiB
// steps, commit and wait groups, and ldmatrix.trans for an N-contiguous B.
// CHECK-LABEL: llvm.func @copy
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[SZ:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg, %[[SZ]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @copy(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 49152 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x128xbf16, #s>
  %slot = tile.memdesc_index %buf[%c1] : !tile.memdesc<3x64x128xbf16, #s> -> !tile.memdesc<64x128xbf16, #s>
  tile.async_copy %a[%c1, %c0], %slot {layout = #b, vec = 8 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x128xbf16, #s>
  tile.async_commit_group
  tile.async_wait 0
  tile.barrier
  %v = tile.local_load %slot : !tile.memdesc<64x128xbf16, #s> -> tensor<64x128xbf16, #tile.dot_op<{opIdx = 1, parent = #m}>>
  %h = arith.constant 1.0 : bf16
  %p = tile.splat %h : tensor<64x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m}>>
  %acc = arith.constant dense<0.0> : tensor<64x128xf32, #m>
  %d = tile.dot %p, %v, %acc : tensor<64x64xbf16, #tile.dot_op<{opIdx = 0, parent = #m}>>, tensor<64x128xbf16, #tile.dot_op<{opIdx = 1, parent = #m}>> -> tensor<64x128xf32, #m>
  %db = tile.convert %d : tensor<64x128xf32, #m> -> tensor<64x128xbf16, #m>
  tile.store %a[%c0, %c0], %db : !tile.tensor<?x?xbf16>, tensor<64x128xbf16, #m>
  tile.return
}

// -----

// An asynchronous gather: per run of 8 elements, the address from the index
// tiles (64-bit offsets, one unsigned bounds compare per axis), the mask, and
// a 16-byte cp.async whose source size is 0 where the run is out of bounds or
// masked off; the destinations are the block copy's. 64x128 bf16 over 128
// threads: 8 runs per thread.
// CHECK-LABEL: llvm.func @gather_copy
// CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// CHECK: %[[SZ:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg, %[[SZ]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-7: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
tile.kernel @gather_copy(%a: !tile.tensor<?x?xbf16>, %rows: !tile.tensor<?xi32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 49152 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c1 = arith.constant 1 : i32
  %true = arith.constant true
  %buf = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<3x64x128xbf16, #s>
  %slot = tile.memdesc_index %buf[%c1] : !tile.memdesc<3x64x128xbf16, #s> -> !tile.memdesc<64x128xbf16, #s>
  %r = tile.arange : tensor<64xi32, #tile.slice<{dim = 1, parent = #b}>>
  %r2 = tile.expand_dims %r axis 1 : tensor<64xi32, #tile.slice<{dim = 1, parent = #b}>> -> tensor<64x1xi32, #b>
  %ri = tile.broadcast %r2 : tensor<64x1xi32, #b> -> tensor<64x128xi32, #b>
  %c = tile.arange : tensor<128xi32, #tile.slice<{dim = 0, parent = #b}>>
  %c2 = tile.expand_dims %c axis 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #b}>> -> tensor<1x128xi32, #b>
  %ci = tile.broadcast %c2 : tensor<1x128xi32, #b> -> tensor<64x128xi32, #b>
  %m = tile.splat %true : tensor<64x128xi1, #b>
  tile.async_gather %a[%ri, %ci], %slot mask %m : tensor<64x128xi1, #b> if %true {vec = 8 : i32} : !tile.tensor<?x?xbf16>[tensor<64x128xi32, #b>, tensor<64x128xi32, #b>], !tile.memdesc<64x128xbf16, #s>
  tile.async_commit_group
  tile.return
}
