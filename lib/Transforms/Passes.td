//===- Passes.td - tile IR transformations -----------------------*- tablegen -*-===//
//
// One def per pass; each lives in its own .cpp under lib/Transforms and has a lit
// test of the same name under test/lit/Transforms.
//
//===----------------------------------------------------------------------------===//

#ifndef TESSERA_TRANSFORMS_PASSES_TD
#define TESSERA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::tile::KernelOp"> {
  let summary = "gives every tile a distributed layout and inserts layout conversions";
  let description = [{
    Attaches a layout encoding to every tile of a kernel. Loads, stores and
    other anchors get a coalesced blocked layout (16-byte vectors per thread
    along the contiguous axis, lanes along it, warps along the outer axes);
    `tile.dot` gets an mma accumulator layout (f16/bf16) or a blocked one (f32)
    with dot-operand layouts for its inputs; reductions give slice layouts;
    element-wise ops follow an mma-rooted operand, else their first
    non-constant one, so that attention's softmax runs in the dot's registers.
    Where an operand has the wrong layout it is recomputed there when it comes
    from index math (aranges, splats, element-wise ops, broadcasts), else a
    `tile.convert_layout` is inserted; loop-carried values take the layout
    each iteration produces. Conversions that fold away (no-ops, chains, splat
    constants) are removed and loop-invariant ones hoisted. Whether a dot
    runs on tensor cores, and on which instruction, is the target's answer
    (TargetInfo::tensorCoreInstr for `arch`).
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture code is generated for (sm_80, sm_90a, ...)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileSinkSharedLoads : Pass<"tile-sink-shared-loads", "::mlir::ModuleOp"> {
  let summary = "moves shared-memory loads of lowered kernels down to their first use";
  let description = [{
    Runs on the LLVM dialect after `convert-tile-to-llvm`. A layout conversion
    into mma operands loads every fragment (ldmatrix) before the first mma that
    uses it; this pass moves each shared-memory load, and the struct/vector
    extracts, inserts and bitcasts between it and its users, to just before its
    first user in the same block, so fragments stay live only while used. Loads
    never cross barriers or ops that may write memory.

    ```mlir
    %f = llvm.inline_asm has_side_effects "ldmatrix...", "=r,l" %addr : (!llvm.ptr<3>) -> i32
    ... // other mma.sync
    %d = llvm.inline_asm "mma.sync...", "..." %f, ... // %f's load now sits here
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TESSERA_TRANSFORMS_PASSES_TD
