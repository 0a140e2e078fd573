// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pad-extents))' | FileCheck %s

// Block loads and stores of a padded tile keep their block extents; element-
// wise math just widens; splat constants are rebuilt at the padded shape.
// CHECK-LABEL: tile.kernel @blocks
// CHECK: arith.constant dense<2.000000e+00> : tensor<64xf32>
// CHECK: %[[T:.*]] = tile.load %{{.*}}[%{{.*}}] {extents = array<i64: 48>} : <?xf32> -> tensor<64xf32>
// CHECK: %[[U:.*]] = arith.mulf %[[T]], %{{.*}} : tensor<64xf32>
// CHECK: tile.store %{{.*}}[%{{.*}}], %[[U]] {extents = array<i64: 48>} : <?xf32>, tensor<64xf32>
tile.kernel @blocks(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  %two = arith.constant dense<2.0> : tensor<48xf32>
  %t = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<48xf32>
  %u = arith.mulf %t, %two : tensor<48xf32>
  tile.store %x[%p], %u : !tile.tensor<?xf32>, tensor<48xf32>
  tile.return
}

// -----

// A reduction along a padded axis sees its identity in the padding (-inf for
// max, 0 for sum); along an unpadded axis nothing changes. Loop-carried tiles
// are padded with their loops.
// CHECK-LABEL: tile.kernel @reduce
// CHECK: %[[IDX:.*]] = tile.arange : tensor<128xi32>
// CHECK: %[[N:.*]] = arith.constant dense<80> : tensor<128xi32>
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[IDX]], %[[N]] : tensor<128xi32>
// CHECK: %[[IN2:.*]] = tile.expand_dims %[[IN]] axis 0 : tensor<128xi1> -> tensor<1x128xi1>
// CHECK: %[[M:.*]] = tile.broadcast %[[IN2]] : tensor<1x128xi1> -> tensor<8x128xi1>
// CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<8x128xf32>
// CHECK: %[[S:.*]] = arith.select %[[M]], %{{.*}}, %[[NINF]] : tensor<8x128xi1>, tensor<8x128xf32>
// CHECK: tile.reduce max %[[S]] axis 1 : tensor<8x128xf32> -> tensor<8xf32>
// CHECK: scf.for {{.*}} -> (tensor<8x128xf32>)
tile.kernel @reduce(%x: !tile.tensor<?x?xf32>) grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<8x80xf32>
  %m = tile.reduce max %t axis 1 : tensor<8x80xf32> -> tensor<8xf32>
  %s = tile.reduce sum %t axis 0 : tensor<8x80xf32> -> tensor<80xf32>
  %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %t) -> (tensor<8x80xf32>) : i32 {
    %n = arith.addf %a, %t : tensor<8x80xf32>
    scf.yield %n : tensor<8x80xf32>
  }
  tile.store %x[%c0, %c0], %acc : !tile.tensor<?x?xf32>, tensor<8x80xf32>
  tile.store %x[%c1, %c0], %s : !tile.tensor<?x?xf32>, tensor<80xf32>
  tile.return
}

// -----

// A dot whose K is padded sees zeros in the padded columns of A and rows of B:
// a loaded operand reads them as its zero pad (here B, transposed: the load's
// padded columns are the rows of its transpose), a computed one is masked
// (A, through exp2), as is a load with a pad other than zero.
// CHECK-LABEL: tile.kernel @dot
// CHECK: %[[BL:.*]] = tile.load %{{.*}} {extents = array<i64: 80, 48>} : <?x?xbf16> -> tensor<128x64xbf16>
// CHECK: %[[BT:.*]] = tile.transpose %[[BL]]
// CHECK: %[[A:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// CHECK-NOT: arith.select
// CHECK: tile.dot %[[A]], %[[BT]], %{{.*}} : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
// CHECK: %[[P:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x128xi1>, tensor<64x128xbf16>
// CHECK: tile.dot %{{.*}}, %[[P]], %{{.*}}
tile.kernel @dot(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %l = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<48x48xbf16>
  %a = math.exp2 %l : tensor<48x48xbf16>
  %bl = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<80x48xbf16>
  %b = tile.transpose %bl : tensor<80x48xbf16> -> tensor<48x80xbf16>
  %z = arith.constant dense<0.0> : tensor<48x80xf32>
  %d = tile.dot %a, %b, %z : tensor<48x48xbf16>, tensor<48x80xbf16> -> tensor<48x80xf32>
  tile.store %y[%c0, %c0], %d : !tile.tensor<?x?xf32>, tensor<48x80xf32>
  %one = arith.constant 1.0 : bf16
  %p = tile.load %x[%c0, %c0] pad %one : !tile.tensor<?x?xbf16> -> tensor<48x80xbf16>
  %e = tile.dot %l, %p, %z : tensor<48x48xbf16>, tensor<48x80xbf16> -> tensor<48x80xf32>
  tile.store %y[%c0, %c0], %e : !tile.tensor<?x?xf32>, tensor<48x80xf32>
  tile.return
}

// -----

