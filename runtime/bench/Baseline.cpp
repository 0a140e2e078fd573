//===- Baseline.cpp - hand-written CUDA kernels beside a .tile kernel -----===//
#include "runtime/bench/Baseline.h"
#include "lib/Support/Clock.h"
#include "lib/Support/Errors.h"

#include "runtime/cuda/Nvrtc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstring>

using namespace tessera;
using namespace tessera::bench;

namespace {

/// A small recursive-descent evaluator.
class Eval {
public:
  Eval(llvm::StringRef s, const std::map<std::string, int64_t> &dims) : s_(s), dims_(dims) {}
  llvm::Expected<int64_t> run() {
    auto v = sum();
    if (!v)
      return v;
    skip();
    if (pos_ != s_.size())
      return fail("unexpected '" + s_.substr(pos_, 1) + "'");
    return v;
  }

private:
  llvm::Error fail(const llvm::Twine &why) {
    return makeError("in the launch expression '" + s_ + "' at column " + llvm::Twine(pos_ + 1) +
                     ": " + why);
  }
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ')
      ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  llvm::Expected<int64_t> sum() {
    auto l = product();
    if (!l)
      return l;
    int64_t v = *l;
    for (;;) {
      bool plus = eat('+');
      if (!plus && !eat('-'))
        return v;
      auto r = product();
      if (!r)
        return r;
      v = plus ? v + *r : v - *r;
    }
  }
  llvm::Expected<int64_t> product() {
    auto l = atom();
    if (!l)
      return l;
    int64_t v = *l;
    for (;;) {
      bool mul = eat('*');
      if (!mul && !eat('/'))
        return v;
      auto r = atom();
      if (!r)
        return r;
      if (!mul && *r == 0)
        return fail("division by zero");
      v = mul ? v * *r : v / *r;
    }
  }
  llvm::Expected<int64_t> atom() {
    skip();
    if (eat('(')) {
      auto v = sum();
      if (!v)
        return v;
      if (!eat(')'))
        return fail("expected ')'");
      return v;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (llvm::isAlnum(s_[pos_]) || s_[pos_] == '_'))
      ++pos_;
    llvm::StringRef word = s_.slice(start, pos_);
    if (word.empty())
      return fail("expected a number, a dim or a call");
    if (llvm::isDigit(word[0])) {
      int64_t v;
      if (word.getAsInteger(10, v))
        return fail("bad number '" + word + "'");
      return v;
    }
    if (word == "cdiv" || word == "min" || word == "max") {
      if (!eat('('))
        return fail("expected '(' after " + word);
      auto a = sum();
      if (!a)
        return a;
      if (!eat(','))
        return fail("expected ','");
      auto b = sum();
      if (!b)
        return b;
      if (!eat(')'))
        return fail("expected ')'");
      if (word == "cdiv") {
        if (*b == 0)
          return fail("cdiv by zero");
        return (*a + *b - 1) / *b;
      }
      return word == "min" ? std::min(*a, *b) : std::max(*a, *b);
    }
    auto it = dims_.find(word.str());
    if (it == dims_.end())
      return fail("unknown dim '" + word + "'");
    return it->second;
  }

  llvm::StringRef s_;
  const std::map<std::string, int64_t> &dims_;
  size_t pos_ = 0;
};

} // namespace

llvm::Expected<int64_t> tessera::bench::evalExpr(llvm::StringRef expr,
                                                 const std::map<std::string, int64_t> &dims) {
  return Eval(expr, dims).run();
}

