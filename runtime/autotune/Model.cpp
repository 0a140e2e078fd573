//===- Model.cpp - the default configuration of a launch --------*- C++ -*-===//
//
// The cost model of Model.h. The sizes enter the IR as constants (tile.dim of
// an argument, integer scalars) and MLIR's folders reduce the grid and the
// loop bounds to numbers; what does not fold counts as one iteration.
//
//===----------------------------------------------------------------------===//
#include "runtime/autotune/Model.h"

#include "lib/Transforms/ClusterPrograms.h"
#include "lib/Transforms/SplitK.h"
#include "runtime/jit/Grid.h"
#include "runtime/jit/Runtime.h"

#include "dialects/Tile/TileDialect.h"
#include "lib/Transforms/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>

using namespace mlir;
using namespace tessera;
using namespace tessera::autotune;

namespace {

/// Replaces the sizes `req` gives by constants in both regions and folds.
void foldSizes(tile::KernelOp kernel, const jit::KernelSignature &sig,
               const jit::CompileRequest &req) {
  OpBuilder b(kernel.getContext());
  for (Region *region : {&kernel.getGrid(), &kernel.getBody()}) {
    if (region->empty())
      continue;
    Block &entry = region->front();
    b.setInsertionPointToStart(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      if (arg.getArgNumber() >= sig.params.size() || !arg.getType().isSignlessInteger())
        continue;
      auto it = req.dims.find(sig.params[arg.getArgNumber()].name);
      if (it != req.dims.end())
        arg.replaceAllUsesWith(arith::ConstantOp::create(
            b, kernel.getLoc(), b.getIntegerAttr(arg.getType(), it->second)));
    }
    SmallVector<tile::DimOp> dims;
    region->walk([&](tile::DimOp d) { dims.push_back(d); });
    for (tile::DimOp d : dims) {
      auto arg = dyn_cast<BlockArgument>(d.getTensor());
      if (!arg || arg.getOwner() != &entry || arg.getArgNumber() >= sig.params.size())
        continue;
      if (std::optional<int64_t> v =
              jit::extentOf(sig.params[arg.getArgNumber()], d.getAxis(), req.dims)) {
        OpBuilder at(d);
        d.replaceAllUsesWith(
            arith::ConstantOp::create(at, d.getLoc(), at.getIntegerAttr(d.getType(), *v))
                .getResult());
        d.erase();
      }
    }
  }
  (void)applyPatternsGreedily(kernel, FrozenRewritePatternSet());
}

/// A constant `v` cannot exceed: its value, or for a minimum, the least bound
/// of its operands (causal attention's loop runs to min(cdiv(N, BN), the
/// diagonal's block), whose second operand depends on the program).
std::optional<int64_t> upperBound(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<arith::MinSIOp, arith::MinUIOp>(def))
    return std::nullopt;
  std::optional<int64_t> least;
  for (Value o : def->getOperands())
    if (std::optional<int64_t> b = upperBound(o))
      least = least ? std::min(*least, *b) : *b;
  return least;
}

/// The trip counts of the loops around `op` multiplied: a loop whose bounds
/// fold counts exactly, one whose upper bound is at most a constant counts
/// that many (every program as the longest), any other one once.
int64_t timesRun(Operation *op, tile::KernelOp kernel) {
  int64_t n = 1;
  for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      continue;
    if (std::optional<APInt> trips =
            constantTripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
                              /*isSigned=*/true, [](Value, Value, bool) { return std::nullopt; })) {
      n *= std::max<int64_t>(0, trips->getSExtValue());
      continue;
    }
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           step = getConstantIntValue(loop.getStep()),
                           ub = upperBound(loop.getUpperBound());
    if (lb && step && ub && *step > 0)
      n *= std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
  }
  return n;
}

/// Whether `loop` carries `dot`'s result to its next iteration unchanged.
bool yieldedBy(tile::DotOp dot, scf::ForOp loop) {
  return llvm::is_contained(loop.getBody()->getTerminator()->getOperands(), dot.getResult());
}

