// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-uniform-masks))' | FileCheck %s

// Attention's ragged last block: cols = j * 64 + arange(64) < n. The mask
// holds everywhere iff j * 64 + 63 - n < 0 (and no column wraps in 32 bits);
// then the scores pass unmasked, else the mask's element-wise ops (moved into
// the branch) select as before.
// CHECK-LABEL: tile.kernel @ragged
// CHECK: scf.for %[[J:[a-z0-9]+]] = {{.*}} -> (tensor<64xf32>)
// CHECK: %[[BASE:.*]] = arith.muli %[[J]], %{{.*}} : i32
// CHECK-NOT: tensor<64xi32>
// CHECK: %[[S:.*]] = tile.load
// CHECK: %[[B64:.*]] = arith.extsi %[[BASE]] : i32 to i64
// CHECK: %[[LAST:.*]] = arith.addi %[[B64]], %c63_i64 : i64
// CHECK: arith.cmpi sge, %[[B64]], %{{.*}} : i64
// CHECK: arith.cmpi sle, %[[LAST]], %{{.*}} : i64
// CHECK: %[[N64:.*]] = arith.extsi %arg1 : i32 to i64
// CHECK: %[[NEG:.*]] = arith.muli %[[N64]], %{{.*}} : i64
// CHECK: %[[DIFF:.*]] = arith.addi %{{.*}}, %[[NEG]] : i64
// CHECK: %[[GREATEST:.*]] = arith.addi %[[DIFF]], %{{.*}} : i64
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[GREATEST]], %{{.*}} : i64
// CHECK: %[[ALL:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
// CHECK: %[[MASKED:.*]] = scf.if %[[ALL]] -> (tensor<64x64xf32>) {
// CHECK-NEXT: scf.yield %[[S]] : tensor<64x64xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.splat %[[BASE]] : tensor<64xi32>
// CHECK-NEXT: tile.arange
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.expand_dims
// CHECK-NEXT: tile.splat
// CHECK-NEXT: %[[M:.*]] = arith.cmpi slt, {{.*}} : tensor<1x64xi32>
// CHECK-NEXT: %[[M2:.*]] = tile.broadcast %[[M]] : tensor<1x64xi1> -> tensor<64x64xi1>
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[M2]], %[[S]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xf32>
// CHECK-NEXT: scf.yield %[[SEL]] : tensor<64x64xf32>
// CHECK: tile.reduce max %[[MASKED]] axis 1
tile.kernel @ragged(%x: !tile.tensor<?x?xf32>, %n: i32) grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: i32):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %init = arith.constant dense<0xFF800000> : tensor<64xf32>
  %blocks = arith.ceildivsi %n, %c64 : i32
  %r = scf.for %j = %c0 to %blocks step %c1 iter_args(%m = %init) -> (tensor<64xf32>) : i32 {
    %base = arith.muli %j, %c64 : i32
    %bs = tile.splat %base : tensor<64xi32>
    %idx = tile.arange : tensor<64xi32>
    %cols = arith.addi %bs, %idx : tensor<64xi32>
    %cols2 = tile.expand_dims %cols axis 0 : tensor<64xi32> -> tensor<1x64xi32>
    %ns = tile.splat %n : tensor<1x64xi32>
    %in = arith.cmpi slt, %cols2, %ns : tensor<1x64xi32>
    %in2 = tile.broadcast %in : tensor<1x64xi1> -> tensor<64x64xi1>
    %s = tile.load %x[%c0, %j] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
    %masked = arith.select %in2, %s, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %rm = tile.reduce max %masked axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %mn = arith.maximumf %m, %rm : tensor<64xf32>
    scf.yield %mn : tensor<64xf32>
  }
  tile.store %x[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64xf32>
  tile.return
}

// -----

