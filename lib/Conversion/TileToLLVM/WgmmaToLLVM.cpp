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
// encoding. An A operand in registers (the A layout of the accumulator's
// layout: each warp's 16 rows in mma.sync's A fragments) is read in wgmma's
// register form instead, which MLIR's NVVM dialect has no op for: inline PTX.
// The products are fenced and committed as one group, then waited
// for before the accumulator is used, or, for an asynchronous dot, by its
// `tile.warpgroup_wait`; the registers they read are pinned before the fence,
// the accumulator they write after the wait (pinRegisters), as are the values
// a wait orders (what is computed from them runs after it: a rotated loop's
// next A fragment). `tile.fence_async_shared` becomes
// `fence.proxy.async.shared::cta`.
//
// Assumes the kernel's dynamic shared memory is aligned to 1024 bytes (the
// period of the 128-byte swizzle) and its size under 256 KiB.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "lib/Analysis/MatrixDescriptor.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessera::conversion;
using tessera::analysis::MatrixDescriptor;

namespace {

/// A descriptor's start-address field for the slot at `ptr`: its 18-bit
/// shared-window address in 16-byte units, computed where `ptr` is (a
/// loop-invariant operand's, attention's Q, stays before the loop) and passed
/// through an empty instruction, so that LLVM cannot see that it shares no
/// bits with the descriptor's other fields. Otherwise LLVM turns the `or` of
/// the fields into an add and folds each K step into a 64-bit immediate (base
/// + 0x8000002001000040), and ptxas 13.0.88 miscompiles that add: it adds the
/// low word only (one 32-bit VIADD), dropping the immediate's high word, so
/// the P.V products of BM=64 attention read V through a descriptor without
/// swizzle or strides (docs/BENCHMARKS.md). The driver's JIT compiled it
/// correctly.
Value addressField(ConversionPatternRewriter &rw, Location loc, Value ptr) {
  OpBuilder::InsertionGuard atPtr(rw);
  rw.setInsertionPointAfterValue(ptr);
  Value addr = LLVM::PtrToIntOp::create(rw, loc, rw.getI64Type(), ptr);
  Value masked = LLVM::AndOp::create(rw, loc, addr, i64Const(rw, loc, 0x3FFFF));
  Value units = LLVM::LShrOp::create(rw, loc, masked, i64Const(rw, loc, 4));
  return inlinePTX(rw, loc, rw.getI64Type(), units, "", "=l,0", /*sideEffects=*/false);
}

/// Inline-asm constraints of `n` outputs of `kind` (f, r) tied to the first
/// `n` inputs: "=k,...,=k,0,...,n-1".
std::string tiedConstraints(int64_t n, char kind) {
  std::string out;
  llvm::raw_string_ostream os(out);
  for (int64_t r = 0; r < n; ++r)
    os << (r ? "," : "") << '=' << kind;
  for (int64_t r = 0; r < n; ++r)
    os << "," << r;
  return out;
}

/// One m64nNk16 product with A from registers (wgmma's register form), which
/// MLIR's NVVM dialect does not express: inline PTX with the operands of
/// nvvm.wgmma.mma_async's own expansion (accumulators tied in and out, the
/// scale-d predicate set from an immediate). `a` holds the thread's four b32
/// registers of the instruction's A fragment in PTX register order (half
/// pairs a0a1, a2a3, a4a5, a6a7); `transB` reads an N-major B.
Value registerAProduct(ConversionPatternRewriter &rw, Location loc, Value frag, ArrayRef<Value> a,
                       Value descB, int64_t n, bool bf16, bool transB) {
  int64_t regs = n / 2;
  std::string d;
  llvm::raw_string_ostream ds(d);
  for (int64_t r = 0; r < regs; ++r)
    ds << (r ? ", $" : "$") << r;
  std::string constraints = tiedConstraints(regs, 'f') + ",r,r,r,r,l";
  // Operand numbers: the outputs, the tied inputs, then A's four registers and B's descriptor.
  int64_t aAt = 2 * regs, bAt = aAt + 4;
  std::string ptx = llvm::formatv("{{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                                  "wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{1}.{1} "
                                  "{{{2}}, {{${3}, ${4}, ${5}, ${6}}, ${7}, p, 1, 1, {8};\n}\n",
                                  n, bf16 ? "bf16" : "f16", d, aAt, aAt + 1, aAt + 2, aAt + 3, bAt,
                                  transB ? 1 : 0)
                        .str();
  SmallVector<Value> operands = unpack(rw, loc, frag);
  operands.append(a.begin(), a.end());
  operands.push_back(descB);
  return inlinePTX(rw, loc, frag.getType(), operands, ptx, constraints, /*sideEffects=*/true);
}

/// `regs` (all b32 or all f32) passed through an empty instruction with side
/// effects, which LLVM keeps in order with the wgmma fence, commit and wait
/// (calls with side effects): what computes them cannot move past it, nor
/// can what reads its results move before it. PTX requires the registers a
/// wgmma reads (A's fragment, the accumulator) to be written before the
/// `wgmma.fence` that precedes it, and the accumulator to be read only after
/// the `wgmma.wait_group` that waits for it; nothing else ties those values
/// to the fence and the wait, and LLVM had moved an accumulator's zeroing
/// after the fence. Chunks of 32 keep each instruction small.
SmallVector<Value> pinRegisters(OpBuilder &b, Location loc, ArrayRef<Value> regs) {
  SmallVector<Value> out;
  for (size_t at = 0; at < regs.size(); at += 32) {
    ArrayRef<Value> chunk = regs.slice(at, std::min<size_t>(32, regs.size() - at));
    Type t = chunk.front().getType();
    std::string constraints = tiedConstraints(chunk.size(), t.isF32() ? 'f' : 'r');
    auto ty = LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(chunk.size(), t));
    Value pinned = inlinePTX(b, loc, ty, chunk, "", constraints, /*sideEffects=*/true);
    llvm::append_range(out, unpack(b, loc, pinned));
  }
  return out;
}

