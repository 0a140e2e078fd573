//===- TileAttrs.cpp - tile dialect layouts ---------------------*- C++ -*-===//
//
// Assembly and verification of the layout attributes: `#tile.blocked<{...}>`,
// `#tile.slice<{...}>`, `#tile.mma<{...}>` and `#tile.dot_op<{...}>` (their
// distributions are in TileLayouts.cpp), and of the shared-memory encoding
// `#tile.shared<{...}>`; each a brace-enclosed list of `name = value` fields in
// a fixed order.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "dialects/Tile/TileAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tile/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Tile/TileAttrs.cpp.inc"
      >();
}

namespace {
ParseResult parseList(AsmParser &p, StringRef name, SmallVectorImpl<unsigned> &out) {
  if (p.parseKeyword(name) || p.parseEqual() || p.parseLSquare())
    return failure();
  if (succeeded(p.parseOptionalRSquare()))
    return success();
  do {
    unsigned v;
    if (p.parseInteger(v))
      return failure();
    out.push_back(v);
  } while (succeeded(p.parseOptionalComma()));
  return p.parseRSquare();
}

void printList(AsmPrinter &p, StringRef name, ArrayRef<unsigned> v) {
  p << name << " = [";
  llvm::interleaveComma(v, p);
  p << "]";
}

ParseResult parseUnsigned(AsmParser &p, StringRef name, unsigned &out) {
  return failure(p.parseKeyword(name) || p.parseEqual() || p.parseInteger(out));
}

bool isLayout(Attribute a) {
  return isa<BlockedLayoutAttr, SliceLayoutAttr, MmaLayoutAttr, DotOperandLayoutAttr>(a);
}
} // namespace

Attribute BlockedLayoutAttr::parse(AsmParser &p, Type) {
  SmallVector<unsigned> spt, tpw, wpc, order;
  if (p.parseLess() || p.parseLBrace() || parseList(p, "sizePerThread", spt) || p.parseComma() ||
      parseList(p, "threadsPerWarp", tpw) || p.parseComma() || parseList(p, "warpsPerCTA", wpc) ||
      p.parseComma() || parseList(p, "order", order) || p.parseRBrace() || p.parseGreater())
    return {};
  return p.getChecked<BlockedLayoutAttr>(p.getContext(), spt, tpw, wpc, order);
}

void BlockedLayoutAttr::print(AsmPrinter &p) const {
  p << "<{";
  printList(p, "sizePerThread", getSizePerThread());
  p << ", ";
  printList(p, "threadsPerWarp", getThreadsPerWarp());
  p << ", ";
  printList(p, "warpsPerCTA", getWarpsPerCTA());
  p << ", ";
  printList(p, "order", getOrder());
  p << "}>";
}

LogicalResult BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                                        ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
  size_t r = order.size();
  if (r == 0 || spt.size() != r || tpw.size() != r || wpc.size() != r)
    return emitError() << "blocked layout fields must all have the same, non-zero rank";
  unsigned lanes = 1;
  SmallVector<bool> seen(r, false);
  for (size_t d = 0; d < r; ++d) {
    if (spt[d] == 0 || !llvm::isPowerOf2_32(tpw[d]) || !llvm::isPowerOf2_32(wpc[d]))
      return emitError() << "sizePerThread must be positive, threadsPerWarp and warpsPerCTA "
                            "powers of two";
    lanes *= tpw[d];
    if (order[d] >= r || seen[order[d]])
      return emitError() << "order must be a permutation of 0.." << r - 1;
    seen[order[d]] = true;
  }
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, got " << lanes;
  return success();
}

Attribute SliceLayoutAttr::parse(AsmParser &p, Type) {
  unsigned dim;
  Attribute parent;
  if (p.parseLess() || p.parseLBrace() || parseUnsigned(p, "dim", dim) || p.parseComma() ||
      p.parseKeyword("parent") || p.parseEqual() || p.parseAttribute(parent) || p.parseRBrace() ||
      p.parseGreater())
    return {};
  return p.getChecked<SliceLayoutAttr>(p.getContext(), dim, parent);
}

void SliceLayoutAttr::print(AsmPrinter &p) const {
  p << "<{dim = " << getDim() << ", parent = " << getParent() << "}>";
}

LogicalResult SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned dim,
                                      Attribute parent) {
  if (!isLayout(parent) || isa<DotOperandLayoutAttr>(parent))
    return emitError() << "the parent of a slice layout must be a blocked, mma or slice layout";
  return success();
}

Attribute MmaLayoutAttr::parse(AsmParser &p, Type) {
  unsigned version;
  SmallVector<unsigned> wpc, instr;
  if (p.parseLess() || p.parseLBrace() || parseUnsigned(p, "version", version) || p.parseComma() ||
      parseList(p, "warpsPerCTA", wpc) || p.parseComma() || parseList(p, "instrShape", instr) ||
      p.parseRBrace() || p.parseGreater())
    return {};
  return p.getChecked<MmaLayoutAttr>(p.getContext(), version, wpc, instr);
}

