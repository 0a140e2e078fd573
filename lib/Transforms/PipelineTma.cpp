//===- PipelineTma.cpp - TMA copies and warp specialization -----*- C++ -*-===//
//
// The Hopper half of tile-software-pipeline (SoftwarePipeline.h). TMA: a
// candidate is copied by TMA when its slot is a swizzled encoding TMA writes
// one column block at a time; the kernel records one tensor map per (tensor,
// box) in `tile.tensor_maps`. Warp specialization: for a loop whose one
// warpgroup dot accumulates asynchronously (matmul), or whose warpgroup dots
// are all waited for (attention), the kernel body is split at its top:
//
//   hoisted scalars   what the copies' coordinates and the loop bounds need
//   buffers, barriers `full` (one arrival per copy), `empty` (one per compute
//                     thread)
//   if in_producer    set_max_registers (down to TargetInfo::producerRegisters,
//                     with 8 compute warps); for each
//                     iteration k: wait until slot k % S is released
//                     (`empty`, parity (k / S + 1) & 1: the first round
//                     passes) and copy into it, completing on `full`
//   else              set_max_registers (up to computeRegisters); the original
//                     body, whose loop waits on `full` and, once the dot of
//                     iteration k - 1 is complete, arrives on its slot's
//                     `empty` barrier (with dots waited for: on iteration
//                     k's, at the end of iteration k)
//
// The producer warps are the last four of the block (`tile.producer_warps`);
// layouts distribute over the first `num_warps`, whose barriers become a named
// barrier of their own threads in the lowering.
//
// Clusters: in a kernel of `tile.cluster_dims` (tile-cluster-programs), the
// copies of a load marked `tile.multicast` write every program's slot. A slot
// is refilled once every program of the cluster has released it. In the
// plain loop, after the wait that completes iteration k - 1's dot, each warp
// arrives on `empty` of slot (k - 1) % S in every program, and the block
// waits for that phase before issuing into the slot. Warp-specialized, the
// compute warps' arrivals on `empty` go to every program (one per warp), and
// the producer multicasts. Cluster barriers follow the barriers'
// initialisation and end the kernel.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/AxisInfo.h"
#include "lib/Transforms/SoftwarePipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeline;

namespace {

/// Whether TMA can write `c`'s slot (`enc` is its encoding) in one copy per
/// column block; appends the box (outermost first) and the swizzle.
bool tmaBox(Candidate &c, SharedEncodingAttr enc, SmallVector<int64_t> &box, unsigned &swizzle) {
  auto tensor = c.load.getTensor();
  auto arg = dyn_cast<BlockArgument>(tensor);
  auto tt = cast<GlobalTensorType>(tensor.getType());
  auto tile = cast<RankedTensorType>(c.load.getType());
  Type elt = tile.getElementType();
  // A padded tile's zeros past its extents are not what a box of the tile's
  // shape reads (the tensor goes on there): cp.async copies it.
  if (!arg || !isa<KernelOp>(arg.getOwner()->getParentOp()) || tt.getRank() > 5 ||
      !(elt.isF16() || elt.isBF16() || elt.isF32()) || c.load.getExtents())
    return false;
  auto slot = MemDescType::get(tile.getContext(), tile.getShape(), elt, enc);
  SharedGeometry g = slot.getGeometry();
  if (!g.rowMajor || !g.swizzle || g.rows % 8 || g.rows > 256)
    return false;
  int64_t inner = g.swizzle / g.eltBytes;
  if (g.cols % inner)
    return false;
  box.assign(tt.getRank() - 2, 1);
  box.push_back(g.rows);
  box.push_back(inner);
  swizzle = g.swizzle;
  return true;
}

/// The ops that `values` depend on, when every one is a scalar op without
/// memory effects or regions: those of the kernel body in `ops` (they can run
/// before the warp split), those of the persistent loop `outer`'s body, from
/// its variable, in `perTile` (the producer's loop over tiles recomputes them).
bool producerInputs(KernelOp kernel, scf::ForOp outer, ArrayRef<Value> values,
                    llvm::SetVector<Operation *> &ops, llvm::SetVector<Operation *> &perTile) {
  Block *body = &kernel.getBody().front();
  SmallVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def) {
      if (cast<BlockArgument>(v).getOwner() != body && (!outer || v != outer.getInductionVar()))
        return false;
      continue;
    }
    bool inOuter = outer && def->getBlock() == outer.getBody();
    if (def->getBlock() != body && !inOuter)
      return false;
    if (ops.contains(def) || perTile.contains(def))
      continue;
    // Executed unconditionally where it was: moving it up speculates nothing.
    if (!isMemoryEffectFree(def) || def->getNumRegions() ||
        llvm::any_of(def->getResultTypes(), [](Type t) { return !t.isIntOrIndexOrFloat(); }))
      return false;
    (inOuter ? perTile : ops).insert(def);
    work.append(def->getOperands().begin(), def->getOperands().end());
  }
  return true;
}

