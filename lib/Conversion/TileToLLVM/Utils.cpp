//===- Utils.cpp - helpers shared by the tile-to-LLVM patterns --*- C++ -*-===//
//
// Memory accesses are emitted as inline PTX so that a masked-off access is never
// performed (no fault on an out-of-range address) and the padding value is set in
// the same instruction group: `@p ld.global.v4.b32 {...}, [addr]` after a `mov`
// of the pad, `@p st.global.v4.b32 [addr], {...}`.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TileToLLVM/Utils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessera::conversion;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx, bool index64) : LLVMTypeConverter(ctx) {
  addConversion([this](RankedTensorType t) -> std::optional<Type> {
    FailureOr<size_t> n = elemsPerThread(t);
    if (failed(n))
      return std::nullopt;
    Type elt = convertType(t.getElementType());
    SmallVector<Type> fields(*n, elt);
    return LLVM::LLVMStructType::getLiteral(t.getContext(), fields);
  });
  addConversion([index64](tile::GlobalTensorType t) -> Type {
    return descriptorType(t.getContext(), t.getRank(), index64);
  });
  addConversion(
      [](tile::MemDescType t) -> Type { return LLVM::LLVMPointerType::get(t.getContext(), 3); });
  addConversion(
      [](tile::MBarrierType t) -> Type { return LLVM::LLVMPointerType::get(t.getContext(), 3); });
}

LLVM::LLVMStructType TileTypeConverter::descriptorType(MLIRContext *ctx, unsigned rank,
                                                       bool index64) {
  SmallVector<Type> fields = {LLVM::LLVMPointerType::get(ctx, 1)};
  fields.append(rank, IntegerType::get(ctx, index64 ? 64 : 32));
  fields.append(rank - 1, IntegerType::get(ctx, 64));
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

Value tessera::conversion::inlinePTX(OpBuilder &b, Location loc, Type resTy, ValueRange operands,
                                     StringRef asmStr, StringRef constraints, bool sideEffects) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resTy ? TypeRange{resTy} : TypeRange{}, operands, b.getStringAttr(asmStr),
      b.getStringAttr(constraints), sideEffects ? b.getUnitAttr() : nullptr, nullptr,
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), nullptr);
  return resTy ? op.getResult(0) : Value();
}

SmallVector<Value> tessera::conversion::unpack(OpBuilder &b, Location loc, Value v) {
  auto st = cast<LLVM::LLVMStructType>(v.getType());
  SmallVector<Value> out;
  for (unsigned i = 0; i < st.getBody().size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, v, i));
  return out;
}

Value tessera::conversion::pack(OpBuilder &b, Location loc, Type structType,
                                ArrayRef<Value> elems) {
  Value s = LLVM::UndefOp::create(b, loc, structType);
  for (auto [i, e] : llvm::enumerate(elems))
    s = LLVM::InsertValueOp::create(b, loc, s, e, i);
  return s;
}

Value tessera::conversion::zeroOf(OpBuilder &b, Location loc, Type t) {
  if (isa<FloatType>(t))
    return LLVM::ConstantOp::create(b, loc, t, b.getFloatAttr(t, 0.0));
  return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0));
}

Value tessera::conversion::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}
Value tessera::conversion::sextTo(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  return LLVM::SExtOp::create(b, loc, t, v);
}

Value tessera::conversion::i64Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), v);
}

