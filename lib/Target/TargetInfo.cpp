//===- TargetInfo.cpp - what the GPU can do, in one place -------*- C++ -*-===//
//
// The table of supported architectures. Shared-memory limits are the opt-in
// maxima of the CUDA programming guide's table of compute capabilities
// (227 KiB on 9.0, 163 KiB on 8.0, 99 KiB on 8.6 and 8.9).
//
//===----------------------------------------------------------------------===//
#include "lib/Target/TargetInfo.h"
#include "lib/Support/Errors.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace tessera::target;

namespace {
struct ArchRow {
  const char *name;
  unsigned capability;
  bool archSpecific;
  int64_t maxShared;
  Throughput rates;
};
// Per multiprocessor: shared memory, threads; dense f16/bf16 tensor-core
// FLOP per clock (mma.sync, wgmma) from the vendors' peak figures (A100 312
// TFLOP/s over 108 SMs at 1.41 GHz; H100 SXM 989 over 132 at 1.83; GA102 and
// AD102 accumulating in f32: 512); f32 FMA FLOP per clock; L2 bytes per clock
// (fitted on the H200 to the measured gap between 128x128 and 128x256 matmul
// tiles, 650 vs 760 TFLOP/s); device memory bytes per clock over the
// multiprocessors (H200 4.8 TB/s, A100 2.0, GA102/AD102 about 1.0); a global
// load's latency in clocks.
constexpr ArchRow kArchs[] = {
    {"sm_80", 80, false, 166912, {167936, 2048, 2048, 0, 128, 40, 13, 800}},
    {"sm_86", 86, false, 101376, {102400, 1536, 512, 0, 256, 32, 7, 800}},
    {"sm_89", 89, false, 101376, {102400, 1536, 512, 0, 256, 32, 7, 800}},
    {"sm_90", 90, false, 232448, {233472, 2048, 2048, 0, 256, 48, 18, 1000}},
    {"sm_90a", 90, true, 232448, {233472, 2048, 2048, 4096, 256, 48, 18, 1000}},
};
} // namespace

std::optional<TargetInfo> TargetInfo::lookup(llvm::StringRef arch) {
  for (const ArchRow &r : kArchs)
    if (arch == r.name)
      return TargetInfo(r.name, r.capability, r.archSpecific, r.maxShared, r.rates);
  return std::nullopt;
}

std::string TargetInfo::supportedList() {
  std::string s;
  for (const ArchRow &r : kArchs)
    s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

llvm::Expected<TargetInfo> TargetInfo::get(llvm::StringRef arch) {
  if (std::optional<TargetInfo> t = lookup(arch))
    return *t;
  return tessera::makeError("unsupported architecture '" + arch +
                            "' (supported: " + supportedList() + ")");
}

std::optional<TargetInfo> TargetInfo::forPass(mlir::Operation *op, llvm::StringRef arch) {
  std::optional<TargetInfo> t = lookup(arch);
  if (!t)
    op->emitError("unsupported architecture '")
        << arch << "' (supported: " << supportedList() << ")";
  return t;
}

bool TargetInfo::runsOn(unsigned deviceCapability) const {
  if (archSpecific_)
    return deviceCapability == capability_;
  return deviceCapability >= capability_;
}

unsigned TargetInfo::capabilityOf(llvm::StringRef arch) {
  unsigned cap = 0;
  if (!arch.consume_front("sm_"))
    return 0;
  while (!arch.empty() && arch.back() >= 'a' && arch.back() <= 'z')
    arch = arch.drop_back();
  return arch.getAsInteger(10, cap) ? 0 : cap;
}

llvm::ArrayRef<unsigned> TargetInfo::cpAsyncBytes() const {
  static const unsigned sizes[] = {4, 8, 16};
  if (!hasCpAsync())
    return {};
  return sizes;
}

std::optional<MmaInstr> TargetInfo::mmaSync(mlir::Type ab, mlir::Type acc) const {
  if (capability_ < 80 || !ab || !acc)
    return std::nullopt;
  if ((ab.isF16() || ab.isBF16()) && acc.isF32())
    return MmaInstr{2, 16, 8, 16};
  return std::nullopt;
}

std::optional<MmaInstr> TargetInfo::wgmma(mlir::Type ab, mlir::Type acc, int64_t n) const {
  if (!hasWgmma() || !ab || !acc || n < 8 || n > 256 || n % 8)
    return std::nullopt;
  if ((ab.isF16() || ab.isBF16()) && acc.isF32())
    return MmaInstr{3, 64, n, 16};
  return std::nullopt;
}

std::pair<unsigned, unsigned> TargetInfo::warpgroupGrid(int64_t m, unsigned numWarps) {
  unsigned groups = std::max(1u, numWarps / 4), gm = 1;
  while (gm * 2 <= groups && (int64_t)gm * 2 * 64 <= m)
    gm *= 2;
  return {gm, groups / gm};
}

std::optional<MmaInstr> TargetInfo::tensorCoreInstr(const DotShape &dot) const {
  // wgmma: whole warpgroups, each owning 64-row instructions of an N that
  // divides its share of the columns (at most 256).
  if (hasWgmma() && dot.numWarps % 4 == 0 && dot.m % 64 == 0 && dot.k % 16 == 0) {
    auto [gm, gn] = warpgroupGrid(dot.m, dot.numWarps);
    int64_t share = dot.n / gn, n = share;
    while (n > 256)
      n /= 2;
    // At least 16 columns: 32 bytes, the narrowest swizzle an N-major operand
    // of one instruction can fill.
    if (dot.n % gn == 0 && share % n == 0 && n >= 16)
      if (std::optional<MmaInstr> instr = wgmma(dot.ab, dot.acc, n))
        return instr;
  }
  std::optional<MmaInstr> instr = mmaSync(dot.ab, dot.acc);
  if (!instr || dot.numWarps == 0)
    return std::nullopt;
  if (dot.m % instr->m || dot.n % instr->n || dot.k % instr->k)
    return std::nullopt;
  // Every warp owns at least one m x n fragment of the accumulator.
  if (dot.m * dot.n < instr->m * instr->n * (int64_t)dot.numWarps)
    return std::nullopt;
  return instr;
}

double TargetInfo::flopsPerClock(const std::optional<MmaInstr> &instr) const {
  if (!instr)
    return rates_.fmaFlops;
  return instr->version == 3 ? rates_.wgmmaFlops : rates_.mmaFlops;
}
