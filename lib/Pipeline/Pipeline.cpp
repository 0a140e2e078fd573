//===- Pipeline.cpp - tile IR to PTX ----------------------------*- C++ -*-===//
#include "lib/Pipeline/Pipeline.h"

#include "lib/Conversion/Passes.h"
#include "lib/Target/PTX.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdlib>

using namespace mlir;

void tessera::pipeline::registerCodegenDialects(DialectRegistry &registry) {
  target::registerTargetDialects(registry);
  registry.insert<cf::ControlFlowDialect>();
}

namespace {

/// Outside debugging, a kernel's asserts (and what only they used) go before
/// the first pass: they cost nothing, and no pass sees their memory effect
/// (a write, which keeps loops from being split or their gathers prefetched).
void dropAsserts(tile::KernelOp kernel) {
  if (kernel->hasAttr("tile.debug"))
    return;
  SmallVector<tile::AssertOp> asserts;
  kernel.walk([&](tile::AssertOp a) { asserts.push_back(a); });
  SmallVector<Operation *> maybeDead;
  for (tile::AssertOp a : asserts) {
    for (Value v : a->getOperands())
      if (Operation *def = v.getDefiningOp())
        maybeDead.push_back(def);
    a.erase();
  }
  // An op may be queued once per use: look at each one only while it lives.
  llvm::DenseSet<Operation *> erased;
  while (!maybeDead.empty()) {
    Operation *op = maybeDead.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    erased.insert(op);
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        maybeDead.push_back(def);
    op->erase();
  }
}

} // namespace

LogicalResult tessera::pipeline::lowerToLLVMDialect(ModuleOp module, llvm::StringRef arch,
                                                    TimingScope *timing) {
  module.walk([](tile::KernelOp k) { dropAsserts(k); });
  PassManager pm(module.getContext());
  verifyOnce(pm);
  std::optional<TimingScope> passes;
  if (timing) {
    passes = timing->nest("code generation passes");
    pm.enableTiming(*passes);
  }
  pm.addNestedPass<tile::KernelOp>(tile::createTileLegalizeFloat8());
  pm.addNestedPass<tile::KernelOp>(tile::createTilePadExtents());
  pm.addNestedPass<tile::KernelOp>(tile::createTileClusterPrograms({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileGroupPrograms());
  pm.addNestedPass<tile::KernelOp>(tile::createTileSplitK());
  pm.addNestedPass<tile::KernelOp>(tile::createTilePersistent());
  pm.addNestedPass<tile::KernelOp>(tile::createTileAssignLayouts({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileStageOperands());
  pm.addNestedPass<tile::KernelOp>(tile::createTileSoftwarePipeline({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileTmaStore({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileAllocateShared({arch.str()}));
  pm.addNestedPass<tile::KernelOp>(tile::createTileInsertBarriers());
  pm.addNestedPass<tile::KernelOp>(tile::createTileRotateDots());
  pm.addNestedPass<tile::KernelOp>(tile::createTilePingPong());
  pm.addNestedPass<tile::KernelOp>(tile::createTileUniformMasks());
  pm.addPass(tile::createConvertTileToLLVM({arch.str()}));
  // NVVM ops without an intrinsic (wgmma.mma_async) become their PTX.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tile::createTileSinkSharedLoads());
  if (failed(pm.run(module)))
    return failure();
  if (verifiesEachPass())
    return success();
  std::optional<TimingScope> verifying;
  if (passes)
    verifying = passes->nest("verify");
  if (failed(verify(module))) // names no pass: TESSERA_VERIFY_EACH_PASS=1 finds it
    return module.emitError("internal compiler error: code generation produced invalid IR");
  return success();
}

bool tessera::pipeline::verifiesEachPass() {
  static const bool each = [] {
    const char *v = getenv("TESSERA_VERIFY_EACH_PASS");
    return v && *v && llvm::StringRef(v) != "0";
  }();
  return each;
}

void tessera::pipeline::verifyOnce(PassManager &pm) { pm.enableVerifier(verifiesEachPass()); }

FailureOr<int64_t> tessera::pipeline::sharedMemoryBytes(tile::KernelOp kernel,
                                                        llvm::StringRef arch) {
  OpBuilder b(kernel.getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  auto copy = cast<tile::KernelOp>(b.clone(*kernel));
  dropAsserts(copy);
  PassManager pm(kernel.getContext(), tile::KernelOp::getOperationName());
  verifyOnce(pm); // an analysis of a copy; the compile verifies its own IR
  pm.addPass(tile::createTileLegalizeFloat8());
  pm.addPass(tile::createTilePadExtents());
  pm.addPass(tile::createTileClusterPrograms({arch.str()})); // the empty barriers of a cluster
  pm.addPass(tile::createTilePersistent());                  // its ring outlives each tile's loop
  pm.addPass(tile::createTileAssignLayouts({arch.str()}));
  pm.addPass(tile::createTileStageOperands());
  pm.addPass(tile::createTileSoftwarePipeline({arch.str()}));
  pm.addPass(tile::createTileTmaStore({arch.str()}));
  pm.addPass(tile::createTileAllocateShared({arch.str(), /*checkLimit=*/false}));
  if (failed(pm.run(copy)))
    return failure();
  auto bytes = copy->getAttrOfType<IntegerAttr>("tile.shared_bytes");
  return bytes ? bytes.getInt() : 0;
}

std::vector<std::pair<std::string, std::string>>
tessera::pipeline::enableAsserts(tile::KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  kernel->setAttr("tile.debug", UnitAttr::get(ctx));
  std::vector<std::pair<std::string, std::string>> sites;
  kernel.walk([&](tile::AssertOp a) {
    // The program ids a failure reports: program_id ops, which persistent
    // schedules rewrite to their virtual programs as any other.
    if (a.getPids().empty()) {
      OpBuilder b(a);
      SmallVector<Value, 3> ids;
      for (int32_t axis = 0; axis < 3; ++axis)
        ids.push_back(tile::ProgramIdOp::create(b, a.getLoc(), b.getI32Type(), axis));
      a.getPidsMutable().assign(ids);
    }
    std::string where;
    if (auto fl = dyn_cast<FileLineColLoc>(a.getLoc()))
      where = (fl.getFilename().getValue() + ":" + llvm::Twine(fl.getLine()) + ":" +
               llvm::Twine(fl.getColumn()))
                  .str();
    sites.push_back({where, a.getMessage().str()});
    a->setAttr("tile.assert_id",
               IntegerAttr::get(IntegerType::get(ctx, 32), (int64_t)sites.size()));
  });
  return sites;
}

LogicalResult tessera::pipeline::padExtents(tile::KernelOp kernel) {
  PassManager pm(kernel.getContext(), tile::KernelOp::getOperationName());
  pm.addPass(tile::createTileLegalizeFloat8());
  pm.addPass(tile::createTilePadExtents());
  return pm.run(kernel);
}

llvm::Expected<std::string> tessera::pipeline::toLLVMIR(ModuleOp module, llvm::StringRef arch) {
  return target::translateToLLVMIR(module, arch);
}

llvm::Expected<std::string> tessera::pipeline::toPTX(ModuleOp module, llvm::StringRef arch,
                                                     unsigned optLevel, llvm::StringRef passes) {
  target::PTXOptions options;
  options.optLevel = optLevel;
  options.passes = passes.str();
  return target::emitPTX(module, arch, options);
}