/// Whether the loaded tile `v` becomes an operand of a dot (directly or
/// through a transpose or conversion): the compiler stages it in shared memory.
bool feedsDot(Value v) {
  for (Operation *u : v.getUsers()) {
    if (isa<tile::DotOp>(u))
      return true;
    if (isa<tile::TransposeOp, tile::ConvertOp>(u) && feedsDot(u->getResult(0)))
      return true;
  }
  return false;
}

} // namespace

std::optional<Estimate> tessera::autotune::estimate(tile::KernelOp kernel,
                                                    const jit::KernelSignature &sig,
                                                    const jit::CompileRequest &req,
                                                    const target::TargetInfo &target,
                                                    unsigned multiprocessors) {
  foldSizes(kernel, sig, req);
  const target::Throughput &sm = target.perMultiprocessor();
  Estimate e;
  // The grid.
  if (!kernel.getGrid().empty()) {
    e.programs = 1;
    for (Value v : kernel.getGrid().front().getTerminator()->getOperands()) {
      std::optional<int64_t> n = getConstantIntValue(v);
      if (!n)
        return std::nullopt;
      e.programs *= std::max<int64_t>(0, *n);
    }
  } else {
    e.programs = 1;
  }
  // Work per program, and what it keeps resident.
  unsigned numWarps = kernel.getNumWarps(), stages = kernel.getNumStages();
  int64_t threads = target.warpSize() * (int64_t)numWarps;
  double computeCycles = 0;
  int64_t staged = 0, live = 0, dotsInLoops = 0;
  kernel.getBody().walk([&](Operation *op) {
    int64_t n = timesRun(op, kernel);
    if (auto dot = dyn_cast<tile::DotOp>(op)) {
      target::DotShape s = tile::dotShape(dot);
      double flops = 2.0 * s.m * s.n * s.k * n;
      e.flops += flops;
      computeCycles += flops / target.flopsPerClock(target.tensorCoreInstr(s));
      // A dot result the loop does not carry (attention's scores) lives
      // beside the carried ones, and half again as its 16-bit copy where it
      // feeds the next dot from registers.
      if (auto loop = op->getParentOfType<scf::ForOp>(); loop && !yieldedBy(dot, loop))
        dotsInLoops += tileBytes(dot.getType()) * 3 / 2;
    } else if (auto load = dyn_cast<tile::LoadOp>(op)) {
      e.bytes += (double)tileBytes(load.getType()) * n;
      if (load->getParentOfType<scf::ForOp>()) {
        e.iterations = std::max(e.iterations, n);
        if (feedsDot(load.getResult()))
          staged += tileBytes(load.getType());
      }
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      e.bytes += (double)tileBytes(store.getValue().getType()) * n;
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      int64_t bytes = 0;
      for (Value v : loop.getRegionIterArgs())
        bytes += tileBytes(v.getType());
      live = std::max(live, bytes);
    }
  });
  // Residency.
  int64_t shared = staged * (stages >= 2 ? stages : 1);
  if (shared > target.maxSharedBytesPerBlock() || threads > target.maxThreadsPerBlock())
    return std::nullopt;
  // Registers: the loop-carried tiles and the other dot results of a loop
  // spread over the threads (beyond the limit it would spill), plus a base
  // for addresses and operands, in the allocation granule of 8.
  e.valuesPerThread = (live + dotsInLoops) / 4 / threads;
  if (e.valuesPerThread > target.maxRegistersPerThread())
    return std::nullopt;
  int64_t regs =
      std::min<int64_t>(target.maxRegistersPerThread(), llvm::alignTo(live / 4 / threads + 40, 8));
  int64_t resident = std::min<int64_t>(
      {shared ? sm.sharedBytes / (shared + 1024) : 32, (int64_t)sm.threads / threads,
       (int64_t)target.registersPerMultiprocessor() / (threads * regs), 32});
  if (resident < 1)
    return std::nullopt;
  e.resident = resident;
  e.inFlight = stages >= 2 ? staged * (stages - 1) : 0;
  // One program's cycles when `k` share a multiprocessor.
  double throughput = std::max(computeCycles, e.bytes / sm.l2Bytes);
  double latency =
      (double)e.iterations * sm.loadLatency / std::max<unsigned>(1, stages >= 2 ? stages - 1 : 1);
  auto wave = [&](int64_t k) { return std::max(k * throughput, latency) + sm.loadLatency; };
  int64_t slots = (int64_t)multiprocessors * resident;
  int64_t full = e.programs / slots, rest = e.programs % slots;
  e.cycles = full * wave(resident);
  if (rest)
    e.cycles += wave((rest + multiprocessors - 1) / multiprocessors);
  // No launch beats reading and writing every tensor once from device memory.
  double unique = 0;
  for (const jit::ParamInfo &p : sig.params) {
    if (!p.isTensor)
      continue;
    double n = dtypeBytes(p.dtype);
    for (size_t i = 0; i < p.dims.size(); ++i)
      n *= jit::extentOf(p, i, req.dims).value_or(1);
    unique += n;
  }
  e.cycles = std::max(e.cycles, unique / (sm.dramBytes * multiprocessors));
  return e;
}

