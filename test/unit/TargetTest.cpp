//===- TargetTest.cpp - LLVM dialect -> LLVM IR -> PTX -> cubin -*- C++ -*-===//
#include "lib/Target/PTX.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <thread>

using namespace mlir;
namespace target = tessera::target;

namespace {

/// One thread writes 1.0 at p[tid.x].
const char *kStoreKernel = R"mlir(
module {
  llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %g = llvm.getelementptr %p[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %c = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %c, %g : f32, !llvm.ptr<1>
    llvm.return
  }
}
)mlir";

/// p[tid] += p[tid ^ 16] through a butterfly shuffle, then a barrier.
const char *kShuffleKernel = R"mlir(
module {
  llvm.func @shfl(%p: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %g = llvm.getelementptr %p[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %g : !llvm.ptr<1> -> f32
    %m = llvm.mlir.constant(-1 : i32) : i32
    %o = llvm.mlir.constant(16 : i32) : i32
    %c = llvm.mlir.constant(31 : i32) : i32
    %s = nvvm.shfl.sync bfly %m, %v, %o, %c : f32 -> f32
    %r = llvm.fadd %v, %s : f32
    nvvm.barrier0
    llvm.store %r, %g : f32, !llvm.ptr<1>
    llvm.return
  }
}
)mlir";

/// Inline PTX, a libdevice call, and both launch bounds (which ptxas rejects
/// together; the Target stage keeps only reqntid).
const char *kLibdeviceKernel = R"mlir(
module {
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @lane(%p: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 64, 1, 1>, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %l = llvm.inline_asm "mov.u32 $0, %laneid;", "=r" : () -> i32
    %f = llvm.sitofp %l : i32 to f32
    %e = llvm.call @__nv_expf(%f) : (f32) -> f32
    %g = llvm.getelementptr %p[%l] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %e, %g : f32, !llvm.ptr<1>
    llvm.return
  }
}
)mlir";

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

/// A context with the LLVM and NVVM dialects only: the Target stage must add the
/// LLVM IR translations itself.
class TargetContext {
public:
  TargetContext() {
    DialectRegistry r;
    r.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    ctx.appendDialectRegistry(r);
    ctx.loadAllAvailableDialects();
    ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      errors += d.str() + "\n";
      return success();
    });
  }
  OwningOpRef<ModuleOp> parse(const char *src) { return parseSourceString<ModuleOp>(src, &ctx); }
  MLIRContext ctx;
  std::string errors;
};

struct ArchCase {
  const char *name;
  const char *arch;
};

class Target : public ::testing::TestWithParam<ArchCase>, protected TargetContext {
protected:
  llvm::StringRef arch() const { return GetParam().arch; }
  std::string ptxOf(const char *src) {
    auto m = parse(src);
    EXPECT_TRUE(m) << errors;
    if (!m)
      return "";
    llvm::Expected<std::string> ptx = target::emitPTX(*m, arch());
    if (!ptx) {
      ADD_FAILURE() << errorText(ptx.takeError());
      return "";
    }
    return *ptx;
  }
};

