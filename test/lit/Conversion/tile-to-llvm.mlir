// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{arch=sm_80},tile-stage-operands,tile-allocate-shared,tile-insert-barriers),convert-tile-to-llvm)' | FileCheck %s

// The kernel ABI: a tensor is a global pointer, i32 extents and i64 strides (all
// but the last); a bool scalar travels as i8. Launch bounds from num_warps.
// CHECK-LABEL: llvm.func @abi(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: i8)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: llvm.trunc %{{.*}} : i8 to i1
// CHECK: nvvm.read.ptx.sreg.ctaid.y
tile.kernel @abi(%x: !tile.tensor<?x?xf32>, %s: f32, %p: i1) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: f32, %c: i1):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %pid = tile.program_id 1
  %c0 = arith.constant 0 : i32
  %v = arith.select %p, %s, %s : f32
  %t = tile.load %x[%pid, %c0] : !tile.tensor<?x?xf32> -> tensor<1024xf32>
  %vs = tile.splat %v : tensor<1024xf32>
  %u = arith.mulf %t, %vs : tensor<1024xf32>
  tile.store %x[%pid, %c0], %u : !tile.tensor<?x?xf32>, tensor<1024xf32>
  tile.return
}

// -----

// Loads and stores: bounds masks per element, 16-byte predicated accesses with
// the pad moved in first; element-wise math per element.
// CHECK-LABEL: llvm.func @memory
// CHECK: llvm.icmp "slt"
// CHECK: llvm.inline_asm has_side_effects {{.*}}"{\0A .reg .pred p;\0A setp.ne.b32 p, $5, 0;\0A mov.b32 $0, $6;{{.*}}@p ld.global.v4.b32 {$0, $1, $2, $3}, [$4];
// CHECK: ex2.approx.ftz.f32
// CHECK: @p st.global.v4.b32 [$1], {$2, $3, $4, $5};
tile.kernel @memory(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %pid = tile.program_id 0
  %pad = arith.constant 1.0 : f32
  %t = tile.load %x[%pid] pad %pad : !tile.tensor<?xf32> -> tensor<2048xf32>
  %e = math.exp %t : tensor<2048xf32>
  tile.store %y[%pid], %e : !tile.tensor<?xf32>, tensor<2048xf32>
  tile.return
}

// -----

// Without the alignment assumption, every element is its own access.
// CHECK-LABEL: llvm.func @unaligned
// CHECK-NOT: ld.global.v4
// CHECK: @p ld.global.b32
tile.kernel @unaligned(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64, tile.aligned = false} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %pid = tile.program_id 0
  %t = tile.load %x[%pid] : !tile.tensor<?xf32> -> tensor<2048xf32>
  tile.store %x[%pid], %t : !tile.tensor<?xf32>, tensor<2048xf32>
  tile.return
}

// -----

// A row reduction over 4 warps: in-thread, 5 butterfly shuffles, then the
// partials through its scratch with a barrier between writes and reads (no
// barrier before: nothing used shared memory earlier).
// CHECK-LABEL: llvm.mlir.global external @tessera_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @rowsum
// CHECK-SAME: tile.shared_bytes = 16
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
tile.kernel @rowsum(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<4096xf32>
  %s = tile.reduce sum %t axis 0 : tensor<4096xf32> -> f32
  tile.store %x[%c0], %s : !tile.tensor<?xf32>, f32
  tile.return
}

// -----

// A bf16 dot on tensor cores: operands staged through shared memory, then
// mma.sync m16n8k16 with f32 accumulation.
// CHECK-LABEL: llvm.func @mma
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
tile.kernel @mma(%a: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
  %d = tile.dot %ta, %tb, %zero : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %c[%c0, %c0], %d : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// An f32 dot uses fused multiply-adds.
// CHECK-LABEL: llvm.func @fma
// CHECK-NOT: mma.sync
// CHECK: llvm.intr.fma
tile.kernel @fma(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<32x8xf32>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<8x32xf32>
  %d = tile.dot %ta, %tb, %zero : tensor<32x8xf32>, tensor<8x32xf32> -> tensor<32x32xf32>
  tile.store %a[%c0, %c0], %d : !tile.tensor<?x?xf32>, tensor<32x32xf32>
  tile.return
}

// -----

// A loop carries its tile as a struct of per-thread elements.
// CHECK-LABEL: llvm.func @loop
// CHECK: llvm.br ^bb1({{.*}} : i32, !llvm.struct<(f32, f32, f32, f32)>)
tile.kernel @loop(%x: !tile.tensor<?xf32>, %n: i32) attributes {tile.num_warps = 1 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: i32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) : i32 {
    %t = tile.load %x[%i] : !tile.tensor<?xf32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %x[%c0], %r : !tile.tensor<?xf32>, tensor<128xf32>
  tile.return
}


// -----

// Replicas do not store: a reduction result (a slice layout) is written only by
// the threads at position 0 along the reduced axis, a scalar by thread 0.
// CHECK-LABEL: llvm.func @owners
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.icmp "eq"
// CHECK: st.global
tile.kernel @owners(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32>
  %r = tile.reduce sum %t axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  tile.store %y[%c0], %r : !tile.tensor<?xf32>, tensor<64xf32>
  %s = tile.reduce sum %r axis 0 : tensor<64xf32> -> f32
  tile.store %y[%c0], %s : !tile.tensor<?xf32>, f32
  tile.return
}

// -----

// Float % is exact: libdevice's fmodf.
// CHECK-LABEL: llvm.func @__nv_fmodf(f32, f32) -> f32
// CHECK-LABEL: llvm.func @rem
// CHECK: llvm.call @__nv_fmodf
tile.kernel @rem(%x: !tile.tensor<?xf32>, %d: f32) attributes {tile.num_warps = 1 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: f32):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<32xf32>
  %ds = tile.splat %d : tensor<32xf32>
  %r = arith.remf %t, %ds : tensor<32xf32>
  tile.store %x[%c0], %r : !tile.tensor<?xf32>, tensor<32xf32>
  tile.return
}

