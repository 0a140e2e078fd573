//===- PipelineMatch.cpp - what tile-software-pipeline copies ---*- C++ -*-===//
//
// The loads a loop can copy ahead (SoftwarePipeline.cpp): a block load or a
// row gather whose tile is only staged in shared memory as a tensor-core
// operand, whose coordinates come from the induction variable and loop
// invariants (for a gather, also from reads of memory the loop does not
// write, prefetched one iteration earlier), with a zero pad and runs
// cp.async can move. Also what rebuilds those coordinates for another
// iteration. Pure analysis and cloning: nothing here changes the loop.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/AxisInfo.h"
#include "lib/Transforms/SoftwarePipeline.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

namespace mlir::tile::pipeline {

namespace {

/// The ops in `loop`'s body that `v` depends on, when they are pure (or, with
/// `reads`, global reads: the loop writes no global memory, so they may run
/// earlier) and reach only the induction variable and values from outside;
/// appended in order.
bool coordinateSlice(scf::ForOp loop, Value v, llvm::SetVector<Operation *> &slice, bool reads) {
  if (v == loop.getInductionVar())
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !loop->isAncestor(v.getParentRegion()->getParentOp());
  if (!loop->isAncestor(def))
    return true;
  bool movable = isPure(def) || (reads && isa<LoadOp, GatherOp>(def));
  if (def->getBlock() != loop.getBody() || def->getNumRegions() || !movable)
    return false;
  for (Value o : def->getOperands())
    if (!coordinateSlice(loop, o, slice, reads))
      return false;
  slice.insert(def);
  return true;
}

/// No pad, or a zero one (+0.0, -0.0 or 0): what cp.async's zero fill writes.
bool isZero(Value pad) {
  return !pad || matchPattern(pad, m_AnyZeroFloat()) || matchPattern(pad, m_Zero());
}

/// The local_alloc (through a transpose) that stages `c`'s one-use tile in the
/// loop body, read only as a tensor-core operand.
bool stagedInLoop(scf::ForOp loop, Candidate &c) {
  Operation *op = c.op();
  if (!op->hasOneUse())
    return false;
  Operation *user = *op->getUsers().begin();
  if (auto tr = dyn_cast<TransposeOp>(user)) {
    if (!tr->hasOneUse())
      return false;
    c.transpose = tr;
    user = *tr->getUsers().begin();
  }
  c.alloc = dyn_cast<LocalAllocOp>(user);
  if (!c.alloc || c.alloc->getBlock() != loop.getBody())
    return false;
  return llvm::all_of(c.alloc->getUsers(),
                      [](Operation *u) { return isa<LocalLoadOp, WarpgroupDotOp>(u); });
}

} // namespace

/// Whether nothing in `loop` writes global memory (shared memory aside).
bool writesNoGlobal(scf::ForOp loop) {
  WalkResult r = loop.getBody()->walk([](Operation *op) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return op->getNumRegions() || isMemoryEffectFree(op) ? WalkResult::advance()
                                                           : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &e : effects)
      if (isa<MemoryEffects::Write>(e.getEffect()) && !isa<SharedMemory>(e.getResource()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !r.wasInterrupted();
}

/// A gather copied ahead: its indices and mask computed from the induction
/// variable, invariants and (when the loop writes no global memory) other
/// reads, such as a block table's page numbers; runs cp.async can move.
std::optional<Candidate> matchGather(scf::ForOp loop, GatherOp gather, bool reads) {
  Candidate c;
  c.gather = gather;
  auto tile = dyn_cast<RankedTensorType>(gather.getType());
  if (!tile || tile.getRank() != 2 || !isZero(gather.getPad()) || !stagedInLoop(loop, c))
    return std::nullopt;
  unsigned eltBytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  c.vec = tessera::analysis::elementAccessVector(gather);
  unsigned bytes = c.vec * eltBytes;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return std::nullopt;
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> inputs(gather.getIndices());
  if (Value m = gather.getMask())
    inputs.push_back(m);
  for (Value v : inputs)
    if (!coordinateSlice(loop, v, slice, reads))
      return std::nullopt;
  c.slice.assign(slice.begin(), slice.end());
  llvm::sort(c.slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return c;
}

/// A block load copied ahead.
std::optional<Candidate> matchLoad(scf::ForOp loop, LoadOp load) {
  Candidate c;
  c.load = load;
  auto tile = dyn_cast<RankedTensorType>(load.getType());
  // A padded tile (tile-pad-extents) is copied with its extents: the block
  // origins and the zeros past them are the load's.
  if (!tile || tile.getRank() != 2 || !isZero(load.getPad()) || !stagedInLoop(loop, c))
    return std::nullopt;
  // Runs along the tensor's last axis that cp.async can move.
  auto layout = dyn_cast_or_null<DistributedLayoutAttrInterface>(tile.getEncoding());
  if (!layout)
    return std::nullopt;
  FailureOr<Distribution> d = layout.distribute(tile.getShape());
  if (failed(d))
    return std::nullopt;
  unsigned eltBytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  unsigned run = tessera::analysis::isAlignedTensor(load.getTensor()) ? d->contiguousRun() : 1;
  c.vec = std::max(1u, std::min(run, 16 / std::max(1u, eltBytes)));
  if (std::optional<ArrayRef<int64_t>> extents = load.getExtents())
    while (c.vec > 1 && extents->back() % c.vec) // runs stop at the last extent
      c.vec /= 2;
  unsigned bytes = c.vec * eltBytes;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return std::nullopt;
  llvm::SetVector<Operation *> slice;
  for (Value coord : load.getCoords())
    if (!coordinateSlice(loop, coord, slice, /*reads=*/false))
      return std::nullopt;
  c.slice.assign(slice.begin(), slice.end());
  llvm::sort(c.slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return c;
}

SmallVector<Value> coordsAt(OpBuilder &b, scf::ForOp loop, Candidate &c, Value iv,
                            const IRMapping *outside) {
  IRMapping map = outside ? *outside : IRMapping();
  map.map(loop.getInductionVar(), iv);
  SmallVector<Operation *> clones;
  for (Operation *op : c.slice)
    // A read prefetched by an earlier iteration (`outside` maps its results).
    if (!llvm::all_of(op->getResults(), [&](Value r) { return map.contains(r); }))
      clones.push_back(b.clone(*op, map));
  SmallVector<Value> out;
  if (c.load) {
    for (Value v : c.load.getCoords())
      out.push_back(map.lookupOrDefault(v));
    return out;
  }
  for (Value v : c.gather.getIndices())
    out.push_back(map.lookupOrDefault(v));
  if (Value m = c.gather.getMask())
    out.push_back(map.lookupOrDefault(m));
  // What fed only a prefetched read.
  llvm::SmallPtrSet<Operation *, 8> results;
  for (Value v : out)
    results.insert(v.getDefiningOp());
  for (Operation *op : llvm::reverse(clones))
    if (op->use_empty() && isPure(op) && !results.contains(op))
      op->erase();
  return out;
}

/// The reads in the gathers' coordinate slices whose own coordinates need no
/// other read (a block table's page numbers), in block order.
SmallVector<Operation *> prefetchable(scf::ForOp loop, ArrayRef<Candidate> cands) {
  llvm::SetVector<Operation *> reads;
  for (const Candidate &c : cands)
    for (Operation *op : c.slice)
      if (isa<LoadOp, GatherOp>(op) && llvm::all_of(op->getOperands(), [&](Value v) {
            llvm::SetVector<Operation *> pure;
            return coordinateSlice(loop, v, pure, /*reads=*/false);
          }))
        reads.insert(op);
  SmallVector<Operation *> out(reads.begin(), reads.end());
  llvm::sort(out, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return out;
}

/// `reads` (of prefetchable) made for iteration `iv` at `b`'s point, with
/// what computes their coordinates: their results, in order.
SmallVector<Value> readsAt(OpBuilder &b, scf::ForOp loop, ArrayRef<Operation *> reads, Value iv) {
  llvm::SetVector<Operation *> slice;
  for (Operation *r : reads)
    for (Value v : r->getOperands())
      (void)coordinateSlice(loop, v, slice, /*reads=*/false);
  SmallVector<Operation *> ops(slice.begin(), slice.end());
  llvm::sort(ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : ops)
    b.clone(*op, map);
  SmallVector<Value> out;
  for (Operation *r : reads)
    llvm::append_range(out, b.clone(*r, map)->getResults());
  return out;
}

} // namespace mlir::tile::pipeline
