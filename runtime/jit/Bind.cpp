//===- Bind.cpp - checking and packing kernel arguments ---------*- C++ -*-===//
#include "runtime/jit/Bind.h"
#include "lib/Support/Errors.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace tessera;
using namespace tessera::jit;

namespace {

uint16_t toHalfBits(double v, const llvm::fltSemantics &sem) {
  llvm::APFloat f(v);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint16_t)f.bitcastToAPInt().getZExtValue();
}
} // namespace

std::vector<int64_t> tessera::jit::stridesOf(const TensorArg &t) {
  if (!t.strides.empty())
    return t.strides;
  std::vector<int64_t> strides(t.shape.size(), 1);
  for (size_t d = t.shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * t.shape[d];
  return strides;
}

void Binding::finish() {
  pointers.resize(slots.size());
  for (size_t i = 0; i < slots.size(); ++i)
    pointers[i] = &slots[i];
}

llvm::Expected<Binding> tessera::jit::bindArguments(const KernelSignature &sig,
                                                    llvm::ArrayRef<Arg> args, bool index64) {
  if (args.size() != sig.params.size())
    return makeError("kernel '" + sig.name + "' takes " + llvm::Twine(sig.params.size()) +
                     " arguments, got " + llvm::Twine(args.size()));
  Binding b;
  // The size class first: it decides how extents are packed.
  b.index64 = index64;
  for (const Arg &a : args)
    if (const TensorArg *t = std::get_if<TensorArg>(&a))
      for (int64_t e : t->shape)
        b.index64 |= e > INT32_MAX;
  // Bind: check every argument, gather the dims, decide the alignment variant.
  std::map<std::string, std::string> dimSource;
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo &p = sig.params[i];
    if (p.isTensor) {
      const TensorArg *t = std::get_if<TensorArg>(&args[i]);
      if (!t)
        return makeError("argument '" + p.name + "' of '" + sig.name + "' is a tensor<" +
                         dtypeName(p.dtype) + ">, got a scalar");
      if (t->dtype != p.dtype)
        return makeError("argument '" + p.name + "' must hold " + dtypeName(p.dtype) + ", got " +
                         dtypeName(t->dtype));
      size_t r = p.dims.size();
      if (t->shape.size() != r)
        return makeError("argument '" + p.name + "' must have rank " + llvm::Twine(r) +
                         ", got rank " + llvm::Twine(t->shape.size()));
      std::vector<int64_t> strides = stridesOf(*t);
      if (strides.size() != r || (r && strides[r - 1] != 1))
        return makeError("argument '" + p.name +
                         "' must be contiguous along its last axis (stride 1)");
      for (size_t d = 0; d < r; ++d) {
        int64_t e = t->shape[d];
        if (e < 0)
          return makeError("argument '" + p.name + "' has extent " + llvm::Twine(e) + " on axis " +
                           llvm::Twine(d) + "; extents must not be negative");
        if (p.dims[d].empty()) {
          if (e != p.literal[d])
            return makeError("argument '" + p.name + "' must have extent " +
                             llvm::Twine(p.literal[d]) + " on axis " + llvm::Twine(d) + ", got " +
                             llvm::Twine(e));
          continue;
        }
        auto [it, inserted] = b.dims.emplace(p.dims[d], e);
        if (!inserted && it->second != e)
          return makeError("dim " + p.dims[d] + " is " + llvm::Twine(it->second) + " in " +
                           dimSource[p.dims[d]] + " but " + llvm::Twine(e) + " in " + p.name +
                           "; the tensors must agree");
        if (inserted)
          dimSource[p.dims[d]] = p.name;
      }
      unsigned bytes = dtypeBytes(p.dtype);
      if (!t->data && byteSpan(*t).second)
        return makeError("argument '" + p.name + "' is a null pointer");
      bool aligned = !(t->data % 16 || (r && (t->shape[r - 1] * bytes) % 16));
      for (size_t d = 0; d + 1 < r; ++d)
        if ((strides[d] * bytes) % 16)
          aligned = false;
      if (!aligned)
        b.unalignedArgs.push_back((int64_t)i);
      b.dataSlot.push_back((int32_t)b.slots.size());
      b.push<uint64_t>(t->data);
      for (size_t d = 0; d < r; ++d) {
        if (b.index64)
          b.push<int64_t>(t->shape[d]);
        else
          b.push<int32_t>((int32_t)t->shape[d]);
      }
      for (size_t d = 0; d + 1 < r; ++d)
        b.push<int64_t>(strides[d]);
      continue;
    }
    const ScalarArg *s = std::get_if<ScalarArg>(&args[i]);
    if (!s)
      return makeError("argument '" + p.name + "' of '" + sig.name + "' is a " +
                       dtypeName(p.dtype) + " scalar, got a tensor");
    b.dataSlot.push_back(-1);
    double v = s->value;
    switch (p.dtype) {
    case DType::F32:
      b.push<float>((float)v);
      break;
    case DType::F64:
      b.push<double>(v);
      break;
    case DType::F16:
      b.push<uint16_t>(toHalfBits(v, llvm::APFloat::IEEEhalf()));
      break;
    case DType::BF16:
      b.push<uint16_t>(toHalfBits(v, llvm::APFloat::BFloat()));
      break;
    case DType::Bool:
      if (v != 0 && v != 1)
        return makeError("argument '" + p.name + "' is a bool: pass 0 or 1, got " +
                         std::to_string(v));
      b.push<uint8_t>(v != 0);
      b.dims[p.name] = v != 0; // a bool scalar may specialize (a `where` value)
      break;
    case DType::I8:
    case DType::U8:
    case DType::I32:
    case DType::U32:
    case DType::I64: {
      if (!dtypeHolds(p.dtype, v))
        return makeError("argument '" + p.name + "' is a " + dtypeName(p.dtype) + ": " +
                         std::to_string(v) + " is not one");
      int64_t iv = (int64_t)v;
      if (dtypeBytes(p.dtype) == 1)
        b.push<uint8_t>((uint8_t)iv);
      else if (dtypeBytes(p.dtype) == 4)
        b.push<uint32_t>((uint32_t)iv);
      else
        b.push<int64_t>(iv);
      b.dims[p.name] = iv; // integer scalars may specialize (and size the grid)
      break;
    }
    }
  }
  if (llvm::Error e = checkOverlaps(sig, args))
    return std::move(e);
  b.finish();
  return std::move(b);
}