/// What the producer's copies need from outside the loop.
SmallVector<Value> producerNeeds(const TmaPipeline &p) {
  scf::ForOp loop = p.loop;
  SmallVector<Value> needs{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  if (scf::ForOp outer = p.outer)
    needs.append({outer.getLowerBound(), outer.getUpperBound(), outer.getStep()});
  auto outside = [&](Value v) {
    return v != loop.getInductionVar() && !loop->isAncestor(v.getParentRegion()->getParentOp());
  };
  for (Candidate &c : *p.cands) {
    needs.push_back(c.load.getTensor());
    for (Operation *op : c.slice)
      for (Value o : op->getOperands())
        if (outside(o))
          needs.push_back(o);
    for (Value v : c.load.getCoords())
      if (outside(v))
        needs.push_back(v);
  }
  return needs;
}

/// The kernel around the loop, when the loop is directly in its body or in
/// the persistent loop `outer` directly in its body.
KernelOp kernelAround(const TmaPipeline &p) {
  Operation *parent = p.loop->getParentOp();
  scf::ForOp outer = p.outer;
  if (outer && parent == outer.getOperation())
    parent = outer->getParentOp();
  return dyn_cast<KernelOp>(parent);
}

/// A cluster barrier at the end of `kernel`, unless one is there: no program
/// exits while a peer may still arrive on its barriers.
void endWithClusterBarrier(KernelOp kernel, Location loc) {
  Operation *end = kernel.getBody().front().getTerminator();
  if (isa_and_nonnull<ClusterBarrierOp>(end->getPrevNode()))
    return;
  OpBuilder atEnd(end);
  ClusterBarrierOp::create(atEnd, loc);
}

} // namespace

int64_t mlir::tile::pipeline::tensorMapIndex(KernelOp kernel, unsigned arg, ArrayRef<int64_t> box,
                                             unsigned swizzle) {
  Builder b(kernel.getContext());
  SmallVector<Attribute> maps;
  if (auto old = kernel->getAttrOfType<ArrayAttr>("tile.tensor_maps"))
    maps.assign(old.begin(), old.end());
  auto entry = b.getDictionaryAttr({b.getNamedAttr("arg", b.getI64IntegerAttr(arg)),
                                    b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
                                    b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle))});
  for (auto [i, m] : llvm::enumerate(maps))
    if (m == entry)
      return i;
  maps.push_back(entry);
  kernel->setAttr("tile.tensor_maps", b.getArrayAttr(maps));
  return maps.size() - 1;
}

