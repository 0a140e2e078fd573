//===- IRGenImpl.h - internals of IR generation -----------------*- C++ -*-===//
//
// The emitter shared by IRGen.cpp (kernels and statements), IRGenExpr.cpp
// (expressions) and IRGenBuiltins.cpp (built-in calls). It trusts Sema: types
// in the AST are final.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_IRGEN_IRGENIMPL_H
#define TESSERA_IRGEN_IRGENIMPL_H

#include "dialects/Tile/TileDialect.h"
#include "lib/IRGen/IRGen.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace tessera {
namespace irgen {

class Emitter {
public:
  Emitter(mlir::ModuleOp module, const KernelInfo &info, const SourceFile &file)
      : ctx_(module.getContext()), b_(ctx_), module_(module), info_(info), file_(file),
        fileAttr_(mlir::StringAttr::get(ctx_, file.name())) {}

  mlir::LogicalResult emit();

  // Expressions (IRGenExpr.cpp).
  mlir::Value emitExpr(const Expr &e);
  mlir::Value emitConstant(const Expr &e);
  mlir::Value emitName(const Expr &e);
  mlir::Value emitUnary(const Expr &e);
  mlir::Value emitBinary(const Expr &e);
  mlir::Value emitIndex(const Expr &e);
  mlir::Value emitElementAccess(const Expr &e);
  /// The indices of the subscript `sub` (`t[i...]`), each broadcast to `shape`.
  llvm::SmallVector<mlir::Value> elementIndices(const Expr &sub, llvm::ArrayRef<int64_t> shape);
  llvm::SmallVector<mlir::Value> blockIndices(mlir::ValueRange coords,
                                              llvm::ArrayRef<int64_t> shape, mlir::Location l);

  // Built-in calls (IRGenBuiltins.cpp): emitCall dispatches through a table
  // to one member per family of built-ins.
  mlir::Value emitCall(const Expr &e);
  mlir::Value emitProgramQuery(const Expr &e);
  mlir::Value emitArange(const Expr &e);
  mlir::Value emitConstructor(const Expr &e);
  mlir::Value emitMemoryCall(const Expr &e);
  mlir::Value emitAtomic(const Expr &e);
  mlir::Value emitMultipleOf(const Expr &e);
  mlir::Value emitDot(const Expr &e);
  mlir::Value emitShapeChange(const Expr &e);
  mlir::Value emitReduction(const Expr &e);
  mlir::Value emitMinMax(const Expr &e);
  mlir::Value emitFma(const Expr &e);
  /// A call's arguments, each broadcast to the call's shape (element-wise built-ins).
  llvm::SmallVector<mlir::Value, 3> broadcastArgs(const Expr &e);
  mlir::Value emitArgReduction(const Expr &e);
  mlir::Value emitScan(const Expr &e);
  mlir::Value emitScalarHelper(const Expr &e);
  mlir::Value emitUnaryMath(const Expr &e);
  mlir::Value emitWhere(const Expr &e);
  mlir::Value emitAssert(const Expr &e);
  mlir::Value emitPrint(const Expr &e);
  /// argmax/argmin of `x` (flipped already where unsigned) along `axis`.
  mlir::Value emitArgReduce(const Expr &e, mlir::Value x, int64_t axis);
  /// The values of `list`'s elements, in order.
  llvm::SmallVector<mlir::Value> emitEach(const Expr &list);
  /// `v`, the i32 result of an index built-in, in `e`'s type (i64 in the
  /// 64-bit size class).
  mlir::Value widenIndex(const Expr &e, mlir::Value v);

  mlir::Value broadcastTo(mlir::Value v, llvm::ArrayRef<int64_t> shape, mlir::Location loc);
  /// A 1-D tile laid along `axis` of `shape` (unit axes elsewhere), broadcast to it.
  mlir::Value alongAxis(mlir::Value line, llvm::ArrayRef<int64_t> shape, int64_t axis,
                        mlir::Location loc);
  mlir::Value scalarConst(DType t, double v, mlir::Location loc);

  // Integer signedness (IRGenInt.cpp).
  /// An integer attribute of type `t` holding the low bits of `v`.
  mlir::IntegerAttr intAttr(mlir::Type t, int64_t v);
  /// `x` with its sign bit flipped: unsigned order becomes signed order.
  mlir::Value flipSign(mlir::Value x, mlir::Location loc);
  /// `x` (of language type `from`) converted to `to`, unsigned where a side is.
  mlir::Value emitConvert(mlir::Value x, DType from, DType to, mlir::Location loc);
  /// `op(x)` for an op that orders values (max, min, argmax): for unsigned `t`,
  /// applied to flipped values (and its result flipped back).
  mlir::Value emitOrdered(mlir::Value x, DType t, mlir::Location loc,
                          llvm::function_ref<mlir::Value(mlir::Value)> op);
  mlir::Type typeOf(const ValueType &t);
  mlir::Location loc(SourceLoc l) { return mlir::FileLineColLoc::get(fileAttr_, l.line, l.col); }

  // Statements (IRGen.cpp).
  void emitBlock(const std::vector<StmtPtr> &stmts);
  void emitStmt(const Stmt &s);
  void emitFor(const Stmt &s);
  void emitIf(const Stmt &s);
  /// Variables assigned in `stmts` that already have a value (declared outside).
  llvm::SmallVector<const Symbol *> carriedVars(const std::vector<StmtPtr> &a,
                                                const std::vector<StmtPtr> *b = nullptr);
  void emitDims(mlir::Block &block);

  mlir::MLIRContext *ctx_;
  mlir::OpBuilder b_;
  mlir::ModuleOp module_;
  const KernelInfo &info_;
  const SourceFile &file_;
  mlir::StringAttr fileAttr_;
  /// The current value of every parameter, dim and local (per region).
  llvm::DenseMap<const Symbol *, mlir::Value> values_;
};

} // namespace irgen
} // namespace tessera

#endif
