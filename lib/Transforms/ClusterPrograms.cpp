//===- ClusterPrograms.cpp - tile-cluster-programs --------------*- C++ -*-===//
//
// Forms thread-block clusters for the kernel's `cluster` schedule option C
// (sm_90): C consecutive programs along axis 0 launch together
// (`tile.cluster_dims = [C, 1, 1]`) and can write each other's shared memory.
// A block load in a loop whose tile is the same for every program of a
// cluster gets `tile.multicast = C`; tile-software-pipeline then copies it
// once per cluster by TMA, multicast into every program's slot. The tile is
// the same when nothing it depends on may differ between programs that differ
// in program_id(0) only: its tensor and coordinates, and the bounds of every
// loop around it (all programs of a cluster must issue the same copies). The
// test is a backward walk over operands, through loop-carried values and both
// arms of an `scf.if`; a value from an atomic, or read from a tensor the
// kernel writes, may differ anyway, and so may a tile read from such a
// tensor; a load under an `scf.if` is not shared.
//
// Runs before tile-group-programs, which keeps a cluster's programs on one
// value of axis 1 by rounding its group up to a multiple of C; the compiler
// drops the option when C does not divide the grid's axis 0 for the
// specialized sizes (the hardware launches whole clusters only). A kernel
// without a load to share gets no cluster: it would only constrain the launch.
// Persistent kernels are left alone (their programs walk different tiles).
// tile-software-pipeline drops the cluster again where no copy ends up
// multicast (a cp.async loop, or none pipelined).
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/ClusterPrograms.h"
#include "dialects/Tile/Knobs.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECLUSTERPROGRAMS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The global tensors an op of `kernel` other than a read may touch (a
/// store, scatter or atomic; an op whose effects are unknown counts).
llvm::DenseSet<Value> writtenTensors(KernelOp kernel) {
  llvm::DenseSet<Value> written;
  kernel.getBody().walk([&](Operation *op) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    SmallVector<MemoryEffects::EffectInstance> effects;
    if (iface)
      iface.getEffects(effects);
    bool writes = !iface || llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
      return !isa<MemoryEffects::Read>(e.getEffect()) && !isa<SharedMemory>(e.getResource());
    });
    if (writes)
      for (Value v : op->getOperands())
        if (isa<GlobalTensorType>(v.getType()))
          written.insert(v);
  });
  return written;
}

/// Whether `op`'s results are a function of its operands alike in every
/// program: no memory effects, or reads of global tensors the kernel never
/// writes (an atomic's old value, or a read of what programs write, may
/// differ between programs whatever the operands).
bool sameForSameOperands(const llvm::DenseSet<Value> &written, Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface || !iface.onlyHasEffect<MemoryEffects::Read>())
    return false;
  return llvm::none_of(op->getOperands(), [&](Value v) { return written.contains(v); });
}

/// Whether any of `roots` may differ between programs that differ in
/// program_id(0) only: whether program_id(0) reaches them through operands,
/// loop-carried values, loop bounds or an `scf.if`'s condition and yields,
/// or they come from an op whose results may differ anyway
/// (sameForSameOperands).
bool variesAlongAxis0(const llvm::DenseSet<Value> &written, ArrayRef<Value> roots) {
  SmallVector<Value> work(roots.begin(), roots.end());
  llvm::SmallPtrSet<void *, 32> seen;
  auto push = [&](ValueRange vs) { work.append(vs.begin(), vs.end()); };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v.getAsOpaquePointer()).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<KernelOp>(owner))
        continue; // the kernel's arguments are the same for every program
      auto loop = dyn_cast<scf::ForOp>(owner);
      if (!loop)
        return true;
      push({loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
      if (arg != loop.getInductionVar()) {
        unsigned i = arg.getArgNumber() - 1;
        push(loop.getInitArgs()[i]);
        push(loop.getBody()->getTerminator()->getOperand(i));
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (auto pid = dyn_cast<ProgramIdOp>(def)) {
      if (pid.getAxis() == 0)
        return true;
      continue;
    }
    if (!def->getNumRegions() && !sameForSameOperands(written, def))
      return true;
    push(def->getOperands());
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      push(loop.getBody()->getTerminator()->getOperand(cast<OpResult>(v).getResultNumber()));
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!r->empty())
          push(r->front().getTerminator()->getOperand(i));
      continue;
    }
    // Any other op with regions (a reduction's combiner): whatever its body
    // reads from outside it too.
    bool pid0 = false;
    def->walk([&](Operation *inner) {
      if (auto p = dyn_cast<ProgramIdOp>(inner))
        pid0 |= p.getAxis() == 0;
      pid0 |= !inner->getNumRegions() && !sameForSameOperands(written, inner);
      if (inner != def)
        for (Value o : inner->getOperands())
          if (!def->isAncestor(o.getParentRegion()->getParentOp()))
            work.push_back(o);
    });
    if (pid0)
      return true;
  }
  return false;
}

/// Whether every program of a cluster loads the same tile at `load`, the
/// same number of times: a block load in a loop, under loops only, with
/// nothing it or the loops depend on varying along axis 0.
bool shared(const llvm::DenseSet<Value> &written, LoadOp load) {
  if (load.getExtents() || !isa<RankedTensorType>(load.getType()) ||
      written.contains(load.getTensor()))
    return false;
  SmallVector<Value> deps{load.getTensor()};
  deps.append(load.getCoords().begin(), load.getCoords().end());
  if (Value pad = load.getPad())
    deps.push_back(pad);
  bool inLoop = false;
  for (Operation *p = load->getParentOp(); !isa<KernelOp>(p); p = p->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      return false;
    inLoop = true;
    deps.append({loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
  }
  return inLoop && !variesAlongAxis0(written, deps);
}

} // namespace

SmallVector<LoadOp> mlir::tile::clusterSharedLoads(KernelOp kernel) {
  SmallVector<LoadOp> loads;
  llvm::DenseSet<Value> written = writtenTensors(kernel);
  kernel.getBody().walk([&](LoadOp load) {
    if (shared(written, load))
      loads.push_back(load);
  });
  return loads;
}

std::string mlir::tile::clusterSkipReason(KernelOp kernel,
                                          const tessera::target::TargetInfo &target,
                                          SmallVector<LoadOp> *loads) {
  if (!target.hasClusters())
    return "no thread-block clusters on " + target.arch().str();
  if (scheduleOption(kernel, tessera::kPersistentOption) != 0)
    return "a persistent program's tiles are not its cluster's";
  SmallVector<LoadOp> shared = clusterSharedLoads(kernel);
  if (shared.empty())
    return "no load is the same for the programs of a cluster";
  if (loads)
    *loads = std::move(shared);
  return "";
}

namespace {

struct TileClusterPrograms : tile::impl::TileClusterProgramsBase<TileClusterPrograms> {
  using TileClusterProgramsBase::TileClusterProgramsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::optional<tessera::target::TargetInfo> target =
        tessera::target::TargetInfo::forPass(kernel, arch);
    if (!target)
      return signalPassFailure();
    int64_t size = scheduleOption(kernel, tessera::kClusterOption);
    SmallVector<LoadOp> loads;
    if (size < 2 || !clusterSkipReason(kernel, *target, &loads).empty())
      return;
    Builder b(kernel.getContext());
    kernel->setAttr("tile.cluster_dims", b.getDenseI64ArrayAttr({size, 1, 1}));
    for (LoadOp load : loads)
      load->setAttr(tessera::kMulticastAttr, b.getI32IntegerAttr(size));
  }
};

} // namespace
