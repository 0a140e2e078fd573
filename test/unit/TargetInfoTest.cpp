//===- TargetInfoTest.cpp - hardware facts and the tensor-core predicate --===//
//
// TargetInfo's table, and the property the issue asks for: the tuner's pruning
// and the compiler's layout assignment take the same tensor-core decision for
// every dot (both ask TargetInfo::tensorCoreInstr), on every arch.
//
//===----------------------------------------------------------------------===//
#include "lib/Target/TargetInfo.h"
#include "lib/Transforms/Passes.h"
#include "runtime/autotune/Space.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace tessera;
using tessera::target::TargetInfo;

namespace {

TEST(TargetInfo, SharedMemoryPerArch) {
  EXPECT_EQ(TargetInfo::lookup("sm_90a")->maxSharedBytesPerBlock(), 232448);
  EXPECT_EQ(TargetInfo::lookup("sm_90")->maxSharedBytesPerBlock(), 232448);
  EXPECT_EQ(TargetInfo::lookup("sm_80")->maxSharedBytesPerBlock(), 166912);
  EXPECT_EQ(TargetInfo::lookup("sm_86")->maxSharedBytesPerBlock(), 101376);
  EXPECT_FALSE(TargetInfo::lookup("sm_70"));
  EXPECT_FALSE(TargetInfo::lookup("sm90a"));
  auto bad = TargetInfo::get("sm_70");
  ASSERT_FALSE((bool)bad);
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "unsupported architecture 'sm_70' (supported: sm_80, sm_86, sm_89, sm_90, sm_90a)");
}

// A warp-specialized block's registers: every thread starts with the launch's
// share of the register file; after the producer warpgroup's setmaxnreg down
// and the compute warps' up, the block still holds no more than the file.
TEST(TargetInfo, RegisterBudgetsOfAWarpSpecializedBlock) {
  const TargetInfo &t = *TargetInfo::lookup("sm_90a");
  EXPECT_EQ(t.launchRegisters(384), 168u);
  EXPECT_EQ(t.computeRegisters(8), 232u);
  EXPECT_EQ(t.launchRegisters(640), 96u);
  EXPECT_EQ(t.computeRegisters(16), 104u);
  for (unsigned warps : {8u, 16u}) {
    unsigned compute = 32 * warps, producer = 128;
    EXPECT_EQ(t.computeRegisters(warps) % 8, 0u);
    EXPECT_LE(compute * t.computeRegisters(warps) + producer * t.producerRegisters(),
              t.launchRegisters(compute + producer) * (compute + producer))
        << warps << " compute warps take only what the producer gave up";
  }
}

TEST(TargetInfo, InstructionsPerArch) {
  TargetInfo h = *TargetInfo::lookup("sm_90a"), a = *TargetInfo::lookup("sm_80"),
             h90 = *TargetInfo::lookup("sm_90");
  EXPECT_TRUE(h.hasWgmma());
  EXPECT_FALSE(h90.hasWgmma()); // wgmma needs the arch-specific target
  EXPECT_FALSE(a.hasWgmma());
  EXPECT_TRUE(h.hasTMA());
  EXPECT_FALSE(a.hasTMA());
  EXPECT_TRUE(a.hasCpAsync());
  EXPECT_EQ(a.cpAsyncBytes().back(), 16u);
  mlir::MLIRContext ctx;
  mlir::Builder b(&ctx);
  EXPECT_EQ(*a.mmaSync(b.getBF16Type(), b.getF32Type()), (target::MmaInstr{2, 16, 8, 16}));
  EXPECT_FALSE(a.mmaSync(b.getF32Type(), b.getF32Type()));
  EXPECT_EQ(*h.wgmma(b.getF16Type(), b.getF32Type(), 128), (target::MmaInstr{3, 64, 128, 16}));
  EXPECT_FALSE(h.wgmma(b.getF16Type(), b.getF32Type(), 12));
  EXPECT_FALSE(a.wgmma(b.getF16Type(), b.getF32Type(), 128));
}

TEST(TargetInfo, WhereCodeRuns) {
  EXPECT_EQ(TargetInfo::capabilityOf("sm_90a"), 90u);
  EXPECT_EQ(TargetInfo::capabilityOf("sm_100"), 100u);
  EXPECT_EQ(TargetInfo::capabilityOf("gfx90a"), 0u);
  EXPECT_TRUE(TargetInfo::lookup("sm_80")->runsOn(90)); // PTX, JIT-compiled by the driver
  EXPECT_TRUE(TargetInfo::lookup("sm_90a")->runsOn(90));
  EXPECT_FALSE(TargetInfo::lookup("sm_90a")->runsOn(100)); // arch-specific: its own GPU only
  EXPECT_FALSE(TargetInfo::lookup("sm_90")->runsOn(80));
}

struct DotCase {
  const char *name;
  int64_t m, n, k;
  unsigned warps;
  const char *ab, *acc;
  bool tensorCores;
};

class TensorCorePredicate : public ::testing::TestWithParam<DotCase> {};

TEST_P(TensorCorePredicate, DecidesFromTypesShapeAndWarps) {
  const DotCase &c = GetParam();
  mlir::MLIRContext ctx;
  mlir::Builder b(&ctx);
  auto ty = [&](llvm::StringRef n) -> mlir::Type {
    return n == "bf16"  ? (mlir::Type)b.getBF16Type()
           : n == "f16" ? (mlir::Type)b.getF16Type()
                        : (mlir::Type)b.getF32Type();
  };
  target::DotShape s{ty(c.ab), ty(c.acc), c.m, c.n, c.k, c.warps};
  EXPECT_EQ((bool)TargetInfo::lookup("sm_80")->tensorCoreInstr(s), c.tensorCores);
  EXPECT_EQ((bool)TargetInfo::lookup("sm_90a")->tensorCoreInstr(s), c.tensorCores);
}

