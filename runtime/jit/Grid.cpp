//===- Grid.cpp - the grid clause, evaluated on the host --------*- C++ -*-===//
//
// The grid region holds tile.dim of the arguments, integer scalars (block
// arguments), constants and arith ops on them. Each op is folded by its own
// folder with its operands' values as constant attributes (tile.dim becomes
// the argument's extent), so the integer semantics are the arith dialect's:
// i32 values wrap as on the GPU, i64 ones (the 64-bit size class) keep their
// 64 bits, signed and unsigned ops differ as they do there. The ops are never
// changed: each is folded as an unlinked clone. A division by zero, which no
// folder evaluates, is reported as such; so is any op none evaluates.
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Grid.h"

#include "dialects/Tile/Knobs.h"
#include "lib/Support/Errors.h"
#include "lib/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"

using namespace tessera;
using namespace tessera::jit;
namespace tile = mlir::tile;

namespace {

/// Folds `op` with `operands` (an unlinked clone, so that a folder that
/// updates its op in place changes nothing of the kernel): its one constant
/// result, or null.
mlir::Attribute foldOne(mlir::Operation &op, llvm::ArrayRef<mlir::Attribute> operands,
                        const llvm::DenseMap<mlir::Value, mlir::Attribute> &known) {
  mlir::Operation *c = op.clone();
  llvm::SmallVector<mlir::OpFoldResult> results;
  mlir::Attribute out;
  if (mlir::succeeded(c->fold(operands, results)) && results.size() == 1) {
    if (auto a = llvm::dyn_cast<mlir::Attribute>(results[0]))
      out = a;
    else // folded to one of its operands
      out = known.lookup(llvm::cast<mlir::Value>(results[0]));
  }
  c->destroy();
  return llvm::dyn_cast_or_null<mlir::IntegerAttr>(out);
}

bool dividesByZero(mlir::Operation &op, llvm::ArrayRef<mlir::Attribute> operands) {
  if (!llvm::isa<mlir::arith::DivSIOp, mlir::arith::DivUIOp, mlir::arith::CeilDivSIOp,
                 mlir::arith::CeilDivUIOp, mlir::arith::FloorDivSIOp, mlir::arith::RemSIOp,
                 mlir::arith::RemUIOp>(op))
    return false;
  auto d = llvm::dyn_cast_or_null<mlir::IntegerAttr>(operands[1]);
  return d && d.getValue().isZero();
}

} // namespace

llvm::Expected<std::array<int64_t, 3>> tessera::jit::evaluateGrid(tile::KernelOp kernel,
                                                                  const KernelSignature &sig,
                                                                  const CompileRequest &req) {
  mlir::Region &region = kernel.getGrid();
  if (region.empty())
    return std::array<int64_t, 3>{1, 1, 1};
  mlir::Block &block = region.front();
  llvm::DenseMap<mlir::Value, mlir::Attribute> known;
  auto constant = [](mlir::Type t, int64_t v) -> mlir::Attribute {
    if (!t.isIntOrIndex())
      return {};
    return mlir::IntegerAttr::get(t, llvm::APInt(t.isIndex() ? 64 : t.getIntOrFloatBitWidth(),
                                                 (uint64_t)v, /*isSigned=*/true,
                                                 /*implicitTrunc=*/true));
  };
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    if (i >= sig.params.size())
      return makeError("internal error: grid region arguments differ from the signature");
    const ParamInfo &p = sig.params[i];
    if (auto it = req.dims.find(p.name); !p.isTensor && it != req.dims.end())
      if (mlir::Attribute a = constant(arg.getType(), it->second))
        known[arg] = a;
  }
  for (mlir::Operation &op : block) {
    llvm::SmallVector<mlir::Attribute> operands;
    for (mlir::Value v : op.getOperands())
      operands.push_back(known.lookup(v));
    if (auto y = llvm::dyn_cast<tile::YieldOp>(op)) {
      std::array<int64_t, 3> g = {1, 1, 1};
      for (unsigned i = 0; i < y->getNumOperands() && i < 3; ++i) {
        auto a = llvm::dyn_cast_or_null<mlir::IntegerAttr>(operands[i]);
        if (!a)
          return makeError("the grid clause uses a value the host cannot compute");
        g[i] = a.getValue().getSExtValue();
      }
      return g;
    }
    if (op.getNumResults() != 1)
      return makeError("the grid clause uses " + op.getName().getStringRef() +
                       ", which the host cannot evaluate");
    mlir::Type type = op.getResult(0).getType();
    if (auto d = llvm::dyn_cast<tile::DimOp>(op)) {
      auto arg = llvm::dyn_cast<mlir::BlockArgument>(d.getTensor());
      if (!arg || arg.getArgNumber() >= sig.params.size())
        return makeError("internal error: tile.dim of a non-argument in the grid clause");
      const ParamInfo &p = sig.params[arg.getArgNumber()];
      if (d.getAxis() >= p.dims.size())
        return makeError("internal error: grid reads axis " + llvm::Twine(d.getAxis()) + " of " +
                         p.name);
      std::optional<int64_t> e = extentOf(p, d.getAxis(), req.dims);
      if (!e)
        return makeError("the grid clause needs dim " + p.dims[d.getAxis()] +
                         ", which has no value");
      known[op.getResult(0)] = constant(type, *e);
      continue;
    }
    for (auto [v, a] : llvm::zip(op.getOperands(), operands)) {
      if (a)
        continue;
      // A scalar argument without a value (an i32 scalar such as varlen's
      // max_seqlen, which a launch passes and a compile alone must be given).
      if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
          arg && arg.getOwner() == &block && arg.getArgNumber() < sig.params.size())
        return makeError("the grid clause needs scalar '" + sig.params[arg.getArgNumber()].name +
                         "', which has no value");
      return makeError("the grid clause uses a value the host cannot compute (" +
                       op.getName().getStringRef() + ")");
    }
    if (dividesByZero(op, operands))
      return makeError("the grid clause divides by zero for these sizes");
    mlir::Attribute r = foldOne(op, operands, known);
    if (!r)
      return makeError("the grid clause uses " + op.getName().getStringRef() +
                       ", which the host cannot evaluate");
    known[op.getResult(0)] = r;
  }
  return makeError("internal error: the grid region has no tile.yield");
}

llvm::Error tessera::jit::checkGrid(const std::string &kernel, const std::array<int64_t, 3> &grid) {
  for (unsigned a = 0; a < 3; ++a) {
    int64_t limit = target::TargetInfo::kMaxGrid[a];
    if (grid[a] > limit)
      return makeError(
          "the grid clause of '" + kernel + "' gives " + llvm::Twine(grid[a]) +
          " programs along axis " + llvm::Twine(a) + " for these sizes; a launch takes at most " +
          llvm::Twine(limit) +
          (a ? " there (axis 0 takes up to 2147483647: put the largest extent first)" : ""));
  }
  return llvm::Error::success();
}

std::string tessera::jit::clusterObstacle(tile::KernelOp kernel,
                                          const std::array<int64_t, 3> &grid) {
  int64_t c = tile::scheduleOption(kernel, kClusterOption);
  if (c <= 1)
    return "";
  std::string option = std::string(kClusterOption) + "=" + std::to_string(c);
  if (tile::scheduleOption(kernel, kPersistentOption))
    return option + ": a persistent kernel launches no fixed multiple of its cluster size";
  if (grid[0] % c)
    return option + ": axis 0 of the grid has " + std::to_string(grid[0]) +
           (grid[0] == 1 ? " program" : " programs") + ", not a multiple of " + std::to_string(c);
  return "";
}
