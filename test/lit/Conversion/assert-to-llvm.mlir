// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts,tile-stage-operands,tile-allocate-shared,tile-insert-barriers),convert-tile-to-llvm)' | FileCheck %s

// Compiled for debugging (tile.debug, ids on the asserts): a thread whose
// elements fail claims the module's assert state with one compare-and-swap of
// the assert's id, and the winner records the program ids after it.
// CHECK: llvm.mlir.global external @tessera_assert_state(dense<0> : tensor<4xi32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<4 x i32>
// CHECK-LABEL: llvm.func @checked
// CHECK: %[[ADDR:.*]] = llvm.mlir.addressof @tessera_assert_state : !llvm.ptr<1>
// CHECK: %[[ID:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[PAIR:.*]] = llvm.cmpxchg %[[ADDR]], %{{.*}}, %[[ID]] monotonic monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.extractvalue %[[PAIR]][1]
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
tile.kernel @checked(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64, tile.debug} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %p = tile.program_id 0
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %ok = arith.cmpf oge, %t, %z : tensor<128xf32>
  tile.assert "non-negative", %ok pids %p, %c0, %c0 {tile.assert_id = 2 : i32} : tensor<128xi1>
  tile.return
}

// -----

// Without tile.debug the check is dropped.
// CHECK-LABEL: llvm.func @unchecked
// CHECK-NOT: llvm.cmpxchg
// CHECK-NOT: tessera_assert_state
// CHECK: llvm.return
tile.kernel @unchecked(%x: !tile.tensor<?xf32>) attributes {tile.num_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32>
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %ok = arith.cmpf oge, %t, %z : tensor<128xf32>
  tile.assert "non-negative", %ok {tile.assert_id = 1 : i32} : tensor<128xi1>
  tile.return
}
