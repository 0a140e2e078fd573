//===- TileOps.cpp - tile dialect operations --------------------*- C++ -*-===//
//
// Custom assembly of `tile.kernel`, and the verifiers and folders of the tile ops
// for what their ODS constraints cannot say (shape relations between operands).
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The shape of a tile, or the empty shape of a scalar.
ArrayRef<int64_t> shapeOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getShape();
  return {};
}
Type elementOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getElementType();
  return t;
}
std::string shapeStr(ArrayRef<int64_t> s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}
bool isLanguageElement(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(t) || t.isInteger(1) || t.isInteger(8) ||
         t.isInteger(32) || t.isInteger(64);
}

/// Shared checks of load and store: coordinate count, the tile's rank and
/// type, and the block extents of a padded tile.
LogicalResult verifyAccess(Operation *op, GlobalTensorType tensor, size_t numCoords, Type tile,
                           std::optional<ArrayRef<int64_t>> extents) {
  if (extents) {
    ArrayRef<int64_t> shape = shapeOf(tile);
    if (extents->size() != shape.size())
      return op->emitOpError() << "has " << extents->size() << " extents for a tile of rank "
                               << shape.size();
    for (auto [e, s] : llvm::zip(*extents, shape))
      if (e < 1 || e > s)
        return op->emitOpError() << "extents " << shapeStr(*extents)
                                 << " must be from 1 to the tile's " << shapeStr(shape);
  }
  int64_t rank = tensor.getRank();
  if ((int64_t)numCoords != rank)
    return op->emitOpError() << "needs " << rank << " coordinates for a rank-" << rank
                             << " tensor, got " << numCoords;
  if ((int64_t)shapeOf(tile).size() > rank)
    return op->emitOpError() << "tile rank " << shapeOf(tile).size()
                             << " exceeds the tensor's rank " << rank;
  if (elementOf(tile) != tensor.getElementType())
    return op->emitOpError() << "tile element type " << elementOf(tile)
                             << " differs from the tensor's " << tensor.getElementType();
  return success();
}

/// Coordinates of loads, stores and copies: `%a, %b : i64`, where an i32
/// coordinate is written bare and a wider one with its type.
ParseResult parseCoords(OpAsmParser &p, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &coords,
                        SmallVectorImpl<Type> &types) {
  OpAsmParser::UnresolvedOperand first;
  OptionalParseResult has = p.parseOptionalOperand(first);
  if (!has.has_value())
    return success();
  if (failed(*has))
    return failure();
  auto typeOfLast = [&]() -> ParseResult {
    Type t = p.getBuilder().getI32Type();
    if (succeeded(p.parseOptionalColon()) && p.parseType(t))
      return failure();
    types.push_back(t);
    return success();
  };
  coords.push_back(first);
  if (typeOfLast())
    return failure();
  while (succeeded(p.parseOptionalComma())) {
    if (p.parseOperand(coords.emplace_back()) || typeOfLast())
      return failure();
  }
  return success();
}
void printCoords(OpAsmPrinter &p, Operation *, OperandRange coords, TypeRange types) {
  llvm::interleaveComma(llvm::zip(coords, types), p, [&](auto pair) {
    auto [v, t] = pair;
    p << v;
    if (!t.isInteger(32))
      p << " : " << t;
  });
}
/// The result type of tile.dim: i32 unless written (`-> i64`).
ParseResult parseIndexResult(OpAsmParser &p, Type &type) {
  type = p.getBuilder().getI32Type();
  if (succeeded(p.parseOptionalArrow()))
    return p.parseType(type);
  return success();
}
void printIndexResult(OpAsmPrinter &p, Operation *, Type type) {
  if (!type.isInteger(32))
    p << "-> " << type; // the printer has written the space
}
} // namespace

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name, FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(), builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  SmallVector<Location> locs(type.getNumInputs(), state.location);
  // Entry blocks are made without moving the builder's insertion point.
  for (int i = 0; i < 2; ++i) {
    Block *block = new Block();
    block->addArguments(type.getInputs(), locs);
    state.addRegion()->push_back(block);
  }
}

