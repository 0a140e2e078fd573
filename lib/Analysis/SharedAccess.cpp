//===- SharedAccess.cpp - how tiles move to and from shared memory -------===//
//
// Plans (vector runs, ldmatrix groups) and the bank-conflict model; see
// SharedAccess.h.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedAccess.h"
#include "lib/Target/TargetInfo.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::analysis;

static constexpr unsigned kWarpSize = tessera::target::TargetInfo::kWarpSize;
static constexpr unsigned kSharedBanks = tessera::target::TargetInfo::kSharedBanks;
static constexpr unsigned kSharedBankBytes = tessera::target::TargetInfo::kSharedBankBytes;

unsigned SharedPlan::bytesPerLane(const SharedInstr &in) const {
  return in.kind == SharedInstr::Ldmatrix ? 16 : in.elems * geo.eltBytes;
}

namespace {

/// The root axes of `d` that are the tile's own (not sliced away).
SmallVector<unsigned, 4> tileAxes(const Distribution &d) {
  SmallVector<unsigned, 4> out;
  for (unsigned ax = 0; ax < d.rank(); ++ax)
    if (!d.isSliced(ax))
      out.push_back(ax);
  return out;
}

/// How many consecutive struct elements, from every multiple of the result,
/// are adjacent along root axis `ax` in every thread (up to `limit`).
unsigned runAlong(const Distribution &d, unsigned ax, unsigned limit) {
  auto fits = [&](unsigned v) {
    if ((int64_t)v > d.shape[ax] || d.offsets.size() % v)
      return false;
    for (ArrayRef<Basis> bits : {ArrayRef<Basis>(d.lanes), ArrayRef<Basis>(d.warps)})
      for (const Basis &b : bits)
        if (b.axis == (int)ax && b.value % v)
          return false;
    for (size_t i = 0; i < d.offsets.size(); i += v) {
      if (d.offsets[i][ax] % v)
        return false;
      for (unsigned e = 1; e < v; ++e)
        for (unsigned a = 0; a < d.rank(); ++a)
          if (d.offsets[i + e][a] != d.offsets[i][a] + (a == ax ? e : 0))
            return false;
    }
    return true;
  };
  unsigned v = 1;
  while (v * 2 <= limit && fits(v * 2))
    v *= 2;
  return v;
}

} // namespace

FailureOr<SharedPlan> tessera::analysis::planVectors(const Distribution &dist,
                                                     const SharedGeometry &geo, unsigned maxBytes) {
  SmallVector<unsigned, 4> axes = tileAxes(dist);
  if (axes.empty())
    return failure();
  if (!geo.rowMajor && axes.size() != 2)
    return failure();
  // The slot's contiguous axis, as a root axis of the distribution.
  unsigned cax = geo.rowMajor ? axes.back() : axes[0];
  unsigned limit = std::max(1u, std::min(maxBytes, 16u) / geo.eltBytes);
  // Runs never cross a 16-byte unit, nor a row of the slot.
  while (limit > 1 && geo.innerExtent() % limit)
    limit /= 2;
  SharedPlan p;
  p.dist = dist;
  p.geo = geo;
  unsigned v = runAlong(dist, cax, limit);
  for (size_t i = 0; i < dist.offsets.size(); i += v) {
    SharedInstr in;
    in.kind = SharedInstr::Vector;
    in.first = i;
    in.elems = v;
    p.instrs.push_back(in);
  }
  return p;
}

