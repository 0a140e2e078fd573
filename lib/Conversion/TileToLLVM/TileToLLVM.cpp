//===- TileToLLVM.cpp - convert-tile-to-llvm --------------------*- C++ -*-===//
//
// The driver: rewrites each tile.kernel into an llvm.func with the kernel ABI
// (docs/kernel-abi.md), then converts in two phases: tile ops and tile-typed
// ops to LLVM structs of per-thread elements (scf loops and ifs carry the
// structs), then the remaining scalar arith/math/scf to LLVM and NVVM.
//
// ABI: for a tensor of rank r: the base pointer (global), r extents (i32; i64 in
// kernels of the 64-bit size class, `tile.index64`), r-1
// strides in elements (i64; the last axis has stride 1); a scalar: its value (a
// bool as i8); then one 128-byte byval `nvvm.grid_constant` pointer per entry of
// the kernel's `tile.tensor_maps` (TMA), after the split-K workspace and
// counters (two global pointers) of a kernel with `tile.split_k`. Launch bounds: nvvm.maxntid =
// 32 * num_warps; a kernel of `tile.cluster_dims` gets them as nvvm.cluster_dim.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/Knobs.h"
#include "lib/Analysis/AxisInfo.h"
#include "lib/Conversion/Passes.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace tessera::conversion;

