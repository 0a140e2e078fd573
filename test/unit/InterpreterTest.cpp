//===- InterpreterTest.cpp - the CPU interpreter against references -------===//
//
// Every case of the shared table (every example and test program, ragged
// sizes included) runs in the interpreter with outputs poisoned first and is
// checked against its float64 reference; the table must cover every kernel
// of every .tile file. Then the interpreter's own semantics: exact per-op
// f16/bf16 rounding, integer wrap-around, located faults, print().
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Interpreter.h"
#include "runtime/jit/Interpret.h"
#include "test/common/Cases.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <set>

using namespace tessera;
using namespace tessera::testutil;

namespace {

std::string src(const std::string &rel) { return std::string(TESSERA_SOURCE_DIR) + "/" + rel; }

/// Runs a case in the interpreter; the arguments come back with the results.
std::string interpretCase(ProgramCase &c, double *ms = nullptr, bool padExtents = false,
                          bool index64 = false) {
  auto prog = jit::Program::fromFile(src(c.file));
  if (!prog)
    return llvm::toString(prog.takeError());
  std::vector<std::vector<char>> bytes(c.args.size());
  std::vector<jit::HostArg> args;
  for (auto [i, a] : llvm::enumerate(c.args)) {
    if (a.role == Role::Scalar) {
      args.push_back(jit::ScalarArg::of(a.scalar));
      continue;
    }
    bytes[i] = a.t.encode();
    if (a.role == Role::Out)
      std::fill(bytes[i].begin(), bytes[i].end(), (char)0xFF); // unwritten elements show
    args.push_back(jit::HostTensorArg{bytes[i].data(), a.t.dtype, a.t.shape});
  }
  jit::InterpretOptions o;
  o.params = c.params;
  o.padExtents = padExtents;
  o.index64 = index64;
  o.numSms = 6; // num_sms() in the interpreter: few, so that grid-stride loops loop
  auto info = jit::interpret(**prog, c.kernel, args, o);
  if (!info)
    return llvm::toString(info.takeError());
  if (ms)
    *ms = info->ms;
  for (auto [i, a] : llvm::enumerate(c.args))
    if (a.role != Role::Scalar)
      a.t.decode(bytes[i]);
  return "";
}

class Interpret : public ::testing::TestWithParam<ProgramCase> {};

TEST_P(Interpret, MatchesTheReference) {
  ProgramCase c = GetParam();
  ASSERT_EQ(interpretCase(c), "");
  EXPECT_EQ(c.check(c.args), "");
}

INSTANTIATE_TEST_SUITE_P(Programs, Interpret, ::testing::ValuesIn(programCases()),
                         [](const auto &i) { return i.param.name; });

// The same programs in the 64-bit size class (i64 dims, program ids and
// aranges; 64-bit extents), which launches with an extent of 2^31 or more
// get: the results may not change. Programs that store an index into an i32
// tensor need a `.to(i32)` there, and say so.
class Index64 : public ::testing::TestWithParam<ProgramCase> {};

TEST_P(Index64, MatchesTheReference) {
  ProgramCase c = GetParam();
  static const std::set<std::string> storesIndices = {"test/programs/atomics.tile",
                                                      "test/programs/index_math.tile",
                                                      "test/programs/nearest_centroid.tile"};
  std::string err = interpretCase(c, nullptr, /*padExtents=*/false, /*index64=*/true);
  if (storesIndices.count(c.file) && !err.empty()) {
    EXPECT_NE(err.find("extent of 2^31 or more, where dims"), std::string::npos) << err;
    return;
  }
  ASSERT_EQ(err, "");
  EXPECT_EQ(c.check(c.args), "");
}

INSTANTIATE_TEST_SUITE_P(Programs, Index64, ::testing::ValuesIn(programCases()),
                         [](const auto &i) { return i.param.name; });

// The same programs as code generation rewrites them first (tile-legalize-float8,
// tile-pad-extents): neither may change a result.
class PaddedExtents : public ::testing::TestWithParam<ProgramCase> {};

TEST_P(PaddedExtents, MatchesTheReference) {
  ProgramCase c = GetParam();
  ASSERT_EQ(interpretCase(c, nullptr, /*padExtents=*/true), "");
  EXPECT_EQ(c.check(c.args), "");
}

// Odd extents, and decode attention, whose dots of 4 and 12 query rows are
// padded to 16 for the tensor cores.
std::vector<ProgramCase> paddedCases() {
  std::vector<ProgramCase> out = oddExtentCases();
  std::mt19937 rng(1616);
  addDecodeCases(out, rng);
  // f8 programs as code generation rewrites them (tile-legalize-float8): the
  // integer expansion of every conversion against APFloat's.
  addF8Cases(out, rng);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Programs, PaddedExtents, ::testing::ValuesIn(paddedCases()),
                         [](const auto &i) { return i.param.name; });

TEST(InterpretCases, CoverEveryKernelOfEveryProgram) {
  std::set<std::pair<std::string, std::string>> covered;
  for (const ProgramCase &c : programCases()) {
    auto prog = jit::Program::fromFile(src(c.file));
    ASSERT_TRUE((bool)prog) << llvm::toString(prog.takeError());
    auto k = (*prog)->kernel(c.kernel);
    ASSERT_TRUE((bool)k) << llvm::toString(k.takeError());
    covered.insert({c.file, k->name});
  }
  for (const char *dir : {"examples", "test/programs"}) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(src(dir), ec), end; it != end && !ec;
         it.increment(ec)) {
      if (llvm::sys::path::extension(it->path()) != ".tile")
        continue;
      std::string rel = std::string(dir) + "/" + llvm::sys::path::filename(it->path()).str();
      auto prog = jit::Program::fromFile(it->path());
      ASSERT_TRUE((bool)prog) << llvm::toString(prog.takeError());
      for (const auto &k : (*prog)->kernels())
        EXPECT_TRUE(covered.count({rel, k.name}))
            << rel << ": kernel " << k.name << " has no test case";
    }
  }
}

