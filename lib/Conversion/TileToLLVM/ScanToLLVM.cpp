//===- ScanToLLVM.cpp - tile.scan -------------------------------*- C++ -*-===//
//
// An inclusive scan (cumsum, cummax, cummin) along one axis, from any layout
// Distribute.h describes, through the op's scratch in shared memory:
//
//   1. each element's owner stores it at its row-major index (one padding
//      element after every 32, against bank conflicts of the chunk strides);
//   2. the T threads split the L lines of the axis (extent N): P threads per
//      line (P = min(N, 32, T / L), consecutive lanes of one warp), each
//      scanning a chunk of N / P elements in order; the chunk totals are
//      scanned across the P lanes with shuffles and each chunk adds the
//      total of the chunks before it. With fewer threads than lines, a
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
#include "lib/Conversion/TileToLLVM/Distribute.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tessera::conversion;

namespace {

struct ScanLowering : ConvertOpToLLVMPattern<tile::ScanOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    RankedTensorType ty = op.getSrc().getType();
    FailureOr<Distribution> dist = distribute(ty);
    if (failed(dist))
      return op.emitError("code generation of this scan needs a blocked, mma or slice layout");
    for (int64_t e : ty.getShape())
      if (!llvm::isPowerOf2_64(e))
        return op.emitError("code generation needs power-of-two tile extents, got ") << ty;
    auto offset = op->getAttrOfType<IntegerAttr>("tile.scratch_offset");
    if (!offset)
      return op.emitError("a scan without scratch: run tile-allocate-shared first");
    // 16-bit floats are scanned as f32 (a long sum stays accurate) and
    // rounded once at the end, as the interpreter does.
    Type elt = ty.getElementType();
    Type work = isa<FloatType>(elt) && elt.getIntOrFloatBitWidth() < 32 ? rw.getF32Type() : elt;
    unsigned eb = storageBytes(work);
    ArrayRef<int64_t> shape = ty.getShape();
    int64_t axis = op.getAxis(), n = shape[axis], numel = ty.getNumElements();
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < ty.getRank(); ++d)
      inner *= shape[d];
    int64_t lines = numel / n, threads = 32 * computeWarps(op);
    // Fully unrolled: a thread's share of the tile is bounded.
    if (numel / std::min(threads, numel) > 1024)
      return op.emitError("a scan of ") << ty << " holds more than 1024 elements per thread";

    IRArith a{rw, loc};
    auto ptr3 = LLVM::LLVMPointerType::get(rw.getContext(), 3);
    Value smem = LLVM::GEPOp::create(rw, loc, ptr3, rw.getI8Type(), sharedBase(rw, loc, op),
                                     ValueRange{a.c(offset.getInt())});
    auto byteAt = [&](Value bytes) {
      return LLVM::GEPOp::create(rw, loc, ptr3, rw.getI8Type(), smem, ValueRange{bytes})
          .getResult();
    };
    // Element `idx` (row-major) of the tile.
    auto at = [&](Value idx) { return byteAt(a.mul(a.add(idx, a.lshr(idx, 5)), a.c(eb))); };
    Value tid = threadId(rw, loc);
    auto store = [&](Value v, Value addr, Value active) {
      if (!active) {
        LLVM::StoreOp::create(rw, loc, v, addr);
        return;
      }
      auto branch = scf::IfOp::create(rw, loc, TypeRange{}, active, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&branch.getThenRegion().front());
      LLVM::StoreOp::create(rw, loc, v, addr);
    };
    auto load = [&](Value addr) { return LLVM::LoadOp::create(rw, loc, work, addr).getResult(); };
    tile::ReduceKind kind = op.getKind();

    // 1. The owners store the tile.
    auto [lane, warp] = laneAndWarp(rw, loc);
    SmallVector<Value, 4> base = threadBase(rw, loc, *dist, lane, warp);
    std::vector<SmallVector<Value, 4>> coords = elementCoords(rw, loc, *dist, base);
    auto rowMajor = [&](ArrayRef<Value> c) {
      Value idx = a.c(0);
      int64_t stride = 1;
      for (int64_t d = ty.getRank() - 1; d >= 0; --d) {
        idx = a.add(idx, a.mul(c[d], a.c(stride)));
        stride *= shape[d];
      }
      return idx;
    };
    SmallVector<Value> elems = unpack(rw, loc, adaptor.getSrc());
    for (size_t i = 0; i < elems.size(); ++i) {
      Value v = work == elt ? elems[i] : LLVM::FPExtOp::create(rw, loc, work, elems[i]);
      store(v, at(rowMajor(coords[i])), ownsElement(rw, loc, *dist, base, i));
    }
    barrier(rw, loc);

    // 2. Chunks of lines, in order.
    int64_t per = threads >= lines ? std::min({n, int64_t(32), threads / lines}) : 1;
    int64_t chunk = n / per, rounds = threads >= lines ? 1 : lines / threads;
    Value part = a.urem(tid, a.c(per));
    for (int64_t k = 0; k < rounds; ++k) {
      Value line = threads >= lines ? a.urem(a.udiv(tid, a.c(per)), a.c(lines))
                                    : a.add(tid, a.c(k * threads));
      Value active =
          threads >= lines && lines * per < threads
              ? LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ult, tid, a.c(lines * per))
                    .getResult()
              : Value();
      Value first =
          a.add(a.add(a.mul(a.udiv(line, a.c(inner)), a.c(n * inner)), a.urem(line, a.c(inner))),
                a.mul(part, a.c(chunk * inner)));
      // Idle lanes (more threads than lines times P) only join the shuffles.
      auto loadIf = [&](Value addr) -> Value {
        if (!active)
          return load(addr);
        auto branch = scf::IfOp::create(rw, loc, TypeRange{work}, active, /*withElse=*/true);
        OpBuilder::InsertionGuard guard(rw);
        rw.setInsertionPointToStart(&branch.getThenRegion().front());
        scf::YieldOp::create(rw, loc, load(addr));
        rw.setInsertionPointToStart(&branch.getElseRegion().front());
        scf::YieldOp::create(rw, loc, zeroOf(rw, loc, work));
        return branch.getResult(0);
      };
      // The chunk in order, each running value stored as it goes (few
      // registers however long the chunk).
      SmallVector<Value> addrs;
      Value acc;
      for (int64_t j = 0; j < chunk; ++j) {
        addrs.push_back(at(a.add(first, a.c(j * inner))));
        Value v = loadIf(addrs.back());
        acc = j ? combine(rw, loc, kind, acc, v) : v;
        if (j)
          store(acc, addrs.back(), active);
      }
      if (per > 1) {
        // The chunk totals, scanned across the line's lanes; then each chunk
        // takes the total of those before it.
        auto from = [&](int64_t d) {
          return LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::uge, part, a.c(d));
        };
        Value total = acc;
        for (int64_t d = 1; d < per; d *= 2)
          total = LLVM::SelectOp::create(
              rw, loc, from(d), combine(rw, loc, kind, shuffleUp(rw, loc, total, d), total), total);
        Value before = shuffleUp(rw, loc, total, 1);
        for (Value addr : addrs) {
          Value v = loadIf(addr);
          store(LLVM::SelectOp::create(rw, loc, from(1), combine(rw, loc, kind, before, v), v),
                addr, active);
        }
      }
    }
    barrier(rw, loc);

    // 3. Every thread loads its elements back.
    SmallVector<Value> out;
    for (const auto &c : coords) {
      Value v = load(at(rowMajor(c)));
      out.push_back(work == elt ? v : LLVM::FPTruncOp::create(rw, loc, elt, v));
    }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(ty), out));
    return success();
  }
};

} // namespace

void tessera::conversion::populateScanPatterns(TileTypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<ScanLowering>(tc);
}
