//===- Runtime.h - JIT-compile, load, bind and launch -----------*- C++ -*-===//
//
// The C++ API: a Runtime owns a device's context, a Compiler with its disk cache
// and an in-memory cache of loaded kernels. `launch` binds arguments (dtype,
// rank, equal named dims, last-axis contiguity, the alignment specialization),
// compiles the specialization on first use (frontend, code generation, PTX
// loaded through the driver's JIT), sets dynamic shared memory above 48 KiB,
// and launches with the grid the kernel's grid clause gives. Kernels that copy
// with TMA get their tensor maps from a cache keyed by address, shape, strides
// and box; a tensor TMA cannot describe selects the unaligned (cp.async)
// variant instead. A launch with the same sizes, parameters and alignment as
// an earlier one finds everything in one hash lookup and never recompiles; one
// that repeats the last launch (same kernel and options, tensors of the same
// dtypes, shapes, strides and alignment, same scalars) reuses its binding with
// the new data pointers patched in, and its tensor maps when the buffers are
// the same.
//
// Threads: one Runtime may be shared. Its launches run one at a time (a
// lock around `launch`, a few microseconds of host work on a cached kernel;
// the GPU work is asynchronous and overlaps across streams), and `launch`
// makes the runtime's context current on the calling thread. The first
// launch of a specialization compiles under the lock, so threads asking for
// it at once compile it once (the others wait, and so do their other
// launches meanwhile). `resources` and `loadedKernels` take the lock too;
// `lastLaunch` describes the last launch of any thread. Device memory a
// thread allocates itself needs the context current there (a launch on that
// thread first, or cuda::Context::makeCurrent).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_JIT_RUNTIME_H
#define TESSERA_RUNTIME_JIT_RUNTIME_H

