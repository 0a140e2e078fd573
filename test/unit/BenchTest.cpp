//===- BenchTest.cpp - the bench's convention and reports (no GPU) --------===//
#include "runtime/autotune/Model.h"
#include "runtime/autotune/Tuner.h"
#include "runtime/bench/Baseline.h"
#include "runtime/bench/Compare.h"
#include "runtime/bench/Rivals.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace tessera;
using namespace tessera::bench;

namespace {

TEST(BenchExpr, EvaluatesLaunchExpressions) {
  std::map<std::string, int64_t> d = {{"M", 1000}, {"N", 4096}, {"B", 4}, {"H", 32}};
  auto v = evalExpr("cdiv(M, 128)", d);
  ASSERT_TRUE((bool)v);
  EXPECT_EQ(*v, 8);
  EXPECT_EQ(*evalExpr("B*H", d), 128);
  EXPECT_EQ(*evalExpr("max(1, min(N / 64, 7)) + (2 - 1) * 3", d), 10);
  auto bad = evalExpr("cdiv(M, Q)", d);
  ASSERT_FALSE((bool)bad);
  EXPECT_NE(llvm::toString(bad.takeError()).find("unknown dim 'Q'"), std::string::npos);
  auto zero = evalExpr("M / (N - N)", d);
  ASSERT_FALSE((bool)zero);
  EXPECT_NE(llvm::toString(zero.takeError()).find("division by zero"), std::string::npos);
  EXPECT_FALSE((bool)evalExpr("M +", d));
  EXPECT_FALSE((bool)evalExpr("(M", d));
}

TEST(BenchDecls, ParsesTheDeclarationLines) {
  auto d = parseDecls("// tessera-bench: mm grid=[cdiv(N,128), cdiv(M,128)] block=256 smem=56832\n"
                      "int x;\n// tessera-bench: sm grid=[M] block=128\n",
                      "f.cu");
  ASSERT_TRUE((bool)d) << llvm::toString(d.takeError());
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0].name, "mm");
  ASSERT_EQ((*d)[0].grid.size(), 2u);
  EXPECT_EQ((*d)[0].grid[1], "cdiv(M,128)");
  EXPECT_EQ((*d)[0].smem, 56832);
  EXPECT_EQ((*d)[1].block, 128);
  auto bad = parseDecls("\n// tessera-bench: k block=2048 grid=[1]\n", "g.cu");
  ASSERT_FALSE((bool)bad);
  EXPECT_NE(
      llvm::toString(bad.takeError()).find("g.cu:2: bad tessera-bench line: block must be 1..1024"),
      std::string::npos);
  EXPECT_FALSE((bool)parseDecls("// tessera-bench: k block=64\n", "h.cu")); // no grid
}

TEST(BenchDecls, EveryBaselineDeclaresWellFormedKernels) {
  for (const char *f : {"softmax.cu", "matmul.cu", "attention.cu", "epilogue.cu"}) {
    auto buf = llvm::MemoryBuffer::getFile(std::string(TESSERA_SOURCE_DIR) + "/examples/cuda/" + f);
    ASSERT_TRUE((bool)buf) << f;
    auto d = parseDecls((*buf)->getBuffer(), f);
    ASSERT_TRUE((bool)d) << llvm::toString(d.takeError());
    EXPECT_FALSE(d->empty()) << f;
    for (const BaselineDecl &k : *d)
      for (const std::string &g : k.grid)
        EXPECT_TRUE(
            (bool)evalExpr(g, {{"M", 100}, {"N", 100}, {"K", 64}, {"B", 1}, {"H", 2}, {"D", 64}}))
            << f << ": " << g;
  }
}

TEST(BenchConvention, DimsInOrderOfFirstAppearance) {
  auto p = jit::Program::fromSource("t.tile",
                                    "kernel mm(a: tensor<bf16, [M, K]>, b: tensor<bf16, [K, N]>, "
                                    "c: tensor<bf16, [M, N]>) grid [1] { }\n");
  ASSERT_TRUE((bool)p);
  EXPECT_EQ(dimOrder((*p)->kernels()[0]), (std::vector<std::string>{"M", "K", "N"}));
}