std::string tessera::autotune::splitKReason(tile::KernelOp kernel, const jit::KernelSignature &sig,
                                            const jit::CompileRequest &req,
                                            const target::TargetInfo &target,
                                            unsigned multiprocessors) {
  int64_t splits = tile::scheduleOption(kernel, kSplitKOption);
  if (splits <= 1)
    return "";
  if (std::string why = tile::splitKObstacle(kernel); !why.empty())
    return why;
  // The estimate reads the unsplit loop: its grid is the output tiles.
  std::optional<Estimate> e = estimate(kernel, sig, req, target, multiprocessors);
  if (!e)
    return "split-k: the model cannot size this configuration's grid";
  std::string s = "split-k=" + std::to_string(splits) + ": ";
  if (e->programs >= (int64_t)multiprocessors)
    return s + std::to_string(e->programs) + " output tiles already occupy the " +
           std::to_string(multiprocessors) + " multiprocessors";
  if (e->programs * splits > 2 * (int64_t)multiprocessors)
    return s + std::to_string(e->programs * splits) +
           " programs are more than two per multiprocessor";
  if (e->iterations < 2 * splits)
    return s + "the loop's " + std::to_string(e->iterations) +
           " iterations give a split fewer than two";
  return "";
}

std::string tessera::autotune::clusterReason(tile::KernelOp kernel, const jit::KernelSignature &sig,
                                             const jit::CompileRequest &req,
                                             const target::TargetInfo &target) {
  int64_t size = tile::scheduleOption(kernel, kClusterOption);
  if (size <= 1)
    return "";
  std::string s = "cluster=" + std::to_string(size) + ": ";
  if (std::string why = tile::clusterSkipReason(kernel, target); !why.empty())
    return s + why;
  // The grid as the compiler evaluates it, and its rule for dropping the option.
  llvm::Expected<std::array<int64_t, 3>> grid = jit::evaluateGrid(kernel, sig, req);
  if (!grid)
    return s + "the grid's size is not known (" + llvm::toString(grid.takeError()) + ")";
  return jit::clusterObstacle(kernel, *grid);
}

std::string tessera::autotune::warpSpecializeReason(tile::KernelOp kernel) {
  if (tile::scheduleOption(kernel, kWarpSpecializeOption) == 0)
    return "";
  // Matmul's loop accumulates its dot; attention's computes two.
  for (auto loop : kernel.getBody().front().getOps<scf::ForOp>())
    if (loop.getBody()->walk([](tile::DotOp) { return WalkResult::interrupt(); }).wasInterrupted())
      return "";
  return "warp-specialize needs a loop (not nested) with a dot";
}

