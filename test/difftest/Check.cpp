//===- Check.cpp - one generated program through every executor -----------===//
//
// Each tensor's inputs are drawn from the program's seed and the tensor's
// name, so a reduced program (fewer tensors, fewer statements) sees the same
// values in the tensors it keeps. Outputs are read and written (InOut): they
// start from random values in every executor, so an element one executor
// writes and another skips shows up as a mismatch.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Check.h"

#include "dialects/Tile/TileDialect.h"
#include "lib/Target/PTX.h"
#include "runtime/jit/Interpret.h"
#include "runtime/jit/Runtime.h"
#include "test/common/Cases.h"
#include "test/gpu/GpuUtil.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace tessera::difftest {

using testutil::HostTensor;

const char *kindName(Outcome::Kind k) {
  switch (k) {
  case Outcome::Kind::Pass:
    return "pass";
  case Outcome::Kind::Frontend:
    return "frontend";
  case Outcome::Kind::Codegen:
    return "codegen";
  case Outcome::Kind::Interpret:
    return "interpreter";
  case Outcome::Kind::Gpu:
    return "gpu";
  case Outcome::Kind::Mismatch:
    return "mismatch";
  }
  return "?";
}

namespace {

uint64_t nameHash(llvm::StringRef s) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (char c : s)
    h = (h ^ (uint8_t)c) * 1099511628211ull;
  return h;
}

std::vector<int64_t> shapeOf(const Program &p, const TensorParam &t) {
  std::vector<int64_t> s;
  for (const std::string &d : t.dims)
    s.push_back(p.dims.at(d));
  return s;
}

/// The inputs (and initial outputs) of every tensor `p` uses, in signature order.
std::vector<HostTensor> inputsOf(const Program &p) {
  std::vector<HostTensor> out;
  for (const TensorParam *t : p.usedTensors()) {
    std::mt19937 rng((uint32_t)(p.seed ^ nameHash(t->name)));
    out.push_back(isInt(t->dt)
                      ? testutil::ints(rng, t->dt, shapeOf(p, *t), (int64_t)t->lo, (int64_t)t->hi)
                      : testutil::rnd(rng, t->dt, shapeOf(p, *t), t->lo, t->hi));
  }
  return out;
}

jit::CompileRequest requestFor(const Program &p, const std::string &arch, bool index64 = false) {
  jit::CompileRequest r;
  r.kernel = "k";
  r.arch = arch;
  r.index64 = index64;
  r.dims = p.usedDims();
  for (const ScalarParam &s : p.scalars)
    if (isInt(s.dt))
      r.dims[s.name] = (int64_t)s.value;
  return r;
}

/// Runs the interpreter on copies of `in`; the tensors after the run.
llvm::Expected<std::vector<HostTensor>> interpretOn(const jit::Program &prog, const Program &p,
                                                    std::vector<HostTensor> in, bool padded,
                                                    bool index64 = false) {
  std::vector<std::vector<char>> bytes;
  std::vector<jit::HostArg> args;
  bytes.reserve(in.size());
  for (HostTensor &h : in) {
    bytes.push_back(h.encode());
    args.push_back(jit::HostTensorArg{bytes.back().data(), h.dtype, h.shape});
  }
  for (const ScalarParam &s : p.scalars)
    args.push_back(jit::ScalarArg::of(s.value));
  jit::InterpretOptions io;
  io.threads = 1;
  io.padExtents = padded;
  io.index64 = index64;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  io.out = &os;
  auto info = jit::interpret(prog, "k", args, io);
  if (!info)
    return info.takeError();
  for (size_t i = 0; i < in.size(); ++i)
    in[i].decode(bytes[i]);
  return in;
}

/// Runs on the GPU; the tensors after the run.
llvm::Expected<std::vector<HostTensor>> launchOn(jit::Runtime &rt, const jit::Program &prog,
                                                 const Program &p, std::vector<HostTensor> in) {
  std::vector<gputest::DeviceTensor> dev;
  std::vector<jit::Arg> args;
  for (HostTensor &h : in) {
    auto d = gputest::DeviceTensor::upload(h);
    if (!d)
      return d.takeError();
    dev.push_back(std::move(*d));
  }
  for (auto &d : dev)
    args.push_back(d.arg());
  for (const ScalarParam &s : p.scalars)
    args.push_back(jit::ScalarArg::of(s.value));
  auto info = rt.launch(prog, "k", args);
  if (!info)
    return info.takeError();
  if (llvm::Error e = cuda::check(cuda::driver()->cuCtxSynchronize(), "cuCtxSynchronize"))
    return std::move(e);
  std::vector<HostTensor> out;
  for (auto &d : dev) {
    auto h = d.download();
    if (!h)
      return h.takeError();
    out.push_back(std::move(*h));
  }
  return out;
}