namespace {

constexpr unsigned kTensorMapBytes = 128; // sizeof(CUtensorMap)

/// Replaces `kernel` by an llvm.func with the flattened ABI; the body moves over
/// and sees its old argument types through unrealized casts.
LogicalResult rewriteSignature(tile::KernelOp kernel, const tessera::target::TargetInfo &target,
                               bool index64) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Type> abi;
  for (Type t : kernel.getArgumentTypes()) {
    if (auto tensor = dyn_cast<tile::GlobalTensorType>(t)) {
      abi.push_back(LLVM::LLVMPointerType::get(ctx, 1));
      abi.append(tensor.getRank(), index64 ? b.getI64Type() : b.getI32Type());
      abi.append(tensor.getRank() - 1, b.getI64Type());
    } else {
      abi.push_back(t.isInteger(1) ? b.getI8Type() : t);
    }
  }
  // Split-K: the workspace of partial accumulators and the per-tile arrival
  // counters (SplitKToLLVM.cpp); a slot is one partial of the compute threads.
  int64_t slotBytes = 0;
  if (tile::scheduleOption(kernel, tessera::kSplitKOption) > 1) {
    abi.append(2, LLVM::LLVMPointerType::get(ctx, 1));
    WalkResult walk = kernel.walk([&](tile::SplitKPublishOp publish) {
      FailureOr<size_t> n = elemsPerThread(publish.getPartial().getType());
      if (failed(n)) {
        publish.emitError("the split-K partial has no distributed layout");
        return WalkResult::interrupt();
      }
      slotBytes = std::max<int64_t>(slotBytes, 4 * (int64_t)*n * kWarpSize * kernel.getNumWarps());
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  // The tensor maps of TMA copies: 128-byte __grid_constant__ parameters.
  auto maps = kernel->getAttrOfType<ArrayAttr>("tile.tensor_maps");
  unsigned numMaps = maps ? maps.size() : 0;
  abi.append(numMaps, LLVM::LLVMPointerType::get(ctx));
  auto fn = LLVM::LLVMFuncOp::create(
      b, loc, kernel.getSymName(), LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), abi));
  fn->setAttr("nvvm.kernel", b.getUnitAttr());
  // Producer warps (warp specialization) come after the compute warps.
  auto producers = kernel->getAttrOfType<IntegerAttr>("tile.producer_warps");
  int32_t threads = kWarpSize * (kernel.getNumWarps() + (producers ? producers.getInt() : 0));
  fn->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  // Thread-block clusters (tile-cluster-programs): .reqnctapercluster and
  // .explicitcluster, so that a plain launch forms them.
  if (auto dims = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.cluster_dims"))
    fn->setAttr("nvvm.cluster_dim",
                b.getDenseI32ArrayAttr({(int32_t)dims[0], (int32_t)dims[1], (int32_t)dims[2]}));
  // setmaxnreg moves registers within the block's allocation, which must then
  // be the whole register file: without .maxnreg, ptxas may allocate fewer and
  // an increase would wait forever.
  bool movesRegisters = false;
  kernel.walk([&](tile::SetMaxRegistersOp) { movesRegisters = true; });
  if (movesRegisters)
    fn->setAttr("nvvm.maxnreg", b.getI32IntegerAttr((int32_t)target.launchRegisters(threads)));
  for (NamedAttribute a : kernel->getAttrs())
    if (a.getName().strref().starts_with("tile."))
      fn->setAttr(a.getName(), a.getValue());
  if (slotBytes)
    fn->setAttr("tile.split_k_slot_bytes", b.getI64IntegerAttr(slotBytes));
  for (unsigned m = 0; m < numMaps; ++m) {
    unsigned arg = abi.size() - numMaps + m;
    fn.setArgAttr(arg, LLVM::LLVMDialect::getByValAttrName(),
                  TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes)));
    fn.setArgAttr(arg, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
    fn.setArgAttr(arg, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
  }

  fn.getBody().takeBody(kernel.getBody());
  Block &entry = fn.getBody().front();
  unsigned oldCount = entry.getNumArguments();
  SmallVector<Value> fresh;
  for (Type t : abi)
    fresh.push_back(entry.addArgument(t, loc));
  b.setInsertionPointToStart(&entry);
  unsigned next = 0;
  for (unsigned i = 0; i < oldCount; ++i) {
    BlockArgument old = entry.getArgument(i);
    Value repl;
    if (auto tensor = dyn_cast<tile::GlobalTensorType>(old.getType())) {
      unsigned fields = 2 * tensor.getRank();
      auto descTy = TileTypeConverter::descriptorType(ctx, tensor.getRank(), index64);
      Value desc = pack(b, loc, descTy, ArrayRef<Value>(fresh).slice(next, fields));
      next += fields;
      repl = UnrealizedConversionCastOp::create(b, loc, tensor, desc).getResult(0);
    } else if (old.getType().isInteger(1)) {
      repl = LLVM::TruncOp::create(b, loc, b.getI1Type(), fresh[next++]);
    } else {
      repl = fresh[next++];
    }
    old.replaceAllUsesWith(repl);
  }
  entry.eraseArguments(0, oldCount);
  // The maps have no tile-level argument: TMA copies find them by position.
  kernel.erase();
  return success();
}

bool hasTileTypes(Operation *op) {
  auto isTile = [](Type t) {
    return isa<RankedTensorType, tile::GlobalTensorType, tile::MemDescType, tile::MBarrierType>(t);
  };
  return llvm::any_of(op->getOperandTypes(), isTile) || llvm::any_of(op->getResultTypes(), isTile);
}

struct ConvertTileToLLVM : tile::impl::ConvertTileToLLVMBase<ConvertTileToLLVM> {
  using ConvertTileToLLVMBase::ConvertTileToLLVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::optional<tessera::target::TargetInfo> target =
        tessera::target::TargetInfo::forPass(module, arch);
    if (!target)
      return signalPassFailure();
    // Untiled tiles cannot be lowered: layouts must come first. Extents must be
    // powers of two, so that layouts tile them exactly (no phantom elements).
    WalkResult missing = module.walk([](Operation *op) {
      for (Type t : op->getResultTypes()) {
        auto r = dyn_cast<RankedTensorType>(t);
        if (!r)
          continue;
        if (!r.getEncoding()) {
          op->emitError("code generation needs layouts: run tile-assign-layouts first");
          return WalkResult::interrupt();
        }
        if (!llvm::all_of(r.getShape(), [](int64_t e) { return llvm::isPowerOf2_64(e); })) {
          op->emitError("code generation needs tile extents that are powers of two, got ")
              << RankedTensorType::get(r.getShape(), r.getElementType());
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (missing.wasInterrupted())
      return signalPassFailure();
    WalkResult unsupported = module.walk([](tile::PrintOp op) {
      if (!isa<RankedTensorType>(op.getValue().getType()))
        return WalkResult::advance();
      op.emitError(
          "print() of a tile runs only in the interpreter (tessera run --interpret); on the GPU, "
          "print a scalar (a reduction or an element)");
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();

    // How many elements each element-addressed access moves at once, from its
    // index math (AxisInfo.h), before that math is lowered.
    module.walk([&](Operation *op) {
      if (isa<tile::GatherOp, tile::ScatterOp>(op))
        op->setAttr(kVectorAttr, IntegerAttr::get(IntegerType::get(ctx, 64),
                                                  tessera::analysis::elementAccessVector(op)));
      // Block accesses of a tensor the specialization does not align.
      Value tensor;
      if (auto l = dyn_cast<tile::LoadOp>(op))
        tensor = l.getTensor();
      else if (auto s = dyn_cast<tile::StoreOp>(op))
        tensor = s.getTensor();
      if (tensor && !tessera::analysis::isAlignedTensor(tensor))
        op->setAttr(kUnalignedAttr, UnitAttr::get(ctx));
    });

    // ceildivsi and friends become plain arithmetic first.
    {
      RewritePatternSet expand(ctx);
      arith::populateArithExpandOpsPatterns(expand);
      if (failed(applyPatternsGreedily(module, std::move(expand))))
        return signalPassFailure();
    }
    // The 64-bit size class holds for the whole module: its descriptors have i64 extents.
    bool index64 = llvm::any_of(module.getOps<tile::KernelOp>(),
                                [](tile::KernelOp k) { return k->hasAttr(tessera::kIndex64Attr); });
    for (auto kernel : llvm::make_early_inc_range(module.getOps<tile::KernelOp>()))
      if (failed(rewriteSignature(kernel, *target, index64)))
        return signalPassFailure();

    TileTypeConverter tc(ctx, index64);
    // Phase 1: tiles and tile ops to structs of per-thread elements.
    {
      RewritePatternSet patterns(ctx);
      ConversionTarget target(*ctx);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
      target.addIllegalDialect<tile::TileDialect>();
      target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
          [](Operation *op) { return !hasTileTypes(op); });
      target.addLegalOp<UnrealizedConversionCastOp>();
      scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
      populateKernelPatterns(tc, patterns);
      populateElementwisePatterns(tc, patterns);
      populateMemoryPatterns(tc, patterns);
      populateIndexedPatterns(tc, patterns);
      populateAtomicPatterns(tc, patterns);
      populateReducePatterns(tc, patterns);
      populateScanPatterns(tc, patterns);
      populateReshapePatterns(tc, patterns);
      populateShapePatterns(tc, patterns);
      populateDotPatterns(tc, patterns);
      populateSharedPatterns(tc, patterns);
      populateWgmmaPatterns(tc, patterns);
      populateTmaPatterns(tc, patterns);
      populateTmaStorePatterns(tc, patterns);
      populateSplitKPatterns(tc, patterns);
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    // Phase 2: scalar arith, math and control flow to LLVM/NVVM.
    {
      RewritePatternSet patterns(ctx);
      ConversionTarget target(*ctx);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
      target.addIllegalDialect<arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                               cf::ControlFlowDialect>();
      target.addLegalOp<UnrealizedConversionCastOp>();
      populateMathToNVVMPatterns(tc, patterns);
      arith::populateArithToLLVMConversionPatterns(tc, patterns);
      populateMathToLLVMConversionPatterns(tc, patterns);
      populateSCFToControlFlowConversionPatterns(patterns);
      cf::populateControlFlowToLLVMConversionPatterns(tc, patterns);
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    // The casts left at the signature and between phases cancel out.
    const int64_t kMaxShared = target->maxSharedBytesPerBlock();
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (auto bytes = fn->getAttrOfType<IntegerAttr>("tile.shared_bytes");
          bytes && bytes.getInt() > kMaxShared) {
        fn.emitError("the kernel needs ")
            << bytes.getInt() << " bytes of shared memory, more than the " << kMaxShared
            << " a block may have on " << arch << "; use smaller tiles";
        return signalPassFailure();
      }
    SmallVector<UnrealizedConversionCastOp> casts, remaining;
    module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
    reconcileUnrealizedCasts(casts, &remaining);
    if (!remaining.empty()) {
      remaining.front()->emitError(
          "internal compiler error: a value could not be converted to LLVM");
      signalPassFailure();
    }
  }
};

/// tile.return, program ids, grid extents and tensor extents.
struct ReturnLowering : ConvertOpToLLVMPattern<tile::ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ReturnOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
    return success();
  }
};

template <typename OpTy, typename X, typename Y, typename Z>
struct GridIndexLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rw) const override {
    Type i32 = rw.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case 0:
      v = X::create(rw, op.getLoc(), i32);
      break;
    case 1:
      v = Y::create(rw, op.getLoc(), i32);
      break;
    default:
      v = Z::create(rw, op.getLoc(), i32);
      break;
    }
    rw.replaceOp(op, v);
    return success();
  }
};

struct DimLowering : ConvertOpToLLVMPattern<tile::DimOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::DimOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Value extent =
        LLVM::ExtractValueOp::create(rw, op.getLoc(), adaptor.getTensor(), 1 + op.getAxis());
    // An i32 dim of an i64 descriptor (hand-written IR) takes the low bits.
    if (extent.getType() != op.getType())
      extent = op.getType().getIntOrFloatBitWidth() > 32
                   ? sextTo(rw, op.getLoc(), extent, op.getType())
                   : LLVM::TruncOp::create(rw, op.getLoc(), op.getType(), extent).getResult();
    rw.replaceOp(op, extent);
    return success();
  }
};

} // namespace

void tessera::conversion::populateKernelPatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  populatePrintPatterns(tc, patterns);
  populateAssertPatterns(tc, patterns);
  patterns.add<
      ReturnLowering, DimLowering,
      GridIndexLowering<tile::ProgramIdOp, NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
      GridIndexLowering<tile::NumProgramsOp, NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>>(
      tc);
}
