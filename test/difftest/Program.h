//===- Program.h - random tile programs for differential testing -*- C++ -*-===//
//
// A generated program is kept as a small syntax tree (expressions, statements,
// parameters, sizes) rather than as text, so that the reducer can cut it down
// and the printer can turn any cut-down version back into a .tile source. Every
// expression node carries what the comparison needs: an upper bound on its
// magnitude, an upper bound on how far two correct executors (the GPU and the
// interpreter, or the padded and the unpadded interpreter) may disagree on it,
// and whether both must compute it bit for bit (no reduction order, no
// approximate function, no fused multiply-add). analyze() recomputes them
// bottom-up; legal() says whether a tree keeps the rules that make the bounds
// hold (comparisons and float-to-int conversions only of exact values, no
// overflow of 16-bit floats or of integers).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_DIFFTEST_PROGRAM_H
#define TESSERA_TEST_DIFFTEST_PROGRAM_H

#include "lib/Support/DType.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessera::difftest {

/// The shapes a generated value can have: a program's [BM, BN] block, its
/// transpose, one entry per row or per column of the block, a scalar, and a
/// dot's operands [BM, BK] and [BK, BN].
enum class Shape { Full, FullT, Rows, Cols, Scalar, MK, KN };

struct Ty {
  DType dt = DType::F32;
  Shape sh = Shape::Full;
  bool operator==(const Ty &o) const { return dt == o.dt && sh == o.sh; }
};

/// What an expression node computes; analyze() knows the error rule of each.
enum class Op {
  Leaf,      // text: a load, an index tile, a parameter (exact, magnitude given)
  Ref,       // text: a let/var name (bounds from its definition)
  Lit,       // text: a literal; mag is its magnitude
  Add,       // $0 + $1
  Sub,       // $0 - $1
  Mul,       // $0 * $1
  Fma,       // fma($0, $1, $2): one rounding (in f32 for f16 and bf16, then to the type)
  Scale,     // $0 * 2^k (a power-of-two literal: exact)
  Div,       // $0 / (abs($1) + 1.0)
  IDiv,      // $0 / k, integer
  Rem,       // $0 % k, integer
  Neg,       // -$0
  Abs,       // abs($0)
  Maximum,   // maximum($0, $1)
  Minimum,   // minimum($0, $1)
  Select,    // where($0, $1, $2)
  Cmp,       // $0 <op> $1 (text holds the operator)
  And,       // $0 && $1
  Or,        // $0 || $1
  Not,       // !$0
  ExpNeg,    // exp(-abs($0))
  Exp2Neg,   // exp2(-abs($0))
  Tanh,      // tanh($0)
  Sigmoid,   // sigmoid($0)
  Log1,      // log(abs($0) + 1.0)
  Sqrt1,     // sqrt(abs($0) + 1.0)
  Rsqrt1,    // rsqrt(abs($0) + 1.0)
  Convert,   // $0.to(dt)
  Bcast,     // $0[:, None] / $0[None, :] (text holds the index)
  Transpose, // $0.T
  Permute,   // permute($0, [1, 0])
  Reshape,   // reshape($0, [...]) (text holds the shape list)
  Reduce,    // sum/max/min($0, axis) (text: kind; axis)
  ArgReduce, // argmax/argmin($0, axis)
  Scan,      // cumsum/cummax/cummin($0, axis)
  Dot,       // dot($0, $1, $2) (extent: the inner extent)
};

struct Expr;
using ExprP = std::shared_ptr<Expr>;

struct Expr {
  Op op = Op::Leaf;
  Ty ty;
  std::string text;   // leaf text, operator, reduction kind or shape list
  int axis = 0;       // Reduce, ArgReduce, Scan
  int64_t extent = 1; // Reduce, Scan: elements along the axis; Lit: unused
  std::vector<ExprP> kids;
  // Leaf/Lit: given; otherwise computed by analyze().
  double mag = 1;
  double err = 0;
  bool exact = true;
};

/// One statement. Let/Var bind `name` to `value`; Assign sets a var; Store
/// prints `text` with `$0` replaced by the value; For repeats `body` (`head` is
/// `for i in range(...)`, at most `trips` times); If runs `body` when `head`
/// (a condition's text) holds, else `orelse`; Assert checks `value || !value`
/// (a bool that holds whatever it computes).
struct Stmt {
  enum class Kind { Let, Var, Assign, Store, For, If, Assert } kind = Kind::Let;
  std::string name;
  ExprP value;
  std::string text;
  std::string target;    // Store: the tensor written
  int contributions = 1; // Store: programs adding into one element (atomics)
  std::string head;
  int trips = 1;
  std::vector<Stmt> body, orelse;
  bool prelude = false; // the fixed lets every program starts with
};

struct TensorParam {
  std::string name;
  DType dt = DType::F32;
  std::vector<std::string> dims; // dim names
  bool output = false;           // written (and so compared); read and written as InOut
  bool anchor = false;           // declared even when unused (it names the grid's dims)
  double lo = -1, hi = 1;        // input values: uniform floats, or integers in [lo, hi]
};

struct ScalarParam {
  std::string name;
  DType dt = DType::I32;
  double value = 0;
};

struct Program {
  uint64_t seed = 0;
  std::vector<TensorParam> tensors;
  std::vector<ScalarParam> scalars;
  std::vector<std::pair<std::string, int64_t>> tunes; // one value each: BM, BN, ...
  std::string grid;
  std::vector<Stmt> body;
  std::map<std::string, int64_t> dims;
  std::set<std::string> features; // what the program exercises (counted per run)
  /// A program read back from a saved regression has only its text (and the
  /// tolerances it was saved with); source() returns it unchanged.
  std::string fixedSource;
  std::map<std::string, double> fixedTolerances;

  /// The .tile source of kernel `k` (tensors the body no longer uses are left out).
  std::string source() const;
  /// Tensors the body mentions (and anchors), in declaration order.
  std::vector<const TensorParam *> usedTensors() const;
  /// The values of the dims the used tensors name.
  std::map<std::string, int64_t> usedDims() const;
  /// Whether some tile extent is not a power of two (the padded path differs).
  bool hasOddExtents() const;
  /// Whether the source names an f8 type (code generation rewrites those).
  bool usesF8() const;
  /// The absolute tolerance per output tensor (after analyze()).
  std::map<std::string, double> tolerances() const;
  int statementCount() const;
};

/// The bounds of a named value (a let, a var after any trips of its loops).
struct Bounds {
  double mag = 0, err = 0;
  bool exact = true;
};

/// Recomputes the bounds of `e` and its operands, names taken from `env`.
/// False when the tree breaks a rule the bounds rely on.
bool analyzeExpr(Expr &e, const std::map<std::string, Bounds> &env);

/// Recomputes every node's bounds, in statement order. False when some node
/// breaks a rule the bounds rely on, or a name is used before its definition.
/// `names` (when given) receives the bounds of every name after the body
/// (a var's over any trips of its loops and either branch of its ifs).
bool analyze(Program &p, std::map<std::string, Bounds> *names = nullptr);

/// The body of the combiner of a scan() node ("scan:max" -> "max(a, b)"),
/// over its parameters `a` (the prefix so far) and `b`.
std::string scanCombiner(llvm::StringRef kind);

/// Machine epsilon of a float type (half an ulp at 1); 0 for integers.
double epsOf(DType dt);

} // namespace tessera::difftest

#endif
