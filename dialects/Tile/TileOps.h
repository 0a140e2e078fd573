//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// The generated op classes of the tile dialect. Include TileDialect.h instead.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_DIALECTS_TILE_TILEOPS_H
#define TESSERA_DIALECTS_TILE_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
/// The block's shared memory, as a side-effect resource of the shared-memory ops.
struct SharedMemory : public SideEffects::Resource::Base<SharedMemory> {
  StringRef getName() final { return "<SharedMemory>"; }
};
/// The global workspace of a split-K kernel's partial accumulators.
struct SplitKWorkspace : public SideEffects::Resource::Base<SplitKWorkspace> {
  StringRef getName() final { return "<SplitKWorkspace>"; }
};
/// The value of the compiler's schedule option `option` (a name of
/// tessera::kScheduleOptions, such as kRotateDotsOption) on the kernel `op`,
/// or on the function it was lowered to: its attribute, else the default.
int64_t scheduleOption(Operation *op, StringRef option);
/// Whether `op` goes through shared-memory scratch (tile-allocate-shared gave
/// it `tile.scratch_offset`): it needs the barriers tile-insert-barriers put
/// around it, so passes that move or regroup ops leave it where it is.
inline bool usesScratch(Operation *op) { return op->hasAttr("tile.scratch_offset"); }
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.h.inc"

#endif
