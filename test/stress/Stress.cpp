//===- Stress.cpp - tessera-stress: processes sharing a cache, some killed --===//
//
// Starts N worker processes (this binary with --worker) that share one kernel
// cache directory and one tuning database, and kills some of them (SIGKILL) at
// random moments while they compile and store. Each worker loops over an
// overlapping set of specializations of the examples (distinct tune values,
// so that entries keep being written), compiling through the shared cache;
// every entry it gets from the cache must be byte-identical to what it
// compiles itself without one (a corrupt entry used is a failure). It also
// stores tuning entries of its own and logs each stored key once the store
// has returned, and looks them up again. At the end the parent checks that
// every surviving worker finished cleanly, that the database parses and holds
// every logged key (killed workers' included: nothing stored is lost), and
// that every cache entry still present loads and matches a fresh compile.
// With --gpu each worker also launches what it compiles through a Runtime
// on the same cache directory and tuning database (which then also holds the
// driver's cubins): vector_add checked exactly against x + y, softmax rows
// checked to sum to 1. One summary line; exit status 1 on any failure.
//
//   tessera-stress --processes 16 --kills 4 --seconds 30 [--gpu]
//
//===----------------------------------------------------------------------===//
#include "runtime/autotune/TuneDB.h"
#include "runtime/jit/Compiler.h"
#include "runtime/jit/DiskCache.h"
#include "runtime/jit/Runtime.h"
#include "test/gpu/GpuUtil.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <random>
#include <set>
#include <sys/wait.h>
#include <thread>

using namespace tessera;

namespace {

struct Spec {
  std::string file, kernel;
  std::map<std::string, int64_t> dims, params;
};

/// The specializations every worker compiles (in its own order): the
/// examples at a few sizes and tune values.
std::vector<Spec> specs(const std::string &src) {
  std::vector<Spec> out;
  for (int64_t block : {512, 1024, 2048})
    for (int64_t warps : {4, 8})
      out.push_back({src + "/examples/vector_add.tile",
                     "vector_add",
                     {{"N", 100000}},
                     {{"BLOCK", block}, {"num_warps", warps}}});
  for (int64_t n : {100, 1000, 4096})
    for (int64_t warps : {4, 8, 16})
      out.push_back(
          {src + "/examples/softmax.tile", "", {{"M", 64}, {"N", n}}, {{"num_warps", warps}}});
  for (int64_t bk : {32, 64})
    out.push_back(
        {src + "/examples/matmul.tile", "", {{"M", 512}, {"N", 512}, {"K", 512}}, {{"BK", bk}}});
  return out;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A worker's GPU side: launches vector_add and softmax specializations through
/// a runtime on the shared directory and checks their outputs.
class GpuCheck {
public:
  static llvm::Expected<std::unique_ptr<GpuCheck>> create(const std::string &dir, int id) {
    jit::RuntimeOptions ro;
    ro.cacheDir = dir + "/cache";
    ro.tuningDB = dir + "/tuning.json";
    auto rt = jit::Runtime::create(ro);
    if (!rt)
      return rt.takeError();
    auto g = std::unique_ptr<GpuCheck>(new GpuCheck);
    g->rt = std::move(*rt);
    g->rng.seed(id * 31 + 7);
    return std::move(g);
  }
  /// Launches `spec` (vector_add or softmax; others are skipped) and checks it:
  /// "" or what is wrong.
  std::string launch(const jit::Program &prog, const Spec &spec, bool *ran) {
    *ran = false;
    bool add = spec.file.find("vector_add") != std::string::npos;
    bool softmax = spec.file.find("softmax") != std::string::npos;
    if (!add && !softmax)
      return "";
    int64_t rows = add ? 1 : spec.dims.at("M"), cols = spec.dims.at("N");
    std::vector<int64_t> shape =
        add ? std::vector<int64_t>{cols} : std::vector<int64_t>{rows, cols};
    testutil::HostTensor hx = testutil::HostTensor(DType::F32, shape).random(rng, -4, 4);
    testutil::HostTensor hy = testutil::HostTensor(DType::F32, shape).random(rng, -4, 4);
    auto x = gputest::DeviceTensor::upload(hx);
    if (!x)
      return llvm::toString(x.takeError());
    auto y = gputest::DeviceTensor::upload(hy);
    if (!y)
      return llvm::toString(y.takeError());
    auto z = gputest::DeviceTensor::poisoned(DType::F32, shape); // NaN: unwritten shows
    if (!z)
      return llvm::toString(z.takeError());
    std::vector<jit::Arg> args = {x->arg()};
    if (add)
      args.push_back(y->arg());
    args.push_back(z->arg());
    jit::LaunchOptions lo;
    lo.params = spec.params;
    auto info = rt->launch(prog, spec.kernel, args, lo);
    if (!info)
      return llvm::toString(info.takeError());
    auto out = z->download(); // synchronous
    if (!out)
      return llvm::toString(out.takeError());
    *ran = true;
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        size_t i = r * cols + c;
        if (add && out->v[i] != (double)((float)hx.v[i] + (float)hy.v[i]))
          return "vector_add: element " + std::to_string(i) + " is wrong";
        sum += out->v[i];
      }
      if (softmax && !(std::fabs(sum - 1) < 1e-4))
        return "softmax: row " + std::to_string(r) + " sums to " + std::to_string(sum);
    }
    return "";
  }

private:
  GpuCheck() = default;
  std::unique_ptr<jit::Runtime> rt;
  std::mt19937 rng;
};

