//===- TargetInfo.h - what the GPU can do, in one place ---------*- C++ -*-===//
//
// Every hardware fact the compiler, the autotuner and the runtime use comes from
// a TargetInfo built from the architecture name (`sm_80`, `sm_90a`, ...):
// shared memory per block, registers, warp size, which tensor-core, async-copy,
// TMA and wgmma instructions exist and their shapes. Passes take the arch as an
// option and ask it; nothing else writes these numbers down.
//
// One predicate, tensorCoreInstr(), decides whether a `tile.dot` runs on tensor
// cores (and on which instruction); layout assignment and the tuner's pruning
// both call it, so a configuration the tuner keeps is one the compiler lowers
// the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LIB_TARGET_TARGETINFO_H
#define TESSERA_LIB_TARGET_TARGETINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tessera::target {

/// A tensor-core instruction: `version` 2 is mma.sync (Ampere and later), 3 is
/// wgmma (Hopper, sm_90a); one instruction multiplies [m, k] by [k, n].
struct MmaInstr {
  unsigned version = 0;
  int64_t m = 0, n = 0, k = 0;
  bool operator==(const MmaInstr &o) const {
    return version == o.version && m == o.m && n == o.n && k == o.k;
  }
};

/// A `tile.dot` as the tensor-core predicate sees it: [m, k] x [k, n] with
/// operand element type `ab` (both operands share it) into `acc`.
struct DotShape {
  mlir::Type ab, acc;
  int64_t m = 0, n = 0, k = 0;
  unsigned numWarps = 0;
};

/// What one multiprocessor holds and how fast it works: the cost model that
/// picks a launch's default configuration (runtime/autotune/Model.h) reads
/// these. Rates are per clock.
struct Throughput {
  int64_t sharedBytes = 0; // shared memory of one multiprocessor
  unsigned threads = 0;    // resident threads
  double mmaFlops = 0;     // mma.sync, dense f16/bf16
  double wgmmaFlops = 0;   // wgmma (0: none)
  double fmaFlops = 0;     // f32 fused multiply-add, 2 FLOP each
  double l2Bytes = 0;      // what one multiprocessor reads from L2
  double dramBytes = 0;    // device memory bandwidth, per multiprocessor
  double loadLatency = 0;  // clocks from a global load's issue to its data
};

class TargetInfo {
public:
  /// The architecture code is generated for when none is named.
  static constexpr llvm::StringLiteral kDefaultArch = "sm_90a";

  /// The target of `arch`, if Tessera supports it.
  static std::optional<TargetInfo> lookup(llvm::StringRef arch);
  /// As lookup, with an error naming the supported architectures.
  static llvm::Expected<TargetInfo> get(llvm::StringRef arch);
  /// "sm_80, sm_86, sm_89, sm_90, sm_90a".
  static std::string supportedList();
  /// For a pass's `arch` option: the target, or an error reported at `op`.
  static std::optional<TargetInfo> forPass(mlir::Operation *op, llvm::StringRef arch);

  llvm::StringRef arch() const { return arch_; }
  /// The compute capability times ten (80, 86, 89, 90).
  unsigned capability() const { return capability_; }
  /// Whether the arch-specific features of its capability are on (sm_90a).
  bool archSpecific() const { return archSpecific_; }
  /// Whether code for this target runs on a GPU of compute capability
  /// `deviceCapability` (times ten): the driver JIT-compiles PTX for newer GPUs;
  /// arch-specific code (sm_90a) runs only on its own capability.
  bool runsOn(unsigned deviceCapability) const;
  /// The capability (times ten) an arch name gives: `sm_90a` -> 90, 0 if none.
  static unsigned capabilityOf(llvm::StringRef arch);

  /// Programs per grid axis (x, y, z) a launch may have, on every supported GPU.
  static constexpr std::array<int64_t, 3> kMaxGrid = {2147483647, 65535, 65535};

