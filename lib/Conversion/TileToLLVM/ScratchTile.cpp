//===- ScratchTile.cpp - a tile staged row-major in scratch -----*- C++ -*-===//
//
// See ScratchTile.h.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/ScratchTile.h"
#include "lib/Conversion/TileToLLVM/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tessera::conversion;

FailureOr<ScratchTile> ScratchTile::of(OpBuilder &b, Operation *op, Type work) {
  auto offset = op->getAttrOfType<IntegerAttr>("tile.scratch_offset");
  if (!offset)
    return op->emitError("'") << op->getName()
                              << "' without scratch: run tile-allocate-shared first";
  Location loc = op->getLoc();
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), sharedBase(b, loc, op),
                                   ValueRange{i32Const(b, loc, offset.getInt())});
  return ScratchTile(b, loc, base, work);
}

Value ScratchTile::at(Value idx) {
  IRArith a{b, loc};
  // One padding element after every kSharedBanks (SharedMemory.cpp's scratchBytes).
  constexpr unsigned banks = tessera::target::TargetInfo::kSharedBanks;
  static_assert((banks & (banks - 1)) == 0, "a power of two: the padding is a shift");
  Value padded = a.add(idx, a.lshr(idx, llvm::Log2_32(banks)));
  Value bytes = a.mul(padded, a.c(storageBytes(work)));
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), b.getI8Type(),
                             base, ValueRange{bytes});
}

Value ScratchTile::index(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
  IRArith a{b, loc};
  Value idx = a.c(0);
  int64_t stride = 1;
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    idx = a.add(idx, a.mul(coords[d], a.c(stride)));
    stride *= shape[d];
  }
  return idx;
}

Value ScratchTile::load(Value addr, Value pred) {
  auto read = [&]() -> Value {
    if (!work.isInteger(1))
      return LLVM::LoadOp::create(b, loc, work, addr);
    Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(), addr);
    return LLVM::TruncOp::create(b, loc, b.getI1Type(), byte);
  };
  if (!pred)
    return read();
  auto branch = scf::IfOp::create(b, loc, TypeRange{work}, pred, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  scf::YieldOp::create(b, loc, read());
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  scf::YieldOp::create(b, loc, zeroOf(b, loc, work));
  return branch.getResult(0);
}

void ScratchTile::store(Value v, Value addr, Value pred) {
  if (work.isInteger(1))
    v = LLVM::ZExtOp::create(b, loc, b.getI8Type(), v);
  if (!pred) {
    LLVM::StoreOp::create(b, loc, v, addr);
    return;
  }
  auto branch = scf::IfOp::create(b, loc, TypeRange{}, pred, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  LLVM::StoreOp::create(b, loc, v, addr);
}

FailureOr<std::vector<SmallVector<Value, 4>>> ScratchTile::coords(RankedTensorType type) {
  FailureOr<Distribution> dist = distribute(type);
  if (failed(dist))
    return failure();
  auto [lane, warp] = laneAndWarp(b, loc);
  return elementCoords(b, loc, *dist, threadBase(b, loc, *dist, lane, warp));
}

LogicalResult ScratchTile::storeOwned(ArrayRef<Value> elems, RankedTensorType type) {
  FailureOr<Distribution> dist = distribute(type);
  if (failed(dist))
    return failure();
  auto [lane, warp] = laneAndWarp(b, loc);
  SmallVector<Value, 4> threadBaseValues = threadBase(b, loc, *dist, lane, warp);
  std::vector<SmallVector<Value, 4>> cs = elementCoords(b, loc, *dist, threadBaseValues);
  for (size_t i = 0; i < elems.size(); ++i) {
    Value v = elems[i];
    if (v.getType() != work)
      v = LLVM::FPExtOp::create(b, loc, work, v); // 16-bit floats kept as f32
    store(v, at(index(cs[i], type.getShape())), ownsElement(b, loc, *dist, threadBaseValues, i));
  }
  return success();
}
