// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// Every tile op prints and parses back to itself.

// CHECK-LABEL: tile.kernel @copy
// CHECK-SAME: (%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
// CHECK: grid {
// CHECK: tile.dim %{{.*}}[0] : <?xf32>
// CHECK: tile.yield %{{.*}} : i32
// CHECK: tile.program_id 0
// CHECK: tile.load %x[%{{.*}}] : <?xf32> -> tensor<128xf32>
// CHECK: tile.store %y[%{{.*}}], %{{.*}} : <?xf32>, tensor<128xf32>
// CHECK: tile.return
tile.kernel @copy(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>) attributes {tile.arg_names = ["x", "y"]} grid {
^bb0(%gx: !tile.tensor<?xf32>, %gy: !tile.tensor<?xf32>):
  %n = tile.dim %gx[0] : !tile.tensor<?xf32>
  %c = arith.constant 128 : i32
  %g = arith.ceildivsi %n, %c : i32
  tile.yield %g : i32
} {
  %p = tile.program_id 0
  %t = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<128xf32>
  tile.store %y[%p], %t : !tile.tensor<?xf32>, tensor<128xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @shapes
// CHECK: tile.num_programs 1
// CHECK: tile.arange : tensor<64xi32>
// CHECK: tile.splat %{{.*}} : tensor<64x64xf32>
// CHECK: tile.expand_dims %{{.*}} axis 1 : tensor<64xi32> -> tensor<64x1xi32>
// CHECK: tile.broadcast %{{.*}} : tensor<64x1xi32> -> tensor<64x64xi32>
// CHECK: tile.broadcast %{{.*}} : tensor<64xi32> -> tensor<64x64xi32>
// CHECK: tile.transpose %{{.*}} : tensor<64x32xf16> -> tensor<32x64xf16>
// CHECK: tile.convert %{{.*}} : tensor<64x64xf32> -> tensor<64x64xbf16>
// CHECK: tile.convert %{{.*}} : i32 -> f32
// CHECK: tile.expand_dims %{{.*}} axis 0 : f32 -> tensor<1xf32>
// CHECK: tile.print "v = ", %{{.*}} : tensor<1xf32>
// CHECK: tile.assert "n \22positive\22", %{{.*}} : i1
// CHECK: tile.assert "rows in order", %{{.*}} pids %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xi1>
tile.kernel @shapes(%s: f32, %hx: !tile.tensor<?x?xf16>) grid {
^bb0(%a: f32, %b: !tile.tensor<?x?xf16>):
  %c = arith.constant 1 : i32
  tile.yield %c, %c : i32, i32
} {
  %n = tile.num_programs 1
  %h = tile.load %hx[%n, %n] : !tile.tensor<?x?xf16> -> tensor<64x32xf16>
  %r = tile.arange : tensor<64xi32>
  %f = tile.splat %s : tensor<64x64xf32>
  %e = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %b1 = tile.broadcast %e : tensor<64x1xi32> -> tensor<64x64xi32>
  %b2 = tile.broadcast %r : tensor<64xi32> -> tensor<64x64xi32>
  %t = tile.transpose %h : tensor<64x32xf16> -> tensor<32x64xf16>
  %cv = tile.convert %f : tensor<64x64xf32> -> tensor<64x64xbf16>
  %nf = tile.convert %n : i32 -> f32
  %v = tile.expand_dims %nf axis 0 : f32 -> tensor<1xf32>
  tile.print "v = ", %v : tensor<1xf32>
  %zero = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %zero : i32
  tile.assert "n \22positive\22", %pos : i1
  %le = arith.cmpi sle, %b1, %b2 : tensor<64x64xi32>
  tile.assert "rows in order", %le pids %n, %n, %n : tensor<64x64xi1>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @compute
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<64x16xf32>) : i32
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] pad %{{.*}} : <?x?xbf16> -> tensor<64x32xbf16>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xf32>
// CHECK: tile.reduce max %{{.*}} axis 1 : tensor<64x16xf32> -> tensor<64xf32>
// CHECK: tile.reduce sum %{{.*}} axis 0 : tensor<64xf32> -> f32
// CHECK: tile.reduce min %{{.*}} axis 0 : tensor<64x16xf32> -> tensor<16xf32>
// CHECK: tile.scan sum %{{.*}} axis 1 : tensor<64x16xf32>
// CHECK: tile.scan max %{{.*}} axis 0 : tensor<64x16xf32>
// CHECK: tile.associative_scan %{{.*}} axis 1 : tensor<64x16xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[P]], %{{.*}} : f32
// CHECK-NEXT: tile.combiner_yield %[[Q]] : f32
// CHECK-NEXT: }
// CHECK: tile.reshape %{{.*}} : tensor<64x16xf32> -> tensor<4x16x16xf32>
// CHECK: tile.permute %{{.*}} [2, 0, 1] : tensor<4x16x16xf32> -> tensor<16x4x16xf32>
tile.kernel @compute(%a: !tile.tensor<?x?xbf16>, %bx: !tile.tensor<32x16xbf16>, %n: i32) grid {
^bb0(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<32x16xbf16>, %z: i32):
  tile.yield %z : i32
} {
  %c0 = arith.constant 0 : i32
  %b = tile.load %bx[%c0, %c0] : !tile.tensor<32x16xbf16> -> tensor<32x16xbf16>
  %c1 = arith.constant 1 : i32
  %pad = arith.constant 0.0 : bf16
  %acc0 = arith.constant dense<0.0> : tensor<64x16xf32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x16xf32>) : i32 {
    %t = tile.load %a[%i, %c0] pad %pad : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16>
    %d = tile.dot %t, %b, %acc : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xf32>
    scf.yield %d : tensor<64x16xf32>
  }
  %m = tile.reduce max %res axis 1 : tensor<64x16xf32> -> tensor<64xf32>
  %s = tile.reduce sum %m axis 0 : tensor<64xf32> -> f32
  %mn = tile.reduce min %res axis 0 : tensor<64x16xf32> -> tensor<16xf32>
  %cs = tile.scan sum %res axis 1 : tensor<64x16xf32>
  %cm = tile.scan max %res axis 0 : tensor<64x16xf32>
  %ca = tile.associative_scan %res axis 1 : tensor<64x16xf32> {
  ^bb0(%l: f32, %r: f32):
    %p = arith.mulf %l, %r : f32
    %q = arith.addf %p, %s : f32
    tile.combiner_yield %q : f32
  }
  %r3 = tile.reshape %res : tensor<64x16xf32> -> tensor<4x16x16xf32>
  %p3 = tile.permute %r3 [2, 0, 1] : tensor<4x16x16xf32> -> tensor<16x4x16xf32>
  tile.return
}

