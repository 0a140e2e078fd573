//===- SemaImpl.h - internals of semantic analysis --------------*- C++ -*-===//
//
// The checker class shared by Sema.cpp (kernel-level symbols and clauses),
// SemaExpr.cpp (expressions), the files of the built-ins' rules (SemaBuiltins.cpp
// and those it names) and SemaStmt.cpp (statements).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_SEMAIMPL_H
#define TESSERA_FRONTEND_SEMAIMPL_H

#include "lib/Frontend/Sema.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <set>

namespace tessera {
namespace sema {

/// Where an expression is evaluated: `where` clauses run on the host with every
/// dim and scalar known; the grid runs on the host at launch; the body on the GPU.
enum class Mode { Where, Grid, Body };

/// "[128, 64]"
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// Whether the integer constant `v` is a value of `t` (every i64 is).
bool fits(DType t, int64_t v);

/// `v` as a value of integer type `t` (wrapping, as the conversion does): the
/// constants Sema keeps are the values themselves, unsigned ones non-negative.
int64_t wrapTo(DType t, int64_t v);

class Checker;

/// The arguments of one built-in call, each checked at most once: checking an
/// argument again would make nested calls exponential.
class CallArgs {
public:
  CallArgs(Checker &c, Expr &call) : c_(c), call_(call) {}
  /// Checks `x` (once) and requires a value; false after an error.
  bool value(Expr &x);
  /// value() of every argument of the call; false after any error.
  bool all();

private:
  Checker &c_;
  Expr &call_;
  llvm::SmallPtrSet<Expr *, 4> checked_;
};

/// Types one call of a built-in function (the table in SemaBuiltins.cpp).
using BuiltinRule = void (Checker::*)(Expr &, CallArgs &);

class Checker {
public:
  Checker(Kernel &k, const Specialization &spec, DiagnosticEngine &diags,
          const std::set<std::string> &specialized)
      : k_(k), spec_(spec), diags_(diags), specialized_(specialized) {}

  /// Runs the whole analysis; returns the info (null after errors).
  std::unique_ptr<KernelInfo> run();
  /// Dims found to need specialization during this run.
  const std::set<std::string> &wantSpecialized() const { return want_; }
  /// Dims and scalars whose compile-time value was defaulted (for notes).
  const std::vector<const Symbol *> &defaulted() const { return defaulted_; }

  // Kernel level (Sema.cpp).
  bool declareKernelSymbols();
  void checkClauses();
  Symbol &newSymbol(Symbol::Kind kind, llvm::StringRef name, SourceLoc loc);
  const Symbol *lookup(llvm::StringRef name) const;

