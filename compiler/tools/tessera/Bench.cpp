//===- Bench.cpp - tessera bench --------------------------------*- C++ -*-===//
//
// `tessera bench --compile-only [--cuda-dir DIR] [--arch sm_90a]` compiles every
// hand-written CUDA baseline (DIR/*.cu, default examples/cuda of the source tree,
// found as `sourceTree` says) with NVRTC, then
// each kernel's PTX with ptxas for its resource report, and lists the kernels the
// files declare with `// tessera-bench: KERNEL grid=[...] block=N` lines (the
// calling convention of docs/bench.md; a malformed line fails the file). Exit 0
// when every file compiles, 1 when one does not, 2 without NVRTC.
// `tessera bench FILE.tile --against FILE.cu:KERNEL --dim ... [--arg NAME=PATH.npy]`
// (a tensor's contents, for both sides) and `tessera bench
// --suite` run the comparisons on the GPU (runtime/bench/Compare.h): a table on
// stdout, --json and --svg reports; exit 1 when an output is off. `--rivals FILE`
// joins rows another program measured on the same GPU (runtime/bench/Rivals.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"

#include "lib/Support/Clock.h"
#include "lib/Support/Diagnostics.h"
#include "lib/Support/Errors.h"
#include "lib/Target/PTX.h"
#include "lib/Target/TargetInfo.h"
#include "runtime/bench/Baseline.h"
#include "runtime/bench/Compare.h"
#include "runtime/bench/Rivals.h"
#include "runtime/cuda/Driver.h"
#include "runtime/cuda/Nvrtc.h"
#include "runtime/jit/Runtime.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <unistd.h>

using namespace tessera;

namespace {

int report(llvm::Error e) { return reportError(std::move(e)); }

/// The tree with examples/ and examples/cuda: `given` when set, else the
/// first of the working directory, $TESSERA_SOURCE_DIR, the tree around the
/// binary (a bundle's bin/.., a build's bin/../..) and the tree this binary
/// was built from that has examples/cuda.
llvm::Expected<std::string> sourceTree(const std::string &given) {
  if (!given.empty())
    return given;
  std::vector<std::string> candidates{"."};
  if (const char *env = getenv("TESSERA_SOURCE_DIR"); env && *env)
    candidates.push_back(env);
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (!exe.empty()) {
    llvm::StringRef bin = llvm::sys::path::parent_path(exe);
    candidates.push_back(llvm::sys::path::parent_path(bin).str());
    candidates.push_back(llvm::sys::path::parent_path(llvm::sys::path::parent_path(bin)).str());
  }
  candidates.push_back(TESSERA_BUILT_FROM);
  for (const std::string &c : candidates) {
    llvm::SmallString<256> cuda(c);
    llvm::sys::path::append(cuda, "examples", "cuda");
    if (!c.empty() && llvm::sys::fs::is_directory(cuda))
      return c;
  }
  return makeError("cannot find the source tree (examples/cuda): run from the repository, set "
                   "TESSERA_SOURCE_DIR, or pass --source-dir (--cuda-dir with --compile-only)");
}

int writeFile(const std::string &path, llvm::function_ref<void(llvm::raw_ostream &)> fn) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    printToolError(llvm::errs(), "cannot write " + path + ": " + ec.message());
    return 1;
  }
  fn(os);
  return 0;
}

