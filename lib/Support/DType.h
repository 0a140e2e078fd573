//===- DType.h - element types of the language ------------------*- C++ -*-===//
//
// The element types a Tessera program can name (f32 f16 bf16 f64 i32 i64 bool), their
// spelling, and their MLIR types.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_SUPPORT_DTYPE_H
#define TESSERA_SUPPORT_DTYPE_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace tessera {

enum class DType { F32, F16, BF16, I32, I64, Bool, F64 };

std::optional<DType> parseDType(llvm::StringRef name);
llvm::StringRef dtypeName(DType t);
bool isFloat(DType t);
bool isInt(DType t); // i32 or i64 (not bool)
unsigned dtypeBytes(DType t);
mlir::Type toMLIRType(DType t, mlir::MLIRContext *ctx);
std::optional<DType> fromMLIRType(mlir::Type t);

} // namespace tessera

#endif
