//===- DType.cpp - element types of the language ----------------*- C++ -*-===//
#include "lib/Support/DType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

using namespace tessera;

std::optional<DType> tessera::parseDType(llvm::StringRef n) {
  if (n == "f32")
    return DType::F32;
  if (n == "f16")
    return DType::F16;
  if (n == "bf16")
    return DType::BF16;
  if (n == "f64")
    return DType::F64;
  if (n == "i32")
    return DType::I32;
  if (n == "i64")
    return DType::I64;
  if (n == "i8")
    return DType::I8;
  if (n == "u8")
    return DType::U8;
  if (n == "u32")
    return DType::U32;
  if (n == "f8e4m3")
    return DType::F8E4M3;
  if (n == "f8e5m2")
    return DType::F8E5M2;
  if (n == "bool")
    return DType::Bool;
  return std::nullopt;
}

llvm::StringRef tessera::dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  case DType::F64:
    return "f64";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::U32:
    return "u32";
  case DType::F8E4M3:
    return "f8e4m3";
  case DType::F8E5M2:
    return "f8e5m2";
  }
  return "?";
}

bool tessera::isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64 || isF8(t);
}
bool tessera::isF8(DType t) { return t == DType::F8E4M3 || t == DType::F8E5M2; }
bool tessera::isInt(DType t) {
  return t == DType::I32 || t == DType::I64 || t == DType::I8 || t == DType::U8 || t == DType::U32;
}
bool tessera::isIndexInt(DType t) { return t == DType::I32 || t == DType::I64; }
bool tessera::isUnsigned(DType t) { return t == DType::U8 || t == DType::U32; }

unsigned tessera::dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I64:
  case DType::F64:
    return 8;
  case DType::Bool:
  case DType::I8:
  case DType::U8:
  case DType::F8E4M3:
  case DType::F8E5M2:
    return 1;
  }
  return 0;
}

bool tessera::dtypeHolds(DType t, double v) {
  if (isF8(t))
    return false; // no f8 scalars
  if (isFloat(t))
    return true;
  if (v != std::trunc(v))
    return false;
  switch (t) {
  case DType::Bool:
    return v == 0 || v == 1;
  case DType::I8:
    return v >= INT8_MIN && v <= INT8_MAX;
  case DType::U8:
    return v >= 0 && v <= UINT8_MAX;
  case DType::I32:
    return v >= INT32_MIN && v <= INT32_MAX;
  case DType::U32:
    return v >= 0 && v <= UINT32_MAX;
  default:
    return v >= -9.2e18 && v <= 9.2e18;
  }
}

namespace {
const llvm::fltSemantics &f8Semantics(DType t) {
  return t == DType::F8E4M3 ? llvm::APFloat::Float8E4M3FN() : llvm::APFloat::Float8E5M2();
}
} // namespace

double tessera::f8Decode(DType t, uint8_t bits) {
  return llvm::APFloat(f8Semantics(t), llvm::APInt(8, bits)).convertToDouble();
}

uint8_t tessera::f8Encode(DType t, double v) {
  double max = t == DType::F8E4M3 ? 448.0 : 57344.0;
  llvm::APFloat f(std::isnan(v) ? v : std::clamp(v, -max, max));
  bool lost;
  f.convert(f8Semantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint8_t)f.bitcastToAPInt().getZExtValue();
}

mlir::Type tessera::toMLIRType(DType t, mlir::MLIRContext *ctx) {
  mlir::Builder b(ctx);
  switch (t) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I32:
  case DType::U32:
    return b.getI32Type();
  case DType::I8:
  case DType::U8:
    return b.getI8Type();
  case DType::I64:
    return b.getI64Type();
  case DType::Bool:
    return b.getI1Type();
  case DType::F64:
    return b.getF64Type();
  case DType::F8E4M3:
    return mlir::Float8E4M3FNType::get(ctx);
  case DType::F8E5M2:
    return mlir::Float8E5M2Type::get(ctx);
  }
  return {};
}

std::optional<DType> tessera::fromMLIRType(mlir::Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF64())
    return DType::F64;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(64))
    return DType::I64;
  if (t.isInteger(1))
    return DType::Bool;
  if (mlir::isa<mlir::Float8E4M3FNType>(t))
    return DType::F8E4M3;
  if (mlir::isa<mlir::Float8E5M2Type>(t))
    return DType::F8E5M2;
  if (t.isInteger(8)) // or u8: MLIR integers are signless
    return DType::I8;
  return std::nullopt;
}
