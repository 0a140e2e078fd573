//===- tessera-opt.cpp - the MLIR driver for tile IR ------------*- C++ -*-===//
//
// MlirOptMain with the tile dialect and passes, the upstream dialects tile IR uses, and the
// upstream transformation passes (and func, to test single ops). Drives the lit tests of the IR.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/Passes.h"
#include "lib/IRGen/IRGen.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::tile::registerTilePasses();
  mlir::tile::registerTileConversionPasses();
  mlir::DialectRegistry registry;
  tessera::registerTileIRDialects(registry);
  registry.insert<mlir::func::FuncDialect>(); // for IR tests of single ops
  registry.insert<mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessera tile IR optimizer driver\n", registry));
}
