//===- PTX.h - LLVM-dialect module -> LLVM IR -> PTX -> cubin ---*- C++ -*-===//
//
// The Target stage. Its input is a builtin module whose functions are
// `llvm.func`s (kernels carry the `nvvm.kernel` unit attribute, optionally
// `nvvm.maxntid` / `nvvm.reqntid`) using llvm, nvvm and `llvm.inline_asm` ops, as
// produced by lib/Conversion. It translates that to LLVM IR for
// `nvptx64-nvidia-cuda`, optimizes it with LLVM's default<O1> pipeline for NVPTX
// (another level, or the pass pipeline PTXOptions::passes names), emits
// PTX with the NVPTX backend, and assembles PTX to a cubin with ptxas.
//
// Every entry point reports failure as an llvm::Error with a readable message;
// none prints, exits or asserts on bad input. Each call owns its LLVMContext and
// TargetMachine, so different modules (in different MLIRContexts) may be compiled
// on different threads at once.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LIB_TARGET_PTX_H
#define TESSERA_LIB_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessera::target {

/// The target triple of every module this stage produces.
inline constexpr const char *kNVPTXTriple = "nvptx64-nvidia-cuda";

/// The PTX ISA version requested from the NVPTX backend: PTX 9.0, the newest
/// that Debian's LLVM 22 knows and the version of CUDA 13.0's ptxas (sm_90a needs
/// at least +ptx80).
inline constexpr const char *kDefaultPTXFeatures = "+ptx90";

struct PTXOptions {
  /// Target features passed to the NVPTX backend (e.g. "+ptx87" for drivers
  /// older than CUDA 13 that JIT PTX).
  std::string features = kDefaultPTXFeatures;
  /// LLVM optimization level, 0-3 (both the IR pipeline and the code generator).
  /// 1 by default: ptxas optimizes the PTX again, and on the H200 (2026-12-02,
  /// docs/BENCHMARKS.md) O1 and O3 PTX ran the matmul and attention examples
  /// equally fast (within 1.5%) while O1 compiles attention about 15 ms sooner.
  unsigned optLevel = 1;
  /// An LLVM pass pipeline in `opt -passes` syntax run instead of default<O{optLevel}>
  /// on the IR (the code generator keeps optLevel); empty: the default. For
  /// measuring cheaper pipelines (defaultLLVMPasses() reads it from the environment).
  std::string passes;
};

/// $TESSERA_LLVM_PASSES (read once), or empty: what requests use unless told.
const std::string &defaultLLVMPasses();

/// Registers the builtin, LLVM and NVVM dialects and their LLVM IR translations.
/// A context built from such a registry (with the dialects loaded) never needs
/// to be modified by the functions below, which makes it safe to translate
/// several of its modules concurrently. Otherwise they register what is missing
/// on the module's context themselves.
void registerTargetDialects(mlir::DialectRegistry &registry);

/// Whether `arch` names a processor of the NVPTX backend (`sm_80`, `sm_90a`...).
bool isValidArch(llvm::StringRef arch);

/// Translates `module` to an LLVM module in `llvmContext`, with the NVPTX triple
/// and data layout for `arch`. libdevice (`$CUDA_HOME/nvvm/libdevice`) is linked
/// in when the module calls `__nv_*` functions. Not optimized.
llvm::Expected<std::unique_ptr<llvm::Module>> translateToLLVMModule(mlir::ModuleOp module,
                                                                    llvm::StringRef arch,
                                                                    llvm::LLVMContext &llvmContext,
                                                                    const PTXOptions &options = {});

/// As translateToLLVMModule, returned as LLVM IR text.
llvm::Expected<std::string> translateToLLVMIR(mlir::ModuleOp module, llvm::StringRef arch,
                                              const PTXOptions &options = {});

/// Translates, optimizes (O3 by default) and emits PTX text for `arch`.
llvm::Expected<std::string> emitPTX(mlir::ModuleOp module, llvm::StringRef arch,
                                    const PTXOptions &options = {});

/// Optimizes an NVPTX LLVM module in place and emits its PTX text.
llvm::Expected<std::string> emitPTX(llvm::Module &llvmModule, llvm::StringRef arch,
                                    const PTXOptions &options = {});

//===----------------------------------------------------------------------===//
// ptxas (Cubin.cpp)
//===----------------------------------------------------------------------===//

/// The ptxas to run: `$CUDA_HOME/bin/ptxas`, else `/usr/local/cuda/bin/ptxas`,
/// else `ptxas` on PATH. The error lists the places tried.
llvm::Expected<std::string> findPtxas();

/// Assembles `ptx` with `ptxas -arch=<arch> -v` and returns the cubin. `*log`
/// (when given) receives ptxas's output: the -v report (registers, spills) and
/// any warnings. Errors name the command and include ptxas's output.
llvm::Expected<std::vector<char>> compileCubin(llvm::StringRef ptx, llvm::StringRef arch,
                                               std::string *log = nullptr);

/// What `ptxas -v` reports. For a log with several functions: the most
/// registers of any function, and the spills summed over all of them.
struct PtxasReport {
  int registers = -1;
  int spillStores = 0, spillLoads = 0; // bytes
  bool ok = false;                     // a "Used N registers" line was found
};

/// Parses `ptxas info    : Used 32 registers, ...` and
/// `0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads` lines.
PtxasReport parsePtxasLog(llvm::StringRef log);

} // namespace tessera::target

#endif // TESSERA_LIB_TARGET_PTX_H
