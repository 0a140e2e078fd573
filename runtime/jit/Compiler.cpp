//===- Compiler.cpp - compiling a kernel specialization to PTX --*- C++ -*-===//
//
// Programs (parsed .tile sources and their kernels' signatures) and the
// Compiler: a request (kernel, parameters, dims and integer scalars, arch,
// alignment, size class) is specialized into tile IR, its grid evaluated
// (Grid.cpp), and lowered to PTX under a content-addressed key; the disk cache
// skips code generation for a key it holds. Compiling never touches a GPU;
// the interpreter runs the same specialization on the host.
//
//===----------------------------------------------------------------------===//
#include "runtime/jit/Compiler.h"
#include "lib/Support/Clock.h"
#include "lib/Support/Errors.h"
#include "runtime/jit/Grid.h"

#include "runtime/jit/DiskCache.h"
#include "runtime/jit/Runtime.h"

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

namespace {
/// The aligned variant's exceptions, as both cache keys name them ("" for none).
std::string unalignedKeyText(const tessera::jit::CompileRequest &req) {
  if (!req.aligned || req.unalignedArgs.empty())
    return "";
  std::string text = "\nunaligned";
  for (int64_t i : req.unalignedArgs)
    text += " " + std::to_string(i);
  return text;
}
} // namespace

std::string tessera::jit::modelKey(const Program &program, const CompileRequest &req) {
  std::string text = compilerVersion() + "\nbuild " + TESSERA_BUILD_ID + "\nmodel\nsource " +
                     sha256Hex(program.file().text()) + "\nkernel " + req.kernel + "\ndims";
  for (auto &[n, v] : req.dims)
    text += " " + n + "=" + std::to_string(v);
  text += "\nsms " + std::to_string(req.numSms) + "\naligned " + (req.aligned ? "1" : "0") +
          "\narch " + req.arch + (req.index64 ? "\nindex64" : "");
  text += unalignedKeyText(req);
  // The producer warpgroup at large accumulators depends on what assembles
  // the cubin (chooseDefault).
  if (auto a = cubinAssembler())
    text += "\nassembler " + a->name;
  else
    llvm::consumeError(a.takeError());
  return "model-" + sha256Hex(text).substr(0, 40);
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

namespace {

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
  auto stage = start; // the end of the last stage timed
  auto lap = [&stage](double &ms) {
    ms = msSince(stage);
    stage = std::chrono::steady_clock::now();
  };
  lap(out.frontendMs);
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
  if (!clusterObstacle(kernel, out.grid).empty())
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
      (req.debug ? "\ndebug" : "") + (req.index64 ? "\nindex64" : "") +
      (req.llvmPasses.empty() ? "" : "\nllvm-passes " + req.llvmPasses);
  for (const ScheduleOption &o : kScheduleOptions)
    keyText += std::string("\n") + o.name + " " + attrText(kernel->getAttr(o.attr));
  keyText += unalignedKeyText(req);
  out.key = sha256Hex(keyText).substr(0, 40);
  auto finish = [&] { out.compileMs = msSince(start); };
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
  lap(out.passesMs);
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
  auto ptx = pipeline::toPTX(*module, req.arch, req.optLevel, req.llvmPasses);
  if (!ptx)
    return makeError("code generation failed: " + llvm::toString(ptx.takeError()));
  out.ptx = std::move(*ptx);
  lap(out.llvmMs);
  if (cache_ && !req.debug) {
    CacheEntry e{out.entry, out.ptx, out.numWarps, out.sharedBytes, out.tensorMaps, out.splitK};
    if (llvm::Error e2 = cache_->store(out.key, e))
      llvm::consumeError(std::move(e2)); // a read-only cache only costs recompiles
  }
  finish();
  return out;
}
