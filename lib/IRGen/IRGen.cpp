//===- IRGen.cpp - kernels and statements to tile IR ------------*- C++ -*-===//
//
// Builds the `tile.kernel` op (signature, attributes, grid region) and lowers the
// statements: `let`/`var` bind SSA values, assignments rebind them, and loops and
// ifs thread every variable they assign through scf iter_args / results.
// Also the frontend entry point `buildTileModule`.
//
//===----------------------------------------------------------------------===//
#include "lib/IRGen/IRGenImpl.h"

#include "dialects/Tile/Knobs.h"
#include "lib/Frontend/Parser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <set>

using namespace mlir;
using namespace tessera;
using namespace tessera::irgen;

void tessera::registerTileIRDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect>();
}

void Emitter::emitDims(Block &block) {
  for (const Symbol *d : info_.dims) {
    Type type = typeOf(d->type); // i32, or i64 in the 64-bit size class
    if (d->constant) {
      values_[d] = arith::ConstantIntOp::create(b_, loc(d->loc), type, *d->constant);
      continue;
    }
    Value tensor = block.getArgument(d->paramIndex);
    values_[d] = tile::DimOp::create(b_, loc(d->loc), type, tensor, (int64_t)d->axis);
  }
}

LogicalResult Emitter::emit() {
  const Kernel &k = *info_.kernel;
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames;
  SmallVector<NamedAttribute> dimBindings;
  for (const Param &p : k.params) {
    Type elt = toMLIRType(p.dtype, ctx_);
    if (!p.isTensor) {
      argTypes.push_back(elt);
    } else {
      SmallVector<int64_t> shape;
      for (const DimSpec &d : p.dims)
        shape.push_back(d.isName ? ShapedType::kDynamic : d.value);
      argTypes.push_back(tile::GlobalTensorType::get(ctx_, shape, elt));
    }
    argNames.push_back(b_.getStringAttr(p.name));
  }
  for (const Symbol *d : info_.dims)
    dimBindings.push_back(b_.getNamedAttr(
        d->name, b_.getDenseI64ArrayAttr({(int64_t)d->paramIndex, (int64_t)d->axis})));

  b_.setInsertionPointToEnd(module_.getBody());
  auto kernel = tile::KernelOp::create(b_, loc(k.loc), k.name, b_.getFunctionType(argTypes, {}));
  SmallVector<NamedAttribute> params;
  for (auto &[n, v] : info_.tuneValues)
    params.push_back(b_.getNamedAttr(n, b_.getI64IntegerAttr(v)));
  for (auto &[n, v] : info_.whereValues)
    params.push_back(b_.getNamedAttr(n, b_.getI64IntegerAttr(v)));
  SmallVector<NamedAttribute> specialized;
  for (auto &[n, v] : info_.specializedDims)
    specialized.push_back(b_.getNamedAttr(n, b_.getI64IntegerAttr(v)));
  kernel->setAttr("tile.arg_names", b_.getArrayAttr(argNames));
  kernel->setAttr("tile.num_warps", b_.getI64IntegerAttr(info_.numWarps));
  kernel->setAttr("tile.num_stages", b_.getI64IntegerAttr(info_.numStages));
  kernel->setAttr("tile.params", b_.getDictionaryAttr(params));
  kernel->setAttr("tile.dims", b_.getDictionaryAttr(dimBindings));
  if (!specialized.empty())
    kernel->setAttr("tile.specialized_dims", b_.getDictionaryAttr(specialized));
  if (info_.index64)
    kernel->setAttr(tessera::kIndex64Attr, b_.getUnitAttr());
  if (info_.numSms) // part of the cache key: the code holds it
    kernel->setAttr("tile.num_sms", b_.getI64IntegerAttr(*info_.numSms));

  // The grid region: host-side expressions of dims and scalars.
  for (Region *region : {&kernel.getGrid(), &kernel.getBody()}) {
    Block &block = region->front();
    b_.setInsertionPointToStart(&block);
    values_.clear();
    for (unsigned i = 0; i < info_.params.size(); ++i)
      if (info_.params[i])
        values_[info_.params[i]] = block.getArgument(i);
    emitDims(block);
    if (region == &kernel.getGrid()) {
      SmallVector<Value> extents;
      for (const ExprPtr &g : k.grid)
        extents.push_back(emitExpr(*g));
      if (extents.empty())
        extents.push_back(arith::ConstantIntOp::create(b_, loc(k.loc), 1, 32));
      tile::YieldOp::create(b_, loc(k.hasGrid ? k.gridLoc : k.loc), extents);
    } else {
      emitBlock(k.body);
      tile::ReturnOp::create(b_, loc(k.bodyLoc));
    }
  }
  return success();
}

