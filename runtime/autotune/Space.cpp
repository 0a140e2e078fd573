//===- Space.cpp - a kernel's tuning space and its pruning ----------------===//
#include "runtime/autotune/Space.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::autotune;

std::string Config::text() const {
  std::string s;
  for (auto &[n, v] : params)
    s += (s.empty() ? "" : " ") + n + "=" + std::to_string(v);
  return s.empty() ? "(no parameters)" : s;
}

std::vector<Config> tessera::autotune::enumerate(const jit::KernelSignature &sig) {
  std::vector<Config> out(1);
  for (const jit::TuneInfo &t : sig.tunes) {
    std::vector<Config> next;
    for (const Config &c : out)
      for (int64_t v : t.values) {
        Config d = c;
        d.params[t.name] = v;
        next.push_back(std::move(d));
      }
    out.swap(next);
  }
  return out;
}

namespace {

int64_t bytesOf(RankedTensorType t) {
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  return t.getNumElements() * std::max(1u, bits / 8);
}

/// Tile bytes live across the body of `loop`: its loop-carried tiles and the
/// tiles defined outside it that it uses.
int64_t liveAcross(scf::ForOp loop) {
  int64_t bytes = 0;
  for (Value v : loop.getRegionIterArgs())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      bytes += bytesOf(t);
  llvm::SetVector<Value> outside;
  loop.getBody()->walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (isa<RankedTensorType>(v.getType()) &&
          !loop->isAncestor(v.getParentRegion()->getParentOp()))
        outside.insert(v);
  });
  for (Value v : outside) {
    // Constants (splats) are rematerialized, not kept live.
    if (Operation *def = v.getDefiningOp(); def && def->hasTrait<OpTrait::ConstantLike>())
      continue;
    bytes += bytesOf(cast<RankedTensorType>(v.getType()));
  }
  return bytes;
}

} // namespace

std::string tessera::autotune::pruneReason(tile::KernelOp kernel, unsigned numWarps,
                                           const Budget &budget) {
  int64_t threads = 32 * (int64_t)numWarps, largest = 0;
  std::string reason;
  kernel.getBody().walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t)) {
        largest = std::max(largest, r.getNumElements());
        for (int64_t d : r.getShape())
          if (reason.empty() && !llvm::isPowerOf2_64(d))
            reason = "tile extent " + std::to_string(d) +
                     " is not a power of two (code generation needs powers of two)";
      }
  });
  if (!reason.empty())
    return reason;
  if (largest && threads > largest)
    return "num_warps=" + std::to_string(numWarps) + " gives " + std::to_string(threads) +
           " threads but the largest tile has " + std::to_string(largest) + " elements";
  // Tensor-core dots: every warp needs a 16x8 fragment; operands are staged
  // through shared memory.
  int64_t dotShared = 0;
  kernel.getBody().walk([&](tile::DotOp d) {
    auto a = cast<RankedTensorType>(d.getA().getType()),
         b = cast<RankedTensorType>(d.getB().getType());
    auto c = cast<RankedTensorType>(d.getResult().getType());
    bool mma = a.getElementType().getIntOrFloatBitWidth() == 16;
    if (mma && reason.empty() && c.getNumElements() < 128 * (int64_t)numWarps)
      reason = "dot [" + std::to_string(c.getShape()[0]) + ", " + std::to_string(c.getShape()[1]) +
               "] is too small for " + std::to_string(numWarps) +
               " warps on tensor cores (each warp needs a 16x8 fragment)";
    if (mma)
      dotShared = std::max(dotShared, bytesOf(a) + bytesOf(b));
  });
  if (!reason.empty())
    return reason;
  if (dotShared > budget.sharedBytes)
    return "the dot operands need " + std::to_string(dotShared) +
           " bytes of shared memory, more than the " + std::to_string(budget.sharedBytes) +
           " a block has";
  // Registers: tiles kept live across a loop, spread over the block's threads.
  int64_t worst = 0;
  kernel.getBody().walk([&](scf::ForOp loop) { worst = std::max(worst, liveAcross(loop)); });
  int64_t regs = worst / 4 / threads;
  if (regs > budget.registers)
    return "the tiles live across a loop need about " + std::to_string(regs) +
           " registers per thread (limit " + std::to_string(budget.registers) + "): it would spill";
  return "";
}
