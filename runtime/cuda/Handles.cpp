//===- Handles.cpp - owning handles for CUDA driver objects -----*- C++ -*-===//
#include "runtime/cuda/Handles.h"

#include "llvm/ADT/Twine.h"

using namespace tessera::cuda;
using llvm::Error;
using llvm::Expected;

namespace {
/// The loaded driver; only called where an object already exists (so it loaded).
const DriverAPI &api() { return *driver(); }
} // namespace

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

Expected<Context> Context::create(int ordinal) {
  auto d = driver();
  if (!d)
    return d.takeError();
  int count = 0;
  if (Error e = check(d->cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return std::move(e);
  if (ordinal < 0 || ordinal >= count)
    return llvm::make_error<EnvironmentError>("no CUDA GPU " + std::to_string(ordinal) +
                                              ": the driver reports " + std::to_string(count) +
                                              " device(s)");
  CUdevice dev;
  if (Error e = check(d->cuDeviceGet(&dev, ordinal), "cuDeviceGet"))
    return std::move(e);
  CUcontext ctx;
  if (Error e = check(d->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"))
    return std::move(e);
  Context c(ctx, dev);
  if (Error e = c.makeCurrent())
    return std::move(e);
  return std::move(c);
}

Context &Context::operator=(Context &&o) noexcept {
  if (this != &o) {
    this->~Context();
    ctx_ = std::exchange(o.ctx_, nullptr);
    dev_ = o.dev_;
  }
  return *this;
}

Context::~Context() {
  if (ctx_)
    (void)api().cuDevicePrimaryCtxRelease(dev_);
}

Error Context::makeCurrent() const { return check(api().cuCtxSetCurrent(ctx_), "cuCtxSetCurrent"); }

Expected<int> Context::attribute(CUdevice_attribute a) const {
  int v = 0;
  if (Error e = check(api().cuDeviceGetAttribute(&v, a, dev_), "cuDeviceGetAttribute"))
    return std::move(e);
  return v;
}

Expected<std::string> Context::arch() const {
  auto major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  if (!major)
    return major.takeError();
  auto minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  if (!minor)
    return minor.takeError();
  std::string arch = "sm_" + std::to_string(*major) + std::to_string(*minor);
  if (*major == 9 && *minor == 0)
    arch += "a"; // Hopper's arch-specific features (wgmma, setmaxnreg)
  return arch;
}

Expected<std::string> Context::name() const {
  char buf[256] = {};
  if (Error e = check(api().cuDeviceGetName(buf, sizeof buf, dev_), "cuDeviceGetName"))
    return std::move(e);
  return std::string(buf);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  auto d = driver();
  if (!d)
    return d.takeError();
  DeviceBuffer b;
  if (bytes == 0)
    return std::move(b);
  if (Error e =
          check(d->cuMemAlloc(&b.ptr_, bytes), "cuMemAlloc(" + std::to_string(bytes) + " bytes)"))
    return std::move(e);
  b.bytes_ = bytes;
  return std::move(b);
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
  if (this != &o) {
    this->~DeviceBuffer();
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    (void)api().cuMemFree(ptr_);
}

Error DeviceBuffer::copyFromHost(const void *src, size_t bytes) {
  if (bytes > bytes_)
    return llvm::createStringError("copy of " + std::to_string(bytes) + " bytes into a buffer of " +
                                   std::to_string(bytes_));
  return bytes ? check(api().cuMemcpyHtoD(ptr_, src, bytes), "cuMemcpyHtoD") : Error::success();
}

Error DeviceBuffer::copyToHost(void *dst, size_t bytes) const {
  if (bytes > bytes_)
    return llvm::createStringError("copy of " + std::to_string(bytes) +
                                   " bytes out of a buffer of " + std::to_string(bytes_));
  return bytes ? check(api().cuMemcpyDtoH(dst, ptr_, bytes), "cuMemcpyDtoH") : Error::success();
}

Error DeviceBuffer::fill(unsigned char byte) {
  return bytes_ ? check(api().cuMemsetD8(ptr_, byte, bytes_), "cuMemsetD8") : Error::success();
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Expected<Module> Module::load(llvm::StringRef image) {
  auto d = driver();
  if (!d)
    return d.takeError();
  std::string text = image.str(); // PTX must be NUL-terminated
  static constexpr size_t kLog = 16384;
  std::string errLog(kLog, '\0'), infoLog(kLog, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {errLog.data(), reinterpret_cast<void *>(kLog), infoLog.data(),
                  reinterpret_cast<void *>(kLog)};
  CUmodule m = nullptr;
  CUresult rc = d->cuModuleLoadDataEx(&m, text.c_str(), 4, opts, vals);
  errLog.resize(strnlen(errLog.c_str(), kLog));
  if (Error e = check(rc, "cuModuleLoadDataEx", errLog))
    return std::move(e);
  return Module(m);
}

Expected<std::string> tessera::cuda::compilePTX(llvm::StringRef ptx) {
  auto d = driver();
  if (!d)
    return d.takeError();
  static constexpr size_t kLog = 16384;
  std::string errLog(kLog, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {errLog.data(), reinterpret_cast<void *>(kLog)};
  CUlinkState link = nullptr;
  if (Error e = check(d->cuLinkCreate(2, opts, vals, &link), "cuLinkCreate"))
    return std::move(e);
  struct Destroy {
    const DriverAPI &api;
    CUlinkState s;
    ~Destroy() { (void)api.cuLinkDestroy(s); }
  } guard{*d, link};
  std::string text = ptx.str();
  auto logged = [&](CUresult rc, const char *call) {
    return check(rc, call, llvm::StringRef(errLog.c_str()));
  };
  if (Error e = logged(d->cuLinkAddData(link, CU_JIT_INPUT_PTX, text.data(), text.size() + 1,
                                        "tessera.ptx", 0, nullptr, nullptr),
                       "cuLinkAddData"))
    return std::move(e);
  void *cubin = nullptr;
  size_t size = 0;
  if (Error e = logged(d->cuLinkComplete(link, &cubin, &size), "cuLinkComplete"))
    return std::move(e);
  return std::string(static_cast<const char *>(cubin), size); // owned by the link state: copy
}

Module &Module::operator=(Module &&o) noexcept {
  if (this != &o) {
    this->~Module();
    mod_ = std::exchange(o.mod_, nullptr);
  }
  return *this;
}

Module::~Module() {
  if (mod_)
    (void)api().cuModuleUnload(mod_);
}

Expected<CUfunction> Module::function(llvm::StringRef name) const {
  CUfunction f = nullptr;
  if (Error e = check(api().cuModuleGetFunction(&f, mod_, name.str().c_str()),
                      "cuModuleGetFunction(" + name.str() + ")"))
    return std::move(e);
  return f;
}

//===----------------------------------------------------------------------===//
// Stream and Event
//===----------------------------------------------------------------------===//

Expected<Stream> Stream::create() {
  auto d = driver();
  if (!d)
    return d.takeError();
  CUstream s = nullptr;
  if (Error e = check(d->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return std::move(e);
  return Stream(s);
}

Stream &Stream::operator=(Stream &&o) noexcept {
  if (this != &o) {
    this->~Stream();
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

Stream::~Stream() {
  if (s_)
    (void)api().cuStreamDestroy(s_);
}

Error Stream::synchronize() const {
  return check(api().cuStreamSynchronize(s_), "cuStreamSynchronize");
}

Expected<Event> Event::create() {
  auto d = driver();
  if (!d)
    return d.takeError();
  CUevent ev = nullptr;
  if (Error e = check(d->cuEventCreate(&ev, CU_EVENT_DEFAULT), "cuEventCreate"))
    return std::move(e);
  return Event(ev);
}

Event &Event::operator=(Event &&o) noexcept {
  if (this != &o) {
    this->~Event();
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}

Event::~Event() {
  if (e_)
    (void)api().cuEventDestroy(e_);
}

Error Event::record(CUstream s) const { return check(api().cuEventRecord(e_, s), "cuEventRecord"); }

Expected<float> Event::elapsedSince(const Event &start) const {
  if (Error e = check(api().cuEventSynchronize(e_), "cuEventSynchronize"))
    return std::move(e);
  float ms = 0;
  if (Error e = check(api().cuEventElapsedTime(&ms, start.e_, e_), "cuEventElapsedTime"))
    return std::move(e);
  return ms;
}