#include "runtime/cuda/Handles.h"
#include "runtime/cuda/TensorMap.h"
#include "runtime/jit/Bind.h"
#include "runtime/jit/Compiler.h"
#include "runtime/jit/DiskCache.h"

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace tessera::jit {

struct LaunchOptions {
  std::map<std::string, int64_t> params; // tune overrides
  CUstream stream = nullptr;
  /// Without `params`: use the tuning database's configuration for this
  /// kernel, sizes and GPU when it has one (the runtime's database).
  bool useTuned = true;
  /// Without `params` and a database entry: the configuration the cost model
  /// ranks fastest for these sizes on this GPU (autotune/Model.h) instead of
  /// the declared default (the first value of each tune list).
  bool useModel = true;
};

/// What one launch did.
struct LaunchInfo {
  bool compiled = false;      // this launch compiled (or loaded) the kernel
  bool fromDisk = false;      // ... from the disk cache
  bool cubinFromDisk = false; // the cubin came from the disk cache
  std::string assembler;      // what made the cubin (CubinAssembler::name)
  bool tuned = false;   // the tuning database chose the parameters (every launch of the signature)
  bool modeled = false; // the cost model chose them
  bool modelFromDisk = false; // ... in an earlier process: its choice came from the disk cache
  std::string config;         // the parameters launched, "BM=128 BN=256 ..." (empty: none declared)
  double compileMs = 0;       // frontend + codegen, or frontend + disk read
  double loadMs = 0;          // the PTX's assembly (ptxas or the driver's JIT) unless cached,
                              // and cuModuleLoadDataEx
  /// Where a first launch's time went, by stage (RuntimeOptions::timings prints
  /// it): the cost model's choice of parameters, compileMs's stages
  /// (CompiledKernel), and loadMs's: the assembly (jitMs: ptxas or the
  /// driver's JIT, or the cached cubin's read) and the module load.
  double modelMs = 0, frontendMs = 0, passesMs = 0, llvmMs = 0, jitMs = 0, moduleMs = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
  unsigned threads = 0;
  int64_t sharedBytes = 0;
  unsigned tensorMaps = 0; // TMA tensor maps passed (0: no TMA, or the cp.async variant)
  std::string key;
};

struct RuntimeOptions {
  int device = 0;
  /// The disk cache directory; empty: DiskCache::defaultDirectory(). "off": none.
  std::string cacheDir;
  unsigned optLevel = 1;
  /// The tuning database (autotune::TuneDB); empty: TuneDB::defaultPath();
  /// "off": launches never consult one. $TESSERA_NO_TUNING=1 also turns it off.
  std::string tuningDB;
  /// The architecture kernels are compiled for; empty: the GPU's own. Another
  /// one must run on this GPU (TargetInfo::runsOn): `sm_80` on an H200 runs
  /// sm_80 PTX, JIT-compiled by the driver, under sm_80's budgets.
  std::string arch;
  /// Compile assert()s in: a launch of a kernel with asserts then waits for
  /// the kernel and fails with the first failed assert (kernel, source
  /// location, program ids, message); the context stays usable. Also
  /// $TESSERA_DEBUG=1. Off: asserts are dropped and launches stay async.
  bool debug = false;
  /// Print where each compile's time went (LaunchInfo's stages) to stderr, one
  /// line per kernel compiled or loaded. Also $TESSERA_TIMINGS=1.
  bool timings = false;
  /// Compile every kernel in the 64-bit size class (CompileRequest::index64),
  /// which launches with an extent of 2^31 or more get anyway: for testing that
  /// code on small tensors.
  bool index64 = false;
};

/// What turns PTX into a cubin at run time: the CUDA toolkit's ptxas where it
/// is found (target::findPtxas), else the driver's JIT (cuLink).
/// `TESSERA_PTX_ASSEMBLER=driver` or `=ptxas` forces one. The driver's JIT
/// assembles for linking (as `ptxas -c` does): it ignores `setmaxnreg`, which
/// leaves a warp-specialized kernel's compute warps their launch share of
/// registers, and it calls the slow path of a correctly rounded division as an
/// external function, which serializes every wgmma of the kernel; attention
/// measured up to 1.9x faster assembled by ptxas (docs/BENCHMARKS.md,
/// 2026-12-07). Chosen once per process.
struct CubinAssembler {
  bool ptxas = false;
  std::string name; // as timings print it: "ptxas" or "driver JIT"
  std::string tag;  // in the cubin's cache key: "" for the driver, "ptxas"
};
llvm::Expected<const CubinAssembler &> cubinAssembler();

/// A cubin of `ck` (compiled for `arch`): from `cache`, where it is kept
/// beside the PTX (the key holds the driver version, the arch and the
/// assembler, so a new process loads a cubin), else assembled by
/// cubinAssembler() (or by the driver's JIT with `driverJit`) and stored.
/// `fromDisk` says which; `assembler` gets the name of what made it.
llvm::Expected<std::string> assembleCubin(const CompiledKernel &ck, llvm::StringRef arch,
                                          DiskCache *cache, bool *fromDisk = nullptr,
                                          std::string *assembler = nullptr, bool driverJit = false);

class Runtime {
public:
  /// Fails with a cuda::EnvironmentError without a driver or GPU.
  static llvm::Expected<std::unique_ptr<Runtime>> create(const RuntimeOptions &opts = {});

  llvm::Expected<LaunchInfo> launch(const Program &program, llvm::StringRef kernel,
                                    llvm::ArrayRef<Arg> args, const LaunchOptions &opts = {});

  const cuda::Context &context() const { return ctx_; }
  /// The architecture kernels are compiled for (RuntimeOptions::arch or the GPU's).
  const std::string &arch() const { return arch_; }
  /// The GPU's own architecture.
  const std::string &deviceArch() const { return deviceArch_; }
  Compiler &compiler() { return compiler_; }
  DiskCache *diskCache() { return disk_.get(); }
  /// Registers per thread, local (spill) bytes per thread and static shared
  /// bytes of a loaded kernel, by content key (cuFuncGetAttribute).
  struct Resources {
    int registers = -1, localBytes = 0, staticShared = 0;
  };
  llvm::Expected<Resources> resources(const std::string &key) const;
  /// The driver call a repeat of the last launch makes (function, grid,
  /// block, shared bytes, parameters), to measure the runtime's host time
  /// against cuLaunchKernel alone; none before a launch. Valid until the next.
  struct RawLaunch {
    CUfunction fn = nullptr;
    std::array<int64_t, 3> grid = {1, 1, 1};
    unsigned threads = 0, sharedBytes = 0;
    void **params = nullptr;
  };
  std::optional<RawLaunch> lastLaunch();
  /// The GPU's streaming multiprocessors.
  unsigned multiprocessors() const { return multiprocessors_; }
  /// The tuning database launches consult ("" when off).
  const std::string &tuningDatabase() const { return tuningDB_; }
  /// Loaded specializations and compiles so far.
  size_t loadedKernels() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return loaded_.size();
  }

private:
  struct Loaded {
    cuda::Module module;
    CUfunction fn = nullptr;
    unsigned numWarps = kDefaultNumWarps;
    int64_t sharedBytes = 0;
    std::string key;
    std::vector<TensorMapUse> tensorMaps;
    SplitK splitK;
    std::vector<AssertSite> asserts; // a debug kernel's, checked after each launch
    unsigned threads() const { return target::TargetInfo::kWarpSize * numWarps; }
    /// The tensors of the last launch and their maps: a repeat launch on the
    /// same buffers compares them instead of looking every map up.
    struct Memo {
      std::vector<TensorArg> tensors; // per map, as passed
      std::vector<const CUtensorMap *> maps;
      uint64_t generation = 0; // of the map cache they point into
    } memo;
  };
  struct Prepared {
    Loaded *loaded = nullptr;
    std::array<int64_t, 3> grid = {1, 1, 1};
    bool tuned = false;   // the tuning database chose the parameters
    bool modeled = false; // the cost model chose them
    std::string config;
  };
  /// The kernel for this launch signature and alignment variant, compiled
  /// and loaded on first use (recorded in `info`).
  /// `aligned`: the aligned variant, but for the tensors `bound` lists as
  /// unaligned (CompileRequest::unalignedArgs); else the unaligned one.
  llvm::Expected<Prepared *> prepare(const Program &program, const KernelSignature &sig,
                                     const Binding &bound, bool aligned, const LaunchOptions &opts,
                                     LaunchInfo &info);
  /// The tensor maps `loaded` takes for `args`, from the cache; false when
  /// TMA cannot describe one of the tensors.
  llvm::Expected<bool> tensorMapsFor(Loaded &loaded, llvm::ArrayRef<Arg> args,
                                     std::vector<const CUtensorMap *> &maps);
  /// What a launch of `prep` reports: its grid, block, configuration, key.
  static void describe(const Prepared &prep, LaunchInfo &info);
  /// cuLaunchKernel of `prep` with `params` on `stream` (its grid must be
  /// positive on every axis).
  static llvm::Error launchPrepared(const Prepared &prep, void **params, CUstream stream,
                                    const std::string &kernelName);
  /// Appends the parameters after the kernel's own: a split-K kernel's
  /// workspace and counters (on `stream`), then the tensor maps.
  llvm::Error appendTrailing(std::vector<void *> &pointers, const Prepared &prep,
                             llvm::ArrayRef<const CUtensorMap *> maps, CUstream stream);
  /// A debug kernel's assert state after its launch on `stream`: the first
  /// failed assert as an error (the state cleared for the next launch).
  /// That every tensor of `args` is memory the driver knows and lies inside
  /// its allocation (cuPointerGetAttributes): not a host pointer, not freed,
  /// not another device's memory. With `last`, only the tensors whose pointer
  /// changed since it.
  llvm::Error checkPointers(const KernelSignature &sig, llvm::ArrayRef<Arg> args,
                            const std::vector<Arg> *last) const;
  static llvm::Error checkAsserts(const Loaded &loaded, CUstream stream,
                                  const std::string &kernelName);

  Runtime(cuda::Context ctx, target::TargetInfo target, std::string deviceArch,
          std::unique_ptr<DiskCache> disk, unsigned optLevel)
      : ctx_(std::move(ctx)), target_(std::move(target)), arch_(target_.arch().str()),
        deviceArch_(std::move(deviceArch)), disk_(std::move(disk)), compiler_(disk_.get()),
        optLevel_(optLevel) {}

  mutable std::mutex mutex_; // around launch and what reads its caches
  cuda::Context ctx_;
  target::TargetInfo target_;
  std::string arch_, deviceArch_;
  std::unique_ptr<DiskCache> disk_;
  Compiler compiler_;
  unsigned optLevel_;
  bool debug_ = false;
  bool timings_ = false;                                            // RuntimeOptions::timings
  bool index64_ = false;                                            // RuntimeOptions::index64
  std::unordered_map<std::string, std::unique_ptr<Loaded>> loaded_; // by content key
  std::unordered_map<std::string, Prepared> prepared_;              // by launch signature
  /// The last launch, for a repeat launch of the same kernel and options on
  /// tensors of the same dtypes, shapes, strides and 16-byte alignment (and
  /// the same scalars): its binding with the data pointers patched, no
  /// argument checks, no key building, no lookups.
  struct Repeat {
    uint64_t programId = 0; // Program::id (an address could be reused)
    const KernelSignature *sig = nullptr;
    std::string kernelName; // as passed
    std::map<std::string, int64_t> params;
    bool useTuned = true, useModel = true;
    std::vector<Arg> args;
    Binding binding;
    Prepared *prepared = nullptr;
    std::vector<const CUtensorMap *> maps; // this launch's, reused
    /// The tensor pairs that must not share bytes (Bind.h), and each
    /// argument's bytes (the same on a repeat: shapes and strides are).
    std::vector<DisjointPair> disjoint;
    std::vector<uint64_t> bytes;
  };
  std::optional<Repeat> repeat_;
  /// Whether the new pointers of a repeat launch make a written tensor
  /// overlap another (Repeat::disjoint).
  bool repeatOverlaps(llvm::ArrayRef<Arg> args) const;
  /// Whether `args` repeat the last launch's (see Repeat).
  bool repeats(const Program &program, llvm::StringRef kernel, llvm::ArrayRef<Arg> args,
               const LaunchOptions &opts) const;
  cuda::TensorMapCache tensorMaps_;
  /// Split-K workspaces, one per stream (launches on a stream run in order;
  /// every tile's counter is back at zero when its kernel ends), grown as
  /// kernels need; the counters start zeroed.
  struct SplitWorkspace {
    cuda::DeviceBuffer slots, counters;
  };
  std::map<CUstream, SplitWorkspace> splitWorkspaces_;
  std::array<CUdeviceptr, 2> splitArgs_ = {0, 0}; // the launch's, as parameters
  uint64_t mapGeneration_ = 1;                    // bumped when tensorMaps_ is cleared
  std::string tuningDB_, gpuName_;
  unsigned multiprocessors_ = 1;
};

} // namespace tessera::jit

#endif
