//===- PadExtents.cpp - tile-pad-extents ------------------------*- C++ -*-===//
//
// Pads every tile extent that is not a power of two to the next one, and the
// extents of a small tensor-core dot (f16/bf16 operands, f32 accumulator) up to
// mma.sync's m16n8k16, and masks the padding where it could reach a result
// (Passes.td says where). A padded extent is a property of the extent's value:
// every tile axis of that extent in the kernel gets it, so shapes stay
// consistent across element-wise ops, broadcasts and reductions. Types
// change in place, for op results and block arguments alike, so loop-carried
// tiles and their loops agree; the masks are built from aranges compared with
// the logical extents, broadcast to the padded shape. Assumes tile IR from the
// frontend: dense constants are splats (zeros, full).
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPADEXTENTS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// mma.sync's instruction shape for f16/bf16 operands with an f32
/// accumulator, the one every supported target (sm_80 and later) has.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;

/// The extents a dot below the instruction shape needs, as a minimum per
/// logical extent: a dot of M = 4 (the query rows of one KV head in
/// grouped-query decode) pads every extent 4 of the kernel to 16, so that the
/// dot runs on tensor cores instead of FMA loops. Only where the padded dot
/// gives every warp a fragment (TargetInfo::tensorCoreInstr), else padding
/// would only multiply the FMA work.
DenseMap<int64_t, int64_t> dotMinimums(KernelOp kernel) {
  DenseMap<int64_t, int64_t> mins;
  int64_t warps = kernel.getNumWarps();
  kernel.walk([&](DotOp dot) {
    auto a = cast<RankedTensorType>(dot.getA().getType());
    auto c = cast<RankedTensorType>(dot.getResult().getType());
    Type ab = a.getElementType();
    if (!(ab.isF16() || ab.isBF16()) || !c.getElementType().isF32())
      return;
    int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
    auto up = [](int64_t e, int64_t min) { return std::max((int64_t)llvm::PowerOf2Ceil(e), min); };
    int64_t pm = up(m, kMmaM), pn = up(n, kMmaN);
    if ((m >= kMmaM && n >= kMmaN) || pm * pn < kMmaM * kMmaN * warps)
      return;
    // Never extent 1: unit axes are how tiles broadcast (x[None, :]), and
    // a [1, D] row would turn every one of them into 16.
    for (auto [e, min] : {std::pair{m, kMmaM}, {n, kMmaN}, {k, kMmaK}})
      if (e > 1 && up(e, min) != (int64_t)llvm::PowerOf2Ceil(e))
        mins[e] = std::max(mins.lookup(e), min);
  });
  // A reshape cannot keep its element order through padded extents: the
  // dots of a kernel that reshapes tiles of such an extent stay unpadded.
  kernel.walk([&](ReshapeOp r) {
    for (Type t : {r.getSrc().getType(), r.getResult().getType()})
      for (int64_t e : cast<RankedTensorType>(t).getShape())
        mins.erase(e);
  });
  return mins;
}

class Padder {
public:
  explicit Padder(KernelOp kernel) : b_(kernel.getContext()), mins_(dotMinimums(kernel)) {}

  SmallVector<int64_t> padded(ArrayRef<int64_t> shape) const {
    SmallVector<int64_t> out;
    for (int64_t e : shape)
      out.push_back(std::max((int64_t)llvm::PowerOf2Ceil(e), mins_.lookup(e)));
    return out;
  }

  /// The logical shape of every value whose type was padded.
  DenseMap<Value, SmallVector<int64_t>> logical;

  void padType(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return;
    SmallVector<int64_t> shape = padded(t.getShape());
    if (ArrayRef<int64_t>(shape) == t.getShape())
      return;
    logical[v] = SmallVector<int64_t>(t.getShape());
    v.setType(RankedTensorType::get(shape, t.getElementType(), t.getEncoding()));
  }

  /// The shape `v` had before padding (its shape when it was not padded).
  SmallVector<int64_t> logicalShape(Value v) {
    auto it = logical.find(v);
    if (it != logical.end())
      return it->second;
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      return SmallVector<int64_t>(t.getShape());
    return {};
  }

