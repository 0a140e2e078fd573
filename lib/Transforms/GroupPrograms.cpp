//===- GroupPrograms.cpp - tile-group-programs ------------------*- C++ -*-===//
//
// Remaps the program ids of a matmul-like kernel so that programs launched
// one after the other (the hardware starts blocks in order of their linear
// index, axis 0 fastest) cover `group` rows of axis 0 before moving along
// axis 1. With the launch order, a wave of programs then reads a few rows of
// A and a few columns of B instead of all of A, and finds them in L2.
//
//   lin   = p1 * n0 + p0                 n0, n1: the grid's extents
//   first = lin / (group * n1) * group   the group's first row
//   rows  = min(n0 - first, group)       the last group may be shorter
//   q0    = first + lin % (group * n1) % rows
//   q1    = lin % (group * n1) / rows
//
// This is a bijection of the grid (programs are independent and their order
// unspecified, so meaning is kept). A kernel qualifies when a `tile.dot` has
// an A operand computed from program_id(0) and not program_id(1), and a B
// operand the other way round; others (attention: Q depends on both) are left
// as they are. Runs on tile IR before layouts; the interpreter never sees it.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGROUPPROGRAMS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The grid axes whose program id `v` is computed from (bit d: axis d).
unsigned axesOf(Value v) {
  SetVector<Operation *> slice;
  BackwardSliceOptions opts;
  opts.omitBlockArguments = true;
  opts.omitUsesFromAbove = false;
  (void)getBackwardSlice(v, &slice, opts);
  if (Operation *def = v.getDefiningOp())
    slice.insert(def);
  unsigned axes = 0;
  // The walk visits each op and, for ops with regions (loops), their bodies.
  for (Operation *op : slice)
    op->walk([&](ProgramIdOp pid) { axes |= 1u << pid.getAxis(); });
  return axes;
}

bool isMatmulLike(KernelOp kernel) {
  bool found = false;
  kernel.getBody().walk([&](DotOp dot) {
    if (axesOf(dot.getA()) == 0b01 && axesOf(dot.getB()) == 0b10)
      found = true;
  });
  return found;
}

struct TileGroupPrograms : tile::impl::TileGroupProgramsBase<TileGroupPrograms> {
  using TileGroupProgramsBase::TileGroupProgramsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Operation *yield = kernel.getGrid().front().getTerminator();
    if (group < 2 || yield->getNumOperands() < 2 || !isMatmulLike(kernel))
      return;
    // A cluster of C programs along axis 0 (tile-cluster-programs) stays on
    // one value of axis 1 when a group's rows are a multiple of C: the
    // grid's extent along axis 0 is (the compiler checks it), and so every
    // group's first row and its row count are.
    int64_t rowsPerGroup = group;
    if (auto dims = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.cluster_dims"))
      rowsPerGroup = llvm::alignTo(rowsPerGroup, dims[0]);
    SmallVector<ProgramIdOp> ids[2];
    kernel.getBody().walk([&](ProgramIdOp pid) {
      if (pid.getAxis() < 2)
        ids[pid.getAxis()].push_back(pid);
    });
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = kernel.getLoc();
    auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); };
    Type i32 = b.getI32Type();
    auto axis = [&](int64_t a) { return b.getI32IntegerAttr(a); };
    Value p0 = ProgramIdOp::create(b, loc, i32, axis(0));
    Value p1 = ProgramIdOp::create(b, loc, i32, axis(1));
    Value n0 = NumProgramsOp::create(b, loc, i32, axis(0));
    Value n1 = NumProgramsOp::create(b, loc, i32, axis(1));
    Value g = c(rowsPerGroup);
    Value lin = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, p1, n0), p0);
    Value width = arith::MulIOp::create(b, loc, g, n1);
    Value first = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, lin, width), g);
    Value rows = arith::MinUIOp::create(b, loc, arith::SubIOp::create(b, loc, n0, first), g);
    Value within = arith::RemUIOp::create(b, loc, lin, width);
    Value q0 = arith::AddIOp::create(b, loc, first, arith::RemUIOp::create(b, loc, within, rows));
    Value q1 = arith::DivUIOp::create(b, loc, within, rows);
    Value q[2] = {q0, q1};
    for (unsigned axis = 0; axis < 2; ++axis)
      for (ProgramIdOp pid : ids[axis]) {
        pid.getResult().replaceAllUsesWith(q[axis]);
        pid.erase();
      }
  }
};

} // namespace
