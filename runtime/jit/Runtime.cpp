//===- Runtime.cpp - bind and launch ----------------------------*- C++ -*-===//
//
// The launch path: a launch binds its arguments, checks their pointers with
// the driver, prepares the kernel of its signature (Prepare.cpp), appends the
// trailing parameters (split-K workspace, tensor maps) and launches on the
// given stream; a kernel compiled with asserts has its assert state read back
// after it. A launch that repeats the last one (same kernel, shapes, strides,
// alignment and scalars) reuses its binding with the new data pointers. One
// mutex makes launches one at a time (Runtime.h, "Threads").
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Runtime.h"
#include "lib/Support/Errors.h"

#include "runtime/autotune/Model.h"
#include "runtime/autotune/TuneDB.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <chrono>
#include <cmath>
#include <cstring>

using namespace tessera;
using namespace tessera::jit;

llvm::Expected<std::unique_ptr<Runtime>> Runtime::create(const RuntimeOptions &opts) {
  auto ctx = cuda::Context::create(opts.device);
  if (!ctx)
    return ctx.takeError();
  auto deviceArch = ctx->arch();
  if (!deviceArch)
    return deviceArch.takeError();
  auto target = target::TargetInfo::get(opts.arch.empty() ? *deviceArch : opts.arch);
  if (!target) {
    if (opts.arch.empty())
      return makeError("this GPU (" + *deviceArch +
                       ") is not supported yet: " + llvm::toString(target.takeError()) +
                       "; name one that runs on it with --arch");
    return target.takeError();
  }
  if (!target->runsOn(target::TargetInfo::capabilityOf(*deviceArch)))
    return makeError(target->arch() + " code does not run on this " + *deviceArch + " GPU");
  std::unique_ptr<DiskCache> disk;
  if (opts.cacheDir != "off")
    disk = std::make_unique<DiskCache>(opts.cacheDir.empty() ? DiskCache::defaultDirectory()
                                                             : opts.cacheDir);
  auto name = ctx->name();
  if (!name)
    return name.takeError();
  auto rt = std::unique_ptr<Runtime>(new Runtime(std::move(*ctx), std::move(*target), *deviceArch,
                                                 std::move(disk), opts.optLevel));
  // A variable set to anything but "" or "0".
  auto envFlag = [](const char *var) {
    const char *v = getenv(var);
    return v && *v && std::string(v) != "0";
  };
  if (opts.tuningDB != "off" && !envFlag("TESSERA_NO_TUNING"))
    rt->tuningDB_ = opts.tuningDB.empty() ? autotune::TuneDB::defaultPath() : opts.tuningDB;
  rt->gpuName_ = *name;
  rt->debug_ = opts.debug || envFlag("TESSERA_DEBUG");
  rt->timings_ = opts.timings || envFlag("TESSERA_TIMINGS");
  rt->index64_ = opts.index64;
  auto sms = rt->ctx_.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  if (!sms)
    return sms.takeError();
  rt->multiprocessors_ = std::max(1, *sms);
  return rt;
}

bool Runtime::repeatOverlaps(llvm::ArrayRef<Arg> args) const {
  const Repeat &r = *repeat_;
  for (const DisjointPair &pr : r.disjoint)
    if (overlaps(std::get<TensorArg>(args[pr.a]).data, r.bytes[pr.a],
                 std::get<TensorArg>(args[pr.b]).data, r.bytes[pr.b], pr.sameLayout))
      return true;
  return false;
}

