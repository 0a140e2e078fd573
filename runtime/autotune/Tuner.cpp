//===- Tuner.cpp - pruned, parallel compilation of a tuning space -*- C++ -*-===//
//
// compileAll (Tuner.h): the configurations of a kernel's tune clauses (and,
// on request, its schedule options), each pruned by the cost model's reasons
// or compiled (in parallel, one MLIR context per worker) with its resources
// read from ptxas or the driver. Timing them is Timing.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/autotune/Tuner.h"
#include "lib/Support/Errors.h"

#include "dialects/Tile/Knobs.h"
#include "dialects/Tile/TileDialect.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Target/PTX.h"
#include "lib/Transforms/ClusterPrograms.h"
#include "runtime/autotune/Model.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <thread>

using namespace tessera;
using namespace tessera::autotune;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// "123 bytes smem" in a ptxas -v log (the largest).
int64_t staticSmemOf(llvm::StringRef log) {
  int64_t best = 0;
  size_t pos = 0;
  while ((pos = log.find(" bytes smem", pos)) != llvm::StringRef::npos) {
    size_t start = pos;
    while (start > 0 && isdigit((unsigned char)log[start - 1]))
      --start;
    int64_t v = 0;
    if (!log.slice(start, pos).getAsInteger(10, v))
      best = std::max(best, v);
    pos += 1;
  }
  return best;
}

} // namespace

//===----------------------------------------------------------------------===//
// Compiling every configuration
//===----------------------------------------------------------------------===//

