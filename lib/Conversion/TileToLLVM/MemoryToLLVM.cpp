//===- MemoryToLLVM.cpp - tile.load and tile.store --------------*- C++ -*-===//
//
// Each element's tensor coordinate is the op's block coordinate times the tile
// extent (the block extent of a padded tile) plus the element's coordinate in
// the tile (leading axes are indexed directly); it is in bounds when
// 0 <= t < extent on every axis and, in a padded tile, inside the block. Elements that
// are contiguous along the tensor's last axis in one thread (sizePerThread of the
// layout's fastest axis) move as one access of up to 16 bytes when the kernel was
// specialized on aligned tensors (`tile.aligned`, default true: base 16-byte
// aligned, row strides and the last extent multiples of 16 bytes), so that a
// group is all in or all out of bounds; otherwise element by element.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

Value tessera::conversion::ownsElement(OpBuilder &b, Location loc, const Distribution &dist,
                                       ArrayRef<Value> base, size_t i) {
  Value own = LLVM::ConstantOp::create(b, loc, b.getI1Type(), 1);
  for (unsigned d = 0; d < dist.rank(); ++d) {
    Value cond;
    if (dist.isSliced(d))
      cond = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, base[d], i32Const(b, loc, 0));
    else if (dist.wraps(d))
      cond = LLVM::ICmpOp::create(
          b, loc, LLVM::ICmpPredicate::slt,
          LLVM::AddOp::create(b, loc, base[d], i32Const(b, loc, dist.constOffset(i, d))),
          i32Const(b, loc, dist.shape[d]));
    if (cond)
      own = LLVM::AndOp::create(b, loc, own, cond);
  }
  return own;
}

FailureOr<GlobalAccess>
tessera::conversion::computeGlobalAccess(ConversionPatternRewriter &rw, Operation *op, Value desc,
                                         tile::GlobalTensorType tensor, ValueRange coords,
                                         Type tileType, bool forStore, ArrayRef<int64_t> extents) {
  Location loc = op->getLoc();
  unsigned r = tensor.getRank();
  auto tileTy = dyn_cast<RankedTensorType>(tileType);
  unsigned k = tileTy ? tileTy.getRank() : 0;
  Type eltTy = tensor.getElementType();
  Value base = LLVM::ExtractValueOp::create(rw, loc, desc, 0);
  SmallVector<Value> extent, stride;
  for (unsigned d = 0; d < r; ++d)
    extent.push_back(LLVM::ExtractValueOp::create(rw, loc, desc, 1 + d));
  for (unsigned d = 0; d + 1 < r; ++d)
    stride.push_back(LLVM::ExtractValueOp::create(rw, loc, desc, 1 + r + d));
  Type i64 = rw.getI64Type();
  // Coordinates are compared and multiplied in i32 unless an extent or a
  // coordinate is i64 (the 64-bit size class).
  Type idx = rw.getI32Type();
  auto wide = [](Value v) { return v.getType().isInteger(64); };
  if (llvm::any_of(extent, wide) || llvm::any_of(coords, wide))
    idx = i64;
  auto idxConst = [&](int64_t v) {
    return LLVM::ConstantOp::create(rw, loc, idx, rw.getIntegerAttr(idx, v)).getResult();
  };
  for (Value &e : extent)
    e = sextTo(rw, loc, e, idx);
  SmallVector<Value> coord;
  for (Value c : coords)
    coord.push_back(sextTo(rw, loc, c, idx));
  auto inBounds = [&](Value t, unsigned d) {
    Value ge = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::sge, t, idxConst(0));
    Value lt = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::slt, t, extent[d]);
    return LLVM::AndOp::create(rw, loc, ge, lt).getResult();
  };
  // The leading r-k axes: one coordinate each, shared by all elements.
  Value leadOffset = i64Const(rw, loc, 0);
  Value leadMask = LLVM::ConstantOp::create(rw, loc, rw.getI1Type(), 1);
  for (unsigned d = 0; d + k < r; ++d) {
    Value t = coord[d];
    leadMask = LLVM::AndOp::create(rw, loc, leadMask, inBounds(t, d));
    Value term = sextTo(rw, loc, t, i64);
    if (d + 1 < r)
      term = LLVM::MulOp::create(rw, loc, term, stride[d]);
    leadOffset = LLVM::AddOp::create(rw, loc, leadOffset, term);
  }
  GlobalAccess acc;
  auto ptrTy = LLVM::LLVMPointerType::get(rw.getContext(), 1);
  auto address = [&](Value offset) {
    return LLVM::GEPOp::create(rw, loc, ptrTy, eltTy, base, ValueRange{offset}).getResult();
  };
  if (!tileTy) {
    acc.addr.push_back(address(leadOffset));
    // Every thread holds a scalar; one stores it.
    Value owner = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, threadId(rw, loc),
                                       i32Const(rw, loc, 0));
    acc.mask.push_back(forStore ? LLVM::AndOp::create(rw, loc, leadMask, owner).getResult()
                                : leadMask);
    return acc;
  }
  FailureOr<Distribution> dist = distribute(tileTy);
  if (failed(dist))
    return op->emitError("code generation of this access needs a blocked layout");
  auto [lane, warp] = laneAndWarp(rw, loc);
  SmallVector<Value, 4> base4 = threadBase(rw, loc, *dist, lane, warp);
  auto elemCoords = elementCoords(rw, loc, *dist, base4);
  // Stores: only the thread that owns an element writes it (ownsElement).
  auto owner = [&](size_t i) { return ownsElement(rw, loc, *dist, base4, i); };
  // Block origins of the k tile axes: the block extents of a padded tile,
  // whose elements past them are outside.
  SmallVector<int64_t> block(extents.empty() ? tileTy.getShape() : extents);
  SmallVector<Value> origin;
  for (unsigned j = 0; j < k; ++j)
    origin.push_back(LLVM::MulOp::create(rw, loc, coord[r - k + j], idxConst(block[j])));
  for (auto &c : elemCoords) {
    Value offset = leadOffset, mask = leadMask;
    for (unsigned j = 0; j < k; ++j) {
      unsigned d = r - k + j;
      Value t = LLVM::AddOp::create(rw, loc, origin[j], sextTo(rw, loc, c[j], idx));
      mask = LLVM::AndOp::create(rw, loc, mask, inBounds(t, d));
      if (block[j] < tileTy.getShape()[j])
        mask = LLVM::AndOp::create(rw, loc, mask,
                                   LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::slt, c[j],
                                                        i32Const(rw, loc, block[j])));
      Value term = sextTo(rw, loc, t, i64);
      if (d + 1 < r)
        term = LLVM::MulOp::create(rw, loc, term, stride[d]);
      offset = LLVM::AddOp::create(rw, loc, offset, term);
    }
    acc.addr.push_back(address(offset));
    if (forStore)
      mask = LLVM::AndOp::create(rw, loc, mask, owner(acc.mask.size()));
    acc.mask.push_back(mask);
  }
  // Vector groups: contiguous along the last axis, within 16 bytes, on aligned
  // tensors (kUnalignedAttr marks the accesses of the others).
  auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  auto aligned = fn ? fn->getAttrOfType<BoolAttr>("tile.aligned") : BoolAttr();
  bool mayVectorize = (!aligned || aligned.getValue()) && !op->hasAttr(kUnalignedAttr);
  if (mayVectorize && dist->sliced.empty()) {
    unsigned vec = dist->contiguousRun();
    while (vec > 1 && (vec * storageBytes(eltTy) > 16 || (k && block[k - 1] % vec)))
      vec /= 2;
    acc.vec = std::max(1u, vec);
  }
  return acc;
}