//===----------------------------------------------------------------------===//
// Semantics
//===----------------------------------------------------------------------===//

/// Interprets `text` (one kernel) on `args`; returns the error text, or "".
std::string runText(const std::string &text, std::vector<jit::HostArg> args,
                    llvm::raw_ostream *out = nullptr, unsigned threads = 0) {
  auto prog = jit::Program::fromSource("test.tile", text);
  if (!prog)
    return llvm::toString(prog.takeError());
  jit::InterpretOptions o;
  o.out = out;
  o.threads = threads;
  auto info = jit::interpret(**prog, "", args, o);
  return info ? "" : llvm::toString(info.takeError());
}

TEST(InterpreterSemantics, HalfRoundingMatchesAPFloat) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = bits(rng);
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f))
      continue;
    for (auto *sem : {&llvm::APFloat::IEEEhalf(), &llvm::APFloat::BFloat()}) {
      llvm::APFloat a(f);
      bool lost;
      a.convert(*sem, llvm::APFloat::rmNearestTiesToEven, &lost);
      a.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
      float want = a.convertToFloat(), got = sem == &llvm::APFloat::BFloat()
                                                 ? interp::roundToBFloat(f)
                                                 : interp::roundToHalf(f);
      ASSERT_EQ(std::memcmp(&want, &got, 4), 0)
          << "rounding " << f << " (0x" << std::hex << u << ")";
    }
  }
}

