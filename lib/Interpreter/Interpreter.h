//===- Interpreter.h - tile IR on the CPU -----------------------*- C++ -*-===//
//
// The reference semantics of the tile dialect: runs a verified, specialized
// tile.kernel (the frontend's output, before layouts) for every program of a
// grid on the CPU. Element types are exact: f32 math in float, every f16 and
// bf16 result rounded to nearest even, i32/i64 wrap-around, bools as 0/1;
// loads pad and stores mask exactly as the GPU code does. Reductions and dot
// products accumulate in double and round once to the result's type (the GPU's
// order is unspecified; this is its most accurate value).
//
// The kernel is first translated into a small instruction list (slots instead
// of SSA values; shapes, attributes and constants decoded), so that running
// touches no MLIR object and programs run on several threads. An op the
// interpreter does not know fails that translation; a run-time fault (integer
// division by zero, a non-positive loop step) stops the run; both are reported
// with emitError at the op's location and failure is returned. `tile.print`
// output goes to Options::out, program by program in launch order.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_INTERPRETER_INTERPRETER_H
#define TESSERA_INTERPRETER_INTERPRETER_H

#include "lib/Support/DType.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mlir::tile {
class KernelOp;
}

namespace tessera::interp {

/// A kernel argument: a tensor in host memory (not owned; element strides,
/// empty for row-major contiguous) or a scalar, converted to the declared type.
struct Arg {
  bool isTensor = false;
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  double scalar = 0;

  static Arg tensor(void *data, DType t, std::vector<int64_t> shape) {
    Arg a;
    a.isTensor = true;
    a.data = data;
    a.dtype = t;
    a.shape = std::move(shape);
    return a;
  }
  static Arg of(double v) {
    Arg a;
    a.scalar = v;
    return a;
  }
};

struct Options {
  std::array<int64_t, 3> grid = {1, 1, 1};
  unsigned threads = 0;             // 0: one per hardware thread
  llvm::raw_ostream *out = nullptr; // tile.print; null: llvm::outs()
};

/// Runs `kernel` over the grid. Arguments must match the kernel's parameters
/// in kind, element type and rank (the runtime's binding checks the rest).
mlir::LogicalResult run(mlir::tile::KernelOp kernel, llvm::ArrayRef<Arg> args, const Options &opts);

/// f16 and bf16 rounding (nearest even), shared with the tests.
float roundToHalf(float v);
float roundToBFloat(float v);
/// IEEE half bits from a float (nearest even) and back.
uint16_t floatToHalfBits(float v);
float halfBitsToFloat(uint16_t h);

} // namespace tessera::interp

#endif