Value tessera::conversion::threadId(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

std::pair<Value, Value> tessera::conversion::laneAndWarp(OpBuilder &b, Location loc) {
  Value tid = threadId(b, loc);
  Value lane = LLVM::URemOp::create(b, loc, tid, i32Const(b, loc, kWarpSize));
  Value warp = LLVM::UDivOp::create(b, loc, tid, i32Const(b, loc, kWarpSize));
  return {lane, warp};
}

unsigned tessera::conversion::storageBytes(Type t) {
  return t.isInteger(1) ? 1 : t.getIntOrFloatBitWidth() / 8;
}

namespace {
/// An element as the integer PTX moves: floats bitcast, bool widened to a byte.
Value toBits(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (t.isInteger(1))
    return LLVM::ZExtOp::create(b, loc, b.getI8Type(), v);
  if (isa<FloatType>(t))
    return LLVM::BitcastOp::create(b, loc, b.getIntegerType(t.getIntOrFloatBitWidth()), v);
  return v;
}
Value fromBits(OpBuilder &b, Location loc, Value bits, Type t) {
  if (t.isInteger(1))
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bits,
                                LLVM::ConstantOp::create(b, loc, bits.getType(), 0));
  if (isa<FloatType>(t))
    return LLVM::BitcastOp::create(b, loc, t, bits);
  return bits;
}

/// Packs elements into PTX words (b8/b16/b32/b64) and back.
struct WordPlan {
  unsigned wordBits, words;
  char constraint;
};
WordPlan planWords(unsigned bytes) {
  if (bytes % 4 == 0)
    return {32, bytes / 4, 'r'};
  if (bytes == 2)
    return {16, 1, 'h'};
  return {16, 1, 'h'}; // a single byte travels in a 16-bit register
}

SmallVector<Value> toWords(OpBuilder &b, Location loc, ArrayRef<Value> elems, WordPlan plan) {
  SmallVector<Value> bits;
  for (Value e : elems)
    bits.push_back(toBits(b, loc, e));
  unsigned eltBits = bits[0].getType().getIntOrFloatBitWidth();
  Type wordTy = b.getIntegerType(plan.wordBits);
  if (eltBits * elems.size() < plan.wordBits) // one byte in a 16-bit register
    return {LLVM::ZExtOp::create(b, loc, wordTy, bits[0])};
  if (eltBits == plan.wordBits)
    return bits;
  auto vecTy = VectorType::get({(int64_t)bits.size()}, bits[0].getType());
  Value vec = LLVM::UndefOp::create(b, loc, vecTy);
  for (auto [i, e] : llvm::enumerate(bits))
    vec = LLVM::InsertElementOp::create(b, loc, vec, e, i32Const(b, loc, i));
  auto wordsTy = VectorType::get({(int64_t)plan.words}, wordTy);
  Value w = LLVM::BitcastOp::create(b, loc, wordsTy, vec);
  SmallVector<Value> out;
  for (unsigned i = 0; i < plan.words; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, loc, w, i32Const(b, loc, i)));
  return out;
}

SmallVector<Value> fromWords(OpBuilder &b, Location loc, ArrayRef<Value> words, Type eltType,
                             unsigned count, WordPlan plan) {
  unsigned eltBits = eltType.isInteger(1) ? 8 : eltType.getIntOrFloatBitWidth();
  Type bitsTy = b.getIntegerType(eltBits);
  if (eltBits * count < plan.wordBits)
    return {fromBits(b, loc, LLVM::TruncOp::create(b, loc, bitsTy, words[0]), eltType)};
  SmallVector<Value> bits;
  if (eltBits == plan.wordBits) {
    bits.assign(words.begin(), words.end());
  } else {
    auto wordsTy = VectorType::get({(int64_t)words.size()}, b.getIntegerType(plan.wordBits));
    Value w = LLVM::UndefOp::create(b, loc, wordsTy);
    for (auto [i, x] : llvm::enumerate(words))
      w = LLVM::InsertElementOp::create(b, loc, w, x, i32Const(b, loc, i));
    Value vec = LLVM::BitcastOp::create(b, loc, VectorType::get({(int64_t)count}, bitsTy), w);
    for (unsigned i = 0; i < count; ++i)
      bits.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32Const(b, loc, i)));
  }
  SmallVector<Value> out;
  for (Value x : bits)
    out.push_back(fromBits(b, loc, x, eltType));
  return out;
}

std::string vecSuffix(unsigned words) { return words == 1 ? "" : ".v" + std::to_string(words); }
} // namespace

SmallVector<Value> tessera::conversion::predicatedLoad(OpBuilder &b, Location loc, Value addr,
                                                       Value pred, Type eltType, unsigned count,
                                                       ArrayRef<Value> pad) {
  unsigned bytes = storageBytes(eltType) * count;
  WordPlan plan = planWords(bytes);
  SmallVector<Value> padWords = toWords(b, loc, pad, plan);
  unsigned n = plan.words;
  std::string asmStr = "{\n .reg .pred p;\n setp.ne.b32 p, $" + std::to_string(n + 1) + ", 0;\n";
  std::string regs;
  for (unsigned i = 0; i < n; ++i) {
    asmStr += llvm::formatv(" mov.b{0} ${1}, ${2};\n", plan.wordBits, i, n + 2 + i).str();
    regs += (i ? ", $" : "$") + std::to_string(i);
  }
  std::string width = bytes == 1 ? ".u8" : ".b" + std::to_string(plan.wordBits);
  asmStr += " @p ld.global" + vecSuffix(n) + width + " " + (n == 1 ? regs : "{" + regs + "}") +
            ", [$" + std::to_string(n) + "];\n}";
  std::string cons;
  for (unsigned i = 0; i < n; ++i)
    cons += std::string("=") + plan.constraint + ",";
  cons += "l,r";
  for (unsigned i = 0; i < n; ++i)
    cons += std::string(",") + plan.constraint;
  SmallVector<Value> operands = {addr, LLVM::ZExtOp::create(b, loc, b.getI32Type(), pred)};
  operands.append(padWords.begin(), padWords.end());
  Type wordTy = b.getIntegerType(plan.wordBits);
  Type resTy =
      n == 1 ? wordTy
             : (Type)LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(n, wordTy));
  Value res = inlinePTX(b, loc, resTy, operands, asmStr, cons, /*sideEffects=*/true);
  SmallVector<Value> words;
  if (n == 1)
    words.push_back(res);
  else
    words = unpack(b, loc, res);
  return fromWords(b, loc, words, eltType, count, plan);
}

