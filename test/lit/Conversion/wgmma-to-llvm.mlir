// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// Warpgroup dots, with their layouts, encodings and offsets given in the input
// (no layout or allocation pass runs first).

// A [128, 64] K-major and B [64, 128] N-major, both with the 128-byte swizzle,
// into a [128, 128] accumulator of one warpgroup: two 64-row instructions of
// m64n128k16, four K steps each. The descriptors' high bits: A's leading
// offset 16 bytes (1, unused when K-major), stride 1024 bytes (64), swizzle
// mode 1 (128 bytes): 1 << 62 | 64 << 32 | 1 << 16 = 4611686293305360384; B's
// leading offset is its column block, 64 rows of 128 bytes (512 << 16):
// 4611686293338849280. A steps 32 bytes (2 units) per K step, 8192 bytes (512)
// per 64 rows; B 2048 bytes (128) per K step. A is read K-major (row), B
// N-major (row: the transpose bit). Each start address passes through an
// empty instruction (where the address is computed) before the warpgroup's
// step is added and the other fields are or'ed in, and each K step adds to
// that descriptor: otherwise LLVM folds the fields and the step into one
// 64-bit immediate, an add that ptxas 13.0.88 miscompiles.
// CHECK-LABEL: llvm.func @wgmma
// CHECK: %[[SA:.*]] = llvm.inline_asm asm_dialect = att "", "=l,0" %{{.*}} : (i64) -> i64
// CHECK: %[[SB:.*]] = llvm.inline_asm asm_dialect = att "", "=l,0" %{{.*}} : (i64) -> i64
// CHECK: %[[WA:.*]] = llvm.add %[[SA]], %{{.*}} : i64
// CHECK-NEXT: %[[CA:.*]] = llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK-NEXT: %[[DA:.*]] = llvm.or %[[WA]], %[[CA]] : i64
// CHECK: %[[WB:.*]] = llvm.add %[[SB]], %{{.*}} : i64
// CHECK-NEXT: %[[CB:.*]] = llvm.mlir.constant(4611686293338849280 : i64) : i64
// CHECK-NEXT: %[[DB:.*]] = llvm.or %[[WB]], %[[CB]] : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[A0:.*]] = llvm.add %[[DA]], %{{.*}} : i64
// CHECK: %[[B0:.*]] = llvm.add %[[DB]], %{{.*}} : i64
// CHECK-NEXT: nvvm.wgmma.mma_async %[[A0]], %[[B0]],
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: llvm.mlir.constant(512 : i64)
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
#shared = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mma3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
tile.kernel @wgmma(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 32768 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %ma = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #shared>
  %mb = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x128xbf16, #shared>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32, #mma3>
  %d = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x64xbf16, #shared>, !tile.memdesc<64x128xbf16, #shared> -> tensor<128x128xf32, #mma3>
  %c0 = arith.constant 0 : i32
  %db = tile.convert %d : tensor<128x128xf32, #mma3> -> tensor<128x128xbf16, #mma3>
  tile.store %a[%c0, %c0], %db : !tile.tensor<?x?xbf16>, tensor<128x128xbf16, #mma3>
  tile.return
}

// -----

// K^T as B: stored [64, 128] with K (the 128) contiguous, viewed transposed,
// read K-major (col), both with the 64-byte swizzle of a 32-wide K, and two
// warpgroups splitting N (each an m64n64k16 of its 64 columns).
// CHECK-LABEL: llvm.func @kmajor_b
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
#s64 = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#kt = #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>
#ktT = #tile.shared<{swizzle = 64, vec = 8, order = [0, 1]}>
#mma3n = #tile.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [64, 64]}>
tile.kernel @kmajor_b(%a: !tile.tensor<?x?xf16>) attributes {tile.num_warps = 8 : i64, tile.shared_bytes = 32768 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %ma = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<64x32xf16, #s64>
  %mk = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<128x32xf16, #kt>
  %mt = tile.memdesc_trans %mk : !tile.memdesc<128x32xf16, #kt> -> !tile.memdesc<32x128xf16, #ktT>
  tile.fence_async_shared
  tile.barrier
  %acc = arith.constant dense<0.0> : tensor<64x128xf32, #mma3n>
  %d = tile.warpgroup_dot %ma, %mt, %acc : !tile.memdesc<64x32xf16, #s64>, !tile.memdesc<32x128xf16, #ktT> -> tensor<64x128xf32, #mma3n>
  %c0 = arith.constant 0 : i32
  %db = tile.convert %d : tensor<64x128xf32, #mma3n> -> tensor<64x128xf16, #mma3n>
  tile.store %a[%c0, %c0], %db : !tile.tensor<?x?xf16>, tensor<64x128xf16, #mma3n>
  tile.return
}

// -----

// A from registers (wgmma's register form, inline PTX): a [128, 32] bf16 tile
// in the A layout of its accumulator's layout, two warpgroups along M, B
// [32, 64] N-major (the transpose bit set). Per warpgroup, one 64-row
// instruction per K step: two of m64n64k16, each with 32 accumulators tied in
// and out ($32..$63 are the tied inputs), A's four b32 registers ($64..$67)
// and B's descriptor ($68).
// CHECK-LABEL: llvm.func @register_a
// CHECK-NOT: ld.shared
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: llvm.inline_asm has_side_effects {{.*}}"{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}\0A", "=f,{{.*}},=f,0,1,{{.*}},31,r,r,r,r,l"
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
#sb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mr = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#opa = #tile.dot_op<{opIdx = 0, parent = #mr}>
tile.kernel @register_a(%o: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64, tile.shared_bytes = 8192 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %p = arith.constant dense<1.0> : tensor<128x32xbf16, #opa>
  %mb = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<32x64xbf16, #sb>
  %acc = arith.constant dense<0.0> : tensor<128x64xf32, #mr>
  %d = tile.warpgroup_dot %p, %mb, %acc : tensor<128x32xbf16, #opa>, !tile.memdesc<32x64xbf16, #sb> -> tensor<128x64xf32, #mr>
  %c0 = arith.constant 0 : i32
  %db = tile.convert %d : tensor<128x64xf32, #mr> -> tensor<128x64xbf16, #mr>
  tile.store %o[%c0, %c0], %db : !tile.tensor<?x?xbf16>, tensor<128x64xbf16, #mr>
  tile.return
}