TEST_P(Target, LLVMIRHasNVPTXTripleAndLayout) {
  auto m = parse(kStoreKernel);
  ASSERT_TRUE(m) << errors;
  llvm::Expected<std::string> ir = target::translateToLLVMIR(*m, arch());
  ASSERT_TRUE(!!ir) << errorText(ir.takeError());
  EXPECT_NE(ir->find("target triple = \"nvptx64-nvidia-cuda\""), std::string::npos) << *ir;
  EXPECT_NE(ir->find("target datalayout = \"e-"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("define ptx_kernel void @k"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("@llvm.nvvm.read.ptx.sreg.tid.x"), std::string::npos) << *ir;
}

TEST_P(Target, PTXHasEntryTargetAndVersion) {
  std::string ptx = ptxOf(kStoreKernel);
  EXPECT_NE(ptx.find(".entry k"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find((".target " + arch()).str()), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".version 9.0"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".maxntid 128, 1, 1"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%tid.x"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.global.b32"), std::string::npos) << ptx;
}

TEST_P(Target, ShuffleBecomesShflSyncBfly) {
  std::string ptx = ptxOf(kShuffleKernel);
  EXPECT_NE(ptx.find(".entry shfl"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("shfl.sync.bfly"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".reqntid 32, 1, 1"), std::string::npos) << ptx;
}

TEST_P(Target, InlineAsmLibdeviceAndLaunchBounds) {
  std::string ptx = ptxOf(kLibdeviceKernel);
  EXPECT_NE(ptx.find("%laneid"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("__nv_expf"), std::string::npos) << "libdevice not inlined:\n" << ptx;
  EXPECT_NE(ptx.find("ex2.approx"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".reqntid 64, 1, 1"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find(".maxntid"), std::string::npos) << ptx;
}

TEST_P(Target, CubinFromPtxas) {
  if (!target::findPtxas()) {
    llvm::consumeError(target::findPtxas().takeError());
    GTEST_SKIP() << "no ptxas";
  }
  for (const char *src : {kStoreKernel, kShuffleKernel, kLibdeviceKernel}) {
    std::string ptx = ptxOf(src);
    ASSERT_FALSE(ptx.empty());
    std::string log;
    llvm::Expected<std::vector<char>> cubin = target::compileCubin(ptx, arch(), &log);
    ASSERT_TRUE(!!cubin) << errorText(cubin.takeError());
    ASSERT_GT(cubin->size(), 4u);
    EXPECT_EQ(std::string(cubin->data(), 4), "\x7f"
                                             "ELF");
    target::PtxasReport report = target::parsePtxasLog(log);
    EXPECT_TRUE(report.ok) << log;
    EXPECT_GE(report.registers, 0) << log;
    EXPECT_EQ(report.spillStores, 0) << log;
    EXPECT_EQ(report.spillLoads, 0) << log;
  }
}

TEST_P(Target, PtxasErrorsNameTheCommand) {
  if (!target::findPtxas()) {
    llvm::consumeError(target::findPtxas().takeError());
    GTEST_SKIP() << "no ptxas";
  }
  std::string log;
  llvm::Expected<std::vector<char>> cubin =
      target::compileCubin(".version 9.0\n.target sm_80\nthis is not ptx\n", arch(), &log);
  ASSERT_FALSE(!!cubin);
  std::string msg = errorText(cubin.takeError());
  EXPECT_NE(msg.find("ptxas"), std::string::npos) << msg;
  EXPECT_NE(msg.find(("-arch=" + arch()).str()), std::string::npos) << msg;
  EXPECT_NE(msg.find("error"), std::string::npos) << msg; // ptxas's own output
  EXPECT_FALSE(log.empty());
}

INSTANTIATE_TEST_SUITE_P(Target, Target,
                         ::testing::Values(ArchCase{"Hopper_sm_90a", "sm_90a"},
                                           ArchCase{"Ampere_sm_80", "sm_80"}),
                         [](const auto &info) { return std::string(info.param.name); });

class TargetErrors : public ::testing::Test, protected TargetContext {};

TEST_F(TargetErrors, MalformedArchIsAnError) {
  auto m = parse(kStoreKernel);
  ASSERT_TRUE(m) << errors;
  for (const char *bad : {"", "sm_", "sm_9x", "sm_999", "compute_90", "gfx90a", "sm_90a "}) {
    llvm::Expected<std::string> ptx = target::emitPTX(*m, bad);
    ASSERT_FALSE(!!ptx) << bad;
    std::string msg = errorText(ptx.takeError());
    EXPECT_NE(msg.find("unknown NVPTX architecture"), std::string::npos) << msg;
    llvm::Expected<std::string> ir = target::translateToLLVMIR(*m, bad);
    ASSERT_FALSE(!!ir) << bad;
    llvm::consumeError(ir.takeError());
    EXPECT_FALSE(target::isValidArch(bad)) << bad;
  }
  EXPECT_TRUE(target::isValidArch("sm_90a"));
  EXPECT_TRUE(target::isValidArch("sm_80"));
  llvm::Expected<std::vector<char>> cubin = target::compileCubin(".version 9.0", "sm-90", nullptr);
  ASSERT_FALSE(!!cubin);
  EXPECT_NE(errorText(cubin.takeError()).find("unknown NVPTX architecture"), std::string::npos);
}

TEST_F(TargetErrors, BadFeaturesAreErrorsNotFatal) {
  auto m = parse(kStoreKernel);
  ASSERT_TRUE(m) << errors;
  target::PTXOptions tooOld;
  tooOld.features = "+ptx78"; // sm_90a needs PTX 8.0
  llvm::Expected<std::string> ptx = target::emitPTX(*m, "sm_90a", tooOld);
  ASSERT_FALSE(!!ptx);
  std::string msg = errorText(ptx.takeError());
  EXPECT_NE(msg.find("needs at least PTX 8.0"), std::string::npos) << msg;

  target::PTXOptions unknown;
  unknown.features = "+ptx999";
  ptx = target::emitPTX(*m, "sm_80", unknown);
  ASSERT_FALSE(!!ptx);
  EXPECT_NE(errorText(ptx.takeError()).find("unknown NVPTX target feature"), std::string::npos);

  target::PTXOptions older;
  older.features = "+ptx80";
  ptx = target::emitPTX(*m, "sm_90a", older);
  ASSERT_TRUE(!!ptx) << errorText(ptx.takeError());
  EXPECT_NE(ptx->find(".version 8.0"), std::string::npos) << *ptx;
}

TEST_F(TargetErrors, UntranslatableOpIsAnError) {
  ctx.allowUnregisteredDialects();
  auto m = parse(R"mlir(
module {
  llvm.func @k() attributes {nvvm.kernel} {
    "foo.bar"() : () -> ()
    llvm.return
  }
})mlir");
  ASSERT_TRUE(m) << errors;
  llvm::Expected<std::string> ptx = target::emitPTX(*m, "sm_90a");
  ASSERT_FALSE(!!ptx);
  std::string msg = errorText(ptx.takeError());
  EXPECT_NE(msg.find("translation to LLVM IR failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("foo.bar"), std::string::npos) << msg;
}

TEST_F(TargetErrors, ConflictingLaunchBoundsAreAnError) {
  auto m = parse(R"mlir(
module {
  llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>, nvvm.maxntid = array<i32: 128, 1, 1>} {
    llvm.return
  }
})mlir");
  ASSERT_TRUE(m) << errors;
  llvm::Expected<std::string> ptx = target::emitPTX(*m, "sm_90a");
  ASSERT_FALSE(!!ptx);
  std::string msg = errorText(ptx.takeError());
  EXPECT_NE(msg.find("conflict"), std::string::npos) << msg;
}

TEST(TargetPtxas, ParsesRegistersAndSpills) {
  const char *log = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'a' for 'sm_90a'\n"
                    "ptxas info    : Function properties for a\n"
                    "    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
                    "ptxas info    : Used 32 registers, used 1 barriers, 360 bytes cmem[0]\n"
                    "ptxas info    : Compiling entry function 'b' for 'sm_90a'\n"
                    "ptxas info    : Function properties for b\n"
                    "    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
                    "ptxas info    : Used 168 registers, used 0 barriers\n";
  target::PtxasReport r = target::parsePtxasLog(log);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.registers, 168);
  EXPECT_EQ(r.spillStores, 12);
  EXPECT_EQ(r.spillLoads, 16);

  target::PtxasReport none = target::parsePtxasLog("ptxas fatal   : Unresolved extern function\n");
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.registers, -1);
  EXPECT_EQ(none.spillStores, 0);
}

TEST(TargetThreads, ConcurrentCompilesInSeparateContexts) {
  DialectRegistry registry;
  target::registerTargetDialects(registry);
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
      ctx.loadAllAvailableDialects();
      auto m = parseSourceString<ModuleOp>(i % 2 ? kShuffleKernel : kStoreKernel, &ctx);
      if (!m) {
        results[i] = "parse error";
        return;
      }
      llvm::Expected<std::string> ptx = target::emitPTX(*m, i % 2 ? "sm_80" : "sm_90a");
      results[i] = ptx ? *ptx : "error: " + errorText(ptx.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_NE(results[i].find(i % 2 ? ".entry shfl" : ".entry k"), std::string::npos) << results[i];
}

} // namespace
