//===- WgmmaToLLVM.cpp - tile.warpgroup_dot and its fence -------*- C++ -*-===//
//
// Hopper's warpgroup products: each warpgroup issues `nvvm.wgmma.mma_async`
// m64nNk16 over its 64-row instructions, K in steps of 16, with both operands
// read from shared memory through matrix descriptors (PTX ISA, "Matrix
// Descriptor Format"): the 14-bit start address and the leading and stride
// byte offsets in 16-byte units, and the swizzle mode. The descriptors follow
// the `#tile.shared` encodings of the operands (SharedLayout.h): a slot cut
// into column blocks of `swizzle` bytes, rows of one block consecutive. A
// K-major operand steps 8-row groups by 8 * swizzle bytes (the stride offset);
// an M- or N-major one also steps its column blocks by the leading offset and
// is read with the transpose bit. Each instruction's start is the byte offset
// of its first element, which lies on a swizzle period (the lowering checks),
// so the hardware's swizzle of the address bits finds the same bytes as the
// encoding. The products are fenced and committed as one group, then waited
// for before the accumulator is used, or, for an asynchronous dot, by its
// `tile.warpgroup_wait`. `tile.fence_async_shared` becomes
// `fence.proxy.async.shared::cta`.
//
// Assumes the kernel's dynamic shared memory is aligned to 1024 bytes (the
// period of the 128-byte swizzle) and its size under 256 KiB.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "lib/Analysis/MatrixDescriptor.h"

using namespace mlir;
using namespace tessera::conversion;
using tessera::analysis::MatrixDescriptor;

namespace {

/// A descriptor's start-address field for the slot at `ptr`: its 18-bit
/// shared-window address in 16-byte units.
Value addressField(ConversionPatternRewriter &rw, Location loc, Value ptr) {
  Value addr = LLVM::PtrToIntOp::create(rw, loc, rw.getI64Type(), ptr);
  Value masked = LLVM::AndOp::create(rw, loc, addr, i64Const(rw, loc, 0x3FFFF));
  return LLVM::LShrOp::create(rw, loc, masked, i64Const(rw, loc, 4));
}

struct WarpgroupDotLowering : ConvertOpToLLVMPattern<tile::WarpgroupDotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::WarpgroupDotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto accTy = cast<RankedTensorType>(op.getType());
    auto mma = cast<tile::MmaLayoutAttr>(accTy.getEncoding());
    Type structTy = getTypeConverter()->convertType(accTy);
    tile::SharedGeometry geoA = op.getA().getType().getGeometry(),
                         geoB = op.getB().getType().getGeometry();
    std::optional<MatrixDescriptor> da = tessera::analysis::describeOperand(geoA, true),
                                    db = tessera::analysis::describeOperand(geoB, false);
    if (!structTy || !da || !db)
      return op.emitError("internal compiler error: no wgmma descriptors for this dot");
    int64_t m = accTy.getShape()[0], n = accTy.getShape()[1];
    int64_t k = op.getA().getType().getShape()[1];
    int64_t gm = mma.getWarpsPerCTA()[0] / 4, gn = mma.getWarpsPerCTA()[1];
    int64_t in = mma.getInstrShape()[1];
    int64_t fm = m / (64 * gm), fn = n / (in * gn), kSteps = k / 16;
    if (fm < 1 || fn < 1 || m % (64 * gm) || n % (in * gn) || k % 16)
      return op.emitError("internal compiler error: a [")
             << m << ", " << n << "] accumulator is not whole wgmma instructions of " << mma;

