//===- Check.h - one generated program through every executor ---*- C++ -*-===//
//
// checkProgram compiles a program for each architecture and assembles the PTX
// with ptxas, runs it in the interpreter, runs it again in the interpreter as
// code generation pads it (where some extent is not a power of two), and, given
// a runtime, on the GPU; the outputs of every run are compared with the
// interpreter's within the program's tolerances. Inputs come from the
// program's seed. With CheckOptions::index64 the 64-bit size class runs too.
// Saved regressions (a reduced program's text with the sizes,
// inputs and tolerances it needs) are written and read back here too.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_DIFFTEST_CHECK_H
#define TESSERA_TEST_DIFFTEST_CHECK_H

#include "test/difftest/Program.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace tessera::jit {
class Compiler;
class Runtime;
} // namespace tessera::jit

namespace tessera::difftest {

struct CheckOptions {
  std::vector<std::string> archs = {"sm_90a", "sm_80"};
  bool ptxas = true;  // assemble every PTX (a rejected PTX is a failure)
  bool padded = true; // compare the padded interpretation where extents are odd
  jit::Runtime *gpu = nullptr;
  /// Also the 64-bit size class (docs/language.md, section 5): compiled and
  /// assembled for each arch, interpreted, and on `gpu64` (a runtime with
  /// RuntimeOptions::index64) when given, each against the 32-bit interpreter.
  bool index64 = false;
  jit::Runtime *gpu64 = nullptr;
};

struct Outcome {
  enum class Kind {
    Pass,
    Frontend,  // the frontend rejected a generated program
    Codegen,   // code generation or ptxas failed
    Interpret, // the interpreter stopped with an error
    Gpu,       // the launch failed
    Mismatch,  // an executor disagreed with the interpreter
  } kind = Kind::Pass;
  std::string stage; // "sm_90a", "ptxas sm_80", "padded interpreter", "GPU"...
  std::string detail;
  // What ran.
  int compiled = 0, assembled = 0, paddedRuns = 0, gpuRuns = 0;
  bool interpreted = false;
  /// The 64-bit class ran; or the frontend rejected the program there, as it
  /// may (an index stored into an i32 tensor needs a .to(i32) there).
  bool index64Ran = false, index64Rejected = false;
};

const char *kindName(Outcome::Kind k);

/// Runs `p` through every executor `o` enables. `compiler` is reused across
/// programs (one MLIR context).
Outcome checkProgram(const Program &p, const CheckOptions &o, jit::Compiler &compiler);

/// A reduced failing program as a self-contained file: a header of comment
/// lines (seed, sizes, scalars, tensors with their input ranges, outputs with
/// their tolerances, tune values) and then the source.
std::string regressionText(const Program &p, const Outcome &why);
/// Reads a file written by regressionText back.
llvm::Expected<Program> parseRegression(llvm::StringRef text);

} // namespace tessera::difftest

#endif
