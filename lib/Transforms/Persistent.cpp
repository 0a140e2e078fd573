//===- Persistent.cpp - tile-persistent -------------------------*- C++ -*-===//
//
// Turns a grid of independent programs into a persistent one: with the
// kernel's `tile.persistent` (the compiler's `persistent` schedule option),
// the grid clause's extents n0 x n1 become one axis of n0 * n1 virtual
// programs, and the body runs in a loop over them,
//
//   n0, n1 = (the grid clause, computed in the body)
//   scf.for %t = program_id(x) to n0 * n1 step num_programs(x) {
//     q0 = t % n0, q1 = t / n0        program_id(x), program_id(y) before
//     (the body)                      num_programs(x), (y): n0, n1
//   } {tile.persistent_loop}
//
// The runtime launches as many programs as the GPU holds at once, at most
// n0 * n1 (Compiler.cpp, Runtime.cpp): each then takes virtual programs in
// launch order, so tile-group-programs' grouped order (run before) carries
// over. A program's next tile can overlap its current one where the
// pipeline keeps copying ahead across tiles (a warp-specialized producer,
// PipelineTma.cpp). Runs on tile IR before layouts; the interpreter never sees
// it. A kernel whose grid has three axes, or that is split-K, is an error.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPERSISTENT
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A grid extent as i32: an i64 one (the 64-bit size class) fits, since the
/// launcher checks the hardware's limits.
Value asI32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(32))
    return v;
  return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
}

struct TilePersistent : tile::impl::TilePersistentBase<TilePersistent> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (scheduleOption(kernel, tessera::kPersistentOption) == 0)
      return;
    if (scheduleOption(kernel, tessera::kSplitKOption) > 1) {
      kernel.emitError("persistent does not combine with split-k");
      return signalPassFailure();
    }
    Block &grid = kernel.getGrid().front();
    Operation *gridYield = grid.getTerminator();
    unsigned axes = gridYield->getNumOperands();
    if (axes == 0)
      return;
    if (axes > 2) {
      kernel.emitError("persistent needs a grid of at most two axes; this one has ") << axes;
      return signalPassFailure();
    }
    Block &body = kernel.getBody().front();
    SmallVector<Operation *> ids;
    body.walk([&](Operation *op) {
      if (isa<ProgramIdOp, NumProgramsOp>(op))
        ids.push_back(op);
    });
    Location loc = kernel.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Type i32 = b.getI32Type();
    // The virtual grid: the grid clause, on the body's arguments.
    IRMapping args;
    for (auto [g, a] : llvm::zip(grid.getArguments(), body.getArguments()))
      args.map(g, a);
    for (Operation &op : grid.without_terminator())
      b.clone(op, args);
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
    Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
    Value n[2] = {args.lookupOrDefault(gridYield->getOperand(0)),
                  axes > 1 ? args.lookupOrDefault(gridYield->getOperand(1)) : one};
    for (Value &v : n)
      v = asI32(b, loc, v);
    Value total = arith::MulIOp::create(b, loc, n[0], n[1]);
    Value first = ProgramIdOp::create(b, loc, i32, b.getI32IntegerAttr(0));
    Value stride = NumProgramsOp::create(b, loc, i32, b.getI32IntegerAttr(0));
    auto loop = scf::ForOp::create(b, loc, first, total, stride);
    loop->setAttr("tile.persistent_loop", b.getUnitAttr());
    // The body, in the loop.
    Block *inner = loop.getBody();
    Operation *ret = body.getTerminator();
    for (Operation *op = loop->getNextNode(); op && op != ret;) {
      Operation *next = op->getNextNode();
      op->moveBefore(inner->getTerminator());
      op = next;
    }
    b.setInsertionPointToStart(inner);
    Value t = loop.getInductionVar();
    // Per axis x, y, z: the virtual program's id, and the virtual extent.
    Value id[3] = {arith::RemUIOp::create(b, loc, t, n[0]), arith::DivUIOp::create(b, loc, t, n[0]),
                   zero};
    Value extent[3] = {n[0], n[1], one};
    for (Operation *op : ids) {
      if (auto pid = dyn_cast<ProgramIdOp>(op))
        pid.getResult().replaceAllUsesWith(id[pid.getAxis()]);
      else
        op->getResult(0).replaceAllUsesWith(extent[cast<NumProgramsOp>(op).getAxis()]);
      op->erase();
    }
    // The launch grid: one axis of every virtual program (the runtime launches
    // at most as many as fit on the GPU at once).
    OpBuilder g(gridYield);
    Value gridTotal = asI32(g, loc, gridYield->getOperand(0));
    if (axes > 1)
      gridTotal = arith::MulIOp::create(g, loc, gridTotal, asI32(g, loc, gridYield->getOperand(1)));
    gridYield->setOperands(gridTotal);
  }
};

} // namespace