void Emitter::emitBlock(const std::vector<StmtPtr> &stmts) {
  for (const StmtPtr &s : stmts)
    emitStmt(*s);
}

namespace {
void collectAssigned(const std::vector<StmtPtr> &stmts, std::vector<const Symbol *> &out) {
  for (const StmtPtr &s : stmts) {
    if (s->kind == StmtKind::Assign && s->symbol)
      out.push_back(s->symbol);
    collectAssigned(s->body, out);
    collectAssigned(s->elseBody, out);
  }
}
} // namespace

SmallVector<const Symbol *> Emitter::carriedVars(const std::vector<StmtPtr> &a,
                                                 const std::vector<StmtPtr> *b) {
  std::vector<const Symbol *> all;
  collectAssigned(a, all);
  if (b)
    collectAssigned(*b, all);
  SmallVector<const Symbol *> out;
  std::set<unsigned> seen;
  for (const Symbol *s : all)
    if (values_.count(s) && seen.insert(s->id).second)
      out.push_back(s);
  // Deterministic order: declaration order.
  llvm::sort(out, [](const Symbol *x, const Symbol *y) { return x->id < y->id; });
  return out;
}

void Emitter::emitStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Let:
  case StmtKind::Var:
    values_[s.symbol] = emitExpr(*s.value);
    return;
  case StmtKind::Assign:
    values_[s.symbol] = broadcastTo(emitExpr(*s.value), s.symbol->type.shape, loc(s.loc));
    return;
  case StmtKind::Expr:
    emitExpr(*s.value);
    return;
  case StmtKind::For:
    return emitFor(s);
  case StmtKind::If:
    return emitIf(s);
  }
}

void Emitter::emitFor(const Stmt &s) {
  Location l = loc(s.loc);
  Value lo = emitExpr(*s.lo), hi = emitExpr(*s.hi);
  Value step =
      s.step ? emitExpr(*s.step) : arith::ConstantIntOp::create(b_, l, lo.getType(), 1).getResult();
  SmallVector<const Symbol *> carried = carriedVars(s.body);
  SmallVector<Value> inits;
  for (const Symbol *v : carried)
    inits.push_back(values_[v]);
  auto loop = scf::ForOp::create(b_, l, lo, hi, step, inits,
                                 [&](OpBuilder &, Location bl, Value iv, ValueRange args) {
                                   values_[s.symbol] = iv;
                                   for (auto [v, a] : llvm::zip(carried, args))
                                     values_[v] = a;
                                   emitBlock(s.body);
                                   SmallVector<Value> yields;
                                   for (const Symbol *v : carried)
                                     yields.push_back(values_[v]);
                                   scf::YieldOp::create(b_, bl, yields);
                                 });
  b_.setInsertionPointAfter(loop);
  for (auto [v, r] : llvm::zip(carried, loop.getResults()))
    values_[v] = r;
}

void Emitter::emitIf(const Stmt &s) {
  Location l = loc(s.loc);
  Value cond = emitExpr(*s.cond);
  SmallVector<const Symbol *> carried = carriedVars(s.body, &s.elseBody);
  SmallVector<Type> types;
  SmallVector<Value> before;
  for (const Symbol *v : carried) {
    types.push_back(values_[v].getType());
    before.push_back(values_[v]);
  }
  bool withElse = s.hasElse || !carried.empty();
  auto op = scf::IfOp::create(b_, l, types, cond, /*addThenBlock=*/true, withElse);
  auto emitBranch = [&](Region &region, const std::vector<StmtPtr> &stmts) {
    b_.setInsertionPointToStart(&region.front());
    for (auto [v, init] : llvm::zip(carried, before))
      values_[v] = init;
    emitBlock(stmts);
    SmallVector<Value> yields;
    for (const Symbol *v : carried)
      yields.push_back(values_[v]);
    scf::YieldOp::create(b_, l, yields);
  };
  emitBranch(op.getThenRegion(), s.body);
  if (withElse)
    emitBranch(op.getElseRegion(), s.elseBody);
  b_.setInsertionPointAfter(op);
  for (auto [v, r] : llvm::zip(carried, op.getResults()))
    values_[v] = r;
}

LogicalResult tessera::emitKernel(ModuleOp module, const KernelInfo &info, const SourceFile &file) {
  Emitter e(module, info, file);
  return e.emit();
}