bool tessera::autotune::mayWarpSpecialize(const target::TargetInfo &target, bool aligned,
                                          int64_t numWarps) {
  return target.hasWgmma() && target.hasTMA() && aligned &&
         target::TargetInfo::canSpecializeWarps(numWarps);
}

bool tessera::autotune::loopWithSeveralDots(tile::KernelOp kernel) {
  for (auto loop : kernel.getBody().front().getOps<scf::ForOp>()) {
    int dots = 0;
    loop.getBody()->walk([&](tile::DotOp) { ++dots; });
    if (dots > 1)
      return true;
  }
  return false;
}

std::string tessera::autotune::persistentReason(tile::KernelOp kernel) {
  if (tile::scheduleOption(kernel, kPersistentOption) == 0)
    return "";
  if (kernel.getGrid().front().getTerminator()->getNumOperands() > 2)
    return "persistent needs a grid of at most two axes";
  return "";
}

llvm::Expected<std::vector<Ranked>>
tessera::autotune::rank(jit::Compiler &compiler, const jit::Program &program,
                        const jit::CompileRequest &req, const target::TargetInfo &target,
                        unsigned multiprocessors, unsigned threads) {
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  std::vector<Ranked> out;
  for (Config &c : enumerate(*sig))
    out.push_back(Ranked{std::move(c), std::nullopt});
  // Each estimate needs its configuration's own specialized IR (about half a
  // millisecond of frontend each). Helper threads build theirs in MLIR
  // contexts of their own, as the tuner's workers do (a context costs under a
  // millisecond); the caller's compiler takes its share.
  std::vector<std::string> errors(out.size());
  std::atomic<size_t> next{0};
  auto work = [&](jit::Compiler &c) {
    for (size_t i; (i = next.fetch_add(1)) < out.size();) {
      jit::CompileRequest cr = req;
      cr.kernel = sig->name;
      cr.params = out[i].config.params;
      if (llvm::Error e = c.inspect(program, cr, [&](tile::KernelOp k) {
            out[i].estimate = estimate(k, *sig, cr, target, multiprocessors);
            return llvm::Error::success();
          }))
        errors[i] = llvm::toString(std::move(e));
    }
  };
  unsigned helpers = (unsigned)std::min<size_t>(
      {(threads ? threads : rankThreads()) - 1, out.size() / kConfigsPerThread, out.size() - 1});
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < helpers; ++t)
    pool.emplace_back([&] {
      jit::Compiler own(nullptr);
      work(own);
    });
  work(compiler);
  for (auto &t : pool)
    t.join();
  for (const std::string &e : errors)
    if (!e.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(), e);
  std::stable_sort(out.begin(), out.end(), [](const Ranked &a, const Ranked &b) {
    if (!a.estimate || !b.estimate)
      return a.estimate.has_value() > b.estimate.has_value();
    return a.estimate->cycles < b.estimate->cycles;
  });
  return out;
}

unsigned tessera::autotune::rankThreads() {
  static const unsigned n = [] {
    if (const char *v = getenv("TESSERA_MODEL_THREADS"); v && *v) {
      unsigned t = 0;
      if (!llvm::StringRef(v).getAsInteger(10, t) && t > 0)
        return t;
    }
    return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  }();
  return n;
}