// Element accesses and atomics get the logical elements ANDed into their masks.
// CHECK-LABEL: tile.kernel @indexed
// CHECK: %[[V:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK: tile.gather %{{.*}}[%{{.*}}] mask %[[V]] : tensor<64xi1> : <?xi32>[tensor<64xi32>] -> tensor<64xi32>
// CHECK: %[[AND:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<64xi1>
// CHECK: tile.atomic_rmw add %{{.*}}[%{{.*}}], %{{.*}} mask %[[AND]] : tensor<64xi1>
tile.kernel @indexed(%x: !tile.tensor<?xi32>) grid {
^bb0(%a: !tile.tensor<?xi32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = tile.arange : tensor<48xi32>
  %v = tile.gather %x[%i] : !tile.tensor<?xi32>[tensor<48xi32>] -> tensor<48xi32>
  %m = arith.constant dense<true> : tensor<48xi1>
  %o = tile.atomic_rmw add %x[%v], %i mask %m : tensor<48xi1> : !tile.tensor<?xi32>[tensor<48xi32>], tensor<48xi32>
  tile.return
}

// -----

// A dot of 4 rows (grouped-query decode) pads every extent 4 of the kernel to
// mma.sync's 16 rows, so that it runs on tensor cores: the load keeps its 4
// rows (extents), the row statistics widen with it, the store writes 4 rows.
// A dot whose padded shape would still leave a warp without a fragment keeps
// its extents (@tiny below).
// CHECK-LABEL: tile.kernel @small_dot
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {extents = array<i64: 4, 64>} : <?x?xbf16> -> tensor<16x64xbf16>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x128xbf16> -> tensor<16x128xf32>
// CHECK: tile.reduce max %{{.*}} axis 1 : tensor<16x128xf32> -> tensor<16xf32>
// CHECK: tile.store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {extents = array<i64: 4, 128>} : <?x?xf32>, tensor<16x128xf32>
// CHECK: tile.store %{{.*}}[%{{.*}}], %{{.*}} {extents = array<i64: 4>} : <?xf32>, tensor<16xf32>
tile.kernel @small_dot(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>, %r: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xf32>, %c: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<4x64xbf16>
  %k = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<4x128xf32>
  %s = tile.dot %q, %k, %z : tensor<4x64xbf16>, tensor<64x128xbf16> -> tensor<4x128xf32>
  %m = tile.reduce max %s axis 1 : tensor<4x128xf32> -> tensor<4xf32>
  tile.store %y[%c0, %c0], %s : !tile.tensor<?x?xf32>, tensor<4x128xf32>
  tile.store %r[%c0], %m : !tile.tensor<?xf32>, tensor<4xf32>
  tile.return
}

// -----

// The same dot in a kernel that reshapes a tile with 4 rows: a reshape cannot
// keep its element order through padding, so the dot keeps its 4 rows.
// CHECK-LABEL: tile.kernel @small_dot_reshaped
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x64xbf16>, tensor<64x128xbf16> -> tensor<4x128xf32>
// CHECK: tile.reshape %{{.*}} : tensor<4x128xf32> -> tensor<512xf32>
tile.kernel @small_dot_reshaped(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<4x64xbf16>
  %k = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<4x128xf32>
  %s = tile.dot %q, %k, %z : tensor<4x64xbf16>, tensor<64x128xbf16> -> tensor<4x128xf32>
  %f = tile.reshape %s : tensor<4x128xf32> -> tensor<512xf32>
  tile.store %y[%c0], %f : !tile.tensor<?xf32>, tensor<512xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @tiny
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x64xbf16>, tensor<64x16xbf16> -> tensor<4x16xf32>
tile.kernel @tiny(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %q = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<4x64xbf16>
  %k = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x16xbf16>
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %s = tile.dot %q, %k, %z : tensor<4x64xbf16>, tensor<64x16xbf16> -> tensor<4x16xf32>
  tile.store %y[%c0, %c0], %s : !tile.tensor<?x?xf32>, tensor<4x16xf32>
  tile.return
}

// -----

// A dot of one row (decode with as many query heads as KV heads) is not
// padded: extent 1 is every broadcast axis of the kernel.
// CHECK-LABEL: tile.kernel @one_row
// CHECK: tile.expand_dims %{{.*}} axis 0 : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x64xbf16>, tensor<64x128xbf16> -> tensor<1x128xf32>
tile.kernel @one_row(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %v = arith.constant dense<1.0> : tensor<64xf32>
  %e = tile.expand_dims %v axis 0 : tensor<64xf32> -> tensor<1x64xf32>
  %q = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<1x64xbf16>
  %k = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<1x128xf32>
  %s = tile.dot %q, %k, %z : tensor<1x64xbf16>, tensor<64x128xbf16> -> tensor<1x128xf32>
  tile.store %y[%c0, %c0], %s : !tile.tensor<?x?xf32>, tensor<1x128xf32>
  tile.store %y[%c0, %c0], %e : !tile.tensor<?x?xf32>, tensor<1x64xf32>
  tile.return
}

// -----

// An assert's condition holds in the padding, whatever the padded rows compute.
// CHECK-LABEL: tile.kernel @checked
// CHECK: %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK: %[[YES:.*]] = arith.constant dense<true> : tensor<64xi1>
// CHECK: %[[C:.*]] = arith.select %{{.*}}, %[[LT]], %[[YES]] : tensor<64xi1>, tensor<64xi1>
// CHECK: tile.assert "row in range", %[[C]] : tensor<64xi1>
tile.kernel @checked(%y: !tile.tensor<?xi32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xi32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %r = tile.arange : tensor<48xi32>
  %n = arith.constant dense<40> : tensor<48xi32>
  %lt = arith.cmpi slt, %r, %n : tensor<48xi32>
  tile.assert "row in range", %lt : tensor<48xi1>
  tile.return
}