// Causal attention: cols <= rows && cols < n, rows = m * 64 + arange(64) along
// axis 0 and cols along axis 1. Below the diagonal both comparisons hold
// everywhere: the greatest of cols - rows is j * 64 - m * 64 + 63 (column 63,
// row 0), the least is used for sge.
// CHECK-LABEL: tile.kernel @causal
// CHECK: scf.for
// CHECK: %[[DIFF:[0-9]+]] = arith.addi %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK: %[[G:.*]] = arith.addi %[[DIFF]], %c63_i64{{.*}} : i64
// CHECK: %[[DIAG:.*]] = arith.cmpi sle, %[[G]], %{{.*}} : i64
// CHECK: %[[RAG:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: %[[ALL:.*]] = arith.andi %{{.*}}, %[[RAG]] : i1
// CHECK: %[[S1:.*]] = scf.if %[[ALL]] -> (tensor<64x64xf32>)
// CHECK: } else {
// CHECK: arith.cmpi sle, {{.*}} : tensor<64x64xi32>
// CHECK: arith.andi {{.*}} : tensor<64x64xi1>
// CHECK: arith.select
// CHECK: scf.yield
// CHECK: }
// CHECK: %[[LEAST:.*]] = arith.addi %{{[0-9]+}}, %c-63_i64 : i64
// CHECK: %[[UP:.*]] = arith.cmpi sge, %[[LEAST]], %{{.*}} : i64
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32>) {
// CHECK-NEXT: scf.yield %[[S1]]
tile.kernel @causal(%x: !tile.tensor<?x?xf32>, %n: i32) grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: i32):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %m = tile.program_id 0
  %rbase = arith.muli %m, %c64 : i32
  %rs = tile.splat %rbase : tensor<64xi32>
  %idx = tile.arange : tensor<64xi32>
  %rows = arith.addi %rs, %idx : tensor<64xi32>
  %blocks = arith.addi %m, %c1 : i32
  %r = scf.for %j = %c0 to %blocks step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %base = arith.muli %j, %c64 : i32
    %bs = tile.splat %base : tensor<64xi32>
    %cols = arith.addi %bs, %idx : tensor<64xi32>
    %cols2 = tile.expand_dims %cols axis 0 : tensor<64xi32> -> tensor<1x64xi32>
    %colsb = tile.broadcast %cols2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %rows2 = tile.expand_dims %rows axis 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rowsb = tile.broadcast %rows2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %below = arith.cmpi sle, %colsb, %rowsb : tensor<64x64xi32>
    %ns = tile.splat %n : tensor<1x64xi32>
    %in = arith.cmpi slt, %cols2, %ns : tensor<1x64xi32>
    %inb = tile.broadcast %in : tensor<1x64xi1> -> tensor<64x64xi1>
    %keep = arith.andi %below, %inb : tensor<64x64xi1>
    %s = tile.load %x[%c0, %j] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
    %masked = arith.select %keep, %s, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    // Rows at or past the columns (the transposed test): sge, least offset.
    %above = arith.cmpi sge, %rowsb, %colsb : tensor<64x64xi32>
    %masked2 = arith.select %above, %masked, %zero : tensor<64x64xi1>, tensor<64x64xf32>
    %sum = arith.addf %acc, %masked2 : tensor<64x64xf32>
    scf.yield %sum : tensor<64x64xf32>
  }
  tile.store %x[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64x64xf32>
  tile.return
}

// -----

