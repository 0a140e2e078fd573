//===- RuntimeTest.cpp - the GPU-free parts of the runtime ------*- C++ -*-===//
//
// .npy files, the disk cache, argument binding, and the driver loader's and
// NVRTC's behaviour without a GPU (the compiler's keys and grids:
// CompilerTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Runtime.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Support/Npy.h"
#include "lib/Target/PTX.h"
#include "runtime/autotune/Tuner.h"
#include "runtime/cuda/Driver.h"
#include "runtime/cuda/Nvrtc.h"
#include "runtime/jit/Bind.h"
#include "runtime/jit/Compiler.h"
#include "runtime/jit/DiskCache.h"
#include "test/unit/JitTestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::jit;

namespace {

using tessera::test::example;
using tessera::test::tempDir;

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

TEST(DiskCache, KeepsTheCostModelsChoices) {
  DiskCache cache(tempDir("tessera-cache-test"));
  std::map<std::string, int64_t> params = {{"BM", 128}, {"BN", 64}, {"warp-specialize", 1}};
  EXPECT_FALSE(cache.loadChoice("m1").has_value());
  ASSERT_FALSE((bool)cache.storeChoice("m1", params));
  auto got = cache.loadChoice("m1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, params);
  // No parameters is a choice too (a kernel without a tune clause).
  ASSERT_FALSE((bool)cache.storeChoice("m2", {}));
  ASSERT_TRUE(cache.loadChoice("m2").has_value());
  EXPECT_TRUE(cache.loadChoice("m2")->empty());
  // A truncated file (no `end`), a bad value or another key's file is absent,
  // and removed.
  auto rewrite = [&](const std::string &path, auto edit) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE((bool)buf);
    std::string text = edit((*buf)->getBuffer().str());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << text;
  };
  rewrite(cache.choicePathOf("m1"), [](std::string t) { return t.substr(0, t.size() - 4); });
  EXPECT_FALSE(cache.loadChoice("m1").has_value());
  EXPECT_FALSE(llvm::sys::fs::exists(cache.choicePathOf("m1")));
  ASSERT_FALSE((bool)cache.storeChoice("m1", params));
  rewrite(cache.choicePathOf("m1"),
          [](std::string t) { return t.replace(t.find("128"), 3, "1x8"); });
  EXPECT_FALSE(cache.loadChoice("m1").has_value());
  ASSERT_FALSE((bool)cache.storeChoice("m1", params));
  ASSERT_FALSE(llvm::sys::fs::rename(cache.choicePathOf("m1"), cache.choicePathOf("m3")));
  EXPECT_FALSE(cache.loadChoice("m3").has_value());
  EXPECT_EQ(cache.corruptEntries(), 3u);
}

TEST(ModelKey, NamesWhatTheChoiceDependsOn) {
  auto p = Program::fromSource("k.tile",
                               "kernel k(x: tensor<f32, [N]>) tune B in [64, 128]\n"
                               "  grid [cdiv(N, B)] {\n"
                               "  store(x, [program_id(0)], load(x, [program_id(0)], [B]));\n}\n");
  ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
  CompileRequest r;
  r.kernel = "k";
  r.dims = {{"N", 1000}};
  r.numSms = 132;
  std::string key = modelKey(**p, r);
  CompileRequest withParams = r;
  withParams.params = {{"B", 64}};
  EXPECT_EQ(modelKey(**p, withParams), key) << "the model's input has no parameters";
  auto differs = [&](auto change) {
    CompileRequest c = r;
    change(c);
    return modelKey(**p, c) != key;
  };
  EXPECT_TRUE(differs([](CompileRequest &c) { c.dims["N"] = 1001; }));
  EXPECT_TRUE(differs([](CompileRequest &c) { c.numSms = 114; }));
  EXPECT_TRUE(differs([](CompileRequest &c) { c.arch = "sm_80"; }));
  EXPECT_TRUE(differs([](CompileRequest &c) { c.aligned = false; }));
  EXPECT_TRUE(differs([](CompileRequest &c) { c.unalignedArgs = {0}; }));
  EXPECT_TRUE(differs([](CompileRequest &c) { c.index64 = true; }));
  auto other = Program::fromSource(
      "k.tile", "kernel k(x: tensor<f32, [N]>) tune B in [64, 256]\n"
                "  grid [cdiv(N, B)] {\n"
                "  store(x, [program_id(0)], load(x, [program_id(0)], [B]));\n}\n");
  ASSERT_TRUE((bool)other) << llvm::toString(other.takeError());
  EXPECT_NE(modelKey(**other, r), key) << "another source";
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

// Without a driver, the runtime's assembler is the toolkit's ptxas where the
// machine has one: a warpgroup matmul for sm_90a becomes an ELF cubin, kept in
// the disk cache under the assembler's key and read back from there.
TEST(CubinAssembler, PtxasAssemblesAndTheDiskCacheKeepsItsCubin) {
  auto ptxas = tessera::target::findPtxas();
  if (!ptxas) {
    std::string why = llvm::toString(ptxas.takeError());
    GTEST_SKIP() << why;
  }
  const char *forced = getenv("TESSERA_PTX_ASSEMBLER");
  if (forced && std::string(forced) == "driver")
    GTEST_SKIP() << "TESSERA_PTX_ASSEMBLER=driver";
  auto a = tessera::jit::cubinAssembler();
  ASSERT_TRUE((bool)a) << llvm::toString(a.takeError());
  EXPECT_TRUE(a->ptxas);
  EXPECT_EQ(a->name, "ptxas");
  auto prog = tessera::test::example("matmul.tile");
  ASSERT_TRUE(prog);
  tessera::jit::Compiler c;
  tessera::jit::CompileRequest r;
  r.arch = "sm_90a";
  r.dims = {{"M", 512}, {"N", 512}, {"K", 512}};
  auto ck = c.compile(*prog, r);
  ASSERT_TRUE((bool)ck) << llvm::toString(ck.takeError());
  ASSERT_NE(ck->ptx.find("wgmma.mma_async"), std::string::npos);
  tessera::jit::DiskCache cache(tessera::test::tempDir("assembler"));
  bool fromDisk = true;
  std::string by;
  auto cubin = tessera::jit::assembleCubin(*ck, r.arch, &cache, &fromDisk, &by);
  ASSERT_TRUE((bool)cubin) << llvm::toString(cubin.takeError());
  EXPECT_FALSE(fromDisk);
  EXPECT_EQ(by, "ptxas");
  ASSERT_GT(cubin->size(), 4u);
  EXPECT_EQ(cubin->substr(0, 4), "\x7f"
                                 "ELF");
  EXPECT_TRUE(cache.load(ck->key + "-cubin-ptxas").has_value());
  EXPECT_FALSE(cache.load(ck->key + "-cubin").has_value()) << "the driver's entry is another";
  auto again = tessera::jit::assembleCubin(*ck, r.arch, &cache, &fromDisk, &by);
  ASSERT_TRUE((bool)again) << llvm::toString(again.takeError());
  EXPECT_TRUE(fromDisk);
  EXPECT_EQ(*again, *cubin);
}

} // namespace
