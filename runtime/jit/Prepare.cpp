//===- Prepare.cpp - from a launch signature to a loaded kernel -*- C++ -*-===//
//
// Runtime::prepare turns a launch signature (program, kernel, alignment,
// parameters, dims) into a loaded kernel and its grid, once per signature:
// tuned or modelled parameters where none are given, the compile (or its
// cache), the cubin (ptxas or the driver's JIT, or its disk cache), the
// module load, and a persistent kernel's grid from the occupancy. Also: the
// tensor maps of a launch's buffers, and a loaded kernel's resources. prepare
// and tensorMapsFor run under the launch's lock; resources takes it.
//
//===----------------------------------------------------------------------===//
#include "lib/Support/Clock.h"
#include "lib/Support/Errors.h"
#include "runtime/jit/Runtime.h"

#include "lib/Target/PTX.h"

#include "runtime/autotune/Model.h"
#include "runtime/autotune/TuneDB.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace tessera;
using namespace tessera::jit;

namespace {
const CubinAssembler kDriverJit{false, "driver JIT", ""};

/// RuntimeOptions::timings: where a compile's time went, one line.
void printTimings(llvm::StringRef kernel, llvm::StringRef config, const LaunchInfo &i,
                  bool loaded) {
  llvm::errs() << "tessera: timings of " << kernel << (config.empty() ? "" : " [") << config
               << (config.empty() ? "" : "]") << ": cost model " << llvm::format("%.1f", i.modelMs)
               << (i.modelFromDisk ? " ms (its choice from the disk cache)" : " ms")
               << ", frontend " << llvm::format("%.1f", i.frontendMs) << " ms, ";
  if (i.fromDisk)
    llvm::errs() << "PTX from the disk cache, ";
  else
    llvm::errs() << "code generation passes " << llvm::format("%.1f", i.passesMs)
                 << " ms, LLVM IR and PTX " << llvm::format("%.1f", i.llvmMs) << " ms, ";
  if (!loaded) {
    llvm::errs() << "the module was already loaded\n";
    return;
  }
  llvm::errs() << (i.cubinFromDisk ? "cubin from the disk cache " : i.assembler + " ")
               << llvm::format("%.1f", i.jitMs) << " ms, module load "
               << llvm::format("%.1f", i.moduleMs) << " ms\n";
}
} // namespace