/// "" when every output of `got` is within its tolerance of `want`.
std::string compare(const Program &p, const std::vector<HostTensor> &got,
                    const std::vector<HostTensor> &want) {
  std::map<std::string, double> tol = p.tolerances();
  std::vector<const TensorParam *> used = p.usedTensors();
  std::ostringstream os;
  for (size_t i = 0; i < used.size(); ++i) {
    const HostTensor &a = got[i], &b = want[i];
    double t = tol.count(used[i]->name) ? tol[used[i]->name] : 0;
    // NaN equals NaN, an infinity only itself, finite values within t.
    testutil::Compare c = testutil::compare(a, b.v, t, 0);
    if (c.bad)
      os << used[i]->name << ": " << c.bad << " of " << a.v.size()
         << " elements differ by more than " << t << "; first at flat index " << c.first << ": "
         << c.gotFirst << " vs " << c.wantFirst << ". ";
  }
  return os.str();
}

} // namespace

Outcome checkProgram(const Program &p, const CheckOptions &o, jit::Compiler &compiler) {
  Outcome out;
  auto fail = [&](Outcome::Kind k, std::string stage, std::string detail) {
    out.kind = k;
    out.stage = std::move(stage);
    out.detail = std::move(detail);
    return out;
  };
  std::string src = p.source();
  auto prog = jit::Program::fromSource("difftest-" + std::to_string(p.seed) + ".tile", src);
  if (!prog)
    return fail(Outcome::Kind::Frontend, "parse", llvm::toString(prog.takeError()));
  auto frontend = [&](bool index64) {
    return compiler.inspect(**prog, requestFor(p, "sm_90a", index64),
                            [](mlir::tile::KernelOp) { return llvm::Error::success(); });
  };
  // Code generation and ptxas for each arch, in one size class; false after a
  // failure (in `out`), whose stage ends with `suffix`. `counts`: add to the
  // outcome's compiled/assembled counts.
  auto codegen = [&](bool index64, const std::string &suffix, bool counts) {
    for (const std::string &arch : o.archs) {
      auto ck = compiler.compile(**prog, requestFor(p, arch, index64));
      if (!ck) {
        fail(Outcome::Kind::Codegen, arch + suffix, llvm::toString(ck.takeError()));
        return false;
      }
      out.compiled += counts;
      if (o.ptxas) {
        std::string log;
        auto cubin = target::compileCubin(ck->ptx, arch, &log);
        if (!cubin) {
          fail(Outcome::Kind::Codegen, "ptxas " + arch + suffix, llvm::toString(cubin.takeError()));
          return false;
        }
        out.assembled += counts;
      }
    }
    return true;
  };
  if (llvm::Error e = frontend(false))
    return fail(Outcome::Kind::Frontend, "frontend", llvm::toString(std::move(e)));
  if (!codegen(false, "", true))
    return out;
  std::vector<HostTensor> in = inputsOf(p);
  auto ref = interpretOn(**prog, p, in, false);
  if (!ref)
    return fail(Outcome::Kind::Interpret, "interpreter", llvm::toString(ref.takeError()));
  out.interpreted = true;
  // Another executor's run against the interpreter's; false after a failure
  // (`kind` when it did not run), counted in `runs` (when given) once it ran.
  auto agrees = [&](Outcome::Kind kind, const std::string &stage,
                    llvm::Expected<std::vector<HostTensor>> got, int *runs) {
    if (!got) {
      fail(kind, stage, llvm::toString(got.takeError()));
      return false;
    }
    if (runs)
      ++*runs;
    std::string diff = compare(p, *got, *ref);
    if (!diff.empty())
      fail(Outcome::Kind::Mismatch, stage, diff);
    return diff.empty();
  };
  // The interpreter also runs the program as code generation rewrites it
  // (padded extents, f8 as bits) where that differs from the source.
  if (o.padded && (p.hasOddExtents() || p.usesF8()) &&
      !agrees(Outcome::Kind::Interpret, "padded interpreter", interpretOn(**prog, p, in, true),
              &out.paddedRuns))
    return out;
  if (o.gpu && !agrees(Outcome::Kind::Gpu, "GPU", launchOn(*o.gpu, **prog, p, in), &out.gpuRuns))
    return out;
  if (!o.index64)
    return out;
  // The 64-bit size class: the same program with i64 dims, program ids and aranges.
  if (llvm::Error e = frontend(true)) {
    std::string msg = llvm::toString(std::move(e));
    if (msg.find("extent of 2^31 or more, where dims") == std::string::npos)
      return fail(Outcome::Kind::Frontend, "frontend (64-bit class)", msg);
    out.index64Rejected = true;
    return out;
  }
  if (!codegen(true, " (64-bit class)", false) ||
      !agrees(Outcome::Kind::Interpret, "interpreter (64-bit class)",
              interpretOn(**prog, p, in, false, true), nullptr) ||
      (o.gpu64 && !agrees(Outcome::Kind::Gpu, "GPU (64-bit class)",
                          launchOn(*o.gpu64, **prog, p, in), nullptr)))
    return out;
  out.index64Ran = true;
  return out;
}

