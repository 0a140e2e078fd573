//===- Compiler.cpp - compiling a kernel specialization to PTX --*- C++ -*-===//
#include "runtime/jit/Compiler.h"
#include "lib/Support/Errors.h"

#include "runtime/jit/DiskCache.h"

#include "BuildId.h" // TESSERA_BUILD_ID, generated

#include "dialects/Tile/Knobs.h"
#include "dialects/Tile/TileDialect.h"
#include "lib/Frontend/Parser.h"
#include "lib/IRGen/IRGen.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cuda.h>
#include <set>

using namespace tessera;
using namespace tessera::jit;
namespace tile = mlir::tile;

namespace {

std::string rendered(const DiagnosticEngine &diags) {
  std::string s;
  llvm::raw_string_ostream os(s);
  diags.render(os);
  while (!s.empty() && s.back() == '\n')
    s.pop_back();
  return s;
}
} // namespace

std::optional<int64_t> tessera::jit::extentOf(const ParamInfo &p, size_t axis,
                                              const std::map<std::string, int64_t> &dims) {
  if (axis >= p.dims.size())
    return std::nullopt;
  if (p.dims[axis].empty())
    return p.literal[axis];
  auto it = dims.find(p.dims[axis]);
  return it == dims.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

std::string tessera::jit::compilerVersion() {
  return std::string("tessera ") + TESSERA_VERSION + "; llvm " LLVM_VERSION_STRING "; cuda " +
         std::to_string(CUDA_VERSION);
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

llvm::Expected<std::shared_ptr<Program>> Program::fromFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return llvm::createStringError(buf.getError(),
                                   "cannot read " + path + ": " + buf.getError().message());
  return fromSource(path, (*buf)->getBuffer());
}

namespace {

/// Adds to `out` the tensor parameters `e` writes: the first argument of
/// store() and of the atomics, in block form (a name) or element form (a
/// subscripted name).
void collectWritten(const Expr &e, std::set<std::string> &out) {
  if (e.kind == ExprKind::Call && !e.args.empty() &&
      (e.name == "store" || llvm::StringRef(e.name).starts_with("atomic_"))) {
    const Expr *t = e.args[0].get();
    if (t && t->kind == ExprKind::Index && !t->args.empty())
      t = t->args[0].get();
    if (t && t->kind == ExprKind::Name)
      out.insert(t->name);
  }
  for (const ExprPtr &a : e.args)
    if (a)
      collectWritten(*a, out);
  for (const KwArg &k : e.kwargs)
    if (k.value)
      collectWritten(*k.value, out);
  for (const IndexItem &i : e.index)
    if (i.expr)
      collectWritten(*i.expr, out);
}

void collectWritten(const std::vector<StmtPtr> &body, std::set<std::string> &out) {
  for (const StmtPtr &s : body) {
    if (!s)
      continue;
    for (const ExprPtr *e : {&s->value, &s->lo, &s->hi, &s->step, &s->cond})
      if (*e)
        collectWritten(**e, out);
    collectWritten(s->body, out);
    collectWritten(s->elseBody, out);
  }
}

} // namespace

llvm::Expected<std::shared_ptr<Program>> Program::fromSource(llvm::StringRef name,
                                                             llvm::StringRef text) {
  auto p = std::shared_ptr<Program>(new Program());
  static std::atomic<uint64_t> nextId{1};
  p->id_ = nextId++;
  p->file_ = std::make_unique<SourceFile>(name.str(), text.str());
  DiagnosticEngine diags(*p->file_);
  std::unique_ptr<Module> ast = parseFile(*p->file_, diags);
  if (!ast || diags.hasErrors())
    return makeError(rendered(diags));
  for (const auto &k : ast->kernels) {
    KernelSignature sig;
    sig.name = k->name;
    std::set<std::string> written;
    collectWritten(k->body, written);
    for (const Param &param : k->params) {
      ParamInfo info;
      info.name = param.name;
      info.isTensor = param.isTensor;
      info.written = param.isTensor && written.count(param.name);
      info.dtype = param.dtype;
      for (const DimSpec &d : param.dims) {
        info.dims.push_back(d.isName ? d.name : "");
        info.literal.push_back(d.isName ? 0 : d.value);
      }
      sig.params.push_back(std::move(info));
    }
    for (const TuneDecl &t : k->tunes) {
      TuneInfo ti{t.name, {}};
      for (auto &[v, loc] : t.values)
        ti.values.push_back(v);
      sig.tunes.push_back(std::move(ti));
    }
    p->kernels_.push_back(std::move(sig));
  }
  return p;
}

llvm::Expected<const KernelSignature &> Program::kernel(llvm::StringRef name) const {
  if (name.empty()) {
    if (kernels_.size() == 1)
      return kernels_.front();
    std::string names;
    for (const auto &k : kernels_)
      names += (names.empty() ? "" : ", ") + k.name;
    return makeError(file().name() + " holds " + llvm::Twine(kernels_.size()) + " kernels (" +
                     names + "): pick one with --kernel");
  }
  for (const auto &k : kernels_)
    if (k.name == name)
      return k;
  return makeError(file().name() + " has no kernel named '" + name + "'");
}

//===----------------------------------------------------------------------===//
// The grid clause, evaluated on the host
//===----------------------------------------------------------------------===//

namespace {

/// Integer values of the grid region: tile.dim of the arguments, integer
/// scalars, constants and arith on them, with i32 wrap-around (i64 values, in
/// the 64-bit size class, keep their 64 bits).
llvm::Expected<std::array<int64_t, 3>>
evaluateGrid(tile::KernelOp kernel, const KernelSignature &sig, const CompileRequest &req) {
  mlir::Region &region = kernel.getGrid();
  if (region.empty())
    return std::array<int64_t, 3>{1, 1, 1};
  mlir::Block &block = region.front();
  llvm::DenseMap<mlir::Value, int64_t> v;
  auto dimOf = [&](unsigned arg, unsigned axis) -> llvm::Expected<int64_t> {
    const ParamInfo &p = sig.params[arg];
    if (axis >= p.dims.size())
      return makeError("internal error: grid reads axis " + llvm::Twine(axis) + " of " + p.name);
    if (std::optional<int64_t> e = extentOf(p, axis, req.dims))
      return *e;
    return makeError("internal error: no value for dim " + p.dims[axis]);
  };
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    if (i >= sig.params.size())
      return makeError("internal error: grid region arguments differ from the signature");
    const ParamInfo &p = sig.params[i];
    if (p.isTensor)
      continue;
    if (auto it = req.dims.find(p.name); it != req.dims.end())
      v[arg] = it->second;
  }
  auto wrap = [](int64_t x) { return (int64_t)(int32_t)(uint32_t)(uint64_t)x; };
  for (mlir::Operation &op : block) {
    auto get = [&](unsigned i) -> llvm::Expected<int64_t> {
      auto it = v.find(op.getOperand(i));
      if (it == v.end())
        return makeError("the grid clause uses a value the host cannot compute (" +
                         op.getName().getStringRef() + ")");
      return it->second;
    };
    if (auto y = llvm::dyn_cast<tile::YieldOp>(op)) {
      std::array<int64_t, 3> g = {1, 1, 1};
      for (unsigned i = 0; i < y->getNumOperands() && i < 3; ++i) {
        auto x = get(i);
        if (!x)
          return x.takeError();
        g[i] = *x;
      }
      return g;
    }
    if (op.getNumResults() != 1)
      return makeError("the grid clause uses " + op.getName().getStringRef() +
                       ", which the host cannot evaluate");
    int64_t r;
    if (auto d = llvm::dyn_cast<tile::DimOp>(op)) {
      auto arg = llvm::dyn_cast<mlir::BlockArgument>(d.getTensor());
      if (!arg)
        return makeError("internal error: tile.dim of a non-argument in the grid clause");
      auto x = dimOf(arg.getArgNumber(), d.getAxis());
      if (!x)
        return x.takeError();
      r = *x;
    } else if (auto c = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
      auto i = llvm::dyn_cast<mlir::IntegerAttr>(c.getValue());
      if (!i)
        return makeError("the grid clause uses a non-integer constant");
      r = i.getInt();
    } else {
      llvm::SmallVector<int64_t, 3> a;
      for (unsigned i = 0; i < op.getNumOperands(); ++i) {
        auto x = get(i);
        if (!x)
          return x.takeError();
        a.push_back(*x);
      }
      llvm::StringRef n = op.getName().getStringRef();
      auto div0 = [&]() { return makeError("the grid clause divides by zero for these sizes"); };
      if (n == "arith.addi")
        r = a[0] + a[1];
      else if (n == "arith.subi")
        r = a[0] - a[1];
      else if (n == "arith.muli")
        r = a[0] * a[1];
      else if (n == "arith.divsi" || n == "arith.divui" || n == "arith.ceildivsi" ||
               n == "arith.floordivsi" || n == "arith.remsi" || n == "arith.remui") {
        if (a[1] == 0)
          return div0();
        if (n == "arith.ceildivsi")
          r = a[0] / a[1] + ((a[0] % a[1] != 0) && ((a[0] < 0) == (a[1] < 0)));
        else if (n == "arith.floordivsi")
          r = a[0] / a[1] - ((a[0] % a[1] != 0) && ((a[0] < 0) != (a[1] < 0)));
        else if (n == "arith.remsi" || n == "arith.remui")
          r = a[0] % a[1];
        else
          r = a[0] / a[1];
      } else if (n == "arith.minsi" || n == "arith.minui")
        r = std::min(a[0], a[1]);
      else if (n == "arith.maxsi" || n == "arith.maxui")
        r = std::max(a[0], a[1]);
      else if (n == "arith.andi")
        r = a[0] & a[1];
      else if (n == "arith.ori")
        r = a[0] | a[1];
      else if (n == "arith.xori")
        r = a[0] ^ a[1];
      else if (n == "arith.shli")
        r = a[0] << (a[1] & (op.getResult(0).getType().isInteger(64) ? 63 : 31));
      else if (n == "arith.shrsi")
        r = a[0] >> (a[1] & (op.getResult(0).getType().isInteger(64) ? 63 : 31));
      else if (n == "arith.select")
        r = a[0] ? a[1] : a[2];
      else if (n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci" ||
               n == "arith.index_cast")
        r = a[0];
      else if (auto cmp = llvm::dyn_cast<mlir::arith::CmpIOp>(op)) {
        using P = mlir::arith::CmpIPredicate;
        switch (cmp.getPredicate()) {
        case P::eq:
          r = a[0] == a[1];
          break;
        case P::ne:
          r = a[0] != a[1];
          break;
        case P::slt:
        case P::ult:
          r = a[0] < a[1];
          break;
        case P::sle:
        case P::ule:
          r = a[0] <= a[1];
          break;
        case P::sgt:
        case P::ugt:
          r = a[0] > a[1];
          break;
        default:
          r = a[0] >= a[1];
          break;
        }
      } else {
        return makeError("the grid clause uses " + n + ", which the host cannot evaluate");
      }
    }
    // i32 values wrap as on the GPU; i64 ones (the 64-bit size class) do not.
    mlir::Type rt = op.getResult(0).getType();
    v[op.getResult(0)] = rt.isInteger(1) ? (r & 1) : rt.isInteger(64) ? r : wrap(r);
  }
  return makeError("internal error: the grid region has no tile.yield");
}

std::string attrText(mlir::Attribute a) {
  if (!a)
    return "-";
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

Compiler::Compiler(DiskCache *cache) : cache_(cache) {
  mlir::DialectRegistry registry;
  pipeline::registerCodegenDialects(registry);
  registerTileIRDialects(registry);
  ctx_ = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx_->loadAllAvailableDialects();
}

Compiler::~Compiler() = default;

namespace {
/// The frontend's specialized tile IR for one kernel.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
specialize(const Program &program, const KernelSignature &sig, const CompileRequest &req,
           mlir::MLIRContext &ctx, tile::KernelOp &kernel) {
  DiagnosticEngine diags(program.file());
  FrontendOptions fo;
  fo.kernel = sig.name;
  fo.spec.params = req.params;
  fo.spec.dims = req.dims;
  if (req.numSms > 0)
    fo.spec.numSms = req.numSms;
  fo.spec.index64 = req.index64;

  mlir::OwningOpRef<mlir::ModuleOp> module = buildTileModule(program.file(), fo, ctx, diags);
  if (!module)
    return makeError(rendered(diags));
  kernel = nullptr;
  module->walk([&](tile::KernelOp k) {
    if (k.getSymName() == sig.name)
      kernel = k;
  });
  if (!kernel)
    return makeError("internal error: the frontend produced no kernel " + sig.name);
  return std::move(module);
}
} // namespace

llvm::Error Compiler::inspect(const Program &program, const CompileRequest &req,
                              llvm::function_ref<llvm::Error(tile::KernelOp)> fn) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  tile::KernelOp kernel;
  auto module = specialize(program, *sig, req, *ctx_, kernel);
  if (!module)
    return module.takeError();
  return fn(kernel);
}

namespace {
/// A grid a GPU can launch: at most TargetInfo::kMaxGrid programs per axis.
llvm::Error checkGrid(const std::string &kernel, const std::array<int64_t, 3> &grid) {
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
} // namespace

llvm::Expected<std::array<int64_t, 3>> Compiler::interpret(const Program &program,
                                                           const CompileRequest &req,
                                                           llvm::ArrayRef<interp::Arg> args,
                                                           unsigned threads, llvm::raw_ostream *out,
                                                           bool padExtents) {
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  std::array<int64_t, 3> grid;
  llvm::Error e = inspect(program, req, [&](tile::KernelOp kernel) -> llvm::Error {
    auto g = evaluateGrid(kernel, *sig, req);
    if (!g)
      return g.takeError();
    grid = *g;
    // What the GPU could not launch, the interpreter does not run either.
    if (llvm::Error e = checkGrid(sig->name, grid))
      return e;
    DiagnosticEngine diags(program.file());
    interp::Options opts;
    opts.grid = grid;
    opts.threads = threads;
    opts.out = out;
    DiagnosticEngine::MLIRHandler handler(diags, *ctx_, /*internal=*/false);
    if (padExtents && mlir::failed(pipeline::padExtents(kernel)))
      return makeError(rendered(diags));
    if (mlir::failed(interp::run(kernel, args, opts)))
      return makeError(rendered(diags));
    return llvm::Error::success();
  });
  if (e)
    return std::move(e);
  return grid;
}

llvm::Expected<CompiledKernel> Compiler::compile(const Program &program,
                                                 const CompileRequest &req) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto start = std::chrono::steady_clock::now();
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  tile::KernelOp kernel;
  auto moduleOr = specialize(program, *sig, req, *ctx_, kernel);
  if (!moduleOr)
    return moduleOr.takeError();
  mlir::OwningOpRef<mlir::ModuleOp> module = std::move(*moduleOr);
  DiagnosticEngine diags(program.file());
  CompiledKernel out;
  out.entry = sig->name;
  auto grid = evaluateGrid(kernel, *sig, req);
  if (!grid)
    return grid.takeError();
  out.grid = *grid;
  if (int64_t s = mlir::tile::scheduleOption(kernel, kSplitKOption); s > 1) {
    out.splitK.splits = s; // tile-split-k adds the grid's third axis
    out.grid[2] *= out.splitK.splits;
  }
  if (mlir::tile::scheduleOption(kernel, kPersistentOption)) {
    // tile-persistent: one axis of virtual programs; the runtime launches at
    // most as many as the GPU holds at once.
    out.persistent = true;
    out.grid = {out.grid[0] * out.grid[1] * out.grid[2], 1, 1};
  }
  if (llvm::Error e = checkGrid(sig->name, out.grid))
    return std::move(e);
  // Clusters (tile-cluster-programs) launch whole: a cluster size that does
  // not divide axis 0 of these sizes' grid is dropped, as is one of a
  // persistent kernel (the option is a hint, never a failed launch).
  if (int64_t c = mlir::tile::scheduleOption(kernel, kClusterOption);
      c > 1 && (out.persistent || out.grid[0] % c))
    kernel->removeAttr("tile.cluster");
  if (auto w = kernel->getAttrOfType<mlir::IntegerAttr>("tile.num_warps"))
    out.numWarps = w.getInt();
  // The key: everything the PTX depends on.
  std::string keyText =
      compilerVersion() + "\nsource " + sha256Hex(program.file().text()) + "\nkernel " + sig->name +
      "\nparams " + attrText(kernel->getAttr("tile.params")) + "\ndims " +
      attrText(kernel->getAttr("tile.specialized_dims")) + "\nsms " +
      attrText(kernel->getAttr("tile.num_sms")) + "\naligned " + (req.aligned ? "1" : "0") +
      "\narch " + req.arch + "\nO" + std::to_string(req.optLevel) + "\ndriver " +
      std::to_string(req.driverVersion) + "\nbuild " + TESSERA_BUILD_ID +
      (req.debug ? "\ndebug" : "") + (req.index64 ? "\nindex64" : "");
  for (const ScheduleOption &o : kScheduleOptions)
    keyText += std::string("\n") + o.name + " " + attrText(kernel->getAttr(o.attr));
  if (req.aligned && !req.unalignedArgs.empty()) {
    keyText += "\nunaligned";
    for (int64_t i : req.unalignedArgs)
      keyText += " " + std::to_string(i);
  }
  out.key = sha256Hex(keyText).substr(0, 40);
  auto finish = [&] {
    out.compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  if (req.debug)
    for (auto &[where, message] : pipeline::enableAsserts(kernel))
      out.asserts.push_back({where, message});
  if (cache_ && !req.debug)
    if (std::optional<CacheEntry> hit = cache_->load(out.key)) {
      out.ptx = std::move(hit->ptx);
      out.entry = hit->entry;
      out.numWarps = hit->numWarps;
      out.sharedBytes = hit->sharedBytes;
      out.tensorMaps = std::move(hit->tensorMaps);
      out.splitK.slotBytes = hit->splitK.slotBytes;
      out.fromDisk = true;
      finish();
      return out;
    }
  if (!req.aligned)
    kernel->setAttr("tile.aligned", mlir::BoolAttr::get(ctx_.get(), false));
  else if (!req.unalignedArgs.empty())
    kernel->setAttr("tile.unaligned_args",
                    mlir::DenseI64ArrayAttr::get(ctx_.get(), req.unalignedArgs));
  diags.clear();
  {
    DiagnosticEngine::MLIRHandler handler(diags, *ctx_, /*internal=*/false);
    if (mlir::failed(pipeline::lowerToLLVMDialect(*module, req.arch)))
      return makeError(rendered(diags));
  }
  module->walk([&](mlir::LLVM::LLVMFuncOp fn) {
    if (fn.getSymName() != sig->name)
      return;
    if (auto b = fn->getAttrOfType<mlir::IntegerAttr>("tile.shared_bytes"))
      out.sharedBytes = b.getInt();
    // Launch every warp: the compute warps and any producer warps.
    if (auto p = fn->getAttrOfType<mlir::IntegerAttr>("tile.producer_warps"))
      out.numWarps += p.getInt();
    if (auto s = fn->getAttrOfType<mlir::IntegerAttr>("tile.split_k_slot_bytes"))
      out.splitK.slotBytes = s.getInt();
    if (auto maps = fn->getAttrOfType<mlir::ArrayAttr>("tile.tensor_maps"))
      for (mlir::Attribute m : maps) {
        auto d = llvm::cast<mlir::DictionaryAttr>(m);
        TensorMapUse use;
        use.param = d.getAs<mlir::IntegerAttr>("arg").getInt();
        auto box = d.getAs<mlir::DenseI64ArrayAttr>("box").asArrayRef();
        use.box.assign(box.begin(), box.end());
        use.swizzle = d.getAs<mlir::IntegerAttr>("swizzle").getInt();
        out.tensorMaps.push_back(std::move(use));
      }
  });
  auto ptx = pipeline::toPTX(*module, req.arch, req.optLevel);
  if (!ptx)
    return makeError("code generation failed: " + llvm::toString(ptx.takeError()));
  out.ptx = std::move(*ptx);
  if (cache_ && !req.debug) {
    CacheEntry e{out.entry, out.ptx, out.numWarps, out.sharedBytes, out.tensorMaps, out.splitK};
    if (llvm::Error e2 = cache_->store(out.key, e))
      llvm::consumeError(std::move(e2)); // a read-only cache only costs recompiles
  }
  finish();
  return out;
}