llvm::Expected<std::vector<BaselineDecl>> tessera::bench::parseDecls(llvm::StringRef source,
                                                                     llvm::StringRef file) {
  std::vector<BaselineDecl> out;
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  for (auto [i, line] : llvm::enumerate(lines)) {
    llvm::StringRef l = line.trim();
    if (!l.consume_front("// tessera-bench:"))
      continue;
    auto bad = [&](const llvm::Twine &why) {
      return makeError(file + ":" + llvm::Twine(i + 1) + ": bad tessera-bench line: " + why);
    };
    BaselineDecl d;
    // Spaces inside [...] and (...) belong to the expression: drop them.
    std::string flat;
    int depth = 0;
    for (char c : l.trim()) {
      depth += (c == '[' || c == '(') - (c == ']' || c == ')');
      if (c != ' ' || depth == 0)
        flat += c;
    }
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(flat).split(parts, ' ', -1, false);
    if (parts.empty())
      return bad("no kernel name");
    d.name = parts[0].str();
    bool haveGrid = false;
    for (llvm::StringRef p : llvm::ArrayRef(parts).drop_front()) {
      auto [key, value] = p.split('=');
      if (key == "grid") {
        if (!value.consume_front("[") || !value.consume_back("]"))
          return bad("grid must be [expr, ...]");
        // Split at top-level commas.
        int depth = 0;
        size_t start = 0;
        for (size_t c = 0; c <= value.size(); ++c) {
          if (c == value.size() || (value[c] == ',' && depth == 0)) {
            d.grid.push_back(value.slice(start, c).trim().str());
            start = c + 1;
          } else if (value[c] == '(') {
            ++depth;
          } else if (value[c] == ')') {
            --depth;
          }
        }
        haveGrid = !d.grid.empty() && d.grid.size() <= 3;
      } else if (key == "block") {
        if (value.getAsInteger(10, d.block) || d.block <= 0 || d.block > 1024)
          return bad("block must be 1..1024");
      } else if (key == "smem") {
        if (value.getAsInteger(10, d.smem) || d.smem < 0)
          return bad("smem must be a byte count");
      } else {
        return bad("unknown key '" + key + "'");
      }
    }
    if (!haveGrid)
      return bad("needs grid=[g0(,g1(,g2))]");
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> tessera::bench::dimOrder(const jit::KernelSignature &sig) {
  std::vector<std::string> out;
  for (const jit::ParamInfo &p : sig.params)
    for (const std::string &d : p.dims)
      if (!d.empty() && std::find(out.begin(), out.end(), d) == out.end())
        out.push_back(d);
  return out;
}

llvm::Expected<CudaBaseline> CudaBaseline::load(const std::string &path, const std::string &kernel,
                                                const std::string &arch) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return makeError("cannot read " + path + ": " + buf.getError().message());
  auto decls = parseDecls((*buf)->getBuffer(), path);
  if (!decls)
    return decls.takeError();
  const BaselineDecl *decl = nullptr;
  for (const BaselineDecl &d : *decls)
    if (d.name == kernel)
      decl = &d;
  if (!decl)
    return makeError(path + " declares no kernel '" + kernel + "' (a `// tessera-bench: " + kernel +
                     " grid=[...] block=N` line)");
  auto t0 = std::chrono::steady_clock::now();
  auto r = cuda::compileCuda((*buf)->getBuffer(), path, arch);
  if (!r)
    return r.takeError();
  auto cubin = cuda::compilePTX(r->ptx);
  if (!cubin)
    return cubin.takeError();
  auto mod = cuda::Module::load(*cubin);
  if (!mod)
    return mod.takeError();
  auto fn = mod->function(kernel);
  if (!fn)
    return fn.takeError();
  if (decl->smem > 48 * 1024)
    if (llvm::Error e =
            cuda::check(cuda::driver()->cuFuncSetAttribute(
                            *fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)decl->smem),
                        "cuFuncSetAttribute(" + kernel + ", MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
      return std::move(e);
  CudaBaseline b(std::move(*mod), *fn, *decl);
  b.compileMs = msSince(t0);
  return b;
}

llvm::Error CudaBaseline::launch(const jit::KernelSignature &sig, llvm::ArrayRef<jit::Arg> args,
                                 const std::map<std::string, int64_t> &dims) const {
  std::vector<uint64_t> slots;
  auto push = [&](const void *p, size_t n) {
    uint64_t s = 0;
    std::memcpy(&s, p, n);
    slots.push_back(s);
  };
  for (auto [i, p] : llvm::enumerate(sig.params)) {
    if (const auto *t = std::get_if<jit::TensorArg>(&args[i])) {
      push(&t->data, sizeof(CUdeviceptr));
      continue;
    }
    double v = std::get<jit::ScalarArg>(args[i]).value;
    switch (p.dtype) {
    case DType::F32: {
      float f = (float)v;
      push(&f, 4);
      break;
    }
    case DType::F64:
      push(&v, 8);
      break;
    case DType::I32: {
      int32_t x = (int32_t)v;
      push(&x, 4);
      break;
    }
    case DType::I64: {
      int64_t x = (int64_t)v;
      push(&x, 8);
      break;
    }
    case DType::U32: {
      uint32_t x = (uint32_t)v;
      push(&x, 4);
      break;
    }
    case DType::I8:
    case DType::U8: {
      uint8_t x = (uint8_t)(int64_t)v;
      push(&x, 1);
      break;
    }
    case DType::Bool: {
      uint8_t x = v != 0;
      push(&x, 1);
      break;
    }
    default:
      return makeError("the CUDA baseline convention has no " + dtypeName(p.dtype) + " scalars");
    }
  }
  for (const std::string &d : dimOrder(sig)) {
    auto it = dims.find(d);
    if (it == dims.end())
      return makeError("no value for dim " + d);
    int32_t x = (int32_t)it->second;
    push(&x, 4);
  }
  std::vector<void *> ptrs;
  for (uint64_t &s : slots)
    ptrs.push_back(&s);
  unsigned g[3] = {1, 1, 1};
  for (auto [i, e] : llvm::enumerate(decl_.grid)) {
    auto v = evalExpr(e, dims);
    if (!v)
      return v.takeError();
    if (*v <= 0)
      return llvm::Error::success(); // nothing to launch
    g[i] = (unsigned)*v;
  }
  return cuda::check(cuda::driver()->cuLaunchKernel(fn_, g[0], g[1], g[2], (unsigned)decl_.block, 1,
                                                    1, (unsigned)decl_.smem, nullptr, ptrs.data(),
                                                    nullptr),
                     "cuLaunchKernel(" + decl_.name + ")");
}
