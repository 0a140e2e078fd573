//===- Tuner.h - pruned, parallel, persistent autotuning --------*- C++ -*-===//
//
// compileAll: enumerates a kernel's configurations (Space.h), prunes them,
// and compiles the rest on a pool of threads, each with its own Compiler (and
// MLIR context). Without a GPU every PTX is assembled with `ptxas -v` for its
// resource report; with one, the driver's JIT runs on the same threads and its
// cubins go to the runtime's disk cache. Configurations whose PTX is identical
// to an earlier one's are marked duplicates. Nothing is dropped silently: a
// candidate ends compiled, pruned (with the rule's reason) or failed (with
// the compiler's error).
//
// timeAll (GPU): random inputs from the signature and the given sizes; each
// compiled candidate is run once on fresh inputs and its outputs compared
// with the default configuration's; then timed with CUDA events around single
// launches after warm-up, the L2 cache flushed before each launch, until its
// repetitions or its time budget run out; candidates far slower than the best
// so far are abandoned early; the whole search stops at its budget.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_AUTOTUNE_TUNER_H
#define TESSERA_RUNTIME_AUTOTUNE_TUNER_H

#include "lib/Support/Npy.h"
#include "runtime/autotune/Space.h"
#include "runtime/autotune/TuneDB.h"
#include "runtime/jit/Runtime.h"

#include <functional>

namespace tessera::autotune {

struct Candidate {
  Config config;
  std::string pruned; // the rule's reason
  std::string failed; // compile, load, run or check error
  bool compiled = false;
  int duplicateOf = -1; // the earlier candidate with identical PTX
  std::string key, ptxHash;
  int registers = -1, spillBytes = 0;
  int64_t sharedBytes = 0;
  double compileMs = 0;
  // Timing (GPU).
  bool timed = false;
  std::string abandoned; // why timing stopped early
  double ms = 0, minMs = 0, maxMs = 0;
  int reps = 0;
};

/// Random device tensors and scalar arguments for a signature at given sizes:
/// floats in about [-1, 1], integers in [0, 4); the host copies restore them.
struct Inputs {
  std::vector<std::vector<char>> host; // empty for scalars
  std::vector<cuda::DeviceBuffer> dev;
  std::vector<jit::Arg> args;
  std::vector<DType> dtypes;
};
/// Whether every tensor in `given` is a tensor parameter of `sig` with its
/// dtype and, at `dims`, its shape; the error names the tensor and both.
llvm::Error checkGiven(const jit::KernelSignature &sig, const std::map<std::string, int64_t> &dims,
                       const std::map<std::string, NpyArray> &given);
/// Tensors named in `given` hold its contents instead of random values (an
/// index tensor, such as varlen attention's sequence offsets, whose values
/// decide the work); each must have the parameter's dtype and shape.
llvm::Expected<Inputs> makeInputs(const jit::KernelSignature &sig,
                                  const std::map<std::string, int64_t> &dims,
                                  const std::map<std::string, double> &scalars, unsigned seed = 1,
                                  const std::map<std::string, NpyArray> &given = {});
llvm::Error restore(Inputs &in);
/// Every tensor's bytes (empty for scalars).
llvm::Expected<std::vector<std::vector<char>>> outputs(Inputs &in);
double decodeElement(DType t, const char *p);

/// Times single launches the way the tuner and the bench do: CUDA events around
/// each call, a 256 MiB memset (larger than any L2) before each, after warm-up.
struct Timing {
  double ms = 0, minMs = 0, maxMs = 0; // median, min, max
  int reps = 0;
  std::string stopped; // why `stop` ended the timing early, if it did
};
/// How LaunchTimer empties L2 before each timed launch. Write: the 256 MiB
/// memset alone (what Triton's do_bench does); its lines stay dirty in L2 and
/// are written back while the timed launch runs, up to an L2 of traffic that is
/// not the launch's own. Clean: the memset, then a kernel that reads the whole
/// buffer, so that L2 holds clean lines only and the launch still finds none of
/// its data there.
enum class Flush { Write, Clean };
/// The CUDA source of Flush::Clean's reading kernel, `tessera_l2_scrub`.
llvm::StringRef l2ScrubSource();

class LaunchTimer {
public:
  static llvm::Expected<LaunchTimer> create(Flush flush = Flush::Write);
  /// `warmup` calls, then up to `reps` timed ones; after each, `stop(times so far,
  /// seconds since the first timed call)` may end the timing with a reason.
  llvm::Expected<Timing>
  time(const std::function<llvm::Error()> &launch, int warmup, int reps,
       const std::function<std::string(const std::vector<double> &, double)> &stop = {});

private:
  LaunchTimer(cuda::DeviceBuffer f, cuda::Event a, cuda::Event b)
      : flush_(std::move(f)), a_(std::move(a)), b_(std::move(b)) {}
  llvm::Error emptyL2(unsigned char byte);
  cuda::DeviceBuffer flush_;
  cuda::Event a_, b_;
  // Flush::Clean: the reading kernel (NVRTC), and the word it never writes
  // unless the data happen to hash to a marker (so its loads stay).
  std::optional<cuda::Module> scrubModule_;
  CUfunction scrub_ = nullptr;
  std::optional<cuda::DeviceBuffer> sink_;
};

struct TuneRequest {
  std::string kernel;
  std::map<std::string, int64_t> dims; // every dim and integer scalar
  bool aligned = true;
  std::string arch = target::TargetInfo::kDefaultArch.str();
  unsigned optLevel = 1;
  unsigned threads = 0; // compile workers; 0: hardware threads
  int driverVersion = 0;
  bool driverJit = false; // load each PTX through the driver (GPU) instead of ptxas
  jit::DiskCache *cache = nullptr;
  const cuda::Context *context = nullptr; // made current on every worker (driverJit)
  /// The GPU's multiprocessors: with them, every configuration is also tried
  /// with the split-K factors (pruned by splitKReason); 0: no split-K.
  unsigned multiprocessors = 0;
  /// On targets with wgmma and TMA, every configuration of 4 or 8 warps also
  /// with `warp-specialize=1`, alone and with `persistent=1` (pruned by
  /// warpSpecializeReason). Without it, a kernel whose loop computes several
  /// dots (attention) is tried with `warp-specialize=1` alone anyway
  /// (loopWithSeveralDots).
  bool warpSpecialize = false;
  /// On targets with TMA, every configuration (but split-K ones) also with
  /// `tma-store=1` (an epilogue through shared memory and TMA stores).
  bool tmaStore = false;
  /// Parameters every configuration takes (tune parameters and schedule
  /// options alike): the search covers the others. Configurations that become
  /// the same are tried once.
  std::map<std::string, int64_t> fixed;
  /// The 64-bit size class (a dim of 2^31 or more), as launches of those sizes get.
  bool index64 = false;

