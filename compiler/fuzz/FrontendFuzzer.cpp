//===- FrontendFuzzer.cpp - libFuzzer entry for the frontend ----*- C++ -*-===//
//
// Feeds arbitrary bytes through the whole frontend (parse, check, emit, verify)
// and renders the diagnostics: nothing may crash, assert, leak or hang.
//
//===----------------------------------------------------------------------===//
#include "lib/IRGen/IRGen.h"

#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 16384)
    return 0;
  tessera::SourceFile file("fuzz.tile", std::string((const char *)data, size));
  tessera::DiagnosticEngine diags(file);
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  tessera::FrontendOptions opts;
  auto module = tessera::buildTileModule(file, opts, ctx, diags);
  std::string out;
  llvm::raw_string_ostream os(out);
  diags.render(os);
  if (module)
    module->print(os);
  return 0;
}