// tile.kernel @name(%a: T, ...) attributes {...} grid { ^bb0(...): ... } { body }
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr nameAttr;
  if (parser.parseSymbolName(nameAttr, SymbolTable::getSymbolAttrName(), result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren, /*allowType=*/true))
    return failure();
  SmallVector<Type> argTypes;
  for (auto &a : args)
    argTypes.push_back(a.type);
  Builder &b = parser.getBuilder();
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(b.getFunctionType(argTypes, {})));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  Region *grid = result.addRegion();
  if (parser.parseKeyword("grid") || parser.parseRegion(*grid, /*arguments=*/{}) ||
      parser.parseRegion(*body, args))
    return failure();
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << '(';
  llvm::interleaveComma(getBody().getArguments(), p,
                        [&](BlockArgument a) { p.printRegionArgument(a); });
  p << ')';
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {SymbolTable::getSymbolAttrName(), getFunctionTypeAttrName()});
  p << " grid ";
  p.printRegion(getGrid(), /*printEntryBlockArgs=*/true);
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void KernelOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setName) {
  auto names = (*this)->getAttrOfType<ArrayAttr>("tile.arg_names");
  if (!names || region.empty() || names.size() != region.getNumArguments())
    return;
  for (auto [arg, name] : llvm::zip(region.getArguments(), names))
    if (auto s = dyn_cast<StringAttr>(name))
      setName(arg, s.getValue());
}

int64_t mlir::tile::scheduleOption(Operation *op, StringRef option) {
  for (const tessera::ScheduleOption &o : tessera::kScheduleOptions)
    if (option == o.name) {
      auto a = op->getAttrOfType<IntegerAttr>(o.attr);
      return a ? a.getInt() : o.byDefault;
    }
  llvm_unreachable("not a schedule option of Knobs.h");
}

unsigned KernelOp::getNumWarps() {
  auto a = (*this)->getAttrOfType<IntegerAttr>("tile.num_warps");
  return a ? a.getInt() : tessera::kDefaultNumWarps;
}

unsigned KernelOp::getNumStages() {
  auto a = (*this)->getAttrOfType<IntegerAttr>("tile.num_stages");
  return a ? a.getInt() : tessera::kDefaultNumStages;
}

LogicalResult KernelOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("kernels return no values");
  for (Type t : type.getInputs())
    if (!isa<GlobalTensorType>(t) && !isLanguageElement(t))
      return emitOpError() << "argument type " << t
                           << " is neither a !tile.tensor nor a scalar element type";
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  ArrayRef<Type> inputs = getFunctionType().getInputs();
  for (Region *region : {&getBody(), &getGrid()}) {
    StringRef what = region == &getBody() ? "body" : "grid";
    if (!region->hasOneBlock())
      return emitOpError() << "the " << what << " region needs exactly one block";
    Block &block = region->front();
    if (block.getArgumentTypes() != TypeRange(inputs))
      return emitOpError() << "the " << what << " region's arguments must match the signature";
    Operation *term = block.empty() ? nullptr : &block.back();
    bool ok =
        region == &getBody() ? isa_and_nonnull<ReturnOp>(term) : isa_and_nonnull<YieldOp>(term);
    if (!ok)
      return emitOpError() << "the " << what << " region must end with "
                           << (region == &getBody() ? "tile.return" : "tile.yield");
  }
  return success();
}

LogicalResult YieldOp::verify() {
  if (getExtents().empty() || getExtents().size() > 3)
    return emitOpError() << "needs one to three grid extents, got " << getExtents().size();
  return success();
}

//===----------------------------------------------------------------------===//
// Metadata and shape ops
//===----------------------------------------------------------------------===//

