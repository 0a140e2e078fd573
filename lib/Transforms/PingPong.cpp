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
// A loop whose body begins and ends with sections (attention without
// rotation: S = Q K^T at the top, O += P V at the bottom, the softmax
// between them) turns across its back edge instead: P V of block j and S of
// block j + 1 are one turn (only the slot's release and the next slot's wait
// lie between them), with a wait before the loop and a pass after it. With a
// turn per dot, a warpgroup could issue its S only after the other's P V,
// which follows the other's softmax: both warpgroups would run their softmax
// at the same time. With the turn spanning P V and the next S, one
// warpgroup's softmax runs while the other's two products do, as in
// FlashAttention-3's schedule, without rotating the loop.
// The turns begin with `tile.turn_begin` at the top of the compute warps' code (the last
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

#include "llvm/ADT/SmallPtrSet.h"

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

/// Whether `op` may lie between a loop's last section and the next
/// iteration's first within one turn: what fits in a section, the ring's
/// slot waits and releases, waits for dots and the loop's yield.
bool fitsAcrossIterations(Operation *op) {
  return fitsInSection(op) ||
         isa<MBarrierWaitOp, MBarrierArriveOp, WarpgroupWaitOp, scf::YieldOp>(op);
}

/// A loop whose body holds two sections or more with only what
/// fitsAcrossIterations before the first and after the last: its last
/// section and the next iteration's first form one turn (attention's P V of
/// block j and S of block j + 1, which the softmax does not separate).
struct SpanningLoop {
  scf::ForOp loop;
  WarpgroupDotOp noWait; // the first section's first dot: no turn wait before it
  WarpgroupDotOp noPass; // the last section's last dot: no turn pass after it
};

std::optional<SpanningLoop>
spanningLoop(ArrayRef<std::pair<WarpgroupDotOp, WarpgroupDotOp>> sections, size_t i) {
  auto loop = dyn_cast<scf::ForOp>(sections[i].first->getParentOp());
  if (!loop || (i > 0 && sections[i - 1].first->getParentOp() == loop))
    return std::nullopt;
  size_t j = i;
  while (j + 1 < sections.size() && sections[j + 1].first->getParentOp() == loop)
    ++j;
  if (j == i)
    return std::nullopt;
  Operation *firstDot = sections[i].first;
  for (Operation &op : *loop.getBody()) {
    if (&op == firstDot)
      break;
    if (!fitsAcrossIterations(&op))
      return std::nullopt;
  }
  for (Operation *op = sections[j].second->getNextNode(); op; op = op->getNextNode())
    if (!fitsAcrossIterations(op))
      return std::nullopt;
  return SpanningLoop{loop, sections[i].first, sections[j].second};
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
    // Turns that span a loop's back edge: no wait before the body's first
    // section nor pass after its last; one wait before the loop and one pass
    // after it keep every pass paired with a wait.
    llvm::SmallPtrSet<Operation *, 4> noWait, noPass;
    for (size_t i = 0; i < sections.size(); ++i) {
      std::optional<SpanningLoop> span = spanningLoop(sections, i);
      if (!span)
        continue;
      noWait.insert(span->noWait);
      noPass.insert(span->noPass);
      b.setInsertionPoint(span->loop);
      TurnWaitOp::create(b, span->loop.getLoc());
      b.setInsertionPointAfter(span->loop);
      TurnPassOp::create(b, span->loop.getLoc());
    }
    for (auto [first, last] : sections) {
      if (!noWait.contains(first)) {
        b.setInsertionPoint(first);
        TurnWaitOp::create(b, first.getLoc());
      }
      if (noPass.contains(last))
        continue;
      b.setInsertionPointAfter(last);
      TurnPassOp::create(b, last.getLoc());
      if (last.getIsAsync())
        continue;
      // A synchronous dot is issued in the turn and waited for after it: the
      // next warpgroup issues while this one's products run.
      last.setIsAsync(true);
      auto done = WarpgroupWaitOp::create(b, last.getLoc(), last.getResult(), 0);
      last.getResult().replaceAllUsesExcept(done.getResult(), done);
    }
    b.setInsertionPointToStart(compute);
    TurnBeginOp::create(b, kernel.getLoc());
    b.setInsertionPoint(compute->getTerminator());
    TurnEndOp::create(b, kernel.getLoc());
  }
};

} // namespace
