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
    element-wise ops follow their first non-constant operand. Where an operand
    has the wrong layout a `tile.convert_layout` is inserted; loop-carried
    values keep the layout of their initial value. Conversions that fold away
    (no-ops, chains, splat constants) are removed.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

#endif // TESSERA_TRANSFORMS_PASSES_TD
