//===- Baseline.h - hand-written CUDA kernels beside a .tile kernel -*- C++ -*-===//
//
// A baseline is an `extern "C" __global__` kernel in a .cu file that declares its
// launch shape in a `// tessera-bench: NAME grid=[...] block=N [smem=BYTES]`
// line and takes the .tile kernel's arguments by the convention of
// docs/bench.md: tensors as pointers, then the scalars, then every named dim as
// an int in order of first appearance. It is compiled with NVRTC for the GPU's
// arch, loaded through the driver's JIT, and launched on the same arguments as
// the Tessera kernel.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_BENCH_BASELINE_H
#define TESSERA_RUNTIME_BENCH_BASELINE_H

#include "runtime/cuda/Handles.h"
#include "runtime/jit/Bind.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::bench {

struct BaselineDecl {
  std::string name;
  std::vector<std::string> grid; // expressions of the dims
  int64_t block = 128, smem = 0;
};

/// The `// tessera-bench:` declarations of a .cu source; malformed lines are errors
/// naming `file` and the line.
llvm::Expected<std::vector<BaselineDecl>> parseDecls(llvm::StringRef source, llvm::StringRef file);

/// Integers, dim names, + - * / (integer), parentheses, cdiv(a, b), min(a, b), max(a, b).
llvm::Expected<int64_t> evalExpr(llvm::StringRef expr, const std::map<std::string, int64_t> &dims);

/// The named dims of `sig` in order of first appearance.
std::vector<std::string> dimOrder(const jit::KernelSignature &sig);

class CudaBaseline {
public:
  /// Reads `path`, finds `kernel`'s declaration, compiles with NVRTC for `arch`, loads.
  static llvm::Expected<CudaBaseline> load(const std::string &path, const std::string &kernel,
                                           const std::string &arch);
  /// Launches on `args` (the .tile kernel's arguments) with `dims` (every named dim).
  llvm::Error launch(const jit::KernelSignature &sig, llvm::ArrayRef<jit::Arg> args,
                     const std::map<std::string, int64_t> &dims) const;
  const BaselineDecl &decl() const { return decl_; }
  double compileMs = 0;

private:
  CudaBaseline(cuda::Module m, CUfunction f, BaselineDecl d)
      : module_(std::move(m)), fn_(f), decl_(std::move(d)) {}
  cuda::Module module_;
  CUfunction fn_ = nullptr;
  BaselineDecl decl_;
};

} // namespace tessera::bench

#endif
