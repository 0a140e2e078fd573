//===- Distribute.cpp - where each element of a tile lives ------*- C++ -*-===//
//
// See Distribute.h for the element order. Coordinates are i32: tiles hold at
// most 2^20 elements.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Distribute.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::conversion;

static int64_t coverage(BlockedLayoutAttr l, unsigned d) {
  return (int64_t)l.getSizePerThread()[d] * l.getThreadsPerWarp()[d] * l.getWarpsPerCTA()[d];
}

FailureOr<Distribution> tessera::conversion::distribute(RankedTensorType type) {
  Distribution dist;
  Attribute layout = type.getEncoding();
  SmallVector<int64_t, 4> shape(type.getShape());
  SmallVector<unsigned, 2> slicedOuter;
  // Peel slices: each inserts an extent-1 axis back at its `dim`.
  while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout)) {
    shape.insert(shape.begin() + slice.getDim(), 1);
    // Earlier peeled axes shift when an axis is inserted before them.
    for (unsigned &a : slicedOuter)
      if (a >= slice.getDim())
        ++a;
    slicedOuter.push_back(slice.getDim());
    layout = slice.getParent();
  }
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!blocked || blocked.getRank() != shape.size())
    return failure();
  dist.blocked = blocked;
  dist.shape = shape;
  dist.sliced = slicedOuter;
  unsigned r = shape.size();
  dist.reps.resize(r);
  for (unsigned d = 0; d < r; ++d)
    dist.reps[d] = std::max<int64_t>(1, (shape[d] + coverage(blocked, d) - 1) / coverage(blocked, d));
  auto isSliced = [&](unsigned d) { return llvm::is_contained(dist.sliced, d); };
  // Enumerate digits: s fastest (in `order`), then reps (in `order`).
  SmallVector<int64_t, 8> radix, digit;
  ArrayRef<unsigned> order = blocked.getOrder();
  for (unsigned d : order)
    radix.push_back(isSliced(d) ? 1 : blocked.getSizePerThread()[d]);
  for (unsigned d : order)
    radix.push_back(isSliced(d) ? 1 : dist.reps[d]);
  digit.assign(radix.size(), 0);
  for (;;) {
    ElemDigits e;
    e.s.assign(r, 0);
    e.rep.assign(r, 0);
    for (unsigned k = 0; k < r; ++k) {
      e.s[order[k]] = digit[k];
      e.rep[order[k]] = digit[r + k];
    }
    dist.elems.push_back(std::move(e));
    size_t k = 0;
    while (k < digit.size() && ++digit[k] == radix[k])
      digit[k++] = 0;
    if (k == digit.size())
      break;
  }
  return dist;
}

int64_t Distribution::constOffset(size_t i, unsigned d) const {
  return elems[i].rep[d] * coverage(blocked, d) + elems[i].s[d];
}

size_t Distribution::indexOf(const ElemDigits &d) const {
  ArrayRef<unsigned> order = blocked.getOrder();
  unsigned r = order.size();
  size_t index = 0, stride = 1;
  auto isSliced = [&](unsigned a) { return llvm::is_contained(sliced, a); };
  for (unsigned k = 0; k < r; ++k) {
    unsigned a = order[k];
    int64_t n = isSliced(a) ? 1 : blocked.getSizePerThread()[a];
    index += (isSliced(a) ? 0 : d.s[a] % n) * stride;
    stride *= n;
  }
  for (unsigned k = 0; k < r; ++k) {
    unsigned a = order[k];
    int64_t n = isSliced(a) ? 1 : reps[a];
    index += (isSliced(a) ? 0 : d.rep[a] % n) * stride;
    stride *= n;
  }
  return index;
}

SmallVector<Value, 4> tessera::conversion::threadBase(OpBuilder &b, Location loc,
                                                      const Distribution &dist, Value laneId,
                                                      Value warpId) {
  BlockedLayoutAttr l = dist.blocked;
  unsigned r = l.getRank();
  SmallVector<Value, 4> base(r);
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i32, v).getResult(); };
  int64_t laneStride = 1, warpStride = 1;
  for (unsigned d : l.getOrder()) {
    Value lane = LLVM::URemOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, laneId, cst(laneStride)), cst(l.getThreadsPerWarp()[d]));
    Value warp = LLVM::URemOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, warpId, cst(warpStride)), cst(l.getWarpsPerCTA()[d]));
    laneStride *= l.getThreadsPerWarp()[d];
    warpStride *= l.getWarpsPerCTA()[d];
    int64_t spt = l.getSizePerThread()[d];
    Value v = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, lane, cst(spt)),
        LLVM::MulOp::create(b, loc, warp, cst(spt * l.getThreadsPerWarp()[d])));
    base[d] = v;
  }
  return base;
}

std::vector<SmallVector<Value, 4>>
tessera::conversion::elementCoords(OpBuilder &b, Location loc, const Distribution &dist,
                                   ArrayRef<Value> base) {
  Type i32 = b.getI32Type();
  unsigned r = dist.shape.size();
  std::vector<SmallVector<Value, 4>> out;
  out.reserve(dist.elems.size());
  for (size_t i = 0; i < dist.elems.size(); ++i) {
    SmallVector<Value, 4> c;
    for (unsigned d = 0; d < r; ++d) {
      if (llvm::is_contained(dist.sliced, d))
        continue;
      Value v = LLVM::AddOp::create(b, loc, base[d],
                                    LLVM::ConstantOp::create(b, loc, i32, dist.constOffset(i, d)));
      // Wrap around when the layout covers more than the tile (replication).
      if (coverage(dist.blocked, d) > dist.shape[d])
        v = LLVM::URemOp::create(b, loc, v, LLVM::ConstantOp::create(b, loc, i32, dist.shape[d]));
      c.push_back(v);
    }
    out.push_back(std::move(c));
  }
  return out;
}

FailureOr<size_t> tessera::conversion::elemsPerThread(RankedTensorType type) {
  FailureOr<Distribution> d = distribute(type);
  if (failed(d))
    return failure();
  return d->elems.size();
}
