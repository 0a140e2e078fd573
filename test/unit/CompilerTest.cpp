//===- CompilerTest.cpp - the compiler's keys, grids and disk cache ------===//
//
// One specialization per set of values, the alignment variant per tensor,
// what changes a kernel's key, code generation skipped on a disk-cache hit,
// located program errors, and the grid clause evaluated with the launch's
// values (64-bit size class, folding, launch limits).
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Compiler.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Support/Npy.h"
#include "runtime/autotune/Tuner.h"
#include "runtime/cuda/Driver.h"
#include "runtime/cuda/Nvrtc.h"
#include "runtime/jit/Bind.h"
#include "runtime/jit/DiskCache.h"
#include "test/unit/JitTestUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::jit;

namespace {

using tessera::test::example;
using tessera::test::tempDir;

TEST(Compiler, OneSpecializationServesEverySizeWithTheSameValues) {
  auto prog = example("vector_add.tile");
  ASSERT_TRUE(prog);
  Compiler c;
  CompileRequest r;
  r.dims = {{"N", 1000}};
  auto a = c.compile(*prog, r);
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  r.dims = {{"N", 5000}};
  auto b = c.compile(*prog, r);
  ASSERT_TRUE((bool)b) << llvm::toString(b.takeError());
  EXPECT_EQ(a->key, b->key) << "N is not specialized on";
  EXPECT_EQ(a->grid[0], 1);
  EXPECT_EQ(b->grid[0], 5); // cdiv(5000, 1024)
  EXPECT_NE(a->ptx.find(".entry vector_add"), std::string::npos);
  r.aligned = false;
  auto u = c.compile(*prog, r);
  ASSERT_TRUE((bool)u);
  EXPECT_NE(u->key, a->key) << "alignment is part of the specialization";
  EXPECT_EQ(u->ptx.find("ld.global.v4"), std::string::npos);
}

// A pass pipeline replacing default<O1> (for measuring cheaper ones) is part of
// the key: its PTX is never served for the default's, nor the other way round;
// one that does not parse fails the compile with LLVM's reason.
TEST(Compiler, ALLVMPassPipelineIsPartOfTheKey) {
  auto prog = example("vector_add.tile");
  ASSERT_TRUE(prog);
  Compiler c;
  auto withPasses = [&](std::string passes) {
    CompileRequest r;
    r.dims = {{"N", 1000}};
    r.llvmPasses = std::move(passes);
    return c.compile(*prog, r);
  };
  auto a = withPasses(""), b = withPasses("function(instcombine)");
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  ASSERT_TRUE((bool)b) << llvm::toString(b.takeError());
  EXPECT_NE(a->key, b->key);
  EXPECT_NE(b->ptx.find(".entry vector_add"), std::string::npos);
  auto bad = withPasses("function(no-such-pass)");
  ASSERT_FALSE((bool)bad);
  EXPECT_NE(llvm::toString(bad.takeError())
                .find("the LLVM pass pipeline 'function(no-such-pass)' does not parse: unknown "
                      "function pass 'no-such-pass'"),
            std::string::npos);
}

// A block table whose rows are not whole 16-byte units (the vLLM layout with
// 506 pages per sequence) costs only its own accesses: the paged K and V rows
// keep their 16-byte cp.async copies into the pipeline's stages, where the
// all-unaligned variant stages nothing.
TEST(Compiler, OneUnalignedTensorLeavesTheOthersAligned) {
  auto prog = example("decode_attention.tile");
  ASSERT_TRUE(prog);
  Compiler c;
  CompileRequest r;
  r.kernel = "decode_partial";
  r.dims = {{"B", 64},     {"T", 1},   {"HQ", 32},    {"HK", 8}, {"D", 128},
            {"NP", 17000}, {"PS", 16}, {"MAXP", 506}, {"S", 2}};
  r.params = {{"BN", 64}, {"num_warps", 4}, {"num_stages", 4}};
  auto a = c.compile(*prog, r);
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  r.unalignedArgs = {3}; // block_table
  auto p = c.compile(*prog, r);
  ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
  r.unalignedArgs.clear();
  r.aligned = false;
  auto u = c.compile(*prog, r);
  ASSERT_TRUE((bool)u) << llvm::toString(u.takeError());
  EXPECT_NE(p->key, a->key);
  EXPECT_NE(p->key, u->key);
  auto copies16 = [](const std::string &ptx) {
    size_t n = 0;
    for (size_t at = ptx.find("cp.async.cg.shared.global"); at != std::string::npos;
         at = ptx.find("cp.async.cg.shared.global", at + 1))
      n += ptx.compare(ptx.find(',', ptx.find(',', at) + 1) + 2, 2, "16") == 0;
    return n;
  };
  EXPECT_EQ(p->sharedBytes, a->sharedBytes);
  EXPECT_GT(copies16(p->ptx), 0u);
  EXPECT_EQ(copies16(p->ptx), copies16(a->ptx));
  EXPECT_LT(u->sharedBytes, a->sharedBytes);
}

// An unaligned A (K = 130 halves: 260-byte rows) beside an aligned B: B is
// staged, A is stored each iteration, so the warpgroup dot may not stay in
// flight over A's buffer (tile-insert-barriers would refuse the kernel).
TEST(Compiler, AMatmulWithOneUnalignedOperandCompiles) {
  auto prog = example("matmul_f16.tile");
  ASSERT_TRUE(prog);
  Compiler c;
  CompileRequest r;
  r.dims = {{"M", 300}, {"N", 200}, {"K", 130}};
  r.params = {{"num_stages", 3}};
  r.unalignedArgs = {0};
  auto k = c.compile(*prog, r);
  ASSERT_TRUE((bool)k) << llvm::toString(k.takeError());
  EXPECT_NE(k->ptx.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(k->ptx.find("cp.async.cg.shared.global"), std::string::npos) << "B is still staged";
}

// The persistent, warp-specialized 128x256 tile with four stages: its
// operand ring (192 KB) leaves no room for the epilogue's conversion through
// shared memory, but does for the TMA store's two 16 KB windows.
TEST(Compiler, TheTmaStoreEpilogueLetsAPersistentWideTileKeepFourStages) {
  auto prog = example("matmul.tile");
  ASSERT_TRUE(prog);
  Compiler c;
  CompileRequest r;
  r.dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  r.params = {{"BM", 128},      {"BN", 256},       {"BK", 64},
              {"num_warps", 8}, {"num_stages", 4}, {"warp-specialize", 1},
              {"persistent", 1}};
  auto plain = c.compile(*prog, r);
  ASSERT_FALSE((bool)plain);
  EXPECT_NE(llvm::toString(plain.takeError()).find("shared memory"), std::string::npos);
  r.params["tma-store"] = 1;
  auto k = c.compile(*prog, r);
  ASSERT_TRUE((bool)k) << llvm::toString(k.takeError());
  EXPECT_LE(k->sharedBytes, 232448);
  ASSERT_EQ(k->tensorMaps.size(), 3u); // A, B and C
  EXPECT_NE(k->ptx.find("cp.async.bulk.tensor.2d.global.shared::cta"), std::string::npos);
  EXPECT_NE(k->ptx.find("cp.async.bulk.wait_group.read"), std::string::npos);
  EXPECT_NE(k->ptx.find("setmaxnreg"), std::string::npos);
  EXPECT_EQ(k->ptx.find("st.global"), std::string::npos) << "the epilogue stores by TMA alone";
  // On sm_80 the option changes nothing.
  r.arch = "sm_80";
  r.params = {{"tma-store", 1}};
  auto ampere = c.compile(*prog, r);
  ASSERT_TRUE((bool)ampere) << llvm::toString(ampere.takeError());
  EXPECT_EQ(ampere->ptx.find("cp.async.bulk"), std::string::npos);
  EXPECT_TRUE(ampere->tensorMaps.empty());
}

TEST(Compiler, WhereValuesAndParamsChangeTheKey) {
  auto prog = example("softmax.tile");
  ASSERT_TRUE(prog);
  Compiler c;
  CompileRequest r;
  r.dims = {{"M", 64}, {"N", 1000}};
  auto a = c.compile(*prog, r);
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  r.dims = {{"M", 64}, {"N", 1024}}; // same BN = next_pow2(N)
  auto b = c.compile(*prog, r);
  r.dims = {{"M", 64}, {"N", 4096}};
  auto d = c.compile(*prog, r);
  r.params = {{"num_warps", 8}};
  auto w = c.compile(*prog, r);
  ASSERT_TRUE(b && d && w);
  EXPECT_EQ(a->key, b->key);
  EXPECT_NE(a->key, d->key);
  EXPECT_NE(d->key, w->key);
  EXPECT_EQ(a->grid[0], 64);
  EXPECT_EQ(w->numWarps, 8u);
}

TEST(Compiler, TheDiskCacheSkipsCodeGeneration) {
  auto prog = example("matmul.tile");
  ASSERT_TRUE(prog);
  DiskCache cache(tempDir("tessera-cache-test"));
  CompileRequest r;
  r.dims = {{"M", 300}, {"N", 200}, {"K", 130}};
  Compiler first(&cache);
  auto a = first.compile(*prog, r);
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  EXPECT_FALSE(a->fromDisk);
  Compiler second(&cache); // another process, as far as the cache knows
  auto b = second.compile(*prog, r);
  ASSERT_TRUE((bool)b);
  EXPECT_TRUE(b->fromDisk);
  EXPECT_EQ(a->ptx, b->ptx);
  // The stages of a compile account for its time; from disk, no code generation.
  EXPECT_GT(a->frontendMs, 0);
  EXPECT_GT(a->passesMs, 0);
  EXPECT_GT(a->llvmMs, 0);
  EXPECT_LE(a->frontendMs + a->passesMs + a->llvmMs, a->compileMs);
  EXPECT_GT(b->frontendMs, 0);
  EXPECT_EQ(b->passesMs + b->llvmMs, 0);
  EXPECT_EQ(a->sharedBytes, b->sharedBytes);
  EXPECT_GT(a->sharedBytes, 0);
  EXPECT_EQ(b->grid, (std::array<int64_t, 3>{3, 2, 1})); // cdiv(300,128), cdiv(200,128)
  // sm_90a's aligned matmul takes two tensor maps (A's [128, 64] box, B's
  // [64, 64] column blocks), also when served from disk.
  std::vector<TensorMapUse> maps{{0, {128, 64}, 128}, {1, {64, 64}, 128}};
  EXPECT_EQ(a->tensorMaps, maps);
  EXPECT_EQ(b->tensorMaps, maps);
  // The unaligned variant and sm_80 code take none.
  r.aligned = false;
  auto u = first.compile(*prog, r);
  ASSERT_TRUE((bool)u);
  EXPECT_TRUE(u->tensorMaps.empty());
  r.aligned = true;
  r.arch = "sm_80";
  auto old = first.compile(*prog, r);
  ASSERT_TRUE((bool)old);
  EXPECT_TRUE(old->tensorMaps.empty());
}

TEST(Compiler, ProgramErrorsArriveLocated) {
  auto prog = Program::fromSource("bad.tile", "kernel k(x: tensor<f32, [N]>) grid [1] {\n"
                                              "  store(x, [0], load(x, [0], [64]) + y);\n}\n");
  ASSERT_TRUE((bool)prog);
  Compiler c;
  CompileRequest r;
  r.dims = {{"N", 64}};
  auto a = c.compile(**prog, r);
  ASSERT_FALSE((bool)a);
  std::string msg = llvm::toString(a.takeError());
  EXPECT_NE(msg.find("bad.tile:2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("error:"), std::string::npos) << msg;
  auto syntax = Program::fromSource("syntax.tile", "kernel k( {");
  ASSERT_FALSE((bool)syntax);
  EXPECT_NE(llvm::toString(syntax.takeError()).find("syntax.tile:1:"), std::string::npos);
}

// The 64-bit size class evaluates its grid in 64 bits: cdiv(2^31 + 1000, 1024)
// programs (a 32-bit evaluation would wrap N negative and launch none). The
// persistent schedule's grid, an i64 extent times an i32 one, compiles too.
TEST(Compiler, GridsOfTheSizeClassOf2To31AreEvaluatedIn64Bits) {
  auto prog = Program::fromSource(
      "big.tile", "kernel big(x: tensor<f32, [N]>, y: tensor<f32, [N, 2]>)\n"
                  "  tune BLOCK in [1024] grid [cdiv(N, BLOCK), 2] {\n"
                  "  let i = program_id(0);\n"
                  "  store(x, [i], load(x, [i], [BLOCK]) + program_id(1).to(f32));\n}\n");
  ASSERT_TRUE((bool)prog) << llvm::toString(prog.takeError());
  Compiler c;
  CompileRequest r;
  r.index64 = true;
  r.dims = {{"N", (int64_t{1} << 31) + 1000}};
  auto ck = c.compile(**prog, r);
  ASSERT_TRUE((bool)ck) << llvm::toString(ck.takeError());
  EXPECT_EQ(ck->grid[0], 2097153);
  EXPECT_EQ(ck->grid[1], 2);
  r.params = {{"persistent", 1}};
  r.numSms = 132;
  auto persistent = c.compile(**prog, r);
  ASSERT_TRUE((bool)persistent) << llvm::toString(persistent.takeError());
  EXPECT_EQ(persistent->grid[0], 2 * 2097153);
}

// The grid region is folded with the launch's dims and integer scalars:
// divisions by a scalar, i32 arithmetic that wraps as on the GPU, and a
// division by zero reported as such (not a crash, not a guess).
TEST(Compiler, GridsAreFoldedWithTheLaunchValues) {
  auto prog = Program::fromSource("g.tile", "kernel g(x: tensor<f32, [N]>, s: i32)\n"
                                            "  grid [N * N / 1000, cdiv(N, s), N % s + 1] {\n"
                                            "  store(x, [0], load(x, [0], [1]));\n}\n");
  ASSERT_TRUE((bool)prog) << llvm::toString(prog.takeError());
  Compiler c;
  CompileRequest r;
  r.dims = {{"N", 1000}, {"s", 7}};
  auto small = c.compile(**prog, r);
  ASSERT_TRUE((bool)small) << llvm::toString(small.takeError());
  EXPECT_EQ(small->grid[0], 1000);
  EXPECT_EQ(small->grid[1], 143);
  EXPECT_EQ(small->grid[2], 7);
  // 100000 * 100000 wraps in i32 to 1410065408 before the division.
  r.dims = {{"N", 100000}, {"s", 7}};
  auto ck = c.compile(**prog, r);
  ASSERT_TRUE((bool)ck) << llvm::toString(ck.takeError());
  EXPECT_EQ(ck->grid[0], 1410065);
  EXPECT_EQ(ck->grid[1], 14286);
  EXPECT_EQ(ck->grid[2], 6);
  r.dims = {{"N", 1000}, {"s", 0}};
  auto zero = c.compile(**prog, r);
  ASSERT_FALSE((bool)zero);
  std::string msg = llvm::toString(zero.takeError());
  EXPECT_NE(msg.find("the grid clause divides by zero for these sizes"), std::string::npos) << msg;
}

// A grid past what a launch takes (65535 programs along y and z) is refused
// when it is evaluated, naming the kernel, the axis and the limit; at the
// limit it compiles. The interpreter refuses it too.
TEST(Compiler, GridsPastTheLaunchLimitsAreRefused) {
  auto prog =
      Program::fromSource("rows.tile", "kernel rows(x: tensor<f32, [M, N]>)\n"
                                       "  grid [1, M] {\n"
                                       "  let r = program_id(1);\n"
                                       "  store(x, [r, 0], load(x, [r, 0], [1, 64]));\n}\n");
  ASSERT_TRUE((bool)prog) << llvm::toString(prog.takeError());
  Compiler c;
  CompileRequest r;
  r.dims = {{"M", 65535}, {"N", 64}};
  auto ok = c.compile(**prog, r);
  ASSERT_TRUE((bool)ok) << llvm::toString(ok.takeError());
  EXPECT_EQ(ok->grid[1], 65535);
  r.dims = {{"M", 70000}, {"N", 64}};
  auto big = c.compile(**prog, r);
  ASSERT_FALSE((bool)big);
  std::string msg = llvm::toString(big.takeError());
  EXPECT_NE(msg.find("the grid clause of 'rows' gives 70000 programs along axis 1"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("at most 65535"), std::string::npos) << msg;
  std::vector<float> data(70000 * 64, 1.0f);
  auto run = c.interpret(**prog, r, {interp::Arg::tensor(data.data(), DType::F32, {70000, 64})}, 1,
                         nullptr);
  ASSERT_FALSE((bool)run);
  EXPECT_NE(llvm::toString(run.takeError()).find("at most 65535"), std::string::npos);
}

} // namespace
