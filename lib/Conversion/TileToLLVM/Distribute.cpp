//===- Distribute.cpp - where each element of a tile lives ------*- C++ -*-===//
//
// See Distribute.h for the element order. Coordinates are i32: tiles hold at
// most 2^20 elements.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Distribute.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::conversion;

static int64_t coverage(BlockedLayoutAttr l, unsigned d) {
  return (int64_t)l.getSizePerThread()[d] * l.getThreadsPerWarp()[d] * l.getWarpsPerCTA()[d];
}

FailureOr<Distribution> tessera::conversion::distribute(RankedTensorType type) {
  Distribution dist;
  Attribute layout = type.getEncoding();
  SmallVector<int64_t, 4> shape(type.getShape());
  SmallVector<unsigned, 2> slicedOuter;
  // Peel slices: each inserts an extent-1 axis back at its `dim`.
  while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout)) {
    shape.insert(shape.begin() + slice.getDim(), 1);
    // Earlier peeled axes shift when an axis is inserted before them.
    for (unsigned &a : slicedOuter)
      if (a >= slice.getDim())
        ++a;
    slicedOuter.push_back(slice.getDim());
    layout = slice.getParent();
  }
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!blocked || blocked.getRank() != shape.size())
    return failure();
  dist.blocked = blocked;
  dist.shape = shape;
  dist.sliced = slicedOuter;
  unsigned r = shape.size();
  dist.reps.resize(r);
  for (unsigned d = 0; d < r; ++d)
    dist.reps[d] = std::max<int64_t>(1, (shape[d] + coverage(blocked, d) - 1) / coverage(blocked, d));
  auto isSliced = [&](unsigned d) { return llvm::is_contained(dist.sliced, d); };
  // Enumerate digits: s fastest (in `order`), then reps (in `order`).
  SmallVector<int64_t, 8> radix, digit;
  ArrayRef<unsigned> order = blocked.getOrder();
  for (unsigned d : order)
    radix.push_back(isSliced(d) ? 1 : blocked.getSizePerThread()[d]);
  for (unsigned d : order)
    radix.push_back(isSliced(d) ? 1 : dist.reps[d]);
  digit.assign(radix.size(), 0);
  for (;;) {
    ElemDigits e;
    e.s.assign(r, 0);
    e.rep.assign(r, 0);
    for (unsigned k = 0; k < r; ++k) {
      e.s[order[k]] = digit[k];
      e.rep[order[k]] = digit[r + k];
    }
    dist.elems.push_back(std::move(e));
    size_t k = 0;
    while (k < digit.size() && ++digit[k] == radix[k])
      digit[k++] = 0;
    if (k == digit.size())
      break;
  }
  return dist;
}

int64_t Distribution::constOffset(size_t i, unsigned d) const {
  return elems[i].rep[d] * coverage(blocked, d) + elems[i].s[d];
}

size_t Distribution::indexOf(const ElemDigits &d) const {
  ArrayRef<unsigned> order = blocked.getOrder();
  unsigned r = order.size();
  size_t index = 0, stride = 1;
  auto isSliced = [&](unsigned a) { return llvm::is_contained(sliced, a); };
  for (unsigned k = 0; k < r; ++k) {
    unsigned a = order[k];
    int64_t n = isSliced(a) ? 1 : blocked.getSizePerThread()[a];
    index += (isSliced(a) ? 0 : d.s[a] % n) * stride;
    stride *= n;
  }
  for (unsigned k = 0; k < r; ++k) {
    unsigned a = order[k];
    int64_t n = isSliced(a) ? 1 : reps[a];
    index += (isSliced(a) ? 0 : d.rep[a] % n) * stride;
    stride *= n;
  }
  return index;
}

SmallVector<Value, 4> tessera::conversion::threadBase(OpBuilder &b, Location loc,
                                                      const Distribution &dist, Value laneId,
                                                      Value warpId) {
  BlockedLayoutAttr l = dist.blocked;
  unsigned r = l.getRank();
  SmallVector<Value, 4> base(r);
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i32, v).getResult(); };
  int64_t laneStride = 1, warpStride = 1;
  for (unsigned d : l.getOrder()) {
    Value lane = LLVM::URemOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, laneId, cst(laneStride)), cst(l.getThreadsPerWarp()[d]));
    Value warp = LLVM::URemOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, warpId, cst(warpStride)), cst(l.getWarpsPerCTA()[d]));
    laneStride *= l.getThreadsPerWarp()[d];
    warpStride *= l.getWarpsPerCTA()[d];
    int64_t spt = l.getSizePerThread()[d];
    Value v = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, lane, cst(spt)),
        LLVM::MulOp::create(b, loc, warp, cst(spt * l.getThreadsPerWarp()[d])));
    base[d] = v;
  }
  return base;
}

