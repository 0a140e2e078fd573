//===- ScanToLLVM.cpp - tile.scan -------------------------------*- C++ -*-===//
//
// An inclusive scan along one axis (tile.scan: cumsum, cummax, cummin;
// tile.associative_scan: a combiner region, cloned at every combining step),
// from any layout Distribute.h describes, through the op's scratch in shared
// memory (ScratchTile.h):
//
//   1. each element's owner stores it at its row-major index;
//   2. the T threads split the L lines of the axis (extent N): P threads per
//      line (P = min(N, 32, T / L), consecutive lanes of one warp), each
//      scanning a chunk of N / P elements in order; the chunk totals are
//      scanned across the P lanes with shuffles and each chunk adds the
//      total of the chunks before it (the earlier operand always first, so a
//      combiner need not be commutative). With fewer threads than lines, a
//      thread scans whole lines, L / T of them;
//   3. every thread loads its elements back.
//
// Threads with nothing to write (replicas, idle lanes that still take part
// in the shuffles) skip their stores, so that no two threads write one
// address. tile-insert-barriers orders the
// scratch against other users of that memory; the two barriers between the
// steps are the op's own. Power-of-two extents are assumed (checked).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Patterns.h"
#include "lib/Conversion/TileToLLVM/ScratchTile.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

/// Combines the running value `a` (the earlier prefix) with `b`.
using CombineFn = llvm::function_ref<Value(Value a, Value b)>;

/// Lowers the scan `op` of `src` (its converted value) along `axis`, in
/// elements of type `work` (the element type, or f32 for 16-bit floats that
/// are rounded once at the end).
LogicalResult lowerScan(Operation *op, Value src, int64_t axis, Type work, CombineFn combineFn,
                        const TypeConverter &tc, ConversionPatternRewriter &rw) {
  Location loc = op->getLoc();
  auto ty = cast<RankedTensorType>(op->getOperand(0).getType());
  for (int64_t e : ty.getShape())
    if (!llvm::isPowerOf2_64(e))
      return op->emitError("code generation needs power-of-two tile extents, got ") << ty;
  Type elt = ty.getElementType();
  ArrayRef<int64_t> shape = ty.getShape();
  int64_t n = shape[axis], numel = ty.getNumElements();
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < ty.getRank(); ++d)
    inner *= shape[d];
  int64_t lines = numel / n, threads = computeThreads(op);
  int64_t per = threads >= lines ? std::min({n, kWarpSize, threads / lines}) : 1;
  int64_t chunk = n / per, rounds = threads >= lines ? 1 : lines / threads;
  // Fully unrolled: what one thread scans in order is bounded.
  if (chunk * rounds > 1024)
    return op->emitError("a scan of ")
           << ty << " needs " << chunk * rounds << " steps in order per thread, more than 1024";
  FailureOr<ScratchTile> scratch = ScratchTile::of(rw, op, work);
  if (failed(scratch))
    return failure();
  IRArith a{rw, loc};
  Value tid = threadId(rw, loc);

  // 1. The owners store the tile.
  if (failed(scratch->storeOwned(unpack(rw, loc, src), ty)))
    return op->emitError("code generation of this scan needs a blocked, mma or slice layout");
  barrier(rw, loc);

  // 2. Chunks of lines, in order.
  Value part = a.urem(tid, a.c(per));
  for (int64_t k = 0; k < rounds; ++k) {
    Value line =
        threads >= lines ? a.urem(a.udiv(tid, a.c(per)), a.c(lines)) : a.add(tid, a.c(k * threads));
    Value active =
        threads >= lines && lines * per < threads
            ? LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ult, tid, a.c(lines * per))
                  .getResult()
            : Value();
    Value first =
        a.add(a.add(a.mul(a.udiv(line, a.c(inner)), a.c(n * inner)), a.urem(line, a.c(inner))),
              a.mul(part, a.c(chunk * inner)));
    // Idle lanes (more threads than lines times P) only join the shuffles:
    // their loads and stores are branched around.
    // The chunk in order, each running value stored as it goes (few
    // registers however long the chunk).
    SmallVector<Value> addrs;
    Value acc;
    for (int64_t j = 0; j < chunk; ++j) {
      addrs.push_back(scratch->at(a.add(first, a.c(j * inner))));
      Value v = scratch->load(addrs.back(), active);
      acc = j ? combineFn(acc, v) : v;
      if (j)
        scratch->store(acc, addrs.back(), active);
    }
    if (per > 1) {
      // The chunk totals, scanned across the line's lanes; then each chunk
      // takes the total of those before it.
      auto from = [&](int64_t d) {
        return LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::uge, part, a.c(d));
      };
      Value total = acc;
      for (int64_t d = 1; d < per; d *= 2)
        total = LLVM::SelectOp::create(rw, loc, from(d),
                                       combineFn(shuffleUp(rw, loc, total, d), total), total);
      Value before = shuffleUp(rw, loc, total, 1);
      for (Value addr : addrs) {
        Value v = scratch->load(addr, active);
        scratch->store(LLVM::SelectOp::create(rw, loc, from(1), combineFn(before, v), v), addr,
                       active);
      }
    }
  }
  barrier(rw, loc);

  // 3. Every thread loads its elements back.
  FailureOr<std::vector<SmallVector<Value, 4>>> coords = scratch->coords(ty);
  if (failed(coords))
    return op->emitError("internal compiler error: scan layout");
  SmallVector<Value> out;
  for (const auto &c : *coords) {
    Value v = scratch->load(scratch->at(scratch->index(c, shape)));
    out.push_back(work == elt ? v : LLVM::FPTruncOp::create(rw, loc, elt, v));
  }
  rw.replaceOp(op, pack(rw, loc, tc.convertType(ty), out));
  return success();
}

struct ScanLowering : ConvertOpToLLVMPattern<tile::ScanOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    // 16-bit floats are scanned as f32 (a long sum stays accurate) and
    // rounded once at the end, as the interpreter does.
    Type elt = op.getSrc().getType().getElementType();
    Type work = isa<FloatType>(elt) && elt.getIntOrFloatBitWidth() < 32 ? rw.getF32Type() : elt;
    tile::ReduceKind kind = op.getKind();
    return lowerScan(
        op, adaptor.getSrc(), op.getAxis(), work,
        [&](Value a, Value b) { return combine(rw, op.getLoc(), kind, a, b); }, *getTypeConverter(),
        rw);
  }
};

/// The combiner's scalar ops are cloned at every step (they are legal here and
/// lowered with the rest of the scalar code afterwards).
struct AssociativeScanLowering : ConvertOpToLLVMPattern<tile::AssociativeScanOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::AssociativeScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Block &body = op.getCombiner().front();
    auto combineFn = [&](Value a, Value b) {
      IRMapping map;
      map.map(body.getArgument(0), a);
      map.map(body.getArgument(1), b);
      for (Operation &inner : body.without_terminator())
        rw.clone(inner, map);
      return map.lookupOrDefault(op.getCombined());
    };
    return lowerScan(op, adaptor.getSrc(), op.getAxis(), op.getSrc().getType().getElementType(),
                     combineFn, *getTypeConverter(), rw);
  }
};

} // namespace

void tessera::conversion::populateScanPatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<ScanLowering, AssociativeScanLowering>(tc);
}
