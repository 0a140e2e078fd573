//===- Distribute.cpp - where each element of a tile lives ------*- C++ -*-===//
//
// See Distribute.h for the element order. Coordinates are i32: tiles hold at
// most 2^20 elements. Extents are powers of two (checked before lowering), so
// every lane, warp and register bit moves a distinct power of two or replicates.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Distribute.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::conversion;

namespace {

/// Appends the bits of a level of `count` ids that step `value` along `axis`.
void addBits(SmallVectorImpl<Basis> &bases, int64_t count, int axis, int64_t value) {
  for (int64_t c = 1; c < count; c *= 2, value *= 2)
    bases.push_back({axis, axis < 0 ? 0 : value});
}

void blockedDistribution(BlockedLayoutAttr l, Distribution &dist) {
  unsigned r = l.getRank();
  ArrayRef<unsigned> spt = l.getSizePerThread(), tpw = l.getThreadsPerWarp(),
                     wpc = l.getWarpsPerCTA(), order = l.getOrder();
  for (unsigned d : order)
    addBits(dist.lanes, tpw[d], d, spt[d]);
  for (unsigned d : order)
    addBits(dist.warps, wpc[d], d, (int64_t)spt[d] * tpw[d]);
  SmallVector<int64_t, 4> cover(r), reps(r);
  for (unsigned d = 0; d < r; ++d) {
    cover[d] = (int64_t)spt[d] * tpw[d] * wpc[d];
    reps[d] = std::max<int64_t>(1, (dist.shape[d] + cover[d] - 1) / cover[d]);
  }
  // Digits: s fastest (in `order`), then reps (in `order`).
  SmallVector<int64_t, 8> radix, digit;
  for (unsigned d : order)
    radix.push_back(spt[d]);
  for (unsigned d : order)
    radix.push_back(reps[d]);
  digit.assign(radix.size(), 0);
  for (;;) {
    SmallVector<int64_t, 4> off(r, 0);
    for (unsigned k = 0; k < r; ++k)
      off[order[k]] = digit[r + k] * cover[order[k]] + digit[k];
    dist.offsets.push_back(std::move(off));
    size_t k = 0;
    while (k < digit.size() && ++digit[k] == radix[k])
      digit[k++] = 0;
    if (k == digit.size())
      break;
  }
}

/// The mma.sync m16n8 accumulator: lane = 4 * row + column pair.
void mmaDistribution(MmaLayoutAttr mma, Distribution &dist) {
  int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  int64_t fm = std::max<int64_t>(1, dist.shape[0] / (16 * wm));
  int64_t fn = std::max<int64_t>(1, dist.shape[1] / (8 * wn));
  addBits(dist.lanes, 4, 1, 2);
  addBits(dist.lanes, 8, 0, 1);
  addBits(dist.warps, wm, 0, 16 * fm);
  addBits(dist.warps, wn, 1, 8 * fn);
  for (int64_t i = 0; i < fm; ++i)
    for (int64_t j = 0; j < fn; ++j)
      for (int64_t c = 0; c < 4; ++c)
        dist.offsets.push_back({i * 16 + 8 * (c / 2), j * 8 + c % 2});
}

/// mma.sync operands: A [M, K] fragments of 8 halves, B [K, N] of 4, per k step.
void mmaOperandDistribution(MmaLayoutAttr mma, unsigned opIdx, Distribution &dist) {
  int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  if (opIdx == 0) {
    int64_t fm = std::max<int64_t>(1, dist.shape[0] / (16 * wm));
    int64_t ks = std::max<int64_t>(1, dist.shape[1] / 16);
    addBits(dist.lanes, 4, 1, 2);
    addBits(dist.lanes, 8, 0, 1);
    addBits(dist.warps, wm, 0, 16 * fm);
    addBits(dist.warps, wn, -1, 0);
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t t = 0; t < ks; ++t)
        for (int64_t e = 0; e < 8; ++e)
          dist.offsets.push_back({i * 16 + 8 * ((e / 2) % 2), t * 16 + e % 2 + 8 * (e / 4)});
    return;
  }
  int64_t fn = std::max<int64_t>(1, dist.shape[1] / (8 * wn));
  int64_t ks = std::max<int64_t>(1, dist.shape[0] / 16);
  addBits(dist.lanes, 4, 0, 2);
  addBits(dist.lanes, 8, 1, 1);
  addBits(dist.warps, wm, -1, 0);
  addBits(dist.warps, wn, 1, 8 * fn);
  for (int64_t j = 0; j < fn; ++j)
    for (int64_t t = 0; t < ks; ++t)
      for (int64_t e = 0; e < 4; ++e)
        dist.offsets.push_back({t * 16 + e % 2 + 8 * (e / 2), j * 8});
}

} // namespace

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
  dist.root = layout;
  dist.shape = shape;
  dist.sliced = slicedOuter;
  if (auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout)) {
    if (blocked.getRank() != shape.size())
      return failure();
    blockedDistribution(blocked, dist);
  } else if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(layout)) {
    if (shape.size() != 2)
      return failure();
    mmaDistribution(mma, dist);
  } else if (auto op = dyn_cast_or_null<DotOperandLayoutAttr>(layout)) {
    auto parent = dyn_cast<MmaLayoutAttr>(op.getParent());
    if (!parent || shape.size() != 2)
      return failure();
    mmaOperandDistribution(parent, op.getOpIdx(), dist);
  } else {
    return failure();
  }
  // A slice keeps the elements at register offset 0 along its axes.
  if (!dist.sliced.empty())
    llvm::erase_if(dist.offsets, [&](const SmallVector<int64_t, 4> &off) {
      return llvm::any_of(dist.sliced, [&](unsigned d) { return off[d] != 0; });
    });
  for (size_t i = 0; i < dist.offsets.size(); ++i)
    dist.index.try_emplace(std::vector<int64_t>(dist.offsets[i].begin(), dist.offsets[i].end()), i);
  return dist;
}

