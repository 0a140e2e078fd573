//===- Space.cpp - a kernel's tuning space and its pruning ----------------===//
#include "runtime/autotune/Space.h"

#include "dialects/Tile/TileDialect.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Transforms/Layouts.h"

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

/// Tile bytes live across the body of `loop`: its loop-carried tiles and the
/// tiles defined outside it that it uses.
int64_t liveAcross(scf::ForOp loop) {
  int64_t bytes = 0;
  for (Value v : loop.getRegionIterArgs())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      bytes += tileBytes(t);
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
    bytes += tileBytes(cast<RankedTensorType>(v.getType()));
  }
  return bytes;
}

} // namespace

int64_t tessera::autotune::tileBytes(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getNumElements() * std::max<int64_t>(1, r.getElementTypeBitWidth() / 8);
  return t.isIntOrFloat() ? std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8) : 0;
}

std::string tessera::autotune::pruneReason(tile::KernelOp kernel,
                                           const target::TargetInfo &target) {
  unsigned numWarps = kernel.getNumWarps();
  int64_t threads = target.warpSize() * (int64_t)numWarps, largest = 0;
  std::string reason;
  kernel.getBody().walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t)) {
        // Code generation pads extents to powers of two (tile-pad-extents).
        int64_t n = 1;
        for (int64_t d : r.getShape())
          n *= (int64_t)llvm::PowerOf2Ceil(d);
        largest = std::max(largest, n);
      }
  });
  if (!reason.empty())
    return reason;
  if (largest && threads > largest)
    return "num_warps=" + std::to_string(numWarps) + " gives " + std::to_string(threads) +
           " threads but the largest tile has " + std::to_string(largest) + " elements";
  // Tensor-core dots: a dot whose types have a tensor-core instruction but
  // whose shape or warps do not fit it would fall back to FMA (the compiler's
  // own predicate, TargetInfo::tensorCoreInstr, decides).
  kernel.getBody().walk([&](tile::DotOp d) {
    target::DotShape s = tile::dotShape(d);
    s.m = (int64_t)llvm::PowerOf2Ceil(s.m); // as padded for code generation
    s.n = (int64_t)llvm::PowerOf2Ceil(s.n);
    s.k = (int64_t)llvm::PowerOf2Ceil(s.k);
    std::optional<target::MmaInstr> instr = target.tensorCoreInstr(s);
    if (!instr && target.mmaSync(s.ab, s.acc) && reason.empty())
      reason = "dot [" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" +
               std::to_string(s.k) + ", " + std::to_string(s.n) + "] with " +
               std::to_string(numWarps) + " warps does not fit the tensor cores of " +
               target.arch().str() + " (it would run on FMA)";
  });
  if (!reason.empty())
    return reason;
  // Shared memory as the compiler allocates it: staged operands times the
  // pipeline's stages, conversion and reduction scratch, with reuse.
  mlir::FailureOr<int64_t> shared;
  {
    mlir::ScopedDiagnosticHandler quiet(kernel.getContext(),
                                        [](mlir::Diagnostic &) { return mlir::success(); });
    shared = pipeline::sharedMemoryBytes(kernel, target.arch());
  }
  if (failed(shared))
    return ""; // compiling reports why
  if (*shared > target.maxSharedBytesPerBlock())
    return "it needs " + std::to_string(*shared) +
           " bytes of shared memory (num_stages=" + std::to_string(kernel.getNumStages()) +
           "), more than the " + std::to_string(target.maxSharedBytesPerBlock()) +
           " a block has on " + target.arch().str();
  // Registers: tiles kept live across a loop, spread over the block's threads.
  int64_t worst = 0;
  kernel.getBody().walk([&](scf::ForOp loop) { worst = std::max(worst, liveAcross(loop)); });
  int64_t regs = worst / 4 / threads;
  if (regs > target.maxRegistersPerThread())
    return "the tiles live across a loop need about " + std::to_string(regs) +
           " registers per thread (limit " + std::to_string(target.maxRegistersPerThread()) +
           "): it would spill";
  return "";
}