// -----

// A register operand is packed into pairs and pinned where it is computed,
// not beside its dot: a dot issued in between (as in a rotated loop) then
// keeps only the pairs live across its issue, not their f32 source. Both
// pins come before the first dot's fence.
// CHECK-LABEL: llvm.func @register_a_pinned_where_computed
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: asm_dialect = att "", "=r,
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
#sb = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mr = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#opa = #tile.dot_op<{opIdx = 0, parent = #mr}>
tile.kernel @register_a_pinned_where_computed(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 8 : i64, tile.shared_bytes = 8192 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %p1 = arith.constant dense<1.0> : tensor<128x32xbf16, #opa>
  %p2 = arith.constant dense<2.0> : tensor<128x32xbf16, #opa>
  %mb = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<32x64xbf16, #sb>
  %acc = arith.constant dense<0.0> : tensor<128x64xf32, #mr>
  %d1 = tile.warpgroup_dot %p1, %mb, %acc {isAsync} : tensor<128x32xbf16, #opa>, !tile.memdesc<32x64xbf16, #sb> -> tensor<128x64xf32, #mr>
  %d2 = tile.warpgroup_dot %p2, %mb, %d1 : tensor<128x32xbf16, #opa>, !tile.memdesc<32x64xbf16, #sb> -> tensor<128x64xf32, #mr>
  %c0 = arith.constant 0 : i32
  tile.store %o[%c0, %c0], %d2 : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mr>
  tile.return
}

// -----

// The accumulator's registers are written before the wgmma.fence that
// precedes its products (PTX: registers a wgmma reads are written before the
// fence) and read only after the wgmma.wait_group that waits for them: they
// pass through empty instructions with side effects, 32 f32 registers to one,
// before the fence and after the wait, of a synchronous dot (its own wait)
// and of an asynchronous one (its tile.warpgroup_wait). The [128, 64]
// accumulator of one warpgroup is 64 registers per thread: two each time.
// CHECK-LABEL: llvm.func @accumulator_pinned_at_fence_and_wait
// CHECK: llvm.mlir.constant(0.000000e+00 : f32)
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,{{.*}},31"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,{{.*}},31"
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: st.global
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: st.global
#sp = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mp = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @accumulator_pinned_at_fence_and_wait(%o: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 32768 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %ma = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #sp>
  %mb = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #sp>
  %acc = arith.constant dense<0.0> : tensor<128x64xf32, #mp>
  %d1 = tile.warpgroup_dot %ma, %mb, %acc : !tile.memdesc<128x64xbf16, #sp>, !tile.memdesc<64x64xbf16, #sp> -> tensor<128x64xf32, #mp>
  %d2 = tile.warpgroup_dot %ma, %mb, %d1 {isAsync} : !tile.memdesc<128x64xbf16, #sp>, !tile.memdesc<64x64xbf16, #sp> -> tensor<128x64xf32, #mp>
  %d3 = tile.warpgroup_wait %d2 {pendings = 0 : i32} : tensor<128x64xf32, #mp>
  %c0 = arith.constant 0 : i32
  tile.store %o[%c0, %c0], %d3 : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mp>
  tile.return
}

// -----

// The values a wait orders (a rotated loop's P, its f32 source) pass through
// an empty instruction with side effects after the wgmma.wait_group, beside
// the accumulator's: their conversion, the next A fragment, follows the wait
// however it is scheduled. [64, 64] f32 over one warpgroup: 32 registers.
// CHECK-LABEL: llvm.func @ordered_values_after_the_wait
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: llvm.fptrunc
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK-NOT: llvm.fptrunc
// CHECK: %[[P:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,{{.*}},31" %{{.*}} : (f32,
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.fptrunc
#so = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#mo = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @ordered_values_after_the_wait(%o: !tile.tensor<?x?xf32>, %q: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.shared_bytes = 32768 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xbf16>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %ma = tile.local_alloc {tile.offset = 0 : i64} : () -> !tile.memdesc<128x64xbf16, #so>
  %mb = tile.local_alloc {tile.offset = 16384 : i64} : () -> !tile.memdesc<64x64xbf16, #so>
  %acc = arith.constant dense<0.0> : tensor<128x64xf32, #mo>
  %p = tile.load %o[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x64xf32, #mo>
  %d = tile.warpgroup_dot %ma, %mb, %acc {isAsync} : !tile.memdesc<128x64xbf16, #so>, !tile.memdesc<64x64xbf16, #so> -> tensor<128x64xf32, #mo>
  %w, %pw = tile.warpgroup_wait %d, %p {pendings = 0 : i32} : tensor<128x64xf32, #mo>, tensor<64x64xf32, #mo> -> tensor<64x64xf32, #mo>
  %ph = tile.convert %pw : tensor<64x64xf32, #mo> -> tensor<64x64xbf16, #mo>
  tile.store %q[%c0, %c0], %ph : !tile.tensor<?x?xbf16>, tensor<64x64xbf16, #mo>
  tile.store %o[%c0, %c0], %w : !tile.tensor<?x?xf32>, tensor<128x64xf32, #mo>
  tile.return
}
