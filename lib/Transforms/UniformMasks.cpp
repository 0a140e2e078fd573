//===- UniformMasks.cpp - tile-uniform-masks --------------------*- C++ -*-===//
//
// Skips a loop's per-element masking on the iterations where its mask holds
// for every element. A `where` over index comparisons, as attention's
// `cols < N` or causal attention's `cols <= rows`, costs a compare and a select
// per element of every iteration, although only the last key block (or the
// diagonal ones) has an element the mask clears. For each `arith.select` in a
// loop whose mask is built from index comparisons, the pass computes from
// scalars whether the mask holds everywhere and branches:
//
//   %all = <scalar test>
//   %s = scf.if %all -> (tensor<...>) {
//     scf.yield %x
//   } else {
//     <the mask's element-wise ops, moved here when nothing else uses them>
//     %m = arith.select %mask, %x, %y
//     scf.yield %m
//   }
//
// The test is exact. An i32 index tile the pass can read is affine in the
// element's coordinates, e + sum(c_d * i_d), with e scalar and c_d constant:
// built from `tile.arange`, `tile.splat`, integer constants, `arith.addi`,
// `arith.subi`, `arith.muli` by a constant, `tile.expand_dims`,
// `tile.broadcast` and `tile.convert_layout`. For such tiles the pass
// evaluates e in 64 bits and checks that no element wraps in 32 bits (then
// every element is e plus its offset exactly); a comparison `slt`, `sle`,
// `sgt` or `sge` of two such tiles holds everywhere iff it holds at the
// extreme offset of their difference. Masks combine by `arith.andi` and pass
// through `tile.broadcast`, `tile.expand_dims` and `tile.convert_layout`.
// Other masks are left as they are. The branch is uniform (every value of
// the test is the same in every thread), so it costs a few scalar
// instructions per iteration. Runs last among the tile IR passes.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEUNIFORMMASKS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// An i32 tile whose element at coordinates i is
/// sum(terms.second * terms.first) + constant + sum(coef[d] * i[d]),
/// evaluated without wrapping.
struct AffineTile {
  SmallVector<std::pair<Value, int64_t>> terms; // i32 scalars and multipliers
  int64_t constant = 0;
  SmallVector<int64_t> coef;  // per axis of the tile
  SmallVector<int64_t> shape; // the tile's extents

  /// The least and greatest of sum(coef[d] * i[d]) over the tile.
  std::pair<int64_t, int64_t> offsets() const {
    int64_t lo = 0, hi = 0;
    for (auto [c, n] : llvm::zip(coef, shape)) {
      lo += std::min<int64_t>(0, c * (n - 1));
      hi += std::max<int64_t>(0, c * (n - 1));
    }
    return {lo, hi};
  }
};

constexpr int64_t kCoefLimit = int64_t(1) << 20; // keeps the 64-bit sums exact

std::optional<int64_t> constantInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

std::optional<AffineTile> affine(Value v);

/// `v` scaled by `k`; nullopt when the coefficients grow past kCoefLimit.
std::optional<AffineTile> scaled(AffineTile a, int64_t k) {
  if (std::abs(k) > kCoefLimit || std::abs(a.constant) > kCoefLimit * kCoefLimit)
    return std::nullopt;
  for (auto &term : a.terms) {
    term.second *= k;
    if (std::abs(term.second) > kCoefLimit)
      return std::nullopt;
  }
  a.constant *= k;
  for (int64_t &c : a.coef) {
    c *= k;
    if (std::abs(c) > kCoefLimit)
      return std::nullopt;
  }
  return a;
}

std::optional<AffineTile> sum(AffineTile a, const AffineTile &b, int64_t sign) {
  if (a.shape != b.shape)
    return std::nullopt;
  for (auto [v, m] : b.terms)
    a.terms.push_back({v, sign * m});
  a.constant += sign * b.constant;
  for (auto [c, d] : llvm::zip(a.coef, b.coef))
    c += sign * d;
  return a;
}

/// `src`'s form placed on `shape`: axes of extent 1 and missing leading axes
/// (broadcast) or an inserted unit axis (expand_dims) take no coefficient.
AffineTile reshaped(AffineTile a, ArrayRef<int64_t> shape, std::optional<int64_t> inserted) {
  SmallVector<int64_t> coef(shape.size(), 0);
  if (inserted) {
    for (size_t d = 0, s = 0; d < shape.size(); ++d)
      if ((int64_t)d != *inserted)
        coef[d] = a.coef[s++];
  } else {
    size_t lead = shape.size() - a.coef.size();
    for (size_t s = 0; s < a.coef.size(); ++s)
      coef[lead + s] = a.shape[s] == 1 ? 0 : a.coef[s];
  }
  a.coef = std::move(coef);
  a.shape.assign(shape.begin(), shape.end());
  return a;
}