namespace {

struct LoadLowering : ConvertOpToLLVMPattern<tile::LoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto tensor = op.getTensor().getType();
    Type eltTy = tensor.getElementType();
    FailureOr<GlobalAccess> acc =
        computeGlobalAccess(rw, op, adaptor.getTensor(), tensor, adaptor.getCoords(), op.getType(),
                            /*forStore=*/false, op.getExtents().value_or(ArrayRef<int64_t>()));
    if (failed(acc))
      return failure();
    Value pad = adaptor.getPad();
    if (!pad)
      pad = zeroOf(rw, loc, eltTy);
    SmallVector<Value> out;
    for (size_t i = 0; i < acc->addr.size(); i += acc->vec) {
      SmallVector<Value> pads(acc->vec, pad);
      auto vals = predicatedLoad(rw, loc, acc->addr[i], acc->mask[i], eltTy, acc->vec, pads);
      out.append(vals.begin(), vals.end());
    }
    if (!isa<RankedTensorType>(op.getType())) {
      rw.replaceOp(op, out[0]);
      return success();
    }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

struct StoreLowering : ConvertOpToLLVMPattern<tile::StoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto tensor = op.getTensor().getType();
    FailureOr<GlobalAccess> acc = computeGlobalAccess(
        rw, op, adaptor.getTensor(), tensor, adaptor.getCoords(), op.getValue().getType(),
        /*forStore=*/true, op.getExtents().value_or(ArrayRef<int64_t>()));
    if (failed(acc))
      return failure();
    SmallVector<Value> vals = isa<RankedTensorType>(op.getValue().getType())
                                  ? unpack(rw, loc, adaptor.getValue())
                                  : SmallVector<Value>{adaptor.getValue()};
    for (size_t i = 0; i < acc->addr.size(); i += acc->vec)
      predicatedStore(rw, loc, acc->addr[i], acc->mask[i],
                      ArrayRef<Value>(vals).slice(i, acc->vec));
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populateMemoryPatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering>(tc);
}