LogicalResult AssertOp::verify() {
  if (!getPids().empty() && getPids().size() != 3)
    return emitOpError("takes no program ids or all three, got ") << getPids().size();
  return success();
}

LogicalResult DimOp::verify() {
  int64_t rank = getTensor().getType().getRank();
  if (getAxis() < 0 || getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " is out of range for a rank-" << rank
                         << " tensor";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = getTensor().getType();
  if (getAxis() < 0 || getAxis() >= type.getRank() || type.isDynamicDim(getAxis()))
    return {};
  return IntegerAttr::get(getType(), type.getShape()[getAxis()]);
}

LogicalResult ArangeOp::verify() {
  if (getType().getShape()[0] < 1)
    return emitOpError("needs a positive extent");
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (auto v = dyn_cast_or_null<TypedAttr>(adaptor.getValue()))
    if (isa<IntegerAttr, FloatAttr>(v))
      return DenseElementsAttr::get(getType(), v);
  return {};
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("changes the element type");
  if (src.getRank() > dst.getRank())
    return emitOpError("cannot lower the rank");
  int64_t off = dst.getRank() - src.getRank();
  for (int64_t i = 0; i < src.getRank(); ++i) {
    int64_t s = src.getShape()[i], d = dst.getShape()[i + off];
    if (s != d && s != 1)
      return emitOpError() << "cannot broadcast " << shapeStr(src.getShape()) << " to "
                           << shapeStr(dst.getShape());
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType());
  auto dst = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > (int64_t)src.size())
    return emitOpError() << "axis " << axis << " is out of range for rank " << src.size();
  SmallVector<int64_t> expect(src.begin(), src.end());
  expect.insert(expect.begin() + axis, 1);
  if (dst.getShape() != ArrayRef<int64_t>(expect) ||
      dst.getElementType() != elementOf(getSrc().getType()))
    return emitOpError() << "result must be " << shapeStr(expect) << " of "
                         << elementOf(getSrc().getType());
  return success();
}

