//===- Sema.h - semantic analysis of a kernel -------------------*- C++ -*-===//
//
// Checks one kernel for one specialization (tune values from --param, dims from
// --dim): resolves names, evaluates `where` clauses, infers the dtype and static
// shape of every expression, applies the literal and broadcasting rules, and
// decides which dims must be specialized because they are used as static extents.
// Results are written into the AST's Sema slots and a KernelInfo; errors go to the
// diagnostic engine with the location of the mistake.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_SEMA_H
#define TESSERA_FRONTEND_SEMA_H

#include "dialects/Tile/Knobs.h"
#include "lib/Frontend/AST.h"

#include <deque>
#include <map>

namespace tessera {

/// What a name in a kernel refers to.
struct Symbol {
  enum Kind { TensorParam, ScalarParam, Dim, Tune, Where, Knob, Let, Var, LoopVar } kind;
  std::string name;
  SourceLoc loc;
  ValueType type;
  std::optional<int64_t> constant; // compile-time value (tune, where, specialized dim, ...)
  std::optional<double> fconstant; // a `let` of a float literal
  llvm::SmallVector<std::string, 2> dimDeps;
  std::optional<int64_t> hostValue; // dims and int scalars: the value `where` clauses see
  unsigned paramIndex = 0;          // params; dims: the tensor parameter they bind to
  unsigned axis = 0;                // dims: the axis of that tensor
  unsigned id = 0;                  // unique within the kernel
  const Param *param = nullptr;
};

/// Values chosen for one compilation: tune overrides and dim (or scalar) values.
struct Specialization {
  std::map<std::string, int64_t> params;
  std::map<std::string, int64_t> dims; // dims and integer (or bool) scalars
  /// Scalar values as `tessera compile --scalar` gives them: an integer or
  /// bool scalar's value is its compile-time value (as in `dims`); a float
  /// scalar's has no effect on the code. Each must name a scalar parameter.
  std::map<std::string, double> scalars;
  /// What num_sms() is: the GPU's multiprocessor count, when one is known.
  std::optional<int64_t> numSms;
  /// The 64-bit size class, for tensors with an extent of 2^31 or more: dims,
  /// program_id(), num_programs() and arange() are i64 instead of i32.
  bool index64 = false;
};

/// What Sema learned about a kernel under a specialization.
struct KernelInfo {
  const Kernel *kernel = nullptr;
  std::vector<std::pair<std::string, int64_t>> tuneValues;  // declared tune params
  std::vector<std::pair<std::string, int64_t>> whereValues; // in declaration order
  std::map<std::string, int64_t> specializedDims;           // dims baked in as constants
  std::optional<int64_t> numSms;                            // when num_sms() is used
  bool index64 = false; // the 64-bit size class (Specialization::index64)
  int64_t numWarps = kDefaultNumWarps, numStages = kDefaultNumStages;
  std::vector<const Symbol *> params; // one per kernel parameter
  std::vector<const Symbol *> dims;   // named dims in order of first appearance
  std::deque<Symbol> symbols;         // owns every symbol the AST points to
};

/// The limit on the number of elements of one tile.
constexpr int64_t kMaxTileElements = 1 << 20;
/// The limit on the registers one tile takes per thread (its elements over
/// the program's threads, 64-bit elements counting twice): four times the 255
/// a thread can hold. Past it, code generation would run for minutes on
/// nothing but spills, so every command refuses the tile at once.
constexpr int64_t kMaxTileRegisters = 4 * 255;
/// The value a dim takes at compile time when no --dim gives one.
constexpr int64_t kDefaultDimValue = 128;

/// Analyzes `kernel` (whose Sema slots it overwrites). Returns null after errors.
std::unique_ptr<KernelInfo> analyzeKernel(Kernel &kernel, const Specialization &spec,
                                          DiagnosticEngine &diags);

/// True for the names of the language's built-in functions.
bool isBuiltinFunction(llvm::StringRef name);

} // namespace tessera

#endif
