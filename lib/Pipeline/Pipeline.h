//===- Pipeline.h - tile IR to PTX ------------------------------*- C++ -*-===//
//
// The code generation pipeline after the frontend: layouts, conversion to the
// LLVM and NVVM dialects, then the Target stage (LLVM IR, PTX, cubin). Compiling
// is pure: the same tile IR and options give the same output. Errors are
// reported through the MLIR context's diagnostics (located at the tile op).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PIPELINE_PIPELINE_H
#define TESSERA_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir {
class DialectRegistry;
class PassManager;
namespace tile {
class KernelOp;
}
} // namespace mlir

namespace tessera::pipeline {

/// The dialects the pipeline produces (LLVM, NVVM and their translations).
void registerCodegenDialects(mlir::DialectRegistry &registry);

/// Whether pass managers verify the IR after every pass
/// (TESSERA_VERIFY_EACH_PASS=1, for finding the pass that broke it); by
/// default code generation verifies its result once, at the end, which costs a
/// quarter of what verifying after each of its passes did.
bool verifiesEachPass();
/// Sets `pm`'s verifier to verifiesEachPass(); its user verifies the result.
void verifyOnce(mlir::PassManager &pm);

/// Assigns layouts and lowers every tile.kernel of `module`, in place, to an
/// llvm.func kernel for `arch` (TargetInfo). Fails after reporting on the context.
/// With `timing`, each pass is timed in a scope nested in it.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module, llvm::StringRef arch,
                                       mlir::TimingScope *timing = nullptr);

/// The shared memory `kernel` needs on `arch` once its layouts, staged
/// operands and pipeline buffers are allocated (the passes run on a copy):
/// what the autotuner's budget checks. Fails with the passes' diagnostics.
mlir::FailureOr<int64_t> sharedMemoryBytes(mlir::tile::KernelOp kernel, llvm::StringRef arch);

/// Compiles `kernel`'s assert()s in instead of dropping them (docs/kernel-abi.md,
/// "Asserts"): marks the kernel `tile.debug` and numbers its asserts 1, 2, ...
/// in order (`tile.assert_id`, which copies made by later passes keep).
/// Returns each one's location (file:line:col) and message, by id - 1.
std::vector<std::pair<std::string, std::string>> enableAsserts(mlir::tile::KernelOp kernel);

/// Rewrites `kernel` as code generation does first: f8 values as their bits
/// with conversions in integer math (tile-legalize-float8), tile extents padded
/// to powers of two (tile-pad-extents); for interpreting that program in tests.
mlir::LogicalResult padExtents(mlir::tile::KernelOp kernel);

/// The whole back end for an LLVM-dialect module from lowerToLLVMDialect.
llvm::Expected<std::string> toLLVMIR(mlir::ModuleOp module, llvm::StringRef arch);
/// `optLevel` is LLVM's (0-3); ptxas optimizes the PTX again either way.
/// `passes`, when set, replaces the IR pipeline (target::PTXOptions::passes).
llvm::Expected<std::string> toPTX(mlir::ModuleOp module, llvm::StringRef arch,
                                  unsigned optLevel = 1, llvm::StringRef passes = "");

} // namespace tessera::pipeline

#endif