/// One worker: returns its exit status (0 clean, 3 a corrupt entry was used,
/// 4 another failure), printing counts on stdout.
int worker(int id, const std::string &dir, const std::string &src, double seconds, bool gpu) {
  std::unique_ptr<GpuCheck> device;
  if (gpu) {
    auto g = GpuCheck::create(dir, id);
    if (!g)
      return llvm::errs() << "worker " << id << ": " << llvm::toString(g.takeError()) << "\n", 4;
    device = std::move(*g);
  }
  int64_t launches = 0;
  jit::DiskCache cache(dir + "/cache");
  jit::Compiler cached(&cache), fresh(nullptr);
  autotune::TuneDB db(dir + "/tuning.json");
  std::vector<Spec> all = specs(src);
  std::map<std::string, std::shared_ptr<jit::Program>> programs;
  std::map<size_t, std::string> reference; // spec -> PTX compiled without the cache
  std::error_code ec;
  llvm::raw_fd_ostream log(dir + "/worker-" + std::to_string(id) + ".stored", ec,
                           llvm::sys::fs::OF_Append);
  if (ec)
    return llvm::errs() << "worker " << id << ": " << ec.message() << "\n", 4;
  std::mt19937 rng(id * 7919 + 1);
  auto t0 = std::chrono::steady_clock::now();
  int64_t compiles = 0, hits = 0, stores = 0, lookups = 0;
  std::vector<autotune::TuneKey> mine;
  for (int64_t round = 0; since(t0) < seconds; ++round) {
    size_t s = (size_t)(rng() % all.size());
    const Spec &spec = all[s];
    auto &prog = programs[spec.file];
    if (!prog) {
      auto p = jit::Program::fromFile(spec.file);
      if (!p)
        return llvm::errs() << llvm::toString(p.takeError()) << "\n", 4;
      prog = *p;
    }
    jit::CompileRequest req;
    req.kernel = spec.kernel;
    req.dims = spec.dims;
    req.params = spec.params;
    auto ck = cached.compile(*prog, req);
    if (!ck)
      return llvm::errs() << "worker " << id << ": " << llvm::toString(ck.takeError()) << "\n", 4;
    ++compiles;
    if (ck->fromDisk) {
      ++hits;
      if (!reference.count(s)) {
        auto ref = fresh.compile(*prog, req);
        if (!ref)
          return llvm::errs() << llvm::toString(ref.takeError()) << "\n", 4;
        reference[s] = ref->ptx;
      }
      if (ck->ptx != reference[s]) {
        llvm::errs() << "worker " << id << ": a cache entry (key " << ck->key
                     << ") differs from a fresh compile\n";
        return 3;
      }
    }
    if (device) {
      bool ran = false;
      std::string bad = device->launch(*prog, spec, &ran);
      if (!bad.empty())
        return llvm::errs() << "worker " << id << ": GPU: " << bad << "\n", 3;
      launches += ran;
    }
    // A tuning entry of this worker's own, logged once stored.
    autotune::TuneEntry e;
    e.key.kernel = "stress";
    e.key.irHash = std::to_string(id);
    e.key.bucket = "round=" + std::to_string(round);
    e.key.arch = "sm_90a";
    e.params = {{"round", round}};
    if (llvm::Error err = db.store(e))
      return llvm::errs() << "worker " << id << ": " << llvm::toString(std::move(err)) << "\n", 4;
    ++stores;
    log << e.key.hash() << "\n";
    log.flush();
    mine.push_back(e.key);
    const autotune::TuneKey &back = mine[rng() % mine.size()];
    auto found = db.lookup(back);
    if (!found)
      return llvm::errs() << "worker " << id << ": " << llvm::toString(found.takeError()) << "\n",
             4;
    if (!*found) {
      llvm::errs() << "worker " << id << ": a stored tuning entry is missing\n";
      return 4;
    }
    ++lookups;
  }
  llvm::outs() << "worker " << id << ": " << compiles << " compiles, " << hits
               << " from the shared cache, " << stores << " tuning stores, " << lookups
               << " lookups, " << launches << " GPU launches checked\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int processes = 16, kills = 4, workerId = -1;
  double seconds = 30;
  bool gpu = false;
  std::string dir, src = TESSERA_SOURCE_DIR;
  CLI::App app{"tessera-stress: processes sharing a kernel cache and a tuning database"};
  app.add_option("--processes", processes, "Worker processes");
  app.add_option("--kills", kills, "Workers killed (SIGKILL) at random moments");
  app.add_option("--seconds", seconds, "How long each worker runs");
  app.add_option("--dir", dir, "The shared directory (default: a new temporary one)");
  app.add_option("--source-dir", src, "Where examples/ is");
  app.add_option("--worker", workerId, "(internal) run as worker N");
  app.add_flag("--gpu", gpu, "Workers also launch on the GPU and check the outputs");
  CLI11_PARSE(app, argc, argv);
  if (workerId >= 0)
    return worker(workerId, dir, src, seconds, gpu);

  bool ownDir = dir.empty();
  if (dir.empty()) {
    llvm::SmallString<128> d;
    if (llvm::sys::fs::createUniqueDirectory("tessera-stress", d))
      return llvm::errs() << "tessera-stress: cannot create a directory\n", 2;
    dir = std::string(d);
  }
  std::string self = llvm::sys::fs::getMainExecutable(argv[0], (void *)&main);
  std::vector<llvm::sys::ProcessInfo> procs;
  for (int i = 0; i < processes; ++i) {
    std::vector<std::string> args = {self, "--worker",  std::to_string(i),       "--dir",
                                     dir,  "--seconds", std::to_string(seconds), "--source-dir",
                                     src};
    if (gpu)
      args.push_back("--gpu");
    std::vector<llvm::StringRef> argv2(args.begin(), args.end());
    std::string out = dir + "/worker-" + std::to_string(i) + ".out";
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out),
                                                  llvm::StringRef(out)};
    std::string err;
    procs.push_back(llvm::sys::ExecuteNoWait(self, argv2, std::nullopt, redirects, 0, &err));
    if (!procs.back().Pid)
      return llvm::errs() << "tessera-stress: " << err << "\n", 2;
  }
  // Kill `kills` workers at random moments of their run.
  std::mt19937 rng(12345);
  std::vector<int> victims(processes);
  for (int i = 0; i < processes; ++i)
    victims[i] = i;
  std::shuffle(victims.begin(), victims.end(), rng);
  std::vector<std::pair<double, int>> plan;
  for (int i = 0; i < kills && i < processes; ++i)
    plan.push_back({seconds * (0.1 + 0.8 * (rng() % 1000) / 1000.0), victims[i]});
  std::sort(plan.begin(), plan.end());
  std::set<int> killed;
  auto t0 = std::chrono::steady_clock::now();
  for (auto [at, who] : plan) {
    while (since(t0) < at)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (killed.insert(who).second)
      ::kill(procs[who].Pid, SIGKILL);
  }
  int failed = 0, finished = 0;
  int64_t compiles = 0, hits = 0, launches = 0;
  for (int i = 0; i < processes; ++i) {
    std::string err;
    llvm::sys::ProcessInfo r = llvm::sys::Wait(procs[i], std::nullopt, &err);
    bool wasKilled = killed.count(i) && r.ReturnCode != 0;
    if (wasKilled)
      continue;
    if (r.ReturnCode != 0) {
      ++failed;
      auto out = llvm::MemoryBuffer::getFile(dir + "/worker-" + std::to_string(i) + ".out");
      llvm::errs() << "worker " << i << " exited with " << r.ReturnCode << ": "
                   << (out ? (*out)->getBuffer() : "") << "\n";
    } else {
      ++finished;
      // "worker I: C compiles, H from the shared cache, ..."
      if (auto out = llvm::MemoryBuffer::getFile(dir + "/worker-" + std::to_string(i) + ".out")) {
        llvm::StringRef line = (*out)->getBuffer();
        line = line.drop_until([](char c) { return c == ':'; }).drop_front(2);
        int64_t c = 0, h = 0;
        line.consumeInteger(10, c);
        line = line.drop_until([](char c) { return c == ','; }).drop_front(2);
        line.consumeInteger(10, h);
        compiles += c;
        hits += h;
        // "..., L GPU launches checked"
        size_t at = line.find(" GPU launches");
        size_t start = line.find_last_of(' ', at == llvm::StringRef::npos ? 0 : at - 1);
        int64_t l = 0;
        if (at != llvm::StringRef::npos && start != llvm::StringRef::npos &&
            !line.slice(start + 1, at).getAsInteger(10, l))
          launches += l;
      }
    }
  }
  // Nothing stored is lost: every logged key is in the database.
  autotune::TuneDB db(dir + "/tuning.json");
  auto entries = db.entries();
  int64_t logged = 0, missing = 0;
  if (!entries) {
    ++failed;
    llvm::errs() << "the tuning database does not parse: " << llvm::toString(entries.takeError())
                 << "\n";
  } else {
    std::set<std::string> have;
    for (const autotune::TuneEntry &e : *entries)
      have.insert(e.key.hash());
    for (int i = 0; i < processes; ++i) {
      auto log = llvm::MemoryBuffer::getFile(dir + "/worker-" + std::to_string(i) + ".stored");
      if (!log)
        continue;
      llvm::SmallVector<llvm::StringRef> lines;
      (*log)->getBuffer().split(lines, '\n', -1, false);
      for (llvm::StringRef h : lines) {
        ++logged;
        missing += !have.count(h.str());
      }
    }
    failed += missing > 0;
  }
  // Every cache entry left loads and matches a fresh compile.
  jit::DiskCache cache(dir + "/cache");
  jit::Compiler fresh(nullptr);
  int64_t checked = 0, bad = 0;
  for (const Spec &spec : specs(src)) {
    auto prog = jit::Program::fromFile(spec.file);
    if (!prog)
      return llvm::errs() << llvm::toString(prog.takeError()) << "\n", 1;
    jit::CompileRequest req;
    req.kernel = spec.kernel;
    req.dims = spec.dims;
    req.params = spec.params;
    auto ref = fresh.compile(**prog, req);
    if (!ref)
      return llvm::errs() << llvm::toString(ref.takeError()) << "\n", 1;
    if (std::optional<jit::CacheEntry> e = cache.load(ref->key)) {
      ++checked;
      bad += e->ptx != ref->ptx;
    }
  }
  failed += bad > 0;
  int temps = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir + "/cache", ec), end; it != end && !ec;
       it.increment(ec))
    temps += llvm::StringRef(it->path()).contains(".tmp");
  llvm::outs() << "stress: " << processes << " processes, " << killed.size() << " killed, "
               << finished << " finished, " << failed << " failed; the finished ones compiled "
               << compiles << " times (" << hits << " from the shared cache, each equal to a "
               << "fresh compile)"
               << (gpu ? " and checked " + std::to_string(launches) + " GPU launches" : "") << "; "
               << logged << " tuning entries logged, " << missing << " missing; " << checked
               << " cache entries checked, " << bad << " wrong; " << temps
               << " temporary files left by killed writers" << (failed ? " (" + dir + ")" : "")
               << "\n";
  if (!failed && ownDir)
    llvm::sys::fs::remove_directories(dir); // kept for a look when something failed
  return failed ? 1 : 0;
}