// -----

// Element-addressed accesses: one index per axis (i32 or i64), an optional
// mask and pad; a scalar access has scalar indices.
// CHECK-LABEL: tile.kernel @indexed
// CHECK: tile.gather %{{[a-z0-9]+}}[%{{.*}}, %{{.*}}] mask %{{.*}} : tensor<16x32xi1> pad %{{.*}} : <?x?xf32>[tensor<16x32xi32>, tensor<16x32xi64>] -> tensor<16x32xf32>
// CHECK: tile.gather %{{[a-z0-9]+}}[%{{.*}}, %{{.*}}] : <?x?xf32>[i32, i32] -> f32
// CHECK: tile.scatter %{{[a-z0-9]+}}[%{{.*}}, %{{.*}}], %{{.*}} mask %{{.*}} : tensor<16x32xi1> : <?x?xf32>[tensor<16x32xi32>, tensor<16x32xi64>], tensor<16x32xf32>
// CHECK: tile.scatter %{{[a-z0-9]+}}[%{{.*}}, %{{.*}}], %{{.*}} : <?x?xf32>[i32, i32], f32
tile.kernel @indexed(%x: !tile.tensor<?x?xf32>) grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant dense<3> : tensor<16x32xi32>
  %j = arith.constant dense<5> : tensor<16x32xi64>
  %m = arith.constant dense<true> : tensor<16x32xi1>
  %pad = arith.constant 1.0 : f32
  %s = arith.constant 2 : i32
  %v = tile.gather %x[%i, %j] mask %m : tensor<16x32xi1> pad %pad : !tile.tensor<?x?xf32>[tensor<16x32xi32>, tensor<16x32xi64>] -> tensor<16x32xf32>
  %e = tile.gather %x[%s, %s] : !tile.tensor<?x?xf32>[i32, i32] -> f32
  tile.scatter %x[%i, %j], %v mask %m : tensor<16x32xi1> : !tile.tensor<?x?xf32>[tensor<16x32xi32>, tensor<16x32xi64>], tensor<16x32xf32>
  tile.scatter %x[%s, %s], %e : !tile.tensor<?x?xf32>[i32, i32], f32
  tile.return
}