std::pair<uint64_t, uint64_t> tessera::jit::byteSpan(const TensorArg &t) {
  std::vector<int64_t> strides = stridesOf(t);
  uint64_t last = 0; // offset of the last element, in elements
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] <= 0)
      return {t.data, 0};
    last += (uint64_t)(t.shape[d] - 1) * (uint64_t)strides[d];
  }
  return {t.data, (last + 1) * dtypeBytes(t.dtype)};
}

std::vector<tessera::jit::DisjointPair> tessera::jit::disjointPairs(const KernelSignature &sig,
                                                                    llvm::ArrayRef<Arg> args) {
  std::vector<DisjointPair> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto *a = std::get_if<TensorArg>(&args[i]);
    if (!a || !sig.params[i].written)
      continue;
    for (size_t j = 0; j < args.size(); ++j) {
      const auto *o = std::get_if<TensorArg>(&args[j]);
      if (j == i || !o || (j < i && sig.params[j].written))
        continue; // two written tensors: one pair, the first
      bool alike = a->dtype == o->dtype && a->shape == o->shape && stridesOf(*a) == stridesOf(*o);
      out.push_back({(uint32_t)i, (uint32_t)j, alike});
    }
  }
  return out;
}

llvm::Error tessera::jit::checkOverlaps(const KernelSignature &sig, llvm::ArrayRef<Arg> args) {
  for (const DisjointPair &pr : disjointPairs(sig, args)) {
    auto [aLo, aBytes] = byteSpan(std::get<TensorArg>(args[pr.a]));
    auto [oLo, oBytes] = byteSpan(std::get<TensorArg>(args[pr.b]));
    if (!overlaps(aLo, aBytes, oLo, oBytes, pr.sameLayout))
      continue;
    auto hex = [](uint64_t v) { return "0x" + llvm::utohexstr(v); };
    return makeError("arguments '" + sig.params[pr.a].name + "' (bytes " + hex(aLo) + ".." +
                     hex(aLo + aBytes) + ") and '" + sig.params[pr.b].name + "' (" + hex(oLo) +
                     ".." + hex(oLo + oBytes) + ") overlap, and '" + sig.params[pr.a].name +
                     "' is written: pass separate buffers (the very same tensor for both is "
                     "allowed, an in-place update)");
  }
  return llvm::Error::success();
}