  /// A bool tile of `type`'s (padded) shape, true at the elements inside
  /// `shape` along every axis; null when nothing is padded.
  Value validMask(Location loc, RankedTensorType type, ArrayRef<int64_t> shape) {
    Value mask;
    int64_t rank = type.getRank();
    auto i1Tile = RankedTensorType::get(type.getShape(), b_.getI1Type());
    for (int64_t d = 0; d < rank; ++d) {
      int64_t full = type.getDimSize(d);
      if (shape[d] == full)
        continue;
      auto lineTy = RankedTensorType::get({full}, b_.getI32Type());
      Value idx = ArangeOp::create(b_, loc, lineTy);
      Value n = arith::ConstantOp::create(
          b_, loc, DenseElementsAttr::get(lineTy, b_.getI32IntegerAttr(shape[d])));
      Value in = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::slt, idx, n);
      SmallVector<int64_t> cur = {full};
      for (int64_t a = 0; a < rank; ++a) {
        if (a == d)
          continue;
        cur.insert(cur.begin() + a, 1);
        in = ExpandDimsOp::create(b_, loc, RankedTensorType::get(cur, b_.getI1Type()), in, a);
      }
      if (cur != SmallVector<int64_t>(type.getShape()))
        in = BroadcastOp::create(b_, loc, i1Tile, in);
      mask = mask ? (Value)arith::AndIOp::create(b_, loc, mask, in) : in;
    }
    return mask;
  }

  /// Whether `v`'s padding along `axis` already holds zeros: `v` is a load
  /// whose pad is zero (its elements past the extents read as the pad), seen
  /// through transposes and type conversions (which keep a zero).
  static bool zeroPadded(Value v, int64_t axis) {
    while (Operation *def = v.getDefiningOp()) {
      if (auto t = dyn_cast<TransposeOp>(def)) {
        v = t.getSrc();
        axis = 1 - axis;
      } else if (auto c = dyn_cast<ConvertOp>(def)) {
        v = c.getSrc();
      } else if (auto load = dyn_cast<LoadOp>(def)) {
        Value pad = load.getPad();
        return !pad || matchPattern(pad, m_AnyZeroFloat()) || matchPattern(pad, m_Zero());
      } else {
        return false;
      }
    }
    return false;
  }

  /// `x` with `fill` at the elements outside `shape`.
  Value masked(Location loc, Value x, ArrayRef<int64_t> shape, TypedAttr fill) {
    auto t = cast<RankedTensorType>(x.getType());
    Value mask = validMask(loc, t, shape);
    if (!mask)
      return x;
    Value f = arith::ConstantOp::create(
        b_, loc,
        DenseElementsAttr::get(RankedTensorType::get(t.getShape(), t.getElementType()), fill));
    return arith::SelectOp::create(b_, loc, mask, x, f);
  }

  LogicalResult rewrite(Operation *op) {
    b_.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      auto t = dyn_cast<RankedTensorType>(cst.getType());
      if (!dense || !t || !logical.count(cst.getResult()))
        return success();
      if (!dense.isSplat())
        return op->emitError("a constant tile whose extents are padded (not powers of two, "
                             "or a small dot's) must be a splat");
      cst.setValueAttr(DenseElementsAttr::get(t, dense.getSplatValue<Attribute>()));
      return success();
    }
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (logical.count(load.getResult()))
        load.setExtents(logicalShape(load.getResult()));
      return success();
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      if (logical.count(store.getValue()))
        store.setExtents(logicalShape(store.getValue()));
      return success();
    }
    if (auto red = dyn_cast<ReduceOp>(op)) {
      SmallVector<int64_t> shape = logicalShape(red.getSrc());
      auto t = cast<RankedTensorType>(red.getSrc().getType());
      if (shape[red.getAxis()] == t.getDimSize(red.getAxis()))
        return success();
      // Only the reduced axis needs the identity; other padded axes are
      // carried along (their results are padding too).
      SmallVector<int64_t> keep(t.getShape());
      keep[red.getAxis()] = shape[red.getAxis()];
      red.getSrcMutable().assign(masked(loc, red.getSrc(), keep, identity(red)));
      return success();
    }
    if (auto dot = dyn_cast<DotOp>(op)) {
      SmallVector<int64_t> a = logicalShape(dot.getA()), b = logicalShape(dot.getB());
      auto at = cast<RankedTensorType>(dot.getA().getType());
      if (a[1] == at.getDimSize(1))
        return success();
      // Zeros in both operands: 0 * (whatever the padding holds) could be NaN.
      // A loaded operand has them already (and staying a plain load, it can
      // be staged and pipelined).
      SmallVector<int64_t> aKeep(at.getShape()),
          bKeep(cast<RankedTensorType>(dot.getB().getType()).getShape());
      aKeep[1] = a[1];
      bKeep[0] = b[0];
      Type elt = at.getElementType();
      TypedAttr zero = b_.getFloatAttr(elt, 0.0);
      if (!zeroPadded(dot.getA(), 1))
        dot.getAMutable().assign(masked(loc, dot.getA(), aKeep, zero));
      if (!zeroPadded(dot.getB(), 0))
        dot.getBMutable().assign(masked(loc, dot.getB(), bKeep, zero));
      return success();
    }
    if (auto check = dyn_cast<AssertOp>(op)) {
      // Padding holds whatever its computation gave: it must not fail the check.
      if (!logical.count(check.getCond()))
        return success();
      TypedAttr yes = b_.getIntegerAttr(b_.getI1Type(), 1);
      check.getCondMutable().assign(
          masked(loc, check.getCond(), logicalShape(check.getCond()), yes));
      return success();
    }
    if (isa<GatherOp, ScatterOp, AtomicRMWOp, AtomicCASOp>(op)) {
      Value access = isa<ScatterOp>(op) ? cast<ScatterOp>(op).getValue() : op->getResult(0);
      auto t = dyn_cast<RankedTensorType>(access.getType());
      if (!t || !logical.count(access))
        return success();
      Value valid = validMask(loc, cast<RankedTensorType>(t), logicalShape(access));
      MutableOperandRange maskOperand = maskOf(op);
      if (maskOperand.empty())
        maskOperand.append(valid);
      else
        maskOperand[0].set(arith::AndIOp::create(b_, loc, maskOperand[0].get(), valid));
      return success();
    }
    return success();
  }

