//===- ShapeToLLVM.cpp - broadcast, expand, transpose, layouts --*- C++ -*-===//
//
// Broadcast and expand_dims stay in registers: the result and the source share a
// blocked layout (expand_dims turns a slice back into its parent), so the
// element a result element repeats is in the same thread, found by zeroing the
// digits of the broadcast axes. Transposing a blocked tile relabels axes: the
// struct is unchanged. convert_layout (between any layouts, dot operands and
// mma accumulators included) writes every element to shared memory at its
// row-major position and reads the elements of the new layout back.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// For each element of `res`, the index of the element of `src` it repeats.
FailureOr<SmallVector<size_t>> repeatMap(const Distribution &src, const Distribution &res) {
  if (src.blocked != res.blocked)
    return failure();
  SmallVector<size_t> map;
  for (const ElemDigits &d : res.elems) {
    ElemDigits z = d;
    for (unsigned a = 0; a < src.shape.size(); ++a)
      if (src.shape[a] == 1 || llvm::is_contained(src.sliced, a)) {
        z.s[a] = 0;
        z.rep[a] = 0;
      }
    map.push_back(src.indexOf(z));
  }
  return map;
}

template <typename OpTy>
struct RepeatLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto resTy = cast<RankedTensorType>(op.getType());
    Type structTy = this->getTypeConverter()->convertType(resTy);
    if (!structTy)
      return failure();
    size_t n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    Value src = adaptor.getSrc();
    if (!isa<LLVM::LLVMStructType>(src.getType())) { // a scalar source
      rw.replaceOp(op, pack(rw, loc, structTy, SmallVector<Value>(n, src)));
      return success();
    }
    FailureOr<Distribution> sd = distribute(cast<RankedTensorType>(op.getSrc().getType()));
    FailureOr<Distribution> rd = distribute(resTy);
    if (failed(sd) || failed(rd))
      return op.emitError("code generation of this op needs blocked or slice layouts");
    FailureOr<SmallVector<size_t>> map = repeatMap(*sd, *rd);
    if (failed(map))
      return op.emitError("internal compiler error: source and result layouts differ");
    SmallVector<Value> elems = unpack(rw, loc, src), out;
    for (size_t i : *map)
      out.push_back(elems[i]);
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

struct TransposeLowering : ConvertOpToLLVMPattern<tile::TransposeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    if (!isa<tile::BlockedLayoutAttr>(src.getEncoding()))
      return op.emitError("code generation of a transpose needs a blocked layout");
    rw.replaceOp(op, adaptor.getSrc()); // same elements, axes relabelled
    return success();
  }
};

/// How many consecutive struct elements of `type` are adjacent in a row-major
/// tile (and so move as one access of at most 16 bytes): a blocked layout's
/// vectors along the last axis, an mma fragment's column pairs.
unsigned runLength(RankedTensorType type) {
  Type elt = type.getElementType();
  if (elt.isInteger(1))
    return 1;
  unsigned vec = 1;
  if (auto blocked = dyn_cast<tile::BlockedLayoutAttr>(type.getEncoding())) {
    unsigned last = blocked.getRank() - 1;
    if (blocked.getOrder()[0] == last)
      vec = std::min<unsigned>(blocked.getSizePerThread()[last], type.getShape()[last]);
  } else if (isa<tile::MmaLayoutAttr>(type.getEncoding())) {
    vec = 2; // c0,c1 and c2,c3 of a fragment are adjacent columns
  }
  while (vec > 1 && vec * storageBytes(elt) > 16)
    vec /= 2;
  return vec;
}

