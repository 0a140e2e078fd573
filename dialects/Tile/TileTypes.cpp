//===- TileTypes.cpp - tile dialect types -----------------------*- C++ -*-===//
//
// Parsing, printing and verification of `!tile.tensor<?x64xbf16>`.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.cpp.inc"

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return parser.getChecked<GlobalTensorType>(parser.getContext(), shape, elementType);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape()) {
    if (ShapedType::isDynamic(d))
      printer << "?";
    else
      printer << d;
    printer << "x";
  }
  printer << getElementType() << ">";
}

LogicalResult GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                       ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "a tensor argument needs rank 1 or more";
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d) && d <= 0)
      return emitError() << "tensor extents must be positive or '?', got " << d;
  if (!elementType.isF16() && !elementType.isBF16() && !elementType.isF32() &&
      !elementType.isInteger(1) && !elementType.isInteger(32) && !elementType.isInteger(64))
    return emitError() << "unsupported tensor element type " << elementType;
  return success();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Tile/TileTypes.cpp.inc"
      >();
}
