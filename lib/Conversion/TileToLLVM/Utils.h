//===- Utils.h - helpers shared by the tile-to-LLVM patterns ----*- C++ -*-===//
//
// A tile in a distributed layout becomes an LLVM struct with one field per element
// the thread holds (Distribute.h gives the order); these helpers pack and unpack
// such structs, read thread ids, emit predicated PTX memory accesses and warp
// shuffles, and reach the kernel's dynamic shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CONVERSION_TILETOLLVM_UTILS_H
#define TESSERA_CONVERSION_TILETOLLVM_UTILS_H

#include "lib/Conversion/TileToLLVM/Distribute.h"
#include "lib/Target/TargetInfo.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tessera::conversion {

/// The name of the kernel's dynamic shared memory (an extern, 16-byte aligned array).
constexpr const char *kSharedMemoryName = "tessera_smem";

/// Converts tiles to structs, global tensors to descriptors, and keeps scalars.
class TileTypeConverter : public mlir::LLVMTypeConverter {
public:
  /// `index64`: kernels of the 64-bit size class, whose extents are i64.
  TileTypeConverter(mlir::MLIRContext *ctx, bool index64);
  /// The descriptor of a rank-r global tensor: {ptr<1>, i32 (i64 with `index64`)
  /// x r extents, i64 x r-1 strides}.
  static mlir::LLVM::LLVMStructType descriptorType(mlir::MLIRContext *ctx, unsigned rank,
                                                   bool index64);
};

/// `v` (an integer) sign-extended to the integer type `t`, or `v` when it has it.
mlir::Value sextTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type t);

llvm::SmallVector<mlir::Value> unpack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value pack(mlir::OpBuilder &b, mlir::Location loc, mlir::Type structType,
                 llvm::ArrayRef<mlir::Value> elems);

mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// The zero of an integer or float element type (a load's default pad).
mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t);
mlir::Value i64Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// %tid.x, and the lane and warp ids derived from it.
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);
std::pair<mlir::Value, mlir::Value> laneAndWarp(mlir::OpBuilder &b, mlir::Location loc);

/// A butterfly shuffle of any 16-, 32- or 64-bit value across the warp.
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, unsigned mask);
/// The value of lane `lane - delta` (shfl.sync.up), any 16-, 32- or 64-bit
/// value; lanes below `delta` get their own.
mlir::Value shuffleUp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, unsigned delta);

/// Loads `count` elements of `eltType` at `addr` (global) when `pred` holds, else
/// yields `pad` (one value per element); one PTX instruction of up to 16 bytes.
llvm::SmallVector<mlir::Value> predicatedLoad(mlir::OpBuilder &b, mlir::Location loc,
                                              mlir::Value addr, mlir::Value pred,
                                              mlir::Type eltType, unsigned count,
                                              llvm::ArrayRef<mlir::Value> pad);
/// Stores `vals` (contiguous, up to 16 bytes) at `addr` when `pred` holds.
void predicatedStore(mlir::OpBuilder &b, mlir::Location loc, mlir::Value addr, mlir::Value pred,
                     llvm::ArrayRef<mlir::Value> vals);

/// The base of the dynamic shared memory (declared in the module on first use),
/// and a barrier of the block's compute warps: the whole block, or in a
/// warp-specialized kernel a named barrier of the compute warps.
mlir::Value sharedBase(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *anyOp);
void barrier(mlir::OpBuilder &b, mlir::Location loc);
/// `ptr` plus `offset` bytes (an i8 GEP in ptr's address space).
mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr, mlir::Value offset);

/// Threads per warp (TargetInfo's).
inline constexpr int64_t kWarpSize = target::TargetInfo::kWarpSize;

/// The compute warps of the kernel around `op` (its `tile.num_warps`), and
/// whether it has producer warps after them (`tile.producer_warps`).
int64_t computeWarps(mlir::Operation *op);
/// The threads of those compute warps (the first producer thread's id).
int64_t computeThreads(mlir::Operation *op);
bool warpSpecialized(mlir::Operation *op);

/// The named barriers of a warp-specialized kernel (the block's barrier 0 is
/// __syncthreads): one of all compute warps, then one per compute warpgroup
/// for the turns (tile.turn_wait).
inline constexpr int32_t kComputeBarrier = 1;
inline constexpr int32_t kFirstTurnBarrier = 2;

/// Scalar combinations used by reductions.
mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc, mlir::tile::ReduceKind kind,
                    mlir::Value x, mlir::Value y);

/// Two 16-bit floats packed into the b32 register mma.sync and wgmma expect.
/// When they are the two halves of one register already (an ldmatrix result),
/// that register is used as it is.
mlir::Value packPair(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, mlir::Value hi);

/// Inline PTX (AT&T dialect, no tail call); `resTy` null for none.
mlir::Value inlinePTX(mlir::OpBuilder &b, mlir::Location loc, mlir::Type resTy,
                      mlir::ValueRange operands, llvm::StringRef asmStr,
                      llvm::StringRef constraints, bool sideEffects);

/// The element storage type in registers and memory (bool is a byte in memory).
unsigned storageBytes(mlir::Type eltType);

} // namespace tessera::conversion

#endif