    // The warpgroup's position: its first row (A) and column (B).
    Value warp = laneAndWarp(rw, loc).second;
    Value group = LLVM::UDivOp::create(rw, loc, warp, i32Const(rw, loc, 4));
    Value gM = LLVM::URemOp::create(rw, loc, group, i32Const(rw, loc, gm));
    Value gN = LLVM::UDivOp::create(rw, loc, group, i32Const(rw, loc, gm));
    // Warpgroups along M (N) start 64 * fm rows (in * fn columns) further.
    std::optional<int64_t> stepA = tessera::analysis::instructionStart(geoA, true, 64 * fm, 0),
                           stepB = tessera::analysis::instructionStart(geoB, false, in * fn, 0);
    if (!stepA || !stepB)
      return op.emitError("internal compiler error: a warpgroup's wgmma operand does not start "
                          "on a swizzle period");
    auto base = [&](Value ptr, Value g, int64_t step, const MatrixDescriptor &d) {
      Value units = addressField(rw, loc, ptr);
      Value g64 = LLVM::ZExtOp::create(rw, loc, rw.getI64Type(), g);
      Value moved = LLVM::MulOp::create(rw, loc, g64, i64Const(rw, loc, step >> 4));
      Value lo = LLVM::AddOp::create(rw, loc, units, moved);
      return LLVM::OrOp::create(rw, loc, lo, i64Const(rw, loc, (int64_t)d.highBits()));
    };
    Value baseA = base(adaptor.getA(), gM, *stepA, *da);
    Value baseB = base(adaptor.getB(), gN, *stepB, *db);

    Type elt = op.getA().getType().getElementType();
    NVVM::WGMMATypes abTy = elt.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    NVVM::MMALayout layoutA = da->kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    NVVM::MMALayout layoutB = db->kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    auto shape = NVVM::MMAShapeAttr::get(rw.getContext(), 64, in, 16);
    auto fragTy = LLVM::LLVMStructType::getLiteral(rw.getContext(),
                                                   SmallVector<Type>(in / 2, rw.getF32Type()));

    SmallVector<Value> acc = unpack(rw, loc, adaptor.getAcc());
    if ((int64_t)acc.size() != fm * fn * in / 2)
      return op.emitError("internal compiler error: the accumulator holds ")
             << acc.size() << " elements per thread, not " << fm * fn * in / 2;
    NVVM::WgmmaFenceAlignedOp::create(rw, loc);
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j) {
        size_t first = (i * fn + j) * (in / 2);
        Value frag = pack(rw, loc, fragTy, ArrayRef<Value>(acc).slice(first, in / 2));
        for (int64_t t = 0; t < kSteps; ++t) {
          std::optional<int64_t> offA =
              tessera::analysis::instructionStart(geoA, true, i * 64, t * 16);
          std::optional<int64_t> offB =
              tessera::analysis::instructionStart(geoB, false, j * in, t * 16);
          if (!offA || !offB)
            return op.emitError("internal compiler error: a wgmma operand does not start on a "
                                "swizzle period");
          Value descA = LLVM::AddOp::create(rw, loc, baseA, i64Const(rw, loc, *offA >> 4));
          Value descB = LLVM::AddOp::create(rw, loc, baseB, i64Const(rw, loc, *offB >> 4));
          frag = NVVM::WgmmaMmaAsyncOp::create(
              rw, loc, fragTy, frag, descA, descB, shape, abTy, abTy, NVVM::WGMMATypes::f32,
              NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA,
              layoutB, /*satfinite=*/nullptr);
        }
        SmallVector<Value> d = unpack(rw, loc, frag);
        std::copy(d.begin(), d.end(), acc.begin() + first);
      }
    NVVM::WgmmaGroupSyncAlignedOp::create(rw, loc);
    if (!op.getIsAsync())
      NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, 0);
    rw.replaceOp(op, pack(rw, loc, structTy, acc));
    return success();
  }
};

struct WarpgroupWaitLowering : ConvertOpToLLVMPattern<tile::WarpgroupWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::WarpgroupWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(rw, op.getLoc(), op.getPendings());
    rw.replaceOp(op, adaptor.getValue());
    return success();
  }
};

struct FenceAsyncSharedLowering : ConvertOpToLLVMPattern<tile::FenceAsyncSharedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::FenceAsyncSharedOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::FenceProxyOp::create(
        rw, op.getLoc(), NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(rw.getContext(), NVVM::SharedSpace::shared_cta));
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populateWgmmaPatterns(TileTypeConverter &tc,
                                                RewritePatternSet &patterns) {
  patterns.add<WarpgroupDotLowering, WarpgroupWaitLowering, FenceAsyncSharedLowering>(tc);
}
