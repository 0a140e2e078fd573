//===- DType.cpp - element types of the language ----------------*- C++ -*-===//
#include "lib/Support/DType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

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
  }
  return "?";
}

bool tessera::isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64;
}
bool tessera::isInt(DType t) { return t == DType::I32 || t == DType::I64; }

unsigned tessera::dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I64:
  case DType::F64:
    return 8;
  case DType::Bool:
    return 1;
  }
  return 0;
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
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::Bool:
    return b.getI1Type();
  case DType::F64:
    return b.getF64Type();
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
  return std::nullopt;
}
