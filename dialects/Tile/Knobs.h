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

} // namespace tessera

#endif