bool Distribution::wraps(unsigned d) const {
  int64_t span = 1;
  for (const auto &off : offsets)
    span = std::max(span, off[d] + 1);
  for (const Basis &b : lanes)
    if (b.axis == (int)d)
      span += b.value;
  for (const Basis &b : warps)
    if (b.axis == (int)d)
      span += b.value;
  return span > shape[d];
}

std::optional<size_t> Distribution::find(ArrayRef<int64_t> off) const {
  auto it = index.find(std::vector<int64_t>(off.begin(), off.end()));
  if (it == index.end())
    return std::nullopt;
  return it->second;
}

SmallVector<int64_t, 4> Distribution::wrapped(ArrayRef<int64_t> off) const {
  SmallVector<int64_t, 4> out;
  for (unsigned d = 0; d < rank(); ++d)
    out.push_back(off[d] % shape[d]);
  return out;
}

unsigned Distribution::contiguousRun() const {
  unsigned last = rank() - 1;
  if (isSliced(last) || offsets.empty())
    return 1;
  auto fits = [&](unsigned v) {
    if (v > shape[last] || offsets.size() % v)
      return false;
    for (ArrayRef<Basis> bits : {ArrayRef<Basis>(lanes), ArrayRef<Basis>(warps)})
      for (const Basis &b : bits)
        if (b.axis == (int)last && b.value % v)
          return false;
    for (size_t i = 0; i < offsets.size(); i += v) {
      if (offsets[i][last] % v)
        return false;
      for (unsigned e = 1; e < v; ++e)
        for (unsigned d = 0; d < rank(); ++d)
          if (offsets[i + e][d] != offsets[i][d] + (d == last ? e : 0))
            return false;
    }
    return true;
  };
  unsigned v = 1;
  while (fits(v * 2))
    v *= 2;
  return v;
}

SmallVector<Value, 4> tessera::conversion::threadBase(OpBuilder &b, Location loc,
                                                      const Distribution &dist, Value laneId,
                                                      Value warpId) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i32, v).getResult(); };
  SmallVector<Value, 4> base(dist.rank(), Value());
  // Runs of consecutive bits that step one axis by doubling values become one
  // (id / 2^first) % 2^n * value term.
  auto addTerms = [&](ArrayRef<Basis> bits, Value id) {
    for (size_t i = 0; i < bits.size();) {
      size_t j = i + 1;
      while (j < bits.size() && bits[j].axis == bits[i].axis && bits[i].axis >= 0 &&
             bits[j].value == bits[j - 1].value * 2)
        ++j;
      if (bits[i].axis >= 0) {
        Value digit = LLVM::URemOp::create(b, loc, LLVM::UDivOp::create(b, loc, id, cst(1ll << i)),
                                           cst(1ll << (j - i)));
        Value term = LLVM::MulOp::create(b, loc, digit, cst(bits[i].value));
        Value &acc = base[bits[i].axis];
        acc = acc ? LLVM::AddOp::create(b, loc, acc, term).getResult() : term;
      }
      i = j;
    }
  };
  addTerms(dist.lanes, laneId);
  addTerms(dist.warps, warpId);
  for (Value &v : base)
    if (!v)
      v = cst(0);
  return base;
}

