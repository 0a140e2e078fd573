//===- Nvrtc.cpp - CUDA C++ compiled at run time (NVRTC, dlopen'd) --------===//
#include "runtime/cuda/Nvrtc.h"

#include "runtime/cuda/Driver.h"

#include <nvrtc.h>

#include <dlfcn.h>
#include <mutex>

using namespace tessera;
using namespace tessera::cuda;

namespace {

// clang-format off
#define TESSERA_NVRTC_FUNCS(X) \
  X(nvrtcGetErrorString) \
  X(nvrtcVersion) \
  X(nvrtcCreateProgram) \
  X(nvrtcDestroyProgram) \
  X(nvrtcCompileProgram) \
  X(nvrtcGetPTXSize) \
  X(nvrtcGetPTX) \
  X(nvrtcGetProgramLogSize) \
  X(nvrtcGetProgramLog) \
  X(nvrtcAddNameExpression) \
  X(nvrtcGetLoweredName)
// clang-format on

struct Api {
#define TESSERA_NVRTC_DECLARE(n) decltype(&::n) n = nullptr;
  TESSERA_NVRTC_FUNCS(TESSERA_NVRTC_DECLARE)
#undef TESSERA_NVRTC_DECLARE
  std::string error;
};

const Api &api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> tried;
    void *lib = nullptr;
    std::vector<std::string> names;
    if (const char *p = getenv("TESSERA_LIBNVRTC"))
      names.push_back(p);
    else {
      std::string home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
      names = {"libnvrtc.so.13", "libnvrtc.so", home + "/lib64/libnvrtc.so.13",
               home + "/lib64/libnvrtc.so"};
    }
    for (const std::string &n : names) {
      if (n.empty())
        continue;
      tried.push_back(n);
      if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    }
    if (!lib) {
      std::string list;
      for (auto &t : tried)
        list += (list.empty() ? "" : ", ") + t;
      a.error = "no NVRTC: cannot load " +
                (list.empty() ? std::string("libnvrtc (TESSERA_LIBNVRTC is empty)") : list) +
                "; compiling the CUDA baselines needs the CUDA toolkit's NVRTC";
      return;
    }
#define TESSERA_NVRTC_LOAD(n)                                                                      \
  a.n = reinterpret_cast<decltype(a.n)>(dlsym(lib, #n));                                           \
  if (!a.n) {                                                                                      \
    a.error = "the NVRTC library lacks " #n;                                                       \
    return;                                                                                        \
  }
    TESSERA_NVRTC_FUNCS(TESSERA_NVRTC_LOAD)
#undef TESSERA_NVRTC_LOAD
  });
  return a;
}

llvm::Error checkNvrtc(nvrtcResult rc, const llvm::Twine &call, llvm::StringRef log = "") {
  if (rc == NVRTC_SUCCESS)
    return llvm::Error::success();
  std::string msg = (call + " failed: " + api().nvrtcGetErrorString(rc)).str();
  if (!log.empty())
    msg += ":\n" + log.rtrim().str();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

} // namespace

llvm::Expected<std::string> tessera::cuda::nvrtcVersion() {
  const Api &a = api();
  if (!a.error.empty())
    return llvm::make_error<EnvironmentError>(a.error);
  int major = 0, minor = 0;
  if (llvm::Error e = checkNvrtc(a.nvrtcVersion(&major, &minor), "nvrtcVersion"))
    return std::move(e);
  return std::to_string(major) + "." + std::to_string(minor);
}

llvm::Expected<NvrtcResult> tessera::cuda::compileCuda(llvm::StringRef source, llvm::StringRef name,
                                                       llvm::StringRef arch,
                                                       const std::vector<std::string> &options,
                                                       llvm::StringRef kernel) {
  const Api &a = api();
  if (!a.error.empty())
    return llvm::make_error<EnvironmentError>(a.error);
  std::string src = source.str(), file = name.str();
  nvrtcProgram prog = nullptr;
  if (llvm::Error e =
          checkNvrtc(a.nvrtcCreateProgram(&prog, src.c_str(), file.c_str(), 0, nullptr, nullptr),
                     "nvrtcCreateProgram(" + name + ")"))
    return std::move(e);
  struct Destroy {
    const Api &a;
    nvrtcProgram *p;
    ~Destroy() { (void)a.nvrtcDestroyProgram(p); }
  } guard{a, &prog};
  std::string k = kernel.str();
  if (!k.empty())
    if (llvm::Error e = checkNvrtc(a.nvrtcAddNameExpression(prog, k.c_str()),
                                   "nvrtcAddNameExpression(" + kernel + ")"))
      return std::move(e);
  std::vector<std::string> opts = {"--gpu-architecture=" + arch.str(), "-std=c++17",
                                   "--use_fast_math"};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char *> argv;
  for (auto &o : opts)
    argv.push_back(o.c_str());
  nvrtcResult rc = a.nvrtcCompileProgram(prog, (int)argv.size(), argv.data());
  size_t logSize = 0;
  std::string log;
  if (a.nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    log.resize(logSize);
    (void)a.nvrtcGetProgramLog(prog, log.data());
    log.resize(logSize - 1);
  }
  if (llvm::Error e = checkNvrtc(rc, "nvrtcCompileProgram(" + name + ")", log))
    return std::move(e);
  NvrtcResult out;
  out.log = log;
  size_t ptxSize = 0;
  if (llvm::Error e = checkNvrtc(a.nvrtcGetPTXSize(prog, &ptxSize), "nvrtcGetPTXSize"))
    return std::move(e);
  out.ptx.resize(ptxSize);
  if (llvm::Error e = checkNvrtc(a.nvrtcGetPTX(prog, out.ptx.data()), "nvrtcGetPTX"))
    return std::move(e);
  if (!out.ptx.empty() && out.ptx.back() == '\0')
    out.ptx.pop_back();
  if (!k.empty()) {
    const char *lowered = nullptr;
    if (llvm::Error e = checkNvrtc(a.nvrtcGetLoweredName(prog, k.c_str(), &lowered),
                                   "nvrtcGetLoweredName(" + kernel + ")"))
      return std::move(e);
    out.lowered = lowered;
  }
  return out;
}