llvm::Error Runtime::checkPointers(const KernelSignature &sig, llvm::ArrayRef<Arg> args,
                                   const std::vector<Arg> *last) const {
  const cuda::DriverAPI &api = *cuda::driver();
  for (size_t i = 0; i < args.size(); ++i) {
    const auto *t = std::get_if<TensorArg>(&args[i]);
    if (!t || (last && std::get<TensorArg>((*last)[i]).data == t->data))
      continue;
    auto [first, bytes] = byteSpan(*t);
    if (!bytes)
      continue;
    if (!first)
      return makeError("argument '" + sig.params[i].name + "' is a null pointer");
    unsigned type = 0;
    CUdeviceptr start = 0;
    size_t size = 0;
    int ordinal = -1;
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void *values[] = {&type, &start, &size, &ordinal};
    // Unknown pointers are no error here: they come back with no memory type.
    if (llvm::Error e = cuda::check(api.cuPointerGetAttributes(4, attrs, values, first),
                                    "cuPointerGetAttributes(" + sig.params[i].name + ")"))
      return e;
    auto hex = [](uint64_t v) { return "0x" + llvm::utohexstr(v); };
    if (!type)
      return makeError("argument '" + sig.params[i].name + "' (" + hex(first) +
                       ") is not memory the CUDA driver knows: a host pointer, or device memory "
                       "already freed");
    if (type == CU_MEMORYTYPE_DEVICE && ordinal >= 0 && ordinal != (int)ctx_.device())
      return makeError("argument '" + sig.params[i].name + "' (" + hex(first) +
                       ") is memory of device " + std::to_string(ordinal) +
                       "; this runtime launches on device " + std::to_string((int)ctx_.device()));
    if (first + bytes > start + size)
      return makeError("argument '" + sig.params[i].name + "' spans bytes " + hex(first) + ".." +
                       hex(first + bytes) + " but its allocation (" + hex(start) + ", " +
                       std::to_string(size) + " bytes) ends at " + hex(start + size));
  }
  return llvm::Error::success();
}

bool Runtime::repeats(const Program &program, llvm::StringRef kernel, llvm::ArrayRef<Arg> args,
                      const LaunchOptions &opts) const {
  const Repeat &r = *repeat_;
  if (r.programId != program.id() || kernel != r.kernelName || r.args.size() != args.size() ||
      r.useTuned != opts.useTuned || r.useModel != opts.useModel || r.params != opts.params)
    return false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].index() != r.args[i].index())
      return false;
    if (const auto *s = std::get_if<ScalarArg>(&args[i])) {
      if (s->value != std::get<ScalarArg>(r.args[i]).value)
        return false;
      continue;
    }
    const TensorArg &t = std::get<TensorArg>(args[i]), &o = std::get<TensorArg>(r.args[i]);
    if (t.dtype != o.dtype || t.shape != o.shape || t.strides != o.strides ||
        (t.data % 16 == 0) != (o.data % 16 == 0))
      return false;
  }
  return true;
}

