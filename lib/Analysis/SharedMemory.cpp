//===- SharedMemory.cpp - what a kernel needs of shared memory -----------===//
//
// See SharedMemory.h.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Target/TargetInfo.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::analysis;

std::optional<SmallVector<size_t>> tessera::analysis::registerPermutation(const Distribution &src,
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

unsigned tessera::analysis::sharedEltBytes(Type elt) {
  return elt.isInteger(1) ? 1 : elt.getIntOrFloatBitWidth() / 8;
}

FailureOr<SharedPlan> tessera::analysis::readPlan(const Distribution &dst,
                                                  const SharedGeometry &geo) {
  FailureOr<SharedPlan> matrices = planLdmatrix(dst, geo);
  if (succeeded(matrices))
    return matrices;
  return planVectors(dst, geo);
}

namespace {

FailureOr<Distribution> distributionOf(RankedTensorType t) {
  auto layout = dyn_cast_or_null<DistributedLayoutAttrInterface>(t.getEncoding());
  if (!layout)
    return failure();
  return layout.distribute(t.getShape());
}

unsigned warpsOf(RankedTensorType t) {
  return cast<DistributedLayoutAttrInterface>(t.getEncoding()).getNumWarps();
}

/// Conflicts of writing `src` into and reading `dst` from a slot of `geo`
/// (nullopt: a plan does not exist).
std::optional<unsigned> roundTripConflicts(const Distribution &src, unsigned srcWarps,
                                           const Distribution &dst, unsigned dstWarps,
                                           const SharedGeometry &geo) {
  FailureOr<SharedPlan> w = planVectors(src, geo), r = readPlan(dst, geo);
  if (failed(w) || failed(r))
    return std::nullopt;
  return bankConflicts(*w, srcWarps) + bankConflicts(*r, dstWarps);
}

/// The geometries a [rows, cols] slot of `eltBytes` elements may take.
SmallVector<SharedGeometry> candidates(int64_t rows, int64_t cols, unsigned eltBytes,
                                       bool rowMajor) {
  SmallVector<SharedGeometry> out;
  int64_t inner = (rowMajor ? cols : rows) * eltBytes;
  for (unsigned s : {0u, 32u, 64u, 128u})
    if (s == 0 || inner % s == 0)
      out.push_back(SharedGeometry{rows, cols, eltBytes, s, std::max(1u, 16 / eltBytes), rowMajor});
  return out;
}

/// Scratch may also pad unswizzled rows by 16, 32 or 64 bytes.
SmallVector<SharedGeometry> scratchCandidates(int64_t rows, int64_t cols, unsigned eltBytes) {
  SmallVector<SharedGeometry> out = candidates(rows, cols, eltBytes, /*rowMajor=*/true);
  if (rows > 1)
    for (unsigned pad : {16u, 32u, 64u}) {
      SharedGeometry g = out.front();
      g.pad = pad;
      out.push_back(g);
    }
  return out;
}

} // namespace

std::optional<SharedGeometry> tessera::analysis::conversionScratch(RankedTensorType src,
                                                                   RankedTensorType dst) {
  // A pure function of the two types, and a costly one (every candidate's bank
  // conflicts are simulated, lane by lane), asked again for the same
  // conversions by every configuration the cost model and the tuner look at.
  // Keyed by the types' text, not their storage, which a later context may reuse.
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    os << src << '|' << dst;
  }
  static std::mutex mutex;
  static llvm::StringMap<std::optional<SharedGeometry>> memo;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
  }
  std::optional<SharedGeometry> best = conversionScratchUncached(src, dst);
  std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() >= 4096)
    memo.clear();
  memo[key] = best;
  return best;
}

std::optional<SharedGeometry> tessera::analysis::conversionScratchUncached(RankedTensorType src,
                                                                           RankedTensorType dst) {
  FailureOr<Distribution> s = distributionOf(src), d = distributionOf(dst);
  if (failed(s) || failed(d) || registerPermutation(*s, *d))
    return std::nullopt;
  int64_t cols = src.getShape().empty() ? 1 : src.getShape().back();
  int64_t rows = src.getNumElements() / std::max<int64_t>(1, cols);
  unsigned e = sharedEltBytes(src.getElementType());
  std::optional<SharedGeometry> best;
  unsigned bestCost = ~0u;
  for (const SharedGeometry &g : scratchCandidates(rows, cols, e))
    if (auto cost = roundTripConflicts(*s, warpsOf(src), *d, warpsOf(dst), g);
        cost && *cost < bestCost) {
      best = g;
      bestCost = *cost;
    }
  if (!best) // no plan fits: element by element, unswizzled
    best = SharedGeometry{rows, cols, e, 0, 1, true};
  return best;
}

std::optional<SharedGeometry> tessera::analysis::scratchOf(ConvertLayoutOp op) {
  auto rec = op->getAttrOfType<DenseI64ArrayAttr>("tile.scratch_layout");
  if (!rec || rec.size() != 2)
    return conversionScratch(op.getSrc().getType(), op.getType());
  RankedTensorType t = op.getSrc().getType();
  int64_t cols = t.getShape().empty() ? 1 : t.getShape().back();
  unsigned e = sharedEltBytes(t.getElementType());
  SharedGeometry g{t.getNumElements() / std::max<int64_t>(1, cols),
                   cols,
                   e,
                   (unsigned)rec[0],
                   std::max(1u, 16 / e),
                   true};
  g.pad = rec[1];
  return g;
}