LogicalResult TransposeOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dst = cast<RankedTensorType>(getResult().getType());
  if (dst.getElementType() != src.getElementType() || dst.getShape()[0] != src.getShape()[1] ||
      dst.getShape()[1] != src.getShape()[0])
    return emitOpError() << "result must be the transpose of " << src;
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (auto inner = getSrc().getDefiningOp<TransposeOp>())
    return inner.getSrc();
  return {};
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  if (dst.getElementType() != src.getElementType() || dst.getNumElements() != src.getNumElements())
    return emitOpError() << "result must hold the " << src.getNumElements() << " elements of "
                         << src << ", as " << src.getElementType();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  // Only the shapes differ; a reshape of a reshape reshapes the first source.
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<ReshapeOp>()) {
    if (inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

LogicalResult PermuteOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  ArrayRef<int64_t> dims = getDims();
  SmallVector<bool> seen(src.getRank(), false);
  if ((int64_t)dims.size() != src.getRank())
    return emitOpError() << "needs " << src.getRank() << " dims, got " << dims.size();
  for (int64_t d : dims) {
    if (d < 0 || d >= src.getRank() || seen[d])
      return emitOpError("dims must be a permutation of 0..") << src.getRank() - 1;
    seen[d] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d : dims)
    shape.push_back(src.getDimSize(d));
  if (dst.getElementType() != src.getElementType() || dst.getShape() != ArrayRef<int64_t>(shape))
    return emitOpError() << "result must be " << shapeStr(shape) << " of " << src.getElementType();
  return success();
}

LogicalResult ConvertOp::verify() {
  Type src = getSrc().getType(), dst = getResult().getType();
  if (isa<RankedTensorType>(src) != isa<RankedTensorType>(dst) || shapeOf(src) != shapeOf(dst))
    return emitOpError() << "cannot change the shape: " << src << " to " << dst;
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  Type dst = getResult().getType();
  if (getSrc().getType() == dst)
    return getSrc();
  // Scalar constants convert at compile time with the op's semantics (f8's
  // saturation is tile-legalize-float8's business: APFloat overflows to NaN).
  Attribute in = adaptor.getSrc();
  if (!in || isa<ShapedType>(dst) || isa<Float8E4M3FNType, Float8E5M2Type>(dst))
    return {};
  if (auto i = dyn_cast<IntegerAttr>(in)) {
    bool fromBool = i.getType().isInteger(1);
    APInt v = i.getValue();
    if (auto ft = dyn_cast<FloatType>(dst)) {
      APFloat f(ft.getFloatSemantics());
      f.convertFromAPInt(v, /*IsSigned=*/!fromBool, APFloat::rmNearestTiesToEven);
      return FloatAttr::get(dst, f);
    }
    unsigned w = dst.getIntOrFloatBitWidth();
    if (w == 1)
      return IntegerAttr::get(dst, v.isZero() ? 0 : 1);
    return IntegerAttr::get(dst, fromBool ? v.zextOrTrunc(w) : v.sextOrTrunc(w));
  }
  if (auto f = dyn_cast<FloatAttr>(in)) {
    APFloat v = f.getValue();
    bool lost;
    if (auto ft = dyn_cast<FloatType>(dst)) {
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      return FloatAttr::get(dst, v);
    }
    unsigned w = dst.getIntOrFloatBitWidth();
    if (w == 1)
      return IntegerAttr::get(dst, v.isZero() ? 0 : 1);
    if (v.isNaN())
      return IntegerAttr::get(dst, 0);
    APSInt r(w, /*isUnsigned=*/false);
    v.convertToInteger(r, APFloat::rmTowardZero, &lost); // saturates
    return IntegerAttr::get(dst, r);
  }
  return {};
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  Type type = getResult().getType();
  if (getSrc().getType() == type)
    return getSrc();
  // convert(convert(x)) -> convert(x)
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    getSrcMutable().set(inner.getSrc());
    return getResult();
  }
  // A splat constant has no layout of its own: make it in the one wanted.
  if (auto dense = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(cast<ShapedType>(type), dense.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// Memory and compute ops
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (failed(
          verifyAccess(*this, getTensor().getType(), getCoords().size(), getType(), getExtents())))
    return failure();
  if (getPad() && getPad().getType() != getTensor().getType().getElementType())
    return emitOpError() << "pad type " << getPad().getType() << " differs from the element type "
                         << getTensor().getType().getElementType();
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getTensor().getType(), getCoords().size(), getValue().getType(),
                      getExtents());
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (a.getShape()[1] != b.getShape()[0] || acc.getShape()[0] != a.getShape()[0] ||
      acc.getShape()[1] != b.getShape()[1])
    return emitOpError() << "shapes do not chain: " << shapeStr(a.getShape()) << " x "
                         << shapeStr(b.getShape()) << " -> " << shapeStr(acc.getShape());
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "operands have different element types: " << a.getElementType()
                         << " and " << b.getElementType();
  if (!isa<FloatType>(a.getElementType()) || !isa<FloatType>(acc.getElementType()))
    return emitOpError() << "cannot accumulate " << a.getElementType() << " products in "
                         << acc.getElementType();
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for rank " << src.getRank();
  SmallVector<int64_t> expect(src.getShape());
  expect.erase(expect.begin() + axis);
  Type result = getType();
  if (shapeOf(result) != ArrayRef<int64_t>(expect) ||
      isa<RankedTensorType>(result) != !expect.empty() || elementOf(result) != src.getElementType())
    return emitOpError() << "result must be " << (expect.empty() ? "a scalar" : shapeStr(expect))
                         << " of " << src.getElementType();
  if (src.getElementType().isInteger(1) && getKind() == ReduceKind::sum)
    return emitOpError("cannot sum booleans");
  return success();
}