std::vector<SmallVector<Value, 4>>
tessera::conversion::elementCoords(OpBuilder &b, Location loc, const Distribution &dist,
                                   ArrayRef<Value> base) {
  Type i32 = b.getI32Type();
  unsigned r = dist.shape.size();
  std::vector<SmallVector<Value, 4>> out;
  out.reserve(dist.elems.size());
  for (size_t i = 0; i < dist.elems.size(); ++i) {
    SmallVector<Value, 4> c;
    for (unsigned d = 0; d < r; ++d) {
      if (llvm::is_contained(dist.sliced, d))
        continue;
      Value v = LLVM::AddOp::create(b, loc, base[d],
                                    LLVM::ConstantOp::create(b, loc, i32, dist.constOffset(i, d)));
      // Wrap around when the layout covers more than the tile (replication).
      if (coverage(dist.blocked, d) > dist.shape[d])
        v = LLVM::URemOp::create(b, loc, v, LLVM::ConstantOp::create(b, loc, i32, dist.shape[d]));
      c.push_back(v);
    }
    out.push_back(std::move(c));
  }
  return out;
}

MmaShape tessera::conversion::mmaShape(MmaLayoutAttr mma, int64_t m, int64_t n, int64_t k) {
  MmaShape s;
  s.wm = mma.getWarpsPerCTA()[0];
  s.wn = mma.getWarpsPerCTA()[1];
  s.fm = std::max<int64_t>(1, m / s.wm / 16);
  s.fn = std::max<int64_t>(1, n / s.wn / 8);
  s.kSteps = std::max<int64_t>(1, k / 16);
  return s;
}

namespace {
/// The elements of a blocked layout's axis `axis` one thread holds for extent
/// `extent`: the element indices of `dist` with the other axis' digits zero.
SmallVector<size_t> axisElements(const Distribution &dist, unsigned axis) {
  SmallVector<size_t> out;
  for (size_t i = 0; i < dist.elems.size(); ++i) {
    bool onAxis = true;
    for (unsigned a = 0; a < dist.shape.size(); ++a)
      if (a != axis && (dist.elems[i].s[a] != 0 || dist.elems[i].rep[a] != 0))
        onAxis = false;
    if (onAxis)
      out.push_back(i);
  }
  return out;
}

/// The parent's distribution over a [rows, cols] accumulator, for an FMA operand.
FailureOr<Distribution> fmaParent(BlockedLayoutAttr parent, int64_t m, int64_t n, MLIRContext *ctx) {
  auto t = RankedTensorType::get({m, n}, Float32Type::get(ctx), parent);
  return distribute(t);
}
} // namespace

FailureOr<size_t> tessera::conversion::elemsPerThread(RankedTensorType type) {
  Attribute l = type.getEncoding();
  ArrayRef<int64_t> shape = type.getShape();
  if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(l)) {
    MmaShape s = mmaShape(mma, shape[0], shape[1], 16);
    return s.fm * s.fn * 4;
  }
  if (auto op = dyn_cast_or_null<DotOperandLayoutAttr>(l)) {
    if (auto mma = dyn_cast<MmaLayoutAttr>(op.getParent())) {
      if (op.getOpIdx() == 0) {
        MmaShape s = mmaShape(mma, shape[0], 8, shape[1]);
        return s.fm * s.kSteps * 8;
      }
      MmaShape s = mmaShape(mma, 16, shape[1], shape[0]);
      return s.fn * s.kSteps * 4;
    }
    auto parent = cast<BlockedLayoutAttr>(op.getParent());
    // Rows (A) or columns (B) as the parent holds them, times the whole K.
    int64_t k = op.getOpIdx() == 0 ? shape[1] : shape[0];
    int64_t outer = op.getOpIdx() == 0 ? shape[0] : shape[1];
    FailureOr<Distribution> d = op.getOpIdx() == 0 ? fmaParent(parent, outer, 1, type.getContext())
                                                   : fmaParent(parent, 1, outer, type.getContext());
    if (failed(d))
      return failure();
    return axisElements(*d, op.getOpIdx() == 0 ? 0 : 1).size() * k;
  }
  FailureOr<Distribution> d = distribute(type);
  if (failed(d))
    return failure();
  return d->elems.size();
}

