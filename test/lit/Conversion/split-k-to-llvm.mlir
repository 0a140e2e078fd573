// RUN: tessera-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// Split-K publish and combine, with the layout given in the input: a [64, 64]
// f32 tile in the mma layout of 4 warps is 32 elements per thread, so a slot is
// 32 * 128 floats (16384 bytes, recorded for the runtime).

#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

// The ABI: the workspace and the counters follow the kernel's own parameters.
// CHECK-LABEL: llvm.func @split(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %[[WS:.*]]: !llvm.ptr<1>, %[[CNT:.*]]: !llvm.ptr<1>)
// CHECK-SAME: tile.split_k = 2 : i64
// CHECK-SAME: tile.split_k_slot_bytes = 16384 : i64
// publish: the tile (ctaid.y * nctaid.x + ctaid.x) and split (ctaid.z); 32
// stores of this thread's elements; membar.gl; a barrier; thread 0's atomic
// add on the tile's counter; an OR barrier of "saw the other split"; membar.gl.
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.y
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.z
// CHECK-COUNT-32: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: nvvm.barrier0
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: %[[ANY:.*]] = nvvm.barrier #nvvm.reduction<or> %{{.*}} -> i32
// CHECK: %[[LAST:.*]] = llvm.icmp "ne" %[[ANY]]
// CHECK: nvvm.memory.barrier <gpu>
// combine, in the last program: two volatile loads per element, split 0 then
// split 1, one add; thread 0 zeroes the counter.
// CHECK: llvm.cond_br %[[LAST]]
// CHECK: %[[P0:.*]] = llvm.load volatile %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: %[[P1:.*]] = llvm.load volatile %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.fadd %[[P0]], %[[P1]] : f32
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
tile.kernel @split(%c: !tile.tensor<?x?xf32>) attributes {tile.num_warps = 4 : i64, tile.split_k = 2 : i64} grid {
^bb0(%x: !tile.tensor<?x?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one, %one, %one : i32, i32, i32
} {
  %acc = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
  %last = tile.split_k_publish %acc {splits = 2 : i64} : tensor<64x64xf32, #mma>
  scf.if %last {
    %sum = tile.split_k_combine %acc {splits = 2 : i64} : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    tile.store %c[%c0, %c0], %sum : !tile.tensor<?x?xf32>, tensor<64x64xf32, #mma>
  }
  tile.return
}

