//===- CApi.cpp - the C API over the C++ runtime ----------------*- C++ -*-===//
//
// tessera.h's functions for programs, compiling and interpreting, and the
// helpers all C API functions share (CApiImpl.h): each function turns its C
// arguments into the C++ API's (jit::Program, Compiler, interpret), runs it,
// and turns every llvm::Error into a status and the calling thread's last
// error; a C++ exception (an allocation failure) becomes
// TESSERA_ERROR_RUNTIME too, so nothing escapes into the caller. Compiling
// uses one process-wide Compiler (its own lock, one MLIR context) with the
// default disk cache. Runtimes, launches and tuning: CApiRuntime.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/capi/CApiImpl.h"

#include "runtime/cuda/Driver.h"
#include "runtime/jit/Interpret.h"

#include <cstdlib>
#include <cstring>

using namespace tessera;
using namespace tessera::capi;

thread_local std::string tessera::capi::lastError;

tessera_status tessera::capi::fail(tessera_status s, std::string message) {
  lastError = std::move(message);
  return s;
}

tessera_status tessera::capi::fail(tessera_status s, llvm::Error e) {
  tessera_status status = s;
  std::string message;
  llvm::handleAllErrors(
      std::move(e),
      [&](const cuda::EnvironmentError &env) {
        status = TESSERA_ERROR_NO_GPU;
        message = env.message();
      },
      [&](const llvm::ErrorInfoBase &other) { message = other.message(); });
  return fail(status, std::move(message));
}

namespace {

llvm::Expected<const jit::KernelSignature &> signatureOf(const tessera_program *p,
                                                         const char *kernel) {
  return p->program->kernel(kernel ? kernel : "");
}

/// The tensor arguments' dtypes, shapes and strides, and the scalars.
/// `fakeNull`: a null data pointer is read as an aligned address (compiling).
llvm::Expected<std::vector<jit::Arg>> deviceArgs(const tessera_arg *args, int32_t n,
                                                 bool fakeNull) {
  if (n < 0 || (n > 0 && !args))
    return llvm::createStringError("tessera: %d arguments at a null array", n);
  std::vector<jit::Arg> out;
  for (int32_t i = 0; i < n; ++i) {
    const tessera_arg &a = args[i];
    if (a.kind == TESSERA_ARG_SCALAR) {
      out.push_back(jit::ScalarArg::of(a.scalar));
      continue;
    }
    if (a.kind != TESSERA_ARG_TENSOR)
      return llvm::createStringError("tessera: argument %d: unknown kind %d", i, (int)a.kind);
    std::optional<DType> dt = a.dtype ? parseDType(a.dtype) : std::nullopt;
    if (!dt)
      return llvm::createStringError("tessera: argument %d: unknown dtype '%s'", i,
                                     a.dtype ? a.dtype : "(null)");
    if (a.rank < 0 || a.rank > 8 || (a.rank > 0 && !a.shape))
      return llvm::createStringError("tessera: argument %d: rank %d without a shape", i, a.rank);
    jit::TensorArg t;
    t.data = a.data ? a.data : (fakeNull ? 256 : 0);
    t.dtype = *dt;
    t.shape.assign(a.shape, a.shape + a.rank);
    if (a.strides)
      t.strides.assign(a.strides, a.strides + a.rank);
    out.push_back(std::move(t));
  }
  return out;
}

llvm::Expected<std::map<std::string, int64_t>> paramsOf(const tessera_param *p, int32_t n) {
  if (n < 0 || (n > 0 && !p))
    return llvm::createStringError("tessera: %d parameters at a null array", n);
  std::map<std::string, int64_t> out;
  for (int32_t i = 0; i < n; ++i) {
    if (!p[i].name)
      return llvm::createStringError("tessera: parameter %d has no name", i);
    out[p[i].name] = p[i].value;
  }
  return out;
}

jit::Compiler &sharedCompiler() {
  static jit::DiskCache *cache = [] {
    const char *env = std::getenv("TESSERA_CACHE_DIR");
    std::string dir = env && *env ? env : jit::DiskCache::defaultDirectory();
    return dir == "off" ? nullptr : new jit::DiskCache(dir);
  }();
  static jit::Compiler *compiler = new jit::Compiler(cache); // lives as long as the process
  return *compiler;
}

} // namespace

