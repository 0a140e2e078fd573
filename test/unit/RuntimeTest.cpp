//===- RuntimeTest.cpp - the GPU-free parts of the runtime ------*- C++ -*-===//
//
// .npy files, the disk cache, specialization keys and grids of the compiler,
// argument binding, and the driver loader's behaviour without a driver.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Interpreter.h"
#include "lib/Support/Npy.h"
#include "runtime/autotune/Tuner.h"
#include "runtime/cuda/Driver.h"
#include "runtime/cuda/Nvrtc.h"
#include "runtime/jit/Bind.h"
#include "runtime/jit/Compiler.h"
#include "runtime/jit/DiskCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::jit;

namespace {

std::string tempDir(const char *tag) {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(tag, dir));
  return std::string(dir);
}

std::shared_ptr<Program> example(const char *name) {
  auto p = Program::fromFile(std::string(TESSERA_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE((bool)p) << (p ? "" : llvm::toString(p.takeError()));
  return p ? *p : nullptr;
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

struct NpyCase {
  const char *name;
  DType dtype;
  std::vector<int64_t> shape;
};

class Npy : public ::testing::TestWithParam<NpyCase> {};

TEST_P(Npy, RoundTrips) {
  NpyArray a;
  a.dtype = GetParam().dtype;
  a.shape = GetParam().shape;
  a.data.resize(a.numElements() * dtypeBytes(a.dtype));
  for (size_t i = 0; i < a.data.size(); ++i)
    a.data[i] = (char)(i * 37 + 11);
  std::string bytes = serializeNpy(a);
  EXPECT_EQ((bytes.size() - a.data.size()) % 64, 0u) << "data starts 64-byte aligned";
  auto b = parseNpy(bytes, "t.npy");
  ASSERT_TRUE((bool)b) << llvm::toString(b.takeError());
  EXPECT_EQ(b->dtype, a.dtype);
  EXPECT_EQ(b->shape, a.shape);
  EXPECT_EQ(b->data, a.data);
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, Npy,
    ::testing::Values(NpyCase{"f32_2d", DType::F32, {3, 5}}, NpyCase{"f16_1d", DType::F16, {7}},
                      NpyCase{"bf16_3d", DType::BF16, {2, 3, 4}},
                      NpyCase{"i32_scalar", DType::I32, {}},
                      NpyCase{"i64_empty", DType::I64, {0, 4}},
                      NpyCase{"bool_1d", DType::Bool, {9}}, NpyCase{"f64_2d", DType::F64, {4, 3}},
                      NpyCase{"i8_2d", DType::I8, {3, 3}}, NpyCase{"u8_1d", DType::U8, {17}},
                      NpyCase{"u32_2d", DType::U32, {2, 5}},
                      NpyCase{"f8e4m3_1d", DType::F8E4M3, {6}}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(NpyErrors, NameTheProblem) {
  auto bad = [](std::string bytes) {
    auto r = parseNpy(bytes, "in.npy");
    EXPECT_FALSE((bool)r);
    return r ? std::string() : llvm::toString(r.takeError());
  };
  EXPECT_NE(bad("PK\x03\x04 a zip file").find("in.npy: not a .npy array"), std::string::npos);
  NpyArray a;
  a.shape = {4};
  a.data.resize(16);
  std::string ok = serializeNpy(a);
  std::string complex = ok;
  complex.replace(complex.find("<f4"), 3, "<c8");
  EXPECT_NE(bad(complex).find("dtype '<c8'"), std::string::npos);
  std::string fortran = ok;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(bad(fortran).find("Fortran order"), std::string::npos);
  EXPECT_NE(bad(ok.substr(0, ok.size() - 3)).find("truncated (13 of 16 bytes)"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Disk cache
//===----------------------------------------------------------------------===//

TEST(DiskCache, StoresLoadsAndRebuildsCorruptEntries) {
  DiskCache cache(tempDir("tessera-cache-test"));
  CacheEntry e{"softmax",
               ".version 9.0\n.target sm_90a\n",
               8,
               4096,
               {{0, {128, 64}, 128}, {3, {1, 1, 64, 32}, 64}}};
  EXPECT_FALSE(cache.load("k1").has_value());
  ASSERT_FALSE((bool)cache.store("k1", e));
  auto got = cache.load("k1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->ptx, e.ptx);
  EXPECT_EQ(got->entry, "softmax");
  EXPECT_EQ(got->numWarps, 8u);
  EXPECT_EQ(got->sharedBytes, 4096);
  EXPECT_EQ(got->tensorMaps, e.tensorMaps); // the TMA parameters come back in order
  // Flip one byte of the PTX: the entry no longer matches its checksum.
  std::string path = cache.pathOf("k1");
  auto buf = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE((bool)buf);
  std::string text = (*buf)->getBuffer().str();
  text[text.size() - 3] ^= 1;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << text;
  }
  EXPECT_FALSE(cache.load("k1").has_value());
  EXPECT_EQ(cache.corruptEntries(), 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(path)) << "a corrupt entry is removed";
  // An entry renamed to another key is not served under it.
  ASSERT_FALSE((bool)cache.store("k2", e));
  ASSERT_FALSE(llvm::sys::fs::rename(cache.pathOf("k2"), cache.pathOf("k3")));
  EXPECT_FALSE(cache.load("k3").has_value());
}

//===----------------------------------------------------------------------===//
// Compiler: keys, grids, the disk cache
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

class Bind : public ::testing::Test {
protected:
  void SetUp() override {
    auto p = Program::fromSource(
        "b.tile",
        "kernel k(a: tensor<bf16, [M, K]>, b: tensor<bf16, [K, 64]>, s: f32, n: i32, f: bool)\n"
        "  grid [cdiv(M, 64)] { store(a, [0, 0], load(a, [0, 0], [64, 64])); }\n");
    ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
    prog = *p;
  }
  std::vector<Arg> good() {
    return {TensorArg{0x10000, DType::BF16, {100, 32}, {}},
            TensorArg{0x20000, DType::BF16, {32, 64}, {}}, ScalarArg::of(0.5), ScalarArg::of(7),
            ScalarArg::of(1)};
  }
  std::string error(const std::vector<Arg> &args) {
    auto b = bindArguments(prog->kernels()[0], args);
    return b ? std::string("bound") : llvm::toString(b.takeError());
  }
  std::shared_ptr<Program> prog;
};

TEST_F(Bind, PacksTheAbi) {
  auto b = bindArguments(prog->kernels()[0], good());
  ASSERT_TRUE((bool)b) << llvm::toString(b.takeError());
  // a: ptr, 2 extents, 1 stride; b: the same; then 3 scalars.
  EXPECT_EQ(b->slots.size(), 4u + 4u + 3u);
  EXPECT_EQ(b->slots[0], 0x10000u);
  EXPECT_EQ((int32_t)b->slots[1], 100);
  EXPECT_EQ((int64_t)b->slots[3], 32); // a's row stride, in elements
  float s;
  std::memcpy(&s, &b->slots[8], 4);
  EXPECT_EQ(s, 0.5f);
  EXPECT_EQ(b->dims.at("M"), 100);
  EXPECT_EQ(b->dims.at("K"), 32);
  EXPECT_EQ(b->dims.at("n"), 7);
  EXPECT_TRUE(b->aligned());
  EXPECT_EQ(b->pointers.size(), b->slots.size());
}

TEST_F(Bind, PacksExtentsOf2To31OrMoreAs64Bits) {
  // An extent of 2^31 or more selects the 64-bit size class: every extent
  // takes a 64-bit value; smaller launches keep 32-bit extents unless asked.
  auto args = good();
  std::get<TensorArg>(args[0]).shape = {(int64_t{1} << 31) + 1000, 32};
  std::get<TensorArg>(args[1]).data = 0x1000000000000; // past a's 137 GB
  auto b = bindArguments(prog->kernels()[0], args);
  ASSERT_TRUE((bool)b) << llvm::toString(b.takeError());
  EXPECT_TRUE(b->index64);
  EXPECT_EQ(b->slots.size(), 4u + 4u + 3u);
  EXPECT_EQ((int64_t)b->slots[1], (int64_t{1} << 31) + 1000);
  EXPECT_EQ((int64_t)b->slots[5], 32); // b's extents are 64-bit too
  EXPECT_EQ(b->dims.at("M"), (int64_t{1} << 31) + 1000);
  auto small = bindArguments(prog->kernels()[0], good());
  ASSERT_TRUE((bool)small);
  EXPECT_FALSE(small->index64);
  EXPECT_EQ(small->slots[1], 100u); // 32 bits: nothing above them
  auto asked = bindArguments(prog->kernels()[0], good(), /*index64=*/true);
  ASSERT_TRUE((bool)asked);
  EXPECT_TRUE(asked->index64);
  EXPECT_EQ((int64_t)asked->slots[1], 100);
  std::get<TensorArg>(args[0]).shape = {-1, 32};
  EXPECT_NE(error(args).find("extents must not be negative"), std::string::npos) << error(args);
}

TEST_F(Bind, RejectsMismatches) {
  auto args = good();
  std::get<TensorArg>(args[1]).shape = {33, 64};
  EXPECT_NE(error(args).find("dim K is 32 in a but 33 in b"), std::string::npos) << error(args);
  args = good();
  std::get<TensorArg>(args[1]).shape = {32, 65};
  EXPECT_NE(error(args).find("must have extent 64 on axis 1, got 65"), std::string::npos);
  args = good();
  std::get<TensorArg>(args[0]).dtype = DType::F16;
  EXPECT_NE(error(args).find("'a' must hold bf16, got f16"), std::string::npos);
  args = good();
  std::get<TensorArg>(args[0]).shape = {100};
  EXPECT_NE(error(args).find("rank 2, got rank 1"), std::string::npos);
  args = good();
  std::get<TensorArg>(args[0]).strides = {1, 100};
  EXPECT_NE(error(args).find("contiguous along its last axis"), std::string::npos);
  args = good();
  args[3] = ScalarArg::of(2.5);
  EXPECT_NE(error(args).find("'n' is a i32"), std::string::npos);
  args = good();
  args[4] = ScalarArg::of(3);
  EXPECT_NE(error(args).find("'f' is a bool"), std::string::npos);
  args = good();
  args.pop_back();
  EXPECT_NE(error(args).find("takes 5 arguments, got 4"), std::string::npos);
  args = good();
  args[2] = TensorArg{};
  EXPECT_NE(error(args).find("'s' of 'k' is a f32 scalar, got a tensor"), std::string::npos);
}

TEST_F(Bind, RejectsWrittenTensorsThatOverlapOthers) {
  EXPECT_TRUE(prog->kernels()[0].params[0].written); // store(a, ...)
  EXPECT_FALSE(prog->kernels()[0].params[1].written);
  auto args = good(); // a: 100 x 32 bf16 = 6400 bytes from 0x10000
  std::get<TensorArg>(args[1]).data = 0x10000 + 6400 - 2; // b starts on a's last element
  EXPECT_NE(error(args).find("arguments 'a' (bytes 0x10000..0x11900) and 'b' (0x118FE..0x128FE) "
                             "overlap, and 'a' is written"),
            std::string::npos)
      << error(args);
  std::get<TensorArg>(args[1]).data = 0x10000 + 6400; // just after a: fine
  EXPECT_EQ(error(args), "bound");
  args[0] = TensorArg{0, DType::BF16, {100, 32}, {}};
  EXPECT_NE(error(args).find("'a' is a null pointer"), std::string::npos) << error(args);

  // The very same tensor read and written is an in-place update; a shifted one is not.
  auto inc = Program::fromSource(
      "inc.tile", "kernel inc(x: tensor<f32, [N]>, y: tensor<f32, [N]>)\n"
                  "  grid [1] { store(y[arange(16)], load(x, [0], [16]) + 1.0); }\n");
  ASSERT_TRUE((bool)inc) << llvm::toString(inc.takeError());
  const KernelSignature &k = (*inc)->kernels()[0];
  EXPECT_TRUE(k.params[1].written); // the element form counts too
  auto bind = [&](CUdeviceptr x, CUdeviceptr y) {
    auto b =
        bindArguments(k, {TensorArg{x, DType::F32, {64}, {}}, TensorArg{y, DType::F32, {64}, {}}});
    return b ? std::string("bound") : llvm::toString(b.takeError());
  };
  EXPECT_EQ(bind(0x1000, 0x1000), "bound");
  EXPECT_NE(bind(0x1000, 0x1004).find("'y' is written"), std::string::npos) << bind(0x1000, 0x1004);
  EXPECT_EQ(bind(0x1000, 0x1100), "bound");
}

TEST_F(Bind, DetectsUnalignedTensors) {
  auto args = good();
  std::get<TensorArg>(args[0]).data = 0x10008; // 8-byte aligned only
  auto b = bindArguments(prog->kernels()[0], args);
  EXPECT_FALSE(b->aligned());
  EXPECT_EQ(b->unalignedArgs, std::vector<int64_t>{0}) << "the others stay aligned";
  args = good();
  std::get<TensorArg>(args[0]).shape = {100, 36}; // 72-byte rows
  std::get<TensorArg>(args[1]).shape = {36, 64};
  b = bindArguments(prog->kernels()[0], args);
  EXPECT_FALSE(b->aligned());
  EXPECT_EQ(b->unalignedArgs, std::vector<int64_t>{0});
  EXPECT_TRUE(bindArguments(prog->kernels()[0], good())->unalignedArgs.empty());
}

//===----------------------------------------------------------------------===//
// The driver loader
//===----------------------------------------------------------------------===//

TEST(Driver, WithoutADriverTheErrorSaysSo) {
  if (const char *lib = getenv("TESSERA_LIBCUDA"); !lib || *lib)
    if (cuda::driver()) // a GPU machine: this test is about machines without one
      GTEST_SKIP() << "a CUDA driver is present";
  auto d = cuda::driver();
  ASSERT_FALSE((bool)d);
  llvm::Error e = d.takeError();
  EXPECT_TRUE(cuda::isEnvironmentError(e));
  std::string msg = llvm::toString(std::move(e));
  EXPECT_TRUE(msg.find("NVIDIA driver") != std::string::npos ||
              msg.find("GPU") != std::string::npos)
      << msg;
}

} // namespace

namespace {

TEST(Nvrtc, CompilesCudaToPtxWithoutAGpu) {
  auto v = tessera::cuda::nvrtcVersion();
  if (!v) {
    std::string why = llvm::toString(v.takeError());
    GTEST_SKIP() << why;
  }
  auto r = tessera::cuda::compileCuda("extern \"C\" __global__ void twice(float *x, int n) {\n"
                                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                      "  if (i < n) x[i] *= 2.0f;\n}\n",
                                      "twice.cu", "sm_90a", {}, "twice");
  ASSERT_TRUE((bool)r) << llvm::toString(r.takeError());
  EXPECT_NE(r->ptx.find(".entry twice"), std::string::npos);
  EXPECT_EQ(r->lowered, "twice");
}

// The kernel with which LaunchTimer's clean flush reads L2 empty compiles to
// PTX that loads the buffer and stores only under a condition.
TEST(Nvrtc, TheCleanFlushKernelCompiles) {
  auto v = tessera::cuda::nvrtcVersion();
  if (!v) {
    std::string why = llvm::toString(v.takeError());
    GTEST_SKIP() << why;
  }
  auto r = tessera::cuda::compileCuda(tessera::autotune::l2ScrubSource(), "l2_scrub.cu",
                                      "compute_80", {}, "tessera_l2_scrub");
  ASSERT_TRUE((bool)r) << llvm::toString(r.takeError());
  EXPECT_NE(r->ptx.find(".entry tessera_l2_scrub"), std::string::npos);
  EXPECT_NE(r->ptx.find("ld.global"), std::string::npos);
  EXPECT_NE(r->ptx.find("@%p"), std::string::npos) << "the store is conditional";
}

TEST(Nvrtc, ErrorsCarryTheCompilerLog) {
  auto v = tessera::cuda::nvrtcVersion();
  if (!v) {
    std::string why = llvm::toString(v.takeError());
    GTEST_SKIP() << why;
  }
  auto r = tessera::cuda::compileCuda("__global__ void bad() { undeclared_thing(); }\n", "bad.cu",
                                      "sm_90a");
  ASSERT_FALSE((bool)r);
  std::string msg = llvm::toString(r.takeError());
  EXPECT_NE(msg.find("nvrtcCompileProgram(bad.cu) failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undeclared_thing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad.cu(1)"), std::string::npos) << msg;
}

} // namespace
