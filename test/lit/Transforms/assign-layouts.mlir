// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts))' | FileCheck %s --check-prefixes=CHECK,SM90
// The same layouts for sm_80 but for dots: mma.sync there, wgmma on sm_90a
// where the warps form warpgroups and M is a multiple of 64.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{arch=sm_80}))' | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{arch=sm_70}))' 2>&1 | FileCheck %s --check-prefix=BADARCH
// BADARCH: error: unsupported architecture 'sm_70' (supported: sm_80, sm_86, sm_89, sm_90, sm_90a)

// Loads get coalesced blocked layouts (16 bytes per thread when the tile is big
// enough), element-wise ops follow them, reductions give slice layouts, and a
// scalar broadcast is made directly in its user's layout.
// CHECK-DAG: #[[ROW:.*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tile.kernel @softmax
// CHECK: %[[V:.*]] = tile.load {{.*}} -> tensor<1024xf32, #[[ROW]]>
// CHECK: %[[M:.*]] = tile.reduce max %[[V]] axis 0 : tensor<1024xf32, #[[ROW]]> -> f32
// CHECK: tile.splat %[[M]] : tensor<1024xf32, #[[ROW]]>
// CHECK: math.exp {{.*}} : tensor<1024xf32, #[[ROW]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
tile.kernel @softmax(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?x?xf32>):
  %d = tile.dim %a[0] : !tile.tensor<?x?xf32>
  tile.yield %d : i32
} {
  %c0 = arith.constant 0 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %row = tile.program_id 0
  %v = tile.load %x[%row, %c0] pad %ninf : !tile.tensor<?x?xf32> -> tensor<1024xf32>
  %m = tile.reduce max %v axis 0 : tensor<1024xf32> -> f32
  %ms = tile.splat %m : tensor<1024xf32>
  %s = arith.subf %v, %ms : tensor<1024xf32>
  %e = math.exp %s : tensor<1024xf32>
  tile.store %y[%row, %c0], %e : !tile.tensor<?x?xf32>, tensor<1024xf32>
  tile.return
}

// -----

// A small tile does not get more elements per thread than it has to give.
// CHECK-DAG: #[[SMALL:.*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tile.kernel @small
// CHECK: tile.load {{.*}} -> tensor<128xf32, #[[SMALL]]>
tile.kernel @small(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  %v = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<128xf32>
  tile.store %x[%p], %v : !tile.tensor<?xf32>, tensor<128xf32>
  tile.return
}

// -----

// A bf16 dot gets an mma accumulator and dot-operand inputs; the accumulator
// is carried through the loop in the mma layout, converted once after it.
// SM80-DAG: #[[MMA:.*]] = #tile.mma<{version = 2, warpsPerCTA = [8, 1], instrShape = [16, 8]}>
// SM90-DAG: #[[MMA:.*]] = #tile.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
// CHECK-DAG: #[[A:.*]] = #tile.dot_op<{opIdx = 0, parent = #[[MMA]]}>
// CHECK-DAG: #[[B:.*]] = #tile.dot_op<{opIdx = 1, parent = #[[MMA]]}>
// CHECK-LABEL: tile.kernel @matmul
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[ZERO]]) -> (tensor<128x128xf32, #[[MMA]]>)
// CHECK:   tile.convert_layout {{.*}} -> tensor<128x64xbf16, #[[A]]>
// CHECK:   tile.convert_layout {{.*}} -> tensor<64x128xbf16, #[[B]]>
// CHECK:   %[[D:.*]] = tile.dot {{.*}}, %[[ARG]] : {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// CHECK:   scf.yield %[[D]] : tensor<128x128xf32, #[[MMA]]>
// CHECK: tile.convert_layout %[[ACC]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #blocked
tile.kernel @matmul(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %z: !tile.tensor<?x?xf32>, %w: i32):
  tile.yield %w : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc0 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %c[%c0, %c0], %acc : !tile.tensor<?x?xf32>, tensor<128x128xf32>
  tile.return
}

// -----

// An f32 dot stays on FMA: a blocked accumulator with blocked-parent operands.
// CHECK-LABEL: tile.kernel @fmadot
// CHECK: tile.dot {{.*}} : tensor<32x16xf32, #dot_op>, tensor<16x32xf32, #dot_op1> -> tensor<32x32xf32, #[[BL:blocked[0-9]*]]>
tile.kernel @fmadot(%a: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<32x16xf32>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<16x32xf32>
  %d = tile.dot %ta, %tb, %zero : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  tile.store %a[%c0, %c0], %d : !tile.tensor<?x?xf32>, tensor<32x32xf32>
  tile.return
}