TEST(BenchReports, TableJsonAndSvg) {
  Result r;
  r.spec.family = "matmul";
  r.spec.label = "4096^3 bf16";
  r.spec.dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  r.spec.flops = 2.0 * 4096 * 4096 * 4096;
  r.sides = {Side{"tessera", 0.5, 0.49, 0.52, 0, true, "default configuration"},
             Side{"cublas", 0.25, 0.24, 0.26, 1e-3, true, "cublasGemmEx"},
             Side{"cuda", 1.0, 0.9, 1.1, 0.5, false, "matmul_bf16"}};
  Roofline roof;
  roof.copyTBps = 4.2;
  std::string table;
  llvm::raw_string_ostream ts(table);
  printTable(ts, {r}, roof);
  EXPECT_NE(table.find("274.9 TFLOP/s"), std::string::npos) << table;
  EXPECT_NE(table.find("0.50x"), std::string::npos) << table; // cuBLAS twice as fast
  EXPECT_NE(table.find("FAIL"), std::string::npos) << table;
  std::string json;
  llvm::raw_string_ostream js(json);
  writeJSON(js, {r}, roof, "NVIDIA H200");
  auto v = llvm::json::parse(json);
  ASSERT_TRUE((bool)v) << llvm::toString(v.takeError());
  auto *rows = v->getAsObject()->getArray("rows");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[1].getAsObject()->getString("side"), llvm::StringRef("cublas"));
  EXPECT_NEAR(*(*rows)[1].getAsObject()->getNumber("throughput"), 549.8, 0.1);
  roof.measureComputeFrom({r});
  EXPECT_NEAR(roof.peakTFLOPs, 549.8, 0.1); // the cuBLAS side's throughput
  EXPECT_NEAR(roof.of(r, r.sides[0]), 50.0, 0.1);
  std::string svg;
  llvm::raw_string_ostream ss(svg);
  writeSVG(ss, {r}, "NVIDIA H200");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

