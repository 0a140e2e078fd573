//===- Compare.h - Tessera beside hand-written CUDA and cuBLAS ---*- C++ -*-===//
//
// One comparison: a .tile kernel, its CUDA twin (Baseline.h) and, for matmul,
// cuBLAS (followed by a CUDA epilogue kernel for a fused-epilogue matmul), on
// the same random inputs. A matmul's A and B are its first two arguments, C
// its last tensor. Every side runs once on fresh inputs and
// its tensors are compared with Tessera's (relative error: max |x - t| over max
// |t|, gated per dtype); then each is timed: CUDA events around single
// launches after warm-up, a 256 MiB memset before each to flush L2, median,
// min and max. Reports (a table, JSON, an SVG plot of throughput against size
// per implementation) are built from the results.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_BENCH_COMPARE_H
#define TESSERA_RUNTIME_BENCH_COMPARE_H

#include "lib/Support/Npy.h"
#include "runtime/jit/Runtime.h"

#include "llvm/Support/raw_ostream.h"

namespace tessera::bench {

struct PairSpec {
  std::string family; // "softmax", "matmul", "attention": one plot each
  std::string label;  // the size, e.g. "4096^3"
  std::string tileFile, kernel;
  std::string cuFile, cuKernel; // empty: no CUDA side
  bool cublas = false;          // a matmul [M, K] x [K, N] (bf16 or f16): cuBLAS too
  bool cublasTransA = false;    // ... with A stored [K, M]
  /// A CUDA kernel (same convention) run after cuBLAS on its output: the
  /// unfused epilogue beside a fused one.
  std::string epilogueCu, epilogueKernel;
  std::map<std::string, int64_t> dims;
  std::map<std::string, double> scalars;
  std::map<std::string, NpyArray> given; // tensors with given contents (autotune::makeInputs)
  double flops = 0, bytes = 0;           // per launch, for TFLOP/s or TB/s
};

struct Side {
  std::string name; // "tessera", "cuda", "cublas"
  double ms = 0, minMs = 0, maxMs = 0;
  double relErr = 0; // against Tessera's output
  bool ok = true;    // relErr within the gate
  std::string note;  // e.g. "tuned BM=128 BN=128"
  /// Measured by another program on its own inputs (Rivals.h): no relative
  /// error against Tessera's output; its own script checked it.
  bool external = false;
};

struct Result {
  PairSpec spec;
  std::vector<Side> sides;
  double throughput(const Side &s) const; // TFLOP/s or TB/s
  const char *unit() const { return spec.flops > 0 ? "TFLOP/s" : "TB/s"; }
};

struct Roofline {
  double copyTBps = 0;       // measured: device-to-device copy (read + write)
  double peakTFLOPs = 989.4; // H100/H200 SXM dense bf16, the datasheet's, until measured
  std::string peakSource = "the datasheet's dense bf16 peak";
  double of(const Result &r, const Side &s) const;
  /// The compute roof becomes the best cuBLAS throughput among `results`, if any.
  void measureComputeFrom(llvm::ArrayRef<Result> results);
};

llvm::Expected<Result> runPair(jit::Runtime &rt, const PairSpec &spec, int reps = 30);
llvm::Expected<double> measureCopyTBps();

void printTable(llvm::raw_ostream &os, llvm::ArrayRef<Result> results, const Roofline &roof);
void writeJSON(llvm::raw_ostream &os, llvm::ArrayRef<Result> results, const Roofline &roof,
               llvm::StringRef device);
void writeSVG(llvm::raw_ostream &os, llvm::ArrayRef<Result> results, llvm::StringRef device);

/// The suite: softmax, matmul and attention over size sweeps, paths relative to `sourceDir`.
std::vector<PairSpec> suite(const std::string &sourceDir);

} // namespace tessera::bench

#endif
