//===- Space.h - a kernel's tuning space and its pruning ---------*- C++ -*-===//
//
// The configurations of a kernel are the cartesian product of its `tune`
// clauses (num_warps and num_stages included when declared), in declaration
// order, the first being the default. Before anything is compiled each one is
// specialized (frontend only) and judged on its tile IR against the target's
// budgets: tile extents code generation can handle, threads with work to do,
// tensor-core fragment shapes, shared memory for the dot operands, and the
// registers the tiles live across a loop need. A pruned configuration keeps
// its reason. The default configuration is never pruned.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_AUTOTUNE_SPACE_H
#define TESSERA_RUNTIME_AUTOTUNE_SPACE_H

#include "lib/Target/TargetInfo.h"
#include "runtime/jit/Compiler.h"

namespace tessera::autotune {

struct Config {
  std::map<std::string, int64_t> params;
  std::string text() const; // "BM=128 BN=64 num_warps=8"
  /// The value of parameter `name`, or `byDefault` when the config leaves it out.
  int64_t get(const std::string &name, int64_t byDefault) const {
    auto it = params.find(name);
    return it == params.end() ? byDefault : it->second;
  }
};

/// Every configuration of `sig`'s tune clauses; the first is the default.
std::vector<Config> enumerate(const jit::KernelSignature &sig);

/// The bytes of a tile (or scalar) of type `t`; 0 for other types.
int64_t tileBytes(mlir::Type t);

/// Why `kernel` (specialized for a configuration) should not be compiled for
/// `target`, or "" to compile it. Its warps are the kernel's `tile.num_warps`.
std::string pruneReason(mlir::tile::KernelOp kernel, const target::TargetInfo &target);

} // namespace tessera::autotune

#endif
