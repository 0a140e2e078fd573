//===- Interpret.h - running kernels in the CPU interpreter -----*- C++ -*-===//
//
// The C++ API of `tessera run --interpret`: the same program, kernel, tensors
// and parameter overrides as Runtime::launch, but tensors in host memory and
// the kernel run by lib/Interpreter on the CPU. Arguments are checked by the
// same binding rules (dtype, rank, equal named dims); no GPU or driver needed.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_JIT_INTERPRET_H
#define TESSERA_RUNTIME_JIT_INTERPRET_H

#include "runtime/jit/Bind.h"

#include "llvm/Support/raw_ostream.h"

namespace tessera::jit {

/// A row-major tensor in host memory (not owned).
struct HostTensorArg {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};
using HostArg = std::variant<HostTensorArg, ScalarArg>;

struct InterpretOptions {
  std::map<std::string, int64_t> params; // tune overrides
  unsigned threads = 0;                  // 0: one per hardware thread
  llvm::raw_ostream *out = nullptr;      // print() output; null: stdout
  bool padExtents = false;               // run the program as code generation pads it
  int64_t numSms = 0;                    // what num_sms() is; 0: unknown (an error if used)
  bool index64 = false; // the 64-bit size class even for small tensors (Compiler.h)
};

struct InterpretInfo {
  std::array<int64_t, 3> grid = {1, 1, 1};
  double ms = 0; // frontend and interpretation
};

llvm::Expected<InterpretInfo> interpret(const Program &program, llvm::StringRef kernel,
                                        llvm::ArrayRef<HostArg> args,
                                        const InterpretOptions &opts = {});

} // namespace tessera::jit

#endif