// Rows another program measured (PyTorch SDPA through scripts/device-baselines.py
// --json) join the suite's rows of the same workload and size.
TEST(BenchRivals, JoinTheSuitesRowsBySize) {
  auto rivals = parseRivals(R"({"device": "NVIDIA H200", "rows": [
      {"workload": "attention", "size": "B4 H32 N4096 D128", "side": "sdpa-cudnn",
       "median_ms": 1.6, "min_ms": 1.5, "max_ms": 1.7, "ok": true, "note": "PyTorch SDPA"},
      {"workload": "attention", "size": "B4 H32 N4096 D128", "side": "sdpa-flash",
       "median_ms": 2.4, "min_ms": 2.3, "max_ms": 2.5, "ok": false},
      {"workload": "attention", "size": "B9 H1 N7 D64", "side": "sdpa-cudnn",
       "median_ms": 0.1, "min_ms": 0.1, "max_ms": 0.1, "ok": true}]})",
                            "r.json");
  ASSERT_TRUE((bool)rivals) << llvm::toString(rivals.takeError());
  ASSERT_EQ(rivals->rows.size(), 3u);
  Result r;
  r.spec.family = "attention";
  r.spec.label = "B4 H32 N4096 D128";
  r.spec.flops = 1099511627776.0;
  r.sides = {Side{"tessera", 2.0, 1.9, 2.1, 0, true, "tuned"}};
  std::vector<Result> results = {r};
  auto unmatched = attachRivals(results, *rivals, "NVIDIA H200");
  ASSERT_TRUE((bool)unmatched) << llvm::toString(unmatched.takeError());
  EXPECT_EQ(*unmatched, (std::vector<std::string>{"sdpa-cudnn attention B9 H1 N7 D64"}));
  ASSERT_EQ(results[0].sides.size(), 3u);
  EXPECT_TRUE(results[0].sides[1].external);
  EXPECT_FALSE(results[0].sides[2].ok);
  Roofline roof;
  std::string table;
  llvm::raw_string_ostream ts(table);
  printTable(ts, results, roof);
  EXPECT_NE(table.find("sdpa-cudnn"), std::string::npos) << table;
  EXPECT_NE(table.find("0.80x"), std::string::npos) << table; // cuDNN 1.6 ms against 2.0
  EXPECT_NE(table.find("own ref"), std::string::npos) << table;
  EXPECT_NE(table.find("own FAIL"), std::string::npos) << table;
  // A side name longer than the header's ("sdpa-cudnn") widens the column for
  // every row: each row's median starts where the header's column does.
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(table).split(lines, '\n');
  size_t medianEnd = lines[0].find("median ms") + strlen("median ms");
  for (size_t i = 1; i <= 3; ++i) {
    llvm::StringRef row = lines[i];
    ASSERT_GT(row.size(), medianEnd) << table;
    EXPECT_EQ(row[medianEnd], ' ') << table;
    EXPECT_NE(row[medianEnd - 1], ' ') << "line " << i << " of\n" << table;
  }
  std::string json;
  llvm::raw_string_ostream js(json);
  writeJSON(js, results, roof, "NVIDIA H200");
  auto v = llvm::json::parse(json);
  ASSERT_TRUE((bool)v) << llvm::toString(v.takeError());
  const llvm::json::Object *row = (*v->getAsObject()->getArray("rows"))[1].getAsObject();
  EXPECT_EQ(row->getBoolean("external"), std::optional<bool>(true));
  EXPECT_EQ(row->get("rel_err_vs_tessera")->kind(), llvm::json::Value::Null);
  // Measured on another GPU: refused, not mixed in.
  auto other = attachRivals(results, *rivals, "NVIDIA H100 80GB HBM3");
  ASSERT_FALSE((bool)other);
  EXPECT_NE(
      llvm::toString(other.takeError()).find("measured on NVIDIA H200, this GPU is NVIDIA H100"),
      std::string::npos);
}

TEST(BenchRivals, BadFilesSayWhichRowAndField) {
  auto err = [](llvm::StringRef text) {
    auto r = parseRivals(text, "r.json");
    return r ? std::string("parsed") : llvm::toString(r.takeError());
  };
  EXPECT_NE(err("{").find("r.json: not JSON"), std::string::npos);
  EXPECT_NE(err(R"({"rows": []})").find("\"device\" must name the GPU"), std::string::npos);
  EXPECT_NE(err(R"({"device": "G", "rows": {}})").find("\"rows\" must be an array"),
            std::string::npos);
  std::string row = R"({"workload": "attention", "size": "S", "side": "x", "median_ms": 1,
                        "min_ms": 1, "max_ms": 1, "ok": true})";
  EXPECT_EQ(err(R"({"device": "G", "rows": [)" + row + "]}"), "parsed");
  EXPECT_NE(err(R"({"device": "G", "rows": [)" + row + "," + row + "]}")
                .find("r.json: row 1: a second \"x\" row for attention S"),
            std::string::npos);
  EXPECT_NE(err(R"({"device": "G", "rows": [1]})").find("row 0: a row must be an object"),
            std::string::npos);
  EXPECT_NE(err(R"({"device": "G", "rows": [{"workload": "attention", "size": "S", "side": "x",
                "median_ms": -1, "min_ms": 1, "max_ms": 1, "ok": true}]})")
                .find("row 0: \"median_ms\" must be a positive number"),
            std::string::npos);
  EXPECT_NE(err(R"({"device": "G", "rows": [{"workload": "attention", "size": "S", "side": "x",
                "median_ms": 1, "min_ms": 1, "max_ms": 1}]})")
                .find("row 0: \"ok\" must be true or false"),
            std::string::npos);
  EXPECT_NE(err(R"({"device": "G", "rows": [{"workload": "attention", "size": "S",
                "side": "tessera", "median_ms": 1, "min_ms": 1, "max_ms": 1, "ok": true}]})")
                .find("a rival cannot be named \"tessera\""),
            std::string::npos);
  EXPECT_NE(err(R"({"device": "G", "rows": [{"size": "S", "side": "x", "median_ms": 1,
                "min_ms": 1, "max_ms": 1, "ok": true}]})")
                .find("row 0: \"workload\" must be a non-empty string"),
            std::string::npos);
}

