// RUN: tessera-opt %s --convert-tile-to-llvm | FileCheck %s
// The turns of two compute warpgroups (tile-pingpong): warpgroup g = tid / 128
// waits on named barrier 2 + g and passes to 3 - g, over 256 threads; `only`
// guards the op with the warpgroup's index.
// CHECK-LABEL: llvm.func @turns
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[G:.*]] = llvm.udiv %[[TID]], %{{.*}}
// CHECK: %[[IS1:.*]] = llvm.icmp "eq" %[[G]], %{{.*}}
// CHECK: llvm.cond_br %[[IS1]]
// CHECK: %[[ID0:.*]] = llvm.sub %{{.*}}, %[[G]]
// CHECK: nvvm.barrier.arrive id = %[[ID0]] number_of_threads = %{{.*}}
// CHECK: %[[W:.*]] = llvm.udiv
// CHECK: %[[ID1:.*]] = llvm.add %[[W]], %{{.*}}
// CHECK: nvvm.barrier id = %[[ID1]] number_of_threads = %{{.*}}
// CHECK: nvvm.barrier.arrive
// CHECK: llvm.icmp "eq"
// CHECK: llvm.cond_br
// CHECK: nvvm.barrier id
tile.kernel @turns(%a: !tile.tensor<?xf32>) attributes {tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} grid {
^bb0(%x: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  tile.turn_pass only 1
  tile.turn_wait
  tile.turn_pass
  tile.turn_wait only 0
  tile.return
}
