//===- AtomicToLLVM.cpp - tile.atomic_rmw and tile.atomic_cas ---*- C++ -*-===//
//
// Each element is addressed as tile.scatter addresses it (elementAccess): its
// update runs where its indices are inside the tensor and its mask holds, in
// the thread that owns it, as one relaxed device-scope LLVM atomicrmw or
// cmpxchg under an scf.if (the NVPTX backend picks the instruction: atom.add
// for f16/bf16/f32/i32/i64, a compare-and-swap loop where the target has none).
// Elements not updated yield 0. When the old values are used and the tile is
// replicated across threads (a scalar, or a tile smaller than the layout), the
// owners pass them to the replicas through the op's shared scratch.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// `update(addr, i)` in the threads where `mask[i]` holds, else 0.
template <typename F>
SmallVector<Value> guarded(ConversionPatternRewriter &rw, Location loc, const ElementAccess &acc,
                           Type eltTy, F update) {
  SmallVector<Value> old;
  for (size_t i = 0; i < acc.addr.size(); ++i) {
    auto branch = scf::IfOp::create(rw, loc, TypeRange{eltTy}, acc.mask[i], /*withElse=*/true);
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointToStart(&branch.getThenRegion().front());
    scf::YieldOp::create(rw, loc, update(acc.addr[i], i));
    rw.setInsertionPointToStart(&branch.getElseRegion().front());
    scf::YieldOp::create(rw, loc, zeroOf(rw, loc, eltTy));
    old.push_back(branch.getResult(0));
  }
  return old;
}

/// The op's result from the old values `old` of the elements this thread
/// updated: passed from the owners to the replicas through shared scratch
/// when the result is used and the access is replicated.
FailureOr<Value> finish(ConversionPatternRewriter &rw, Operation *op, Type resultType,
                        const TypeConverter &tc, SmallVector<Value> old) {
  Location loc = op->getLoc();
  auto tileTy = dyn_cast<RankedTensorType>(resultType);
  if (!op->getResult(0).use_empty() && tessera::analysis::atomicResultReplicated(resultType)) {
    auto offset = op->getAttrOfType<IntegerAttr>("tile.scratch_offset");
    if (!offset)
      return op->emitError("the old values of a replicated atomic need scratch: run "
                           "tile-allocate-shared first");
    Type eltTy = getElementTypeOrSelf(resultType);
    auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
    Value smem = LLVM::GEPOp::create(rw, loc, ptr3, rw.getI8Type(), sharedBase(rw, loc, op),
                                     ValueRange{i32Const(rw, loc, offset.getInt())});
    // The slot of each element: its row-major index in the tile.
    SmallVector<Value> slots;
    SmallVector<Value> owns;
    if (!tileTy) {
      slots.push_back(smem);
      owns.push_back(LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, threadId(rw, loc),
                                          i32Const(rw, loc, 0)));
    } else {
      FailureOr<Distribution> dist = distribute(tileTy);
      if (failed(dist))
        return op->emitError("code generation of this atomic needs a blocked layout");
      auto [lane, warp] = laneAndWarp(rw, loc);
      SmallVector<Value, 4> base = threadBase(rw, loc, *dist, lane, warp);
      auto coords = elementCoords(rw, loc, *dist, base);
      for (auto [i, c] : llvm::enumerate(coords)) {
        Value linear = i32Const(rw, loc, 0);
        for (unsigned d = 0; d < tileTy.getRank(); ++d)
          linear = LLVM::AddOp::create(
              rw, loc,
              LLVM::MulOp::create(rw, loc, linear, i32Const(rw, loc, tileTy.getDimSize(d))), c[d]);
        slots.push_back(LLVM::GEPOp::create(rw, loc, ptr3, eltTy, smem, ValueRange{linear}));
        owns.push_back(ownsElement(rw, loc, *dist, base, i));
      }
    }
    for (size_t i = 0; i < old.size(); ++i) {
      auto branch = scf::IfOp::create(rw, loc, TypeRange{}, owns[i], /*withElse=*/false);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&branch.getThenRegion().front());
      LLVM::StoreOp::create(rw, loc, old[i], slots[i]);
    }
    barrier(rw, loc);
    for (size_t i = 0; i < old.size(); ++i)
      old[i] = LLVM::LoadOp::create(rw, loc, eltTy, slots[i]);
  }
  if (!tileTy)
    return old[0];
  return pack(rw, loc, tc.convertType(resultType), old);
}