  // Expressions (SemaExpr.cpp).
  void check(Expr &e);
  void checkKind(Expr &e);
  void checkName(Expr &e);
  void checkUnary(Expr &e);
  void checkBinary(Expr &e);
  void checkCall(Expr &e);
  void checkIndex(Expr &e);
  void checkAttr(Expr &e);
  void checkMethod(Expr &e);
  // The rules of built-in calls, one per family (BuiltinRule): clause helpers,
  // program ids and constructors (SemaBuiltins.cpp), tile operations
  // (SemaTileOps.cpp), load and store (SemaMemory.cpp), atomics
  // (SemaAtomics.cpp) and scan(x, axis, (a, b) => ...) (SemaScan.cpp).
  void checkRange(Expr &e, CallArgs &args);
  void checkScalarHelper(Expr &e, CallArgs &args);
  void checkMinMax(Expr &e, CallArgs &args);
  void checkNumSms(Expr &e, CallArgs &args);
  void checkProgramId(Expr &e, CallArgs &args);
  void checkArange(Expr &e, CallArgs &args);
  void checkConstructor(Expr &e, CallArgs &args);
  void checkMultipleOf(Expr &e, CallArgs &args);
  void checkAssert(Expr &e, CallArgs &args);
  void checkPrint(Expr &e, CallArgs &args);
  void checkDot(Expr &e, CallArgs &args);
  void checkReduction(Expr &e, CallArgs &args);
  void checkUnaryMath(Expr &e, CallArgs &args);
  void checkElementwiseMinMax(Expr &e, CallArgs &args);
  void checkFma(Expr &e, CallArgs &args);
  void checkWhere(Expr &e, CallArgs &args);
  /// reshape(x, [s...]) and permute(x, [d...]): the new shape of a tile.
  void checkShapeChange(Expr &e, CallArgs &args);
  void checkMemoryCall(Expr &e, CallArgs &args);
  void checkAtomicCall(Expr &e, CallArgs &args);
  void checkScan(Expr &e, CallArgs &args);
  void checkElementAccess(Expr &e);
  /// Types the subscript `t[i...]` of an element access; returns the access shape.
  std::optional<llvm::SmallVector<int64_t, 4>> checkSubscript(Expr &sub, llvm::StringRef fn);
  /// Gives two operands one element type by the literal rules; false after an error.
  bool unify(Expr &a, Expr &b, SourceLoc loc, const char *what);
  /// Makes a literal (sub)expression take element type `t`.
  bool retype(Expr &e, DType t);
  /// False, after a located error, when `t` is an f8 type: f8 values only move
  /// (load, store, where, reshape), convert and feed dot().
  bool rejectF8(DType t, SourceLoc loc, const std::string &what);
  /// Adapts `e` to a context that needs dtype `t` (literals adopt it).
  bool coerce(Expr &e, DType t, const std::string &what);
  /// Adapts `e` to a context that takes an i32 or i64 integer (a coordinate, a
  /// loop bound): an i64 stays i64, anything else must become i32.
  bool coerceIndex(Expr &e, const std::string &what);
  /// Makes the i32 `e` an i64: a constant is retyped, anything else is wrapped
  /// in an implicit `.to(i64)` (the 64-bit size class's widening).
  bool widenToI64(Expr &e);
  /// Why an i64 appears where an i32 is needed, in the 64-bit size class; "" otherwise.
  std::string index64Hint(DType got, DType want) const;
  /// The type of dims, program_id(), num_programs() and arange(): i32, or i64
  /// in the 64-bit size class (Specialization::index64).
  DType indexType() const { return spec_.index64 ? DType::I64 : DType::I32; }
  std::optional<llvm::SmallVector<int64_t, 4>>
  broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b, SourceLoc loc);
  /// The broadcast shape of every argument of the call `e` (element-wise built-ins).
  std::optional<llvm::SmallVector<int64_t, 4>> broadcastArgShapes(Expr &e);
  std::optional<int64_t> staticInt(Expr &e, const std::string &what);
  std::optional<llvm::SmallVector<int64_t, 4>> staticShape(Expr &e, const std::string &what);
  std::optional<DType> dtypeArg(Expr &e);
  const Symbol *tensorArg(Expr &e, llvm::StringRef fn);
  void foldConstant(Expr &e);
  bool checkArity(Expr &e, size_t lo, size_t hi);
  bool requireDevice(Expr &e);

  // Statements (SemaStmt.cpp).
  void checkBlock(std::vector<StmtPtr> &stmts);
  void checkStmt(Stmt &s);
  void declareLocal(Stmt &s, Symbol::Kind kind, const ValueType &t, const Expr *init);

  void error(SourceLoc loc, const llvm::Twine &msg) { diags_.error(loc, msg); }
  void warning(SourceLoc loc, const llvm::Twine &msg) { diags_.warning(loc, msg); }

  Kernel &k_;
  const Specialization &spec_;
  DiagnosticEngine &diags_;
  const std::set<std::string> &specialized_;
  std::set<std::string> want_;
  std::vector<const Symbol *> defaulted_;
  std::unique_ptr<KernelInfo> info_ = std::make_unique<KernelInfo>();
  llvm::StringMap<const Symbol *> kernelScope_;
  std::vector<llvm::StringMap<const Symbol *>> scopes_;
  Mode mode_ = Mode::Body;
  unsigned nextId_ = 0;
};

/// Checks the coordinate list `list` of a block-form access to tensor `t`.
bool checkCoords(Checker &c, Expr &list, const Symbol &t, llvm::StringRef fn);
/// Checks that `x` (a mask or a value) broadcasts to the access shape.
bool fitsAccess(Checker &c, Expr &x, llvm::ArrayRef<int64_t> access, llvm::StringRef what);
/// Checks a (checked) mask of an element access: bool, fitting the access shape.
bool checkMask(Checker &c, Expr &m, llvm::ArrayRef<int64_t> access);

} // namespace sema
} // namespace tessera

#endif