// -----

// A bf16 fma runs in f32 and is rounded back once; an f32 one is llvm.fma.
// CHECK-LABEL: llvm.func @fma_bf16
// CHECK: [[A:%[0-9]+]] = llvm.fpext {{.*}} : bf16 to f32
// CHECK: [[B:%[0-9]+]] = llvm.fpext {{.*}} : bf16 to f32
// CHECK: [[C:%[0-9]+]] = llvm.fpext {{.*}} : bf16 to f32
// CHECK: [[F:%[0-9]+]] = llvm.intr.fma([[A]], [[B]], [[C]]) : (f32, f32, f32) -> f32
// CHECK: llvm.fptrunc [[F]] : f32 to bf16
// CHECK: llvm.intr.fma({{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.return
tile.kernel @fma_bf16(%x: !tile.tensor<?xbf16>, %y: !tile.tensor<?xf32>) attributes {tile.num_warps = 1 : i64} grid {
^bb0(%a: !tile.tensor<?xbf16>, %b: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xbf16> -> tensor<32xbf16>
  %h = math.fma %t, %t, %t : tensor<32xbf16>
  tile.store %x[%c0], %h : !tile.tensor<?xbf16>, tensor<32xbf16>
  %u = tile.load %y[%c0] : !tile.tensor<?xf32> -> tensor<32xf32>
  %f = math.fma %u, %u, %u : tensor<32xf32>
  tile.store %y[%c0], %f : !tile.tensor<?xf32>, tensor<32xf32>
  tile.return
}

// -----

// Flash-attention style: a reduction of an mma accumulator runs on its
// registers (shuffles over the two lane bits that step columns, no shared
// memory: one warp holds whole rows), and P = exp2(S - max) feeds the next
// dot as its A operand from the same registers (no ldmatrix for it: only V's,
// in the .trans form, as V is stored N-contiguous).
// CHECK-LABEL: llvm.func @mma_softmax
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: ex2.approx
// CHECK: llvm.fptrunc
// CHECK-NOT: nvvm.ldmatrix {{.*}}mma_layout<row>
// CHECK: nvvm.ldmatrix {{.*}}mma_layout<col>
// CHECK-NOT: nvvm.ldmatrix {{.*}}mma_layout<row>
// CHECK: nvvm.mma.sync
tile.kernel @mma_softmax(%a: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %zero2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %q = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
  %k = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x32xbf16>
  %v = tile.load %a[%c1, %c0] : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
  %s = tile.dot %q, %k, %zero : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xf32>
  %m = tile.reduce max %s axis 1 : tensor<64x32xf32> -> tensor<64xf32>
  %me = tile.expand_dims %m axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x32xf32>
  %d = arith.subf %s, %mb : tensor<64x32xf32>
  %e = math.exp2 %d : tensor<64x32xf32>
  %p = tile.convert %e : tensor<64x32xf32> -> tensor<64x32xbf16>
  %o = tile.dot %p, %v, %zero2 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %c[%c0, %c0], %o : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// The 64-bit size class (tile.index64): extents are i64 in the ABI, tile.dim
// reads them as they are, and an i64 block coordinate gives i64 origins and
// bounds checks.
// CHECK-LABEL: llvm.func @index64(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64)
// CHECK: %[[PID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[C:.*]] = llvm.sext %[[PID]] : i32 to i64
// CHECK: %[[ORIGIN:.*]] = llvm.mul %[[C]], %{{.*}} : i64
// CHECK: %[[T:.*]] = llvm.add %[[ORIGIN]], %{{.*}} : i64
// CHECK: llvm.icmp "slt" %[[T]], %{{.*}} : i64
tile.kernel @index64(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>) attributes {tile.index64, tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: !tile.tensor<?xf32>):
  %n = tile.dim %a[0] : !tile.tensor<?xf32> -> i64
  tile.yield %n : i64
} {
  %pid = tile.program_id 0
  %c = arith.extsi %pid : i32 to i64
  %t = tile.load %x[%c : i64] : !tile.tensor<?xf32> -> tensor<1024xf32>
  tile.store %y[%c : i64], %t : !tile.tensor<?xf32>, tensor<1024xf32>
  tile.return
}
