//===- DiffTest.cpp - tessera-difftest: random programs, every executor ---===//
//
// Generates programs from consecutive seeds and checks each (Check.h): code
// generation and ptxas for every architecture, the interpreter, the padded
// interpreter, and the GPU with --gpu. A failing program is reduced
// (Reduce.h) while it fails at the same stage, printed, and saved with --save.
// Prints per-feature counts and one summary line; exits 1 on any failure.
//
//   tessera-difftest --seconds 60                  # CPU: codegen, ptxas, interpreters
//   tessera-difftest --gpu --programs 2000 --save test/difftest/regressions
//   tessera-difftest --replay test/difftest/regressions/*.tile
//   tessera-difftest --print 42                    # the program of seed 42
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Check.h"
#include "test/difftest/Generator.h"
#include "test/difftest/Reduce.h"

#include "runtime/jit/Compiler.h"
#include "runtime/jit/Runtime.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <chrono>

using namespace tessera;
using namespace tessera::difftest;

namespace {

struct Options {
  int64_t programs = 0;
  double seconds = 0;
  uint64_t seed = 1;
  bool gpu = false;
  std::string archs = "sm_90a,sm_80";
  bool noPtxas = false;
  std::string saveDir;
  std::vector<std::string> replay;
  int64_t print = -1;
  int reduceTries = 400;
  double reduceSeconds = 60;
  bool stopOnFailure = false;
  int64_t index64Every = 4;
};

/// For the crash handler: what was being checked.
std::string gCurrent;

void onCrash(void *) {
  if (!gCurrent.empty())
    llvm::errs() << "\ntessera-difftest crashed while checking:\n" << gCurrent << "\n";
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int replay(const Options &opt, const CheckOptions &co, jit::Compiler &compiler) {
  int failed = 0;
  for (const std::string &path : opt.replay) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      llvm::errs() << path << ": " << buf.getError().message() << "\n";
      ++failed;
      continue;
    }
    auto p = parseRegression((*buf)->getBuffer());
    if (!p) {
      llvm::errs() << path << ": " << llvm::toString(p.takeError()) << "\n";
      ++failed;
      continue;
    }
    gCurrent = path;
    Outcome o = checkProgram(*p, co, compiler);
    bool ok = o.kind == Outcome::Kind::Pass;
    failed += !ok;
    llvm::outs() << (ok ? "PASS " : "FAIL ") << path;
    if (!ok)
      llvm::outs() << ": " << kindName(o.kind) << " (" << o.stage << "): " << o.detail;
    llvm::outs() << "\n";
  }
  llvm::outs() << "difftest replay: " << opt.replay.size() << " regressions, " << failed
               << " failed\n";
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  llvm::sys::AddSignalHandler(onCrash, nullptr);
  Options opt;
  CLI::App app{"tessera-difftest: random tile programs, checked on every executor"};
  app.add_option("--programs", opt.programs, "Programs to check (0: until --seconds)");
  app.add_option("--seconds", opt.seconds, "Stop starting programs after this long");
  app.add_option("--seed", opt.seed, "The first program's seed (then seed+1, ...)");
  app.add_flag("--gpu", opt.gpu, "Also run every program on the GPU against the interpreter");
  app.add_option("--arch", opt.archs, "Architectures to compile and assemble for (comma list)");
  app.add_flag("--no-ptxas", opt.noPtxas, "Do not assemble the PTX");
  app.add_option("--save", opt.saveDir, "Write each reduced failing program here");
  app.add_option("--replay", opt.replay, "Check saved regressions instead of generating");
  app.add_option("--print", opt.print, "Print the program of this seed and exit");
  app.add_option("--reduce-tries", opt.reduceTries, "Predicate calls per reduction");
  app.add_option("--reduce-seconds", opt.reduceSeconds, "Time per reduction");
  app.add_flag("--stop-on-failure", opt.stopOnFailure, "Stop at the first failing program");
  app.add_option("--index64-every", opt.index64Every,
                 "Also check the 64-bit size class for every Nth program (0: never; replays: all)");
  CLI11_PARSE(app, argc, argv);