std::string regressionText(const Program &p, const Outcome &why) {
  std::ostringstream os;
  os << std::setprecision(17);
  os << "// difftest-regression seed " << p.seed << "\n";
  std::string detail = why.detail.substr(0, 300);
  std::replace(detail.begin(), detail.end(), '\n', ' ');
  os << "// found: " << kindName(why.kind) << " (" << why.stage << "): " << detail << "\n";
  os << "// dims:";
  for (auto &[k, v] : p.dims)
    os << " " << k << "=" << v;
  os << "\n// tunes:";
  for (auto &[k, v] : p.tunes)
    os << " " << k << "=" << v;
  os << "\n";
  for (const ScalarParam &s : p.scalars)
    os << "// scalar: " << s.name << " " << dtypeName(s.dt).str() << " " << s.value << "\n";
  std::map<std::string, double> tol = p.tolerances();
  for (const TensorParam *t : p.usedTensors()) {
    os << "// tensor: " << t->name << " " << dtypeName(t->dt).str() << " "
       << llvm::join(t->dims, ",") << " " << t->lo << " " << t->hi;
    if (t->output)
      os << " out " << (tol.count(t->name) ? tol[t->name] : 0);
    os << "\n";
  }
  os << p.source();
  return os.str();
}

llvm::Expected<Program> parseRegression(llvm::StringRef text) {
  Program p;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  auto bad = [&](llvm::StringRef line) {
    return llvm::createStringError("difftest regression: cannot read '" + line.str() + "'");
  };
  size_t sourceStart = 0;
  for (llvm::StringRef line : lines) {
    if (!line.starts_with("// ") || line.starts_with("// difftest seed"))
      break;
    sourceStart += line.size() + 1;
    llvm::SmallVector<llvm::StringRef> w;
    line.drop_front(3).split(w, ' ', -1, false);
    if (w.empty())
      return bad(line);
    if (w[0] == "difftest-regression" && w.size() == 3) {
      if (w[2].getAsInteger(10, p.seed))
        return bad(line);
    } else if (w[0] == "dims:" || w[0] == "tunes:") {
      for (llvm::StringRef kv : llvm::ArrayRef(w).drop_front()) {
        auto [k, v] = kv.split('=');
        int64_t n;
        if (v.getAsInteger(10, n))
          return bad(line);
        if (w[0] == "dims:")
          p.dims[k.str()] = n;
        else
          p.tunes.push_back({k.str(), n});
      }
    } else if (w[0] == "scalar:" && w.size() == 4) {
      auto dt = parseDType(w[2]);
      double v;
      if (!dt || w[3].getAsDouble(v))
        return bad(line);
      p.scalars.push_back({w[1].str(), *dt, v});
    } else if (w[0] == "tensor:" && (w.size() == 6 || w.size() == 8)) {
      TensorParam t;
      t.name = w[1].str();
      auto dt = parseDType(w[2]);
      if (!dt || w[4].getAsDouble(t.lo) || w[5].getAsDouble(t.hi))
        return bad(line);
      t.dt = *dt;
      llvm::SmallVector<llvm::StringRef> dims;
      w[3].split(dims, ',');
      for (llvm::StringRef d : dims)
        t.dims.push_back(d.str());
      if (w.size() == 8) {
        double tol;
        if (w[6] != "out" || w[7].getAsDouble(tol))
          return bad(line);
        t.output = true;
        p.fixedTolerances[t.name] = tol;
      }
      p.tensors.push_back(t);
    } else if (w[0] != "found:") {
      return bad(line);
    }
  }
  p.fixedSource = text.drop_front(std::min(sourceStart, text.size())).str();
  if (p.fixedSource.find("kernel k(") == std::string::npos)
    return llvm::createStringError("difftest regression: no kernel k");
  return p;
}

} // namespace tessera::difftest
