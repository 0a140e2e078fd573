//===- Grid.h - the grid clause, evaluated on the host ----------*- C++ -*-===//
//
// The programs a kernel specialization launches: its grid region evaluated
// with the launch's dims and integer scalars, and checked against what a
// launch takes.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_JIT_GRID_H
#define TESSERA_RUNTIME_JIT_GRID_H

#include "runtime/jit/Compiler.h"

#include "dialects/Tile/TileDialect.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>

namespace tessera::jit {

/// The grid of `kernel` (specialized from `sig`) for `req.dims`: {1, 1, 1}
/// without a grid region. Errors name a division by zero or an op the host
/// cannot evaluate.
llvm::Expected<std::array<int64_t, 3>>
evaluateGrid(mlir::tile::KernelOp kernel, const KernelSignature &sig, const CompileRequest &req);

/// Why `kernel`'s cluster option (tile-cluster-programs, C > 1) cannot form
/// clusters when `grid` is launched, or "": clusters launch whole, so axis 0
/// must be a multiple of C; a persistent kernel launches as many programs as
/// fit, never a known multiple. Compiler::compile and `tessera compile` drop
/// the option then (it is a hint, never a failed launch).
std::string clusterObstacle(mlir::tile::KernelOp kernel, const std::array<int64_t, 3> &grid);

/// A grid a GPU can launch: at most TargetInfo::kMaxGrid programs per axis;
/// the error names `kernel`, the axis and the limit.
llvm::Error checkGrid(const std::string &kernel, const std::array<int64_t, 3> &grid);

} // namespace tessera::jit

#endif