private:
  static MutableOperandRange maskOf(Operation *op) {
    if (auto g = dyn_cast<GatherOp>(op))
      return g.getMaskMutable();
    if (auto s = dyn_cast<ScatterOp>(op))
      return s.getMaskMutable();
    if (auto a = dyn_cast<AtomicRMWOp>(op))
      return a.getMaskMutable();
    return cast<AtomicCASOp>(op).getMaskMutable();
  }

  TypedAttr identity(ReduceOp red) {
    Type t = cast<RankedTensorType>(red.getSrc().getType()).getElementType();
    bool isMax = red.getKind() == ReduceKind::max, isMin = red.getKind() == ReduceKind::min;
    if (auto f = dyn_cast<FloatType>(t)) {
      if (!isMax && !isMin)
        return b_.getFloatAttr(t, 0.0);
      return b_.getFloatAttr(t, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/isMax));
    }
    unsigned bits = t.getIntOrFloatBitWidth();
    if (isMax)
      return b_.getIntegerAttr(t, APInt::getSignedMinValue(bits));
    if (isMin)
      return b_.getIntegerAttr(t, APInt::getSignedMaxValue(bits));
    return b_.getIntegerAttr(t, 0);
  }

  OpBuilder b_;
  DenseMap<int64_t, int64_t> mins_; // dotMinimums
};

struct TilePadExtents : tile::impl::TilePadExtentsBase<TilePadExtents> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Padder padder(kernel);
    // Types first (every value of the body), then the ops that need masks.
    kernel.getBody().walk([&](Operation *op) {
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (BlockArgument a : b.getArguments())
            padder.padType(a);
      for (Value v : op->getResults())
        padder.padType(v);
    });
    if (padder.logical.empty())
      return;
    WalkResult res = kernel.getBody().walk([&](Operation *op) {
      return failed(padder.rewrite(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (res.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