  if (opt.print >= 0) {
    llvm::outs() << generate((uint64_t)opt.print).source();
    return 0;
  }
  CheckOptions co;
  co.archs.clear();
  llvm::SmallVector<llvm::StringRef> archs;
  llvm::StringRef(opt.archs).split(archs, ',', -1, false);
  for (llvm::StringRef a : archs)
    co.archs.push_back(a.str());
  co.ptxas = !opt.noPtxas;
  std::unique_ptr<jit::Runtime> rt, rt64;
  if (opt.gpu) {
    for (bool index64 : {false, true}) {
      jit::RuntimeOptions ro;
      ro.cacheDir = "off";
      ro.tuningDB = "off";
      ro.index64 = index64; // the second runtime launches the 64-bit size class
      auto r = jit::Runtime::create(ro);
      if (!r) {
        llvm::errs() << "tessera-difftest: --gpu: " << llvm::toString(r.takeError()) << "\n";
        return 2;
      }
      (index64 ? rt64 : rt) = std::move(*r);
    }
    co.gpu = rt.get();
    co.gpu64 = rt64.get();
  }
  jit::Compiler compiler;
  if (!opt.replay.empty()) {
    co.index64 = opt.index64Every > 0;
    return replay(opt, co, compiler);
  }
  if (opt.programs <= 0 && opt.seconds <= 0)
    opt.programs = 100;

  auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, int> features;
  int64_t n = 0, compiled = 0, assembled = 0, interpreted = 0, padded = 0, gpuRuns = 0;
  int64_t index64Runs = 0, index64Rejected = 0;
  std::map<std::string, int> failures; // by kind
  int64_t firstFailure = -1;
  for (; (opt.programs <= 0 || n < opt.programs) &&
         (opt.seconds <= 0 || secondsSince(t0) < opt.seconds);
       ++n) {
    uint64_t seed = opt.seed + (uint64_t)n;
    Program p = generate(seed);
    gCurrent = p.source();
    for (const std::string &f : p.features)
      ++features[f];
    co.index64 = opt.index64Every > 0 && seed % (uint64_t)opt.index64Every == 0;
    Outcome o = checkProgram(p, co, compiler);
    index64Runs += o.index64Ran;
    index64Rejected += o.index64Rejected;
    compiled += o.compiled;
    assembled += o.assembled;
    interpreted += o.interpreted;
    padded += o.paddedRuns;
    gpuRuns += o.gpuRuns;
    if (o.kind == Outcome::Kind::Pass)
      continue;
    ++failures[kindName(o.kind)];
    if (firstFailure < 0)
      firstFailure = n + 1;
    llvm::outs() << "FAIL seed " << seed << " (program " << n + 1 << "): " << kindName(o.kind)
                 << " (" << o.stage << "): " << o.detail << "\n";
    llvm::outs().flush(); // seen even if the run is stopped while reducing
    // Reduce while it fails the same way, at the same stage.
    ReduceStats st;
    auto reduceStart = std::chrono::steady_clock::now();
    Program small = reduceProgram(
        p,
        [&](const Program &c) {
          if (secondsSince(reduceStart) > opt.reduceSeconds)
            return false; // out of time: keep what we have
          gCurrent = c.source();
          Outcome r = checkProgram(c, co, compiler);
          return r.kind == o.kind && r.stage == o.stage;
        },
        opt.reduceTries, &st);
    Outcome again = checkProgram(small, co, compiler);
    llvm::outs() << "reduced from " << st.statementsBefore << " to " << st.statementsAfter
                 << " statements in " << st.tries << " tries:\n"
                 << regressionText(small, again) << "\n";
    if (!opt.saveDir.empty()) {
      llvm::sys::fs::create_directories(opt.saveDir);
      llvm::SmallString<128> path(opt.saveDir);
      llvm::sys::path::append(path, "seed-" + std::to_string(seed) + ".tile");
      std::error_code ec;
      llvm::raw_fd_ostream f(path, ec);
      if (!ec) {
        f << regressionText(small, again);
        llvm::outs() << "saved " << path << "\n";
      } else {
        llvm::errs() << "cannot write " << path << ": " << ec.message() << "\n";
      }
    }
    if (opt.stopOnFailure) {
      ++n;
      break;
    }
  }
  gCurrent.clear();

  llvm::outs() << "features:";
  for (auto &[f, c] : features)
    llvm::outs() << " " << f << "=" << c;
  llvm::outs() << "\n";
  int64_t failed = 0;
  std::string kinds;
  for (auto &[k, c] : failures) {
    failed += c;
    kinds += " " + k + "=" + std::to_string(c);
  }
  llvm::outs() << llvm::format("difftest: %lld programs from seed %llu in %.1f s: ", (long long)n,
                               (unsigned long long)opt.seed, secondsSince(t0))
               << compiled << " compiled (" << opt.archs << "), " << assembled << " ptxas-clean, "
               << interpreted << " interpreted, " << padded << " padded runs compared, " << gpuRuns
               << " GPU runs compared, " << index64Runs << " checked in the 64-bit size class ("
               << index64Rejected << " rejected there as they may); " << failed << " failed"
               << (kinds.empty() ? "" : " (" + kinds.substr(1) + ")");
  if (firstFailure > 0)
    llvm::outs() << "; first failure at program " << firstFailure;
  llvm::outs() << "\n";
  return failed ? 1 : 0;
}