llvm::Expected<Runtime::Prepared *> Runtime::prepare(const Program &program,
                                                     const KernelSignature &sig,
                                                     const Binding &bound, bool aligned,
                                                     const LaunchOptions &opts, LaunchInfo &info) {
  const std::map<std::string, int64_t> &dims = bound.dims;
  // The launch signature: one lookup on repeat launches.
  std::string sigKey;
  sigKey.reserve(128);
  sigKey.append(std::to_string(program.id()))
      .append(1, '|')
      .append(sig.name)
      .append(aligned ? "|a" : "|u")
      .append(opts.useTuned ? "t" : "")
      .append(opts.useModel ? "m" : "");
  if (aligned)
    for (int64_t i : bound.unalignedArgs)
      sigKey.append(1, '~').append(std::to_string(i));
  for (auto &[n, v] : opts.params)
    sigKey.append(1, '|').append(n).append(1, '=').append(std::to_string(v));
  sigKey.append(1, '#');
  for (auto &[n, v] : dims)
    sigKey.append(n).append(1, '=').append(std::to_string(v)).append(1, ',');
  auto found = prepared_.find(sigKey);
  if (found == prepared_.end()) {
    CompileRequest req;
    req.kernel = sig.name;
    req.params = opts.params;
    req.dims = dims;
    req.aligned = aligned;
    if (aligned)
      req.unalignedArgs = bound.unalignedArgs;
    req.arch = arch_;
    req.optLevel = optLevel_;
    req.numSms = multiprocessors_;
    req.debug = debug_;
    req.index64 = bound.index64;
    if (auto d = cuda::driver())
      req.driverVersion = d->version;
    else
      return d.takeError();
    if (req.params.empty() && opts.useTuned && !tuningDB_.empty()) {
      // One frontend run on the first launch of this signature: the database key.
      auto key = autotune::tuneKeyFor(compiler_, program, req, gpuName_);
      if (!key)
        return key.takeError();
      auto hit = autotune::TuneDB(tuningDB_).lookup(*key);
      if (!hit)
        return hit.takeError();
      if (*hit) {
        req.params = (*hit)->params;
        info.tuned = true;
      }
    }
    if (req.params.empty() && opts.useModel) {
      auto t0 = std::chrono::steady_clock::now();
      // The model's choice is kept on disk beside the kernels: a new process
      // with the same signature skips it as it skips code generation.
      std::string mkey = disk_ ? modelKey(program, req) : "";
      std::optional<std::map<std::string, int64_t>> kept;
      if (!mkey.empty())
        kept = disk_->loadChoice(mkey);
      if (kept) {
        req.params = std::move(*kept);
        info.modelFromDisk = true;
      } else {
        auto chosen = autotune::chooseDefault(compiler_, program, req, target_, multiprocessors_);
        if (!chosen)
          return chosen.takeError();
        req.params = std::move(*chosen);
        if (!mkey.empty())
          if (llvm::Error e = disk_->storeChoice(mkey, req.params))
            llvm::consumeError(std::move(e)); // a read-only cache only costs the model again
      }
      info.modeled = !req.params.empty();
      info.modelMs = msSince(t0);
    }
    auto ck = compiler_.compile(program, req);
    if (!ck)
      return ck.takeError();
    info.compiled = true;
    info.fromDisk = ck->fromDisk;
    info.compileMs = ck->compileMs;
    info.frontendMs = ck->frontendMs;
    info.passesMs = ck->passesMs;
    info.llvmMs = ck->llvmMs;
    auto &slot = loaded_[ck->key];
    bool loadedNow = !slot;
    if (!slot) {
      auto t0 = std::chrono::steady_clock::now();
      auto image = assembleCubin(*ck, req.arch, disk_.get(), &info.cubinFromDisk, &info.assembler);
      if (!image)
        return image.takeError();
      info.jitMs = msSince(t0);
      auto mod = cuda::Module::load(*image);
      if (!mod && info.assembler != kDriverJit.name) {
        // A toolkit newer than the driver makes cubins the driver cannot load:
        // its own JIT assembles the PTX then.
        llvm::consumeError(mod.takeError());
        image = assembleCubin(*ck, req.arch, disk_.get(), &info.cubinFromDisk, &info.assembler,
                              /*driverJit=*/true);
        if (!image)
          return image.takeError();
        mod = cuda::Module::load(*image);
      }
      if (!mod)
        return mod.takeError();
      auto fn = mod->function(ck->entry);
      if (!fn)
        return fn.takeError();
      if (ck->sharedBytes > target_.defaultSharedBytesPerBlock()) {
        const cuda::DriverAPI &api = *cuda::driver();
        if (llvm::Error e = cuda::check(
                api.cuFuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       (int)ck->sharedBytes),
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
          return std::move(e);
      }
      info.loadMs = msSince(t0);
      info.moduleMs = info.loadMs - info.jitMs;
      slot = std::make_unique<Loaded>(Loaded{std::move(*mod), *fn, ck->numWarps, ck->sharedBytes,
                                             ck->key, ck->tensorMaps, ck->splitK, ck->asserts});
    }
    std::array<int64_t, 3> grid = ck->grid;
    if (ck->persistent) {
      // As many programs as the GPU holds at once, each looping over tiles.
      const cuda::DriverAPI &api = *cuda::driver();
      int perSM = 0;
      if (llvm::Error e =
              cuda::check(api.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                              &perSM, slot->fn, (int)slot->threads(), (size_t)slot->sharedBytes),
                          "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
        return std::move(e);
      grid[0] = std::min<int64_t>(grid[0], (int64_t)multiprocessors_ * std::max(perSM, 1));
    }
    std::string config = req.params.empty() ? "" : autotune::Config{req.params}.text();
    if (timings_)
      printTimings(sig.name, config, info, loadedNow);
    found = prepared_.emplace(sigKey, Prepared{slot.get(), grid, info.tuned, info.modeled, config})
                .first;
  }
  return &found->second;
}

llvm::Expected<bool> Runtime::tensorMapsFor(Loaded &loaded, llvm::ArrayRef<Arg> args,
                                            std::vector<const CUtensorMap *> &maps) {
  if (loaded.tensorMaps.empty())
    return true;
  // The same buffers as the last launch of this kernel: the same maps.
  Loaded::Memo &memo = loaded.memo;
  if (memo.generation == mapGeneration_ && memo.tensors.size() == loaded.tensorMaps.size()) {
    bool same = true;
    for (size_t i = 0; i < memo.tensors.size() && same; ++i) {
      const TensorArg &t = std::get<TensorArg>(args[loaded.tensorMaps[i].param]);
      const TensorArg &m = memo.tensors[i];
      same = t.data == m.data && t.dtype == m.dtype && t.shape == m.shape && t.strides == m.strides;
    }
    if (same) {
      maps = memo.maps;
      return true;
    }
  }
  // A bound on the maps of buffers long freed; between launches no map is in use.
  constexpr size_t kMaxCachedMaps = 4096;
  if (tensorMaps_.size() > kMaxCachedMaps) {
    tensorMaps_.clear();
    ++mapGeneration_;
  }
  memo = Loaded::Memo{};
  for (const TensorMapUse &use : loaded.tensorMaps) {
    const TensorArg &t = std::get<TensorArg>(args[use.param]);
    cuda::TensorMapSpec spec;
    spec.dtype = t.dtype;
    spec.shape = t.shape;
    spec.strides = stridesOf(t);
    spec.box = use.box;
    spec.swizzle = use.swizzle;
    if (!cuda::tmaUnsupported(t.data, spec).empty())
      return false;
    auto map = tensorMaps_.get(t.data, spec);
    if (!map)
      return map.takeError();
    maps.push_back(*map);
    memo.tensors.push_back(t);
  }
  memo.maps = maps;
  memo.generation = mapGeneration_;
  return true;
}

llvm::Expected<const CubinAssembler &> tessera::jit::cubinAssembler() {
  struct Choice {
    CubinAssembler a = kDriverJit;
    std::string error;
  };
  static const Choice *choice = [] {
    auto *c = new Choice; // never freed: read by every launch
    const char *env = getenv("TESSERA_PTX_ASSEMBLER");
    std::string want = env ? env : "";
    if (!want.empty() && want != "auto" && want != "driver" && want != "ptxas") {
      c->error = "TESSERA_PTX_ASSEMBLER is '" + want + "'; it is auto, ptxas or driver";
      return c;
    }
    if (want == "driver")
      return c;
    auto ptxas = target::findPtxas();
    if (ptxas)
      c->a = CubinAssembler{true, "ptxas", "ptxas"};
    else if (want == "ptxas")
      c->error = "TESSERA_PTX_ASSEMBLER=ptxas: " + llvm::toString(ptxas.takeError());
    else
      llvm::consumeError(ptxas.takeError());
    return c;
  }();
  if (!choice->error.empty())
    return makeError(choice->error);
  return choice->a;
}

llvm::Expected<std::string> tessera::jit::assembleCubin(const CompiledKernel &ck,
                                                        llvm::StringRef arch, DiskCache *cache,
                                                        bool *fromDisk, std::string *assembler,
                                                        bool driverJit) {
  const CubinAssembler *a = &kDriverJit;
  if (!driverJit) {
    auto chosen = cubinAssembler();
    if (!chosen)
      return chosen.takeError();
    a = &*chosen;
  }
  std::string cubinKey = ck.key + "-cubin" + (a->tag.empty() ? "" : "-" + a->tag);
  if (fromDisk)
    *fromDisk = false;
  if (assembler)
    *assembler = a->name;
  if (cache)
    if (auto hit = cache->load(cubinKey)) {
      if (fromDisk)
        *fromDisk = true;
      return std::move(hit->ptx);
    }
  llvm::Expected<std::string> cubin = std::string();
  if (a->ptxas) {
    auto bytes = target::compileCubin(ck.ptx, arch);
    if (!bytes)
      return bytes.takeError();
    cubin = std::string(bytes->begin(), bytes->end());
  } else {
    cubin = cuda::compilePTX(ck.ptx);
  }
  if (!cubin)
    return cubin.takeError();
  if (cache)
    if (llvm::Error e = cache->store(
            cubinKey, CacheEntry{ck.entry, *cubin, ck.numWarps, ck.sharedBytes, ck.tensorMaps}))
      llvm::consumeError(std::move(e)); // a read-only cache only costs recompiles
  return cubin;
}

llvm::Expected<Runtime::Resources> Runtime::resources(const std::string &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = loaded_.find(key);
  if (it == loaded_.end() || !it->second)
    return makeError("no loaded kernel with key " + key);
  const cuda::DriverAPI &api = *cuda::driver();
  Resources r;
  CUfunction fn = it->second->fn;
  if (llvm::Error e =
          cuda::check(api.cuFuncGetAttribute(&r.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, fn),
                      "cuFuncGetAttribute(NUM_REGS)"))
    return std::move(e);
  if (llvm::Error e =
          cuda::check(api.cuFuncGetAttribute(&r.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn),
                      "cuFuncGetAttribute(LOCAL_SIZE_BYTES)"))
    return std::move(e);
  if (llvm::Error e = cuda::check(
          api.cuFuncGetAttribute(&r.staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
          "cuFuncGetAttribute(SHARED_SIZE_BYTES)"))
    return std::move(e);
  return r;
}
