//===- Program.h - the interpreter's instruction form -----------*- C++ -*-===//
//
// A tile.kernel translated for execution: every SSA value becomes a slot, every
// op an Inst with its shapes, attributes and constants decoded, every region a
// Body. Values are Tiles: a shape (empty for a scalar) and elements, floats as
// double (f32/f16/bf16 values already rounded to their type) and integers and bools as int64_t
// (i8 and i32 values kept in their signed range: the IR is signless, and u8 and
// u32 are i8 and i32 there). Internal to lib/Interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_INTERPRETER_PROGRAM_H
#define TESSERA_INTERPRETER_PROGRAM_H

#include "lib/Interpreter/Interpreter.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>

namespace tessera::interp {

enum class EK : uint8_t { F32, F16, BF16, I1, I32, I64, F64, I8, F8E4M3, F8E5M2 };
inline bool isF8EK(EK k) { return k == EK::F8E4M3 || k == EK::F8E5M2; }
inline bool isFloatEK(EK k) {
  return k == EK::F32 || k == EK::F16 || k == EK::BF16 || k == EK::F64 || isF8EK(k);
}

struct Tile {
  EK ek = EK::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<double> f;  // float kinds
  std::vector<int64_t> i; // integer kinds and bools

  Tile(EK k, llvm::ArrayRef<int64_t> s) : ek(k), shape(s.begin(), s.end()) {
    if (isFloatEK(k))
      f.resize(size());
    else
      i.resize(size());
  }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  double get(int64_t idx) const { return isFloatEK(ek) ? (double)f[idx] : (double)i[idx]; }
};
using TileRef = std::shared_ptr<const Tile>;

/// Rounds a float result to the element kind; wraps an integer result. f8
/// kinds saturate (a finite value or an infinity beyond the largest finite one
/// becomes it, as PTX's cvt .satfinite does); NaN stays NaN.
double roundF(EK k, double v);
/// The f8 value of a byte, and the byte of a value (rounded and saturated).
double f8Value(EK k, uint8_t bits);
uint8_t f8Bits(EK k, double v);
int64_t wrapI(EK k, int64_t v);
/// The bits of an integer kind.
inline unsigned widthOf(EK k) { return k == EK::I1 ? 1 : k == EK::I8 ? 8 : k == EK::I32 ? 32 : 64; }
/// An integer kind's value as the unsigned number of its bits (i64 as is).
inline uint64_t unsignedOf(EK k, int64_t v) {
  return k == EK::I64 ? (uint64_t)v : (uint64_t)v & ((1ull << widthOf(k)) - 1);
}

enum class Code : uint16_t {
  Const,
  ProgramId,
  NumPrograms,
  Dim,
  Arange,
  Splat,
  Broadcast,
  ExpandDims,
  Reshape,
  Permute,
  Transpose,
  Convert,
  Load,
  Store,
  Gather,
  Scatter,
  AtomicRMW,
  AtomicCAS,
  MultipleOf,
  Dot,
  Reduce,
  Scan,
  ScanWith, // tile.associative_scan: bodies[0] is the combiner
  Print,
  Assert,
  For,
  If,
  While,
  // binary, same-shape operands
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  PowF,
  Atan2,
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  CeilDivSI,
  FloorDivSI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRSI,
  ShRUI,
  CmpF,
  CmpI,
  // unary
  NegF,
  Exp,
  Exp2,
  Log,
  Log2,
  Log1p,
  Expm1,
  Sqrt,
  Rsqrt,
  AbsF,
  Tanh,
  Sin,
  Cos,
  Erf,
  Floor,
  Ceil,
  Round,
  RoundEven,
  Trunc,
  AbsI,
  Ctlz,
  // ternary
  Select,
  Fma,
};

struct Body;

struct Inst {
  Code code = Code::Const;
  mlir::Operation *op = nullptr; // for diagnostics only
  llvm::SmallVector<int, 4> in;
  llvm::SmallVector<int, 2> out;
  EK ek = EK::F32;                       // result element kind
  llvm::SmallVector<int64_t, 4> shape;   // result shape
  llvm::SmallVector<int64_t, 4> extents; // Load/Store of a padded tile: its block extents
  int64_t a = 0, b = 0;                  // axis, predicate, argument index, flags
  llvm::SmallVector<int64_t, 4> dims;    // Permute: the source axis of each result axis
  TileRef cst;                           // Const
  std::string text;                      // Print prefix
  std::vector<Body> bodies; // For: body; If: then, else; While: before, after; ScanWith: combiner
};

struct Body {
  std::vector<Inst> insts;
  llvm::SmallVector<int, 4> args;   // block arguments
  llvm::SmallVector<int, 4> yields; // terminator operands
};

struct Kernel {
  Body body;
  int numSlots = 0;
  bool prints = false;
  std::vector<EK> argKinds; // scalar parameters' kinds (unused for tensors)
};

/// Translates `kernel`; reports unsupported ops with emitError.
mlir::FailureOr<Kernel> translate(mlir::tile::KernelOp kernel, llvm::ArrayRef<Arg> args);

/// A run-time fault: the op and what went wrong.
struct Fault {
  mlir::Operation *op = nullptr;
  std::string msg;
  explicit operator bool() const { return op != nullptr; }
};

/// Element-wise evaluation (Elementwise.cpp). `ins` has the operands of `inst`.
TileRef evalElementwise(const Inst &inst, llvm::ArrayRef<const Tile *> ins, Fault &fault);
/// tile.convert and the arith casts: `b` is 1 for unsigned sources or results.
TileRef evalConvert(const Inst &inst, const Tile &src);
/// Appends a tile or scalar as text (NumPy-like, long axes elided).
void printTile(llvm::raw_ostream &os, const Tile &t);

} // namespace tessera::interp

#endif