void tessera::analysis::recordScratch(ConvertLayoutOp op, const SharedGeometry &g) {
  op->setAttr("tile.scratch_layout",
              DenseI64ArrayAttr::get(op.getContext(), {(int64_t)g.swizzle, (int64_t)g.pad}));
}

bool tessera::analysis::atomicResultReplicated(Type result) {
  auto t = dyn_cast<RankedTensorType>(result);
  if (!t)
    return true;
  FailureOr<Distribution> d = distributionOf(t);
  if (failed(d))
    return false;
  if (!d->sliced.empty())
    return true;
  for (unsigned a = 0; a < d->rank(); ++a)
    if (d->wraps(a))
      return true;
  auto replica = [&](const Basis &b) { return d->isReplica(b); };
  return llvm::any_of(d->lanes, replica) || llvm::any_of(d->warps, replica);
}

int64_t tessera::analysis::scratchBytes(Operation *op) {
  if (isa<AtomicRMWOp, AtomicCASOp>(op)) {
    Type t = op->getResult(0).getType();
    if (op->getResult(0).use_empty() || !atomicResultReplicated(t))
      return 0;
    int64_t n = 1;
    if (auto r = dyn_cast<RankedTensorType>(t))
      n = r.getNumElements();
    return n * std::max(4u, sharedEltBytes(getElementTypeOrSelf(t)));
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
    std::optional<SharedGeometry> g = scratchOf(cvt);
    return g ? g->bytes() : 0;
  }
  if (isa<ScanOp, AssociativeScanOp, ReshapeOp, PermuteOp>(op)) {
    // The whole source tile, row-major, with one padding element after every
    // bank's worth (ScratchTile.h in the conversion); tile.scan keeps 16-bit
    // floats as f32 (a combiner runs in the element type).
    auto t = cast<RankedTensorType>(op->getOperand(0).getType());
    int64_t n = t.getNumElements();
    Type elt = t.getElementType();
    unsigned bytes = sharedEltBytes(elt);
    if (isa<ScanOp>(op) && isa<FloatType>(elt))
      bytes = std::max(4u, bytes);
    return (n + n / tessera::target::TargetInfo::kSharedBanks) * bytes;
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    FailureOr<Distribution> d = distributionOf(red.getSrc().getType());
    if (failed(d))
      return 0;
    std::optional<ReduceScratch> r =
        reduceScratch(*d, red.getAxis(), sharedEltBytes(red.getSrc().getType().getElementType()));
    return r ? r->bytes() : 0;
  }
  return 0;
}

namespace {
/// A staged tile is stored along its source layout's fastest axis (the
/// columns unless a blocked layout orders the rows first).
bool storedRowMajor(RankedTensorType src) {
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(src.getEncoding());
  return !blocked || blocked.getOrder()[0] == 1;
}
} // namespace

SharedEncodingAttr tessera::analysis::chooseStagingEncoding(RankedTensorType src,
                                                            Attribute reader) {
  MLIRContext *ctx = src.getContext();
  unsigned e = sharedEltBytes(src.getElementType());
  bool rowMajor = storedRowMajor(src);
  FailureOr<Distribution> s = distributionOf(src);
  FailureOr<Distribution> r =
      failed(s) ? FailureOr<Distribution>()
                : cast<DistributedLayoutAttrInterface>(reader).distribute(src.getShape());
  SharedGeometry best{};
  unsigned bestCost = ~0u;
  bool found = false;
  for (const SharedGeometry &g : candidates(src.getShape()[0], src.getShape()[1], e, rowMajor)) {
    std::optional<unsigned> cost =
        succeeded(s) && succeeded(r)
            ? roundTripConflicts(*s, warpsOf(src), *r,
                                 cast<DistributedLayoutAttrInterface>(reader).getNumWarps(), g)
            : std::nullopt;
    if (cost && (*cost < bestCost || (*cost == bestCost && g.swizzle > best.swizzle))) {
      best = g;
      bestCost = *cost;
      found = true;
    }
  }
  if (!found)
    best = candidates(src.getShape()[0], src.getShape()[1], e, rowMajor).front();
  unsigned order0 = rowMajor ? 1 : 0;
  return SharedEncodingAttr::get(ctx, best.swizzle, best.vec, {order0, 1 - order0});
}

FailureOr<SharedEncodingAttr>
tessera::analysis::chooseWgmmaEncoding(RankedTensorType src, unsigned opIdx, MmaLayoutAttr mma) {
  unsigned e = sharedEltBytes(src.getElementType());
  bool rowMajor = storedRowMajor(src);
  int64_t inner = rowMajor ? src.getShape()[1] : src.getShape()[0];
  // The contiguous axis is K for a K-major operand (A row-major, B column-major).
  bool kMajor = (opIdx == 0) == rowMajor;
  int64_t span = opIdx == 0 ? mma.getInstrShape()[0] : mma.getInstrShape()[1];
  for (unsigned swizzle : {128u, 64u, 32u}) {
    if (inner * e < swizzle || (inner * e) % swizzle)
      continue;
    if (!kMajor && span * e < swizzle)
      continue;
    unsigned order0 = rowMajor ? 1 : 0;
    return SharedEncodingAttr::get(src.getContext(), swizzle, 16 / e, {order0, 1 - order0});
  }
  return failure();
}
