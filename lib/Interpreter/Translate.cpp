//===- Translate.cpp - tile IR to the interpreter's instructions -----------===//
//
// Walks a tile.kernel body once, giving every SSA value a slot and every op an
// Inst: element kinds and static shapes from the result types, attributes
// (axes, predicates, reduce kinds, print prefixes) decoded, constants turned
// into tiles. Global tensors may only be kernel arguments; they are referred
// to by argument index. Anything else the interpreter cannot run is reported
// here, before any program starts.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Program.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::interp;

namespace {

std::optional<EK> kindOf(Type t) {
  if (auto s = dyn_cast<ShapedType>(t))
    t = s.getElementType();
  if (t.isF32())
    return EK::F32;
  if (t.isF16())
    return EK::F16;
  if (t.isBF16())
    return EK::BF16;
  if (t.isF64())
    return EK::F64;
  if (isa<Float8E4M3FNType>(t))
    return EK::F8E4M3;
  if (isa<Float8E5M2Type>(t))
    return EK::F8E5M2;
  if (t.isInteger(1))
    return EK::I1;
  if (t.isInteger(8))
    return EK::I8;
  if (t.isInteger(32))
    return EK::I32;
  if (t.isInteger(64) || t.isIndex())
    return EK::I64;
  return std::nullopt;
}

const llvm::StringMap<Code> &opCodes() {
  static const llvm::StringMap<Code> m = {
      {"arith.addf", Code::AddF},
      {"arith.subf", Code::SubF},
      {"arith.mulf", Code::MulF},
      {"arith.divf", Code::DivF},
      {"arith.remf", Code::RemF},
      {"arith.maximumf", Code::MaximumF},
      {"arith.minimumf", Code::MinimumF},
      {"arith.maxnumf", Code::MaxNumF},
      {"arith.minnumf", Code::MinNumF},
      {"math.powf", Code::PowF},
      {"math.atan2", Code::Atan2},
      {"arith.addi", Code::AddI},
      {"arith.subi", Code::SubI},
      {"arith.muli", Code::MulI},
      {"arith.divsi", Code::DivSI},
      {"arith.divui", Code::DivUI},
      {"arith.remsi", Code::RemSI},
      {"arith.remui", Code::RemUI},
      {"arith.ceildivsi", Code::CeilDivSI},
      {"arith.floordivsi", Code::FloorDivSI},
      {"arith.maxsi", Code::MaxSI},
      {"arith.minsi", Code::MinSI},
      {"arith.maxui", Code::MaxUI},
      {"arith.minui", Code::MinUI},
      {"arith.andi", Code::AndI},
      {"arith.ori", Code::OrI},
      {"arith.xori", Code::XOrI},
      {"arith.shli", Code::ShLI},
      {"arith.shrsi", Code::ShRSI},
      {"arith.shrui", Code::ShRUI},
      {"arith.cmpf", Code::CmpF},
      {"arith.cmpi", Code::CmpI},
      {"arith.negf", Code::NegF},
      {"math.exp", Code::Exp},
      {"math.exp2", Code::Exp2},
      {"math.log", Code::Log},
      {"math.log2", Code::Log2},
      {"math.log1p", Code::Log1p},
      {"math.expm1", Code::Expm1},
      {"math.sqrt", Code::Sqrt},
      {"math.rsqrt", Code::Rsqrt},
      {"math.absf", Code::AbsF},
      {"math.tanh", Code::Tanh},
      {"math.sin", Code::Sin},
      {"math.cos", Code::Cos},
      {"math.erf", Code::Erf},
      {"math.floor", Code::Floor},
      {"math.ceil", Code::Ceil},
      {"math.round", Code::Round},
      {"math.roundeven", Code::RoundEven},
      {"math.trunc", Code::Trunc},
      {"math.absi", Code::AbsI},
      {"math.ctlz", Code::Ctlz},
      {"arith.select", Code::Select},
      {"math.fma", Code::Fma},
  };
  return m;
}

/// Casts: 0 signed or none, 1 unsigned, 2 bitwise truncation, 3 reinterpreted bits.
const llvm::StringMap<int> &castOps() {
  static const llvm::StringMap<int> m = {
      {"arith.extsi", 0},  {"arith.extui", 1},      {"arith.trunci", 2},  {"arith.sitofp", 0},
      {"arith.uitofp", 1}, {"arith.fptosi", 0},     {"arith.fptoui", 1},  {"arith.extf", 0},
      {"arith.truncf", 0}, {"arith.index_cast", 0}, {"arith.bitcast", 3},
  };
  return m;
}

class Translator {
public:
  Translator(tile::KernelOp kernel) : kernel_(kernel) {}

