// RUN: tessera-opt %s -split-input-file --tile-sink-shared-loads | FileCheck %s

// Each fragment load moves down to the mma that uses it, with the plumbing
// (struct extract, bitcasts) between them; the mma order is unchanged.
// CHECK-LABEL: llvm.func @interleave
// CHECK: %[[A:.*]] = nvvm.ldmatrix {{.*}}num = 2
// CHECK-NEXT: llvm.extractvalue %[[A]][0]
// CHECK-NEXT: %[[X:.*]] = llvm.inline_asm "mma
// CHECK-NEXT: %[[B:.*]] = nvvm.ldmatrix {{.*}}num = 1
// CHECK-NEXT: llvm.bitcast %[[B]]
// CHECK-NEXT: llvm.bitcast
// CHECK-NEXT: llvm.inline_asm "mma{{.*}}" {{.*}} %[[X]]
// CHECK-NEXT: llvm.return
llvm.func @interleave(%p: !llvm.ptr<3>, %c: f32) -> f32 {
  %a = nvvm.ldmatrix %p {num = 2 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  %b = nvvm.ldmatrix %p {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> i32
  %a0 = llvm.extractvalue %a[0] : !llvm.struct<(i32, i32)>
  %bv = llvm.bitcast %b : i32 to vector<2xbf16>
  %bi = llvm.bitcast %bv : vector<2xbf16> to i32
  %x = llvm.inline_asm "mma $0, $1, $2;", "=f,r,0" %a0, %c : (i32, f32) -> f32
  %y = llvm.inline_asm "mma $0, $1, $2;", "=f,r,0" %bi, %x : (i32, f32) -> f32
  llvm.return %y : f32
}

// -----

// A barrier (or any op that may write memory) stops a load: shared memory may
// be rewritten after it.
// CHECK-LABEL: llvm.func @fenced
// CHECK: nvvm.ldmatrix
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.inline_asm "mma
// CHECK-NEXT: llvm.fadd
llvm.func @fenced(%p: !llvm.ptr<3>, %c: f32) -> f32 {
  %a = nvvm.ldmatrix %p {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> i32
  %l = llvm.load %p : !llvm.ptr<3> -> f32
  nvvm.barrier0
  llvm.store %c, %p : f32, !llvm.ptr<3>
  %x = llvm.inline_asm "mma $0, $1, $2;", "=f,r,0" %a, %c : (i32, f32) -> f32
  %s = llvm.fadd %x, %l : f32
  llvm.return %s : f32
}

// -----

// Users in another block keep a load where it is.
// CHECK-LABEL: llvm.func @other_block
// CHECK: llvm.load
// CHECK-NEXT: llvm.br ^bb1
llvm.func @other_block(%p: !llvm.ptr<3>) -> f32 {
  %l = llvm.load %p : !llvm.ptr<3> -> f32
  llvm.br ^bb1
^bb1:
  llvm.return %l : f32
}