std::vector<SmallVector<Value, 4>> tessera::conversion::elementCoords(OpBuilder &b, Location loc,
                                                                      const Distribution &dist,
                                                                      ArrayRef<Value> base) {
  Type i32 = b.getI32Type();
  unsigned r = dist.rank();
  SmallVector<bool, 4> wrap;
  for (unsigned d = 0; d < r; ++d)
    wrap.push_back(dist.wraps(d));
  std::vector<SmallVector<Value, 4>> out;
  out.reserve(dist.offsets.size());
  for (size_t i = 0; i < dist.offsets.size(); ++i) {
    SmallVector<Value, 4> c;
    for (unsigned d = 0; d < r; ++d) {
      if (dist.isSliced(d))
        continue;
      Value v = LLVM::AddOp::create(b, loc, base[d],
                                    LLVM::ConstantOp::create(b, loc, i32, dist.offsets[i][d]));
      // Wrap around when the layout covers more than the tile (replication).
      if (wrap[d])
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
  s.fm = std::max<int64_t>(1, m / (16 * s.wm));
  s.fn = std::max<int64_t>(1, n / (8 * s.wn));
  s.kSteps = std::max<int64_t>(1, k / 16);
  return s;
}

namespace {
/// The elements of `dist` on its axis `axis`: register parts zero elsewhere.
SmallVector<size_t> axisElements(const Distribution &dist, unsigned axis) {
  SmallVector<size_t> out;
  for (size_t i = 0; i < dist.offsets.size(); ++i) {
    bool onAxis = true;
    for (unsigned a = 0; a < dist.rank(); ++a)
      if (a != axis && dist.offsets[i][a] != 0)
        onAxis = false;
    if (onAxis)
      out.push_back(i);
  }
  return out;
}

/// FMA operands: the accumulator's (blocked) rows for A [M, K] or columns for
/// B [K, N], each with the whole K; the parent's distribution over [M, 1] or
/// [1, N] gives them.
FailureOr<Distribution> fmaParent(DotOperandLayoutAttr op, ArrayRef<int64_t> shape,
                                  MLIRContext *ctx) {
  auto parent = dyn_cast<BlockedLayoutAttr>(op.getParent());
  if (!parent)
    return failure();
  bool isA = op.getOpIdx() == 0;
  SmallVector<int64_t> s =
      isA ? SmallVector<int64_t>{shape[0], 1} : SmallVector<int64_t>{1, shape[1]};
  return distribute(RankedTensorType::get(s, Float32Type::get(ctx), parent));
}

bool isFmaOperand(Attribute l) {
  auto op = dyn_cast_or_null<DotOperandLayoutAttr>(l);
  return op && isa<BlockedLayoutAttr>(op.getParent());
}
} // namespace

FailureOr<size_t> tessera::conversion::elemsPerThread(RankedTensorType type) {
  if (isFmaOperand(type.getEncoding())) {
    auto op = cast<DotOperandLayoutAttr>(type.getEncoding());
    FailureOr<Distribution> d = fmaParent(op, type.getShape(), type.getContext());
    if (failed(d))
      return failure();
    int64_t k = op.getOpIdx() == 0 ? type.getShape()[1] : type.getShape()[0];
    return axisElements(*d, op.getOpIdx() == 0 ? 0 : 1).size() * k;
  }
  FailureOr<Distribution> d = distribute(type);
  if (failed(d))
    return failure();
  return d->offsets.size();
}

FailureOr<std::vector<SmallVector<Value, 4>>>
tessera::conversion::layoutCoords(OpBuilder &b, Location loc, RankedTensorType type, Value lane,
                                  Value warp) {
  if (!isFmaOperand(type.getEncoding())) {
    FailureOr<Distribution> d = distribute(type);
    if (failed(d))
      return failure();
    return elementCoords(b, loc, *d, threadBase(b, loc, *d, lane, warp));
  }
  auto op = cast<DotOperandLayoutAttr>(type.getEncoding());
  bool isA = op.getOpIdx() == 0;
  int64_t k = isA ? type.getShape()[1] : type.getShape()[0];
  FailureOr<Distribution> d = fmaParent(op, type.getShape(), type.getContext());
  if (failed(d))
    return failure();
  auto cst = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v).getResult();
  };
  auto coords = elementCoords(b, loc, *d, threadBase(b, loc, *d, lane, warp));
  std::vector<SmallVector<Value, 4>> out;
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