tessera_status tessera::capi::prepare(const tessera_program *program, const char *kernel,
                                      const tessera_arg *args, int32_t numArgs,
                                      const tessera_param *params, int32_t numParams, bool fakeNull,
                                      Call &call) {
  auto sig = signatureOf(program, kernel);
  if (!sig)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, sig.takeError());
  call.sig = &*sig;
  auto a = deviceArgs(args, numArgs, fakeNull);
  if (!a)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, a.takeError());
  call.args = std::move(*a);
  auto p = paramsOf(params, numParams);
  if (!p)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, p.takeError());
  call.params = std::move(*p);
  return TESSERA_OK;
}

tessera_status tessera::capi::launchStatus(const jit::KernelSignature &sig, const tessera_arg *args,
                                           int32_t numArgs) {
  auto probe = deviceArgs(args, numArgs, /*fakeNull=*/true);
  if (!probe) {
    llvm::consumeError(probe.takeError());
    return TESSERA_ERROR_RUNTIME;
  }
  auto b = jit::bindArguments(sig, *probe);
  if (b)
    return TESSERA_ERROR_RUNTIME;
  llvm::consumeError(b.takeError());
  return TESSERA_ERROR_BINDING;
}

extern "C" {

const char *tessera_last_error(void) { return lastError.c_str(); }

const char *tessera_version(void) {
  static const std::string version = jit::compilerVersion();
  return version.c_str();
}

tessera_status tessera_program_load_file(const char *path, tessera_program **out) {
  return guarded([&] {
    if (!path || !out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null path or result");
    auto p = jit::Program::fromFile(path);
    if (!p)
      return fail(TESSERA_ERROR_PROGRAM, p.takeError());
    *out = new tessera_program{std::move(*p)};
    return TESSERA_OK;
  });
}

tessera_status tessera_program_load_string(const char *name, const char *source,
                                           tessera_program **out) {
  return guarded([&] {
    if (!source || !out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null source or result");
    auto p = jit::Program::fromSource(name && *name ? name : "<string>", source);
    if (!p)
      return fail(TESSERA_ERROR_PROGRAM, p.takeError());
    *out = new tessera_program{std::move(*p)};
    return TESSERA_OK;
  });
}

void tessera_program_destroy(tessera_program *program) { delete program; }

int32_t tessera_program_num_kernels(const tessera_program *program) {
  return program ? (int32_t)program->program->kernels().size() : 0;
}

const char *tessera_program_kernel_name(const tessera_program *program, int32_t index) {
  if (!program || index < 0 || index >= (int32_t)program->program->kernels().size())
    return nullptr;
  return program->program->kernels()[index].name.c_str();
}

tessera_status tessera_kernel_num_params(const tessera_program *program, const char *kernel,
                                         int32_t *out) {
  return guarded([&] {
    if (!program || !out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null program or result");
    auto sig = signatureOf(program, kernel);
    if (!sig)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, sig.takeError());
    *out = (int32_t)sig->params.size();
    return TESSERA_OK;
  });
}

tessera_status tessera_kernel_param(const tessera_program *program, const char *kernel,
                                    int32_t index, tessera_param_info *out) {
  return guarded([&] {
    if (!program || !out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null program or result");
    auto sig = signatureOf(program, kernel);
    if (!sig)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, sig.takeError());
    if (index < 0 || index >= (int32_t)sig->params.size())
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "tessera: kernel '" + sig->name + "' has no parameter " + std::to_string(index));
    const jit::ParamInfo &p = sig->params[index];
    out->name = p.name.c_str();
    out->is_tensor = p.isTensor;
    out->dtype = dtypeName(p.dtype).data(); // names are literals: NUL-terminated
    out->rank = (int32_t)p.dims.size();
    out->written = p.written;
    return TESSERA_OK;
  });
}

tessera_status tessera_kernel_param_axis(const tessera_program *program, const char *kernel,
                                         int32_t index, int32_t axis, const char **dim,
                                         int64_t *literal) {
  return guarded([&] {
    if (!program || !dim || !literal)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null program or result");
    auto sig = signatureOf(program, kernel);
    if (!sig)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, sig.takeError());
    if (index < 0 || index >= (int32_t)sig->params.size() || axis < 0 ||
        axis >= (int32_t)sig->params[index].dims.size())
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: kernel '" + sig->name +
                                                      "' has no axis " + std::to_string(axis) +
                                                      " of parameter " + std::to_string(index));
    const jit::ParamInfo &p = sig->params[index];
    *dim = p.dims[axis].c_str();
    *literal = p.dims[axis].empty() ? p.literal[axis] : 0;
    return TESSERA_OK;
  });
}

