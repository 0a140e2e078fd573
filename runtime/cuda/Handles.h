//===- Handles.h - owning handles for CUDA driver objects -------*- C++ -*-===//
//
// Move-only RAII owners of a device's primary context, modules, streams,
// events and device memory. Constructors are factories returning
// llvm::Expected; destructors release quietly (never throw, ignore errors).
// All objects assume the primary context of their device is current on the
// calling thread (Context::makeCurrent).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_CUDA_HANDLES_H
#define TESSERA_RUNTIME_CUDA_HANDLES_H

#include "runtime/cuda/Driver.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>
#include <utility>

namespace tessera::cuda {

/// The retained primary context of one device.
class Context {
public:
  static llvm::Expected<Context> create(int ordinal = 0);
  Context(Context &&o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)), dev_(o.dev_) {}
  Context &operator=(Context &&o) noexcept;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  llvm::Error makeCurrent() const;
  CUdevice device() const { return dev_; }
  CUcontext get() const { return ctx_; }
  /// "sm_90a" for compute capability 9.0 (the arch-specific target), "sm_80", ...
  llvm::Expected<std::string> arch() const;
  llvm::Expected<std::string> name() const;
  llvm::Expected<int> attribute(CUdevice_attribute a) const;

private:
  Context(CUcontext c, CUdevice d) : ctx_(c), dev_(d) {}
  CUcontext ctx_ = nullptr;
  CUdevice dev_ = 0;
};

/// Device memory.
class DeviceBuffer {
public:
  static llvm::Expected<DeviceBuffer> allocate(size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&o) noexcept
      : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  CUdeviceptr get() const { return ptr_; }
  size_t size() const { return bytes_; }
  llvm::Error copyFromHost(const void *src, size_t bytes);
  llvm::Error copyToHost(void *dst, size_t bytes) const;
  llvm::Error fill(unsigned char byte);

private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

/// The cubin the driver's JIT makes of `ptx` for the current context's GPU
/// (cuLink*, so that it can be cached); errors carry the JIT error log.
llvm::Expected<std::string> compilePTX(llvm::StringRef ptx);

/// A loaded module (PTX JIT-compiled by the driver, or a cubin).
class Module {
public:
  /// Loads PTX or a cubin image; errors carry the JIT error log.
  static llvm::Expected<Module> load(llvm::StringRef image);
  Module(Module &&o) noexcept : mod_(std::exchange(o.mod_, nullptr)) {}
  Module &operator=(Module &&o) noexcept;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  ~Module();

  llvm::Expected<CUfunction> function(llvm::StringRef name) const;
  CUmodule get() const { return mod_; }

private:
  explicit Module(CUmodule m) : mod_(m) {}
  CUmodule mod_ = nullptr;
};

class Stream {
public:
  static llvm::Expected<Stream> create();
  Stream(Stream &&o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream &operator=(Stream &&o) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();
  CUstream get() const { return s_; }
  llvm::Error synchronize() const;

private:
  explicit Stream(CUstream s) : s_(s) {}
  CUstream s_ = nullptr;
};

class Event {
public:
  static llvm::Expected<Event> create();
  Event(Event &&o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event &operator=(Event &&o) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();
  CUevent get() const { return e_; }
  llvm::Error record(CUstream s) const;
  /// Milliseconds from `start` to this event (both recorded; waits for this one).
  llvm::Expected<float> elapsedSince(const Event &start) const;

private:
  explicit Event(CUevent e) : e_(e) {}
  CUevent e_ = nullptr;
};

} // namespace tessera::cuda

#endif