struct WarpgroupDotLowering : ConvertOpToLLVMPattern<tile::WarpgroupDotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::WarpgroupDotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto accTy = cast<RankedTensorType>(op.getType());
    auto mma = cast<tile::MmaLayoutAttr>(accTy.getEncoding());
    Type structTy = getTypeConverter()->convertType(accTy);
    bool regA = op.hasRegisterA();
    auto slotA = dyn_cast<tile::MemDescType>(op.getA().getType());
    tile::SharedGeometry geoA = regA ? tile::SharedGeometry{} : slotA.getGeometry(),
                         geoB = op.getB().getType().getGeometry();
    std::optional<MatrixDescriptor> da = tessera::analysis::describeOperand(geoA, true),
                                    db = tessera::analysis::describeOperand(geoB, false);
    if (!structTy || (!regA && !da) || !db)
      return op.emitError("internal compiler error: no wgmma descriptors for this dot");
    int64_t m = accTy.getShape()[0], n = accTy.getShape()[1];
    auto tileA = dyn_cast<RankedTensorType>(op.getA().getType());
    int64_t k = regA ? tileA.getShape()[1] : slotA.getShape()[1];
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
    std::optional<int64_t> stepA =
                               regA ? std::optional<int64_t>(0)
                                    : tessera::analysis::instructionStart(geoA, true, 64 * fm, 0),
                           stepB = tessera::analysis::instructionStart(geoB, false, in * fn, 0);
    if (!stepA || !stepB)
      return op.emitError("internal compiler error: a warpgroup's wgmma operand does not start "
                          "on a swizzle period");
    // The descriptor of this warpgroup's first instruction; the others add
    // their (small) start-address step to it (see addressField).
    auto base = [&](Value ptr, Value g, int64_t step, const MatrixDescriptor &d) {
      Value units = addressField(rw, loc, ptr);
      Value g64 = LLVM::ZExtOp::create(rw, loc, rw.getI64Type(), g);
      Value moved = LLVM::MulOp::create(rw, loc, g64, i64Const(rw, loc, step >> 4));
      Value lo = LLVM::AddOp::create(rw, loc, units, moved);
      return LLVM::OrOp::create(rw, loc, lo, i64Const(rw, loc, (int64_t)d.highBits()));
    };
    Value baseA = regA ? Value() : base(adaptor.getA(), gM, *stepA, *da);
    Value baseB = base(adaptor.getB(), gN, *stepB, *db);
    // A in registers: 8 halves per thread and instruction (m64k16), in the
    // order of the A layout: row block i, then k step t.
    // Packed into b32 pairs before the fence: registers written between the
    // fence and a wgmma that reads them make ptxas insert another fence.
    // Packed and pinned where A is computed, not here: in a rotated loop
    // another dot is issued in between, and P's f32 source would otherwise
    // stay live across it (64 registers at BN=128 where the pairs take 32).
    SmallVector<Value> aRegs;
    if (regA) {
      OpBuilder::InsertionGuard atA(rw);
      rw.setInsertionPointAfterValue(adaptor.getA());
      SmallVector<Value> aElems = unpack(rw, loc, adaptor.getA());
      if ((int64_t)aElems.size() != fm * kSteps * 8)
        return op.emitError("internal compiler error: A holds ")
               << aElems.size() << " elements per thread, not " << fm * kSteps * 8;
      for (size_t e = 0; e + 1 < aElems.size(); e += 2)
        aRegs.push_back(packPair(rw, loc, aElems[e], aElems[e + 1]));
      aRegs = pinRegisters(rw, loc, aRegs);
    }

    Type elt = regA ? tileA.getElementType() : slotA.getElementType();
    NVVM::WGMMATypes abTy = elt.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    NVVM::MMALayout layoutA = regA || da->kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    NVVM::MMALayout layoutB = db->kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    auto shape = NVVM::MMAShapeAttr::get(rw.getContext(), 64, in, 16);
    auto fragTy = LLVM::LLVMStructType::getLiteral(rw.getContext(),
                                                   SmallVector<Type>(in / 2, rw.getF32Type()));

    SmallVector<Value> acc = unpack(rw, loc, adaptor.getAcc());
    if ((int64_t)acc.size() != fm * fn * in / 2)
      return op.emitError("internal compiler error: the accumulator holds ")
             << acc.size() << " elements per thread, not " << fm * fn * in / 2;
    acc = pinRegisters(rw, loc, acc); // written before the fence
    NVVM::WgmmaFenceAlignedOp::create(rw, loc);
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j) {
        size_t first = (i * fn + j) * (in / 2);
        Value frag = pack(rw, loc, fragTy, ArrayRef<Value>(acc).slice(first, in / 2));
        for (int64_t t = 0; t < kSteps; ++t) {
          std::optional<int64_t> offA =
              regA ? std::optional<int64_t>(0)
                   : tessera::analysis::instructionStart(geoA, true, i * 64, t * 16);
          std::optional<int64_t> offB =
              tessera::analysis::instructionStart(geoB, false, j * in, t * 16);
          if (!offA || !offB)
            return op.emitError("internal compiler error: a wgmma operand does not start on a "
                                "swizzle period");
          if (regA) {
            Value descB = LLVM::AddOp::create(rw, loc, baseB, i64Const(rw, loc, *offB >> 4));
            ArrayRef<Value> a = ArrayRef<Value>(aRegs).slice((i * kSteps + t) * 4, 4);
            frag = registerAProduct(rw, loc, frag, a, descB, in, elt.isBF16(), !db->kMajor);
            continue;
          }
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
    if (!op.getIsAsync()) {
      NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, 0);
      acc = pinRegisters(rw, loc, acc); // read after the wait
    }
    rw.replaceOp(op, pack(rw, loc, structTy, acc));
    return success();
  }
};

struct WarpgroupWaitLowering : ConvertOpToLLVMPattern<tile::WarpgroupWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::WarpgroupWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto f32Registers = [](Value v) {
      auto st = dyn_cast<LLVM::LLVMStructType>(v.getType());
      return st && llvm::all_of(st.getBody(), [](Type t) { return t.isF32(); });
    };
    if (!llvm::all_of(adaptor.getOrdered(), f32Registers))
      return op.emitError("internal compiler error: an ordered value is not f32 registers");
    NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, op.getPendings());
    // The waited-for accumulator (f32 registers) is read only after the wait,
    // and what is computed from the ordered values runs after it.
    SmallVector<Value> results;
    for (Value v : adaptor.getOperands()) {
      if (f32Registers(v))
        v = pack(rw, loc, cast<LLVM::LLVMStructType>(v.getType()),
                 pinRegisters(rw, loc, unpack(rw, loc, v)));
      results.push_back(v);
    }
    rw.replaceOp(op, results);
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
