//===- TileLayouts.cpp - the distributions of the layouts -------*- C++ -*-===//
//
// Each layout attribute's DistributedLayoutAttrInterface: the lane, warp and
// register parts of its Distribution (Distribution.h gives the element order).
// Extents are powers of two (checked before lowering), so every lane, warp and
// register bit moves a distinct power of two or replicates.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tile/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Distribution
//===----------------------------------------------------------------------===//

namespace {
bool computeWraps(const Distribution &dist, unsigned d) {
  const auto &offsets = dist.offsets;
  const auto &lanes = dist.lanes;
  const auto &warps = dist.warps;
  const auto &shape = dist.shape;
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
} // namespace

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

SmallVector<int64_t, 4> Distribution::coordsOf(size_t i, unsigned lane, unsigned warp) const {
  SmallVector<int64_t, 4> c(offsets[i].begin(), offsets[i].end());
  for (auto [bit, b] : llvm::enumerate(lanes))
    if (b.axis >= 0 && (lane >> bit) & 1)
      c[b.axis] += b.value;
  for (auto [bit, b] : llvm::enumerate(warps))
    if (b.axis >= 0 && (warp >> bit) & 1)
      c[b.axis] += b.value;
  for (unsigned d = 0; d < rank(); ++d)
    c[d] %= shape[d];
  return c;
}

void Distribution::reindex() {
  wrapping.clear();
  for (unsigned d = 0; d < rank(); ++d)
    wrapping.push_back(computeWraps(*this, d));
  index.clear();
  for (size_t i = 0; i < offsets.size(); ++i)
    index.try_emplace(std::vector<int64_t>(offsets[i].begin(), offsets[i].end()), i);
}

FailureOr<Distribution> mlir::tile::windowOf(const Distribution &dist, unsigned axis, int64_t begin,
                                             int64_t width, SmallVectorImpl<size_t> &elems) {
  if (axis >= dist.rank() || dist.isSliced(axis) || dist.wraps(axis) || width <= 0 ||
      begin % width || begin + width > dist.shape[axis])
    return failure();
  // The most a thread's base moves along the axis.
  int64_t reach = 0;
  for (const Basis &b : llvm::concat<const Basis>(dist.lanes, dist.warps))
    if (b.axis == (int)axis)
      reach += b.value;
  Distribution w = dist;
  w.shape[axis] = width;
  w.offsets.clear();
  elems.clear();
  for (auto [i, off] : llvm::enumerate(dist.offsets)) {
    if (off[axis] % width + reach >= width)
      return failure();
    if (off[axis] - off[axis] % width != begin)
      continue;
    elems.push_back(i);
    w.offsets.push_back(off);
    w.offsets.back()[axis] -= begin;
  }
  w.reindex();
  return w;
}

namespace {

/// Appends the bits of a level of `count` ids that step `value` along `axis`.
void addBits(SmallVectorImpl<Basis> &bases, int64_t count, int axis, int64_t value) {
  for (int64_t c = 1; c < count; c *= 2, value *= 2)
    bases.push_back({axis, axis < 0 ? 0 : value});
}

Distribution begin(Attribute root, ArrayRef<int64_t> shape) {
  Distribution dist;
  dist.root = root;
  dist.shape.assign(shape.begin(), shape.end());
  return dist;
}

} // namespace

//===----------------------------------------------------------------------===//
// Blocked
//===----------------------------------------------------------------------===//

FailureOr<Distribution> BlockedLayoutAttr::distribute(ArrayRef<int64_t> shape) const {
  unsigned r = getRank();
  if (shape.size() != r)
    return failure();
  Distribution dist = begin(*this, shape);
  ArrayRef<unsigned> spt = getSizePerThread(), tpw = getThreadsPerWarp(), wpc = getWarpsPerCTA(),
                     order = getOrder();
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
  dist.reindex();
  return dist;
}

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA())
    n *= w;
  return n;
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