llvm::Expected<CompileSummary> tessera::autotune::compileAll(const jit::Program &program,
                                                             const TuneRequest &req,
                                                             const Progress &progress) {
  auto t0 = std::chrono::steady_clock::now();
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  auto target = target::TargetInfo::get(req.arch);
  if (!target)
    return target.takeError();
  CompileSummary out;
  std::vector<Config> configs = enumerate(*sig);
  if (!req.fixed.empty()) {
    std::vector<Config> kept;
    std::set<std::map<std::string, int64_t>> seen;
    for (Config &c : configs) {
      for (auto &[name, v] : req.fixed)
        c.params[name] = v;
      if (seen.insert(c.params).second)
        kept.push_back(std::move(c));
    }
    configs = std::move(kept);
  }
  size_t plain = configs.size();
  if (req.multiprocessors)
    for (size_t i = 0; i < plain; ++i)
      for (int64_t s : kSplitKFactors) {
        Config c = configs[i];
        c.params[kSplitKOption] = s;
        configs.push_back(std::move(c));
      }
  // With wgmma and TMA, every configuration with a producer warpgroup too,
  // alone and persistent, for a kernel with a loop to give one (one the option cannot split in some
  // configuration compiles to its plain twin's PTX: timed once).
  // Without --warp-specialize, a kernel whose loop computes several dots
  // (attention's, waited for) gets the producer too, not persistent: measured
  // faster at every such configuration (docs/BENCHMARKS.md, 2026-12-05).
  bool hopper = target->hasWgmma() && target->hasTMA() && req.aligned && !configs.empty() &&
                !req.fixed.count(kWarpSpecializeOption);
  bool tryWarpSpecialize = hopper, alsoPersistent = req.warpSpecialize, severalDots = false;
  // Whether the cluster pass would form clusters for the kernel (clusters,
  // below): the target has them and a load is shared. Attention's loop
  // (several dots, waited for) multicasts K and V only with the producer
  // warpgroup.
  bool shares = false;
  if (tryWarpSpecialize) {
    jit::CompileRequest cr = req.compileRequest(configs.front().params);
    cr.kernel = sig->name;
    cr.params[kWarpSpecializeOption] = 1;
    llvm::Error e = jit::Compiler(req.cache).inspect(program, cr, [&](mlir::tile::KernelOp k) {
      severalDots = loopWithSeveralDots(k);
      tryWarpSpecialize = warpSpecializeReason(k).empty() && (req.warpSpecialize || severalDots);
      shares = mlir::tile::clusterSkipReason(k, *target).empty();
      return llvm::Error::success();
    });
    if (e) { // the default's own errors surface when it compiles
      llvm::consumeError(std::move(e));
      tryWarpSpecialize = false;
    }
  }
  if (tryWarpSpecialize)
    for (size_t i = 0; i < plain; ++i) {
      Config c = configs[i];
      if (!mayWarpSpecialize(*target, req.aligned, c.get("num_warps", kDefaultNumWarps)))
        continue;
      c.params[kWarpSpecializeOption] = 1;
      configs.push_back(c);
      // The loop's second dot overlapping the next iteration's first and
      // the softmax between them (attention's; tile-rotate-dots), with 3
      // stages or more (the rotated loop releases a slot two iterations
      // after its copy; with 2 the pass leaves the loop as it is). Not
      // ping-pong: measured slower at every attention configuration, rotated
      // or not (docs/BENCHMARKS.md, 2026-12-06); `--param ping-pong=1` tries it.
      if (severalDots && !req.fixed.count(kRotateDotsOption) &&
          c.get("num_stages", kDefaultNumStages) >= 3) {
        Config r = c;
        r.params[kRotateDotsOption] = 1;
        configs.push_back(std::move(r));
      }
      // Persistent too: the producer then loads the next tile's operands
      // while the compute warps store the last one.
      if (!alsoPersistent)
        continue;
      c.params[kPersistentOption] = 1;
      configs.push_back(std::move(c));
    }
  // Thread-block clusters of 2 along axis 0 whose programs share a TMA copy
  // (tile-cluster-programs: a matmul's B): the configurations of 8 warps
  // (the large tiles of large grids, whose operand traffic multicast halves;
  // the tuning time stays bounded), alone or warp-specialized, not split or
  // persistent, of a kernel with such a load. clusterReason prunes the others.
  // Attention's (several dots) only warp-specialized, where K and V are
  // multicast: grouped-query attention gains 4% with them, full attention
  // loses 2-3% (docs/BENCHMARKS.md, 2026-12-07); the search keeps the faster.
  if (shares && !req.fixed.count(kClusterOption))
    for (size_t i = 0, n = configs.size(); i < n; ++i) {
      if (configs[i].get("num_warps", kDefaultNumWarps) != 8 ||
          configs[i].get(kSplitKOption, 1) > 1 || configs[i].get(kPersistentOption, 0) ||
          (severalDots &&
           (!configs[i].get(kWarpSpecializeOption, 0) || configs[i].get(kRotateDotsOption, 0))))
        continue;
      Config c = configs[i];
      c.params[kClusterOption] = 2;
      configs.push_back(std::move(c));
    }
  // TMA-store epilogues: every configuration so far, but split-K ones (their
  // epilogue adds partial sums in place).
  if (req.tmaStore && target->hasTMA() && req.aligned)
    for (size_t i = 0, n = configs.size(); i < n; ++i) {
      if (configs[i].get(kSplitKOption, 1) > 1 || configs[i].get(kTmaStoreOption, 0))
        continue;
      Config c = configs[i];
      c.params[kTmaStoreOption] = 1;
      configs.push_back(std::move(c));
    }
  for (Config &c : configs)
    out.candidates.push_back(Candidate{std::move(c)});
  size_t n = out.candidates.size();
  unsigned threads = req.threads ? req.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = (unsigned)std::min<size_t>(threads, n);
  std::atomic<size_t> next{0}, done{0};
  std::mutex progressMutex;
  auto worker = [&]() {
    jit::Compiler compiler(req.cache); // one MLIR context per worker
    llvm::Error current = req.context ? req.context->makeCurrent() : llvm::Error::success();
    std::string noContext = current ? llvm::toString(std::move(current)) : "";
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      Candidate &c = out.candidates[i];
      jit::CompileRequest cr = req.compileRequest(c.config.params);
      cr.kernel = sig->name;
      if (i != 0) { // the default is never pruned
        llvm::Error e = compiler.inspect(program, cr, [&](mlir::tile::KernelOp k) {
          c.pruned = pruneReason(k, *target);
          if (c.pruned.empty() && c.config.params.count(kSplitKOption))
            c.pruned = splitKReason(k, *sig, cr, *target, req.multiprocessors);
          if (c.pruned.empty())
            c.pruned = warpSpecializeReason(k);
          if (c.pruned.empty())
            c.pruned = persistentReason(k);
          if (c.pruned.empty())
            c.pruned = clusterReason(k, *sig, cr, *target);
          return llvm::Error::success();
        });
        // A configuration the frontend refuses (a tile past the register
        // limit at these sizes, say) is not legal here: pruned, with the reason.
        if (e) {
          std::string why = llvm::toString(std::move(e));
          c.pruned = why.substr(0, why.find('\n'));
        }
      }
      if (c.pruned.empty() && c.failed.empty()) {
        auto ck = compiler.compile(program, cr);
        if (!ck) {
          c.failed = llvm::toString(ck.takeError());
        } else {
          c.key = ck->key;
          c.ptxHash = jit::sha256Hex(ck->ptx);
          c.sharedBytes = ck->sharedBytes;
          if (req.driverJit && !noContext.empty()) {
            c.failed = noContext;
          } else if (req.driverJit) {
            // The assembler Runtime::launch uses; its cubin goes to the cache.
            if (auto cubin = jit::assembleCubin(*ck, req.arch, req.cache); !cubin)
              c.failed = llvm::toString(cubin.takeError());
          } else {
            std::string log;
            auto cubin = target::compileCubin(ck->ptx, req.arch, &log);
            if (!cubin) {
              c.failed = llvm::toString(cubin.takeError());
            } else {
              target::PtxasReport r = target::parsePtxasLog(log);
              c.registers = r.registers;
              c.spillBytes = r.spillStores;
              c.sharedBytes += staticSmemOf(log);
            }
          }
          c.compiled = c.failed.empty();
          c.compileMs = ck->compileMs;
        }
      }
      std::lock_guard<std::mutex> lock(progressMutex);
      size_t d = ++done;
      if (progress)
        progress(d, n, c);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (auto &t : pool)
    t.join();
  // Identical PTX: one timing serves both.
  for (size_t i = 0; i < n; ++i) {
    Candidate &c = out.candidates[i];
    for (size_t j = 0; j < i && c.compiled; ++j)
      if (out.candidates[j].compiled && out.candidates[j].ptxHash == c.ptxHash) {
        c.duplicateOf = (int)j;
        break;
      }
    out.compiled += c.compiled;
    out.pruned += !c.pruned.empty();
    out.failed += !c.failed.empty();
  }
  out.seconds = secondsSince(t0);
  return out;
}

//===----------------------------------------------------------------------===//
// Timing on the GPU
//===----------------------------------------------------------------------===//
