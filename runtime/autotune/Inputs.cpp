//===- Inputs.cpp - random inputs for timing and checking -------*- C++ -*-===//
//
// makeInputs (Tuner.h): one device buffer per tensor parameter, filled with
// random values of its dtype and its shape from the request's dims (floats in
// about [-1, 1], integers in [0, 4)) or with the contents given for it; the
// host copies stay, so
// restore() puts back what a timed launch overwrote and outputs() reads what
// it wrote. decodeElement reads one stored element as a double.
//
//===----------------------------------------------------------------------===//
#include "lib/Support/Errors.h"
#include "runtime/autotune/Tuner.h"

#include "lib/Interpreter/Interpreter.h"

#include <algorithm>
#include <cstring>
#include <random>

using namespace tessera;
using namespace tessera::autotune;

double tessera::autotune::decodeElement(DType t, const char *p) {
  switch (t) {
  case DType::F64: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return interp::halfBitsToFloat(h);
  }
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  case DType::I32: {
    int32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  case DType::U32: {
    uint32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  case DType::I64: {
    int64_t x;
    std::memcpy(&x, p, 8);
    return (double)x;
  }
  case DType::I8:
    return (int8_t)*p;
  case DType::U8:
    return (uint8_t)*p;
  case DType::F8E4M3:
    return f8Decode(DType::F8E4M3, (uint8_t)*p);
  case DType::F8E5M2:
    return f8Decode(DType::F8E5M2, (uint8_t)*p);
  case DType::Bool:
    return *p != 0;
  }
  return 0;
}

namespace {

/// "i32 [17]": a tensor's dtype and shape, for errors.
std::string describe(DType t, llvm::ArrayRef<int64_t> shape) {
  std::string s = std::string(dtypeName(t)) + " [";
  for (auto [i, e] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(e);
  return s + "]";
}

/// Random bytes of a dtype: floats in about [-1, 1], integers in [0, 4).
void randomFill(std::vector<char> &b, DType t, std::mt19937 &rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  size_t w = dtypeBytes(t), n = b.size() / w;
  for (size_t i = 0; i < n; ++i) {
    char *p = b.data() + i * w;
    float f = u(rng);
    switch (t) {
    case DType::F64: {
      double d = f;
      std::memcpy(p, &d, 8);
      break;
    }
    case DType::F32:
      std::memcpy(p, &f, 4);
      break;
    case DType::BF16: {
      uint32_t x;
      std::memcpy(&x, &f, 4);
      uint16_t h = (uint16_t)(x >> 16);
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::F16: { // sign, exponent 2^-6..2^-1, random mantissa
      uint16_t h = (uint16_t)((rng() & 1) << 15 | (9 + rng() % 6) << 10 | (rng() & 0x3FF));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::I32:
    case DType::U32: {
      int32_t x = (int32_t)(rng() % 4);
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::I8:
    case DType::U8:
      *p = (char)(rng() % 4);
      break;
    case DType::F8E4M3:
      *p = (char)f8Encode(DType::F8E4M3, f);
      break;
    case DType::F8E5M2:
      *p = (char)f8Encode(DType::F8E5M2, f);
      break;
    case DType::I64: {
      int64_t x = (int64_t)(rng() % 4);
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::Bool:
      *p = (char)(rng() & 1);
      break;
    }
  }
}

} // namespace

llvm::Error tessera::autotune::checkGiven(const jit::KernelSignature &sig,
                                          const std::map<std::string, int64_t> &dims,
                                          const std::map<std::string, NpyArray> &given) {
  for (const auto &[name, a] : given) {
    auto p = llvm::find_if(
        sig.params, [&, n = name](const jit::ParamInfo &q) { return q.isTensor && q.name == n; });
    if (p == sig.params.end())
      return makeError("kernel '" + sig.name + "' has no tensor parameter named '" + name + "'");
    std::vector<int64_t> shape;
    for (size_t d = 0; d < p->dims.size(); ++d) {
      std::optional<int64_t> e = jit::extentOf(*p, d, dims);
      if (!e)
        return makeError("dim '" + p->dims[d] + "' of '" + p->name + "' needs a size: --dim " +
                         p->dims[d] + "=V");
      shape.push_back(*e);
    }
    if (a.dtype != p->dtype || a.shape != shape)
      return makeError("the contents given for '" + name + "' are " + describe(a.dtype, a.shape) +
                       ", but the kernel takes " + describe(p->dtype, shape) + " at these sizes");
  }
  return llvm::Error::success();
}

llvm::Expected<Inputs> tessera::autotune::makeInputs(const jit::KernelSignature &sig,
                                                     const std::map<std::string, int64_t> &dims,
                                                     const std::map<std::string, double> &scalars,
                                                     unsigned seed,
                                                     const std::map<std::string, NpyArray> &given) {
  std::mt19937 rng(seed);
  Inputs in;
  if (llvm::Error e = checkGiven(sig, dims, given))
    return std::move(e);
  for (const jit::ParamInfo &p : sig.params) {
    in.dtypes.push_back(p.dtype);
    if (!p.isTensor) {
      in.host.emplace_back();
      in.dev.emplace_back();
      double v;
      if (auto it = scalars.find(p.name); it != scalars.end())
        v = it->second;
      else if (auto d = dims.find(p.name); d != dims.end())
        v = (double)d->second;
      else
        return makeError("scalar parameter '" + p.name + "' needs a value: --scalar " + p.name +
                         "=V");
      in.args.push_back(jit::ScalarArg::of(v));
      continue;
    }
    std::vector<int64_t> shape;
    int64_t n = 1;
    for (auto [d, name] : llvm::enumerate(p.dims)) {
      int64_t e = p.literal[d];
      if (!name.empty()) {
        auto it = dims.find(name);
        if (it == dims.end())
          return makeError("dim '" + name + "' of '" + p.name + "' needs a size: --dim " + name +
                           "=V");
        e = it->second;
      }
      shape.push_back(e);
      n *= e;
    }
    std::vector<char> bytes(std::max<int64_t>(n, 1) * dtypeBytes(p.dtype));
    if (auto g = given.find(p.name); g != given.end()) {
      std::copy(g->second.data.begin(), g->second.data.end(), bytes.begin());
    } else {
      randomFill(bytes, p.dtype, rng);
    }
    auto buf = cuda::DeviceBuffer::allocate(bytes.size());
    if (!buf)
      return buf.takeError();
    if (llvm::Error e = buf->copyFromHost(bytes.data(), bytes.size()))
      return std::move(e);
    in.args.push_back(jit::TensorArg{buf->get(), p.dtype, shape, {}});
    in.host.push_back(std::move(bytes));
    in.dev.push_back(std::move(*buf));
  }
  return in;
}

llvm::Error tessera::autotune::restore(Inputs &in) {
  for (size_t i = 0; i < in.host.size(); ++i)
    if (!in.host[i].empty())
      if (llvm::Error e = in.dev[i].copyFromHost(in.host[i].data(), in.host[i].size()))
        return e;
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::vector<char>>> tessera::autotune::outputs(Inputs &in) {
  std::vector<std::vector<char>> out(in.host.size());
  for (size_t i = 0; i < in.host.size(); ++i)
    if (!in.host[i].empty()) {
      out[i].resize(in.host[i].size());
      if (llvm::Error e = in.dev[i].copyToHost(out[i].data(), out[i].size()))
        return std::move(e);
    }
  return out;
}
