//===- Knobs.h - the reserved knobs of every kernel -------------*- C++ -*-===//
//
// `num_warps` and `num_stages` exist in every kernel; these are their values
// when a kernel neither declares them in a `tune` clause nor gets them with
// `--param`. Sema records the chosen values on the kernel (`tile.num_warps`,
// `tile.num_stages`); everything downstream reads them from there and falls
// back to these only for hand-written IR without the attributes.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_DIALECTS_TILE_KNOBS_H
#define TESSERA_DIALECTS_TILE_KNOBS_H

#include <cstdint>

namespace tessera {

inline constexpr int64_t kDefaultNumWarps = 4;
inline constexpr int64_t kDefaultNumStages = 3;

/// The compiler's split-K schedule option (`--param split-k=S`; the tuner
/// tries it for matmul-like kernels): S programs per output tile share the
/// reduction loop (tile-split-k). A hyphen cannot appear in a name of the
/// language, so no kernel's parameter can clash with it. The frontend takes
/// it out of the parameters and records it as the kernel's `tile.split_k`.
inline constexpr const char *kSplitKOption = "split-k";
inline constexpr int64_t kMaxSplitK = 16;

} // namespace tessera

#endif