bool mlir::tile::pipeline::useTma(scf::ForOp loop, SmallVector<Candidate> &cands,
                                  ArrayRef<MemDescType> slotTypes,
                                  const tessera::target::TargetInfo &target,
                                  scf::ForOp persistent) {
  auto kernel = loop->getParentOfType<KernelOp>();
  auto aligned = kernel->getAttrOfType<BoolAttr>("tile.aligned");
  if (!target.hasTMA() || (aligned && !aligned.getValue()))
    return false;
  // In a warp-specialized kernel a later loop runs in the compute warps alone,
  // which neither initialise barriers for the whole block nor issue copies.
  if (kernel->hasAttr("tile.producer_warps"))
    return false;
  for (Operation *p = loop->getParentOp(); p != kernel; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p) && p != persistent.getOperation())
      return false; // the barriers are initialised once per program
  // TMA coordinates are 32-bit: i64 ones (the 64-bit size class) take cp.async.
  for (Candidate &c : cands)
    if (c.load &&
        llvm::any_of(c.load.getCoords(), [](Value v) { return !v.getType().isInteger(32); }))
      return false;
  // A tensor map needs the aligned tensor the specialization promises.
  for (Candidate &c : cands)
    if (c.load && !tessera::analysis::isAlignedTensor(c.load.getTensor()))
      return false;
  SmallVector<SmallVector<int64_t>> boxes(cands.size());
  SmallVector<unsigned> swizzles(cands.size());
  for (auto [i, c] : llvm::enumerate(cands))
    if (!tmaBox(c, cast<SharedEncodingAttr>(slotTypes[i].getEncoding()), boxes[i], swizzles[i]))
      return false;
  for (auto [i, c] : llvm::enumerate(cands))
    c.tmaMap = tensorMapIndex(kernel, cast<BlockArgument>(c.load.getTensor()).getArgNumber(),
                              boxes[i], swizzles[i]);
  return true;
}

bool mlir::tile::pipeline::canWarpSpecialize(const TmaPipeline &p) {
  KernelOp kernel = kernelAround(p);
  if (!kernel || kernel->hasAttr("tile.producer_warps"))
    return false;
  // An earlier TMA loop would land in the compute branch, where its barriers'
  // initialisation (a block barrier) and its copies (issued by thread 0 of a
  // plain kernel, by a producer thread here) cannot run.
  bool earlierTma = false;
  kernel.walk([&](MBarrierAllocOp a) { earlierTma |= a.getResult() != p.full; });
  if (earlierTma)
    return false;
  if (!tessera::target::TargetInfo::canSpecializeWarps(kernel.getNumWarps()))
    return false;
  llvm::SetVector<Operation *> ops, perTile;
  return producerInputs(kernel, p.outer, producerNeeds(p), ops, perTile);
}