  /// The compile request of the configuration `params` (the default's when
  /// empty): every compile, inspection and database key of a tuning uses it.
  jit::CompileRequest compileRequest(const std::map<std::string, int64_t> &params = {}) const {
    jit::CompileRequest cr;
    cr.kernel = kernel;
    cr.params = params;
    cr.dims = dims;
    cr.aligned = aligned;
    cr.arch = arch;
    cr.optLevel = optLevel;
    cr.driverVersion = driverVersion;
    cr.index64 = index64;
    return cr;
  }
};

struct CompileSummary {
  std::vector<Candidate> candidates;
  int compiled = 0, pruned = 0, failed = 0;
  double seconds = 0;
};

using Progress = std::function<void(size_t done, size_t total, const Candidate &last)>;

llvm::Expected<CompileSummary> compileAll(const jit::Program &program, const TuneRequest &req,
                                          const Progress &progress = {});

struct TimingOptions {
  std::map<std::string, double> scalars; // scalar arguments by name
  std::map<std::string, NpyArray> given; // tensors with given contents (makeInputs)
  double budgetSeconds = 60;             // the whole search
  double perConfigSeconds = 2;
  int warmup = 3, reps = 20;
  double abandonFactor = 2.5; // stop timing a candidate this much slower than the best
  unsigned seed = 1;
};

struct TimingSummary {
  int best = -1; // index into the candidates
  // Outputs are grouped by agreement; the largest group is taken as right
  // (on a tie, nothing wins: best stays -1, and the counts are against the group of the
  // configuration that ran first).
  int checkedAgainst = -1; // the first candidate of that group (the reference)
  int agreed = 0;          // the others in that group
  int disagreed = 0;       // candidates outside it ("wrong output")
  int groups = 0;          // groups of agreeing candidates
  bool tied = false;       // another group was as large
  double seconds = 0;
  bool budgetExhausted = false;
};

llvm::Expected<TimingSummary> timeAll(jit::Runtime &rt, const jit::Program &program,
                                      const TuneRequest &req, std::vector<Candidate> &cands,
                                      const TimingOptions &opts, const Progress &progress = {});

/// A whole search on `rt`'s GPU: `req` completed from the runtime (its arch,
/// driver version, disk cache, context, multiprocessors; driver JIT),
/// compileAll, timeAll, and unless `dbPath` is "off" the winner stored in the
/// tuning database at `dbPath` ("" : TuneDB::defaultPath()) under the
/// runtime's GPU. `metric` renders a median (for the stored entry; may be null).
struct TuneOutcome {
  CompileSummary compiled;
  TimingSummary timing;
  std::optional<TuneEntry> saved;
  std::string dbPath;
};
llvm::Expected<TuneOutcome> tuneOnGpu(jit::Runtime &rt, const jit::Program &program,
                                      TuneRequest req, const TimingOptions &opts,
                                      const std::string &dbPath,
                                      const std::function<std::string(double)> &metric = {},
                                      const Progress &compiling = {}, const Progress &timing = {});

} // namespace tessera::autotune

#endif
