//===- PingPong.cpp - tile-ping-pong ----------------------------*- C++ -*-===//
//
// FlashAttention-3's ping-pong schedule, derived from the compute warps' code:
// with the kernel's `tile.ping_pong` (the compiler's `ping-pong` schedule
// option), in a warp-specialized kernel whose `num_warps` compute warps form
// two warpgroups or more, the warpgroups take turns at issuing their
// warpgroup dots. Every warpgroup runs the same code on its own rows (a
// version-3 mma layout puts each warpgroup on 64 rows of every dot), so
// without turns they reach their dots together and then their element-wise
// work together, leaving the tensor cores idle in between; in turns, one
// warpgroup's softmax runs while another's dots do.
//
// A section is a run of ops in one block that starts at a warpgroup dot and
// holds only dots and pure ops (no scratch, no regions), up to its last dot
// before the first other op; a synchronous dot (one the lowering waits for)
// ends its section. Around each section:
//
//   tile.turn_wait    warpgroup g waits until g - 1 passed the turn to it
//   <the dots>
//   tile.turn_pass    and passes it to g + 1
//   tile.warpgroup_wait {pendings = 0}   if the last dot was synchronous
//
// A synchronous dot becomes asynchronous with its wait after the pass, so the
// turn covers only the issue: while one warpgroup waits for its products and
// runs its softmax, the next issues its own (waiting inside the turn would
// serialise the warpgroups' products and element-wise work alike).
// with `tile.turn_begin` at the top of the compute warps' code (the last
// warpgroup gives warpgroup 0 the first turn) and `tile.turn_end` at its end
// (warpgroup 0 takes back the last), so that every pass meets one wait.
// Control flow in a tile program is the same for the whole program, so every
// warpgroup runs the same sections in the same order, and a section holds no
// barrier of the compute warps (which would wait for a warpgroup that waits
// for the turn). Kernels without producer warps, with one compute
// warpgroup, or with a dot whose warpgroups share rows (warps along N: their
// softmax goes through shared memory and barriers, in step) are left as they
// are: the option is a hint, never a different result. Runs after
// tile-rotate-dots, on tile IR with layouts.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The compute warps' block of a warp-specialized kernel: the else branch of
/// the `scf.if` on `tile.in_producer` that tile-software-pipeline made.
Block *computeBlock(KernelOp kernel) {
  Block *found = nullptr;
  kernel.walk([&](scf::IfOp branch) {
    auto producer = branch.getCondition().getDefiningOp<InProducerOp>();
    if (producer && !producer.getLeader() && branch.elseBlock()) {
      found = branch.elseBlock();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Whether `op` may sit between two dots of a section: it neither waits nor
/// synchronises the compute warps.
bool fitsInSection(Operation *op) {
  return isPure(op) && op->getNumRegions() == 0 && !usesScratch(op);
}

/// The sections of `block` and of the blocks nested in it: first and last dot.
void collectSections(Block &block,
                     SmallVectorImpl<std::pair<WarpgroupDotOp, WarpgroupDotOp>> &sections) {
  WarpgroupDotOp first, last;
  auto close = [&]() {
    if (first)
      sections.push_back({first, last});
    first = last = WarpgroupDotOp();
  };
  for (Operation &op : block) {
    if (auto dot = dyn_cast<WarpgroupDotOp>(op)) {
      if (!first)
        first = dot;
      last = dot;
      if (!dot.getIsAsync()) // the lowering waits for it
        close();
      continue;
    }
    if (!fitsInSection(&op))
      close();
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        collectSections(inner, sections);
  }
  close();
}

struct TilePingPong : tile::impl::TilePingPongBase<TilePingPong> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (scheduleOption(kernel, tessera::kPingPongOption) == 0 ||
        !kernel->hasAttr("tile.producer_warps"))
      return;
    unsigned warps = kernel.getNumWarps();
    if (warps % 4 || warps < 8)
      return;
    Block *compute = computeBlock(kernel);
    if (!compute)
      return;
    SmallVector<std::pair<WarpgroupDotOp, WarpgroupDotOp>> sections;
    collectSections(*compute, sections);
    auto ownRows = [](WarpgroupDotOp dot) {
      auto mma = dyn_cast_or_null<MmaLayoutAttr>(dot.getType().getEncoding());
      return mma && mma.getWarpsPerCTA().size() == 2 && mma.getWarpsPerCTA()[1] == 1;
    };
    if (sections.empty() || !llvm::all_of(sections, [&](auto s) {
          for (Operation *op = s.first; op != s.second->getNextNode(); op = op->getNextNode())
            if (auto dot = dyn_cast<WarpgroupDotOp>(op); dot && !ownRows(dot))
              return false;
          return true;
        }))
      return;
    OpBuilder b(kernel.getContext());
    for (auto [first, last] : sections) {
      b.setInsertionPoint(first);
      TurnWaitOp::create(b, first.getLoc());
      b.setInsertionPointAfter(last);
      TurnPassOp::create(b, last.getLoc());
      if (last.getIsAsync())
        continue;
      // A synchronous dot is issued in the turn and waited for after it: the
      // next warpgroup issues while this one's products run.
      last.setIsAsync(true);
      auto done = WarpgroupWaitOp::create(b, last.getLoc(), last.getType(), last.getResult(), 0);
      last.getResult().replaceAllUsesExcept(done.getResult(), done);
    }
    b.setInsertionPointToStart(compute);
    TurnBeginOp::create(b, kernel.getLoc());
    b.setInsertionPoint(compute->getTerminator());
    TurnEndOp::create(b, kernel.getLoc());
  }
};

} // namespace