  FailureOr<Kernel> run() {
    Kernel k;
    Block &entry = kernel_.getBody().front();
    for (BlockArgument a : entry.getArguments()) {
      int s = slot(a);
      k.body.args.push_back(s);
      auto ek = kindOf(a.getType());
      k.argKinds.push_back(ek.value_or(EK::F32));
      if (isa<tile::GlobalTensorType>(a.getType()))
        args_[a] = a.getArgNumber();
    }
    if (failed(body(entry, k.body)))
      return failure();
    k.numSlots = next_;
    k.prints = prints_;
    return k;
  }

private:
  int slot(Value v) {
    auto [it, fresh] = slots_.try_emplace(v, next_);
    if (fresh)
      ++next_;
    return it->second;
  }

  LogicalResult body(Block &block, Body &out) {
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        for (Value v : op.getOperands())
          out.yields.push_back(slot(v));
        continue;
      }
      Inst inst;
      if (failed(translate(op, inst)))
        return failure();
      out.insts.push_back(std::move(inst));
    }
    return success();
  }

  LogicalResult region(Region &r, Inst &inst) {
    Body b;
    if (!r.empty()) {
      for (BlockArgument a : r.front().getArguments())
        b.args.push_back(slot(a));
      if (failed(body(r.front(), b)))
        return failure();
    }
    inst.bodies.push_back(std::move(b));
    return success();
  }

  FailureOr<int64_t> tensorArg(Operation *op, Value t) {
    auto it = args_.find(t);
    if (it == args_.end())
      return op->emitError("the interpreter needs global tensors to be kernel arguments");
    return it->second;
  }

  LogicalResult translate(Operation &op, Inst &inst) {
    inst.op = &op;
    for (Value v : op.getOperands())
      inst.in.push_back(slot(v));
    for (Value r : op.getResults()) {
      inst.out.push_back(slot(r));
      if (auto s = dyn_cast<RankedTensorType>(r.getType()))
        inst.shape.assign(s.getShape().begin(), s.getShape().end());
      if (auto ek = kindOf(r.getType()))
        inst.ek = *ek;
      else
        return op.emitError("the interpreter does not support values of type ") << r.getType();
    }
    if (op.getNumResults() > 1 && !isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op))
      return op.emitError("the interpreter does not support '")
             << op.getName() << "' (several results)";
    llvm::StringRef name = op.getName().getStringRef();
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      return constant(c, inst);
    if (auto it = opCodes().find(name); it != opCodes().end()) {
      inst.code = it->second;
      if (auto c = dyn_cast<arith::CmpFOp>(op))
        inst.a = (int64_t)c.getPredicate();
      if (auto c = dyn_cast<arith::CmpIOp>(op))
        inst.a = (int64_t)c.getPredicate();
      if (auto operandEK = kindOf(op.getOperand(0).getType()))
        inst.b = (int64_t)*operandEK; // the operands' kind (compares produce i1)
      return success();
    }
    if (auto it = castOps().find(name); it != castOps().end()) {
      inst.code = Code::Convert;
      inst.b = it->second;
      return success();
    }
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](tile::ProgramIdOp p) {
          inst.code = Code::ProgramId;
          inst.a = p.getAxis();
          return success();
        })
        .Case([&](tile::NumProgramsOp p) {
          inst.code = Code::NumPrograms;
          inst.a = p.getAxis();
          return success();
        })
        .Case([&](tile::DimOp d) -> LogicalResult {
          inst.code = Code::Dim;
          auto a = tensorArg(&op, d.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.b = d.getAxis();
          return success();
        })
        .Case([&](tile::ArangeOp) {
          inst.code = Code::Arange;
          return success();
        })
        .Case([&](tile::SplatOp) {
          inst.code = Code::Splat;
          return success();
        })
        .Case([&](tile::BroadcastOp) {
          inst.code = Code::Broadcast;
          return success();
        })
        .Case([&](tile::ExpandDimsOp e) {
          inst.code = Code::ExpandDims;
          inst.a = e.getAxis();
          return success();
        })
        .Case([&](tile::ReshapeOp) {
          inst.code = Code::Reshape;
          return success();
        })
        .Case([&](tile::PermuteOp p) {
          inst.code = Code::Permute;
          inst.dims.assign(p.getDims().begin(), p.getDims().end());
          return success();
        })
        .Case([&](tile::TransposeOp) {
          inst.code = Code::Transpose;
          return success();
        })
        .Case([&](tile::ConvertOp) {
          inst.code = Code::Convert;
          return success();
        })
        .Case([&](tile::ConvertLayoutOp) {
          inst.code = Code::Broadcast;
          return success();
        }) // same shape: a copy
        .Case([&](tile::LoadOp l) -> LogicalResult {
          inst.code = Code::Load;
          if (auto e = l.getExtents())
            inst.extents.assign(e->begin(), e->end());
          auto a = tensorArg(&op, l.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.b = l.getPad() ? 1 : 0;
          inst.in.erase(inst.in.begin()); // the tensor: by argument index
          return success();
        })
        .Case([&](tile::StoreOp s) -> LogicalResult {
          inst.code = Code::Store;
          if (auto e = s.getExtents())
            inst.extents.assign(e->begin(), e->end());
          auto a = tensorArg(&op, s.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.in.erase(inst.in.begin());
          inst.ek = *kindOf(s.getValue().getType());
          return success();
        })
        .Case([&](tile::GatherOp g) -> LogicalResult {
          inst.code = Code::Gather;
          auto a = tensorArg(&op, g.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.b = (g.getMask() ? 1 : 0) | (g.getPad() ? 2 : 0);
          inst.in.erase(inst.in.begin());
          return success();
        })
        .Case([&](tile::ScatterOp s) -> LogicalResult {
          inst.code = Code::Scatter;
          auto a = tensorArg(&op, s.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.b = s.getMask() ? 1 : 0;
          inst.in.erase(inst.in.begin());
          inst.ek = *kindOf(s.getValue().getType());
          return success();
        })
        .Case([&](tile::AtomicRMWOp at) -> LogicalResult {
          inst.code = Code::AtomicRMW;
          auto a = tensorArg(&op, at.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.b = (int64_t)at.getKind() * 2 + (at.getMask() ? 1 : 0);
          inst.in.erase(inst.in.begin());
          return success();
        })
        .Case([&](tile::AtomicCASOp at) -> LogicalResult {
          inst.code = Code::AtomicCAS;
          auto a = tensorArg(&op, at.getTensor());
          if (failed(a))
            return failure();
          inst.a = *a;
          inst.b = at.getMask() ? 1 : 0;
          inst.in.erase(inst.in.begin());
          return success();
        })
        .Case([&](tile::MultipleOfOp m) {
          inst.code = Code::MultipleOf;
          inst.a = m.getDivisor();
          return success();
        })
        .Case([&](tile::DotOp) {
          inst.code = Code::Dot;
          return success();
        })
        .Case([&](tile::ReduceOp r) {
          inst.code = Code::Reduce;
          inst.a = r.getAxis();
          inst.b = (int64_t)r.getKind();
          return success();
        })
        .Case([&](tile::ScanOp r) {
          inst.code = Code::Scan;
          inst.a = r.getAxis();
          inst.b = (int64_t)r.getKind();
          return success();
        })
        .Case([&](tile::AssociativeScanOp s) -> LogicalResult {
          inst.code = Code::ScanWith;
          inst.a = s.getAxis();
          return region(s.getCombiner(), inst);
        })
        .Case([&](tile::AssertOp a) {
          inst.code = Code::Assert;
          inst.text = "assertion failed in kernel '" + kernel_.getSymName().str() +
                      "': " + a.getMessage().str();
          return success();
        })
        .Case([&](tile::PrintOp p) {
          inst.code = Code::Print;
          inst.text = p.getPrefix().str();
          prints_ = true;
          return success();
        })
        .Case([&](scf::ForOp f) -> LogicalResult {
          inst.code = Code::For;
          return region(f.getRegion(), inst);
        })
        .Case([&](scf::IfOp i) -> LogicalResult {
          inst.code = Code::If;
          if (failed(region(i.getThenRegion(), inst)))
            return failure();
          return region(i.getElseRegion(), inst);
        })
        .Case([&](scf::WhileOp w) -> LogicalResult {
          inst.code = Code::While;
          if (failed(region(w.getBefore(), inst)))
            return failure();
          return region(w.getAfter(), inst);
        })
        .Default([&](Operation *) {
          return op.emitError("the interpreter does not support '") << op.getName() << "'";
        });
  }

  LogicalResult constant(arith::ConstantOp c, Inst &inst) {
    inst.code = Code::Const;
    auto t = std::make_shared<Tile>(inst.ek, inst.shape);
    Attribute v = c.getValue();
    auto setFrom = [&](int64_t idx, Attribute e) {
      if (auto f = dyn_cast<FloatAttr>(e))
        t->f[idx] = roundF(inst.ek, f.getValueAsDouble());
      else if (auto i = dyn_cast<IntegerAttr>(e))
        t->i[idx] = inst.ek == EK::I1 ? (int64_t)(i.getValue().getZExtValue() & 1)
                                      : wrapI(inst.ek, i.getValue().getSExtValue());
      else if (auto b = dyn_cast<BoolAttr>(e))
        t->i[idx] = b.getValue();
    };
    if (auto d = dyn_cast<DenseElementsAttr>(v)) {
      if (d.isSplat()) {
        Attribute e = d.getSplatValue<Attribute>();
        for (int64_t k = 0; k < t->size(); ++k)
          setFrom(k, e);
      } else {
        int64_t k = 0;
        for (Attribute e : d.getValues<Attribute>())
          setFrom(k++, e);
      }
    } else if (isa<FloatAttr, IntegerAttr, BoolAttr>(v)) {
      setFrom(0, v);
    } else {
      return c.emitError("the interpreter does not support this constant");
    }
    inst.cst = std::move(t);
    return success();
  }

  tile::KernelOp kernel_;
  llvm::DenseMap<Value, int> slots_;
  llvm::DenseMap<Value, int64_t> args_;
  int next_ = 0;
  bool prints_ = false;
};

} // namespace

FailureOr<Kernel> tessera::interp::translate(tile::KernelOp kernel, llvm::ArrayRef<Arg> args) {
  auto types = kernel.getArgumentTypes();
  if (args.size() != types.size())
    return kernel.emitError("the kernel takes ")
           << types.size() << " arguments, the interpreter got " << args.size();
  for (auto [i, t] : llvm::enumerate(types)) {
    bool tensor = isa<tile::GlobalTensorType>(t);
    if (tensor != args[i].isTensor)
      return kernel.emitError("argument ")
             << i << (tensor ? " must be a tensor" : " must be a scalar");
    if (tensor) {
      auto g = cast<tile::GlobalTensorType>(t);
      // An f8 tensor holds i8 bits after tile-legalize-float8.
      Type want = toMLIRType(args[i].dtype, kernel.getContext());
      bool bits = isF8(args[i].dtype) && g.getElementType().isInteger(8);
      if ((size_t)g.getShape().size() != args[i].shape.size() ||
          (g.getElementType() != want && !bits))
        return kernel.emitError("argument ") << i << " has the wrong element type or rank";
    }
  }
  return Translator(kernel).run();
}