std::optional<AffineTile> affine(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isInteger(32))
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  AffineTile out;
  out.shape.assign(shape.begin(), shape.end());
  out.coef.assign(shape.size(), 0);
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<ArangeOp>(def)) {
    out.coef[0] = 1;
    return out;
  }
  if (auto splat = dyn_cast<SplatOp>(def)) {
    if (auto c = constantInt(splat.getValue()))
      out.constant = *c;
    else
      out.terms.push_back({splat.getValue(), 1});
    return out;
  }
  if (auto c = constantInt(v)) {
    out.constant = *c;
    return out;
  }
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    auto l = affine(add.getLhs()), r = affine(add.getRhs());
    return l && r ? sum(*l, *r, 1) : std::nullopt;
  }
  if (auto sub = dyn_cast<arith::SubIOp>(def)) {
    auto l = affine(sub.getLhs()), r = affine(sub.getRhs());
    return l && r ? sum(*l, *r, -1) : std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    auto l = affine(mul.getLhs()), r = affine(mul.getRhs());
    if (!l || !r)
      return std::nullopt;
    auto isConstant = [](const AffineTile &a) {
      return a.terms.empty() && llvm::all_of(a.coef, [](int64_t c) { return c == 0; });
    };
    if (isConstant(*r))
      return scaled(*l, r->constant);
    if (isConstant(*l))
      return scaled(*r, l->constant);
    return std::nullopt;
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(def))
    return affine(cvt.getSrc());
  if (auto bcast = dyn_cast<BroadcastOp>(def)) {
    auto src = affine(bcast.getSrc());
    return src ? std::optional(reshaped(*src, shape, std::nullopt)) : std::nullopt;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
    auto src = affine(expand.getSrc());
    return src ? std::optional(reshaped(*src, shape, expand.getAxis())) : std::nullopt;
  }
  return std::nullopt;
}

/// Emits the scalar tests that a mask holds everywhere.
class MaskTest {
public:
  MaskTest(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// Whether `mask` is understood; its comparisons are collected in `pending`.
  bool collect(Value mask) {
    Operation *def = mask.getDefiningOp();
    if (!def)
      return false;
    if (auto c = constantInt(mask))
      return *c != 0; // all-true constant: nothing to test
    if (auto both = dyn_cast<arith::AndIOp>(def))
      return collect(both.getLhs()) && collect(both.getRhs());
    if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp>(def))
      return collect(def->getOperand(0));
    auto cmp = dyn_cast<arith::CmpIOp>(def);
    if (!cmp)
      return false;
    auto l = affine(cmp.getLhs()), r = affine(cmp.getRhs());
    if (!l || !r)
      return false;
    auto diff = sum(*l, *r, -1);
    if (!diff)
      return false;
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    if (pred != P::slt && pred != P::sle && pred != P::sgt && pred != P::sge)
      return false;
    pending.push_back({*l, *r, *diff, pred});
    return true;
  }

