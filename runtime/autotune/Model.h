//===- Model.h - the default configuration of a launch ----------*- C++ -*-===//
//
// A launch without tuning-database entry and without explicit parameters runs
// the configuration this cost model ranks fastest for its sizes on its GPU,
// not the first value of each tune list. The model reads each configuration's
// specialized tile IR (frontend only) with the sizes folded in, and the
// target's per-multiprocessor facts (TargetInfo::perMultiprocessor):
//
//   work      FLOP of every dot (at its instruction's rate: wgmma, mma.sync
//             or FMA) and bytes of every global load and store, times the
//             trip counts of the loops around them
//   residency programs one multiprocessor holds: its shared memory over the
//             staged dot operands times num_stages, its threads, and its
//             registers over the tiles live across a loop
//   program   max(resident programs x max(FLOP / rate, bytes / L2 rate),
//             iterations x load latency / (num_stages - 1)) + one latency
//   launch    full waves of (multiprocessors x residency) programs, plus a
//             last partial wave with fewer programs per multiprocessor; at
//             least every tensor read or written once from device memory
//
// Among configurations within 3% of the fastest estimate the deepest
// pipeline (most operand bytes copied ahead) wins, then the declared order. The winner must pass
// the tuner's pruning (Space.h); the declared default is the fallback. It is a ranking, not a
// prediction: `tessera tune` measures.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_AUTOTUNE_MODEL_H
#define TESSERA_RUNTIME_AUTOTUNE_MODEL_H

#include "runtime/autotune/Space.h"

#include <optional>

namespace tessera::autotune {

/// The model's view of one configuration at one size.
struct Estimate {
  double cycles = 0;           // the launch, in multiprocessor clocks
  int64_t programs = 0;        // the grid's programs
  int64_t resident = 0;        // programs one multiprocessor holds
  int64_t iterations = 0;      // pipelined loop iterations per program
  int64_t inFlight = 0;        // staged operand bytes copied ahead
  int64_t valuesPerThread = 0; // 32-bit values a thread keeps live in its loops
  double flops = 0, bytes = 0; // per program
};

/// The estimate for `kernel`, specialized by the frontend for `req` (its
/// sizes are folded into the IR), on `multiprocessors` of `target`; nullopt
/// when a program does not fit on one (shared memory, registers, threads) or
/// its grid is not known.
std::optional<Estimate> estimate(mlir::tile::KernelOp kernel, const jit::KernelSignature &sig,
                                 const jit::CompileRequest &req, const target::TargetInfo &target,
                                 unsigned multiprocessors);

/// Why the split-K configuration `kernel` (its `tile.split_k` = S > 1) should
/// not be tried at `req`'s sizes, or "": tile-split-k must apply
/// (splitKObstacle); the output tiles must leave multiprocessors idle (fewer
/// tiles than multiprocessors: otherwise every one is busy already); the
/// splits must not make more than two programs per multiprocessor (more
/// waves, each publishing partials, cost more than the idle ones); every split
/// must run at least two iterations of the loop (fewer cannot pipeline).
/// The cost model's default never splits: only measurements choose split-K.
std::string splitKReason(mlir::tile::KernelOp kernel, const jit::KernelSignature &sig,
                         const jit::CompileRequest &req, const target::TargetInfo &target,
                         unsigned multiprocessors);

/// Why the warp-specialized configuration `kernel` (its `tile.warp_specialize`
/// = 1) should not be tried, or "": it needs a loop, not nested, with a dot
/// (what tile-software-pipeline can give a producer warpgroup); a kernel
/// without one would compile to its plain twin.
std::string warpSpecializeReason(mlir::tile::KernelOp kernel);

/// Whether a configuration of `numWarps` compute warps may get a producer
/// warpgroup on `target` at all: wgmma and TMA, tensors TMA can describe
/// (`aligned`), and one or two compute warpgroups. The tuner and the model's
/// default both ask this before inspecting the kernel (warpSpecializeReason).
bool mayWarpSpecialize(const target::TargetInfo &target, bool aligned, int64_t numWarps);

/// Whether a loop of `kernel`, not nested, computes more than one dot
/// (attention's: its dots are waited for, and a producer warpgroup was
/// measured faster for it), so that the tuner tries warp specialization
/// without being asked.
bool loopWithSeveralDots(mlir::tile::KernelOp kernel);

/// Why the persistent configuration `kernel` (its `tile.persistent` = 1)
/// should not be tried, or "": tile-persistent needs a grid of at most two
/// axes.
std::string persistentReason(mlir::tile::KernelOp kernel);

/// Why the configuration `kernel` with the `cluster` option C > 1 should not
/// be tried, or "": clusters need sm_90, a kernel that is not persistent, a
/// load the programs of a cluster share (tile-cluster-programs), and a grid
/// whose axis 0 is a multiple of C at these sizes (the compiler drops the
/// option otherwise).
std::string clusterReason(mlir::tile::KernelOp kernel, const jit::KernelSignature &sig,
                          const jit::CompileRequest &req, const target::TargetInfo &target);

/// The split-K factors the tuner adds to every configuration of a kernel.
inline constexpr int64_t kSplitKFactors[] = {2, 4};

/// A configuration and its estimate, as the model ranks them.
struct Ranked {
  Config config;
  std::optional<Estimate> estimate;
};

/// Every configuration of `req.kernel` at `req`'s sizes with its estimate,
/// fastest first, then the declared order; unestimated ones last. Up to
/// `threads` threads (0: rankThreads()), each taking at least
/// kConfigsPerThread configurations, build them, each helper in an MLIR
/// context of its own; the ranking is the same.
llvm::Expected<std::vector<Ranked>> rank(jit::Compiler &compiler, const jit::Program &program,
                                         const jit::CompileRequest &req,
                                         const target::TargetInfo &target, unsigned multiprocessors,
                                         unsigned threads = 0);

/// How many threads rank() uses at most: $TESSERA_MODEL_THREADS, else the
/// machine's hardware threads up to 8.
unsigned rankThreads();
/// The configurations each of rank()'s threads takes at least (a thread per
/// configuration would cost more in contexts than it saves).
constexpr size_t kConfigsPerThread = 2;

/// The parameters a launch of `req` (no explicit parameters) uses without a
/// tuning-database entry: among the configurations pruning keeps, within 3% of
/// the fastest estimate, the one with the most bytes in flight, with a
/// producer warpgroup (`warp-specialize`) where its loop computes several dots
/// on a target with wgmma and TMA, the tensors are aligned and no dot holds more
/// than 64 accumulator values per compute thread; empty (the
/// declared default) for a kernel without tune clauses or estimates.
llvm::Expected<std::map<std::string, int64_t>>
chooseDefault(jit::Compiler &compiler, const jit::Program &program, const jit::CompileRequest &req,
              const target::TargetInfo &target, unsigned multiprocessors);

} // namespace tessera::autotune

#endif