void tessera::conversion::predicatedStore(OpBuilder &b, Location loc, Value addr, Value pred,
                                          ArrayRef<Value> vals) {
  unsigned bytes = storageBytes(vals[0].getType()) * vals.size();
  WordPlan plan = planWords(bytes);
  SmallVector<Value> words = toWords(b, loc, vals, plan);
  unsigned n = plan.words;
  std::string regs;
  for (unsigned i = 0; i < n; ++i)
    regs += (i ? ", $" : "$") + std::to_string(i + 2);
  std::string width = bytes == 1 ? ".u8" : ".b" + std::to_string(plan.wordBits);
  std::string asmStr = "{\n .reg .pred p;\n setp.ne.b32 p, $0, 0;\n @p st.global" + vecSuffix(n) +
                       width + " [$1], " + (n == 1 ? regs : "{" + regs + "}") + ";\n}";
  std::string cons = "r,l";
  for (unsigned i = 0; i < n; ++i)
    cons += std::string(",") + plan.constraint;
  SmallVector<Value> operands = {LLVM::ZExtOp::create(b, loc, b.getI32Type(), pred), addr};
  operands.append(words.begin(), words.end());
  inlinePTX(b, loc, Type(), operands, asmStr, cons, /*sideEffects=*/true);
}

namespace {
/// shfl.sync of any 16-, 32- or 64-bit value across the whole warp.
Value shuffle(OpBuilder &b, Location loc, Value v, NVVM::ShflKind kind, unsigned amount,
              unsigned clamp) {
  Type t = v.getType();
  Type i32 = b.getI32Type();
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), i32Const(b, loc, -1), x,
                                i32Const(b, loc, amount), i32Const(b, loc, clamp),
                                NVVM::ShflKindAttr::get(b.getContext(), kind), nullptr);
  };
  if (t.isF32() || t.isInteger(32))
    return shfl(v);
  if (t.getIntOrFloatBitWidth() == 64) {
    Value bits = isa<FloatType>(t) ? (Value)LLVM::BitcastOp::create(b, loc, b.getI64Type(), v) : v;
    Value lo = LLVM::TruncOp::create(b, loc, i32, bits);
    Value hi = LLVM::TruncOp::create(b, loc, i32,
                                     LLVM::LShrOp::create(b, loc, bits, i64Const(b, loc, 32)));
    Value l2 = LLVM::ZExtOp::create(b, loc, b.getI64Type(), shfl(lo));
    Value h2 = LLVM::ShlOp::create(b, loc, LLVM::ZExtOp::create(b, loc, b.getI64Type(), shfl(hi)),
                                   i64Const(b, loc, 32));
    Value r = LLVM::OrOp::create(b, loc, l2, h2);
    return isa<FloatType>(t) ? (Value)LLVM::BitcastOp::create(b, loc, t, r) : r;
  }
  // 16-bit and bool values travel in the low bits of an i32.
  unsigned w = t.getIntOrFloatBitWidth();
  Type bitsTy = b.getIntegerType(w);
  Value bits = isa<FloatType>(t) ? (Value)LLVM::BitcastOp::create(b, loc, bitsTy, v) : v;
  Value r = LLVM::TruncOp::create(b, loc, bitsTy, shfl(LLVM::ZExtOp::create(b, loc, i32, bits)));
  return isa<FloatType>(t) ? (Value)LLVM::BitcastOp::create(b, loc, t, r) : r;
}
} // namespace

Value tessera::conversion::shuffleXor(OpBuilder &b, Location loc, Value v, unsigned mask) {
  return shuffle(b, loc, v, NVVM::ShflKind::bfly, mask, 0x1f);
}

Value tessera::conversion::shuffleUp(OpBuilder &b, Location loc, Value v, unsigned delta) {
  // A clamp of 0: lanes below `delta` get their own value back.
  return shuffle(b, loc, v, NVVM::ShflKind::up, delta, 0);
}

