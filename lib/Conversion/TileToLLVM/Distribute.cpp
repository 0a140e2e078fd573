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

Value IRArith::c(int64_t v) { return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v); }
Value IRArith::add(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); }
Value IRArith::mul(Value x, Value y) { return LLVM::MulOp::create(b, loc, x, y); }
Value IRArith::udiv(Value x, Value y) { return LLVM::UDivOp::create(b, loc, x, y); }
Value IRArith::urem(Value x, Value y) { return LLVM::URemOp::create(b, loc, x, y); }
Value IRArith::xor_(Value x, Value y) { return LLVM::XOrOp::create(b, loc, x, y); }
Value IRArith::and_(Value x, Value y) { return LLVM::AndOp::create(b, loc, x, y); }
Value IRArith::shl(Value x, int64_t s) { return LLVM::ShlOp::create(b, loc, x, c(s)); }
Value IRArith::lshr(Value x, int64_t s) { return LLVM::LShrOp::create(b, loc, x, c(s)); }
Value IRArith::selectEq(Value x, int64_t v, Value a, Value y) {
  Value eq = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, x, c(v));
  return LLVM::SelectOp::create(b, loc, eq, a, y);
}

SmallVector<Value, 4> tessera::conversion::threadBase(OpBuilder &b, Location loc,
                                                      const Distribution &dist, Value laneId,
                                                      Value warpId) {
  IRArith a{b, loc};
  return threadBaseOf(a, dist, laneId, warpId);
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
