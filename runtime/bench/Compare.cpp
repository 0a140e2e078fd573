//===- Compare.cpp - Tessera beside hand-written CUDA and cuBLAS ----------===//
#include "runtime/bench/Compare.h"
#include "lib/Support/Errors.h"

#include "runtime/autotune/Tuner.h"
#include "runtime/bench/Baseline.h"
#include "runtime/cuda/Cublas.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>

using namespace tessera;
using namespace tessera::bench;

namespace {

llvm::Error sync() { return cuda::check(cuda::driver()->cuCtxSynchronize(), "cuCtxSynchronize"); }

/// Median, min and max milliseconds of single launches, L2 flushed before each.
llvm::Error timeIt(autotune::LaunchTimer &timer, const std::function<llvm::Error()> &fn, int reps,
                   Side &out) {
  auto t = timer.time(fn, 5, reps);
  if (!t)
    return t.takeError();
  out.ms = t->ms;
  out.minMs = t->minMs;
  out.maxMs = t->maxMs;
  return llvm::Error::success();
}

/// Max |x - t| over max |t| across the written tensors; INFINITY where one
/// side has a NaN the other has not (`why` then names the element).
double relativeError(const autotune::Inputs &in, const std::vector<std::vector<char>> &x,
                     const std::vector<std::vector<char>> &t, std::string &why) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].empty() || (x[i] == in.host[i] && t[i] == in.host[i])) // an input, untouched
      continue;
    size_t w = dtypeBytes(in.dtypes[i]);
    for (size_t e = 0; e < x[i].size() / w; ++e) {
      double a = autotune::decodeElement(in.dtypes[i], x[i].data() + e * w),
             b = autotune::decodeElement(in.dtypes[i], t[i].data() + e * w);
      if (std::isnan(a) != std::isnan(b)) {
        why = llvm::formatv("argument {0} element {1}: {2} here, {3} in Tessera's", i, e, a, b);
        return INFINITY;
      }
      if (std::isfinite(b))
        scale = std::max(scale, std::fabs(b));
      if (std::isfinite(a) && std::isfinite(b))
        worst = std::max(worst, std::fabs(a - b));
    }
  }
  return scale > 0 ? worst / scale : worst;
}

double gateFor(const autotune::Inputs &in) {
  double g = 1e-4;
  for (size_t i = 0; i < in.dtypes.size(); ++i)
    if (!in.host[i].empty())
      g = std::max(g, in.dtypes[i] == DType::BF16  ? 2e-2
                      : in.dtypes[i] == DType::F16 ? 4e-3
                                                   : 1e-4);
  return g;
}

} // namespace

double Result::throughput(const Side &s) const {
  double work = spec.flops > 0 ? spec.flops : spec.bytes;
  return s.ms > 0 ? work / s.ms / 1e9 : 0;
}

double Roofline::of(const Result &r, const Side &s) const {
  double roof = r.spec.flops > 0 ? peakTFLOPs : copyTBps;
  return roof > 0 ? 100 * r.throughput(s) / roof : 0;
}

void Roofline::measureComputeFrom(llvm::ArrayRef<Result> results) {
  double best = 0;
  for (const Result &r : results)
    if (r.spec.flops > 0)
      for (const Side &s : r.sides)
        if (s.name == "cublas" && s.ok)
          best = std::max(best, r.throughput(s));
  if (best > 0) {
    peakTFLOPs = best;
    peakSource = "the best cuBLAS bf16 throughput measured in this run";
  }
}

llvm::Expected<double> tessera::bench::measureCopyTBps() {
  size_t bytes = 1u << 30;
  auto src = cuda::DeviceBuffer::allocate(bytes), dst = cuda::DeviceBuffer::allocate(bytes);
  if (!src)
    return src.takeError();
  if (!dst)
    return dst.takeError();
  if (llvm::Error e = src->fill(1))
    return std::move(e);
  auto timer = autotune::LaunchTimer::create();
  if (!timer)
    return timer.takeError();
  Side s;
  if (llvm::Error e = timeIt(
          *timer,
          [&] {
            return cuda::check(
                cuda::driver()->cuMemcpyDtoDAsync(dst->get(), src->get(), bytes, nullptr),
                "cuMemcpyDtoDAsync");
          },
          20, s))
    return std::move(e);
  return 2.0 * bytes / s.ms / 1e9;
}

