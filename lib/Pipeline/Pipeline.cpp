//===- Pipeline.cpp - tile IR to PTX ----------------------------*- C++ -*-===//
#include "lib/Pipeline/Pipeline.h"

#include "lib/Conversion/Passes.h"
#include "lib/Target/PTX.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tessera::pipeline::registerCodegenDialects(DialectRegistry &registry) {
  target::registerTargetDialects(registry);
  registry.insert<cf::ControlFlowDialect>();
}

LogicalResult tessera::pipeline::lowerToLLVMDialect(ModuleOp module, llvm::StringRef arch) {
  PassManager pm(module.getContext());
  pm.addNestedPass<tile::KernelOp>(tile::createTileAssignLayouts({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileStageOperands());
  pm.addNestedPass<tile::KernelOp>(tile::createTileAllocateShared({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileInsertBarriers());
  pm.addPass(tile::createConvertTileToLLVM({arch.str()}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tile::createTileSinkSharedLoads());
  return pm.run(module);
}

llvm::Expected<std::string> tessera::pipeline::toLLVMIR(ModuleOp module, llvm::StringRef arch) {
  return target::translateToLLVMIR(module, arch);
}

llvm::Expected<std::string> tessera::pipeline::toPTX(ModuleOp module, llvm::StringRef arch,
                                                     unsigned optLevel) {
  target::PTXOptions options;
  options.optLevel = optLevel;
  return target::emitPTX(module, arch, options);
}
