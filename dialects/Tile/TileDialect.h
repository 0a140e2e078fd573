//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
//
// Declares the tile dialect with its types, attributes and ops. Include this one
// header to use the dialect.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_DIALECTS_TILE_TILEDIALECT_H
#define TESSERA_DIALECTS_TILE_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "dialects/Tile/Knobs.h"

#include "dialects/Tile/TileDialect.h.inc"
#include "dialects/Tile/TileEnums.h.inc"

#include "dialects/Tile/SharedLayout.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.h.inc"

#include "dialects/Tile/Distribution.h"
#include "dialects/Tile/TileAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tile/TileAttrs.h.inc"

#include "dialects/Tile/TileOps.h"

#endif