FailureOr<SharedPlan> tessera::analysis::planLdmatrix(const Distribution &dist,
                                                      const SharedGeometry &geo) {
  auto op = dyn_cast_or_null<DotOperandLayoutAttr>(dist.root);
  if (!op || !isa<MmaLayoutAttr>(op.getParent()) || dist.rank() != 2 || !dist.sliced.empty() ||
      geo.eltBytes != 2 || dist.offsets.size() % 2)
    return failure();
  SharedPlan p;
  p.dist = dist;
  p.geo = geo;
  p.kAxis = op.getOpIdx() == 0 ? 1 : 0;
  p.nonKAxis = 1 - p.kAxis;
  // Rows of 8 elements must be whole, aligned 16-byte units of the slot.
  if ((geo.innerExtent() * geo.eltBytes) % 16)
    return failure();
  unsigned contiguous = geo.rowMajor ? 1 : 0;
  bool trans = contiguous != p.kAxis;
  SmallVector<size_t> regs;
  for (size_t e = 0; e < dist.offsets.size(); e += 2) {
    const auto &o = dist.offsets[e], &o1 = dist.offsets[e + 1];
    if (o1[p.kAxis] != o[p.kAxis] + 1 || o1[p.nonKAxis] != o[p.nonKAxis] || o[p.kAxis] % 8 ||
        o[p.nonKAxis] % 8)
      return failure();
    regs.push_back(e);
  }
  for (size_t r = 0; r < regs.size();) {
    unsigned n = regs.size() - r >= 4 ? 4 : regs.size() - r >= 2 ? 2 : 1;
    SharedInstr in;
    in.kind = SharedInstr::Ldmatrix;
    in.num = n;
    in.trans = trans;
    in.regs.assign(regs.begin() + r, regs.begin() + r + n);
    p.instrs.push_back(in);
    r += n;
  }
  return p;
}

ArrayRef<int64_t> SharedPlan::hostBase(unsigned lane, unsigned warp) const {
  if (hostBases.empty()) {
    HostArith a;
    unsigned warps = cast<DistributedLayoutAttrInterface>(dist.root).getNumWarps();
    for (unsigned w = 0; w < warps; ++w)
      for (unsigned l = 0; l < kWarpSize; ++l)
        hostBases.push_back(threadBaseOf(a, dist, (int64_t)l, (int64_t)w));
  }
  return hostBases[warp * kWarpSize + lane];
}

std::vector<LaneAccess> tessera::analysis::laneAccesses(const SharedPlan &p, const SharedInstr &in,
                                                        unsigned warp) {
  HostArith a;
  std::vector<LaneAccess> out;
  out.reserve(kWarpSize);
  ArrayRef<int64_t> warpBase = p.hostBase(0, warp);
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    ArrayRef<int64_t> base = p.hostBase(lane, warp);
    LaneAccess acc;
    acc.offset = laneOffset(a, p, in, base, warpBase, (int64_t)lane);
    // ldmatrix takes row addresses from the first 8 * num lanes only.
    bool active = in.kind != SharedInstr::Ldmatrix || lane < 8 * in.num;
    acc.bytes = active ? p.bytesPerLane(in) : 0;
    out.push_back(acc);
  }
  return out;
}

Wavefronts tessera::analysis::wavefronts(const std::vector<LaneAccess> &lanes, bool ldmatrix) {
  unsigned width = 0;
  for (const LaneAccess &l : lanes)
    width = std::max(width, l.bytes);
  unsigned phase = ldmatrix || width >= 16 ? 8 : width == 8 ? 16 : kWarpSize;
  Wavefronts w;
  for (size_t start = 0; start < lanes.size(); start += phase) {
    // Per bank, its distinct words (a phase moves at most 128 words).
    constexpr int64_t banks = kSharedBanks, bankBytes = kSharedBankBytes;
    int64_t words[banks][8];
    unsigned count[banks] = {0}, most = 0, distinct = 0;
    for (size_t l = start; l < std::min(lanes.size(), start + phase); ++l) {
      if (!lanes[l].bytes)
        continue;
      unsigned n = std::max<unsigned>(1, lanes[l].bytes / bankBytes);
      for (unsigned k = 0; k < n; ++k) {
        int64_t word = lanes[l].offset / bankBytes + k;
        unsigned bank = ((word % banks) + banks) % banks;
        bool seen = false;
        for (unsigned i = 0; i < std::min(count[bank], 8u) && !seen; ++i)
          seen = words[bank][i] == word;
        if (seen)
          continue;
        if (count[bank] < 8)
          words[bank][count[bank]] = word;
        most = std::max(most, ++count[bank]);
        ++distinct;
      }
    }
    if (!distinct)
      continue;
    w.actual += most;
    w.ideal += std::max<unsigned>(1, (distinct + banks - 1) / banks);
  }
  return w;
}