// Left alone: a mask from loaded data, an equality, an index scaled by a
// runtime value, a select outside any loop. A constant mask that clears an
// element (a padded tile's) stays a select; one that holds everywhere folds.
// CHECK-LABEL: tile.kernel @alone
// CHECK-NOT: scf.if
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64xi1>
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: arith.select
// CHECK: arith.select
// CHECK: arith.select
// CHECK: arith.select
// CHECK-NOT: arith.select
// CHECK-NOT: scf.if
// CHECK: tile.return
tile.kernel @alone(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xi32>, %n: i32) grid {
^bb0(%a: !tile.tensor<?xf32>, %b: !tile.tensor<?xi32>, %c: i32):
  %c1 = arith.constant 1 : i32
  tile.yield %c1 : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %idx = tile.arange : tensor<64xi32>
  %ns = tile.splat %n : tensor<64xi32>
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<64xf32>
  %outside = arith.cmpi slt, %idx, %ns : tensor<64xi32>
  %t0 = arith.select %outside, %t, %zero : tensor<64xi1>, tensor<64xf32>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %t0) -> (tensor<64xf32>) : i32 {
    %d = tile.load %y[%j] : !tile.tensor<?xi32> -> tensor<64xi32>
    %m1 = arith.cmpi slt, %d, %ns : tensor<64xi32>
    %a1 = arith.select %m1, %acc, %zero : tensor<64xi1>, tensor<64xf32>
    %m2 = arith.cmpi eq, %idx, %ns : tensor<64xi32>
    %a2 = arith.select %m2, %a1, %zero : tensor<64xi1>, tensor<64xf32>
    %scaled = arith.muli %idx, %ns : tensor<64xi32>
    %m3 = arith.cmpi slt, %scaled, %ns : tensor<64xi32>
    %a3 = arith.select %m3, %a2, %zero : tensor<64xi1>, tensor<64xf32>
    %c48 = arith.constant dense<48> : tensor<64xi32>
    %m4 = arith.cmpi slt, %idx, %c48 : tensor<64xi32>
    %a4 = arith.select %m4, %a3, %zero : tensor<64xi1>, tensor<64xf32>
    %c64 = arith.constant dense<64> : tensor<64xi32>
    %m5 = arith.cmpi slt, %idx, %c64 : tensor<64xi32>
    %a5 = arith.select %m5, %a4, %zero : tensor<64xi1>, tensor<64xf32>
    scf.yield %a5 : tensor<64xf32>
  }
  tile.store %x[%c0], %r : !tile.tensor<?xf32>, tensor<64xf32>
  tile.return
}

// -----

// A mask op with scratch (a layout conversion through shared memory) stays
// where it is, beside the barriers around it; the ops after it still move.
// CHECK-LABEL: tile.kernel @scratch
// CHECK: %[[CV:.*]] = tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i64}
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: %[[M:.*]] = tile.broadcast %[[CV]]
// CHECK-NEXT: arith.select %[[M]]
tile.kernel @scratch(%x: !tile.tensor<?x?xf32>, %n: i32) grid {
^bb0(%a: !tile.tensor<?x?xf32>, %b: i32):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %init = arith.constant dense<0xFF800000> : tensor<64xf32>
  %blocks = arith.ceildivsi %n, %c64 : i32
  %r = scf.for %j = %c0 to %blocks step %c1 iter_args(%m = %init) -> (tensor<64xf32>) : i32 {
    %base = arith.muli %j, %c64 : i32
    %bs = tile.splat %base : tensor<64xi32>
    %idx = tile.arange : tensor<64xi32>
    %cols = arith.addi %bs, %idx : tensor<64xi32>
    %cols2 = tile.expand_dims %cols axis 0 : tensor<64xi32> -> tensor<1x64xi32>
    %ns = tile.splat %n : tensor<1x64xi32>
    %in = arith.cmpi slt, %cols2, %ns : tensor<1x64xi32>
    %cv = tile.convert_layout %in {tile.scratch_offset = 0 : i64} : tensor<1x64xi1> -> tensor<1x64xi1>
    %in2 = tile.broadcast %cv : tensor<1x64xi1> -> tensor<64x64xi1>
    %s = tile.load %x[%c0, %j] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
    %masked = arith.select %in2, %s, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %rm = tile.reduce max %masked axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %mn = arith.maximumf %m, %rm : tensor<64xf32>
    scf.yield %mn : tensor<64xf32>
  }
  tile.store %x[%c0, %c0], %r : !tile.tensor<?x?xf32>, tensor<64xf32>
  tile.return
}
