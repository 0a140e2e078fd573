//===- Interpret.cpp - running kernels in the CPU interpreter -------------===//
#include "runtime/jit/Interpret.h"

#include "lib/Interpreter/Interpreter.h"
#include "lib/Support/Clock.h"

#include <chrono>

using namespace tessera;
using namespace tessera::jit;

llvm::Expected<InterpretInfo> tessera::jit::interpret(const Program &program,
                                                      llvm::StringRef kernel,
                                                      llvm::ArrayRef<HostArg> args,
                                                      const InterpretOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  auto sig = program.kernel(kernel);
  if (!sig)
    return sig.takeError();
  // Bind with the GPU's rules (host addresses stand in for device pointers).
  std::vector<Arg> bindArgs;
  std::vector<interp::Arg> iargs;
  for (const HostArg &a : args) {
    if (const auto *t = std::get_if<HostTensorArg>(&a)) {
      bindArgs.push_back(TensorArg{(CUdeviceptr)(uintptr_t)t->data, t->dtype, t->shape, {}});
      iargs.push_back(interp::Arg::tensor(t->data, t->dtype, t->shape));
    } else {
      double v = std::get<ScalarArg>(a).value;
      bindArgs.push_back(ScalarArg::of(v));
      iargs.push_back(interp::Arg::of(v));
    }
  }
  auto binding = bindArguments(*sig, bindArgs, opts.index64);
  if (!binding)
    return binding.takeError();
  CompileRequest req;
  req.kernel = sig->name;
  req.params = opts.params;
  req.dims = binding->dims;
  req.numSms = opts.numSms;
  req.index64 = binding->index64;
  // One compiler (and MLIR context) for every interpretation in the process.
  static Compiler compiler;
  auto grid = compiler.interpret(program, req, iargs, opts.threads, opts.out, opts.padExtents);
  if (!grid)
    return grid.takeError();
  InterpretInfo info;
  info.grid = *grid;
  info.ms = msSince(start);
  return info;
}
