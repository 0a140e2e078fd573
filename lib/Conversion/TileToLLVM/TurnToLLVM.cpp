//===- TurnToLLVM.cpp - the turns of two compute warpgroups -----*- C++ -*-===//
//
// Lowers tile-pingpong's `tile.turn_wait` and `tile.turn_pass`. Compute
// warpgroup g (threads 128 g .. 128 g + 127; the compute warps come first in a
// warp-specialized block) owns named barrier 2 + g over the 256 threads of
// both warpgroups: barrier 0 is the block's, 1 the compute warps'. Waiting is
// bar.sync on one's own barrier; passing is bar.arrive on the other's, which
// does not wait. With `only g`, the other warpgroup skips the op.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

constexpr int64_t kFirstTurnBarrier = 2, kTurnThreads = 256;

template <typename OpTy> struct TurnLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value group = LLVM::UDivOp::create(rw, loc, threadId(rw, loc), i32Const(rw, loc, 128));
    std::optional<scf::IfOp> only;
    if (std::optional<uint32_t> g = op.getOnly()) {
      Value mine =
          LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, group, i32Const(rw, loc, *g));
      only = scf::IfOp::create(rw, loc, TypeRange{}, mine, /*withElse=*/false);
      rw.setInsertionPointToStart(&only->getThenRegion().front());
    }
    Value threads = i32Const(rw, loc, kTurnThreads);
    if constexpr (std::is_same_v<OpTy, tile::TurnWaitOp>) {
      Value id = LLVM::AddOp::create(rw, loc, group, i32Const(rw, loc, kFirstTurnBarrier));
      NVVM::BarrierOp::create(rw, loc, Type(), id, threads, NVVM::BarrierReductionAttr(), Value());
    } else {
      Value id = LLVM::SubOp::create(rw, loc, i32Const(rw, loc, kFirstTurnBarrier + 1), group);
      NVVM::BarrierArriveOp::create(rw, loc, id, threads);
    }
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populateTurnPatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<TurnLowering<tile::TurnWaitOp>, TurnLowering<tile::TurnPassOp>>(tc);
}