llvm::Expected<LaunchInfo> Runtime::launch(const Program &program, llvm::StringRef kernelName,
                                           llvm::ArrayRef<Arg> args, const LaunchOptions &opts) {
  // One launch at a time (Runtime.h, "Threads"); the context current on this
  // thread (once per thread and runtime context, not per launch).
  std::lock_guard<std::mutex> lock(mutex_);
  thread_local CUcontext current = nullptr;
  if (current != ctx_.get()) {
    if (llvm::Error e = ctx_.makeCurrent())
      return std::move(e);
    current = ctx_.get();
  }
  // A repeat whose new pointers overlap takes the full path, which reports it.
  if (repeat_ && repeats(program, kernelName, args, opts) && !repeatOverlaps(args)) {
    if (llvm::Error e = checkPointers(*repeat_->sig, args, &repeat_->args))
      return std::move(e);
    // The last launch's binding with this launch's data pointers.
    Repeat &r = *repeat_;
    for (size_t i = 0; i < args.size(); ++i)
      if (r.binding.dataSlot[i] >= 0) {
        CUdeviceptr p = std::get<TensorArg>(args[i]).data;
        std::memcpy(&r.binding.slots[r.binding.dataSlot[i]], &p, sizeof p);
        std::get<TensorArg>(r.args[i]).data = p;
      }
    r.maps.clear(); // its capacity stays: no allocation on a repeat launch
    auto complete = tensorMapsFor(*r.prepared->loaded, args, r.maps);
    if (!complete)
      return complete.takeError();
    if (*complete) {
      const Prepared &prep = *r.prepared;
      r.binding.pointers.resize(r.binding.slots.size());
      if (llvm::Error e = appendTrailing(r.binding.pointers, prep, r.maps, opts.stream))
        return std::move(e);
      LaunchInfo info;
      info.tensorMaps = r.maps.size();
      describe(prep, info);
      if (prep.grid[0] <= 0 || prep.grid[1] <= 0 || prep.grid[2] <= 0)
        return info;
      if (llvm::Error e = launchPrepared(prep, r.binding.pointers.data(), opts.stream, r.sig->name))
        return std::move(e);
      return info;
    }
    // TMA cannot describe one of these tensors: the full path below.
  }
  repeat_.reset();
  auto sigOr = program.kernel(kernelName);
  if (!sigOr)
    return sigOr.takeError();
  const KernelSignature &sig = *sigOr;
  auto bound = bindArguments(sig, args, index64_);
  if (!bound)
    return bound.takeError();
  if (llvm::Error e = checkPointers(sig, args, nullptr))
    return std::move(e);
  LaunchInfo info;
  // The aligned variant, specialized on which tensors are not aligned: a table
  // of odd width keeps the other tensors' vector accesses and staged copies.
  auto found = prepare(program, sig, *bound, /*aligned=*/true, opts, info);
  if (!found)
    return found.takeError();
  // TMA: the aligned variant's tensor maps, or the cp.async variant when TMA
  // cannot describe one of the tensors.
  std::vector<const CUtensorMap *> maps;
  auto complete = tensorMapsFor(*(*found)->loaded, args, maps);
  if (!complete)
    return complete.takeError();
  if (!*complete) {
    found = prepare(program, sig, *bound, /*aligned=*/false, opts, info);
    if (!found)
      return found.takeError();
    maps.clear();
  }
  info.tensorMaps = maps.size();
  const Prepared &prep = **found;
  if (llvm::Error e = appendTrailing(bound->pointers, prep, maps, opts.stream))
    return std::move(e);
  describe(prep, info);
  // No programs: nothing to launch (the compiler refused grids past the
  // launch limits).
  for (int64_t g : prep.grid)
    if (g <= 0)
      return info;
  if (llvm::Error e = launchPrepared(prep, bound->pointers.data(), opts.stream, sig.name))
    return std::move(e);
  // Remember it for a repeat launch (the pointers of a Binding point into its
  // own slots: they are rebuilt after the move).
  Repeat r;
  r.programId = program.id();
  r.sig = &sig;
  r.kernelName = kernelName.str();
  r.params = opts.params;
  r.useTuned = opts.useTuned;
  r.useModel = opts.useModel;
  r.args.assign(args.begin(), args.end());
  r.binding = std::move(*bound);
  r.binding.finish(); // the kernel's own parameters: the trailing ones again
  if (llvm::Error e = appendTrailing(r.binding.pointers, **found, maps, opts.stream))
    return std::move(e);
  r.prepared = *found;
  r.disjoint = disjointPairs(sig, args);
  for (const Arg &a : args) {
    const auto *t = std::get_if<TensorArg>(&a);
    r.bytes.push_back(t ? byteSpan(*t).second : 0);
  }
  repeat_ = std::move(r);
  return info;
}

llvm::Error Runtime::appendTrailing(std::vector<void *> &pointers, const Prepared &prep,
                                    llvm::ArrayRef<const CUtensorMap *> maps, CUstream stream) {
  const SplitK &split = prep.loaded->splitK;
  if (split.splits > 1) {
    // One slot per (output tile, split), one counter per output tile.
    uint64_t tiles =
        (uint64_t)std::max<int64_t>(prep.grid[0], 0) * (uint64_t)std::max<int64_t>(prep.grid[1], 0);
    uint64_t slotBytes = tiles * (uint64_t)prep.grid[2] * (uint64_t)split.slotBytes;
    uint64_t counterBytes = std::max<uint64_t>(tiles, 1) * 4;
    SplitWorkspace &ws = splitWorkspaces_[stream];
    if (ws.slots.size() < slotBytes || ws.counters.size() < counterBytes) {
      // Kernels still running on this stream may use the old buffers.
      if (ws.slots.get() || ws.counters.get())
        if (llvm::Error e = cuda::check(cuda::driver()->cuStreamSynchronize(stream),
                                        "cuStreamSynchronize (growing the split-K workspace)"))
          return e;
      auto slots = cuda::DeviceBuffer::allocate(std::max<uint64_t>(slotBytes, ws.slots.size()));
      if (!slots)
        return slots.takeError();
      auto counters =
          cuda::DeviceBuffer::allocate(std::max<uint64_t>(counterBytes, ws.counters.size()));
      if (!counters)
        return counters.takeError();
      if (llvm::Error e = counters->fill(0))
        return e;
      // The memset runs on the legacy stream: complete it before a launch on
      // any stream (a non-blocking one is not ordered after it).
      if (llvm::Error e = cuda::check(cuda::driver()->cuCtxSynchronize(),
                                      "cuCtxSynchronize (zeroing the split-K counters)"))
        return e;
      ws.slots = std::move(*slots);
      ws.counters = std::move(*counters);
    }
    splitArgs_ = {ws.slots.get(), ws.counters.get()};
    pointers.push_back(&splitArgs_[0]);
    pointers.push_back(&splitArgs_[1]);
  }
  for (const CUtensorMap *m : maps)
    pointers.push_back(const_cast<CUtensorMap *>(m));
  return llvm::Error::success();
}

