//===- Run.cpp - tessera run ------------------------------------*- C++ -*-===//
//
// `tessera run FILE --arg NAME=PATH.npy... --scalar NAME=V... [--param NAME=V]
// [--out NAME=PATH.npy] [--interpret]`: reads every tensor argument from a .npy
// file (checking dtype and rank against the kernel), copies them to the GPU,
// JIT-compiles and launches the kernel through the runtime (or, with
// --interpret, runs it in the CPU interpreter on the host arrays), and writes
// the --out tensors back.
// Bad programs and arguments exit 1; a machine without a driver or GPU exits 2
// with a message saying which.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"

#include "lib/Support/Npy.h"
#include "runtime/jit/Interpret.h"
#include "runtime/jit/Runtime.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace tessera;

namespace {

/// NAME=VALUE items into `out` (values unparsed); reports the first bad one.
int fail(const llvm::Twine &msg) { return failWith(msg); }
int report(llvm::Error e) { return reportError(std::move(e)); }

} // namespace

int tessera::failWith(const llvm::Twine &msg) {
  printToolError(llvm::errs(), msg);
  return 1;
}

int tessera::reportError(llvm::Error e) {
  int status = cuda::isEnvironmentError(e) ? 2 : 1;
  std::string msg = llvm::toString(std::move(e));
  // Frontend errors come rendered (FILE:LINE:COL: error: ...): print them as they are.
  if (llvm::StringRef(msg).contains(": error: ")) {
    llvm::errs() << msg << "\n";
    return status;
  }
  printToolError(llvm::errs(), msg);
  return status;
}

