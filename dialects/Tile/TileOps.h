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

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.h.inc"

#endif
