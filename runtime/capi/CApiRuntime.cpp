//===- CApiRuntime.cpp - the C API's runtimes, launches, tuning -*- C++ -*-===//
//
// tessera.h's functions over jit::Runtime: a runtime per device, launches
// from C arguments, launch plans and their prepared form (converted once,
// re-reading only data pointers and scalars), and the tuner
// (autotune::tuneOnGpu). Errors as in CApi.cpp: a status and the thread's
// last error, nothing thrown past the boundary.
//
//===----------------------------------------------------------------------===//
#include "runtime/capi/CApiImpl.h"

#include "runtime/autotune/Tuner.h"

#include <cstring>

using namespace tessera;
using namespace tessera::capi;

/// A plan's call, converted once (tessera_launch_prepare).
struct tessera_prepared_launch {
  const tessera_launch_plan *plan = nullptr; // its args: data pointers and scalars
  tessera_runtime *runtime = nullptr;        // as prepared (the plan's may change)
  const tessera_program *program = nullptr;  // owns call.sig
  Call call;
  jit::LaunchOptions opts;
};

namespace {

/// Launches `args` (converted from `cargs`) with `opts`; a failure's status
/// says whether the arguments bind (launchStatus).
tessera_status launchConverted(tessera_runtime *runtime, const tessera_program *program,
                               const jit::KernelSignature &sig, llvm::ArrayRef<jit::Arg> args,
                               const jit::LaunchOptions &opts, const tessera_arg *cargs) {
  auto info = runtime->runtime->launch(*program->program, sig.name, args, opts);
  if (!info)
    return fail(launchStatus(sig, cargs, (int32_t)args.size()), info.takeError());
  return TESSERA_OK;
}

} // namespace

extern "C" {

tessera_status tessera_runtime_create(int32_t device, tessera_runtime **out) {
  return guarded([&] {
    if (!out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null result");
    jit::RuntimeOptions opts;
    opts.device = device;
    auto rt = jit::Runtime::create(opts);
    if (!rt)
      return fail(TESSERA_ERROR_CUDA, rt.takeError());
    *out = new tessera_runtime{std::move(*rt)};
    return TESSERA_OK;
  });
}

void tessera_runtime_destroy(tessera_runtime *runtime) { delete runtime; }

tessera_status tessera_launch(tessera_runtime *runtime, const tessera_program *program,
                              const char *kernel, const tessera_arg *args, int32_t num_args,
                              const tessera_param *params, int32_t num_params, void *stream) {
  return guarded([&] {
    if (!runtime || !program)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null runtime or program");
    Call call;
    if (tessera_status s = prepare(program, kernel, args, num_args, params, num_params,
                                   /*fakeNull=*/false, call))
      return s;
    jit::LaunchOptions opts;
    opts.params = std::move(call.params);
    opts.stream = static_cast<CUstream>(stream);
    return launchConverted(runtime, program, *call.sig, call.args, opts, args);
  });
}

tessera_status tessera_launch_planned(const tessera_launch_plan *plan, void *stream) {
  if (!plan)
    return guarded([] { return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null plan"); });
  return tessera_launch(plan->runtime, plan->program, plan->kernel, plan->args, plan->num_args,
                        plan->params, plan->num_params, stream);
}

tessera_status tessera_launch_prepare(const tessera_launch_plan *plan,
                                      tessera_prepared_launch **out) {
  return guarded([&] {
    if (!plan || !out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null plan or result");
    if (!plan->runtime || !plan->program)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null runtime or program");
    auto prepared = std::make_unique<tessera_prepared_launch>();
    prepared->plan = plan;
    prepared->runtime = plan->runtime;
    prepared->program = plan->program;
    if (tessera_status s =
            prepare(plan->program, plan->kernel, plan->args, plan->num_args, plan->params,
                    plan->num_params, /*fakeNull=*/false, prepared->call))
      return s;
    prepared->opts.params = std::move(prepared->call.params);
    *out = prepared.release();
    return TESSERA_OK;
  });
}

tessera_status tessera_launch_prepared(tessera_prepared_launch *prepared, void *stream) {
  return guarded([&] {
    if (!prepared)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null prepared launch");
    const tessera_launch_plan &plan = *prepared->plan;
    std::vector<jit::Arg> &args = prepared->call.args;
    // The arguments' kinds were checked when the plan was prepared.
    for (size_t i = 0; i < args.size(); ++i) {
      if (auto *t = std::get_if<jit::TensorArg>(&args[i]))
        t->data = plan.args[i].data;
      else
        std::get<jit::ScalarArg>(args[i]).value = plan.args[i].scalar;
    }
    prepared->opts.stream = static_cast<CUstream>(stream);
    return launchConverted(prepared->runtime, prepared->program, *prepared->call.sig, args,
                           prepared->opts, plan.args);
  });
}

void tessera_prepared_launch_destroy(tessera_prepared_launch *prepared) { delete prepared; }

tessera_status tessera_tune(tessera_runtime *runtime, const tessera_program *program,
                            const char *kernel, const tessera_arg *args, int32_t num_args,
                            double budget_seconds, uint32_t flags, char *best, size_t best_size,
                            double *best_ms) {
  return guarded([&] {
    if (!runtime || !program)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null runtime or program");
    if (!(budget_seconds > 0))
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: the budget must be positive seconds");
    Call call;
    if (tessera_status s =
            prepare(program, kernel, args, num_args, nullptr, 0, /*fakeNull=*/true, call))
      return s;
    const jit::KernelSignature &sig = *call.sig;
    auto binding = jit::bindArguments(sig, call.args);
    if (!binding)
      return fail(TESSERA_ERROR_BINDING, binding.takeError());
    autotune::TuneRequest req;
    req.kernel = sig.name;
    req.dims = binding->dims;
    req.index64 = binding->index64;
    req.warpSpecialize = flags & TESSERA_TUNE_WARP_SPECIALIZE;
    req.tmaStore = flags & TESSERA_TUNE_TMA_STORE;
    autotune::TimingOptions to;
    to.budgetSeconds = budget_seconds;
    for (auto [p, arg] : llvm::zip(sig.params, call.args))
      if (auto *s = std::get_if<jit::ScalarArg>(&arg))
        to.scalars[p.name] = s->value;
    jit::Runtime &rt = *runtime->runtime;
    std::string db = rt.tuningDatabase().empty() ? "off" : rt.tuningDatabase();
    auto outcome = autotune::tuneOnGpu(rt, *program->program, req, to, db);
    if (!outcome)
      return fail(TESSERA_ERROR_RUNTIME, outcome.takeError());
    if (outcome->timing.tied)
      return fail(TESSERA_ERROR_RUNTIME,
                  "tessera: the outputs of the configurations of '" + sig.name +
                      "' disagree, and no group of agreeing ones is larger than another");
    if (outcome->timing.best < 0)
      return fail(TESSERA_ERROR_RUNTIME,
                  "tessera: no configuration of '" + sig.name + "' ran correctly");
    const autotune::Candidate &w = outcome->compiled.candidates[outcome->timing.best];
    if (best && best_size) {
      std::string text = w.config.text();
      size_t n = std::min(text.size(), best_size - 1);
      std::memcpy(best, text.data(), n);
      best[n] = 0;
    }
    if (best_ms)
      *best_ms = w.ms;
    return TESSERA_OK;
  });
}

} // extern "C"