llvm::Expected<Result> tessera::bench::runPair(jit::Runtime &rt, const PairSpec &spec, int reps) {
  auto program = jit::Program::fromFile(spec.tileFile);
  if (!program)
    return program.takeError();
  auto sig = (*program)->kernel(spec.kernel);
  if (!sig)
    return sig.takeError();
  auto in = autotune::makeInputs(*sig, spec.dims, spec.scalars, 7, spec.given);
  if (!in)
    return in.takeError();
  auto timer = autotune::LaunchTimer::create();
  if (!timer)
    return timer.takeError();
  Result res;
  res.spec = spec;
  double gate = gateFor(*in);
  // Tessera: once on fresh inputs (its outputs are the reference), then timed.
  Side t{"tessera"};
  auto launchTessera = [&]() -> llvm::Error {
    auto info = rt.launch(**program, sig->name, in->args);
    if (!info)
      return info.takeError();
    t.note = std::string(info->tuned     ? "tuned "
                         : info->modeled ? "model default "
                                         : "declared default ") +
             info->config;
    return llvm::Error::success();
  };
  if (llvm::Error e = autotune::restore(*in))
    return std::move(e);
  if (llvm::Error e = launchTessera())
    return std::move(e);
  if (llvm::Error e = sync())
    return std::move(e);
  auto ref = autotune::outputs(*in);
  if (!ref)
    return ref.takeError();
  if (llvm::Error e = timeIt(*timer, launchTessera, reps, t))
    return std::move(e);
  res.sides.push_back(t);

  auto other = [&](Side s, const std::function<llvm::Error()> &fn) -> llvm::Error {
    if (llvm::Error e = autotune::restore(*in))
      return e;
    if (llvm::Error e = fn())
      return e;
    if (llvm::Error e = sync())
      return e;
    auto outs = autotune::outputs(*in);
    if (!outs)
      return outs.takeError();
    std::string why;
    s.relErr = relativeError(*in, *outs, *ref, why);
    s.ok = s.relErr <= gate;
    if (!why.empty())
      s.note += " (" + why + ")";
    if (llvm::Error e = timeIt(*timer, fn, reps, s))
      return e;
    res.sides.push_back(s);
    return llvm::Error::success();
  };
  if (!spec.cuFile.empty()) {
    auto base = CudaBaseline::load(spec.cuFile, spec.cuKernel, rt.deviceArch());
    if (!base)
      return base.takeError();
    std::map<std::string, int64_t> dims = spec.dims;
    if (llvm::Error e = other(Side{"cuda", 0, 0, 0, 0, true, spec.cuKernel},
                              [&] { return base->launch(*sig, in->args, dims); }))
      return std::move(e);
  }
  if (spec.cublas) {
    auto blas = cuda::Cublas::create();
    if (!blas)
      return blas.takeError();
    const jit::TensorArg *c = nullptr;
    for (const jit::Arg &a : in->args)
      if (auto *t = std::get_if<jit::TensorArg>(&a))
        c = t;
    const auto &a = std::get<jit::TensorArg>(in->args[0]),
               &b = std::get<jit::TensorArg>(in->args[1]);
    cuda::Cublas::Gemm g;
    g.m = (int)spec.dims.at("M");
    g.n = (int)spec.dims.at("N");
    g.k = (int)spec.dims.at("K");
    g.bf16 = a.dtype == DType::BF16;
    g.f32Out = c->dtype == DType::F32;
    g.aTransposed = spec.cublasTransA;
    std::optional<CudaBaseline> epilogue;
    if (!spec.epilogueCu.empty()) {
      auto e = CudaBaseline::load(spec.epilogueCu, spec.epilogueKernel, rt.deviceArch());
      if (!e)
        return e.takeError();
      epilogue.emplace(std::move(*e));
    }
    std::string note = std::string("cublasGemmEx") + (g.bf16 ? "" : " f16") +
                       (g.aTransposed ? " A^T" : "") +
                       (epilogue ? " + " + spec.epilogueKernel : "");
    std::map<std::string, int64_t> dims = spec.dims;
    if (llvm::Error e = other(
            Side{epilogue ? "cublas+epi" : "cublas", 0, 0, 0, 0, true, note}, [&]() -> llvm::Error {
              if (llvm::Error e = blas->gemm(a.data, b.data, c->data, g))
                return e;
              return epilogue ? epilogue->launch(*sig, in->args, dims) : llvm::Error::success();
            }))
      return std::move(e);
  }
  return res;
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

void tessera::bench::printTable(llvm::raw_ostream &os, llvm::ArrayRef<Result> results,
                                const Roofline &roof) {
  // The size and side columns as wide as their longest entry ("GQA grouped ...",
  // "sdpa-cudnn"), so that the numbers stay in columns.
  int sizeW = 22, sideW = 8;
  for (const Result &r : results) {
    sizeW = std::max(sizeW, (int)r.spec.label.size());
    for (const Side &s : r.sides)
      sideW = std::max(sideW, (int)s.name.size());
  }
  os << llvm::format("%-10s %-*s %-*s %10s %10s %10s %12s %8s %9s %10s  %s\n", "workload", sizeW,
                     "size", sideW, "side", "median ms", "min ms", "max ms", "throughput", "% roof",
                     "speedup", "rel err", "note");
  for (const Result &r : results) {
    const Side &t = r.sides.front();
    for (const Side &s : r.sides) {
      std::string tp = llvm::formatv("{0:F1} {1}", r.throughput(s), r.unit()).str();
      std::string speed = &s == &t ? "-" : llvm::formatv("{0:F2}x", s.ms / t.ms).str();
      // A rival from a rivals file checked its own output against its own reference.
      std::string rel = &s == &t ? "(ref)"
                        : s.external
                            ? (s.ok ? "own ref" : "own FAIL")
                            : llvm::formatv("{0:E1}{1}", s.relErr, s.ok ? "" : " FAIL").str();
      os << llvm::format("%-10s %-*s %-*s %10.4f %10.4f %10.4f %12s %7.1f%% %9s %10s  %s\n",
                         r.spec.family.c_str(), sizeW, r.spec.label.c_str(), sideW, s.name.c_str(),
                         s.ms, s.minMs, s.maxMs, tp.c_str(), roof.of(r, s), speed.c_str(),
                         rel.c_str(), s.note.c_str());
    }
  }
  if (llvm::any_of(results, [](const Result &r) {
        return llvm::any_of(r.sides, [](const Side &s) { return s.external; });
      }))
    os << "own ref: a side measured by another program on the same GPU (--rivals), on its own "
          "inputs of these shapes, its output checked by that program\n";
  os << "speedup: the side's median over Tessera's (above 1: Tessera is faster); % roof: of the "
        "measured copy "
        "bandwidth ("
     << llvm::format("%.2f", roof.copyTBps) << " TB/s) or of " << roof.peakSource << " ("
     << llvm::format("%.0f", roof.peakTFLOPs) << " TFLOP/s)\n";
}

namespace {
/// JSON has no infinities or NaNs: those become null.
llvm::json::Value number(double v) {
  return std::isfinite(v) ? llvm::json::Value(v) : llvm::json::Value(nullptr);
}
} // namespace

void tessera::bench::writeJSON(llvm::raw_ostream &os, llvm::ArrayRef<Result> results,
                               const Roofline &roof, llvm::StringRef device) {
  llvm::json::Array rows;
  for (const Result &r : results)
    for (const Side &s : r.sides) {
      llvm::json::Object dims;
      for (auto &[n, v] : r.spec.dims)
        dims[n] = v;
      rows.push_back(llvm::json::Object{{"workload", r.spec.family},
                                        {"size", r.spec.label},
                                        {"dims", std::move(dims)},
                                        {"side", s.name},
                                        {"median_ms", s.ms},
                                        {"min_ms", s.minMs},
                                        {"max_ms", s.maxMs},
                                        {"throughput", r.throughput(s)},
                                        {"unit", r.unit()},
                                        {"percent_of_roofline", roof.of(r, s)},
                                        {"speedup_vs_tessera", s.ms / r.sides.front().ms},
                                        {"rel_err_vs_tessera", number(s.relErr)},
                                        {"ok", s.ok},
                                        {"external", s.external},
                                        {"note", s.note}});
    }
  os << llvm::formatv("{0:2}",
                      llvm::json::Value(llvm::json::Object{{"device", device},
                                                           {"copy_TBps", roof.copyTBps},
                                                           {"compute_roof_TFLOPs", roof.peakTFLOPs},
                                                           {"compute_roof_source", roof.peakSource},
                                                           {"rows", std::move(rows)}}))
     << "\n";
}

void tessera::bench::writeSVG(llvm::raw_ostream &os, llvm::ArrayRef<Result> results,
                              llvm::StringRef device) {
  std::vector<std::string> families;
  for (const Result &r : results)
    if (std::find(families.begin(), families.end(), r.spec.family) == families.end())
      families.push_back(r.spec.family);
  const int W = 640, H = 300, pad = 60;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\""
     << H * families.size() + 30
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"18\">tessera bench "
        "--suite on "
     << device << "</text>\n";
  const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  for (auto [fi, fam] : llvm::enumerate(families)) {
    int y0 = 30 + (int)fi * H;
    std::vector<const Result *> rs;
    for (const Result &r : results)
      if (r.spec.family == fam)
        rs.push_back(&r);
    std::vector<std::string> sides;
    double top = 0;
    for (const Result *r : rs)
      for (const Side &s : r->sides) {
        if (std::find(sides.begin(), sides.end(), s.name) == sides.end())
          sides.push_back(s.name);
        top = std::max(top, r->throughput(s));
      }
    top = top > 0 ? top * 1.1 : 1;
    auto pxv = [&](size_t i) {
      return pad + (rs.size() > 1 ? (double)i * (W - 2 * pad) / (rs.size() - 1) : 0.0);
    };
    auto pyv = [&](double v) { return y0 + H - pad + 10 - v / top * (H - 2 * pad); };
    auto px = [&](size_t i) { return llvm::formatv("{0:F1}", pxv(i)).str(); };
    auto py = [&](double v) { return llvm::formatv("{0:F1}", pyv(v)).str(); };
    os << "<text x=\"" << pad << "\" y=\"" << y0 + 20 << "\" font-weight=\"bold\">" << fam << " ("
       << rs.front()->unit() << ")</text>\n";
    os << "<line x1=\"" << pad << "\" y1=\"" << py(0) << "\" x2=\"" << W - pad << "\" y2=\""
       << py(0) << "\" stroke=\"black\"/>\n<line x1=\"" << pad << "\" y1=\"" << py(0) << "\" x2=\""
       << pad << "\" y2=\"" << py(top) << "\" stroke=\"black\"/>\n";
    for (int k = 0; k <= 4; ++k)
      os << "<text x=\"5\" y=\"" << llvm::formatv("{0:F1}", pyv(top * k / 4) + 4) << "\">"
         << llvm::format("%.1f", top * k / 4) << "</text>\n";
    for (auto [i, r] : llvm::enumerate(rs))
      os << "<text x=\"" << llvm::formatv("{0:F1}", pxv(i) - 30) << "\" y=\""
         << llvm::formatv("{0:F1}", pyv(0) + 16) << "\">" << r->spec.label << "</text>\n";
    for (auto [si, side] : llvm::enumerate(sides)) {
      std::string pts;
      for (auto [i, r] : llvm::enumerate(rs))
        for (const Side &s : r->sides)
          if (s.name == side)
            pts += px(i) + "," + py(r->throughput(s)) + " ";
      const char *c = colors[si % 4];
      os << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"" << pts
         << "\"/>\n";
      os << "<text x=\"" << W - pad - 70 << "\" y=\"" << y0 + 20 + 14 * si << "\" fill=\"" << c
         << "\">" << side << "</text>\n";
    }
  }
  os << "</svg>\n";
}

std::vector<PairSpec> tessera::bench::suite(const std::string &dir) {
  std::vector<PairSpec> out;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{32768, 1024},
                      {32768, 2048},
                      {32768, 4096},
                      {16384, 8192},
                      {8192, 16384}}) {
    PairSpec p{"softmax",
               std::to_string(m) + "x" + std::to_string(n) + " bf16",
               dir + "/test/programs/softmax_bf16.tile",
               "",
               dir + "/examples/cuda/softmax.cu",
               "softmax_bf16"};
    p.dims = {{"M", m}, {"N", n}};
    p.bytes = 2.0 * m * n * 2;
    out.push_back(p);
  }
  for (int64_t n : {1024, 2048, 4096, 8192}) {
    PairSpec p{"matmul", std::to_string(n) + "^3 bf16",    dir + "/examples/matmul.tile",
               "",       dir + "/examples/cuda/matmul.cu", "matmul_bf16",
               true};
    p.dims = {{"M", n}, {"N", n}, {"K", n}};
    p.flops = 2.0 * n * n * n;
    out.push_back(p);
  }
  // Shapes that do not fill the machine with square tiles: 1000^3 (64 tiles of
  // 128x128 on 132 SMs), a narrow N, and skinny M.
  for (auto [m, n, k] : {std::array<int64_t, 3>{1000, 1000, 1000},
                         {8192, 1024, 8192},
                         {128, 8192, 8192},
                         {64, 8192, 8192}}) {
    PairSpec p{"matmul",
               m == n ? std::to_string(m) + "^3 bf16"
                      : "M" + std::to_string(m) + " N" + std::to_string(n) + " K" +
                            std::to_string(k) + " bf16",
               dir + "/examples/matmul.tile",
               "",
               dir + "/examples/cuda/matmul.cu",
               "matmul_bf16",
               true};
    p.dims = {{"M", m}, {"N", n}, {"K", k}};
    p.flops = 2.0 * m * n * k;
    out.push_back(p);
  }
  // The neighbours at 4096^3: A stored transposed, and fused epilogues beside
  // cuBLAS followed by the same epilogue as a separate kernel.
  {
    PairSpec tn{"matmul", "4096^3 A^T bf16", dir + "/examples/matmul_tn.tile", "", "", "", true};
    tn.cublasTransA = true;
    tn.dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    tn.flops = 2.0 * 4096 * 4096 * 4096;
    out.push_back(tn);
    for (auto [kernel, label, epi] :
         {std::array<const char *, 3>{"matmul_bias_gelu", "4096^3 +bias GELU bf16",
                                      "bias_gelu_bf16"},
          {"matmul_bias_relu", "4096^3 +bias ReLU f32", "bias_relu_f32"}}) {
      PairSpec p{"matmul", label, dir + "/examples/matmul_epilogue.tile", kernel, "", "", true};
      p.epilogueCu = dir + "/examples/cuda/epilogue.cu";
      p.epilogueKernel = epi;
      p.dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
      p.flops = 2.0 * 4096 * 4096 * 4096;
      out.push_back(p);
    }
  }
  // f16 beside cuBLAS f16 (no hand-written twin).
  for (int64_t n : {2048, 4096, 8192}) {
    PairSpec p{
        "matmul", std::to_string(n) + "^3 f16", dir + "/examples/matmul_f16.tile", "", "", "",
        true};
    p.dims = {{"M", n}, {"N", n}, {"K", n}};
    p.flops = 2.0 * n * n * n;
    out.push_back(p);
  }
  for (int64_t n : {1024, 2048, 4096}) {
    PairSpec p{
        "attention", "B4 H32 N" + std::to_string(n) + " D128", dir + "/examples/attention.tile",
        "",          dir + "/examples/cuda/attention.cu",      "attention_bf16_d128"};
    p.dims = {{"B", 4}, {"H", 32}, {"N", n}, {"D", 128}};
    p.scalars = {{"scale", 1 / std::sqrt(128.0)}};
    p.flops = 4.0 * 4 * 32 * n * n * 128;
    out.push_back(p);
  }
  // The shapes people run (no hand-written twin; PyTorch's SDPA rivals are in
  // scripts/device-baselines.py): causal, head dims 64 and 256, a long
  // sequence, grouped-query (32 query heads over 8 key/value heads; also with a
  // group's heads in one program, each key/value block read once). FLOPs
  // 4 B H N^2 D, half for causal.
  struct Row {
    const char *label, *file;
    int64_t b, h, hk, n, d;
    bool causal;
  };
  for (const Row &r :
       {Row{"causal B4 H32 N4096 D128", "causal_attention", 4, 32, 0, 4096, 128, true},
        Row{"B4 H32 N4096 D64", "attention", 4, 32, 0, 4096, 64, false},
        Row{"causal B4 H32 N4096 D64", "causal_attention", 4, 32, 0, 4096, 64, true},
        Row{"B4 H32 N4096 D256", "attention", 4, 32, 0, 4096, 256, false},
        Row{"causal B4 H32 N4096 D256", "causal_attention", 4, 32, 0, 4096, 256, true},
        Row{"B1 H32 N16384 D128", "attention", 1, 32, 0, 16384, 128, false},
        Row{"GQA B4 H32/8 N4096 D128", "gqa_attention", 4, 32, 8, 4096, 128, false},
        Row{"GQA grouped B4 H32/8 N4096 D128", "gqa_grouped_attention", 4, 32, 8, 4096, 128,
            false}}) {
    PairSpec p{"attention", r.label, dir + "/examples/" + r.file + ".tile", "", "", ""};
    p.dims = {{"B", r.b}, {"H", r.h}, {"N", r.n}, {"D", r.d}};
    p.scalars = {{"scale", 1 / std::sqrt((double)r.d)}};
    if (r.hk) {
      p.dims["HK"] = r.hk;
      p.scalars["causal"] = r.causal;
    }
    p.flops = 4.0 * r.b * r.h * r.n * r.n * r.d * (r.causal ? 0.5 : 1.0);
    out.push_back(p);
  }
  // A variable-length batch (FlashAttention's varlen layout, cu_seqlens):
  // sixteen sequences of 512 to 4096 tokens packed into [T, H, D]. FLOPs
  // 4 H D sum(len^2). scripts/device-baselines.py times SDPA on the same
  // lengths (kVarlenLengths there).
  {
    const int64_t lens[] = {4096, 1024, 3072, 512,  2048, 3584, 1536, 2560,
                            4000, 700,  3300, 1900, 2800, 1200, 3800, 2300};
    PairSpec p{
        "attention", "varlen 16 seqs H32 D128", dir + "/examples/varlen_attention.tile", "", "",
        ""};
    NpyArray cu;
    cu.dtype = DType::I32;
    cu.shape = {(int64_t)std::size(lens) + 1};
    int32_t at = 0, longest = 0;
    double squares = 0;
    auto put = [&](int32_t v) {
      const char *b = reinterpret_cast<const char *>(&v);
      cu.data.insert(cu.data.end(), b, b + sizeof v);
    };
    put(0);
    for (int64_t len : lens) {
      at += (int32_t)len;
      longest = std::max(longest, (int32_t)len);
      squares += (double)len * len;
      put(at);
    }
    p.given["cu_seqlens"] = std::move(cu);
    p.dims = {{"T", at}, {"H", 32}, {"D", 128}, {"S", (int64_t)std::size(lens) + 1}};
    p.scalars = {{"max_seqlen", longest}, {"scale", 1 / std::sqrt(128.0)}, {"causal", 0}};
    p.flops = 4.0 * 32 * 128 * squares;
    out.push_back(p);
  }
  return out;
}