// -----

// expand_dims of a reduction result turns the slice back into its parent:
// no conversion. A leading-axis broadcast takes a slice of the result's layout.
// CHECK-DAG: #[[P:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S1:.*]] = #tile.slice<{dim = 1, parent = #[[P]]}>
// CHECK-DAG: #[[S0:.*]] = #tile.slice<{dim = 0, parent = #[[P]]}>
// CHECK-LABEL: tile.kernel @rows
// CHECK: %[[T:.*]] = tile.load {{.*}} -> tensor<64x128xf32, #[[P]]>
// CHECK: %[[R:.*]] = tile.reduce sum %[[T]] axis 1 : tensor<64x128xf32, #[[P]]> -> tensor<64xf32, #[[S1]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims %[[R]] axis 1 : tensor<64xf32, #[[S1]]> -> tensor<64x1xf32, #[[P]]>
// CHECK: tile.broadcast {{.*}} : tensor<64x1xf32, #[[P]]> -> tensor<64x128xf32, #[[P]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<128xf32, #[[S0]]>
// CHECK: tile.broadcast {{.*}} : tensor<128xf32, #[[S0]]> -> tensor<64x128xf32, #[[P]]>
tile.kernel @rows(%x: !tile.tensor<?x?xf32>, %w: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32>
  %r = tile.reduce sum %t axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  %e = tile.expand_dims %r axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  %eb = tile.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
  %wt = tile.load %w[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  %wb = tile.broadcast %wt : tensor<128xf32> -> tensor<64x128xf32>
  %s = arith.subf %t, %eb : tensor<64x128xf32>
  %m = arith.mulf %s, %wb : tensor<64x128xf32>
  tile.store %x[%c0, %c0], %m : !tile.tensor<?x?xf32>, tensor<64x128xf32>
  tile.return
}

// -----

// Transposing a blocked tile swaps its layout's axes: no data moves.
// CHECK-DAG: #[[K:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[KT:.*]] = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: tile.kernel @trans
// CHECK: tile.transpose {{.*}} : tensor<64x64xf32, #[[K]]> -> tensor<64x64xf32, #[[KT]]>
tile.kernel @trans(%x: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
  %tt = tile.transpose %t : tensor<64x64xf32> -> tensor<64x64xf32>
  tile.store %x[%c0, %c0], %tt : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// if results take the then-branch's layout; the else branch converts to it.
// CHECK-LABEL: tile.kernel @branch
// CHECK: scf.if {{.*}} -> (tensor<128xf32, #blocked>)
// CHECK: } else {
// CHECK: scf.yield {{.*}} : tensor<128xf32, #blocked>
tile.kernel @branch(%x: !tile.tensor<?xf32>, %p: i1) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>, %b: i1):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %r = scf.if %p -> (tensor<128xf32>) {
    %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
    scf.yield %t : tensor<128xf32>
  } else {
    %z = arith.constant dense<1.0> : tensor<128xf32>
    scf.yield %z : tensor<128xf32>
  }
  tile.store %x[%c0], %r : !tile.tensor<?xf32>, tensor<128xf32>
  tile.return
}

// -----

// A dtype conversion after a layout conversion happens first, in the source
// layout, so that the (narrower) result is what moves.
// CHECK-LABEL: tile.kernel @epilogue
// CHECK: %[[D:.*]] = tile.dot
// CHECK: %[[H:.*]] = tile.convert %[[D]] : tensor<128x128xf32, #mma> -> tensor<128x128xbf16, #mma>
// CHECK: tile.convert_layout %[[H]] : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked
tile.kernel @epilogue(%a: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
  %d = tile.dot %ta, %tb, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %h = tile.convert %d : tensor<128x128xf32> -> tensor<128x128xbf16>
  tile.store %a[%c0, %c0], %h : !tile.tensor<?x?xbf16>, tensor<128x128xbf16>
  tile.return
}

// -----

