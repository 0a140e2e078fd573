// RUN: tessera-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts,tile-stage-operands,tile-allocate-shared,tile-insert-barriers),convert-tile-to-llvm)' | FileCheck %s

// A scalar print becomes vprintf with a "program (x, y, z): " format; thread 0
// gets the format, the other threads the empty string.
// CHECK-DAG: llvm.mlir.global internal constant @tessera_fmt_{{[0-9]+}}("program (%d, %d, %d): s = %g\0A\00")
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @prints
// CHECK: %[[V:.*]] = llvm.fpext %{{.*}} : f32 to f64
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, f64)>
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FMT:.*]] = llvm.select
// CHECK: llvm.call @vprintf(%[[FMT]], %{{.*}})
tile.kernel @prints(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  %s = tile.reduce sum %t axis 0 : tensor<128xf32> -> f32
  tile.print "s = ", %s : f32
  tile.return
}
