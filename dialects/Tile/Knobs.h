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

/// The global of a kernel compiled for debugging (`tile.debug`) that its
/// failed assert()s write: four i32, the first failed assert's id and that
/// program's ids (docs/kernel-abi.md, "Asserts"). The runtime reads it by name.
inline constexpr const char *kAssertStateName = "tessera_assert_state";
/// The kernel attribute (unit) of the 64-bit size class: tensors with an extent
/// of 2^31 or more. Its ABI passes extents as 64-bit values, and dims,
/// program_id(), num_programs() and arange() are i64 in the language.
inline constexpr const char *kIndex64Attr = "tile.index64";
inline constexpr int64_t kDefaultNumStages = 3;

/// The compiler's split-K schedule option (`--param split-k=S`; the tuner
/// tries it for matmul-like kernels): S programs per output tile share the
/// reduction loop (tile-split-k). A hyphen cannot appear in a name of the
/// language, so no kernel's parameter can clash with it. The frontend takes
/// it out of the parameters and records it as the kernel's `tile.split_k`.
inline constexpr const char *kSplitKOption = "split-k";
inline constexpr int64_t kMaxSplitK = 16;

/// The compiler's warp-specialization schedule option (`--param
/// warp-specialize=1`): a TMA-pipelined loop whose one warpgroup dot
/// accumulates gets a producer warpgroup (tile-software-pipeline). Recorded as
/// the kernel's `tile.warp_specialize`; where the loop cannot be split it is
/// ignored (the schedule is a hint, never a different result).
inline constexpr const char *kWarpSpecializeOption = "warp-specialize";

/// The compiler's persistent schedule option (`--param persistent=1`): the
/// grid's programs become virtual, run in a loop by as many programs as the
/// GPU holds at once (tile-persistent). Recorded as `tile.persistent`.
inline constexpr const char *kPersistentOption = "persistent";

/// The compiler's TMA-store schedule option (`--param tma-store=1`): on
/// sm_90, a tensor-core accumulator's block store goes through a small
/// shared-memory buffer and TMA, asynchronously (tile-tma-store). Recorded as
/// `tile.tma_store`; a store TMA cannot describe stays as it is.
inline constexpr const char *kTmaStoreOption = "tma-store";

/// The compiler's rotate-dots schedule option (`--param rotate-dots=1`): in a
/// warp-specialized loop with two waited-for warpgroup dots, the second of
/// which accumulates (attention's), the second dot of iteration j - 1 runs
/// while iteration j's first dot and the work between them do (tile-rotate-dots,
/// FlashAttention-3's intra-warpgroup overlap). Recorded as `tile.rotate_dots`;
/// ignored where it does not apply.
inline constexpr const char *kRotateDotsOption = "rotate-dots";

/// The compiler's ping-pong schedule option (`--param ping-pong=1`): in a
/// warp-specialized kernel with two compute warpgroups or more, the
/// warpgroups take turns at issuing their warpgroup dots, so that one's
/// element-wise work (attention's softmax) runs while another's dots do
/// (tile-ping-pong, FlashAttention-3's ping-pong schedule). Recorded as
/// `tile.ping_pong`; ignored where it does not apply.
inline constexpr const char *kPingPongOption = "ping-pong";

/// The compiler's cluster schedule option (`--param cluster=C`, sm_90): the
/// programs launch in thread-block clusters of C consecutive programs along
/// axis 0, and a TMA-pipelined load whose tile is the same for all of them
/// (its coordinates do not depend on program_id(0): a matmul's B) is copied
/// once per cluster and multicast into every program's slot
/// (tile-cluster-programs). Recorded as `tile.cluster`; ignored where no load
/// can be shared, and dropped when C does not divide the grid's axis 0.
inline constexpr const char *kClusterOption = "cluster";
inline constexpr int64_t kMaxCluster = 4;
/// What tile-cluster-programs puts on a load whose tile every program of a
/// cluster loads (the cluster's size, an i32).
inline constexpr const char *kMulticastAttr = "tile.multicast";

/// Every schedule option: its name, the kernel attribute it becomes (an i64,
/// set only when the value differs from the default) and its range.
struct ScheduleOption {
  const char *name;
  const char *attr;
  int64_t min, max, byDefault;
};
inline constexpr ScheduleOption kScheduleOptions[] = {
    {kSplitKOption, "tile.split_k", 1, kMaxSplitK, 1},
    {kWarpSpecializeOption, "tile.warp_specialize", 0, 1, 0},
    {kPersistentOption, "tile.persistent", 0, 1, 0},
    {kTmaStoreOption, "tile.tma_store", 0, 1, 0},
    {kRotateDotsOption, "tile.rotate_dots", 0, 1, 0},
    {kPingPongOption, "tile.ping_pong", 0, 1, 0},
    {kClusterOption, "tile.cluster", 1, kMaxCluster, 1},
};

} // namespace tessera

#endif