void MmaLayoutAttr::print(AsmPrinter &p) const {
  p << "<{version = " << getVersion() << ", ";
  printList(p, "warpsPerCTA", getWarpsPerCTA());
  p << ", ";
  printList(p, "instrShape", getInstrShape());
  p << "}>";
}

LogicalResult MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned version,
                                    ArrayRef<unsigned> wpc, ArrayRef<unsigned> instr) {
  if (wpc.size() != 2 || !llvm::isPowerOf2_32(wpc[0]) || !llvm::isPowerOf2_32(wpc[1]))
    return emitError() << "an mma layout needs two power-of-two warp counts";
  if (version == 2) {
    if (instr.size() != 2 || instr[0] != 16 || instr[1] != 8)
      return emitError() << "a version-2 mma layout has instrShape [16, 8]";
    return success();
  }
  if (version == 3) {
    if (wpc[0] % 4)
      return emitError() << "a version-3 mma layout needs whole warpgroups along M "
                            "(warpsPerCTA[0] a multiple of 4)";
    if (instr.size() != 2 || instr[0] != 64 || instr[1] < 8 || instr[1] > 256 || instr[1] % 8)
      return emitError() << "a version-3 mma layout has instrShape [64, N] with N a multiple "
                            "of 8 up to 256";
    return success();
  }
  return emitError() << "mma layout version " << version
                     << " is not supported (2: mma.sync, 3: wgmma)";
}

Attribute DotOperandLayoutAttr::parse(AsmParser &p, Type) {
  unsigned opIdx;
  Attribute parent;
  if (p.parseLess() || p.parseLBrace() || parseUnsigned(p, "opIdx", opIdx) || p.parseComma() ||
      p.parseKeyword("parent") || p.parseEqual() || p.parseAttribute(parent) || p.parseRBrace() ||
      p.parseGreater())
    return {};
  return p.getChecked<DotOperandLayoutAttr>(p.getContext(), opIdx, parent);
}

void DotOperandLayoutAttr::print(AsmPrinter &p) const {
  p << "<{opIdx = " << getOpIdx() << ", parent = " << getParent() << "}>";
}

LogicalResult DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           unsigned opIdx, Attribute parent) {
  if (opIdx > 1)
    return emitError() << "opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (!isa<MmaLayoutAttr, BlockedLayoutAttr>(parent))
    return emitError() << "the parent of a dot operand layout must be an mma or blocked layout";
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.shared
//===----------------------------------------------------------------------===//

Attribute SharedEncodingAttr::parse(AsmParser &p, Type) {
  unsigned swizzle, vec;
  SmallVector<unsigned> order;
  auto list = [&]() -> ParseResult {
    if (p.parseKeyword("order") || p.parseEqual() || p.parseLSquare())
      return failure();
    do {
      unsigned v;
      if (p.parseInteger(v))
        return failure();
      order.push_back(v);
    } while (succeeded(p.parseOptionalComma()));
    return p.parseRSquare();
  };
  if (p.parseLess() || p.parseLBrace() || p.parseKeyword("swizzle") || p.parseEqual() ||
      p.parseInteger(swizzle) || p.parseComma() || p.parseKeyword("vec") || p.parseEqual() ||
      p.parseInteger(vec) || p.parseComma() || list() || p.parseRBrace() || p.parseGreater())
    return {};
  return p.getChecked<SharedEncodingAttr>(p.getContext(), swizzle, vec, order);
}

void SharedEncodingAttr::print(AsmPrinter &p) const {
  p << "<{swizzle = " << getSwizzle() << ", vec = " << getVec() << ", order = [";
  llvm::interleaveComma(getOrder(), p);
  p << "]}>";
}

LogicalResult SharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         unsigned swizzle, unsigned vec, ArrayRef<unsigned> order) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got " << swizzle;
  if (!llvm::isPowerOf2_32(vec) || vec > 16)
    return emitError() << "vec must be a power of two up to 16, got " << vec;
  if (order.size() != 2 || !((order[0] == 0 && order[1] == 1) || (order[0] == 1 && order[1] == 0)))
    return emitError() << "a shared encoding orders two axes: [1, 0] or [0, 1]";
  return success();
}

SharedEncodingAttr SharedEncodingAttr::transposed() const {
  return SharedEncodingAttr::get(getContext(), getSwizzle(), getVec(),
                                 {getOrder()[1], getOrder()[0]});
}

int64_t SharedEncodingAttr::byteOffset(int64_t row, int64_t col, int64_t rows, int64_t cols,
                                       unsigned eltBytes) const {
  SharedGeometry g{rows, cols, eltBytes, getSwizzle(), getVec(), isRowMajor()};
  HostArith a;
  return sharedByteOffset(a, row, col, g);
}

int64_t SharedEncodingAttr::getAlignment() const {
  return getSwizzle() ? 8 * (int64_t)getSwizzle() : 16;
}
