//===- Tune.cpp - tessera tune ----------------------------------*- C++ -*-===//
//
// `tessera tune FILE [--kernel K] --dim NAME=V... [--scalar NAME=V]...
// [--arg NAME=PATH.npy]... [--compile-only] [--budget S] [--threads N]
// [--flops F] [--db PATH]`:
// enumerates the kernel's configurations, prunes them (each with its reason),
// compiles the rest in parallel, and without a GPU (--compile-only) reports
// ptxas's registers, spills and shared memory per configuration and ends with
// `N configs: C compiled, P pruned, F failed in S s`. With a GPU it times
// every compiled configuration (autotune/Tuner.h), prints a table and the
// winner, and stores the winner in the tuning database, which launches of the
// kernel at these sizes on this GPU then use.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"

#include "runtime/autotune/Tuner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <set>
#include <unistd.h>

using namespace tessera;
using namespace tessera::autotune;

namespace {

int fail(const llvm::Twine &msg) { return failWith(msg); }
int report(llvm::Error e) { return reportError(std::move(e)); }

/// A progress bar on stderr when it is a terminal; with `lines`, otherwise one
/// line per configuration as it finishes (a log then shows how far a search
/// got, should a configuration never return).
Progress progressBar(const char *what, bool lines = false) {
  bool tty = isatty(2);
  return [tty, what, lines](size_t done, size_t total, const Candidate &c) {
    if (!tty) {
      if (lines) {
        llvm::errs() << what << " " << done << "/" << total << " " << c.config.text() << "\n";
        llvm::errs().flush();
      }
      return;
    }
    int width = 30, filled = (int)(width * done / std::max<size_t>(total, 1));
    llvm::errs() << "\r" << what << " [" << std::string(filled, '#')
                 << std::string(width - filled, '.') << "] " << done << "/" << total
                 << (done == total ? "\n" : "");
    llvm::errs().flush();
  };
}

std::string firstLine(const std::string &s) {
  std::string t = s.substr(0, s.find('\n'));
  return t.size() > 110 ? t.substr(0, 107) + "..." : t;
}

std::string status(const Candidate &c, const std::vector<Candidate> &all) {
  if (!c.pruned.empty())
    return "pruned: " + c.pruned;
  if (!c.failed.empty())
    return "FAILED: " + firstLine(c.failed);
  if (c.duplicateOf >= 0)
    return "same PTX as #" + std::to_string(c.duplicateOf) + " (" +
           all[c.duplicateOf].config.text() + ")";
  if (!c.abandoned.empty())
    return c.abandoned;
  return "ok";
}

} // namespace