const DotCase kDots[] = {
    {"Bf16_128x128x32_8Warps", 128, 128, 32, 8, "bf16", "f32", true},
    {"F16_16x8x16_1Warp", 16, 8, 16, 1, "f16", "f32", true},
    {"Bf16_16x16x16_8WarpsTooFewFragments", 16, 16, 16, 8, "bf16", "f32", false},
    {"Bf16_KNotMultipleOf16", 64, 64, 8, 4, "bf16", "f32", false},
    {"Bf16_NNotMultipleOf8", 64, 4, 16, 1, "bf16", "f32", false},
    {"F32Operands", 64, 64, 64, 4, "f32", "f32", false},
    {"F16Accumulator", 64, 64, 64, 4, "f16", "f16", false},
};
INSTANTIATE_TEST_SUITE_P(Dots, TensorCorePredicate, ::testing::ValuesIn(kDots),
                         [](const auto &info) { return std::string(info.param.name); });

/// The tuner's pruning and tile-assign-layouts agree, dot by dot: a
/// configuration is pruned for the tensor cores exactly when the compiler
/// would put its dot on FMA.
TEST(TensorCorePredicate, TunerAndLayoutAssignmentAgree) {
  std::string src =
      "kernel mm(a: tensor<bf16, [M, K]>, b: tensor<bf16, [K, N]>, c: tensor<f32, [M, N]>)\n"
      "  tune BM in [16, 32, 64], BN in [8, 16, 64], BK in [8, 16, 32], num_warps in [1, 4, 8]\n"
      "  grid [1] {\n"
      "  var acc = zeros([BM, BN], f32);\n"
      "  for k in range(0, 4) { acc = dot(load(a, [0, k], [BM, BK]), load(b, [k, 0], [BK, BN]), "
      "acc); }\n"
      "  store(c, [0, 0], acc);\n}\n";
  auto p = jit::Program::fromSource("t.tile", src);
  ASSERT_TRUE((bool)p);
  int checked = 0, onTensorCores = 0;
  for (const char *arch : {"sm_80", "sm_90a"}) {
    TargetInfo target = *TargetInfo::lookup(arch);
    for (const autotune::Config &c : autotune::enumerate((*p)->kernels()[0])) {
      jit::Compiler compiler;
      jit::CompileRequest req;
      req.params = c.params;
      req.dims = {{"M", 256}, {"N", 256}, {"K", 256}};
      req.arch = arch;
      llvm::Error e = compiler.inspect(**p, req, [&](mlir::tile::KernelOp k) {
        std::string reason = autotune::pruneReason(k, target);
        bool prunedForTensorCores = reason.find("tensor cores") != std::string::npos;
        if (!reason.empty() && !prunedForTensorCores)
          return llvm::Error::success(); // an earlier rule (threads without work)
        mlir::OwningOpRef<mlir::Operation *> copy(k->clone());
        auto kernel = llvm::cast<mlir::tile::KernelOp>(*copy);
        mlir::PassManager pm(k->getContext(), mlir::tile::KernelOp::getOperationName());
        pm.addPass(mlir::tile::createTileAssignLayouts({arch}));
        EXPECT_TRUE(mlir::succeeded(pm.run(kernel)));
        bool mma = false;
        kernel.walk([&](mlir::tile::DotOp d) {
          mma = llvm::isa<mlir::tile::MmaLayoutAttr>(
              llvm::cast<mlir::RankedTensorType>(d.getType()).getEncoding());
        });
        EXPECT_EQ(prunedForTensorCores, !mma) << arch << " " << c.text() << ": " << reason;
        ++checked;
        onTensorCores += mma;
        return llvm::Error::success();
      });
      EXPECT_FALSE((bool)e) << llvm::toString(std::move(e));
    }
  }
  EXPECT_GT(checked, 2 * 60);
  EXPECT_GT(onTensorCores, 0);
  EXPECT_LT(onTensorCores, checked);
}

/// The tuner's shared-memory budget is the target's: operands of 192 KiB fit
/// a block of sm_90a (227 KiB) but not one of sm_80 (163 KiB).
TEST(TensorCorePredicate, SharedMemoryBudgetIsTheTargets) {
  auto p = jit::Program::fromSource(
      "t.tile",
      "kernel mm(a: tensor<bf16, [M, K]>, b: tensor<bf16, [K, N]>, c: tensor<f32, [M, N]>)\n"
      "  tune num_warps in [8] grid [1] {\n"
      "  store(c, [0, 0], dot(load(a, [0, 0], [256, 256]), load(b, [0, 0], [256, 128])));\n"
      "}\n");
  ASSERT_TRUE((bool)p);
  std::map<std::string, std::string> verdict;
  for (const char *arch : {"sm_80", "sm_90a"}) {
    jit::Compiler compiler;
    jit::CompileRequest req;
    req.dims = {{"M", 256}, {"N", 256}, {"K", 256}};
    req.arch = arch;
    llvm::Error e = compiler.inspect(**p, req, [&](mlir::tile::KernelOp k) {
      verdict[arch] = autotune::pruneReason(k, *TargetInfo::lookup(arch));
      return llvm::Error::success();
    });
    ASSERT_FALSE((bool)e) << llvm::toString(std::move(e));
  }
  EXPECT_EQ(verdict["sm_80"], "it needs 196608 bytes of shared memory (num_stages=3), more than "
                              "the 166912 a block has on sm_80");
  EXPECT_EQ(verdict["sm_90a"].find("shared memory"), std::string::npos) << verdict["sm_90a"];
}

} // namespace
