//===- AxisInfo.cpp - integer tiles along their last axis -------*- C++ -*-===//
//
// A recursive walk over the defining ops (bounded depth), with one rule per op
// kind. All facts are powers of two, so that runs of different lengths nest.
//
//===----------------------------------------------------------------------===//
#include "lib/Analysis/AxisInfo.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;
using namespace tessera::analysis;

namespace {

constexpr int64_t kUnbounded = int64_t(1) << 30;

/// The largest power of two dividing v (unbounded for 0).
int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return kUnbounded;
  int64_t d = 1;
  while (d < kUnbounded && v % (d * 2) == 0)
    d *= 2;
  return d;
}

int64_t lastExtent(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() ? t.getShape().back() : kUnbounded;
}

/// A fact capped at the extent of the last axis (runs cannot be longer).
AxisFacts capped(AxisFacts f, Value v) {
  int64_t n = lastExtent(v);
  f.contiguity = std::min(f.contiguity, n);
  f.constancy = std::min(f.constancy, n);
  f.divisibility = std::min(f.divisibility, kUnbounded);
  return f;
}

/// The divisibility of the elements at multiples of g (a power of two).
int64_t divAt(const AxisFacts &f, int64_t g) {
  return g >= f.contiguity ? f.divisibility : std::min(f.divisibility, g);
}

/// A value the same everywhere, with divisibility d.
AxisFacts uniform(Value v, int64_t d) { return capped({1, kUnbounded, d}, v); }

class Walker {
public:
  explicit Walker(bool aligned) : aligned_(aligned) {}

  AxisFacts facts(Value v, unsigned depth = 0) {
    if (depth > 16)
      return {};
    Operation *def = v.getDefiningOp();
    if (!def)
      return isa<RankedTensorType>(v.getType()) ? AxisFacts{} : uniform(v, 1);
    return capped(rule(def, v, depth + 1), v);
  }

private:
  AxisFacts rule(Operation *def, Value v, unsigned depth) {
    auto sub = [&](Value x) { return facts(x, depth); };
    return llvm::TypeSwitch<Operation *, AxisFacts>(def)
        .Case([&](arith::ConstantOp c) -> AxisFacts {
          if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
            return uniform(v, pow2Divisor(i.getInt()));
          if (auto d = dyn_cast<DenseIntElementsAttr>(c.getValue()); d && d.isSplat())
            return uniform(v, pow2Divisor(d.getSplatValue<APInt>().getSExtValue()));
          return {};
        })
        .Case([&](ArangeOp) { return AxisFacts{kUnbounded, 1, kUnbounded}; })
        .Case([&](SplatOp s) { return uniform(v, sub(s.getValue()).divisibility); })
        .Case([&](DimOp d) -> AxisFacts {
          // Aligned tensors have last extents of whole 16-byte units.
          auto t = cast<GlobalTensorType>(d.getTensor().getType());
          int64_t bytes = std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8);
          if (aligned_ && isAlignedTensor(d.getTensor()) && (int64_t)d.getAxis() == t.getRank() - 1)
            return uniform(v, std::max<int64_t>(1, 16 / bytes));
          return uniform(v, 1);
        })
        .Case([&](ConvertLayoutOp c) { return sub(c.getSrc()); })
        .Case([&](MultipleOfOp m) -> AxisFacts {
          AxisFacts f = sub(m.getValue());
          // Every element is a multiple: the run starts are, and runs of one
          // value keep their length.
          f.divisibility = std::max(f.divisibility, pow2Divisor(m.getDivisor()));
          return f;
        })
        .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(
            [&](Operation *op) { return sub(op->getOperand(0)); })
        .Case([&](ExpandDimsOp e) -> AxisFacts {
          AxisFacts s = sub(e.getSrc());
          auto t = cast<RankedTensorType>(e.getType());
          if ((int64_t)e.getAxis() != t.getRank() - 1)
            return s;
          // A new last axis of extent 1: each element is a run of its own.
          return {1, 1, s.contiguity == 1 ? s.divisibility : 1};
        })
        .Case([&](BroadcastOp b) -> AxisFacts {
          AxisFacts s = sub(b.getSrc());
          if (lastExtent(b.getSrc()) != 1 || lastExtent(v) == 1)
            return s;
          return uniform(v, s.divisibility);
        })
        .Case([&](arith::AddIOp op) { return add(sub(op.getLhs()), sub(op.getRhs())); })
        .Case([&](arith::SubIOp op) -> AxisFacts {
          AxisFacts a = sub(op.getLhs()), b = sub(op.getRhs());
          int64_t c = std::min(a.contiguity, b.constancy);
          return {c, std::min(a.constancy, b.constancy), std::min(divAt(a, c), divAt(b, c))};
        })
        .Case([&](arith::MulIOp op) -> AxisFacts {
          AxisFacts a = sub(op.getLhs()), b = sub(op.getRhs());
          int64_t d = std::min(kUnbounded, divAt(a, 1) * divAt(b, 1));
          return {1, std::min(a.constancy, b.constancy), d};
        })
        .Case([&](arith::CmpIOp op) { return compare(op, sub(op.getLhs()), sub(op.getRhs())); })
        .Case<arith::AndIOp, arith::OrIOp>([&](Operation *op) -> AxisFacts {
          AxisFacts a = sub(op->getOperand(0)), b = sub(op->getOperand(1));
          return {1, std::min(a.constancy, b.constancy), 1};
        })
        .Default([&](Operation *) {
          return isa<RankedTensorType>(v.getType()) ? AxisFacts{} : uniform(v, 1);
        });
  }

  static AxisFacts add(const AxisFacts &a, const AxisFacts &b) {
    int64_t c = std::max(std::min(a.contiguity, b.constancy), std::min(b.contiguity, a.constancy));
    return {c, std::min(a.constancy, b.constancy), std::min(divAt(a, c), divAt(b, c))};
  }

  /// `x < y` with x stepping by one and y constant over a group of g, both
  /// multiples of g at the group's start, holds for all of the group or none.
  static AxisFacts compare(arith::CmpIOp op, const AxisFacts &a, const AxisFacts &b) {
    AxisFacts out{1, std::min(a.constancy, b.constancy), 1};
    using P = arith::CmpIPredicate;
    P p = op.getPredicate();
    const AxisFacts *x = nullptr, *y = nullptr;
    if (p == P::slt || p == P::sge || p == P::ult || p == P::uge)
      x = &a, y = &b;
    else if (p == P::sgt || p == P::sle || p == P::ugt || p == P::ule)
      x = &b, y = &a;
    if (!x)
      return out;
    int64_t g = 1;
    while (g * 2 <= std::min(x->contiguity, y->constancy) && divAt(*x, g * 2) >= g * 2 &&
           divAt(*y, g * 2) >= g * 2)
      g *= 2;
    out.constancy = std::max(out.constancy, g);
    return out;
  }

  bool aligned_;
};

} // namespace

