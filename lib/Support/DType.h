//===- DType.h - element types of the language ------------------*- C++ -*-===//
//
// The element types a Tessera program can name (f32 f16 bf16 f64 f8e4m3 f8e5m2 i8
// u8 i32 u32 i64 bool), their spelling, and their MLIR types. MLIR integers are signless: u8 is
// i8 and u32 is i32 there, and the frontend picks the unsigned operations
// (division, comparisons, extension, conversions) from the DType.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_SUPPORT_DTYPE_H
#define TESSERA_SUPPORT_DTYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace tessera {

enum class DType { F32, F16, BF16, I32, I64, Bool, F64, I8, U8, U32, F8E4M3, F8E5M2 };

std::optional<DType> parseDType(llvm::StringRef name);
llvm::StringRef dtypeName(DType t);
bool isFloat(DType t);    // f32, f16, bf16, f64 and the two f8 types
bool isF8(DType t);       // f8e4m3 (OCP E4M3FN: no infinities, max 448) or f8e5m2
bool isInt(DType t);      // i8, u8, i32, u32 or i64 (not bool)
bool isIndexInt(DType t); // i32 or i64: indices, dims, grid and 'where' values
bool isUnsigned(DType t); // u8 or u32
unsigned dtypeBytes(DType t);
/// Whether `v` is a value of `t`: any number for a float type, an integer in
/// range for an integer type (i64: within +-9.2e18), 0 or 1 for bool.
bool dtypeHolds(DType t, double v);
/// The value of f8 bits of type `t` (f8e4m3 or f8e5m2).
double f8Decode(DType t, uint8_t bits);
/// The f8 bits of `v`: rounded to nearest even, saturating (a finite value or
/// an infinity beyond the largest finite value becomes it, as PTX's
/// cvt .satfinite does); NaN stays NaN.
uint8_t f8Encode(DType t, double v);
mlir::Type toMLIRType(DType t, mlir::MLIRContext *ctx);
std::optional<DType> fromMLIRType(mlir::Type t);

} // namespace tessera

#endif
