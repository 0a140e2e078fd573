//===- TileTypes.cpp - tile dialect types -----------------------*- C++ -*-===//
//
// Parsing, printing and verification of `!tile.tensor<?x64xbf16>` and of the
// shared-memory buffer type `!tile.memdesc<128x64xbf16, #tile.shared<{...}>>`.
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
      !elementType.isF64() && !isa<Float8E4M3FNType, Float8E5M2Type>(elementType) &&
      !elementType.isInteger(1) && !elementType.isInteger(8) && !elementType.isInteger(32) &&
      !elementType.isInteger(64))
    return emitError() << "unsupported tensor element type " << elementType;
  return success();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Tile/TileTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// !tile.memdesc
//===----------------------------------------------------------------------===//

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() || parser.parseAttribute(encoding) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<MemDescType>(parser.getContext(), shape, elementType, encoding);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getEncoding() << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType, Attribute encoding) {
  if (shape.size() != 2 && shape.size() != 3)
    return emitError()
           << "a shared buffer holds a 2-D tile or slots of one (rank 2 or 3), got rank "
           << shape.size();
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << "shared buffer extents must be positive, got " << d;
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() < 8 ||
      elementType.getIntOrFloatBitWidth() > 64)
    return emitError() << "unsupported shared buffer element type " << elementType;
  auto enc = dyn_cast<SharedEncodingAttr>(encoding);
  if (!enc)
    return emitError() << "a shared buffer needs a #tile.shared encoding";
  unsigned e = elementType.getIntOrFloatBitWidth() / 8;
  int64_t inner = enc.isRowMajor() ? shape.back() : shape[shape.size() - 2];
  if (enc.getSwizzle() && (inner * e) % enc.getSwizzle())
    return emitError() << "the contiguous extent (" << inner * e
                       << " bytes) must be a multiple of the " << enc.getSwizzle()
                       << "-byte swizzle";
  if (enc.getSwizzle() && enc.getVec() * e != 16)
    return emitError() << "a swizzled encoding moves 16-byte units: vec must be " << 16 / e
                       << " for " << elementType;
  return success();
}

SharedGeometry MemDescType::getGeometry() const {
  auto enc = cast<SharedEncodingAttr>(getEncoding());
  ArrayRef<int64_t> s = getShape();
  return SharedGeometry{
      s[s.size() - 2],  s.back(),     getElementType().getIntOrFloatBitWidth() / 8,
      enc.getSwizzle(), enc.getVec(), enc.isRowMajor()};
}

int64_t MemDescType::getSlotBytes() const {
  SharedGeometry g = getGeometry();
  return llvm::alignTo(g.bytes(), g.alignment());
}

int64_t MemDescType::getBytes() const {
  return getRank() == 3 ? getShape()[0] * getSlotBytes() : getGeometry().bytes();
}
