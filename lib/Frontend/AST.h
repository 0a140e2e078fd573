//===- AST.h - the tile language syntax tree --------------------*- C++ -*-===//
//
// The syntax tree the parser builds. Expression nodes carry slots that Sema fills
// for one specialization (type, compile-time value, the symbol a name resolves
// to); IRGen reads them. Nodes own their children through unique_ptr.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_AST_H
#define TESSERA_FRONTEND_AST_H

#include "lib/Support/DType.h"
#include "lib/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

/// The type Sema gives an expression: a scalar (empty shape) or a tile.
struct ValueType {
  enum Kind { Error, Void, Value } kind = Error;
  DType dtype = DType::I32;
  llvm::SmallVector<int64_t, 4> shape;
  /// A literal (or an expression of literals) whose dtype may still adopt the
  /// other operand's.
  bool literal = false;

  bool isError() const { return kind == Error; }
  bool isVoid() const { return kind == Void; }
  bool isScalar() const { return kind == Value && shape.empty(); }
  bool isTile() const { return kind == Value && !shape.empty(); }
  static ValueType scalar(DType t, bool literal = false) {
    ValueType v;
    v.kind = Value;
    v.dtype = t;
    v.literal = literal;
    return v;
  }
  static ValueType tile(DType t, llvm::ArrayRef<int64_t> shape) {
    ValueType v;
    v.kind = Value;
    v.dtype = t;
    v.shape.assign(shape.begin(), shape.end());
    return v;
  }
  static ValueType voidType() {
    ValueType v;
    v.kind = Void;
    return v;
  }
  /// "f32", "tensor<128x64xbf16>", "no value".
  std::string str() const;
  bool sameAs(const ValueType &o) const {
    return kind == o.kind && dtype == o.dtype && shape == o.shape;
  }
};

enum class ExprKind {
  Int,
  Float,
  Bool,
  Str,
  Name,
  Unary,
  Binary,
  Call,
  Index,
  Attr,
  Method,
  List,
  Lambda, // `(a, b) => body`: args[0] is the body, `params` the parameters
};
enum class BinOp { Add, Sub, Mul, Div, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
enum class UnOp { Neg, Not };
const char *binOpSpelling(BinOp op);

struct Symbol;
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// One entry of `x[...]`: `:`, `None`, or (an error) an expression.
struct IndexItem {
  enum Kind { Colon, None, Expr } kind;
  SourceLoc loc;
  ExprPtr expr;
};

/// A parameter of a function literal `(a, b) => ...`.
struct LambdaParam {
  std::string name;
  SourceLoc loc;
  const Symbol *symbol = nullptr; // filled by Sema
};

struct KwArg {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;   // the operator, callee or literal: where most errors point
  SourceLoc begin; // the first token of the expression
  int64_t intValue = 0;
  double floatValue = 0;
  bool boolValue = false;
  std::string name; // Name; Call callee; Attr / Method name; Str: the string's text
  BinOp binOp = BinOp::Add;
  UnOp unOp = UnOp::Neg;
  std::vector<ExprPtr> args; // operands, call args, list items; base first for Index/Attr/Method
  std::vector<KwArg> kwargs;
  std::vector<IndexItem> index;
  std::vector<LambdaParam> params; // Lambda
  size_t endOffset = 0;            // byte offset just past the expression (for print prefixes)
  size_t beginOffset = 0;
  unsigned depth = 1; // height of the subtree (the parser bounds it)

  // Filled by Sema.
  ValueType type;
  std::optional<int64_t> constant; // compile-time integer or bool value
  std::optional<double> fconstant; // compile-time value of a float literal expression
  /// Non-constant only because these dims are not specialized yet.
  llvm::SmallVector<std::string, 2> dimDeps;
  const Symbol *symbol = nullptr; // for Name

  Expr(ExprKind k, SourceLoc l) : kind(k), loc(l), begin(l) {}
  /// Where to point for a problem with the expression as a whole.
  SourceLoc start() const { return begin.valid() ? begin : loc; }
};

enum class StmtKind { Let, Var, Assign, For, If, Expr };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::string name; // let/var/assign target, for loop variable
  SourceLoc nameLoc;
  ExprPtr value;        // let/var/assign/expr
  ExprPtr lo, hi, step; // for
  ExprPtr cond;         // if
  std::vector<StmtPtr> body, elseBody;
  bool hasElse = false;

  // Filled by Sema.
  const Symbol *symbol = nullptr; // declared (let/var/for) or assigned (assign) symbol

  Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

/// An extent in a tensor type: a name or a positive integer literal.
struct DimSpec {
  bool isName = false;
  std::string name;
  int64_t value = 0;
  SourceLoc loc;
};

struct Param {
  std::string name;
  SourceLoc loc;
  bool isTensor = false;
  DType dtype = DType::F32;
  SourceLoc typeLoc;
  std::vector<DimSpec> dims;
};

struct TuneDecl {
  std::string name;
  SourceLoc loc;
  std::vector<std::pair<int64_t, SourceLoc>> values;
};

struct WhereDecl {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};

struct Kernel {
  std::string name;
  SourceLoc loc;
  std::vector<Param> params;
  std::vector<TuneDecl> tunes;
  std::vector<WhereDecl> wheres;
  std::vector<ExprPtr> grid;
  SourceLoc gridLoc;
  bool hasGrid = false;
  std::vector<StmtPtr> body;
  SourceLoc bodyLoc;
  bool hasSyntaxErrors = false; // parts were skipped: not fit for Sema
};

struct Module {
  std::vector<std::unique_ptr<Kernel>> kernels;
  const Kernel *find(llvm::StringRef name) const;
};

/// Prints the tree as indented S-expressions with locations (`--emit ast`).
void dumpAST(const Module &m, llvm::raw_ostream &os);

} // namespace tessera

#endif