/// Tensor-core operand fragments from a row-major tile in shared memory with
/// ldmatrix: A [M, K] takes one .x4 per 16x16 fragment (lanes 0-15 give rows
/// 0-15 at k 0, lanes 16-31 the same rows at k 8); B [K, N] one .x2.trans per
/// 16x8 fragment (lanes 0-15 give rows k 0-15 at its first column). The four
/// (two) registers come out in the order mma.sync takes them.
SmallVector<Value> loadFragments(ConversionPatternRewriter &rw, Location loc, RankedTensorType type,
                                 Value smem, Value lane, Value warp) {
  auto op = cast<tile::DotOperandLayoutAttr>(type.getEncoding());
  auto mma = cast<tile::MmaLayoutAttr>(op.getParent());
  Type elt = type.getElementType(), i32 = rw.getI32Type();
  int64_t rows = type.getShape()[0], cols = type.getShape()[1];
  unsigned wm = mma.getWarpsPerCTA()[0];
  MmaShape s = op.getOpIdx() == 0 ? mmaShape(mma, rows, 8, cols) : mmaShape(mma, 16 * wm, cols, rows);
  Value lane16 = LLVM::URemOp::create(rw, loc, lane, i32Const(rw, loc, 16));
  Value half = LLVM::UDivOp::create(rw, loc, lane, i32Const(rw, loc, 16));
  auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
  auto ldmatrix = [&](Value row, Value col, unsigned n, bool trans) {
    Value lin = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, row, i32Const(rw, loc, cols)), col);
    Value addr = LLVM::GEPOp::create(rw, loc, ptr3, elt, smem, ValueRange{lin});
    std::string regs, cons;
    for (unsigned r = 0; r < n; ++r) {
      regs += (r ? ", $" : "$") + std::to_string(r);
      cons += "=r,";
    }
    std::string asmStr = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(n) + (trans ? ".trans" : "") +
                         ".shared.b16 {" + regs + "}, [$" + std::to_string(n) + "];";
    auto resTy = LLVM::LLVMStructType::getLiteral(rw.getContext(), SmallVector<Type>(n, i32));
    Value res = inlinePTX(rw, loc, resTy, ValueRange{addr}, asmStr, cons + "l", /*sideEffects=*/true);
    SmallVector<Value> out;
    auto pairTy = VectorType::get({2}, elt);
    for (Value w : unpack(rw, loc, res)) {
      Value pair = LLVM::BitcastOp::create(rw, loc, pairTy, w);
      for (int e = 0; e < 2; ++e)
        out.push_back(LLVM::ExtractElementOp::create(rw, loc, pair, i32Const(rw, loc, e)));
    }
    return out;
  };
  SmallVector<Value> out;
  if (op.getOpIdx() == 0) {
    Value wM = LLVM::URemOp::create(rw, loc, warp, i32Const(rw, loc, s.wm));
    Value rowBase = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, wM, i32Const(rw, loc, rows / s.wm)), lane16);
    Value colBase = LLVM::MulOp::create(rw, loc, half, i32Const(rw, loc, 8));
    for (int64_t i = 0; i < s.fm; ++i)
      for (int64_t t = 0; t < s.kSteps; ++t) {
        auto v = ldmatrix(LLVM::AddOp::create(rw, loc, rowBase, i32Const(rw, loc, i * 16)),
                          LLVM::AddOp::create(rw, loc, colBase, i32Const(rw, loc, t * 16)), 4, false);
        out.append(v.begin(), v.end());
      }
    return out;
  }
  Value wN = LLVM::UDivOp::create(rw, loc, warp, i32Const(rw, loc, s.wm));
  Value colBase = LLVM::MulOp::create(rw, loc, wN, i32Const(rw, loc, cols / s.wn));
  for (int64_t j = 0; j < s.fn; ++j)
    for (int64_t t = 0; t < s.kSteps; ++t) {
      auto v = ldmatrix(LLVM::AddOp::create(rw, loc, lane16, i32Const(rw, loc, t * 16)),
                        LLVM::AddOp::create(rw, loc, colBase, i32Const(rw, loc, j * 8)), 2, true);
      out.append(v.begin(), v.end());
    }
  return out;
}