LLVM::AtomicBinOp binOp(tile::AtomicKind kind, Type t) {
  bool f = isa<FloatType>(t);
  switch (kind) {
  case tile::AtomicKind::add:
    return f ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case tile::AtomicKind::max:
    return f ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case tile::AtomicKind::min:
    return f ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case tile::AtomicKind::xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  llvm_unreachable("atomic kind");
}

constexpr const char *kScope = "device";

/// The elements of a tile operand (or the scalar itself).
SmallVector<Value> elementsOf(ConversionPatternRewriter &rw, Location loc, Value v) {
  return isa<LLVM::LLVMStructType>(v.getType()) ? unpack(rw, loc, v) : SmallVector<Value>{v};
}

/// Replaces the atomic `op` (tile.atomic_rmw or tile.atomic_cas): element i
/// is updated by `update(address, i)` where it is accessed, and the op's
/// result is the old values.
template <typename OpTy, typename F>
LogicalResult lowerAtomic(OpTy op, typename OpTy::Adaptor adaptor, ConversionPatternRewriter &rw,
                          const TypeConverter &tc, F update) {
  Type eltTy = op.getTensor().getType().getElementType();
  FailureOr<ElementAccess> acc = elementAccess(
      rw, op, adaptor.getTensor(), op.getTensor().getType(), adaptor.getIndices(), op.getIndices(),
      adaptor.getMask(), op.getMask(), op.getType(), /*forStore=*/true);
  if (failed(acc))
    return failure();
  SmallVector<Value> old = guarded(rw, op.getLoc(), *acc, eltTy, update);
  FailureOr<Value> result = finish(rw, op, op.getType(), tc, old);
  if (failed(result))
    return failure();
  rw.replaceOp(op, *result);
  return success();
}

struct AtomicRMWLowering : ConvertOpToLLVMPattern<tile::AtomicRMWOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::AtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    SmallVector<Value> vals = elementsOf(rw, loc, adaptor.getValue());
    LLVM::AtomicBinOp bin = binOp(op.getKind(), op.getTensor().getType().getElementType());
    return lowerAtomic(op, adaptor, rw, *getTypeConverter(), [&](Value addr, size_t i) {
      return LLVM::AtomicRMWOp::create(rw, loc, bin, addr, vals[i], LLVM::AtomicOrdering::monotonic,
                                       kScope)
          .getResult();
    });
  }
};

struct AtomicCASLowering : ConvertOpToLLVMPattern<tile::AtomicCASOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::AtomicCASOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type eltTy = op.getTensor().getType().getElementType();
    SmallVector<Value> cmp = elementsOf(rw, loc, adaptor.getCmp()),
                       vals = elementsOf(rw, loc, adaptor.getValue());
    // cmpxchg compares integers: floats go through their bits.
    Type bits = rw.getIntegerType(eltTy.getIntOrFloatBitWidth());
    auto asBits = [&](Value v) {
      return isa<FloatType>(eltTy) ? (Value)LLVM::BitcastOp::create(rw, loc, bits, v) : v;
    };
    return lowerAtomic(op, adaptor, rw, *getTypeConverter(), [&](Value addr, size_t i) {
      auto pair = LLVM::AtomicCmpXchgOp::create(rw, loc, addr, asBits(cmp[i]), asBits(vals[i]),
                                                LLVM::AtomicOrdering::monotonic,
                                                LLVM::AtomicOrdering::monotonic, kScope);
      Value o = LLVM::ExtractValueOp::create(rw, loc, pair, 0);
      return isa<FloatType>(eltTy) ? (Value)LLVM::BitcastOp::create(rw, loc, eltTy, o) : o;
    });
  }
};

} // namespace

void tessera::conversion::populateAtomicPatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  patterns.add<AtomicRMWLowering, AtomicCASLowering>(tc);
}
