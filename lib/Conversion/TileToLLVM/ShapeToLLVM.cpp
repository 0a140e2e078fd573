//===- ShapeToLLVM.cpp - broadcast, expand, transpose, layouts --*- C++ -*-===//
//
// Broadcast and expand_dims stay in registers: the result and the source share a
// root layout (expand_dims turns a slice back into its parent), so the element a
// result element repeats is in the same thread, found by zeroing its register
// part along the broadcast axes. Transposing a blocked tile relabels axes: the
// struct is unchanged. convert_layout is a register permutation when both
// layouts give every thread the same elements (an mma accumulator feeding the
// next mma as its A operand); otherwise it writes every element to shared
// memory at its row-major position and reads the new layout's elements back
// (dot operands with ldmatrix). Every use of shared memory starts with a
// barrier, so none is needed after the reads.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// For each element of `res`, the index of the element of `src` it repeats.
/// Both share a root layout; `src` has extent 1 (or a slice) where `res` repeats.
FailureOr<SmallVector<size_t>> repeatMap(const Distribution &src, const Distribution &res) {
  if (src.root != res.root || src.rank() != res.rank())
    return failure();
  SmallVector<size_t> map;
  for (const auto &off : res.offsets) {
    SmallVector<int64_t, 4> z(off);
    for (unsigned a = 0; a < src.rank(); ++a)
      if (src.shape[a] == 1)
        z[a] = 0;
    std::optional<size_t> i = src.find(z);
    if (!i)
      return failure();
    map.push_back(*i);
  }
  return map;
}

/// When `dst` holds, in every thread, elements the same thread holds in `src`
/// (equal lane and warp bits inside the tile), the conversion is a permutation
/// of registers: for each element of `dst`, the element of `src` it copies.
std::optional<SmallVector<size_t>> registerPermutation(const Distribution &src,
                                                       const Distribution &dst) {
  if (src.shape != dst.shape || src.sliced != dst.sliced || src.lanes.size() != dst.lanes.size())
    return std::nullopt;
  auto sameBits = [&](ArrayRef<Basis> a, ArrayRef<Basis> b) {
    size_t n = std::max(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      Basis x = i < a.size() ? src.effective(a[i]) : Basis{};
      Basis y = i < b.size() ? dst.effective(b[i]) : Basis{};
      if (!(x == y))
        return false;
    }
    return true;
  };
  if (!sameBits(src.lanes, dst.lanes) || !sameBits(src.warps, dst.warps))
    return std::nullopt;
  std::map<std::vector<int64_t>, size_t> at; // wrapped register part -> src element
  for (size_t i = 0; i < src.offsets.size(); ++i) {
    auto w = src.wrapped(src.offsets[i]);
    at.try_emplace(std::vector<int64_t>(w.begin(), w.end()), i);
  }
  SmallVector<size_t> perm;
  for (const auto &off : dst.offsets) {
    auto w = dst.wrapped(off);
    auto it = at.find(std::vector<int64_t>(w.begin(), w.end()));
    if (it == at.end())
      return std::nullopt;
    perm.push_back(it->second);
  }
  return perm;
}

