//===- AllocateShared.cpp - tile-allocate-shared ----------------*- C++ -*-===//
//
// Gives every shared-memory user of a kernel its byte offset in the block's
// dynamic shared memory: each `tile.local_alloc` (`tile.offset`) and each op
// that needs scratch while it runs (`tile.scratch_offset`: layout conversions
// through shared memory, reductions across warps; SharedMemory.h says how
// much). Liveness is an interval of op positions in program order: a buffer
// lives from its allocation to its last use through any view (a tile loaded
// from it counts as a use until its own users, the dot whose fragment loads
// the lowering places next to their mma instructions); a use inside a
// loop the buffer was not allocated in keeps it live to the loop's end (a
// branch of an `if` does not: positions follow program order);
// scratch lives only at its op; transaction barriers (`tile.mbarrier_alloc`)
// live to the kernel's end. Buffers whose intervals do not overlap share
// memory; the rest are placed first-fit, largest first, at the alignment
// their encoding needs. The total goes on the kernel as `tile.shared_bytes`,
// checked against the target's limit.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct Buffer {
  Operation *op;
  int64_t bytes, align;
  int64_t start, end; // op positions, inclusive
  int64_t offset = -1;
};

struct TileAllocateShared : tile::impl::TileAllocateSharedBase<TileAllocateShared> {
  using TileAllocateSharedBase::TileAllocateSharedBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::optional<tessera::target::TargetInfo> target =
        tessera::target::TargetInfo::forPass(kernel, arch);
    if (!target)
      return signalPassFailure();
    // Positions in program order; `last` is the last position inside an op.
    DenseMap<Operation *, int64_t> pos, last;
    int64_t n = 0;
    kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) { pos[op] = n++; });
    kernel.getBody().walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t l = pos[op];
      for (Region &r : op->getRegions())
        for (Operation &inner : r.getOps())
          l = std::max(l, last[&inner]);
      last[op] = l;
    });

    std::vector<Buffer> buffers;
    kernel.getBody().walk([&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        MemDescType t = alloc.getType();
        Buffer b{op, t.getBytes(), t.getGeometry().alignment(), pos[op], pos[op]};
        // Every use through views; a use in a loop the allocation is not in
        // keeps the buffer for the whole loop.
        SmallVector<Value> values{alloc.getResult()};
        while (!values.empty()) {
          Value v = values.pop_back_val();
          for (Operation *user : v.getUsers()) {
            if (isa<MemDescIndexOp, MemDescTransOp>(user))
              values.push_back(user->getResult(0));
            // A tile read from the buffer keeps it until the tile is used, so
            // that the lowering may load fragments where they are consumed.
            SmallVector<Operation *> ends{user};
            if (isa<LocalLoadOp>(user))
              for (Operation *consumer : user->getUsers())
                ends.push_back(consumer);
            for (Operation *at : ends) {
              Operation *end = at; // the outermost loop around it, short of op's
              for (Operation *p = at->getParentOp(); p && !p->isAncestor(op); p = p->getParentOp())
                if (isa<LoopLikeOpInterface>(p))
                  end = p;
              b.end = std::max(b.end, last[end]);
            }
          }
        }
        buffers.push_back(b);
      } else if (auto bars = dyn_cast<MBarrierAllocOp>(op)) {
        // Live to the end: an mbarrier's memory is not reused while valid.
        buffers.push_back(Buffer{op, bars.getType().getBytes(), MBarrierType::kBytes, pos[op], n});
      } else if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
        if (std::optional<SharedGeometry> g = tessera::analysis::scratchOf(cvt)) {
          tessera::analysis::recordScratch(cvt, *g);
          buffers.push_back(Buffer{op, g->bytes(), 16, pos[op], pos[op]});
        }
      } else if (int64_t bytes = tessera::analysis::scratchBytes(op)) {
        buffers.push_back(Buffer{op, bytes, 16, pos[op], pos[op]});
      }
    });

    // First fit, largest first.
    std::vector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    llvm::stable_sort(order, [](Buffer *x, Buffer *y) { return x->bytes > y->bytes; });
    int64_t total = 0;
    std::vector<Buffer *> placed;
    for (Buffer *b : order) {
      int64_t offset = 0;
      for (bool moved = true; moved;) {
        moved = false;
        offset = llvm::alignTo(offset, b->align);
        for (Buffer *p : placed) {
          bool liveTogether = p->start <= b->end && b->start <= p->end;
          bool overlap = p->offset < offset + b->bytes && offset < p->offset + p->bytes;
          if (liveTogether && overlap) {
            offset = p->offset + p->bytes;
            moved = true;
          }
        }
      }
      b->offset = offset;
      placed.push_back(b);
      total = std::max(total, offset + b->bytes);
    }
    Builder b(&getContext());
    for (Buffer &buf : buffers)
      buf.op->setAttr(isa<LocalAllocOp, MBarrierAllocOp>(buf.op) ? "tile.offset"
                                                                 : "tile.scratch_offset",
                      b.getI64IntegerAttr(buf.offset));
    kernel->setAttr("tile.shared_bytes", b.getI64IntegerAttr(total));
    if (checkLimit && total > target->maxSharedBytesPerBlock()) {
      kernel.emitError("the kernel needs ")
          << total << " bytes of shared memory, more than the " << target->maxSharedBytesPerBlock()
          << " a block may have on " << arch << "; use smaller tiles or fewer stages (num_stages)";
      return signalPassFailure();
    }
  }
};

} // namespace
