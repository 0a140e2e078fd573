//===- SinkSharedLoads.cpp - tile-sink-shared-loads -------------*- C++ -*-===//
//
// After lowering, a layout conversion reads all of a dot operand's fragments
// from shared memory (ldmatrix, ld.shared) before the dot's first mma, so every
// fragment is live at once: for attention's K and V, 128 registers per thread.
// This pass moves each shared-memory load, and the register plumbing between it
// and its users (struct and vector extracts and inserts, bitcasts), down to
// just before its first user in the same block, so that fragments are loaded as
// the mma instructions consume them. A load never moves past a barrier or any
// other op that may write memory; plumbing moves freely. Ops whose users are
// in other blocks stay. Runs on llvm.func, in one reverse walk per block.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESINKSHAREDLOADS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

bool isSharedLoad(Operation *op) {
  if (isa<NVVM::LdMatrixOp>(op))
    return true;
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return cast<LLVM::LLVMPointerType>(load.getAddr().getType()).getAddressSpace() == 3 &&
           !load.getVolatile_();
  return false;
}

bool isPlumbing(Operation *op) {
  return isa<LLVM::ExtractValueOp, LLVM::InsertValueOp, LLVM::ExtractElementOp,
             LLVM::InsertElementOp, LLVM::BitcastOp>(op);
}

/// Whether a load may not move across `op`: it may write memory or synchronize.
bool isFence(Operation *op) {
  if (isSharedLoad(op) || isPlumbing(op))
    return false;
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return asmOp.getHasSideEffects();
  if (isa<LLVM::LoadOp>(op))
    return false;
  return !isMemoryEffectFree(op);
}

void sinkInBlock(Block &block) {
  // Positions: spaced so that moved ops take midpoints; renumbered when full.
  DenseMap<Operation *, int64_t> pos;
  auto renumber = [&] {
    int64_t p = 0;
    for (Operation &op : block)
      pos[&op] = (p += (1ll << 20));
  };
  renumber();
  SmallVector<int64_t> fences; // fixed: fences never move
  for (Operation &op : block)
    if (isFence(&op))
      fences.push_back(pos[&op]);
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    bool load = isSharedLoad(op);
    if ((!load && !isPlumbing(op)) || op->getNumRegions() || op->use_empty())
      continue;
    Operation *first = nullptr;
    bool local = true;
    for (Operation *user : op->getUsers()) {
      Operation *u = block.findAncestorOpInBlock(*user);
      if (!u || u != user) { // in another block, or nested
        local = false;
        break;
      }
      if (!first || pos[u] < pos[first])
        first = u;
    }
    if (!local || first == op->getNextNode())
      continue;
    if (load) {
      // The first fence after the load bounds how far it may go.
      auto it = std::upper_bound(fences.begin(), fences.end(), pos[op]);
      if (it != fences.end() && *it < pos[first])
        continue;
    }
    Operation *prev = first->getPrevNode();
    op->moveBefore(first);
    int64_t lo = prev ? pos[prev] : pos[first] - (1ll << 20);
    if (pos[first] - lo < 2) {
      // Fences keep their relative order, so rebuilding both stays sorted.
      renumber();
      fences.clear();
      for (Operation &o : block)
        if (isFence(&o))
          fences.push_back(pos[&o]);
      continue;
    }
    pos[op] = lo + (pos[first] - lo) / 2;
  }
}

struct TileSinkSharedLoads : tile::impl::TileSinkSharedLoadsBase<TileSinkSharedLoads> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::LLVMFuncOp fn) {
      for (Block &block : fn.getBody())
        sinkInBlock(block);
    });
  }
};

} // namespace