TEST(InterpreterSemantics, Bf16OpsRoundEveryResult) {
  // 1 + 2^-8 is not a bf16: x + y rounds it to 1 (ties to even), so (x + y) - x is
  // 0 in bf16 but 2^-8 in f32 math.
  std::vector<uint16_t> x = {0x3F80}, y = {0x3B80}, z = {0xFFFF}; // 1.0, 2^-8
  std::vector<float> w = {-1};
  std::string text = "kernel k(x: tensor<bf16, [1]>, y: tensor<bf16, [1]>, z: tensor<bf16, [1]>, "
                     "w: tensor<f32, [1]>) {\n"
                     "  let a = load(x, [0], [1]);\n  let b = load(y, [0], [1]);\n"
                     "  store(z, [0], (a + b) - a);\n"
                     "  store(w, [0], (a.to(f32) + b.to(f32)) - a.to(f32));\n}\n";
  ASSERT_EQ(runText(text, {jit::HostTensorArg{x.data(), DType::BF16, {1}},
                           jit::HostTensorArg{y.data(), DType::BF16, {1}},
                           jit::HostTensorArg{z.data(), DType::BF16, {1}},
                           jit::HostTensorArg{w.data(), DType::F32, {1}}}),
            "");
  EXPECT_EQ(z[0], 0x0000);
  EXPECT_EQ(w[0], 1.0f / 256);
}

TEST(InterpreterSemantics, IntegersWrapAndDivideTowardZero) {
  std::vector<int32_t> out(4, 0);
  std::string text =
      "kernel k(y: tensor<i32, [4]>, big: i32, d: i32) {\n"
      "  let v = full([4], big, i32) + arange(4);\n"
      "  store(y, [0], where(arange(4) < 2, v, (0 - 7) / d + (0 - 7) % d * 100));\n}\n";
  ASSERT_EQ(runText(text, {jit::HostTensorArg{out.data(), DType::I32, {4}},
                           jit::ScalarArg::of(2147483647), jit::ScalarArg::of(2)}),
            "");
  EXPECT_EQ(out[0], 2147483647);
  EXPECT_EQ(out[1], INT32_MIN); // wraps
  EXPECT_EQ(out[2], -3 - 100);  // -7 / 2 = -3, -7 % 2 = -1
}