FailureOr<std::vector<SmallVector<Value, 4>>>
tessera::conversion::layoutCoords(OpBuilder &b, Location loc, RankedTensorType type, Value lane,
                                  Value warp) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i32, v).getResult(); };
  auto add = [&](Value x, int64_t c) { return LLVM::AddOp::create(b, loc, x, cst(c)).getResult(); };
  Attribute l = type.getEncoding();
  ArrayRef<int64_t> shape = type.getShape();
  std::vector<SmallVector<Value, 4>> out;
  Value group = LLVM::UDivOp::create(b, loc, lane, cst(4));   // lane / 4
  Value inGroup = LLVM::URemOp::create(b, loc, lane, cst(4)); // lane % 4
  auto mmaBases = [&](MmaLayoutAttr mma, int64_t m, int64_t n) {
    MmaShape s = mmaShape(mma, m, n, 16);
    Value wM = LLVM::URemOp::create(b, loc, warp, cst(s.wm));
    Value wN = LLVM::UDivOp::create(b, loc, warp, cst(s.wm));
    Value rowBase = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, wM, cst(m / s.wm)), group);
    Value colBase = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, wN, cst(n / s.wn)),
        LLVM::MulOp::create(b, loc, inGroup, cst(2)));
    return std::make_pair(rowBase, colBase);
  };
  if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(l)) {
    MmaShape s = mmaShape(mma, shape[0], shape[1], 16);
    auto [rowBase, colBase] = mmaBases(mma, shape[0], shape[1]);
    for (int64_t i = 0; i < s.fm; ++i)
      for (int64_t j = 0; j < s.fn; ++j)
        for (int64_t c = 0; c < 4; ++c)
          out.push_back({add(rowBase, i * 16 + 8 * (c / 2)), add(colBase, j * 8 + c % 2)});
    return out;
  }
  if (auto op = dyn_cast_or_null<DotOperandLayoutAttr>(l)) {
    if (auto mma = dyn_cast<MmaLayoutAttr>(op.getParent())) {
      if (op.getOpIdx() == 0) { // A [M, K]
        MmaShape s = mmaShape(mma, shape[0], 8, shape[1]);
        auto [rowBase, unused] = mmaBases(mma, shape[0], 8 * s.wn);
        (void)unused;
        Value kBase = LLVM::MulOp::create(b, loc, inGroup, cst(2));
        for (int64_t i = 0; i < s.fm; ++i)
          for (int64_t t = 0; t < s.kSteps; ++t)
            for (int64_t e = 0; e < 8; ++e)
              out.push_back({add(rowBase, i * 16 + 8 * ((e / 2) % 2)),
                             add(kBase, t * 16 + e % 2 + 8 * (e / 4))});
        return out;
      }
      // B [K, N]
      MmaShape s = mmaShape(mma, 16 * mma.getWarpsPerCTA()[0], shape[1], shape[0]);
      Value wN = LLVM::UDivOp::create(b, loc, warp, cst(s.wm));
      Value colBase = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, wN, cst(shape[1] / s.wn)), group);
      Value kBase = LLVM::MulOp::create(b, loc, inGroup, cst(2));
      for (int64_t j = 0; j < s.fn; ++j)
        for (int64_t t = 0; t < s.kSteps; ++t)
          for (int64_t e = 0; e < 4; ++e)
            out.push_back({add(kBase, t * 16 + e % 2 + 8 * (e / 2)), add(colBase, j * 8)});
      return out;
    }
    // FMA operands: the parent's rows (A) or columns (B), each with every k.
    auto parent = cast<BlockedLayoutAttr>(op.getParent());
    bool isA = op.getOpIdx() == 0;
    int64_t k = isA ? shape[1] : shape[0], outer = isA ? shape[0] : shape[1];
    FailureOr<Distribution> d = isA ? fmaParent(parent, outer, 1, type.getContext())
                                    : fmaParent(parent, 1, outer, type.getContext());
    if (failed(d))
      return failure();
    auto coords = elementCoords(b, loc, *d, threadBase(b, loc, *d, lane, warp));
    for (size_t idx : axisElements(*d, isA ? 0 : 1))
      for (int64_t kk = 0; kk < k; ++kk) {
        Value o = coords[idx][isA ? 0 : 1];
        if (isA)
          out.push_back({o, cst(kk)});
        else
          out.push_back({cst(kk), o});
      }
    return out;
  }
  FailureOr<Distribution> d = distribute(type);
  if (failed(d))
    return failure();
  return elementCoords(b, loc, *d, threadBase(b, loc, *d, lane, warp));
}