// A loop's accumulator leaves the loop in its mma layout, so the epilogue
// runs in its registers: the [128] bias is converted into the accumulator's
// column slice and expanded and broadcast there (not its [128, 128] copies),
// and only the final bf16 tile moves to the store's layout.
// CHECK-LABEL: tile.kernel @bias_epilogue
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<128x128xf32, #[[MMA:mma[0-9]*]]>)
// CHECK: %[[BIAS:.*]] = tile.load %{{.*}} -> tensor<128xf32, #{{.*}}>
// CHECK-NEXT: %[[COL:.*]] = tile.convert_layout %[[BIAS]] : tensor<128xf32, #{{.*}}> -> tensor<128xf32, #[[SLICE:.*]]>
// CHECK-NEXT: tile.expand_dims %[[COL]] axis 0 : tensor<128xf32, #[[SLICE]]> -> tensor<1x128xf32, #[[MMA]]>
// CHECK-NEXT: tile.broadcast {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: arith.addf %[[R]], {{.*}} : tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: %[[H:.*]] = tile.convert {{.*}} -> tensor<128x128xbf16, #[[MMA]]>
// CHECK-NEXT: tile.convert_layout %[[H]] : tensor<128x128xbf16, #[[MMA]]> -> tensor<128x128xbf16, #blocked
tile.kernel @bias_epilogue(%a: !tile.tensor<?x?xbf16>, %bias: !tile.tensor<?xf32>, %n: i32) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?xf32>, %z: i32):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
    %tb = tile.load %a[%k, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %bv = tile.load %bias[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  %be = tile.expand_dims %bv axis 0 : tensor<128xf32> -> tensor<1x128xf32>
  %bb = tile.broadcast %be : tensor<1x128xf32> -> tensor<128x128xf32>
  %x = arith.addf %r, %bb : tensor<128x128xf32>
  %h = tile.convert %x : tensor<128x128xf32> -> tensor<128x128xbf16>
  tile.store %a[%c0, %c0], %h : !tile.tensor<?x?xbf16>, tensor<128x128xbf16>
  tile.return
}

// -----

// Flash attention: the softmax of S = Q K^T runs in the dot's mma registers.
// Reductions, broadcasts and element-wise ops stay in the mma layout and its
// slices; the key mask (index math) is recomputed there; m, l and the
// accumulator are carried in it; P feeds the second dot as its A operand
// (registers only in the lowering); Q's conversion runs once, before the loop.
// SM80-DAG: #[[MMA:.*]] = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// SM80-DAG: #[[A:.*]] = #tile.dot_op<{opIdx = 0, parent = #[[MMA]]}>
// SM80-DAG: #[[ROWS:.*]] = #tile.slice<{dim = 1, parent = #[[MMA]]}>
// SM80-DAG: #[[COLS:.*]] = #tile.slice<{dim = 0, parent = #[[MMA]]}>
// On sm_90a both products are wgmma (n = 32 for S, 64 for O), P staged.
// SM90-DAG: #{{.*}} = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>
// SM90-DAG: #{{.*}} = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
// CHECK-LABEL: tile.kernel @attention
// SM80: tile.arange : tensor<32xi32, #[[COLS]]>
// SM80: %[[Q:.*]] = tile.convert_layout %{{.*}} -> tensor<64x64xbf16, #[[A]]>
// SM80: scf.for {{.*}} -> (tensor<64xf32, #[[ROWS]]>, tensor<64xf32, #[[ROWS]]>, tensor<64x64xf32, #[[MMA]]>)
// SM80: arith.cmpi slt, {{.*}} : tensor<1x32xi32, #[[MMA]]>
// SM80: tile.dot %[[Q]], {{.*}} -> tensor<64x32xf32, #[[MMA]]>
// SM80: tile.reduce max {{.*}} : tensor<64x32xf32, #[[MMA]]> -> tensor<64xf32, #[[ROWS]]>
// SM80: math.exp2 {{.*}} : tensor<64x32xf32, #[[MMA]]>
// SM80: tile.reduce sum {{.*}} : tensor<64x32xf32, #[[MMA]]> -> tensor<64xf32, #[[ROWS]]>
// SM80: %[[P:.*]] = tile.convert {{.*}} -> tensor<64x32xbf16, #[[MMA]]>
// SM80: %[[PA:.*]] = tile.convert_layout %[[P]] : tensor<64x32xbf16, #[[MMA]]> -> tensor<64x32xbf16, #[[A]]>
// SM80: tile.dot %[[PA]], {{.*}} -> tensor<64x64xf32, #[[MMA]]>
// SM80-NOT: tile.convert_layout
// SM80: scf.yield
tile.kernel @attention(%q: !tile.tensor<?x?x?x?xbf16>, %k: !tile.tensor<?x?x?x?xbf16>, %v: !tile.tensor<?x?x?x?xbf16>, %o: !tile.tensor<?x?x?x?xbf16>, %scale: f32) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%q: !tile.tensor<?x?x?x?xbf16>, %k: !tile.tensor<?x?x?x?xbf16>, %v: !tile.tensor<?x?x?x?xbf16>, %o: !tile.tensor<?x?x?x?xbf16>, %scale: f32):
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.dim %q[0] : <?x?x?x?xbf16>
  %1 = tile.dim %q[1] : <?x?x?x?xbf16>
  %2 = tile.dim %q[2] : <?x?x?x?xbf16>
  %3 = arith.ceildivsi %2, %c64_i32 : i32
  %4 = arith.muli %0, %1 : i32
  tile.yield %3, %4 : i32, i32
} {
  %cst = arith.constant dense<0xFF800000> : tensor<64x32xf32>
  %cst_0 = arith.constant dense<0xFF800000> : tensor<64xf32>
  %cst_1 = arith.constant 1.44269502 : f32
  %cst_2 = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
  %c1_i32 = arith.constant 1 : i32
  %c32_i32 = arith.constant 32 : i32
  %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %cst_4 = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %c0_i32 = arith.constant 0 : i32
  %0 = tile.dim %q[1] : <?x?x?x?xbf16>
  %1 = tile.dim %q[2] : <?x?x?x?xbf16>
  %2 = tile.program_id 0
  %3 = tile.program_id 1
  %4 = arith.divsi %3, %0 : i32
  %5 = arith.remsi %3, %0 : i32
  %6 = tile.load %q[%4, %5, %2, %c0_i32] : <?x?x?x?xbf16> -> tensor<64x64xbf16>
  %7 = arith.ceildivsi %1, %c32_i32 : i32
  %8:3 = scf.for %arg0 = %c0_i32 to %7 step %c1_i32 iter_args(%arg1 = %cst_0, %arg2 = %cst_4, %arg3 = %cst_3) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>)  : i32 {
    %13 = arith.muli %arg0, %c32_i32 : i32
    %14 = tile.splat %13 : tensor<32xi32>
    %15 = tile.arange : tensor<32xi32>
    %16 = arith.addi %14, %15 : tensor<32xi32>
    %17 = tile.expand_dims %16 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
    %18 = tile.splat %1 : tensor<1x32xi32>
    %19 = arith.cmpi slt, %17, %18 : tensor<1x32xi32>
    %20 = tile.broadcast %19 : tensor<1x32xi1> -> tensor<64x32xi1>
    %21 = tile.load %k[%4, %5, %arg0, %c0_i32] : <?x?x?x?xbf16> -> tensor<32x64xbf16>
    %22 = tile.transpose %21 : tensor<32x64xbf16> -> tensor<64x32xbf16>
    %23 = tile.dot %6, %22, %cst_2 : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    %24 = arith.mulf %scale, %cst_1 : f32
    %25 = tile.splat %24 : tensor<64x32xf32>
    %26 = arith.mulf %23, %25 : tensor<64x32xf32>
    %27 = arith.select %20, %26, %cst : tensor<64x32xi1>, tensor<64x32xf32>
    %28 = tile.reduce max %27 axis 1 : tensor<64x32xf32> -> tensor<64xf32>
    %29 = arith.maximumf %arg1, %28 : tensor<64xf32>
    %30 = tile.expand_dims %29 axis 1 : tensor<64xf32> -> tensor<64x1xf32>
    %31 = tile.broadcast %30 : tensor<64x1xf32> -> tensor<64x32xf32>
    %32 = arith.subf %27, %31 : tensor<64x32xf32>
    %33 = math.exp2 %32 : tensor<64x32xf32>
    %34 = arith.subf %arg1, %29 : tensor<64xf32>
    %35 = math.exp2 %34 : tensor<64xf32>
    %36 = arith.mulf %arg2, %35 : tensor<64xf32>
    %37 = tile.reduce sum %33 axis 1 : tensor<64x32xf32> -> tensor<64xf32>
    %38 = arith.addf %36, %37 : tensor<64xf32>
    %39 = tile.expand_dims %35 axis 1 : tensor<64xf32> -> tensor<64x1xf32>
    %40 = tile.broadcast %39 : tensor<64x1xf32> -> tensor<64x64xf32>
    %41 = arith.mulf %arg3, %40 : tensor<64x64xf32>
    %42 = tile.convert %33 : tensor<64x32xf32> -> tensor<64x32xbf16>
    %43 = tile.load %v[%4, %5, %arg0, %c0_i32] : <?x?x?x?xbf16> -> tensor<32x64xbf16>
    %44 = tile.dot %42, %43, %cst_3 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %45 = arith.addf %41, %44 : tensor<64x64xf32>
    scf.yield %29, %38, %45 : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  }
  %9 = tile.expand_dims %8#1 axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  %10 = tile.broadcast %9 : tensor<64x1xf32> -> tensor<64x64xf32>
  %11 = arith.divf %8#2, %10 : tensor<64x64xf32>
  %12 = tile.convert %11 : tensor<64x64xf32> -> tensor<64x64xbf16>
  tile.store %o[%4, %5, %2, %c0_i32], %12 : <?x?x?x?xbf16>, tensor<64x64xbf16>
  tile.return
}

