//===- InsertBarriers.cpp - tile-insert-barriers ----------------*- C++ -*-===//
//
// Orders the shared-memory accesses of a kernel after tile-allocate-shared:
// walking the ops in program order, it keeps the accesses made since the last
// barrier (byte intervals, read or write) and puts a `tile.barrier` before an
// op whose access overlaps one of them where either writes. Buffers are
// tracked whole (through their views); an op with scratch reads and writes
// its interval (its own write-to-read barrier is emitted by its lowering). An
// asynchronous copy must not start before earlier readers of its buffer are
// past a barrier, but its data becomes a pending write only at the
// `tile.async_wait` that completes it. A TMA copy likewise waits for earlier
// readers, but its data is published by the `tile.mbarrier_wait` every reader
// runs, so it never needs a barrier after it. Loops are analysed until the state on
// their back edge is stable, so a buffer read at the end of one iteration and
// written at the start of the next gets its barrier; writes from before a loop
// that its body would order every iteration get one barrier before the loop
// instead, where that leaves the body fewer; both branches of an `if` are
// merged. wgmma reads its operands through the async proxy: in a kernel
// with warpgroup dots, a barrier that publishes writes is preceded by
// `tile.fence_async_shared`, so each thread's generic-proxy writes reach the
// async proxy before any warpgroup reads them. An asynchronous warpgroup dot
// reads its operands until the `tile.warpgroup_wait {pendings = 0}` after it:
// those reads stay in flight across barriers (the barrier in a pipelined
// loop orders the slot a completed dot read, not the one in flight) and
// become pending at that wait, so a later write (the epilogue's conversion
// scratch reusing the operand buffers) gets its barrier after the wait; a
// write before it is an error. A `tile.tma_store` orders its own accesses
// with barriers of its own (TmaStoreToLLVM.cpp) and counts as one; its buffer
// stays read by the TMA engine until `tile.tma_store_wait` (thread 0's
// wait), after which its reads are pending, so a later write of those bytes
// gets a barrier; a write before the wait is an error.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/SharedMemory.h"
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <limits>
#include <set>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct Access {
  int64_t lo, hi; // bytes [lo, hi)
  bool write;
  bool operator<(const Access &o) const {
    return std::tie(lo, hi, write) < std::tie(o.lo, o.hi, o.write);
  }
  bool operator==(const Access &o) const { return lo == o.lo && hi == o.hi && write == o.write; }
};

struct State {
  std::set<Access> pending;     // since the last barrier
  std::set<Access> outstanding; // buffers with asynchronous copies in flight
  std::set<Access> dotReads;    // operands of warpgroup dots still in flight
  std::set<Access> storeReads;  // buffers TMA stores may still read
  void merge(const State &o) {
    pending.insert(o.pending.begin(), o.pending.end());
    outstanding.insert(o.outstanding.begin(), o.outstanding.end());
    dotReads.insert(o.dotReads.begin(), o.dotReads.end());
    storeReads.insert(o.storeReads.begin(), o.storeReads.end());
  }
  bool operator==(const State &o) const {
    return pending == o.pending && outstanding == o.outstanding && dotReads == o.dotReads &&
           storeReads == o.storeReads;
  }
};

constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

/// The interval of the buffer behind a memdesc value (all of shared memory
/// when it cannot be traced).
std::pair<int64_t, int64_t> bufferOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<MemDescIndexOp, MemDescTransOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (auto alloc = dyn_cast<LocalAllocOp>(def))
      if (auto off = alloc->getAttrOfType<IntegerAttr>("tile.offset"))
        return {off.getInt(), off.getInt() + alloc.getType().getBytes()};
    break;
  }
  return {0, kAll};
}

class Inserter {
public:
  explicit Inserter(bool fenceAsync) : fenceAsync_(fenceAsync) {}

  /// Runs over `block` from `in`; with `insert`, barriers are created.
  State run(Block &block, State state, bool insert) {
    for (Operation &op : llvm::make_early_inc_range(block))
      visit(&op, state, insert);
    return state;
  }

private:
  static bool conflicts(const std::set<Access> &set, const Access &a) {
    for (const Access &p : set)
      if (p.lo < a.hi && a.lo < p.hi && (p.write || a.write))
        return true;
    return false;
  }
  static bool conflicts(const State &s, const Access &a) { return conflicts(s.pending, a); }

