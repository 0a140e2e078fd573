//===- CApiImpl.h - what the C API's files share ----------------*- C++ -*-===//
//
// The opaque handles of tessera.h and the helpers of every C API function:
// statuses and the calling thread's last error from llvm::Error, exceptions
// stopped at the boundary, and a call's C arguments checked and converted
// (CApi.cpp). Internal to libtessera.so, whose only exports are tessera_*.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_CAPI_CAPIIMPL_H
#define TESSERA_RUNTIME_CAPI_CAPIIMPL_H

#include "tessera/tessera.h"

#include "runtime/jit/Runtime.h"

#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct tessera_program {
  std::shared_ptr<tessera::jit::Program> program;
};
struct tessera_runtime {
  std::unique_ptr<tessera::jit::Runtime> runtime;
};
struct tessera_compiled {
  tessera::jit::CompiledKernel kernel;
};

namespace tessera::capi {

/// The calling thread's last error (tessera_last_error).
extern thread_local std::string lastError;

/// Sets the last error to `message`; returns `s`.
tessera_status fail(tessera_status s, std::string message);
/// `e`'s message under status `s`, or TESSERA_ERROR_NO_GPU for a missing
/// driver or GPU.
tessera_status fail(tessera_status s, llvm::Error e);

/// Runs `body`, turning exceptions into a status.
template <typename F> tessera_status guarded(F body) {
  lastError.clear();
  try {
    return body();
  } catch (const std::exception &e) {
    return fail(TESSERA_ERROR_RUNTIME, std::string("tessera: ") + e.what());
  } catch (...) {
    return fail(TESSERA_ERROR_RUNTIME, "tessera: unknown C++ exception");
  }
}

/// A call's kernel, arguments and parameters, checked and converted.
struct Call {
  const jit::KernelSignature *sig = nullptr;
  std::vector<jit::Arg> args;
  std::map<std::string, int64_t> params;
};

/// Fills `call` from the C arguments of a compile, interpretation, launch or
/// tuning; any failure is TESSERA_ERROR_INVALID_ARGUMENT.
tessera_status prepare(const tessera_program *program, const char *kernel, const tessera_arg *args,
                       int32_t numArgs, const tessera_param *params, int32_t numParams,
                       bool fakeNull, Call &call);

/// The status of a failed launch or interpretation: BINDING when the
/// arguments do not bind (checked again on this failure path only, so a
/// successful launch binds once; only their layout matters), else RUNTIME (a
/// compile error, a driver call, a failed assert: the message says which).
tessera_status launchStatus(const jit::KernelSignature &sig, const tessera_arg *args,
                            int32_t numArgs);

} // namespace tessera::capi

#endif // TESSERA_RUNTIME_CAPI_CAPIIMPL_H