unsigned tessera::analysis::bankConflicts(const SharedPlan &p, unsigned numWarps) {
  unsigned excess = 0;
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (const SharedInstr &in : p.instrs)
      excess += wavefronts(laneAccesses(p, in, warp), in.kind == SharedInstr::Ldmatrix).excess();
  return excess;
}

unsigned tessera::analysis::rootAxisOf(const Distribution &d, unsigned tileAxis) {
  unsigned axis = 0;
  for (unsigned seen = 0;; ++axis)
    if (!d.isSliced(axis) && seen++ == tileAxis)
      return axis;
}

std::optional<ReduceScratch>
tessera::analysis::reduceScratch(const Distribution &d, unsigned tileAxis, unsigned eltBytes) {
  ReduceScratch r;
  r.axis = rootAxisOf(d, tileAxis);
  r.eltBytes = eltBytes;
  for (auto [bit, b] : llvm::enumerate(d.warps))
    if (b.axis == (int)r.axis && !d.isReplica(b))
      r.warpBits.push_back(bit);
  if (r.warpBits.empty())
    return std::nullopt;
  for (unsigned ax = 0; ax < d.rank(); ++ax)
    if (ax != r.axis && !d.isSliced(ax))
      r.resultNumel *= d.shape[ax];
  return r;
}

SmallVector<size_t> tessera::analysis::reduceKeyElements(const Distribution &d, unsigned axis) {
  SmallVector<size_t> out;
  std::set<std::vector<int64_t>> seen;
  for (size_t i = 0; i < d.offsets.size(); ++i) {
    if (d.offsets[i][axis] >= d.shape[axis]) // a replica inside the thread
      continue;
    std::vector<int64_t> key(d.offsets[i].begin(), d.offsets[i].end());
    key[axis] = 0;
    if (seen.insert(key).second)
      out.push_back(*d.find(key));
  }
  return out;
}

unsigned tessera::analysis::reduceBankConflicts(const Distribution &d, const ReduceScratch &r,
                                                unsigned numWarps) {
  HostArith a;
  unsigned excess = 0;
  SmallVector<size_t> keys = reduceKeyElements(d, r.axis);
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (size_t elem : keys)
      for (int64_t slot = -1; slot < r.slots(); ++slot) { // -1: the thread's own (the stores)
        std::vector<LaneAccess> lanes;
        for (unsigned lane = 0; lane < kWarpSize; ++lane) {
          SmallVector<int64_t, 4> base = threadBaseOf(a, d, lane, warp);
          int64_t s = slot < 0 ? reduceWarpDigit(a, r, (int64_t)warp) : slot;
          lanes.push_back({reduceSlotOffset(a, d, r, elem, base, s), r.eltBytes});
        }
        excess += wavefronts(lanes, /*ldmatrix=*/false).excess();
      }
  return excess;
}

std::vector<OffsetBase> tessera::analysis::offsetBases(const SharedPlan &p) {
  unsigned numWarps = cast<DistributedLayoutAttrInterface>(p.dist.root).getNumWarps();
  // Every instruction's offsets, lane-major within warps.
  std::vector<std::vector<int64_t>> offs;
  for (const SharedInstr &in : p.instrs) {
    std::vector<int64_t> v;
    for (unsigned w = 0; w < numWarps; ++w)
      for (const LaneAccess &l : laneAccesses(p, in, w))
        v.push_back(l.offset);
    offs.push_back(std::move(v));
  }
  std::vector<OffsetBase> out;
  std::vector<size_t> refs;
  for (size_t i = 0; i < offs.size(); ++i) {
    OffsetBase b{i, 0};
    for (size_t r : refs) {
      int64_t d = offs[i][0] - offs[r][0];
      bool same = true;
      for (size_t k = 1; k < offs[i].size() && same; ++k)
        same = offs[i][k] - offs[r][k] == d;
      if (same) {
        b = {r, d};
        break;
      }
    }
    if (b.ref == i)
      refs.push_back(i);
    out.push_back(b);
  }
  return out;
}