// -----

// An element access runs in the default blocked layout of its tile; its index
// math is made in that layout (no conversions), a loaded index tile in another
// layout is converted, and a scatter's value joins the layout of its indices.
// CHECK-DAG: #[[G:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.kernel @indexed
// CHECK: %[[ROWS:.*]] = tile.gather {{.*}} -> tensor<16xi32, #{{.*}}>
// CHECK: tile.convert_layout %[[ROWS]]
// CHECK-NOT: tile.convert_layout %{{.*}} : tensor<16x32xi32
// CHECK: tile.gather %{{.*}}[{{.*}}] : <?x?xf32>[tensor<16x32xi32, #[[G]]>, tensor<16x32xi32, #[[G]]>] -> tensor<16x32xf32, #[[G]]>
// CHECK: tile.scatter %{{.*}}[{{.*}}], {{.*}} : <?x?xf32>[tensor<16x32xi32, #[[G]]>, tensor<16x32xi32, #[[G]]>], tensor<16x32xf32, #[[G]]>
tile.kernel @indexed(%x: !tile.tensor<?x?xf32>, %ids: !tile.tensor<?xi32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %r = tile.arange : tensor<16xi32>
  %rows = tile.gather %ids[%r] : !tile.tensor<?xi32>[tensor<16xi32>] -> tensor<16xi32>
  %rx = tile.expand_dims %rows axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rb = tile.broadcast %rx : tensor<16x1xi32> -> tensor<16x32xi32>
  %c = tile.arange : tensor<32xi32>
  %cx = tile.expand_dims %c axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tile.broadcast %cx : tensor<1x32xi32> -> tensor<16x32xi32>
  %v = tile.gather %x[%rb, %cb] : !tile.tensor<?x?xf32>[tensor<16x32xi32>, tensor<16x32xi32>] -> tensor<16x32xf32>
  %w = math.exp %v : tensor<16x32xf32>
  tile.scatter %x[%rb, %cb], %w : !tile.tensor<?x?xf32>[tensor<16x32xi32>, tensor<16x32xi32>], tensor<16x32xf32>
  tile.return
}

// -----

// A scan keeps its operand's layout (blocked here, a slice of one below).
// CHECK-LABEL: tile.kernel @scans
// CHECK: %[[T:.*]] = tile.load {{.*}} -> tensor<64x128xf32, #[[P:.*]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.scan sum %[[T]] axis 1 : tensor<64x128xf32, #[[P]]>
// CHECK: %[[R:.*]] = tile.reduce max {{.*}} -> tensor<64xf32, #[[S:.*]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.scan max %[[R]] axis 0 : tensor<64xf32, #[[S]]>
tile.kernel @scans(%x: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x128xf32>
  %s = tile.scan sum %t axis 1 : tensor<64x128xf32>
  %r = tile.reduce max %s axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  %m = tile.scan max %r axis 0 : tensor<64xf32>
  tile.store %x[%c0, %c0], %s : !tile.tensor<?x?xf32>, tensor<64x128xf32>
  %y = tile.expand_dims %m axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  tile.store %x[%c0, %c0], %y : !tile.tensor<?x?xf32>, tensor<64x1xf32>
  tile.return
}
