//===- Driver.cpp - the CUDA driver API, loaded at run time -----*- C++ -*-===//
#include "runtime/cuda/Driver.h"

#include "llvm/ADT/Twine.h"

#include <dlfcn.h>
#include <mutex>

using namespace tessera::cuda;

char EnvironmentError::ID = 0;

#define TESSERA_STR(x) #x
#define TESSERA_XSTR(x) TESSERA_STR(x)

bool tessera::cuda::isEnvironmentError(const llvm::Error &e) { return e.isA<EnvironmentError>(); }

namespace {

llvm::Error environment(const llvm::Twine &message) {
  return llvm::make_error<EnvironmentError>(message.str());
}

struct Loaded {
  DriverAPI api;
  std::string error; // empty: usable
  bool environmental = true;
};

Loaded load() {
  Loaded l;
  // Tests may point at another library, or at none ("", to simulate no driver).
  const char *path = getenv("TESSERA_LIBCUDA");
  if (!path)
    path = "libcuda.so.1";
  void *lib = *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!lib) {
    const char *why = *path ? dlerror() : "TESSERA_LIBCUDA is empty";
    l.error = std::string("no NVIDIA driver: cannot load ") + (*path ? path : "libcuda.so.1") +
              " (" + (why ? why : "unknown reason") +
              "); a GPU run needs the NVIDIA driver and a GPU";
    return l;
  }
#define TESSERA_CUDA_LOAD(name)                                                                    \
  l.api.name = reinterpret_cast<decltype(l.api.name)>(dlsym(lib, TESSERA_XSTR(name)));             \
  if (!l.api.name) {                                                                               \
    l.error = std::string("the NVIDIA driver library lacks ") + TESSERA_XSTR(name) +               \
              "; it is older than Tessera needs (CUDA 12.8 or newer)";                             \
    return l;                                                                                      \
  }
  TESSERA_CUDA_DRIVER_FUNCS(TESSERA_CUDA_LOAD)
#undef TESSERA_CUDA_LOAD
  CUresult rc = l.api.cuInit(0);
  if (rc != CUDA_SUCCESS) {
    const char *name = nullptr;
    l.api.cuGetErrorName(rc, &name);
    l.error = std::string("cuInit failed: ") + (name ? name : "unknown error") +
              (rc == CUDA_ERROR_NO_DEVICE ? " (no CUDA GPU is visible)" : "");
    return l;
  }
  int count = 0;
  if (l.api.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    l.error = "no CUDA GPU: the driver reports no devices";
    return l;
  }
  l.api.cuDriverGetVersion(&l.api.version);
  return l;
}

} // namespace

llvm::Expected<const DriverAPI &> tessera::cuda::driver() {
  static Loaded *loaded = [] { return new Loaded(load()); }(); // thread-safe, never freed
  if (!loaded->error.empty())
    return environment(loaded->error);
  return loaded->api;
}

llvm::Error tessera::cuda::check(CUresult rc, llvm::StringRef call, llvm::StringRef log) {
  if (rc == CUDA_SUCCESS)
    return llvm::Error::success();
  const char *name = nullptr, *text = nullptr;
  if (auto d = driver()) {
    d->cuGetErrorName(rc, &name);
    d->cuGetErrorString(rc, &text);
  } else {
    llvm::consumeError(d.takeError());
  }
  std::string msg = (call + " failed: " + (name ? name : "CUDA error " + std::to_string(rc))).str();
  if (text)
    msg += std::string(" (") + text + ")";
  if (!log.empty())
    msg += "\n" + log.str();
  if (rc == CUDA_ERROR_NO_DEVICE)
    return environment(msg);
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}