int tessera::runTune(const TuneOptions &opts) {
  if (!checkArch(opts.arch))
    return 1;
  std::map<std::string, double> dimsIn, scalars;
  std::map<std::string, NpyArray> given;
  if (!parseNumberItems(opts.dims, "--dim", dimsIn) ||
      !parseNumberItems(opts.scalars, "--scalar", scalars) ||
      !parseNpyItems(opts.args, "--arg", given))
    return 1;
  auto program = jit::Program::fromFile(opts.input);
  if (!program)
    return report(program.takeError());
  auto sig = (*program)->kernel(opts.kernel);
  if (!sig)
    return report(sig.takeError());
  TuneRequest req;
  req.kernel = sig->name;
  req.threads = opts.threads;
  req.warpSpecialize = opts.warpSpecialize;
  req.tmaStore = opts.tmaStore;
  if (!parseIntegerItems(opts.params, "--param", req.fixed))
    return 1;
  // Dims: every named dim; integer and bool scalars join them (they may specialize).
  std::set<std::string> named;
  for (const jit::ParamInfo &p : sig->params) {
    for (const std::string &d : p.dims)
      if (!d.empty())
        named.insert(d);
    if (!p.isTensor && (isInt(p.dtype) || p.dtype == DType::Bool) && scalars.count(p.name))
      req.dims[p.name] = (int64_t)scalars[p.name];
  }
  for (auto &[n, v] : dimsIn) {
    if (!named.count(n))
      return fail("--dim " + n + ": kernel '" + sig->name + "' has no dimension '" + n + "'");
    if (v < 1 || v != (double)(int64_t)v)
      return fail("--dim " + n + " must be a positive integer");
    req.dims[n] = (int64_t)v;
    req.index64 |= v > INT32_MAX; // what a launch of these sizes compiles
  }
  std::string assumed;
  for (const std::string &n : named)
    if (!req.dims.count(n)) {
      if (!opts.compileOnly)
        return fail("dim '" + n + "' needs a size: --dim " + n + "=V");
      req.dims[n] = 128;
      assumed += " " + n + "=128";
    }
  if (!assumed.empty())
    llvm::errs() << "tessera: note: assuming" << assumed << " (not given with --dim)\n";
  if (llvm::Error e = checkGiven(*sig, req.dims, given))
    return fail("--arg: " + llvm::toString(std::move(e)));

  if (opts.compileOnly) {
    req.arch = opts.arch.empty() ? target::TargetInfo::kDefaultArch.str() : opts.arch;
    auto sum = compileAll(**program, req, progressBar("compiling"));
    if (!sum)
      return report(sum.takeError());
    llvm::outs() << llvm::format("%-3s %-52s %5s %7s %8s %8s  %s\n", "#", "configuration", "regs",
                                 "spills", "smem", "ms", "status");
    for (auto [i, c] : llvm::enumerate(sum->candidates)) {
      bool built = c.compiled;
      llvm::outs() << llvm::format("%-3zu %-52s ", i, c.config.text().c_str());
      if (built)
        llvm::outs() << llvm::format("%5d %7d %8lld %8.0f", c.registers, c.spillBytes,
                                     (long long)c.sharedBytes, c.compileMs);
      else
        llvm::outs() << llvm::format("%5s %7s %8s %8s", "-", "-", "-", "-");
      llvm::outs() << "  " << status(c, sum->candidates) << "\n";
    }
    size_t n = sum->candidates.size();
    llvm::outs() << llvm::format("%zu configs: %d compiled, %d pruned, %d failed in %.2f s\n", n,
                                 sum->compiled, sum->pruned, sum->failed, sum->seconds);
    return sum->failed ? 1 : 0;
  }

  // On the GPU.
  jit::RuntimeOptions ro;
  if (!opts.db.empty())
    ro.tuningDB = opts.db;
  ro.arch = opts.arch;
  auto rt = jit::Runtime::create(ro);
  if (!rt)
    return report(rt.takeError());
  auto metric = [&](double ms) -> std::string {
    if (opts.flops > 0)
      return llvm::formatv("{0:F1} TFLOP/s", opts.flops / ms / 1e9).str();
    if (opts.bytes > 0)
      return llvm::formatv("{0:F2} TB/s", opts.bytes / ms / 1e9).str();
    return "";
  };
  TimingOptions to;
  to.scalars = scalars;
  to.given = std::move(given);
  to.budgetSeconds = opts.budget;
  auto outcome = tuneOnGpu(**rt, **program, req, to, opts.noSave ? "off" : opts.db, metric,
                           progressBar("compiling"), progressBar("timed", /*lines=*/true));
  if (!outcome)
    return report(outcome.takeError());
  auto *sum = &outcome->compiled;
  auto *timing = &outcome->timing;
  llvm::errs() << llvm::format(
      "compiled %d of %zu configurations in %.2f s (%d pruned, %d failed)\n", sum->compiled,
      sum->candidates.size(), sum->seconds, sum->pruned, sum->failed);
  llvm::outs() << llvm::format(
      "%-3s %-52s %9s %9s %9s %14s %5s %7s %7s  %s\n", "#", "configuration", "median ms", "min",
      "max", opts.flops > 0 ? "TFLOP/s" : "TB/s", "regs", "spills", "smem", "status");
  for (auto [i, c] : llvm::enumerate(sum->candidates)) {
    llvm::outs() << llvm::format("%-3zu %-52s ", i, c.config.text().c_str());
    if (c.timed)
      llvm::outs() << llvm::format("%9.4f %9.4f %9.4f %14s %5d %7d %7lld", c.ms, c.minMs, c.maxMs,
                                   metric(c.ms).c_str(), c.registers, c.spillBytes,
                                   (long long)c.sharedBytes);
    else
      llvm::outs() << llvm::format("%9s %9s %9s %14s %5s %7s %7s", "-", "-", "-", "-", "-", "-",
                                   "-");
    llvm::outs() << "  " << status(c, sum->candidates) << "\n";
  }
  if (timing->tied)
    return fail(llvm::formatv("the configurations' outputs disagree: {0} groups of agreeing "
                              "configurations, none larger than the others, so none is taken "
                              "as right (the table shows them against #{1}'s)",
                              timing->groups, timing->checkedAgainst)
                    .str());
  if (timing->best < 0)
    return fail("no configuration ran correctly");
  const Candidate &w = sum->candidates[timing->best];
  // What the winner's outputs were compared with: a configuration that ran
  // alone was checked against nothing (its outputs are the reference).
  std::string checked;
  if (timing->agreed + timing->disagreed == 0)
    checked = "outputs not checked (no other configuration ran to compare with)";
  else if (timing->best != timing->checkedAgainst)
    checked = llvm::formatv("outputs checked against #{0} ({1} other configuration(s) agreed, "
                            "{2} did not)",
                            timing->checkedAgainst, timing->agreed, timing->disagreed)
                  .str();
  else
    checked = llvm::formatv("its outputs the reference: {0} other configuration(s) agreed, {1} "
                            "did not",
                            timing->agreed, timing->disagreed)
                  .str();
  llvm::outs() << llvm::format("winner: #%d %s: %.4f ms", timing->best, w.config.text().c_str(),
                               w.ms)
               << (metric(w.ms).empty() ? "" : " (" + metric(w.ms) + ")") << "; " << checked
               << llvm::format("; search %.1f s (compile %.1f s, timing %.1f s)\n",
                               sum->seconds + timing->seconds, sum->seconds, timing->seconds);
  if (outcome->saved)
    llvm::outs() << "saved to " << outcome->dbPath << " (key " << outcome->saved->key.hash()
                 << ")\n";
  return 0;
}
