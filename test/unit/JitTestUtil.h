//===- JitTestUtil.h - helpers of the runtime's unit tests ------*- C++ -*-===//
//
// The example programs loaded from the source tree, and fresh temporary
// directories, for the tests of the compiler, the runtime and the cost model.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_UNIT_JITTESTUTIL_H
#define TESSERA_TEST_UNIT_JITTESTUTIL_H

#include "runtime/jit/Compiler.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tessera::test {

/// A new directory under the system's temporary one.
inline std::string tempDir(const char *tag) {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(tag, dir));
  return std::string(dir);
}

/// examples/`name`, parsed; null (and a failed expectation) if it does not parse.
inline std::shared_ptr<jit::Program> example(const char *name) {
  auto p = jit::Program::fromFile(std::string(TESSERA_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE((bool)p) << (p ? "" : llvm::toString(p.takeError()));
  return p ? *p : nullptr;
}

} // namespace tessera::test

#endif
