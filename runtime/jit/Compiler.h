//===- Compiler.h - compiling a kernel specialization to PTX ----*- C++ -*-===//
//
// The pure half of the runtime: from a .tile program, a kernel name and the
// values of its dims, integer scalars and parameters, the PTX of that
// specialization, its launch shape (warps, dynamic shared memory, the grid the
// grid clause gives for these values) and a content-addressed key. No GPU is
// needed. Compiled PTX is kept in an optional on-disk cache (DiskCache.h) under
// that key, so a specialization is compiled once per machine.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_JIT_COMPILER_H
#define TESSERA_RUNTIME_JIT_COMPILER_H

#include "dialects/Tile/Knobs.h"
#include "lib/Support/DType.h"
#include "lib/Support/Diagnostics.h"
#include "lib/Target/PTX.h"
#include "lib/Target/TargetInfo.h"
#include "runtime/jit/DiskCache.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace tile {
class KernelOp;
}
} // namespace mlir
namespace tessera::interp {
struct Arg;
}

namespace tessera::jit {

/// One kernel parameter as declared.
struct ParamInfo {
  std::string name;
  bool isTensor = false;
  DType dtype = DType::F32;
  std::vector<std::string> dims; // per axis: the dim's name, or "" for a literal extent
  std::vector<int64_t> literal;  // per axis: the literal extent (when dims[i] is "")
  bool written = false;          // a tensor the body stores to or updates atomically
};

/// The extent of axis `axis` of tensor parameter `p`: its literal, or the value
/// `dims` gives its dim; nullopt when the axis or the dim's value is missing.
std::optional<int64_t> extentOf(const ParamInfo &p, size_t axis,
                                const std::map<std::string, int64_t> &dims);

/// One `tune NAME in [v0, v1, ...]` clause; v0 is the default.
struct TuneInfo {
  std::string name;
  std::vector<int64_t> values;
};

struct KernelSignature {
  std::string name;
  std::vector<ParamInfo> params;
  std::vector<TuneInfo> tunes;
};

/// A loaded .tile source and the signatures of its kernels.
class Program {
public:
  /// Reads and parses `path`; syntax errors are rendered into the error.
  static llvm::Expected<std::shared_ptr<Program>> fromFile(llvm::StringRef path);
  static llvm::Expected<std::shared_ptr<Program>> fromSource(llvm::StringRef name,
                                                             llvm::StringRef text);

  const SourceFile &file() const { return *file_; }
  const std::vector<KernelSignature> &kernels() const { return kernels_; }
  /// Unique per loaded program in this process (never reused, unlike an
  /// address): what the runtime's launch caches are keyed by.
  uint64_t id() const { return id_; }
  /// The kernel called `name`, or the only one when `name` is empty.
  llvm::Expected<const KernelSignature &> kernel(llvm::StringRef name) const;

private:
  std::unique_ptr<SourceFile> file_;
  std::vector<KernelSignature> kernels_;
  uint64_t id_ = 0;
};

struct CompileRequest {
  std::string kernel;
  std::map<std::string, int64_t> params; // tune overrides (and num_warps, num_stages)
  std::map<std::string, int64_t> dims;   // every dim and integer scalar, by name
  bool aligned = true;                   // 16-byte alignment specialization
  /// With `aligned`: the parameters (by index) whose tensors are not aligned
  /// after all; their accesses are compiled as in the unaligned variant.
  std::vector<int64_t> unalignedArgs;
  std::string arch = target::TargetInfo::kDefaultArch.str();
  unsigned optLevel = 1;
  /// Replaces LLVM's IR pipeline (target::PTXOptions::passes); by default
  /// $TESSERA_LLVM_PASSES, so that one variable switches every compile of a
  /// process (runtime, tuner, bench) for a measurement. Part of the cache key.
  std::string llvmPasses = target::defaultLLVMPasses();
  int driverVersion = 0; // part of the cache key when known
  int64_t numSms = 0;    // what num_sms() is (the GPU's multiprocessors); 0: unknown
  /// Compile assert()s in (docs/kernel-abi.md, "Asserts"); otherwise they are
  /// dropped. Debug kernels are not kept in the disk cache.
  bool debug = false;
  /// The 64-bit size class (docs/kernel-abi.md): extents are passed as 64-bit
  /// values and dims, program_id(), num_programs() and arange() are i64. What a
  /// tensor with an extent of 2^31 or more needs; other kernels keep 32-bit
  /// index arithmetic.
  bool index64 = false;
};

/// One assert() of a debug kernel: its id in the kernel's assert state is its
/// index here plus one.
struct AssertSite {
  std::string where; // file:line:col
  std::string message;
};

struct CompiledKernel {
  std::string key;   // content address: source, kernel, specialization, arch, versions, build
  std::string entry; // the PTX .entry
  std::string ptx;
  unsigned numWarps = kDefaultNumWarps; // warps to launch (producer warps included)
  int64_t sharedBytes = 0;
  std::vector<TensorMapUse> tensorMaps;    // trailing TMA parameters, in order
  SplitK splitK;                           // its workspace parameters (before the maps)
  bool persistent = false;                 // grid[0] virtual programs, launched in as many as fit
  std::array<int64_t, 3> grid = {1, 1, 1}; // for the request's dims and scalars
  bool fromDisk = false;
  double compileMs = 0; // frontend + (unless from disk) code generation
  /// compileMs by stage: the frontend (parse, check, specialized tile IR), the
  /// code generation passes (to the LLVM dialect; with the grid's evaluation,
  /// the key and the cache lookup before them), LLVM IR to PTX (0 from disk).
  double frontendMs = 0, passesMs = 0, llvmMs = 0;
  std::vector<AssertSite> asserts; // debug kernels: the checks compiled in

  /// The threads a launch gives each program.
  unsigned threads() const { return target::TargetInfo::kWarpSize * numWarps; }
};

/// Compiles specializations; one MLIR context, used under a lock.
class Compiler {
public:
  explicit Compiler(DiskCache *cache = nullptr);
  ~Compiler();
  llvm::Expected<CompiledKernel> compile(const Program &program, const CompileRequest &req);
  /// Runs the frontend for `req` and calls `fn` with the specialized kernel
  /// (under the compiler's lock); for inspection such as the autotuner's pruning.
  llvm::Error inspect(const Program &program, const CompileRequest &req,
                      llvm::function_ref<llvm::Error(mlir::tile::KernelOp)> fn);
  /// Runs the specialization `req` describes in the CPU interpreter on host
  /// tensors; returns the grid it ran. Faults are rendered like compile errors.
  /// `padExtents`: interpret the program as code generation pads it.
  llvm::Expected<std::array<int64_t, 3>>
  interpret(const Program &program, const CompileRequest &req, llvm::ArrayRef<interp::Arg> args,
            unsigned threads, llvm::raw_ostream *out, bool padExtents = false);

private:
  std::unique_ptr<mlir::MLIRContext> ctx_;
  DiskCache *cache_;
  std::mutex mutex_;
};

/// The Tessera, LLVM and CUDA-toolkit versions that enter every cache key.
std::string compilerVersion();

/// The disk cache's key of the cost model's choice for `req` (its params
/// ignored): everything autotune::chooseDefault reads (source, kernel, dims,
/// alignment, arch, multiprocessors, size class) and the compiler's version.
std::string modelKey(const Program &program, const CompileRequest &req);

} // namespace tessera::jit

#endif
