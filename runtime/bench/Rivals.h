//===- Rivals.h - sides measured outside tessera bench ----------*- C++ -*-===//
//
// Rows that another program measured on the same GPU in the same session
// (scripts/device-baselines.py --json: PyTorch SDPA with its cuDNN and flash
// backends) joined to `tessera bench --suite`'s rows, so that a table shows
// them beside Tessera's. The file uses the row schema of the bench's own
// --json report (docs/bench.md): {"device": NAME, "rows": [{"workload",
// "size", "side", "median_ms", "min_ms", "max_ms", "ok", "note"}]}. A rival
// ran on its own inputs of the same shapes and checked its own output (its
// script compares it with a float64 reference), so it carries no relative
// error against Tessera's.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_BENCH_RIVALS_H
#define TESSERA_RUNTIME_BENCH_RIVALS_H

#include "runtime/bench/Compare.h"

#include "llvm/Support/Error.h"

namespace tessera::bench {

struct Rivals {
  std::string device;                             // the GPU they ran on, as the file names it
  std::vector<std::pair<std::string, Side>> rows; // "workload size", the side
};

/// Parses a rivals file's text; errors name `path` and the row.
llvm::Expected<Rivals> parseRivals(llvm::StringRef text, llvm::StringRef path);
/// Reads and parses the file at `path`.
llvm::Expected<Rivals> readRivals(llvm::StringRef path);

/// Appends each rival to the result of its "workload size"; fails when the
/// file's device is not `device`. Returns the rows that matched no result.
llvm::Expected<std::vector<std::string>> attachRivals(std::vector<Result> &results,
                                                      const Rivals &rivals, llvm::StringRef device);

} // namespace tessera::bench

#endif