void Runtime::describe(const Prepared &prep, LaunchInfo &info) {
  info.grid = prep.grid;
  info.tuned = prep.tuned;
  info.modeled = prep.modeled;
  info.config = prep.config;
  info.threads = prep.loaded->threads();
  info.sharedBytes = prep.loaded->sharedBytes;
  info.key = prep.loaded->key;
}

llvm::Error Runtime::launchPrepared(const Prepared &prep, void **params, CUstream stream,
                                    const std::string &kernelName) {
  CUresult rc = cuda::driver()->cuLaunchKernel(
      prep.loaded->fn, (unsigned)prep.grid[0], (unsigned)prep.grid[1], (unsigned)prep.grid[2],
      prep.loaded->threads(), 1, 1, (unsigned)prep.loaded->sharedBytes, stream, params, nullptr);
  if (rc != CUDA_SUCCESS) // the call's name is built only for the error
    return cuda::check(rc, "cuLaunchKernel(" + kernelName + ")");
  if (!prep.loaded->asserts.empty())
    return checkAsserts(*prep.loaded, stream, kernelName);
  return llvm::Error::success();
}

llvm::Error Runtime::checkAsserts(const Loaded &loaded, CUstream stream,
                                  const std::string &kernelName) {
  const cuda::DriverAPI &api = *cuda::driver();
  if (llvm::Error e = cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize"))
    return e;
  CUdeviceptr state = 0;
  size_t bytes = 0;
  CUresult found = api.cuModuleGetGlobal(&state, &bytes, loaded.module.get(), kAssertStateName);
  if (found == CUDA_ERROR_NOT_FOUND)
    return llvm::Error::success(); // every assert was folded away: none can fail
  if (llvm::Error e =
          cuda::check(found, std::string("cuModuleGetGlobal(") + kAssertStateName + ")"))
    return e;
  int32_t v[4] = {0, 0, 0, 0};
  if (llvm::Error e =
          cuda::check(api.cuMemcpyDtoH(v, state, sizeof v), "cuMemcpyDtoH(assert state)"))
    return e;
  if (v[0] == 0)
    return llvm::Error::success();
  // Cleared on the kernel's stream, and waited for: a launch on another
  // stream must not find the old failure.
  if (llvm::Error e = cuda::check(api.cuMemsetD8Async(state, 0, sizeof v, stream),
                                  "cuMemsetD8Async(assert state)"))
    return e;
  if (llvm::Error e = cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize"))
    return e;
  if (v[0] < 1 || (size_t)v[0] > loaded.asserts.size())
    return makeError("kernel '" + kernelName + "': assert state holds an unknown id " +
                     std::to_string(v[0]));
  const AssertSite &site = loaded.asserts[v[0] - 1];
  return makeError(site.where + ": assertion failed in kernel '" + kernelName + "', program (" +
                   std::to_string(v[1]) + ", " + std::to_string(v[2]) + ", " +
                   std::to_string(v[3]) + "): " + site.message);
}

std::optional<Runtime::RawLaunch> Runtime::lastLaunch() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!repeat_)
    return std::nullopt;
  const Prepared &prep = *repeat_->prepared;
  return RawLaunch{prep.loaded->fn, prep.grid, prep.loaded->threads(),
                   (unsigned)prep.loaded->sharedBytes, repeat_->binding.pointers.data()};
}
