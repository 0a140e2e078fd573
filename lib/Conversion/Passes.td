//===- Passes.td - conversions out of tile IR --------------------*- tablegen -*-===//
//
// One def per conversion pass; each has a lit test of the same name under
// test/lit/Conversion.
//
//===----------------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_PASSES_TD
#define TESSERA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lowers layout-assigned tile kernels to LLVM and NVVM";
  let description = [{
    Turns every `tile.kernel` whose tiles carry layouts (tile-assign-layouts)
    into an `llvm.func` marked `nvvm.kernel` with the kernel ABI of
    docs/kernel-abi.md: a tile becomes a struct of the elements each thread
    holds, loads and stores become predicated (vectorized where the layout and
    alignment allow) PTX accesses, reductions use warp shuffles and shared
    memory, and layout conversions go through shared memory. The grid region
    is dropped: the host evaluates it from the tile IR. Ops without a lowering
    yet are reported at their source location, and so is a kernel that needs
    more shared memory than a block of `arch` may have.
  }];
  let options = [
    Option<"arch", "arch", "std::string",
           "::tessera::target::TargetInfo::kDefaultArch.str()",
           "the GPU architecture code is generated for (sm_80, sm_90a, ...)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // TESSERA_CONVERSION_PASSES_TD