llvm::Expected<std::map<std::string, int64_t>>
tessera::autotune::chooseDefault(jit::Compiler &compiler, const jit::Program &program,
                                 const jit::CompileRequest &req, const target::TargetInfo &target,
                                 unsigned multiprocessors) {
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  if (sig->tunes.empty())
    return std::map<std::string, int64_t>{};
  auto ranked = rank(compiler, program, req, target, multiprocessors);
  if (!ranked)
    return ranked.takeError();
  // The fastest configuration pruning keeps sets the bar; among those it keeps
  // within 3% of it, the deepest pipeline (most bytes in flight) wins, then
  // the estimate, then the declared order. Pruning (a layout pass run) is
  // the expensive part: only configurations that could win are judged.
  auto kept = [&](const Ranked &r) -> llvm::Expected<bool> {
    jit::CompileRequest cr = req;
    cr.kernel = sig->name;
    cr.params = r.config.params;
    std::string pruned;
    if (llvm::Error e = compiler.inspect(program, cr, [&](tile::KernelOp k) {
          pruned = pruneReason(k, target);
          return llvm::Error::success();
        }))
      return std::move(e);
    return pruned.empty();
  };
  const Ranked *chosen = nullptr;
  size_t i = 0;
  for (; i < ranked->size() && (*ranked)[i].estimate && !chosen; ++i) {
    auto ok = kept((*ranked)[i]);
    if (!ok)
      return ok.takeError();
    if (*ok)
      chosen = &(*ranked)[i];
  }
  if (!chosen)
    return std::map<std::string, int64_t>{};
  std::vector<const Ranked *> near;
  for (; i < ranked->size() && (*ranked)[i].estimate &&
         (*ranked)[i].estimate->cycles <= chosen->estimate->cycles * 1.03;
       ++i)
    if ((*ranked)[i].estimate->inFlight > chosen->estimate->inFlight)
      near.push_back(&(*ranked)[i]);
  std::stable_sort(near.begin(), near.end(), [](const Ranked *a, const Ranked *b) {
    return a->estimate->inFlight > b->estimate->inFlight;
  });
  for (const Ranked *r : near) {
    auto ok = kept(*r);
    if (!ok)
      return ok.takeError();
    if (*ok) {
      chosen = r;
      break;
    }
  }
  std::map<std::string, int64_t> params = chosen->config.params;
  // A loop computing several dots (attention's) on wgmma and TMA gets the
  // producer warpgroup the tuner tries for it unasked: measured faster at
  // every tile of attention and causal attention, D=128 and D=64 (H100,
  // docs/BENCHMARKS.md, 2026-12-06), and at D=256 where ptxas assembles the
  // kernel (2026-12-07). Without aligned tensors it would be the plain
  // cp.async loop anyway.
  auto warps = params.find("num_warps");
  int64_t numWarps = warps == params.end() ? kDefaultNumWarps : warps->second;
  if (mayWarpSpecialize(target, req.aligned && req.unalignedArgs.empty(), numWarps)) {
    auto assembler = jit::cubinAssembler();
    bool wholeProgram = assembler && assembler->ptxas;
    if (!assembler)
      llvm::consumeError(assembler.takeError());
    jit::CompileRequest cr = req;
    cr.kernel = sig->name;
    cr.params = params;
    cr.params[kWarpSpecializeOption] = 1;
    // The compute warps' budget: what setmaxnreg gives them where ptxas
    // assembles the cubin; the launch's share where the driver's JIT does,
    // since it ignores setmaxnreg (jit::CubinAssembler). Measured: D=256's
    // loop (176 values a thread with 8 compute warps) spilled 304 bytes in
    // 168 registers under the driver's JIT and ran 22-25% slower than
    // without the producer, and 45% faster assembled by ptxas in 232
    // (650.1 against 447.7 TFLOP/s, H100, docs/BENCHMARKS.md, 2026-12-07).
    // With 16 compute warps (104 registers) D=64 at BM=256 BN=64 (81 values)
    // does not spill; BN=128 (129) and D=128 at BN=64 (113) do.
    int64_t budget = wholeProgram ? target.computeRegisters((unsigned)numWarps)
                                  : target.specializedLaunchRegisters((unsigned)numWarps);
    bool specialize = false;
    if (llvm::Error e = compiler.inspect(program, cr, [&](tile::KernelOp k) {
          specialize = loopWithSeveralDots(k) && warpSpecializeReason(k).empty() &&
                       chosen->estimate->valuesPerThread <= budget &&
                       pruneReason(k, target).empty();
          return llvm::Error::success();
        }))
      return std::move(e);
    if (specialize)
      params = std::move(cr.params);
  }
  return params;
}
