//===- SoftwarePipeline.h - tile-software-pipeline internals ----*- C++ -*-===//
//
// What the parts of tile-software-pipeline share: PipelineMatch.cpp finds the
// loads a loop can copy ahead, SoftwarePipeline.cpp builds the cp.async
// pipeline, PipelineTma.cpp decides whether the copies go through TMA and, for a loop
// whose one asynchronous warpgroup dot accumulates (matmul) or whose warpgroup
// dots are waited for (attention), splits the kernel into a producer
// warpgroup and the compute warps (warp specialization).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LIB_TRANSFORMS_SOFTWAREPIPELINE_H
#define TESSERA_LIB_TRANSFORMS_SOFTWAREPIPELINE_H

#include "dialects/Tile/TileDialect.h"
#include "lib/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tile::pipeline {

/// A load the loop can copy ahead: a block load, or an element-addressed
/// one (a gather, copied by cp.async only).
struct Candidate {
  LoadOp load;
  GatherOp gather;       // instead of `load`
  TransposeOp transpose; // null when the tile is staged as loaded
  LocalAllocOp alloc;
  SmallVector<Operation *> slice; // the coordinate computation, in order
  unsigned vec = 1;
  int64_t tmaMap = -1; // index into tile.tensor_maps when copied by TMA

  Operation *op() { return load ? load.getOperation() : gather.getOperation(); }
  RankedTensorType tileType() { return cast<RankedTensorType>(op()->getResult(0).getType()); }
};

/// Whether nothing in `loop` writes global memory (shared memory aside).
bool writesNoGlobal(scf::ForOp loop);

/// `load` as a candidate of `loop` (PipelineMatch.cpp), or nullopt.
std::optional<Candidate> matchLoad(scf::ForOp loop, LoadOp load);

/// `gather` as a candidate of `loop`; with `reads`, its indices may need reads
/// (the loop writes no global memory), or nullopt.
std::optional<Candidate> matchGather(scf::ForOp loop, GatherOp gather, bool reads);

/// The reads in the gathers' coordinate slices whose own coordinates need no
/// other read (a block table's page numbers), in block order.
SmallVector<Operation *> prefetchable(scf::ForOp loop, ArrayRef<Candidate> cands);

/// `reads` (of prefetchable) made for iteration `iv` at `b`'s point, with
/// what computes their coordinates: their results, in order.
SmallVector<Value> readsAt(OpBuilder &b, scf::ForOp loop, ArrayRef<Operation *> reads, Value iv);

/// The coordinates of `c`'s load at iteration `iv` (a gather's indices, then
/// its mask if it has one), computed at `b`'s point; `outside` remaps values
/// from outside the loop (a producer's copies of them).
SmallVector<Value> coordsAt(OpBuilder &b, scf::ForOp loop, Candidate &c, Value iv,
                            const IRMapping *outside = nullptr);

/// Whether `loop`'s candidates are copied by TMA (sm_90, the aligned variant,
/// a loop not nested in another loop but `persistent`, slots TMA can write);
/// sets their maps and the kernel's tile.tensor_maps.
bool useTma(scf::ForOp loop, SmallVector<Candidate> &cands, ArrayRef<MemDescType> slotTypes,
            const tessera::target::TargetInfo &target, scf::ForOp persistent = {});

/// The loop, its TMA copies and the values the warp split needs.
struct TmaPipeline {
  scf::ForOp loop;
  SmallVector<Candidate> *cands;
  ArrayRef<Value> buffers;
  ArrayRef<MemDescType> slotTypes;
  unsigned stages;
  Value full;                // the barriers the copies complete on
  Value k;                   // the iteration number, in the loop
  bool asyncDot = false;     // the loop's dot stays in flight ...
  WarpgroupWaitOp asyncWait; // ... until this {pendings = 1} wait
  // In a persistent loop (tile-persistent) around `loop`, the ring runs on
  // across tiles: iteration k of the j-th tile is the ring's g = j * trip + k.
  scf::ForOp outer;
  Value g, base, trip;       // in the loop; before it (in `outer`)
  WarpgroupWaitOp finalWait; // the {pendings = 0} wait after the loop
};

/// Where the ring stands when tile `tileIv` of the persistent loop `outer`
/// starts `loop`: {j * trip, trip}, j the tile's iteration number and trip
/// `loop`'s trip count (the same for every tile), computed at `b`'s point.
std::pair<Value, Value> ringBase(OpBuilder &b, Location loc, scf::ForOp outer, Value tileIv,
                                 scf::ForOp loop);

/// Whether the kernel can be split into producer and compute warps around
/// `p.loop` (the loop directly in the kernel body or in
/// `p.outer` with bounds from outside it, the copies' inputs computable before
/// the split or, per tile, from the persistent loop's variable, 4 or 8
/// compute warps, no earlier TMA loop).
bool canWarpSpecialize(const TmaPipeline &p);

/// Splits the kernel: a producer warpgroup (the last four warps) runs a loop of
/// its own that waits for a slot to be released and refills it by TMA; the
/// compute warps run the rest of the kernel, waiting for each slot's copies
/// and releasing the slot the previous iteration's dot read.
void warpSpecialize(TmaPipeline &p, const tessera::target::TargetInfo &target);

/// A TMA ring whose tiles shared by the programs of a cluster
/// (tile-cluster-programs) are multicast; `size` is 0 when none is.
struct ClusterRing {
  int64_t size = 0;
  Value empty; // per slot: one arrival per warp of each program of the cluster
};

/// The cluster size C when `kernel` runs in clusters and one of `cands` is
/// marked shared (tile-cluster-programs), else 0.
int64_t multicastSize(KernelOp kernel, ArrayRef<Candidate> cands);

/// When the kernel runs in clusters and one of `cands` is shared: allocates
/// the `empty` barriers at `b`'s point, then a cluster barrier (every
/// program's barriers are initialised before any copy or arrival reaches
/// them), and puts one at the end of the kernel (no program exits while
/// another may still arrive on its barriers).
ClusterRing clusterRing(OpBuilder &b, Location loc, scf::ForOp loop, ArrayRef<Candidate> cands,
                        unsigned stages);

/// At `b`'s point in iteration `k`, after the wait that completes the dot of
/// iteration k - 1: from k = 1 on, every warp releases slot (k - 1) % S to
/// the whole cluster and waits until each program has released it, so that
/// the copies into it that follow write no slot a program still reads.
void releaseClusterSlot(OpBuilder &b, Location loc, const ClusterRing &ring, Value k,
                        unsigned stages);

/// The index of the tensor map of (`arg`, `box`, `swizzle`) in the kernel's
/// `tile.tensor_maps`, added when new (TMA copies and stores share them).
int64_t tensorMapIndex(KernelOp kernel, unsigned arg, ArrayRef<int64_t> box, unsigned swizzle);

} // namespace mlir::tile::pipeline

#endif
