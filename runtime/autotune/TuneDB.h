//===- TuneDB.h - the tuning database ---------------------------*- C++ -*-===//
//
// A human-readable JSON file of tuned configurations. An entry's key is the
// SHA-256 of everything a result depends on: the kernel's specialized IR
// hash, its specialization (the values the kernel is specialized on), the
// shape bucket (every dim rounded up to a power of two), the GPU's name and
// architecture, the driver and toolkit versions and the Tessera version; the
// parts are stored beside it for people. Writers take an exclusive lock on
// `<file>.lock`, re-read the file, merge, write a temporary file and rename it
// over the database, so concurrent tuners never lose each other's entries and
// readers always see a whole file. A file that does not parse is reported,
// never silently overwritten.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_AUTOTUNE_TUNEDB_H
#define TESSERA_RUNTIME_AUTOTUNE_TUNEDB_H

#include "runtime/jit/Compiler.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::autotune {

/// What a tuning result depends on.
struct TuneKey {
  std::string kernel;
  std::string irHash;
  std::string specialization; // e.g. "BN=next_pow2 D=128" or "-"
  std::string bucket;         // e.g. "K=4096 M=4096 N=4096"
  std::string gpu;            // device name
  std::string arch;           // e.g. sm_90a
  int driver = 0;
  std::string versions; // Tessera, LLVM and CUDA toolkit (jit::compilerVersion())

  std::string hash() const;
  /// Dims rounded up to powers of two, "NAME=V" joined by spaces.
  static std::string bucketOf(const std::map<std::string, int64_t> &dims);
};

struct TuneEntry {
  TuneKey key;
  std::map<std::string, int64_t> params;
  double ms = 0;
  std::string metric; // e.g. "612.3 TFLOP/s" (may be empty)
  std::string date;   // ISO 8601, UTC
};

class TuneDB {
public:
  explicit TuneDB(std::string path) : path_(std::move(path)) {}
  /// $TESSERA_TUNING_DB, else tuning.json in the kernel cache directory.
  static std::string defaultPath();
  const std::string &path() const { return path_; }

  /// The entry for `key`, if any (a missing file is an empty database).
  llvm::Expected<std::optional<TuneEntry>> lookup(const TuneKey &key) const;
  /// Adds or replaces the entry with `e.key`, under the file lock.
  llvm::Error store(const TuneEntry &e) const;
  /// Every entry (for tests and `tessera tune --list`).
  llvm::Expected<std::vector<TuneEntry>> entries() const;

private:
  std::string path_;
};

/// The key of a kernel specialization on a GPU: the IR hash and specialization
/// from the frontend (default configuration), the bucket of `req.dims`.
llvm::Expected<TuneKey> tuneKeyFor(jit::Compiler &compiler, const jit::Program &program,
                                   const jit::CompileRequest &req, const std::string &gpuName);

} // namespace tessera::autotune

#endif