TEST(InterpreterSemantics, DivisionByZeroIsALocatedError) {
  std::vector<int32_t> out(4, 0);
  std::string text = "kernel k(y: tensor<i32, [4]>, d: i32) {\n"
                     "  store(y, [0], arange(4) / d);\n}\n";
  std::string err =
      runText(text, {jit::HostTensorArg{out.data(), DType::I32, {4}}, jit::ScalarArg::of(0)});
  EXPECT_NE(err.find("test.tile:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("integer division by zero (in program (0, 0, 0))"), std::string::npos) << err;
}

TEST(InterpreterSemantics, ABrokenMultipleOfPromiseIsALocatedError) {
  std::vector<float> y(64, 0.0f);
  std::string text = "kernel k(y: tensor<f32, [64]>, s: i32) {\n"
                     "  let i = multiple_of(s, 8) + arange(8);\n"
                     "  store(y[i], 1.0);\n}\n";
  auto arg = [&] { return jit::HostTensorArg{y.data(), DType::F32, {64}}; };
  EXPECT_EQ(runText(text, {arg(), jit::ScalarArg::of(16)}), "");
  EXPECT_EQ(y[16], 1.0f);
  std::string err = runText(text, {arg(), jit::ScalarArg::of(12)});
  EXPECT_NE(err.find("test.tile:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("multiple_of(8) does not hold: 12 is not a multiple of it"), std::string::npos)
      << err;
}

TEST(InterpreterSemantics, AFailedAssertNamesKernelLineProgramAndMessage) {
  std::vector<int32_t> idx = {0, 3, 9, 1}, y(4, -1);
  std::string text = "kernel pick(idx: tensor<i32, [T]>, y: tensor<i32, [T]>) grid [T] {\n"
                     "  let i = load(idx[program_id(0)]);\n"
                     "  assert(i >= 0 && i < 8, \"index \\\"i\\\" in range\");\n"
                     "  store(y[program_id(0)], i);\n}\n";
  auto args = [&] {
    return std::vector<jit::HostArg>{jit::HostTensorArg{idx.data(), DType::I32, {4}},
                                     jit::HostTensorArg{y.data(), DType::I32, {4}}};
  };
  std::string err = runText(text, args(), nullptr, /*threads=*/1);
  EXPECT_NE(err.find("test.tile:3:3"), std::string::npos) << err;
  EXPECT_NE(
      err.find("assertion failed in kernel 'pick': index \"i\" in range (in program (2, 0, 0))"),
      std::string::npos)
      << err;
  idx[2] = 7;
  EXPECT_EQ(runText(text, args()), "");
  EXPECT_EQ(y, idx);
}

TEST(InterpreterSemantics, PaddingNeverFailsAnAssert) {
  // 48 rows pad to 64; the padded rows' comparison is false, and must not count.
  std::vector<float> y(48, 0.0f);
  std::string text = "kernel k(y: tensor<f32, [48]>) {\n"
                     "  let r = arange(48);\n"
                     "  assert(r < 48, \"row in the tile\");\n"
                     "  store(y, [0], r.to(f32));\n}\n";
  auto prog = jit::Program::fromSource("test.tile", text);
  ASSERT_TRUE((bool)prog) << llvm::toString(prog.takeError());
  for (bool padded : {false, true}) {
    jit::InterpretOptions o;
    o.padExtents = padded;
    std::vector<jit::HostArg> args = {jit::HostTensorArg{y.data(), DType::F32, {48}}};
    auto info = jit::interpret(**prog, "", args, o);
    EXPECT_TRUE((bool)info) << (padded ? "padded: " : "") << llvm::toString(info.takeError());
    EXPECT_EQ(y[47], 47.0f);
  }
}

TEST(InterpreterSemantics, ArgumentsAreCheckedLikeOnTheGpu) {
  std::vector<float> x(10), y(12);
  std::string text =
      "kernel k(x: tensor<f32, [N]>, y: tensor<f32, [N]>) { store(y, [0], load(x, [0], [16])); }\n";
  std::string err = runText(text, {jit::HostTensorArg{x.data(), DType::F32, {10}},
                                   jit::HostTensorArg{y.data(), DType::F32, {12}}});
  EXPECT_NE(err.find("N"), std::string::npos) << err;
  EXPECT_NE(err, "");
}

TEST(InterpreterSemantics, PrintShowsEveryProgramInOrder) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  std::string text =
      "kernel k(x: tensor<f32, [N]>) grid [2] {\n"
      "  let t = load(x, [program_id(0)], [4]);\n  print(t);\n  print(sum(t, 0));\n}\n";
  std::string s;
  llvm::raw_string_ostream os(s);
  ASSERT_EQ(runText(text, {jit::HostTensorArg{x.data(), DType::F32, {8}}}, &os, 4), "");
  EXPECT_EQ(s, "program (0, 0, 0): t = [1, 2, 3, 4]\nprogram (0, 0, 0): sum(t, 0) = 10\n"
               "program (1, 0, 0): t = [5, 6, 7, 8]\nprogram (1, 0, 0): sum(t, 0) = 26\n");
}

TEST(InterpreterSemantics, AttentionD64IsFast) {
  // The bar: the attention example at B=1, H=2, N=256, D=64 in under 10 s.
  for (ProgramCase c : exampleCases()) {
    if (c.name != "attention_b1_h2_n256_d64")
      continue;
    double ms = 0;
    ASSERT_EQ(interpretCase(c, &ms), "");
    EXPECT_EQ(c.check(c.args), "");
    EXPECT_LT(ms, 10000);
    std::printf("attention B=1 H=2 N=256 D=64 interpreted in %.1f ms\n", ms);
    return;
  }
  FAIL() << "no attention_b1_h2_n256_d64 case";
}

} // namespace
