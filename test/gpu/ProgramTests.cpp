//===- ProgramTests.cpp - the case table on the GPU, and against the interpreter ===//
//
// Every case of test/common (every example and every test program, ragged
// sizes included) runs through the runtime with outputs poisoned, is checked
// against its float64 reference, and is then compared with the CPU
// interpreter on the same inputs: exactly where one rounding of the same
// values decides the output, within dtype tolerances where the order of
// accumulation or a fused multiply-add may differ. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "test/common/Cases.h"
#include "test/gpu/GpuFixture.h"

#include "runtime/jit/Interpret.h"

#include <set>

using namespace tessera;
using namespace tessera::gputest;
using namespace tessera::testutil;

namespace {

class Programs : public Gpu, public ::testing::WithParamInterface<ProgramCase> {
protected:
  /// Runs `c` on `rt` with its outputs poisoned; `gpu` gets the arguments back.
  static void runOn(jit::Runtime &rt, const ProgramCase &c, std::vector<CaseArg> &gpu) {
    auto prog = program(c.file);
    ASSERT_TRUE(prog);
    std::vector<DeviceTensor> dev(c.args.size());
    std::vector<jit::Arg> args;
    for (auto [i, a] : llvm::enumerate(c.args)) {
      if (a.role == Role::Scalar) {
        args.push_back(jit::ScalarArg::of(a.scalar));
        continue;
      }
      dev[i] = a.role == Role::Out ? poison(a.t.dtype, a.t.shape) : up(a.t);
      args.push_back(dev[i].arg());
    }
    jit::LaunchOptions lo;
    lo.params = c.params;
    auto info = rt.launch(*prog, c.kernel, args, lo);
    ASSERT_TRUE((bool)info) << llvm::toString(info.takeError());
    ASSERT_FALSE((bool)cuda::check(cuda::driver()->cuCtxSynchronize(), "cuCtxSynchronize"));
    gpu = c.args;
    for (auto [i, a] : llvm::enumerate(gpu))
      if (a.role != Role::Scalar) {
        auto h = dev[i].download();
        ASSERT_TRUE((bool)h) << llvm::toString(h.takeError());
        a.t = std::move(*h);
      }
  }
};

/// Why `c` is not tried for the architecture TESSERA_GPU_TEST_ARCH names, or "".
std::string notHere(const ProgramCase &c) {
  const char *arch = getenv("TESSERA_GPU_TEST_ARCH");
  return arch && c.notOn.count(arch) ? c.notOnWhy : "";
}

TEST_P(Programs, MatchTheReferenceAndTheInterpreter) {
  ProgramCase c = GetParam();
  if (std::string why = notHere(c); !why.empty())
    GTEST_SKIP() << why;
  std::vector<CaseArg> gpu;
  ASSERT_NO_FATAL_FAILURE(runOn(*runtime, c, gpu));
  EXPECT_EQ(c.check(gpu), "") << "GPU against the reference";
  auto prog = program(c.file);

  // The interpreter on the same inputs.
  std::vector<std::vector<char>> bytes(c.args.size());
  std::vector<jit::HostArg> hargs;
  for (auto [i, a] : llvm::enumerate(c.args)) {
    if (a.role == Role::Scalar) {
      hargs.push_back(jit::ScalarArg::of(a.scalar));
      continue;
    }
    bytes[i] = a.t.encode();
    hargs.push_back(jit::HostTensorArg{bytes[i].data(), a.t.dtype, a.t.shape});
  }
  jit::InterpretOptions io;
  io.params = c.params;
  io.numSms = runtime->multiprocessors(); // num_sms() as on the GPU
  auto ii = jit::interpret(*prog, c.kernel, hargs, io);
  ASSERT_TRUE((bool)ii) << llvm::toString(ii.takeError());
  for (auto [i, a] : llvm::enumerate(c.args)) {
    if (a.role == Role::Scalar || a.role == Role::In)
      continue;
    HostTensor cpu = a.t;
    cpu.decode(bytes[i]);
    double atol = 0, rtol = 0;
    if (!a.exactInDiff) {
      switch (a.t.dtype) {
      case DType::F32:
        atol = 1e-4;
        rtol = 1e-4;
        break;
      case DType::F16:
        atol = 2e-3;
        rtol = 4e-3;
        break;
      case DType::BF16:
        atol = 1.6e-2;
        rtol = 1.6e-2;
        break;
      default:
        atol = 1e9;
        break; // integer outputs with ties (argmin): the reference check covers them
      }
    }
    EXPECT_EQ(closeTo(a.name + " (GPU against the interpreter)", gpu[i].t, cpu.v, atol, rtol), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Programs, ::testing::ValuesIn(programCases()),
                         [](const auto &i) { return i.param.name; });

// The 64-bit size class's code (i64 dims, program ids and aranges, 64-bit
// extents: what launches with an extent of 2^31 or more get) on small tensors,
// one case per kernel, against the reference. The kernels that store an index
// into an i32 tensor need a .to(i32) in that class (InterpreterTest.cpp).
class Index64Programs : public Programs {};

TEST_P(Index64Programs, MatchTheReference) {
  static std::unique_ptr<jit::Runtime> rt = [] {
    jit::RuntimeOptions ro;
    ro.index64 = true;
    if (const char *arch = getenv("TESSERA_GPU_TEST_ARCH"))
      ro.arch = arch;
    ro.tuningDB = "off";
    auto r = jit::Runtime::create(ro);
    EXPECT_TRUE((bool)r) << (r ? "" : llvm::toString(r.takeError()));
    return r ? std::move(*r) : nullptr;
  }();
  ASSERT_TRUE(rt);
  ProgramCase c = GetParam();
  if (std::string why = notHere(c); !why.empty())
    GTEST_SKIP() << why;
  std::vector<CaseArg> gpu;
  ASSERT_NO_FATAL_FAILURE(runOn(*rt, c, gpu));
  EXPECT_EQ(c.check(gpu), "") << "GPU (64-bit size class) against the reference";
}

std::vector<ProgramCase> index64Cases() {
  std::vector<ProgramCase> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (ProgramCase &c : programCases())
    if (c.file != "test/programs/atomics.tile" && c.file != "test/programs/index_math.tile" &&
        c.file != "test/programs/nearest_centroid.tile" && seen.insert({c.file, c.kernel}).second)
      out.push_back(std::move(c));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cases, Index64Programs, ::testing::ValuesIn(index64Cases()),
                         [](const auto &i) { return i.param.name; });

} // namespace