struct ConvertLayoutLowering : ConvertOpToLLVMPattern<tile::ConvertLayoutOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto srcTy = cast<RankedTensorType>(op.getSrc().getType());
    auto dstTy = cast<RankedTensorType>(op.getType());
    auto [lane, warp] = laneAndWarp(rw, loc);
    auto dotOp = dyn_cast<tile::DotOperandLayoutAttr>(dstTy.getEncoding());
    bool fragments = dotOp && isa<tile::MmaLayoutAttr>(dotOp.getParent()) &&
                     srcTy.getElementType().getIntOrFloatBitWidth() == 16;
    auto srcCoords = layoutCoords(rw, loc, srcTy, lane, warp);
    // ldmatrix computes its own addresses: no per-element coordinates needed.
    auto dstCoords = fragments ? FailureOr<std::vector<SmallVector<Value, 4>>>(
                                     std::vector<SmallVector<Value, 4>>{})
                               : layoutCoords(rw, loc, dstTy, lane, warp);
    if (failed(srcCoords) || failed(dstCoords))
      return op.emitError("code generation of this layout conversion is not supported yet: ")
             << srcTy << " to " << dstTy;
    Type structTy = getTypeConverter()->convertType(dstTy);
    Type elt = srcTy.getElementType();
    Type storeTy = elt.isInteger(1) ? rw.getI8Type() : elt;
    int64_t numel = srcTy.getNumElements();
    requireShared(op, numel * storageBytes(elt));
    Value smem = sharedBase(rw, loc, op);
    auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
    auto linear = [&](ArrayRef<Value> c) {
      Value lin = i32Const(rw, loc, 0);
      for (auto [d, v] : llvm::enumerate(c))
        lin = LLVM::AddOp::create(rw, loc, LLVM::MulOp::create(rw, loc, lin, i32Const(rw, loc, srcTy.getShape()[d])), v);
      return LLVM::GEPOp::create(rw, loc, ptr3, storeTy, smem, ValueRange{lin}).getResult();
    };
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc()), out;
    barrier(rw, loc);
    // Elements a thread holds contiguously along the last axis move as one
    // shared-memory access of up to 16 bytes.
    unsigned vec = runLength(srcTy);
    for (size_t i = 0; i < elems.size(); i += vec) {
      if (vec == 1) {
        Value s = elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, storeTy, elems[i]) : elems[i];
        LLVM::StoreOp::create(rw, loc, s, linear((*srcCoords)[i]));
        continue;
      }
      auto vecTy = VectorType::get({(int64_t)vec}, elt);
      Value v = LLVM::UndefOp::create(rw, loc, vecTy);
      for (unsigned e = 0; e < vec; ++e)
        v = LLVM::InsertElementOp::create(rw, loc, v, elems[i + e], i32Const(rw, loc, e));
      LLVM::StoreOp::create(rw, loc, v, linear((*srcCoords)[i]), vec * storageBytes(elt));
    }
    barrier(rw, loc);
    if (fragments) {
      out = loadFragments(rw, loc, dstTy, smem, lane, warp);
    } else {
      unsigned rvec = runLength(dstTy);
      for (size_t i = 0; i < dstCoords->size(); i += rvec) {
        if (rvec == 1) {
          Value v = LLVM::LoadOp::create(rw, loc, storeTy, linear((*dstCoords)[i]));
          out.push_back(elt.isInteger(1) ? (Value)LLVM::TruncOp::create(rw, loc, elt, v) : v);
          continue;
        }
        auto vecTy = VectorType::get({(int64_t)rvec}, elt);
        Value v = LLVM::LoadOp::create(rw, loc, vecTy, linear((*dstCoords)[i]), rvec * storageBytes(elt));
        for (unsigned e = 0; e < rvec; ++e)
          out.push_back(LLVM::ExtractElementOp::create(rw, loc, v, i32Const(rw, loc, e)));
      }
    }
    barrier(rw, loc);
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateShapePatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<RepeatLowering<tile::BroadcastOp>, RepeatLowering<tile::ExpandDimsOp>,
               TransposeLowering, ConvertLayoutLowering>(tc);
}