Value tessera::conversion::sharedBase(OpBuilder &b, Location loc, Operation *anyOp) {
  auto module = anyOp->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedMemoryName);
  if (!global) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    global = LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                                    /*isConstant=*/false, LLVM::Linkage::External,
                                    kSharedMemoryName, Attribute(), /*alignment=*/1024,
                                    /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

namespace {
LLVM::LLVMFuncOp enclosingFunction(Operation *op) {
  if (!op)
    return {};
  if (auto fn = dyn_cast<LLVM::LLVMFuncOp>(op))
    return fn;
  return op->getParentOfType<LLVM::LLVMFuncOp>();
}
} // namespace

int64_t tessera::conversion::computeWarps(Operation *op) {
  auto fn = enclosingFunction(op);
  auto w = fn ? fn->getAttrOfType<IntegerAttr>("tile.num_warps") : IntegerAttr();
  return w ? w.getInt() : 4;
}

int64_t tessera::conversion::computeThreads(Operation *op) { return kWarpSize * computeWarps(op); }

bool tessera::conversion::warpSpecialized(Operation *op) {
  auto fn = enclosingFunction(op);
  return fn && fn->hasAttr("tile.producer_warps");
}

void tessera::conversion::barrier(OpBuilder &b, Location loc) {
  // In a warp-specialized kernel only the compute warps synchronise: named
  // barrier kComputeBarrier over their threads (the producer warps never
  // reach it).
  Operation *at = b.getInsertionBlock() ? b.getInsertionBlock()->getParentOp() : nullptr;
  if (at && warpSpecialized(at)) {
    NVVM::BarrierOp::create(b, loc, Type(), i32Const(b, loc, kComputeBarrier),
                            i32Const(b, loc, computeThreads(at)), NVVM::BarrierReductionAttr(),
                            Value());
    return;
  }
  NVVM::Barrier0Op::create(b, loc);
}

Value tessera::conversion::byteOffset(OpBuilder &b, Location loc, Value ptr, Value offset) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(), ptr, ValueRange{offset});
}

Value tessera::conversion::combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
                                   Value y) {
  bool f = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::sum:
    return f ? (Value)LLVM::FAddOp::create(b, loc, x, y) : LLVM::AddOp::create(b, loc, x, y);
  case tile::ReduceKind::max:
    return f ? (Value)LLVM::MaximumOp::create(b, loc, x, y) : LLVM::SMaxOp::create(b, loc, x, y);
  case tile::ReduceKind::min:
    return f ? (Value)LLVM::MinimumOp::create(b, loc, x, y) : LLVM::SMinOp::create(b, loc, x, y);
  }
  return x;
}

/// The value inserted at `v`'s position when `v` extracts a field of a struct
/// built by insertvalue (how tiles travel between lowered ops); else `v`.
static Value lookThrough(Value v) {
  auto extract = v.getDefiningOp<LLVM::ExtractValueOp>();
  if (!extract)
    return v;
  Value container = extract.getContainer();
  while (auto insert = container.getDefiningOp<LLVM::InsertValueOp>()) {
    if (insert.getPosition() == extract.getPosition())
      return insert.getValue();
    container = insert.getContainer();
  }
  return v;
}

Value tessera::conversion::packPair(OpBuilder &b, Location loc, Value lo, Value hi) {
  auto x = lookThrough(lo).getDefiningOp<LLVM::ExtractElementOp>();
  auto y = lookThrough(hi).getDefiningOp<LLVM::ExtractElementOp>();
  auto constIndex = [](LLVM::ExtractElementOp e) -> std::optional<int64_t> {
    auto c = e.getPosition().getDefiningOp<LLVM::ConstantOp>();
    auto attr = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
    return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
  };
  if (x && y && x.getVector() == y.getVector() && constIndex(x) == 0 && constIndex(y) == 1 &&
      cast<VectorType>(x.getVector().getType()).getNumElements() == 2) {
    Value vec = x.getVector();
    if (auto cast = vec.getDefiningOp<LLVM::BitcastOp>();
        cast && cast.getArg().getType().isInteger(32))
      return cast.getArg();
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec);
  }
  auto vecTy = VectorType::get({2}, lo.getType());
  Value v = LLVM::UndefOp::create(b, loc, vecTy);
  v = LLVM::InsertElementOp::create(b, loc, v, lo, i32Const(b, loc, 0));
  v = LLVM::InsertElementOp::create(b, loc, v, hi, i32Const(b, loc, 1));
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}
