//===- Bench.cpp - tessera bench --------------------------------*- C++ -*-===//
//
// `tessera bench --compile-only [--cuda-dir DIR] [--arch sm_90a]` compiles every
// hand-written CUDA baseline (DIR/*.cu, default examples/cuda) with NVRTC, then
// each kernel's PTX with ptxas for its resource report, and lists the kernels the
// files declare with `// tessera-bench: KERNEL grid=[...] block=N` lines (the
// calling convention of docs/bench.md). Exit 0 when every file compiles, 1 when
// one does not, 2 without NVRTC. Running the comparisons on a GPU (--suite,
// --against) is the next step of this command.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"

#include "lib/Support/Diagnostics.h"
#include "lib/Target/PTX.h"
#include "runtime/cuda/Driver.h"
#include "runtime/cuda/Nvrtc.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace tessera;

namespace {

int report(llvm::Error e) {
  int status = cuda::isEnvironmentError(e) ? 2 : 1;
  printToolError(llvm::errs(), llvm::toString(std::move(e)));
  return status;
}

/// The kernels a baseline declares: `// tessera-bench: NAME grid=[...] block=N`.
std::vector<std::string> declaredKernels(llvm::StringRef text) {
  std::vector<std::string> out;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef l : lines) {
    l = l.trim();
    if (!l.consume_front("// tessera-bench:"))
      continue;
    out.push_back(l.trim().split(' ').first.str());
  }
  return out;
}

} // namespace

int tessera::runBench(const BenchOptions &opts) {
  if (!opts.compileOnly) {
    printToolError(llvm::errs(), "tessera bench runs only with --compile-only so far; the GPU comparisons "
                                 "(--suite, --against FILE.cu:KERNEL) are not built yet");
    return 1;
  }
  auto version = cuda::nvrtcVersion();
  if (!version)
    return report(version.takeError());
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(opts.cudaDir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".cu")
      files.push_back(it->path());
  if (ec)
    return report(llvm::createStringError(ec, "cannot list " + opts.cudaDir + ": " + ec.message()));
  std::sort(files.begin(), files.end());
  if (files.empty())
    return report(llvm::createStringError(llvm::inconvertibleErrorCode(), "no .cu files in " + opts.cudaDir));
  llvm::outs() << "NVRTC " << *version << ", " << opts.arch << "\n";
  int failed = 0, kernels = 0;
  for (const std::string &path : files) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      llvm::outs() << path << ": cannot read: " << buf.getError().message() << "\n";
      ++failed;
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto r = cuda::compileCuda((*buf)->getBuffer(), llvm::sys::path::filename(path), opts.arch);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!r) {
      llvm::outs() << llvm::format("%-28s FAILED (%.0f ms)\n", llvm::sys::path::filename(path).str().c_str(), ms)
                   << llvm::toString(r.takeError()) << "\n";
      ++failed;
      continue;
    }
    std::string log;
    std::string regs = "ptxas not run";
    auto cubin = target::compileCubin(r->ptx, opts.arch, &log);
    if (cubin) {
      target::PtxasReport rep = target::parsePtxasLog(log);
      regs = llvm::formatv("max {0} registers, {1} bytes spilled", rep.registers, rep.spillStores).str();
    } else {
      std::string why = llvm::toString(cubin.takeError());
      regs = "ptxas: " + why.substr(0, why.find('\n'));
    }
    std::vector<std::string> ks = declaredKernels((*buf)->getBuffer());
    std::string missing;
    for (const std::string &k : ks)
      if (r->ptx.find(".entry " + k + "(") == std::string::npos)
        missing += " " + k;
    kernels += (int)ks.size();
    llvm::outs() << llvm::format("%-28s ok  %5.0f ms  %zu KB PTX  %s\n", llvm::sys::path::filename(path).str().c_str(),
                                 ms, r->ptx.size() / 1024, regs.c_str());
    for (const std::string &k : ks)
      llvm::outs() << "    " << k << "\n";
    if (!missing.empty()) {
      llvm::outs() << "    declared but not in the PTX:" << missing << "\n";
      ++failed;
    }
  }
  llvm::outs() << llvm::format("%zu baselines: %zu compiled, %d failed; %d kernels\n", files.size(),
                               files.size() - failed, failed, kernels);
  return failed ? 1 : 0;
}
