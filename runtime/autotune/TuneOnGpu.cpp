//===- TuneOnGpu.cpp - a whole search on a runtime's GPU --------*- C++ -*-===//
//
// tuneOnGpu (Tuner.h): what `tessera tune` and the C API's tessera_tune run.
// The request is completed from the runtime (its arch, driver, disk cache and
// context, so the candidates load through the driver's JIT as launches do),
// every configuration is compiled (compileAll) and timed with checked outputs
// (timeAll), and the winner goes into the tuning database under the runtime's
// GPU, the key a later launch of the same sizes looks up (TuneDB.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/autotune/Tuner.h"

#include "runtime/cuda/Driver.h"

#include <ctime>

using namespace tessera;
using namespace tessera::autotune;

llvm::Expected<TuneOutcome>
tessera::autotune::tuneOnGpu(jit::Runtime &rt, const jit::Program &program, TuneRequest req,
                             const TimingOptions &opts, const std::string &dbPath,
                             const std::function<std::string(double)> &metric,
                             const Progress &compiling, const Progress &timing) {
  req.arch = rt.arch();
  auto d = cuda::driver();
  if (!d)
    return d.takeError();
  req.driverVersion = d->version;
  req.driverJit = true;
  req.cache = rt.diskCache();
  req.context = &rt.context();
  req.multiprocessors = rt.multiprocessors();
  TuneOutcome out;
  auto sum = compileAll(program, req, compiling);
  if (!sum)
    return sum.takeError();
  out.compiled = std::move(*sum);
  auto t = timeAll(rt, program, req, out.compiled.candidates, opts, timing);
  if (!t)
    return t.takeError();
  out.timing = *t;
  if (out.timing.best < 0 || dbPath == "off")
    return out;
  const Candidate &w = out.compiled.candidates[out.timing.best];
  auto key = tuneKeyFor(rt.compiler(), program, req.compileRequest(), "");
  if (!key)
    return key.takeError();
  auto name = rt.context().name();
  key->gpu = name ? *name : "unknown";
  if (!name)
    llvm::consumeError(name.takeError());
  TuneEntry e;
  e.key = *key;
  e.params = w.config.params;
  e.ms = w.ms;
  e.metric = metric ? metric(w.ms) : "";
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  e.date = date;
  out.dbPath = dbPath.empty() ? TuneDB::defaultPath() : dbPath;
  TuneDB db(out.dbPath);
  if (llvm::Error err = db.store(e))
    return std::move(err);
  out.saved = std::move(e);
  return out;
}
