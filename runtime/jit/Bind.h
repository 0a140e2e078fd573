//===- Bind.h - checking and packing kernel arguments -----------*- C++ -*-===//
//
// Binds launch arguments to a kernel's signature: tensors must have the
// declared dtype and rank, extents equal to literal dims and to every other use
// of the same named dim, stride 1 along the last axis, and extents below 2^31;
// scalars are converted to the declared type (integers must be integral, bools
// 0 or 1). The result holds the values of the dims and integer scalars (the
// specialization's inputs), whether every tensor meets the 16-byte alignment
// specialization, and the parameters packed as docs/kernel-abi.md lays them out.
// Needs no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_JIT_BIND_H
#define TESSERA_RUNTIME_JIT_BIND_H

#include "runtime/jit/Compiler.h"

#include <cuda.h>

#include <cstring>
#include <variant>

namespace tessera::jit {

/// A tensor in device memory (not owned): element strides, the last one 1.
struct TensorArg {
  CUdeviceptr data = 0;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; // empty: row-major contiguous
};

/// A scalar argument; `value` is converted to the parameter's declared type.
struct ScalarArg {
  double value = 0;
  static ScalarArg of(double v) { return ScalarArg{v}; }
};

using Arg = std::variant<TensorArg, ScalarArg>;

/// `t`'s element strides: its own, or row-major contiguous when it has none.
std::vector<int64_t> stridesOf(const TensorArg &t);

struct Binding {
  std::map<std::string, int64_t> dims; // named dims and integer scalars
  /// The parameters (by index) of the tensors that are not aligned (16-byte
  /// base, last extent and strides in whole 16-byte units).
  std::vector<int64_t> unalignedArgs;
  bool aligned() const { return unalignedArgs.empty(); }
  /// The 64-bit size class (an extent of 2^31 or more, or asked for): extents
  /// are packed as 64-bit values (docs/kernel-abi.md).
  bool index64 = false;
  std::vector<uint64_t> slots;   // one 8-byte slot per PTX parameter
  std::vector<void *> pointers;  // into `slots`, for cuLaunchKernel
  std::vector<int32_t> dataSlot; // per argument: the slot of its data pointer (-1: scalar)

  template <typename T> void push(T v) {
    uint64_t s = 0;
    std::memcpy(&s, &v, sizeof(T));
    slots.push_back(s);
  }
  void finish();
};

/// Checks `args` against `sig` (count, kinds, dtypes, ranks, strides, dims
/// that must agree, null pointers, overlaps) and packs the parameters, for the
/// 64-bit size class when an extent needs it or `index64` asks for it.
llvm::Expected<Binding> bindArguments(const KernelSignature &sig, llvm::ArrayRef<Arg> args,
                                      bool index64 = false);

/// The bytes `t` spans from its data pointer: [first, first + size); size 0
/// for an empty tensor.
std::pair<uint64_t, uint64_t> byteSpan(const TensorArg &t);

/// A pair of tensor arguments that must not share bytes: `a` is written (a
/// pair of written tensors appears once). `sameLayout`: the same dtype, shape
/// and strides, so that the very same pointer is an in-place update.
struct DisjointPair {
  uint32_t a, b;
  bool sameLayout;
};
std::vector<DisjointPair> disjointPairs(const KernelSignature &sig, llvm::ArrayRef<Arg> args);

/// Whether the spans [a, a + na) and [b, b + nb) share a byte, other than as
/// the very same tensor (same pointer, `sameLayout`).
inline bool overlaps(uint64_t a, uint64_t na, uint64_t b, uint64_t nb, bool sameLayout) {
  return na && nb && a < b + nb && b < a + na && !(a == b && sameLayout);
}

/// An error when a tensor the kernel writes (ParamInfo::written) shares bytes
/// with another tensor argument, unless both are the same tensor (pointer,
/// dtype, shape and strides): an in-place update, which the kernel must
/// tolerate (each element read before any program writes it).
llvm::Error checkOverlaps(const KernelSignature &sig, llvm::ArrayRef<Arg> args);

} // namespace tessera::jit

#endif
