//===- Patterns.h - tile-to-LLVM pattern sets -------------------*- C++ -*-===//
//
// Each op family populates its own patterns; TileToLLVM.cpp drives them.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_TILETOLLVM_PATTERNS_H
#define TESSERA_CONVERSION_TILETOLLVM_PATTERNS_H

#include "lib/Conversion/TileToLLVM/Utils.h"

namespace tessera::conversion {

void populateElementwisePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateMemoryPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateReducePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateShapePatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateDotPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populatePrintPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
void populateKernelPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);
/// Scalar math on NVPTX: ex2/lg2/rsqrt/tanh approximations, f16/bf16 through f32.
void populateMathToNVVMPatterns(TileTypeConverter &tc, mlir::RewritePatternSet &patterns);

/// One element-wise scalar conversion with tile.convert's semantics.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to);

} // namespace tessera::conversion

#endif