int tessera::runRun(const RunOptions &opts) {
  if (!checkArch(opts.arch))
    return 1;
  if (opts.sms > 0 && !opts.interpret) {
    printToolError(llvm::errs(), "--sms is for --interpret: on the GPU, num_sms() is the GPU's "
                                 "own multiprocessor count");
    return 1;
  }
  std::map<std::string, std::string> args, scalars, outs;
  std::map<std::string, int64_t> params;
  if (!splitItems(opts.args, "--arg", "PATH.npy", args) ||
      !splitItems(opts.scalars, "--scalar", "V", scalars) ||
      !splitItems(opts.outs, "--out", "PATH.npy", outs) ||
      !parseIntegerItems(opts.params, "--param", params))
    return 1;
  auto program = jit::Program::fromFile(opts.input);
  if (!program)
    return report(program.takeError());
  auto sig = (*program)->kernel(opts.kernel);
  if (!sig)
    return report(sig.takeError());
  // Every argument named must be a parameter of the right kind, and every
  // parameter must have one.
  std::map<std::string, const jit::ParamInfo *> byName;
  for (const jit::ParamInfo &p : sig->params)
    byName[p.name] = &p;
  auto unknown = [&](const std::map<std::string, std::string> &m, const char *flag,
                     bool tensor) -> int {
    for (auto &[n, v] : m) {
      auto it = byName.find(n);
      if (it == byName.end())
        return fail(llvm::Twine(flag) + " " + n + ": kernel '" + sig->name +
                    "' has no parameter named '" + n + "'");
      if (it->second->isTensor != tensor)
        return fail(llvm::Twine(flag) + " " + n + ": '" + n + "' is a " +
                    (tensor ? "scalar; use --scalar" : "tensor; use --arg"));
    }
    return 0;
  };
  if (int s = unknown(args, "--arg", true))
    return s;
  if (int s = unknown(scalars, "--scalar", false))
    return s;
  if (int s = unknown(outs, "--out", true))
    return s;
  std::vector<NpyArray> arrays(sig->params.size());
  std::vector<jit::Arg> launchArgs(sig->params.size());
  for (auto [i, p] : llvm::enumerate(sig->params)) {
    if (!p.isTensor) {
      auto it = scalars.find(p.name);
      if (it == scalars.end())
        return fail("scalar parameter '" + p.name + "' (" + dtypeName(p.dtype) +
                    ") needs --scalar " + p.name + "=V");
      llvm::StringRef text(it->second);
      double v;
      if (text == "true" || text == "false")
        v = text == "true";
      else if (text.getAsDouble(v))
        return fail("--scalar " + p.name + ": '" + text + "' is not a number");
      launchArgs[i] = jit::ScalarArg::of(v);
      continue;
    }
    auto it = args.find(p.name);
    if (it == args.end())
      return fail("tensor parameter '" + p.name + "' needs --arg " + p.name + "=PATH.npy");
    auto a = readNpy(it->second);
    if (!a)
      return report(a.takeError());
    // One-byte void holds f8 bits of either format: the parameter says which.
    if (a->dtype == DType::F8E4M3 && p.dtype == DType::F8E5M2)
      a->dtype = DType::F8E5M2;
    if (a->dtype != p.dtype)
      return fail(it->second + " holds " + dtypeName(a->dtype) + " but '" + p.name +
                  "' is a tensor of " + dtypeName(p.dtype) +
                  (p.dtype == DType::BF16 ? " (save bf16 as 2-byte void, '|V2')"
                   : isF8(p.dtype)        ? " (save f8 bits as 1-byte void, '|V1')"
                                          : ""));
    if (a->shape.size() != p.dims.size())
      return fail(it->second + " has rank " + llvm::Twine(a->shape.size()) + " but '" + p.name +
                  "' has rank " + llvm::Twine(p.dims.size()));
    arrays[i] = std::move(*a);
  }
  auto writeOuts = [&]() -> int {
    for (auto [i, p] : llvm::enumerate(sig->params)) {
      auto it = outs.find(p.name);
      if (it == outs.end())
        continue;
      if (llvm::Error e = writeNpy(it->second, arrays[i]))
        return report(std::move(e));
    }
    return 0;
  };
  if (opts.interpret) {
    std::vector<jit::HostArg> hostArgs;
    for (auto [i, p] : llvm::enumerate(sig->params)) {
      if (p.isTensor)
        hostArgs.push_back(jit::HostTensorArg{arrays[i].data.data(), p.dtype, arrays[i].shape});
      else
        hostArgs.push_back(std::get<jit::ScalarArg>(launchArgs[i]));
    }
    jit::InterpretOptions io;
    io.params = params;
    io.numSms = opts.sms;
    io.index64 = opts.index64;
    auto info = jit::interpret(**program, sig->name, hostArgs, io);
    if (!info)
      return report(info.takeError());
    return writeOuts();
  }
  jit::RuntimeOptions ro;
  ro.arch = opts.arch;
  ro.debug = opts.debug;
  ro.index64 = opts.index64;
  auto rt = jit::Runtime::create(ro);
  if (!rt)
    return report(rt.takeError());
  std::vector<cuda::DeviceBuffer> buffers(sig->params.size());
  for (auto [i, p] : llvm::enumerate(sig->params)) {
    if (!p.isTensor)
      continue;
    auto buf = cuda::DeviceBuffer::allocate(std::max<size_t>(arrays[i].data.size(), 16));
    if (!buf)
      return report(buf.takeError());
    if (llvm::Error e = buf->copyFromHost(arrays[i].data.data(), arrays[i].data.size()))
      return report(std::move(e));
    jit::TensorArg t;
    t.data = buf->get();
    t.dtype = p.dtype;
    t.shape = arrays[i].shape;
    launchArgs[i] = t;
    buffers[i] = std::move(*buf);
  }
  jit::LaunchOptions lo;
  lo.params = params;
  auto info = (*rt)->launch(**program, sig->name, launchArgs, lo);
  if (!info)
    return report(info.takeError());
  const cuda::DriverAPI &api = *cuda::driver();
  if (llvm::Error e =
          cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize (after " + sig->name + ")"))
    return report(std::move(e));
  for (auto [i, p] : llvm::enumerate(sig->params))
    if (outs.count(p.name))
      if (llvm::Error e = buffers[i].copyToHost(arrays[i].data.data(), arrays[i].data.size()))
        return report(std::move(e));
  return writeOuts();
}