void mlir::tile::pipeline::warpSpecialize(TmaPipeline &p,
                                          const tessera::target::TargetInfo &target) {
  scf::ForOp loop = p.loop;
  KernelOp kernel = kernelAround(p);
  MLIRContext *ctx = kernel.getContext();
  Location loc = loop.getLoc();
  Block *body = &kernel.getBody().front();
  int64_t warps = kernel.getNumWarps();
  // With 4 compute warps every thread may hold 255 registers anyway.
  bool moveRegisters = warps >= 8;

  // With an asynchronous dot, the compute warps release the slot of iteration
  // k - 1 once its dot is done; with dots that are waited for, the slot of
  // iteration k at the end of the iteration (every read of it is complete).
  OpBuilder b(p.asyncDot ? p.asyncWait->getNextNode() : p.loop.getBody()->getTerminator());
  auto cst = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)); };
  Value stagesLess1 = cst(p.stages - 1), numStages = cst(p.stages);
  OpBuilder before(p.full.getDefiningOp());
  // Clusters: each compute warp releases a slot to every program of the
  // cluster; the producer multicasts the shared tiles.
  // A producer cannot fall two phases behind its `empty` barrier: every
  // round, it arrives on its own program's `full` barrier (expecting the
  // whole slot's bytes, whether or not its rank issues a column block), and
  // the compute warps of its program release a slot only after that. Not in
  // a persistent loop, whose programs walk different tiles (and whose last
  // release below is per thread).
  int64_t cluster = p.outer ? 0 : multicastSize(kernel, *p.cands);
  IntegerAttr clusterAttr = cluster ? b.getI32IntegerAttr(cluster) : IntegerAttr();
  Value empty = MBarrierAllocOp::create(
      before, loc, MBarrierType::get(ctx, p.stages),
      before.getI32IntegerAttr(cluster ? warps * cluster
                                       : tessera::target::TargetInfo::kWarpSize * warps));
  if (!p.asyncDot) {
    MBarrierArriveOp::create(b, loc, empty, arith::RemSIOp::create(b, loc, p.g, numStages),
                             clusterAttr);
  } else {
    Value started = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, p.k, cst(0));
    auto release = scf::IfOp::create(b, loc, TypeRange{}, started, /*withElse=*/false);
    OpBuilder r = OpBuilder::atBlockBegin(release.thenBlock());
    Value prev =
        arith::RemSIOp::create(r, loc, arith::AddIOp::create(r, loc, p.g, stagesLess1), numStages);
    MBarrierArriveOp::create(r, loc, empty, prev, clusterAttr);
  }
  if (p.outer && p.asyncDot) {
    // The producer goes on to the next tile: the last iteration's slot is
    // released once the wait after the loop completes its dot.
    OpBuilder a(p.finalWait->getNextNode());
    Value any = arith::CmpIOp::create(a, loc, arith::CmpIPredicate::sgt, p.trip,
                                      arith::ConstantOp::create(a, loc, a.getI32IntegerAttr(0)));
    auto last = scf::IfOp::create(a, loc, TypeRange{}, any, /*withElse=*/false);
    OpBuilder r = OpBuilder::atBlockBegin(last.thenBlock());
    Value end = arith::AddIOp::create(r, loc, p.base, p.trip);
    auto rc = [&](int64_t v) { return arith::ConstantOp::create(r, loc, r.getI32IntegerAttr(v)); };
    Value slot = arith::RemSIOp::create(
        r, loc, arith::AddIOp::create(r, loc, end, rc(p.stages - 1)), rc(p.stages));
    MBarrierArriveOp::create(r, loc, empty, slot, IntegerAttr());
  }

  // Hoist what the producer needs to the top, then the buffers and barriers.
  llvm::SetVector<Operation *> inputs, perTile;
  (void)producerInputs(kernel, p.outer, producerNeeds(p), inputs, perTile);
  SmallVector<Operation *> hoisted(inputs.begin(), inputs.end());
  llvm::sort(hoisted, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  for (Value v : p.buffers)
    hoisted.push_back(v.getDefiningOp());
  hoisted.push_back(empty.getDefiningOp());
  hoisted.push_back(p.full.getDefiningOp());
  // Each before the first op that stays, in order.
  llvm::SmallPtrSet<Operation *, 16> isHoisted(hoisted.begin(), hoisted.end());
  Operation *split = nullptr;
  for (Operation &op : *body)
    if (!isHoisted.contains(&op)) {
      split = &op;
      break;
    }
  for (Operation *op : hoisted)
    op->moveBefore(split);

  // The split: producer branch, then the rest of the body in the else branch.
  b.setInsertionPoint(split);
  if (cluster)
    ClusterBarrierOp::create(b, loc); // every program's barriers initialised
  Value inProducer = InProducerOp::create(b, loc, b.getI1Type());
  auto branch = scf::IfOp::create(b, loc, TypeRange{}, inProducer, /*withElse=*/true);
  Block *consumer = branch.elseBlock();
  Operation *yield = consumer->getTerminator();
  for (Operation *op = split; op && op != body->getTerminator();) {
    Operation *next = op->getNextNode();
    op->moveBefore(yield);
    op = next;
  }
  if (moveRegisters) {
    OpBuilder c = OpBuilder::atBlockBegin(consumer);
    SetMaxRegistersOp::create(c, loc, target.computeRegisters(warps), /*increase=*/true);
  }

  // The producer: its own loop over the iterations, in the thread that
  // issues the copies only. Every producer warp lowers its registers (the
  // instruction is per warpgroup), then the others are done: a parity wait
  // is defined for the current or the preceding phase only, and a producer
  // thread nothing paces could fall two phases behind a slot's `empty`
  // barrier and wait for a release that never comes.
  b.setInsertionPointToStart(branch.thenBlock());
  if (moveRegisters)
    SetMaxRegistersOp::create(b, loc, target.producerRegisters(), /*increase=*/false);
  Value leader = InProducerOp::create(b, loc, b.getI1Type(), /*leader=*/true);
  auto issuer = scf::IfOp::create(b, loc, TypeRange{}, leader, /*withElse=*/false);
  b.setInsertionPointToStart(issuer.thenBlock());
  // In a persistent kernel, a loop over the program's tiles around it, with
  // the per-tile values the copies need recomputed from its variable.
  IRMapping outside;
  Value base;
  if (scf::ForOp outer = p.outer) {
    auto tiles =
        scf::ForOp::create(b, loc, outer.getLowerBound(), outer.getUpperBound(), outer.getStep());
    b.setInsertionPointToStart(tiles.getBody());
    outside.map(outer.getInductionVar(), tiles.getInductionVar());
    SmallVector<Operation *> ordered(perTile.begin(), perTile.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    for (Operation *op : ordered)
      b.clone(*op, outside);
    base = ringBase(b, loc, outer, tiles.getInductionVar(), loop).first;
  }
  Value lb = loop.getLowerBound(), step = loop.getStep();
  auto producer = scf::ForOp::create(b, loc, lb, loop.getUpperBound(), step);
  b.setInsertionPointToStart(producer.getBody());
  Value iv = producer.getInductionVar();
  Value k = arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb), step);
  if (base)
    k = arith::AddIOp::create(b, loc, base, k); // the ring's count, across tiles
  Value slotIndex = arith::RemSIOp::create(b, loc, k, cst(p.stages));
  Value round = arith::DivSIOp::create(b, loc, k, cst(p.stages));
  Value parity =
      arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc, round, cst(1)), cst(1));
  MBarrierWaitOp::create(b, loc, empty, slotIndex, parity);
  for (auto [c, buf, slotTy] : llvm::zip(*p.cands, p.buffers, p.slotTypes)) {
    Value slot = MemDescIndexOp::create(b, loc, slotTy, buf, slotIndex);
    SmallVector<Value> coords = coordsAt(b, loop, c, iv, &outside);
    bool shared = cluster && c.load->hasAttr(tessera::kMulticastAttr);
    TmaCopyOp::create(b, loc, c.load.getTensor(), coords, slot, p.full, slotIndex, Value(),
                      b.getI32IntegerAttr(c.tmaMap), shared ? clusterAttr : IntegerAttr());
  }
  kernel->setAttr("tile.producer_warps",
                  b.getI64IntegerAttr(tessera::target::TargetInfo::kProducerWarps));
  if (cluster)
    endWithClusterBarrier(kernel, loc);
}