// Every row of `tessera bench --suite` names a program and kernel that exist,
// a size for every dimension and a value for every scalar, given contents
// (varlen's cu_seqlens) of each tensor's dtype and shape, and compiles for
// sm_90a in the configuration a launch without a tuning entry takes.
TEST(BenchSuite, EveryRowCompilesInItsDefaultConfiguration) {
  auto target = *target::TargetInfo::lookup("sm_90a");
  jit::Compiler compiler;
  for (const PairSpec &spec : suite(TESSERA_SOURCE_DIR)) {
    SCOPED_TRACE(spec.family + " " + spec.label);
    auto p = jit::Program::fromFile(spec.tileFile);
    ASSERT_TRUE((bool)p) << llvm::toString(p.takeError());
    auto sig = (*p)->kernel(spec.kernel);
    ASSERT_TRUE((bool)sig) << llvm::toString(sig.takeError());
    for (const std::string &d : dimOrder(*sig))
      EXPECT_TRUE(spec.dims.count(d)) << "no size for " << d;
    for (const jit::ParamInfo &param : sig->params)
      EXPECT_TRUE(param.isTensor || spec.scalars.count(param.name))
          << "no value for " << param.name;
    EXPECT_GT(spec.flops + spec.bytes, 0);
    jit::CompileRequest req;
    req.kernel = sig->name;
    req.dims = spec.dims;
    for (const jit::ParamInfo &param : sig->params) // integer and bool scalars may specialize
      if (!param.isTensor && (isInt(param.dtype) || param.dtype == DType::Bool) &&
          spec.scalars.count(param.name))
        req.dims[param.name] = (int64_t)spec.scalars.at(param.name);
    req.arch = "sm_90a";
    req.numSms = 132;
    llvm::Error given = autotune::checkGiven(*sig, req.dims, spec.given);
    EXPECT_FALSE((bool)given) << llvm::toString(std::move(given));
    auto params = autotune::chooseDefault(compiler, **p, req, target, 132);
    ASSERT_TRUE((bool)params) << llvm::toString(params.takeError());
    req.params = *params;
    auto ck = compiler.compile(**p, req);
    EXPECT_TRUE((bool)ck) << (ck ? "" : llvm::toString(ck.takeError()));
  }
}

// The varlen row's sequence offsets: 0, then each sequence's end, the last
// the packed length T; max_seqlen the longest; FLOPs 4 H D sum(len^2).
TEST(BenchSuite, VarlenRowDescribesItsBatch) {
  for (const PairSpec &spec : suite(TESSERA_SOURCE_DIR)) {
    if (spec.label.rfind("varlen", 0) != 0)
      continue;
    const NpyArray &cu = spec.given.at("cu_seqlens");
    ASSERT_EQ(cu.dtype, DType::I32);
    std::vector<int32_t> at(cu.numElements());
    std::memcpy(at.data(), cu.data.data(), cu.data.size());
    ASSERT_EQ((int64_t)at.size(), spec.dims.at("S"));
    EXPECT_EQ(at.front(), 0);
    EXPECT_EQ(at.back(), spec.dims.at("T"));
    double longest = 0, squares = 0;
    for (size_t i = 1; i < at.size(); ++i) {
      ASSERT_GT(at[i], at[i - 1]);
      double len = at[i] - at[i - 1];
      longest = std::max(longest, len);
      squares += len * len;
    }
    EXPECT_EQ(spec.scalars.at("max_seqlen"), longest);
    EXPECT_DOUBLE_EQ(spec.flops, 4.0 * spec.dims.at("H") * spec.dims.at("D") * squares);
    return;
  }
  FAIL() << "no varlen row in the suite";
}

} // namespace