  /// The conjunction of every collected condition, an i1 scalar; null when
  /// the mask holds everywhere whatever the scalars, failure when it never
  /// does (a constant mask that clears an element: nothing to branch on).
  FailureOr<Value> emit() {
    Value all;
    auto conj = [&](Value c) { all = all ? b.createOrFold<arith::AndIOp>(loc, all, c) : c; };
    for (auto &[l, r, diff, pred] : pending) {
      auto [lo, hi] = diff.offsets();
      using P = arith::CmpIPredicate;
      // slt/sle: the greatest difference; sgt/sge: the least one.
      bool upper = pred == P::slt || pred == P::sle;
      int64_t offset = upper ? hi : lo;
      if (l.terms.empty() && r.terms.empty()) { // a constant mask: decide here
        if (!holds(pred, diff.constant + offset) || wraps(l) || wraps(r))
          return failure();
        continue;
      }
      for (const AffineTile *side : {&l, &r})
        if (!isScalar(*side))
          conj(noWrap(*side));
      Value extreme = plus(scalar(diff), offset);
      conj(b.createOrFold<arith::CmpIOp>(loc, pred, extreme, i64(0)));
    }
    return all;
  }

private:
  static bool holds(arith::CmpIPredicate pred, int64_t v) {
    using P = arith::CmpIPredicate;
    return pred == P::slt ? v < 0 : pred == P::sle ? v <= 0 : pred == P::sgt ? v > 0 : v >= 0;
  }
  static bool wraps(const AffineTile &a) {
    auto [lo, hi] = a.offsets();
    return a.constant + lo < std::numeric_limits<int32_t>::min() ||
           a.constant + hi > std::numeric_limits<int32_t>::max();
  }

  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }

  /// A 32-bit scalar as it is: nothing to check.
  static bool isScalar(const AffineTile &a) {
    auto [lo, hi] = a.offsets();
    return lo == 0 && hi == 0 && a.constant == 0 && a.terms.size() == 1 && a.terms[0].second == 1;
  }

  Value plus(Value e, int64_t c) { return c ? b.createOrFold<arith::AddIOp>(loc, e, i64(c)) : e; }

  Value scalar(const AffineTile &a) {
    Value e;
    for (auto [v, m] : a.terms) {
      Value wide = b.createOrFold<arith::ExtSIOp>(loc, b.getI64Type(), v);
      if (m != 1)
        wide = b.createOrFold<arith::MulIOp>(loc, wide, i64(m));
      e = e ? b.createOrFold<arith::AddIOp>(loc, e, wide) : wide;
    }
    return e ? plus(e, a.constant) : i64(a.constant);
  }

  /// Every element of `a` lies in the i32 range (so none of the tile's own
  /// 32-bit arithmetic wrapped).
  Value noWrap(const AffineTile &a) {
    auto [lo, hi] = a.offsets();
    Value e = scalar(a);
    using P = arith::CmpIPredicate;
    Value least = plus(e, lo), greatest = plus(e, hi);
    return arith::AndIOp::create(
        b, loc,
        b.createOrFold<arith::CmpIOp>(loc, P::sge, least, i64(std::numeric_limits<int32_t>::min())),
        b.createOrFold<arith::CmpIOp>(loc, P::sle, greatest,
                                      i64(std::numeric_limits<int32_t>::max())));
  }

  struct Pending {
    AffineTile l, r, diff;
    arith::CmpIPredicate pred;
  };
  OpBuilder &b;
  Location loc;
  SmallVector<Pending, 2> pending;
};

/// Moves the pure ops before `branch` in its block whose every use lies in
/// `region` (directly or through other such ops) to the start of `region`, in
/// their order.
void sinkInto(scf::IfOp branch, Region &region) {
  llvm::SmallPtrSet<Operation *, 16> moved;
  SmallVector<Operation *> order; // last first
  for (Operation *op = branch->getPrevNode(); op; op = op->getPrevNode()) {
    // Ops with scratch (a layout conversion through shared memory) stay
    // beside the barriers tile-insert-barriers put around them.
    if (!isPure(op) || op->getNumRegions() || op->use_empty() || usesScratch(op))
      continue;
    if (llvm::all_of(op->getUsers(), [&](Operation *user) {
          return moved.contains(user) || region.isAncestor(user->getParentRegion());
        })) {
      moved.insert(op);
      order.push_back(op);
    }
  }
  Operation *first = &region.front().front();
  for (Operation *op : llvm::reverse(order))
    op->moveBefore(first);
}

struct TileUniformMasks : tile::impl::TileUniformMasksBase<TileUniformMasks> {
  void runOnOperation() override {
    SmallVector<arith::SelectOp> selects;
    getOperation().walk([&](arith::SelectOp select) {
      if (isa<RankedTensorType>(select.getCondition().getType()) &&
          select->getParentOfType<scf::ForOp>())
        selects.push_back(select);
    });
    for (arith::SelectOp select : selects) {
      OpBuilder b(select);
      Location loc = select.getLoc();
      MaskTest test(b, loc);
      if (!test.collect(select.getCondition()))
        continue;
      FailureOr<Value> all = test.emit();
      if (failed(all))
        continue;
      if (!*all) { // holds everywhere
        select.getResult().replaceAllUsesWith(select.getTrueValue());
        select.erase();
        continue;
      }
      auto branch = scf::IfOp::create(b, loc, TypeRange{select.getType()}, *all, /*withElse=*/true);
      select.getResult().replaceAllUsesWith(branch.getResult(0));
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b, loc, select.getTrueValue());
      b.setInsertionPointToStart(branch.elseBlock());
      auto yield = scf::YieldOp::create(b, loc, select.getResult());
      select->moveBefore(yield);
      sinkInto(branch, branch.getElseRegion());
    }
  }
};

} // namespace
