// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-legalize-float8))' | FileCheck %s

// f8 tensors, tiles and constants become i8; a decode goes through the bits
// (extui, the rebiased exponent, a subnormal product, NaN) to an f32 bitcast.
// CHECK-LABEL: tile.kernel @decode(%{{.*}}: !tile.tensor<?xi8>, %{{.*}}: !tile.tensor<?xf32>)
// CHECK: ^bb0(%{{.*}}: !tile.tensor<?xi8>, %{{.*}}: !tile.tensor<?xf32>):
// CHECK: %[[PAD:.*]] = arith.constant 60 : i8
// CHECK: %[[T:.*]] = tile.load %{{.*}}[%{{.*}}] pad %[[PAD]] : <?xi8> -> tensor<64xi8>
// CHECK: %[[U:.*]] = arith.extui %[[T]] : tensor<64xi8> to tensor<64xi32>
// CHECK: arith.constant dense<1006632960> : tensor<64xi32>
// CHECK: arith.constant dense<0.001953125> : tensor<64xf32>
// CHECK: arith.constant dense<2143289344> : tensor<64xi32>
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : tensor<64xi32> to tensor<64xf32>
// CHECK: tile.store %{{.*}}[%{{.*}}], %[[F]] : <?xf32>, tensor<64xf32>
// CHECK-NOT: f8E4M3FN
tile.kernel @decode(%x: !tile.tensor<?xf8E4M3FN>, %y: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf8E4M3FN>, %b: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  %pad = arith.constant 1.5 : f8E4M3FN
  %t = tile.load %x[%p] pad %pad : !tile.tensor<?xf8E4M3FN> -> tensor<64xf8E4M3FN>
  %f = tile.convert %t : tensor<64xf8E4M3FN> -> tensor<64xf32>
  tile.store %y[%p], %f : !tile.tensor<?xf32>, tensor<64xf32>
  tile.return
}

// -----

// An encode rounds the f32 bits to 2 mantissa bits (e5m2: shift 21), takes
// subnormals through roundeven, saturates at code 0x7b, keeps NaN and the sign,
// and truncates to the i8 stored. f64 is rounded to odd in f32 first; a select
// of f8 values selects their bits.
// CHECK-LABEL: tile.kernel @encode
// CHECK: arith.truncf %{{.*}} : tensor<64xf64> to tensor<64xf32>
// CHECK: arith.extf
// CHECK: math.absf
// CHECK: arith.cmpf one
// CHECK: arith.constant dense<21> : tensor<64xi32>
// CHECK: math.roundeven
// CHECK: arith.constant dense<123> : tensor<64xi32>
// CHECK: arith.minsi
// CHECK: arith.constant dense<2139095040> : tensor<64xi32>
// CHECK: %[[B:.*]] = arith.trunci %{{.*}} : tensor<64xi32> to tensor<64xi8>
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[B]], %{{.*}} : tensor<64xi8>
// CHECK: tile.store %{{.*}}[%{{.*}}], %[[S]] : <?xi8>, tensor<64xi8>
tile.kernel @encode(%x: !tile.tensor<?xf64>, %y: !tile.tensor<?xf8E5M2>, %m: i1) grid {
^bb0(%a: !tile.tensor<?xf64>, %b: !tile.tensor<?xf8E5M2>, %n: i1):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  %t = tile.load %x[%p] : !tile.tensor<?xf64> -> tensor<64xf64>
  %e = tile.convert %t : tensor<64xf64> -> tensor<64xf8E5M2>
  %z = arith.constant dense<0.0> : tensor<64xf8E5M2>
  %s = arith.select %m, %e, %z : tensor<64xf8E5M2>
  tile.store %y[%p], %s : !tile.tensor<?xf8E5M2>, tensor<64xf8E5M2>
  tile.return
}
