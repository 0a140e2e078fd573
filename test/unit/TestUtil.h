//===- TestUtil.h - helpers shared by the unit tests ------------*- C++ -*-===//
//
// Runs the frontend on an in-memory program and exposes what it produced: the
// rendered diagnostics, the AST, the analyzed kernel, or the tile IR as text.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_UNIT_TESTUTIL_H
#define TESSERA_TEST_UNIT_TESTUTIL_H

#include "lib/Frontend/Parser.h"
#include "lib/Frontend/Sema.h"
#include "lib/IRGen/IRGen.h"

#include "mlir/IR/MLIRContext.h"

#include <string>

namespace tessera::test {

inline std::string render(const DiagnosticEngine &d) {
  std::string s;
  llvm::raw_string_ostream os(s);
  d.render(os);
  return s;
}

/// The result of running the whole frontend to tile IR.
struct Compiled {
  bool ok = false;
  std::string ir;
  std::string diags;
};

inline Compiled compile(const std::string &src, Specialization spec = {},
                        const std::string &kernel = "") {
  SourceFile file("test.tile", src);
  DiagnosticEngine diags(file);
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  FrontendOptions opts;
  opts.spec = std::move(spec);
  opts.kernel = kernel;
  auto module = buildTileModule(file, opts, ctx, diags);
  Compiled c;
  c.ok = (bool)module;
  c.diags = render(diags);
  if (module) {
    llvm::raw_string_ostream os(c.ir);
    module->print(os);
  }
  return c;
}

/// The first error line ("test.tile:L:C: error: ...") of a failed compile.
inline std::string firstError(const Compiled &c) {
  size_t pos = c.diags.find(": error: ");
  if (pos == std::string::npos)
    return "";
  size_t start = c.diags.rfind('\n', pos);
  start = start == std::string::npos ? 0 : start + 1;
  return c.diags.substr(start, c.diags.find('\n', pos) - start);
}

} // namespace tessera::test

#endif