int64_t mlir::tile::pipeline::multicastSize(KernelOp kernel, ArrayRef<Candidate> cands) {
  auto dims = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.cluster_dims");
  if (!dims || dims[0] < 2)
    return 0;
  bool shared = llvm::any_of(
      cands, [](const Candidate &c) { return c.load && c.load->hasAttr(tessera::kMulticastAttr); });
  return shared ? dims[0] : 0;
}

ClusterRing mlir::tile::pipeline::clusterRing(OpBuilder &b, Location loc, scf::ForOp loop,
                                              ArrayRef<Candidate> cands, unsigned stages) {
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t size = multicastSize(kernel, cands);
  if (!size)
    return {};
  ClusterRing ring;
  ring.size = size;
  ring.empty =
      MBarrierAllocOp::create(b, loc, MBarrierType::get(b.getContext(), stages),
                              b.getI32IntegerAttr(kernel.getNumWarps() * (int64_t)ring.size));
  ClusterBarrierOp::create(b, loc);
  endWithClusterBarrier(kernel, loc);
  return ring;
}

void mlir::tile::pipeline::releaseClusterSlot(OpBuilder &b, Location loc, const ClusterRing &ring,
                                              Value k, unsigned stages) {
  auto cst = [&](OpBuilder &ob, int64_t v) {
    return arith::ConstantOp::create(ob, loc, ob.getI32IntegerAttr(v));
  };
  Value started = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, k, cst(b, 0));
  auto release = scf::IfOp::create(b, loc, TypeRange{}, started, /*withElse=*/false);
  OpBuilder r = OpBuilder::atBlockBegin(release.thenBlock());
  Value prev = arith::SubIOp::create(r, loc, k, cst(r, 1));
  Value slot = arith::RemSIOp::create(r, loc, prev, cst(r, stages));
  // Release number (k - 1) / S of the slot completes its phase of that parity.
  Value parity = arith::AndIOp::create(r, loc, arith::DivSIOp::create(r, loc, prev, cst(r, stages)),
                                       cst(r, 1));
  MBarrierArriveOp::create(r, loc, ring.empty, slot, r.getI32IntegerAttr(ring.size));
  MBarrierWaitOp::create(r, loc, ring.empty, slot, parity);
}
