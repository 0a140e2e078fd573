//===- Distribute.cpp - where each element of a tile lives ------*- C++ -*-===//
//
// Coordinates are i32: tiles hold at most 2^20 elements. Extents are powers of
// two (checked before lowering), so every lane, warp and register bit moves a
// distinct power of two or replicates.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Distribute.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::conversion;

FailureOr<Distribution> tessera::conversion::distribute(RankedTensorType type) {
  auto layout = dyn_cast_or_null<DistributedLayoutAttrInterface>(type.getEncoding());
  if (!layout)
    return failure();
  return layout.distribute(type.getShape());
}

SmallVector<Value, 4> tessera::conversion::threadBase(OpBuilder &b, Location loc,
                                                      const Distribution &dist, Value laneId,
                                                      Value warpId) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i32, v).getResult(); };
  SmallVector<Value, 4> base(dist.rank(), Value());
  // Runs of consecutive bits that step one axis by doubling values become one
  // (id / 2^first) % 2^n * value term.
  auto addTerms = [&](ArrayRef<Basis> bits, Value id) {
    for (size_t i = 0; i < bits.size();) {
      size_t j = i + 1;
      while (j < bits.size() && bits[j].axis == bits[i].axis && bits[i].axis >= 0 &&
             bits[j].value == bits[j - 1].value * 2)
        ++j;
      if (bits[i].axis >= 0) {
        Value digit = LLVM::URemOp::create(b, loc, LLVM::UDivOp::create(b, loc, id, cst(1ll << i)),
                                           cst(1ll << (j - i)));
        Value term = LLVM::MulOp::create(b, loc, digit, cst(bits[i].value));
        Value &acc = base[bits[i].axis];
        acc = acc ? LLVM::AddOp::create(b, loc, acc, term).getResult() : term;
      }
      i = j;
    }
  };
  addTerms(dist.lanes, laneId);
  addTerms(dist.warps, warpId);
  for (Value &v : base)
    if (!v)
      v = cst(0);
  return base;
}

std::vector<SmallVector<Value, 4>> tessera::conversion::elementCoords(OpBuilder &b, Location loc,
                                                                      const Distribution &dist,
                                                                      ArrayRef<Value> base) {
  Type i32 = b.getI32Type();
  unsigned r = dist.rank();
  SmallVector<bool, 4> wrap;
  for (unsigned d = 0; d < r; ++d)
    wrap.push_back(dist.wraps(d));
  std::vector<SmallVector<Value, 4>> out;
  out.reserve(dist.offsets.size());
  for (size_t i = 0; i < dist.offsets.size(); ++i) {
    SmallVector<Value, 4> c;
    for (unsigned d = 0; d < r; ++d) {
      if (dist.isSliced(d))
        continue;
      Value v = LLVM::AddOp::create(b, loc, base[d],
                                    LLVM::ConstantOp::create(b, loc, i32, dist.offsets[i][d]));
      // Wrap around when the layout covers more than the tile (replication).
      if (wrap[d])
        v = LLVM::URemOp::create(b, loc, v, LLVM::ConstantOp::create(b, loc, i32, dist.shape[d]));
      c.push_back(v);
    }
    out.push_back(std::move(c));
  }
  return out;
}

MmaShape tessera::conversion::mmaShape(MmaLayoutAttr mma, int64_t m, int64_t n, int64_t k) {
  MmaShape s;
  s.wm = mma.getWarpsPerCTA()[0];
  s.wn = mma.getWarpsPerCTA()[1];
  s.fm = std::max<int64_t>(1, m / (16 * s.wm));
  s.fn = std::max<int64_t>(1, n / (8 * s.wn));
  s.kSteps = std::max<int64_t>(1, k / 16);
  return s;
}

FailureOr<size_t> tessera::conversion::elemsPerThread(RankedTensorType type) {
  FailureOr<Distribution> d = distribute(type);
  if (failed(d))
    return failure();
  return d->offsets.size();
}

FailureOr<std::vector<SmallVector<Value, 4>>>
tessera::conversion::layoutCoords(OpBuilder &b, Location loc, RankedTensorType type, Value lane,
                                  Value warp) {
  FailureOr<Distribution> d = distribute(type);
  if (failed(d))
    return failure();
  return elementCoords(b, loc, *d, threadBase(b, loc, *d, lane, warp));
}
