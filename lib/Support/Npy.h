//===- Npy.h - NumPy .npy arrays --------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (versions 1-3, C order, little endian) for the
// dtypes of the language: '<f4' f32, '<f2' f16, '<i4' i32, '<i8' i64, '|b1' bool,
// and bf16 as NumPy's 2-byte void type ('|V2'), which is how bf16 arrays are
// saved without ml_dtypes. Errors name the file and what is wrong with it.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_SUPPORT_NPY_H
#define TESSERA_SUPPORT_NPY_H

#include "lib/Support/DType.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<char> data; // C order, little endian, dtypeBytes(dtype) per element

  int64_t numElements() const;
};

/// Parses the bytes of a .npy file; `name` is used in errors.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef bytes, llvm::StringRef name);
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);
/// The bytes of a version 1.0 .npy file holding `a`.
std::string serializeNpy(const NpyArray &a);
llvm::Error writeNpy(llvm::StringRef path, const NpyArray &a);

} // namespace tessera

#endif