tessera_status tessera_compile(const tessera_program *program, const char *kernel,
                               const tessera_arg *args, int32_t num_args,
                               const tessera_param *params, int32_t num_params, const char *arch,
                               tessera_compiled **out) {
  return guarded([&] {
    if (!program || !out)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null program or result");
    Call call;
    if (tessera_status s = prepare(program, kernel, args, num_args, params, num_params,
                                   /*fakeNull=*/true, call))
      return s;
    auto binding = jit::bindArguments(*call.sig, call.args);
    if (!binding)
      return fail(TESSERA_ERROR_BINDING, binding.takeError());
    jit::CompileRequest req;
    req.kernel = call.sig->name;
    req.params = std::move(call.params);
    req.dims = binding->dims;
    req.unalignedArgs = binding->unalignedArgs;
    req.index64 = binding->index64;
    if (arch && *arch)
      req.arch = arch;
    auto k = sharedCompiler().compile(*program->program, req);
    if (!k)
      return fail(TESSERA_ERROR_COMPILE, k.takeError());
    *out = new tessera_compiled{std::move(*k)};
    return TESSERA_OK;
  });
}

void tessera_compiled_destroy(tessera_compiled *compiled) { delete compiled; }
const char *tessera_compiled_ptx(const tessera_compiled *c) {
  return c ? c->kernel.ptx.c_str() : "";
}
const char *tessera_compiled_entry(const tessera_compiled *c) {
  return c ? c->kernel.entry.c_str() : "";
}
double tessera_compiled_ms(const tessera_compiled *c) {
  return c && !c->kernel.fromDisk ? c->kernel.compileMs : 0;
}
int64_t tessera_compiled_shared_bytes(const tessera_compiled *c) {
  return c ? c->kernel.sharedBytes : 0;
}
int32_t tessera_compiled_threads(const tessera_compiled *c) {
  return c ? (int32_t)c->kernel.threads() : 0;
}
void tessera_compiled_grid(const tessera_compiled *c, int64_t grid[3]) {
  if (!grid)
    return;
  for (int i = 0; i < 3; ++i)
    grid[i] = c ? c->kernel.grid[i] : 0;
}

tessera_status tessera_interpret(const tessera_program *program, const char *kernel,
                                 const tessera_arg *args, int32_t num_args,
                                 const tessera_param *params, int32_t num_params,
                                 uint32_t threads) {
  return guarded([&] {
    if (!program)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: a null program");
    Call call;
    if (tessera_status s = prepare(program, kernel, args, num_args, params, num_params,
                                   /*fakeNull=*/false, call))
      return s;
    std::vector<jit::HostArg> host;
    for (auto [i, arg] : llvm::enumerate(call.args)) {
      if (auto *s = std::get_if<jit::ScalarArg>(&arg)) {
        host.push_back(*s);
        continue;
      }
      auto &t = std::get<jit::TensorArg>(arg);
      if (!t.data)
        return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                    "tessera: argument " + std::to_string(i) + ": a null host pointer");
      std::vector<int64_t> rowMajor = jit::stridesOf(jit::TensorArg{0, t.dtype, t.shape, {}});
      if (!t.strides.empty() && t.strides != rowMajor)
        return fail(TESSERA_ERROR_BINDING, "tessera: argument " + std::to_string(i) +
                                               ": the interpreter takes row-major tensors only");
      host.push_back(jit::HostTensorArg{reinterpret_cast<void *>(t.data), t.dtype, t.shape});
    }
    jit::InterpretOptions opts;
    opts.params = std::move(call.params);
    opts.threads = threads;
    auto info = jit::interpret(*program->program, call.sig->name, host, opts);
    if (!info)
      return fail(launchStatus(*call.sig, args, num_args), info.takeError());
    return TESSERA_OK;
  });
}

} // extern "C"