template <typename OpTy> struct RepeatLowering : ConvertOpToLLVMPattern<OpTy> {
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
      return op.emitError("code generation of this op needs blocked, mma or slice layouts");
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
  FailureOr<Distribution> dist = distribute(type);
  if (elt.isInteger(1) || failed(dist))
    return 1;
  unsigned vec = dist->contiguousRun();
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
  MmaShape s =
      op.getOpIdx() == 0 ? mmaShape(mma, rows, 8, cols) : mmaShape(mma, 16 * wm, cols, rows);
  Value lane16 = LLVM::URemOp::create(rw, loc, lane, i32Const(rw, loc, 16));
  Value half = LLVM::UDivOp::create(rw, loc, lane, i32Const(rw, loc, 16));
  auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
  auto ldmatrix = [&](Value row, Value col, unsigned n, bool trans) {
    Value lin = LLVM::AddOp::create(
        rw, loc, LLVM::MulOp::create(rw, loc, row, i32Const(rw, loc, cols)), col);
    Value addr = LLVM::GEPOp::create(rw, loc, ptr3, elt, smem, ValueRange{lin});
    std::string regs, cons;
    for (unsigned r = 0; r < n; ++r) {
      regs += (r ? ", $" : "$") + std::to_string(r);
      cons += "=r,";
    }
    std::string asmStr = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(n) +
                         (trans ? ".trans" : "") + ".shared.b16 {" + regs + "}, [$" +
                         std::to_string(n) + "];";
    auto resTy = LLVM::LLVMStructType::getLiteral(rw.getContext(), SmallVector<Type>(n, i32));
    Value res =
        inlinePTX(rw, loc, resTy, ValueRange{addr}, asmStr, cons + "l", /*sideEffects=*/true);
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
    Value rowBase = LLVM::AddOp::create(
        rw, loc, LLVM::MulOp::create(rw, loc, wM, i32Const(rw, loc, rows / s.wm)), lane16);
    Value colBase = LLVM::MulOp::create(rw, loc, half, i32Const(rw, loc, 8));
    for (int64_t i = 0; i < s.fm; ++i)
      for (int64_t t = 0; t < s.kSteps; ++t) {
        auto v =
            ldmatrix(LLVM::AddOp::create(rw, loc, rowBase, i32Const(rw, loc, i * 16)),
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
    Type structTy = getTypeConverter()->convertType(dstTy);
    if (!structTy)
      return op.emitError("code generation does not support this layout: ") << dstTy;
    // Registers only, when every thread already holds what it needs.
    FailureOr<Distribution> srcDist = distribute(srcTy), dstDist = distribute(dstTy);
    if (succeeded(srcDist) && succeeded(dstDist))
      if (auto perm = registerPermutation(*srcDist, *dstDist)) {
        SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc()), out;
        for (size_t i : *perm)
          out.push_back(elems[i]);
        rw.replaceOp(op, pack(rw, loc, structTy, out));
        return success();
      }
    auto [lane, warp] = laneAndWarp(rw, loc);
    auto dotOp = dyn_cast<tile::DotOperandLayoutAttr>(dstTy.getEncoding());
    bool fragments = dotOp && isa<tile::MmaLayoutAttr>(dotOp.getParent()) &&
                     srcTy.getElementType().getIntOrFloatBitWidth() == 16;
    auto srcCoords = layoutCoords(rw, loc, srcTy, lane, warp);
    // ldmatrix computes its own addresses: no per-element coordinates needed.
    auto dstCoords =
        fragments
            ? FailureOr<std::vector<SmallVector<Value, 4>>>(std::vector<SmallVector<Value, 4>>{})
            : layoutCoords(rw, loc, dstTy, lane, warp);
    if (failed(srcCoords) || failed(dstCoords))
      return op.emitError("code generation of this layout conversion is not supported yet: ")
             << srcTy << " to " << dstTy;
    Type elt = srcTy.getElementType();
    Type storeTy = elt.isInteger(1) ? rw.getI8Type() : elt;
    int64_t numel = srcTy.getNumElements();
    requireShared(op, numel * storageBytes(elt));
    Value smem = sharedBase(rw, loc, op);
    auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
    auto linear = [&](ArrayRef<Value> c) {
      Value lin = i32Const(rw, loc, 0);
      for (auto [d, v] : llvm::enumerate(c))
        lin = LLVM::AddOp::create(
            rw, loc, LLVM::MulOp::create(rw, loc, lin, i32Const(rw, loc, srcTy.getShape()[d])), v);
      return LLVM::GEPOp::create(rw, loc, ptr3, storeTy, smem, ValueRange{lin}).getResult();
    };
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc()), out;
    barrier(rw, loc);
    // Elements a thread holds contiguously along the last axis move as one
    // shared-memory access of up to 16 bytes.
    unsigned vec = runLength(srcTy);
    for (size_t i = 0; i < elems.size(); i += vec) {
      if (vec == 1) {
        Value s =
            elt.isInteger(1) ? (Value)LLVM::ZExtOp::create(rw, loc, storeTy, elems[i]) : elems[i];
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
        Value v =
            LLVM::LoadOp::create(rw, loc, vecTy, linear((*dstCoords)[i]), rvec * storageBytes(elt));
        for (unsigned e = 0; e < rvec; ++e)
          out.push_back(LLVM::ExtractElementOp::create(rw, loc, v, i32Const(rw, loc, e)));
      }
    }
    rw.replaceOp(op, pack(rw, loc, structTy, out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateShapePatterns(TileTypeConverter &tc,
                                                RewritePatternSet &patterns) {
  patterns.add<RepeatLowering<tile::BroadcastOp>, RepeatLowering<tile::ExpandDimsOp>,
               TransposeLowering, ConvertLayoutLowering>(tc);
}