  // Threads and registers.
  /// Threads per warp, on every NVIDIA GPU (what `32 * num_warps` means
  /// everywhere a block's threads are counted).
  static constexpr unsigned kWarpSize = 32;
  /// A warp-specialized block's producer: one warpgroup (setmaxnreg works per
  /// warpgroup).
  static constexpr unsigned kProducerWarps = 4;
  unsigned warpSize() const { return kWarpSize; }
  unsigned maxThreadsPerBlock() const { return 1024; }
  unsigned maxRegistersPerThread() const { return 255; }
  unsigned registersPerMultiprocessor() const { return 65536; }
  /// The most 32-bit registers one block may hold.
  unsigned registersPerBlock() const { return 65536; }
  /// Per-thread register budgets of a warp-specialized block of `computeWarps`
  /// compute warps and one producer warpgroup (setmaxnreg). The block starts
  /// with launchRegisters each (all of registersPerBlock, in multiples of 8);
  /// the producer gives up what it does not need and the compute warps take
  /// it: 232 each with 8 compute warps, 104 with 16.
  unsigned producerRegisters() const { return 40; }
  unsigned launchRegisters(unsigned threads) const { return (registersPerBlock() / threads) & ~7u; }
  /// launchRegisters of a block of `computeWarps` and the producer warpgroup.
  unsigned specializedLaunchRegisters(unsigned computeWarps) const {
    return launchRegisters(kWarpSize * (computeWarps + kProducerWarps));
  }
  unsigned computeRegisters(unsigned computeWarps) const {
    unsigned computeThreads = kWarpSize * computeWarps,
             producerThreads = kProducerWarps * kWarpSize;
    unsigned launch = specializedLaunchRegisters(computeWarps);
    unsigned freed = (launch - producerRegisters()) * producerThreads;
    return std::min(maxRegistersPerThread(), launch + freed / computeThreads) & ~7u;
  }
  /// Whether a warp-specialized block may have `computeWarps` compute warps:
  /// whole warpgroups (4, 8 or 16; with the producer, 16 make 640 threads,
  /// 32 would pass the block's 1024).
  static bool canSpecializeWarps(int64_t computeWarps) {
    return computeWarps == 4 || computeWarps == 8 || computeWarps == 16;
  }

  /// One multiprocessor's capacities and rates.
  const Throughput &perMultiprocessor() const { return rates_; }
  /// FLOP per clock per multiprocessor of a dot on `instr` (FMA when null).
  double flopsPerClock(const std::optional<MmaInstr> &instr) const;

  // Shared memory.
  /// The most dynamic shared memory one block may use (after opting in).
  int64_t maxSharedBytesPerBlock() const { return maxShared_; }
  /// What a block gets without opting in (cuFuncSetAttribute).
  int64_t defaultSharedBytesPerBlock() const { return 48 * 1024; }
  /// Shared memory's banks and their width, the same on every target here:
  /// static, for analyses that model bank conflicts without a target.
  static constexpr unsigned kSharedBanks = 32;
  static constexpr unsigned kSharedBankBytes = 4;
  unsigned sharedBanks() const { return kSharedBanks; }
  unsigned sharedBankBytes() const { return kSharedBankBytes; }

  // Instructions.
  bool hasLdmatrix() const { return capability_ >= 75; }
  bool hasCpAsync() const { return capability_ >= 80; }
  bool hasTMA() const { return capability_ >= 90; }
  bool hasMbarrierTx() const { return capability_ >= 90; }
  /// Thread-block clusters (distributed shared memory, TMA multicast).
  bool hasClusters() const { return capability_ >= 90; }
  bool hasWgmma() const { return capability_ == 90 && archSpecific_; }
  /// The copy sizes of cp.async, in bytes (16 with the .cg cache hint).
  llvm::ArrayRef<unsigned> cpAsyncBytes() const;

  /// The mma.sync instruction for operands of type `ab` accumulating in `acc`.
  std::optional<MmaInstr> mmaSync(mlir::Type ab, mlir::Type acc) const;
  /// The wgmma instruction (m64nNk16) for an accumulator `n` wide, if any.
  std::optional<MmaInstr> wgmma(mlir::Type ab, mlir::Type acc, int64_t n) const;

  /// The tensor-core instruction `dot` runs on, or nullopt for FMA: wgmma on
  /// sm_90a when the warps form whole warpgroups, M is a multiple of 64 and K
  /// of 16 (its operands then come from shared memory); else mma.sync, when
  /// the operands are f16/bf16 accumulating in f32, the shape is a whole
  /// number of instructions, and every warp owns at least one m x n fragment
  /// of the accumulator.
  std::optional<MmaInstr> tensorCoreInstr(const DotShape &dot) const;
  /// How `numWarps` warps form warpgroups over a wgmma accumulator `m` rows
  /// high: {warpgroups along M, along N}, M first.
  static std::pair<unsigned, unsigned> warpgroupGrid(int64_t m, unsigned numWarps);

private:
  TargetInfo(llvm::StringRef arch, unsigned cap, bool specific, int64_t shared,
             const Throughput &rates)
      : arch_(arch.str()), capability_(cap), archSpecific_(specific), maxShared_(shared),
        rates_(rates) {}

  std::string arch_;
  unsigned capability_;
  bool archSpecific_;
  int64_t maxShared_;
  Throughput rates_;
};

} // namespace tessera::target

#endif