AxisFacts tessera::analysis::axisFacts(Value v, bool aligned) { return Walker(aligned).facts(v); }

bool tessera::analysis::isAlignedTensor(Value tensor) {
  Operation *owner = tensor.getParentRegion()->getParentOp();
  auto kernel = dyn_cast<KernelOp>(owner);
  if (!kernel)
    kernel = owner->getParentOfType<KernelOp>();
  if (!kernel)
    return true;
  if (auto a = kernel->getAttrOfType<BoolAttr>("tile.aligned"); a && !a.getValue())
    return false;
  auto arg = dyn_cast<BlockArgument>(tensor);
  auto list = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.unaligned_args");
  return !arg || !list || !llvm::is_contained(list.asArrayRef(), (int64_t)arg.getArgNumber());
}

unsigned tessera::analysis::elementAccessVector(Operation *op) {
  bool aligned = true;
  GlobalTensorType tensor;
  ValueRange indices;
  Value mask, access;
  if (auto g = dyn_cast<GatherOp>(op)) {
    aligned = isAlignedTensor(g.getTensor());
    tensor = g.getTensor().getType();
    indices = g.getIndices();
    mask = g.getMask();
    access = g.getResult();
  } else if (auto s = dyn_cast<ScatterOp>(op)) {
    aligned = isAlignedTensor(s.getTensor());
    tensor = s.getTensor().getType();
    indices = s.getIndices();
    mask = s.getMask();
    access = s.getValue();
  } else {
    return 1;
  }
  auto tileTy = dyn_cast<RankedTensorType>(access.getType());
  if (!aligned || !tileTy || tileTy.getRank() == 0)
    return 1;
  auto layout = dyn_cast_or_null<DistributedLayoutAttrInterface>(tileTy.getEncoding());
  if (!layout)
    return 1;
  FailureOr<Distribution> dist = layout.distribute(tileTy.getShape());
  if (failed(dist) || !dist->sliced.empty())
    return 1;
  int64_t bytes = std::max<int64_t>(1, tensor.getElementType().getIntOrFloatBitWidth() / 8);
  if (tensor.getElementType().isInteger(1))
    return 1;
  int64_t g = std::min<int64_t>(dist->contiguousRun(), 16 / bytes);
  Walker w(aligned);
  AxisFacts last = w.facts(indices.back());
  g = std::min(g, last.contiguity);
  for (Value idx : indices.drop_back())
    g = std::min(g, w.facts(idx).constancy);
  if (mask)
    g = std::min(g, w.facts(mask).constancy);
  while (g > 1 && divAt(last, g) < g)
    g /= 2;
  return (unsigned)std::max<int64_t>(1, g);
}
