//===- IRGen.h - from the checked AST to tile IR ----------------*- C++ -*-===//
//
// Emits one `tile.kernel` per analyzed kernel into a module: the grid region from
// the grid clause, the body from the statements (mutable variables become scf
// loop-carried values and if results). Every op carries the FileLineColLoc of the
// source construct it comes from.
//
// `buildTileModule` is the whole frontend: parse, check, emit, verify and
// canonicalize, with every problem reported as a located diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_IRGEN_IRGEN_H
#define TESSERA_IRGEN_IRGEN_H

#include "lib/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir {
class DialectRegistry;
}

namespace tessera {

/// Registers the dialects tile IR uses (tile, arith, math, scf).
void registerTileIRDialects(mlir::DialectRegistry &registry);

/// Emits the kernel `info` describes into `module`. Fails only on internal errors.
mlir::LogicalResult emitKernel(mlir::ModuleOp module, const KernelInfo &info,
                               const SourceFile &file);

struct FrontendOptions {
  std::string kernel;  // empty: every kernel of the file
  Specialization spec; // --param / --dim
  bool canonicalize = true;
};

/// Parses `file`, checks and emits the selected kernel(s), verifies the module.
/// Returns null after errors (all of them in `diags`).
mlir::OwningOpRef<mlir::ModuleOp> buildTileModule(const SourceFile &file,
                                                  const FrontendOptions &opts,
                                                  mlir::MLIRContext &ctx, DiagnosticEngine &diags);

} // namespace tessera

#endif