OwningOpRef<ModuleOp> tessera::buildTileModule(const SourceFile &file, const FrontendOptions &opts,
                                               MLIRContext &ctx, DiagnosticEngine &diags) {
  std::unique_ptr<Module> ast = parseFile(file, diags);
  bool syntaxErrors = diags.hasErrors();
  std::vector<Kernel *> selected;
  for (auto &k : ast->kernels)
    if (opts.kernel.empty() || k->name == opts.kernel)
      selected.push_back(k.get());
  if (syntaxErrors) {
    // Still check the kernels that parsed cleanly, so that their independent
    // errors are reported too; nothing is emitted.
    for (Kernel *k : selected)
      if (!k->hasSyntaxErrors && !diags.full())
        analyzeKernel(*k, opts.spec, diags);
    return nullptr;
  }
  if (selected.empty()) {
    std::string names;
    for (auto &k : ast->kernels)
      names += (names.empty() ? "" : ", ") + k->name;
    if (ast->kernels.empty())
      diags.error({}, "no kernel is defined in this file");
    else
      diags.error({}, "no kernel named '" + opts.kernel + "' (the file defines " + names + ")");
    return nullptr;
  }
  DialectRegistry registry;
  registerTileIRDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  DiagnosticEngine::MLIRHandler handler(diags, ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(FileLineColLoc::get(&ctx, file.name(), 1, 1));
  // With several kernels, each takes the --param / --dim values it declares; a
  // value that no kernel declares is still an error (reported by the first).
  auto declares = [](const Kernel &k, const std::string &name) {
    for (auto &t : k.tunes)
      if (t.name == name)
        return true;
    for (auto &p : k.params) {
      if (p.name == name)
        return true;
      for (auto &d : p.dims)
        if (d.isName && d.name == name)
          return true;
    }
    return name == "num_warps" || name == "num_stages";
  };
  // The schedule options are the compiler's, not a kernel's parameters.
  Specialization base = opts.spec;
  std::vector<std::pair<const ScheduleOption *, int64_t>> schedule;
  for (const ScheduleOption &o : kScheduleOptions) {
    auto s = base.params.find(o.name);
    if (s == base.params.end())
      continue;
    int64_t v = s->second;
    base.params.erase(s);
    if (v < o.min || v > o.max) {
      diags.error({}, std::string(o.name) + " must be from " + std::to_string(o.min) + " to " +
                          std::to_string(o.max) + ", got " + std::to_string(v));
      return nullptr;
    }
    if (v != o.byDefault)
      schedule.push_back({&o, v});
  }
  auto scheduled = [&](const char *name) {
    return llvm::any_of(schedule, [&](auto &e) { return llvm::StringRef(e.first->name) == name; });
  };
  if (scheduled(kPersistentOption) && scheduled(kSplitKOption)) {
    diags.error({}, std::string(kPersistentOption) + " does not combine with " + kSplitKOption);
    return nullptr;
  }
  std::vector<std::unique_ptr<KernelInfo>> infos;
  for (Kernel *k : selected) {
    Specialization spec = base;
    if (selected.size() > 1) {
      for (auto *m : {&spec.params, &spec.dims})
        for (auto it = m->begin(); it != m->end();) {
          bool anyone = llvm::any_of(selected, [&](Kernel *o) { return declares(*o, it->first); });
          // Declared elsewhere: not this kernel's business. Declared nowhere: the
          // first kernel reports it, once.
          bool drop = !declares(*k, it->first) && (anyone || k != selected.front());
          it = drop ? m->erase(it) : std::next(it);
        }
    }
    auto info = analyzeKernel(*k, spec, diags);
    if (!info || diags.full())
      continue;
    if (failed(emitKernel(*module, *info, file)))
      return nullptr;
    infos.push_back(std::move(info));
  }
  if (diags.hasErrors() || failed(verify(*module)))
    return nullptr;
  for (auto [o, v] : schedule)
    module->walk([&, o = o, v = v](tile::KernelOp k) {
      k->setAttr(o->attr, IntegerAttr::get(IntegerType::get(&ctx, 64), v));
    });
  if (opts.canonicalize) {
    PassManager pm(&ctx);
    pm.enableVerifier(false); // verified once below, not after each pass
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module)) || failed(verify(*module))) {
      if (!diags.hasErrors())
        diags.error({}, "internal compiler error: canonicalization failed");
      return nullptr;
    }
  }
  return module;
}