  /// The state at the top of `loop`'s body from `in` before it: the body is
  /// iterated until the state on the back edge is stable.
  State loopEntry(scf::ForOp loop, const State &in) {
    State entry = in;
    for (int i = 0; i < 8; ++i) {
      State end = run(*loop.getBody(), entry, /*insert=*/false);
      State next = in;
      next.merge(end);
      if (next == entry)
        break;
      entry = next;
    }
    return entry;
  }

  /// How many barriers one pass over `loop`'s body from `entry` places.
  int64_t barriersIn(scf::ForOp loop, const State &entry) {
    int64_t before = barriers_;
    (void)run(*loop.getBody(), entry, /*insert=*/false);
    return barriers_ - before;
  }

  void barrierBefore(Operation *op, State &s, bool insert) {
    ++barriers_;
    if (insert) {
      OpBuilder b(op);
      if (fenceAsync_ && llvm::any_of(s.pending, [](const Access &a) { return a.write; }))
        FenceAsyncSharedOp::create(b, op->getLoc());
      BarrierOp::create(b, op->getLoc());
    }
    s.pending.clear();
  }

  void visit(Operation *op, State &s, bool insert) {
    if (isa<BarrierOp>(op)) {
      s.pending.clear();
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      State entry = loopEntry(loop, s);
      // Accesses from before the loop that its body would order with a
      // barrier of its own (run every iteration) are ordered once, before it,
      // when that leaves the body fewer barriers: Q's store before
      // attention's loop, read by every iteration's first dot.
      if (llvm::any_of(s.pending, [](const Access &a) { return a.write; })) {
        State cleared = s;
        cleared.pending.clear();
        State hoisted = loopEntry(loop, cleared);
        if (barriersIn(loop, hoisted) < barriersIn(loop, entry)) {
          barrierBefore(loop, s, insert);
          entry = hoisted;
        }
      }
      State end = run(*loop.getBody(), entry, insert);
      s.merge(end); // zero or more iterations
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      State out = run(*branch.thenBlock(), s, insert);
      if (branch.elseBlock())
        out.merge(run(*branch.elseBlock(), s, insert));
      else
        out.merge(s);
      s = out;
      return;
    }
    if (isa<AsyncCopyOp, AsyncGatherOp>(op)) {
      auto [lo, hi] = bufferOf(isa<AsyncCopyOp>(op) ? cast<AsyncCopyOp>(op).getDst()
                                                    : cast<AsyncGatherOp>(op).getDst());
      Access a{lo, hi, true};
      if (conflicts(s, a))
        barrierBefore(op, s, insert);
      s.outstanding.insert(a);
      return;
    }
    if (auto copy = dyn_cast<TmaCopyOp>(op)) {
      // Complete at the mbarrier_wait of its slot, which makes the data
      // visible to each waiting thread: never a pending write.
      auto [lo, hi] = bufferOf(copy.getDst());
      if (conflicts(s, Access{lo, hi, true}))
        barrierBefore(op, s, insert);
      return;
    }
    if (auto store = dyn_cast<TmaStoreOp>(op)) {
      // Orders its own accesses: a barrier before it writes its buffer, one
      // before its stores read it (later stores of the buffer wait for those
      // reads themselves). Earlier writes are published by the first one.
      // The TMA engine reads the buffer until the tile.tma_store_wait.
      auto [lo, hi] = bufferOf(store.getBuf());
      if (insert && conflicts(s.dotReads, Access{lo, hi, true})) {
        op->emitError("a TMA store's buffer overlaps operands an asynchronous warpgroup dot may "
                      "still read");
        failed_ = true;
      }
      if (insert && fenceAsync_ &&
          llvm::any_of(s.pending, [](const Access &a) { return a.write; })) {
        OpBuilder b(op);
        FenceAsyncSharedOp::create(b, op->getLoc());
      }
      s.pending.clear();
      s.storeReads.insert(Access{lo, hi, false});
      return;
    }
    if (isa<TmaStoreWaitOp>(op)) {
      // Thread 0's stores are done reading; the others learn it at a barrier,
      // which a later write of those bytes (a reuse) gets from here.
      s.pending.insert(s.storeReads.begin(), s.storeReads.end());
      s.storeReads.clear();
      return;
    }
    if (auto bars = dyn_cast<MBarrierAllocOp>(op)) {
      // Initialised by one thread after earlier users of the bytes are past a
      // barrier; the lowering ends with a barrier of its own.
      if (auto off = bars->getAttrOfType<IntegerAttr>("tile.offset"))
        if (conflicts(s, Access{off.getInt(), off.getInt() + bars.getType().getBytes(), true}))
          barrierBefore(op, s, insert);
      s.pending.clear();
      return;
    }
    if (isa<AsyncWaitOp>(op)) {
      s.pending.insert(s.outstanding.begin(), s.outstanding.end());
      return;
    }
    if (auto wait = dyn_cast<WarpgroupWaitOp>(op)) {
      // Every group complete: the operands' reads become ordinary pending
      // reads (other warpgroups' may still run until a barrier).
      if (wait.getPendings() == 0) {
        s.pending.insert(s.dotReads.begin(), s.dotReads.end());
        s.dotReads.clear();
      }
      return;
    }
    SmallVector<Access, 2> accesses;
    if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      if (alloc.getSrc()) {
        auto [lo, hi] = bufferOf(alloc.getResult());
        accesses.push_back({lo, hi, true});
      }
    } else if (auto store = dyn_cast<LocalStoreOp>(op)) {
      auto [lo, hi] = bufferOf(store.getDst());
      accesses.push_back({lo, hi, true});
    } else if (auto load = dyn_cast<LocalLoadOp>(op)) {
      auto [lo, hi] = bufferOf(load.getSrc());
      accesses.push_back({lo, hi, false});
    } else if (auto dot = dyn_cast<WarpgroupDotOp>(op)) {
      for (Value v : {(Value)dot.getA(), (Value)dot.getB()}) {
        if (!isa<MemDescType>(v.getType()))
          continue; // A in registers
        auto [lo, hi] = bufferOf(v);
        accesses.push_back({lo, hi, false});
      }
    } else if (auto off = op->getAttrOfType<IntegerAttr>("tile.scratch_offset")) {
      int64_t bytes = tessera::analysis::scratchBytes(op);
      accesses.push_back({off.getInt(), off.getInt() + bytes, true});
      accesses.push_back({off.getInt(), off.getInt() + bytes, false});
    }
    // A write to bytes an asynchronous reader may still read: only its wait
    // (then a barrier) orders it.
    auto rejectWritesInto = [&](const std::set<Access> &reads, const char *message) {
      if (insert &&
          llvm::any_of(accesses, [&](const Access &a) { return a.write && conflicts(reads, a); })) {
        op->emitError(message);
        failed_ = true;
      }
    };
    rejectWritesInto(s.dotReads,
                     "shared memory written while an asynchronous warpgroup dot may read it "
                     "(no tile.warpgroup_wait {pendings = 0} before)");
    rejectWritesInto(s.storeReads, "shared memory written while a TMA store may read it (no "
                                   "tile.tma_store_wait before)");
    for (const Access &a : accesses)
      if (conflicts(s, a)) {
        barrierBefore(op, s, insert);
        break;
      }
    s.pending.insert(accesses.begin(), accesses.end());
    // An asynchronous dot reads its operands until a wait completes its group,
    // past any barrier in between. Copies the pipeline issues into the slot a
    // completed dot read are ordered by construction and are not checked.
    if (auto dot = dyn_cast<WarpgroupDotOp>(op); dot && dot.getIsAsync())
      s.dotReads.insert(accesses.begin(), accesses.end());
  }

  bool fenceAsync_;
  int64_t barriers_ = 0; // placed so far, counted in dry runs too

public:
  bool failed_ = false;
};

struct TileInsertBarriers : tile::impl::TileInsertBarriersBase<TileInsertBarriers> {
  void runOnOperation() override {
    bool fenceAsync = false;
    getOperation().walk([&](WarpgroupDotOp) { fenceAsync = true; });
    Inserter inserter(fenceAsync);
    inserter.run(getOperation().getBody().front(), State{}, /*insert=*/true);
    if (inserter.failed_)
      signalPassFailure();
  }
};

} // namespace
