//===- DiskCache.h - compiled kernels on disk -------------------*- C++ -*-===//
//
// A directory of compiled kernels, one file per content-addressed key. Writes
// go to a unique temporary file that is then renamed over the entry, so that
// several processes may share a directory: readers see a whole entry or none.
// Each entry records its key and a SHA-256 of its PTX; an entry that fails
// those checks (truncated, edited, another key) is treated as absent, removed,
// and rebuilt by the caller. Beside the kernels it keeps the cost model's
// choices (`<key>.tmc`): the parameters autotune::chooseDefault picked for a
// launch signature, so that a new process skips the model as it skips code
// generation.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_RUNTIME_JIT_DISKCACHE_H
#define TESSERA_RUNTIME_JIT_DISKCACHE_H

#include "dialects/Tile/Knobs.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::jit {

/// A TMA tensor map a kernel takes as a trailing parameter (docs/kernel-abi.md):
/// of the tensor that is declared parameter `param`, with this box (per axis,
/// outermost first) and swizzle (bytes).
struct TensorMapUse {
  unsigned param = 0;
  std::vector<int64_t> box;
  unsigned swizzle = 0;
  bool operator==(const TensorMapUse &o) const {
    return param == o.param && box == o.box && swizzle == o.swizzle;
  }
};

/// A split-K kernel's workspace (docs/kernel-abi.md): `splits` programs per
/// output tile, each publishing a partial accumulator of `slotBytes`.
struct SplitK {
  int64_t splits = 1, slotBytes = 0;
};

struct CacheEntry {
  std::string entry, ptx;
  unsigned numWarps = kDefaultNumWarps;
  int64_t sharedBytes = 0;
  std::vector<TensorMapUse> tensorMaps;
  SplitK splitK;
};

class DiskCache {
public:
  /// `dir` is created when missing. The default: $TESSERA_CACHE_DIR, else
  /// $XDG_CACHE_HOME/tessera, else ~/.cache/tessera.
  explicit DiskCache(std::string dir);
  static std::string defaultDirectory();

  std::optional<CacheEntry> load(llvm::StringRef key) const;
  llvm::Error store(llvm::StringRef key, const CacheEntry &e) const;
  std::string pathOf(llvm::StringRef key) const;
  /// The cost model's choice stored under `key` (jit::modelKey); none when
  /// absent or corrupt (a corrupt one is removed, as a kernel entry is).
  std::optional<std::map<std::string, int64_t>> loadChoice(llvm::StringRef key) const;
  llvm::Error storeChoice(llvm::StringRef key, const std::map<std::string, int64_t> &params) const;
  std::string choicePathOf(llvm::StringRef key) const;
  const std::string &directory() const { return dir_; }
  /// Entries found corrupt (and removed) so far.
  unsigned corruptEntries() const { return corrupt_; }

private:
  /// Writes `text` to `path` through a unique temporary file renamed over it.
  llvm::Error writeAtomically(llvm::StringRef key, const std::string &path,
                              llvm::function_ref<void(llvm::raw_ostream &)> write) const;
  std::string dir_;
  mutable unsigned corrupt_ = 0;
};

/// Lower-case hex SHA-256 of `data`.
std::string sha256Hex(llvm::StringRef data);

} // namespace tessera::jit

#endif