FailureOr<Distribution> SliceLayoutAttr::distribute(ArrayRef<int64_t> shape) const {
  if (getDim() > shape.size())
    return failure();
  SmallVector<int64_t, 4> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  auto parent = dyn_cast<DistributedLayoutAttrInterface>(getParent());
  if (!parent)
    return failure();
  FailureOr<Distribution> dist = parent.distribute(parentShape);
  if (failed(dist))
    return failure();
  // The parent's axis `dim`, in root axes: the dim-th root axis not sliced yet.
  unsigned rootAxis = 0;
  for (unsigned seen = 0;; ++rootAxis)
    if (!dist->isSliced(rootAxis) && seen++ == getDim())
      break;
  dist->sliced.push_back(rootAxis);
  // A slice keeps the elements at register offset 0 along its axis.
  llvm::erase_if(dist->offsets,
                 [&](const SmallVector<int64_t, 4> &off) { return off[rootAxis] != 0; });
  dist->reindex();
  return dist;
}

unsigned SliceLayoutAttr::getNumWarps() const {
  return cast<DistributedLayoutAttrInterface>(getParent()).getNumWarps();
}

//===----------------------------------------------------------------------===//
// Mma (version 2: mma.sync)
//===----------------------------------------------------------------------===//

FailureOr<Distribution> MmaLayoutAttr::distribute(ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return failure();
  Distribution dist = begin(*this, shape);
  int64_t wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  int64_t im = getInstrShape()[0], in = getInstrShape()[1];
  // A 16x8 fragment: lane = 4 * row + column pair.
  addBits(dist.lanes, 4, 1, 2);
  addBits(dist.lanes, 8, 0, 1);
  if (getVersion() == 3) {
    // wgmma: the four warps of a warpgroup hold 16 rows each of its 64-row
    // instruction; warpgroups split M, then N. Per instruction, a thread holds
    // its 16x8 fragment of every 8 columns, in the order of wgmma's registers.
    if (wm % 4)
      return failure();
    int64_t gm = wm / 4;
    int64_t fm = std::max<int64_t>(1, shape[0] / (im * gm));
    int64_t fn = std::max<int64_t>(1, shape[1] / (in * wn));
    addBits(dist.warps, 4, 0, 16);
    addBits(dist.warps, gm, 0, im * fm);
    addBits(dist.warps, wn, 1, in * fn);
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j)
        for (int64_t q = 0; q < in / 8; ++q)
          for (int64_t c = 0; c < 4; ++c)
            dist.offsets.push_back({i * im + 8 * (c / 2), j * in + 8 * q + c % 2});
    dist.reindex();
    return dist;
  }
  int64_t fm = std::max<int64_t>(1, shape[0] / (im * wm));
  int64_t fn = std::max<int64_t>(1, shape[1] / (in * wn));
  addBits(dist.warps, wm, 0, im * fm);
  addBits(dist.warps, wn, 1, in * fn);
  for (int64_t i = 0; i < fm; ++i)
    for (int64_t j = 0; j < fn; ++j)
      for (int64_t c = 0; c < 4; ++c)
        dist.offsets.push_back({i * im + 8 * (c / 2), j * in + c % 2});
  dist.reindex();
  return dist;
}

unsigned MmaLayoutAttr::getNumWarps() const { return getWarpsPerCTA()[0] * getWarpsPerCTA()[1]; }

//===----------------------------------------------------------------------===//
// Dot operands
//===----------------------------------------------------------------------===//

