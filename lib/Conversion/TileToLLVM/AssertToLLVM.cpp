//===- AssertToLLVM.cpp - tile.assert ---------------------------*- C++ -*-===//
//
// In a kernel compiled for debugging (`tile.debug` on the function, set with
// the asserts' ids and program ids by pipeline::enableAsserts), each thread checks its own
// elements of the condition; a thread that finds one false claims the
// module's assert state, four i32 in global memory (`tessera_assert_state`:
// the id of the first failed assert, then that program's ids), with one
// compare-and-swap, and the winner records its program ids. Nothing traps:
// the kernel runs on (its accesses are memory safe whatever the values), and
// the runtime reads and clears the state after the launch
// (docs/kernel-abi.md, "Asserts"). Without `tile.debug` the op is dropped
// (the pipeline drops such asserts before its first pass already).
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/Knobs.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

LLVM::GlobalOp assertState(ConversionPatternRewriter &rw, ModuleOp module, Location loc) {
  if (auto g = module.lookupSymbol<LLVM::GlobalOp>(tessera::kAssertStateName))
    return g;
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(module.getBody());
  Type i32 = rw.getI32Type();
  auto type = LLVM::LLVMArrayType::get(i32, 4);
  auto zeros = DenseElementsAttr::get(RankedTensorType::get({4}, i32), rw.getI32IntegerAttr(0));
  return LLVM::GlobalOp::create(rw, loc, type, /*isConstant=*/false, LLVM::Linkage::External,
                                tessera::kAssertStateName, zeros, /*alignment=*/16,
                                /*addrSpace=*/1);
}

struct AssertLowering : ConvertOpToLLVMPattern<tile::AssertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto id = op->getAttrOfType<IntegerAttr>("tile.assert_id");
    if (!fn || !fn->hasAttr("tile.debug") || !id || op.getPids().size() != 3) {
      rw.eraseOp(op);
      return success();
    }
    Location loc = op.getLoc();
    Value cond = adaptor.getCond();
    SmallVector<Value> elts;
    if (isa<RankedTensorType>(op.getCond().getType()))
      elts = unpack(rw, loc, cond);
    else
      elts.push_back(cond);
    Type i1 = rw.getI1Type();
    Value yes = LLVM::ConstantOp::create(rw, loc, i1, rw.getBoolAttr(true));
    Value failed = LLVM::ConstantOp::create(rw, loc, i1, rw.getBoolAttr(false));
    for (Value e : elts)
      failed = LLVM::OrOp::create(rw, loc, failed, LLVM::XOrOp::create(rw, loc, e, yes));

    auto state = assertState(rw, op->getParentOfType<ModuleOp>(), loc);
    auto check = scf::IfOp::create(rw, loc, TypeRange{}, failed, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&check.getThenRegion().front());
      Value base = LLVM::AddressOfOp::create(rw, loc, state);
      auto pair = LLVM::AtomicCmpXchgOp::create(
          rw, loc, base, i32Const(rw, loc, 0), i32Const(rw, loc, id.getInt()),
          LLVM::AtomicOrdering::monotonic, LLVM::AtomicOrdering::monotonic);
      Value won = LLVM::ExtractValueOp::create(rw, loc, pair, 1);
      auto record = scf::IfOp::create(rw, loc, TypeRange{}, won, /*withElse=*/false);
      rw.setInsertionPointToStart(&record.getThenRegion().front());
      ValueRange pids = adaptor.getPids();
      auto arrTy = state.getGlobalType();
      for (int32_t i = 0; i < 3; ++i) {
        Value slot = LLVM::GEPOp::create(rw, loc, base.getType(), arrTy, base,
                                         ArrayRef<LLVM::GEPArg>{0, i + 1});
        LLVM::StoreOp::create(rw, loc, pids[i], slot);
      }
    }
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populateAssertPatterns(TileTypeConverter &tc,
                                                 RewritePatternSet &patterns) {
  patterns.add<AssertLowering>(tc);
}
