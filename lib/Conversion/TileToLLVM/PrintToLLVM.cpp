//===- PrintToLLVM.cpp - tile.print of scalars through vprintf ------------===//
//
// A scalar tile.print becomes a call of CUDA's device-side `vprintf(format,
// args)`: the format `program (%d, %d, %d): <prefix><conversion>\n` is an
// internal constant global, the arguments (the block ids and the value, floats
// widened to f64, bools and i32 as i32, i64 as i64) are stored into a stack
// struct. Only thread 0 of a block prints: the other threads pass an empty
// format (branch-free, so that the call may sit in any region, loops included).
// Printing a tile needs its elements gathered from every thread: that stays
// the interpreter's (`tessera run --interpret`), and it is reported at the call.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// An internal constant i8 array holding `text` and a NUL; reused by name.
LLVM::GlobalOp stringGlobal(ConversionPatternRewriter &rw, ModuleOp module, Location loc,
                            StringRef text) {
  std::string name = "tessera_fmt_" + std::to_string(llvm::hash_value(text) & 0xffffffffffff);
  if (auto g = module.lookupSymbol<LLVM::GlobalOp>(name))
    return g;
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(module.getBody());
  std::string bytes = text.str();
  bytes.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(IntegerType::get(rw.getContext(), 8), bytes.size());
  return LLVM::GlobalOp::create(rw, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, name,
                                rw.getStringAttr(bytes), /*alignment=*/0);
}

LLVM::LLVMFuncOp vprintfDecl(ConversionPatternRewriter &rw, ModuleOp module, Location loc) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf"))
    return f;
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(rw.getContext());
  return LLVM::LLVMFuncOp::create(
      rw, loc, "vprintf",
      LLVM::LLVMFunctionType::get(IntegerType::get(rw.getContext(), 32), {ptr, ptr}));
}

struct PrintLowering : ConvertOpToLLVMPattern<tile::PrintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    if (isa<RankedTensorType>(op.getValue().getType()))
      return op.emitError(
          "print() of a tile runs only in the interpreter (tessera run --interpret); on the GPU, "
          "print a scalar (a reduction or an element)");
    Location loc = op.getLoc();
    MLIRContext *ctx = rw.getContext();
    auto module = op->getParentOfType<ModuleOp>();
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64),
         f64 = Float64Type::get(ctx);
    Value v = adaptor.getValue();
    Type t = v.getType();
    const char *conv;
    if (isa<FloatType>(t)) {
      if (!t.isF64())
        v = LLVM::FPExtOp::create(rw, loc, f64, v);
      conv = "%g";
    } else if (t.isInteger(64)) {
      conv = "%lld";
    } else if (t.isInteger(1) || t.isInteger(8)) {
      v = LLVM::ZExtOp::create(rw, loc, i32, v);
      conv = "%d";
    } else if (t.isInteger(32)) {
      conv = "%d";
    } else {
      return op.emitError("print() on the GPU does not support values of type ") << t;
    }
    std::string format = ("program (%d, %d, %d): " + op.getPrefix() + conv + "\n").str();
    auto fmt = stringGlobal(rw, module, loc, format), none = stringGlobal(rw, module, loc, "");
    auto fn = vprintfDecl(rw, module, loc);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Value ids[3] = {NVVM::BlockIdXOp::create(rw, loc, i32), NVVM::BlockIdYOp::create(rw, loc, i32),
                    NVVM::BlockIdZOp::create(rw, loc, i32)};
    // The argument buffer: {i32, i32, i32, value} on the stack.
    auto structTy = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, v.getType()});
    Value one = LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(1));
    Value buf = LLVM::AllocaOp::create(rw, loc, ptr, structTy, one, /*alignment=*/8);
    for (int i = 0; i < 4; ++i) {
      Value field = LLVM::GEPOp::create(rw, loc, ptr, structTy, buf, ArrayRef<LLVM::GEPArg>{0, i});
      LLVM::StoreOp::create(rw, loc, i < 3 ? ids[i] : v, field);
    }
    // Thread 0 prints; the others print the empty string.
    Value tid = NVVM::ThreadIdXOp::create(rw, loc, i32);
    Value zero = LLVM::ConstantOp::create(rw, loc, i32, rw.getI32IntegerAttr(0));
    Value first = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, tid, zero);
    Value f = LLVM::AddressOfOp::create(rw, loc, fmt), e = LLVM::AddressOfOp::create(rw, loc, none);
    Value chosen = LLVM::SelectOp::create(rw, loc, first, f, e);
    LLVM::CallOp::create(rw, loc, fn, ValueRange{chosen, buf});
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void tessera::conversion::populatePrintPatterns(TileTypeConverter &tc,
                                                RewritePatternSet &patterns) {
  patterns.add<PrintLowering>(tc);
}
