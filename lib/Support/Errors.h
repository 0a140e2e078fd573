//===- Errors.h - one way to make an error ----------------------*- C++ -*-===//
//
// Library code outside the MLIR passes reports failure as an llvm::Error with a
// readable message; this is the one helper that makes such an error from text.
// (CUDA, NVRTC and cuBLAS calls go through runtime/cuda's checker instead, which
// names the call and the library's error.)
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LIB_SUPPORT_ERRORS_H
#define TESSERA_LIB_SUPPORT_ERRORS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace tessera {

/// An error carrying `msg`.
inline llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

} // namespace tessera

#endif