int runComparisons(const BenchOptions &opts) {
  std::vector<bench::PairSpec> specs;
  if (!opts.rivals.empty() && !opts.suite) {
    printToolError(llvm::errs(), "--rivals joins rows to the suite's: it needs --suite");
    return 1;
  }
  std::optional<bench::Rivals> rivals; // read before any GPU work: a bad file fails fast
  if (!opts.rivals.empty()) {
    auto r = bench::readRivals(opts.rivals);
    if (!r)
      return report(r.takeError());
    rivals = std::move(*r);
  }
  if (opts.suite) {
    auto tree = sourceTree(opts.sourceDir);
    if (!tree)
      return report(tree.takeError());
    specs = bench::suite(*tree);
    if (!opts.only.empty()) {
      llvm::erase_if(specs, [&](const bench::PairSpec &p) {
        return (p.family + " " + p.label).find(opts.only) == std::string::npos;
      });
      if (specs.empty()) {
        printToolError(llvm::errs(), "--only '" + opts.only + "' matches no row of the suite");
        return 1;
      }
    }
  } else {
    if (opts.input.empty() || opts.against.empty()) {
      printToolError(llvm::errs(),
                     "tessera bench needs --suite, or FILE.tile --against FILE.cu:KERNEL "
                     "(or --compile-only)");
      return 1;
    }
    auto [cu, kernel] = llvm::StringRef(opts.against).rsplit(':');
    if (kernel.empty() || !cu.ends_with(".cu")) {
      printToolError(llvm::errs(), "--against expects FILE.cu:KERNEL, got '" + opts.against + "'");
      return 1;
    }
    std::map<std::string, double> dims, scalars;
    bench::PairSpec p{"custom", "", opts.input, opts.kernel, cu.str(), kernel.str()};
    if (!parseNumberItems(opts.dims, "--dim", dims) ||
        !parseNumberItems(opts.scalars, "--scalar", scalars) ||
        !parseNpyItems(opts.args, "--arg", p.given))
      return 1;
    for (auto &[n, v] : dims) {
      p.dims[n] = (int64_t)v;
      p.label += (p.label.empty() ? "" : " ") + n + "=" + std::to_string((int64_t)v);
    }
    p.scalars = scalars;
    p.flops = opts.flops;
    p.bytes = opts.bytes;
    specs.push_back(p);
  }
  jit::RuntimeOptions ro;
  ro.arch = opts.arch;
  auto rt = jit::Runtime::create(ro);
  if (!rt)
    return report(rt.takeError());
  auto name = (*rt)->context().name();
  std::string device = name ? *name : "unknown GPU";
  if (!name)
    llvm::consumeError(name.takeError());
  bench::Roofline roof;
  auto copy = bench::measureCopyTBps();
  if (!copy)
    return report(copy.takeError());
  roof.copyTBps = *copy;
  std::vector<bench::Result> results;
  bool allOk = true;
  for (const bench::PairSpec &p : specs) {
    if (isatty(2))
      llvm::errs() << "bench: " << p.family << " " << p.label << "\n";
    auto r = bench::runPair(**rt, p, opts.reps);
    if (!r)
      return report(r.takeError());
    for (const bench::Side &s : r->sides)
      allOk &= s.ok;
    results.push_back(std::move(*r));
  }
  if (rivals) {
    auto unmatched = bench::attachRivals(results, *rivals, device);
    if (!unmatched)
      return report(unmatched.takeError());
    if (!unmatched->empty())
      llvm::errs() << "note: " << unmatched->size() << " rival rows match no row run here ("
                   << llvm::join(*unmatched, "; ") << ")\n";
    for (const bench::Result &r : results)
      for (const bench::Side &s : r.sides)
        if (s.external && !s.ok)
          llvm::errs() << "note: the rival " << s.name << " of " << r.spec.family << " "
                       << r.spec.label << " failed its own output check\n";
  }
  roof.measureComputeFrom(results);
  llvm::outs() << "device: " << device << " (" << (*rt)->deviceArch() << "; Tessera code for "
               << (*rt)->arch() << ")\n";
  bench::printTable(llvm::outs(), results, roof);
  if (!opts.json.empty() && writeFile(opts.json, [&](llvm::raw_ostream &os) {
        bench::writeJSON(os, results, roof, device);
      }))
    return 1;
  if (!opts.svg.empty() &&
      writeFile(opts.svg, [&](llvm::raw_ostream &os) { bench::writeSVG(os, results, device); }))
    return 1;
  if (!allOk)
    printToolError(llvm::errs(),
                   "some outputs differ from Tessera's beyond the gate (rel err FAIL)");
  return allOk ? 0 : 1;
}

} // namespace

int tessera::runBench(const BenchOptions &options) {
  if (!checkArch(options.arch))
    return 1;
  if (!options.compileOnly)
    return runComparisons(options);
  BenchOptions opts = options;
  if (opts.arch.empty())
    opts.arch = target::TargetInfo::kDefaultArch.str();
  if (opts.cudaDir.empty()) {
    auto tree = sourceTree(opts.sourceDir);
    if (!tree)
      return report(tree.takeError());
    llvm::SmallString<256> dir(*tree);
    llvm::sys::path::append(dir, "examples", "cuda");
    opts.cudaDir = dir.str().str();
  }
  auto version = cuda::nvrtcVersion();
  if (!version)
    return report(version.takeError());
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(opts.cudaDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".cu")
      files.push_back(it->path());
  if (ec)
    return report(llvm::createStringError(ec, "cannot list " + opts.cudaDir + ": " + ec.message()));
  std::sort(files.begin(), files.end());
  if (files.empty())
    return report(makeError("no .cu files in " + opts.cudaDir));
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
    double ms = msSince(t0);
    if (!r) {
      llvm::outs() << llvm::format("%-28s FAILED (%.0f ms)\n",
                                   llvm::sys::path::filename(path).str().c_str(), ms)
                   << llvm::toString(r.takeError()) << "\n";
      ++failed;
      continue;
    }
    std::string log;
    std::string regs = "ptxas not run";
    auto cubin = target::compileCubin(r->ptx, opts.arch, &log);
    if (cubin) {
      target::PtxasReport rep = target::parsePtxasLog(log);
      regs = llvm::formatv("max {0} registers, {1} bytes spilled", rep.registers, rep.spillStores)
                 .str();
    } else {
      std::string why = llvm::toString(cubin.takeError());
      regs = "ptxas: " + why.substr(0, why.find('\n'));
    }
    auto decls = bench::parseDecls((*buf)->getBuffer(), llvm::sys::path::filename(path));
    llvm::outs() << llvm::format("%-28s ok  %5.0f ms  %zu KB PTX  %s\n",
                                 llvm::sys::path::filename(path).str().c_str(), ms,
                                 r->ptx.size() / 1024, regs.c_str());
    if (!decls) {
      llvm::outs() << "    " << llvm::toString(decls.takeError()) << "\n";
      ++failed;
      continue;
    }
    std::string missing;
    for (const bench::BaselineDecl &d : *decls) {
      llvm::outs() << "    " << d.name << "\n";
      if (r->ptx.find(".entry " + d.name + "(") == std::string::npos)
        missing += " " + d.name;
    }
    kernels += (int)decls->size();
    if (!missing.empty()) {
      llvm::outs() << "    declared but not in the PTX:" << missing << "\n";
      ++failed;
    }
  }
  llvm::outs() << llvm::format("%zu baselines: %zu compiled, %d failed; %d kernels\n", files.size(),
                               files.size() - failed, failed, kernels);
  return failed ? 1 : 0;
}