namespace {

/// Tensor-core operands in registers: A [M, K] fragments of 8 halves, B [K, N]
/// of 4, per k step (mma.sync's; the A fragments of wgmma's register form are
/// the same per warp). wgmma reads B from shared memory only; its B layout
/// here (every warp of a warpgroup holding all of its columns) lets such a
/// tile be stored there.
Distribution mmaOperand(DotOperandLayoutAttr self, MmaLayoutAttr mma, ArrayRef<int64_t> shape) {
  Distribution dist = begin(self, shape);
  int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  int64_t im = mma.getInstrShape()[0], in = mma.getInstrShape()[1];
  bool v3 = mma.getVersion() == 3;
  // Warp bits along M: v3 has 16-row warps inside 64-row warpgroups.
  int64_t gm = v3 ? std::max<int64_t>(1, wm / 4) : wm;
  if (self.getOpIdx() == 0) {
    int64_t fm = std::max<int64_t>(1, shape[0] / (im * gm));
    int64_t ks = std::max<int64_t>(1, shape[1] / 16);
    addBits(dist.lanes, 4, 1, 2);
    addBits(dist.lanes, 8, 0, 1);
    if (v3)
      addBits(dist.warps, 4, 0, 16);
    addBits(dist.warps, gm, 0, im * fm);
    addBits(dist.warps, wn, -1, 0);
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t t = 0; t < ks; ++t)
        for (int64_t e = 0; e < 8; ++e)
          dist.offsets.push_back({i * im + 8 * ((e / 2) % 2), t * 16 + e % 2 + 8 * (e / 4)});
  } else {
    int64_t cols = v3 ? 8 : in; // one fragment's columns
    int64_t fn = std::max<int64_t>(1, shape[1] / (cols * wn));
    int64_t ks = std::max<int64_t>(1, shape[0] / 16);
    addBits(dist.lanes, 4, 0, 2);
    addBits(dist.lanes, 8, 1, 1);
    if (v3)
      addBits(dist.warps, 4, -1, 0);
    addBits(dist.warps, gm, -1, 0);
    addBits(dist.warps, wn, 1, cols * fn);
    for (int64_t j = 0; j < fn; ++j)
      for (int64_t t = 0; t < ks; ++t)
        for (int64_t e = 0; e < 4; ++e)
          dist.offsets.push_back({t * 16 + e % 2 + 8 * (e / 2), j * cols});
  }
  dist.reindex();
  return dist;
}

/// FMA operands: the accumulator's (blocked) rows for A [M, K] or columns for
/// B [K, N], each with the whole K. The accumulator's bits along K are
/// replicas here: every thread holds all of K for its rows (columns).
FailureOr<Distribution> fmaOperand(DotOperandLayoutAttr self, BlockedLayoutAttr parent,
                                   ArrayRef<int64_t> shape) {
  bool isA = self.getOpIdx() == 0;
  unsigned keep = isA ? 0 : 1, kAxis = isA ? 1 : 0;
  SmallVector<int64_t, 2> edge =
      isA ? SmallVector<int64_t, 2>{shape[0], 1} : SmallVector<int64_t, 2>{1, shape[1]};
  FailureOr<Distribution> acc = parent.distribute(edge);
  if (failed(acc))
    return failure();
  Distribution dist = begin(self, shape);
  auto onlyKeep = [&](Basis b) { return b.axis == (int)keep ? b : Basis{}; };
  for (const Basis &b : acc->lanes)
    dist.lanes.push_back(onlyKeep(b));
  for (const Basis &b : acc->warps)
    dist.warps.push_back(onlyKeep(b));
  for (const auto &off : acc->offsets) {
    if (off[kAxis] != 0)
      continue;
    for (int64_t kk = 0; kk < shape[kAxis]; ++kk) {
      SmallVector<int64_t, 4> o(2, 0);
      o[keep] = off[keep];
      o[kAxis] = kk;
      dist.offsets.push_back(o);
    }
  }
  dist.reindex();
  return dist;
}

} // namespace

FailureOr<Distribution> DotOperandLayoutAttr::distribute(ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return failure();
  if (auto mma = dyn_cast<MmaLayoutAttr>(getParent()))
    return mmaOperand(*this, mma, shape);
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(getParent()))
    return fmaOperand(*this, blocked, shape);
  return failure();
}

unsigned DotOperandLayoutAttr::getNumWarps() const {
  return cast<DistributedLayoutAttrInterface>(getParent()).getNumWarps();
}
