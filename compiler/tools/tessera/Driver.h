//===- Driver.h - the stages behind the tessera command ---------*- C++ -*-===//
//
// Options structs for the subcommands, kept apart from their CLI11 parsing, and
// the functions that run them. Each returns the process exit status: 0 on
// success, 1 for a bad program or bad arguments, 2 when the environment lacks
// something. This header is free of LLVM and MLIR types.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TOOLS_DRIVER_H
#define TESSERA_TOOLS_DRIVER_H

#include "lib/Support/Npy.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace tessera {

/// The stages `--emit` can stop at, in pipeline order.
enum class EmitStage { AST, Tile, GPU, LLVM, PTX, Cubin };

/// Prints `msg` as `tessera: error: MSG` and returns 1 (Run.cpp).
int failWith(const llvm::Twine &msg);
/// Prints `e` (frontend errors as rendered, others as `tessera: error: ...`) and
/// returns its exit status: 2 when the environment lacks a driver, GPU or library.
int reportError(llvm::Error e);
/// The one NAME=VALUE parser of the command line: NAME an identifier, VALUE
/// not empty, each NAME at most once. Reports the first bad item as `FLAG
/// expects NAME=WHAT, got '...'` (or `FLAG NAME is given twice`) and returns
/// false.
bool splitItems(const std::vector<std::string> &items, const char *flag, const char *what,
                std::map<std::string, std::string> &out);
/// NAME=INTEGER items.
bool parseIntegerItems(const std::vector<std::string> &items, const char *flag,
                       std::map<std::string, int64_t> &out);
/// NAME=NUMBER items (true and false as 1 and 0).
bool parseNumberItems(const std::vector<std::string> &items, const char *flag,
                      std::map<std::string, double> &out);
/// NAME=PATH.npy items, each file read (a file that does not read is reported).
bool parseNpyItems(const std::vector<std::string> &items, const char *flag,
                   std::map<std::string, NpyArray> &out);

/// An empty --arch, or one Tessera supports; otherwise prints `unsupported --arch`
/// with the supported ones and returns false.
bool checkArch(const std::string &arch);

struct CompileOptions {
  std::string input;
  std::string kernel;
  std::vector<std::string> params;  // NAME=V
  std::vector<std::string> dims;    // NAME=V
  std::vector<std::string> scalars; // NAME=V: integer ones specialize like dims
  std::string emit = "tile";
  std::string arch;   // empty: TargetInfo::kDefaultArch
  std::string output; // empty: stdout
  /// Do not assume 16-byte aligned tensors (base, row strides, last extent):
  /// no vectorized accesses. The default assumes alignment, as the runtime
  /// checks at launch.
  bool unaligned = false;
  /// LLVM's optimization level for --emit ptx|cubin (0-3).
  unsigned optLevel = 1;
  /// An LLVM pass pipeline replacing default<O{optLevel}> (--llvm-passes, else
  /// $TESSERA_LLVM_PASSES); empty: the default.
  std::string llvmPasses;
  /// What num_sms() is (no GPU decides it here); 0: unknown.
  int64_t sms = 0;
  /// Compile assert()s in (--emit gpu|llvm|ptx|cubin); otherwise they are dropped.
  bool debug = false;
  /// The 64-bit size class (64-bit extents in the ABI; i64 dims, program ids
  /// and aranges): what launches with an extent of 2^31 or more use.
  bool index64 = false;
  /// Print the time of each stage (frontend, each code-generation pass, LLVM
  /// IR and PTX, ptxas) to stderr.
  bool timings = false;
};

int runCompile(const CompileOptions &opts);

struct RunOptions {
  std::string input;
  std::string kernel;
  std::vector<std::string> args;    // NAME=PATH.npy, one per tensor parameter
  std::vector<std::string> scalars; // NAME=V, one per scalar parameter
  std::vector<std::string> params;  // NAME=V: tune overrides
  std::vector<std::string> outs;    // NAME=PATH.npy: tensors written back
  bool interpret = false;
  std::string arch;     // compile for this architecture instead of the GPU's
  int64_t sms = 0;      // --interpret: what num_sms() is; 0: unknown
  bool debug = false;   // GPU: compile assert()s in and report the first failure
  bool index64 = false; // the 64-bit size class even for small tensors
};

/// `tessera run`: 0 on success, 1 for a bad program or arguments, 2 when the
/// machine has no GPU or driver (Run.cpp).
int runRun(const RunOptions &opts);

struct TuneOptions {
  std::string input;
  std::string kernel;
  std::vector<std::string> dims;    // NAME=V
  std::vector<std::string> scalars; // NAME=V
  std::vector<std::string> args;    // NAME=PATH.npy: a tensor's contents (the rest random)
  bool compileOnly = false;
  std::string arch; // empty: TargetInfo::kDefaultArch with --compile-only, else the GPU's
  unsigned threads = 0;
  double budget = 60; // seconds for the whole GPU search
  double flops = 0;   // per launch, for TFLOP/s
  double bytes = 0;   // per launch, for TB/s
  std::string db;     // the tuning database; empty: the default
  bool noSave = false;
  bool warpSpecialize = false;     // also try warp-specialized (and persistent) variants
  bool tmaStore = false;           // also try TMA-store epilogues
  std::vector<std::string> params; // NAME=V: fixed in every configuration
};

/// `tessera tune` (Tune.cpp): 0 on success; 1 for bad programs or arguments,
/// or when a configuration failed to compile; 2 without a GPU (unless --compile-only).
int runTune(const TuneOptions &opts);

struct BenchOptions {
  std::string input, kernel, against; // FILE.tile --against FILE.cu:KERNEL
  std::vector<std::string> dims, scalars;
  std::vector<std::string> args; // NAME=PATH.npy: a tensor's contents (the rest random)
  double flops = 0, bytes = 0;
  bool suite = false;
  std::string only;      // --suite: the rows whose "workload size" contains it
  std::string sourceDir; // where --suite finds examples/ and test/programs/; empty: found
  std::string json, svg;
  /// --suite: rows another program measured on this GPU (runtime/bench/Rivals.h),
  /// shown beside the suite's rows of the same workload and size.
  std::string rivals;
  int reps = 30;
  bool compileOnly = false;
  std::string cudaDir; // the .cu baselines; empty: examples/cuda of the source tree
  /// The Tessera kernels' architecture; empty: TargetInfo::kDefaultArch with
  /// --compile-only, else the GPU's. The CUDA baselines are compiled for the GPU.
  std::string arch;
};

/// `tessera bench` (Bench.cpp).
int runBench(const BenchOptions &opts);

} // namespace tessera

#endif