// -----

// Atomics: a kind, the element address, the value(s), an optional mask; the
// old values come back in the value's type.
// CHECK-LABEL: tile.kernel @atomics
// CHECK: tile.atomic_rmw add %{{[a-z0-9]+}}[%{{.*}}], %{{.*}} mask %{{.*}} : tensor<128xi1> : <?xi32>[tensor<128xi32>], tensor<128xi32>
// CHECK: tile.atomic_rmw max %{{[a-z0-9]+}}[%{{.*}}], %{{.*}} : <?xi32>[i32], i32
// CHECK: tile.atomic_cas %{{[a-z0-9]+}}[%{{.*}}], %{{.*}}, %{{.*}} : <?xi32>[tensor<128xi32>], tensor<128xi32>
// CHECK: tile.multiple_of %{{.*}} {divisor = 8 : i64} : tensor<128xi32>
tile.kernel @atomics(%h: !tile.tensor<?xi32>) grid {
^bb0(%a: !tile.tensor<?xi32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = tile.arange : tensor<128xi32>
  %m = arith.constant dense<true> : tensor<128xi1>
  %s = arith.constant 3 : i32
  %o = tile.atomic_rmw add %h[%i], %i mask %m : tensor<128xi1> : !tile.tensor<?xi32>[tensor<128xi32>], tensor<128xi32>
  %p = tile.atomic_rmw max %h[%s], %s : !tile.tensor<?xi32>[i32], i32
  %q = tile.atomic_cas %h[%i], %o, %i : !tile.tensor<?xi32>[tensor<128xi32>], tensor<128xi32>
  %r = tile.multiple_of %i {divisor = 8 : i64} : tensor<128xi32>
  tile.return
}

// -----

// The 64-bit size class: i64 extents and coordinates carry their type; i32
// ones are written bare.
// CHECK-LABEL: tile.kernel @index64
// CHECK: tile.dim %{{.*}}[0] : <?x?xf32> -> i64
// CHECK: tile.yield %{{.*}} : i64
// CHECK: tile.load %{{.*}}[%{{.*}} : i64, %{{.*}}] : <?x?xf32> -> tensor<128xf32>
// CHECK: tile.store %{{.*}}[%{{.*}} : i64, %{{.*}}], %{{.*}} : <?x?xf32>, tensor<128xf32>
tile.kernel @index64(%x: !tile.tensor<?x?xf32>) attributes {tile.index64} grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %n = tile.dim %a[0] : !tile.tensor<?x?xf32> -> i64
  tile.yield %n : i64
} {
  %pid = tile.program_id 0
  %row = arith.extsi %pid : i32 to i64
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%row : i64, %c0] : !tile.tensor<?x?xf32> -> tensor<128xf32>
  tile.store %x[%row : i64, %c0], %t : !tile.tensor<?x?xf32>, tensor<128xf32>
  tile.return
}
