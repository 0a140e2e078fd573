//===- PTX.cpp - LLVM-dialect module -> LLVM IR -> PTX ----------*- C++ -*-===//
#include "lib/Target/PTX.h"
#include "lib/Support/Errors.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>
#include <utility>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace llvm;

namespace tessera::target {
namespace {

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

const llvm::Target *nvptxTarget(std::string &err) {
  initializeNVPTX();
  return TargetRegistry::lookupTarget(Triple(kNVPTXTriple), err);
}

/// The smallest PTX ISA version (x10) that knows `arch`, as LLVM 22's NVPTX
/// backend requires it (NVPTXSubtarget.cpp, getMinPTXVersionForSM). Asking the
/// backend for less is a fatal error there, so it is checked here first. 0 for
/// an arch the table does not know.
unsigned minPTXVersion(StringRef arch) {
  static const struct {
    const char *arch;
    unsigned ptx;
  } table[] = {
      {"sm_20", 32},   {"sm_21", 32},   {"sm_30", 32},   {"sm_35", 32},   {"sm_32", 40},
      {"sm_50", 40},   {"sm_37", 41},   {"sm_52", 41},   {"sm_53", 42},   {"sm_60", 50},
      {"sm_61", 50},   {"sm_62", 50},   {"sm_70", 60},   {"sm_72", 61},   {"sm_75", 63},
      {"sm_80", 70},   {"sm_86", 71},   {"sm_87", 74},   {"sm_89", 78},   {"sm_90", 78},
      {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86}, {"sm_101", 86},  {"sm_101a", 86},
      {"sm_120", 87},  {"sm_120a", 87}, {"sm_100f", 88}, {"sm_101f", 88}, {"sm_103", 88},
      {"sm_103f", 88}, {"sm_103a", 88}, {"sm_120f", 88}, {"sm_121", 88},  {"sm_121f", 88},
      {"sm_121a", 88}, {"sm_88", 90},   {"sm_110", 90},  {"sm_110f", 90}, {"sm_110a", 90},
  };
  for (const auto &e : table)
    if (arch == e.arch)
      return e.ptx;
  return 0;
}

/// Checks `arch` and `features` against the NVPTX backend, so that nothing the
/// caller passes can reach one of its fatal errors or warnings on stderr.
Error checkArchAndFeatures(const llvm::Target &target, StringRef arch, StringRef features) {
  Triple triple(kNVPTXTriple);
  // Created without a CPU: an unknown one would be reported on stderr.
  std::unique_ptr<MCSubtargetInfo> sti(target.createMCSubtargetInfo(triple, "", ""));
  if (!sti)
    return makeError("cannot create the NVPTX subtarget info");
  unsigned minPTX = minPTXVersion(arch);
  if (!arch.starts_with("sm_") || !sti->isCPUStringValid(arch) || minPTX == 0)
    return makeError("unknown NVPTX architecture '" + arch +
                     "' (expected a compute capability such as sm_80 or sm_90a)");

  unsigned ptx = 0;
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef f : parts) {
    f = f.trim();
    if (f.empty())
      continue;
    if (f[0] != '+' && f[0] != '-')
      return makeError("NVPTX target feature '" + f + "' must start with '+' or '-'");
    StringRef name = f.drop_front();
    bool known = llvm::any_of(sti->getAllProcessorFeatures(),
                              [&](const SubtargetFeatureKV &kv) { return name == kv.Key; });
    if (!known)
      return makeError("unknown NVPTX target feature '" + f + "'");
    unsigned v;
    if (f[0] == '+' && name.consume_front("ptx") && !name.getAsInteger(10, v))
      ptx = v;
  }
  if (ptx != 0 && ptx < minPTX)
    return makeError("PTX ISA " + Twine(ptx / 10) + "." + Twine(ptx % 10) + " does not support " +
                     arch + "; it needs at least PTX " + Twine(minPTX / 10) + "." +
                     Twine(minPTX % 10) + " (+ptx" + Twine(minPTX) + ")");
  return Error::success();
}

Expected<std::unique_ptr<TargetMachine>> createTargetMachine(StringRef arch,
                                                             const PTXOptions &options) {
  std::string err;
  const llvm::Target *target = nvptxTarget(err);
  if (!target)
    return makeError("the NVPTX backend is not available in this LLVM: " + err);
  if (Error e = checkArchAndFeatures(*target, arch, options.features))
    return std::move(e);
  if (options.optLevel > 3)
    return makeError("optimization level " + Twine(options.optLevel) + " is not in 0-3");
  CodeGenOptLevel level = options.optLevel == 0   ? CodeGenOptLevel::None
                          : options.optLevel == 1 ? CodeGenOptLevel::Less
                          : options.optLevel == 2 ? CodeGenOptLevel::Default
                                                  : CodeGenOptLevel::Aggressive;
  TargetOptions targetOptions;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(Triple(kNVPTXTriple), arch,
                                                                options.features, targetOptions,
                                                                std::nullopt, std::nullopt, level));
  if (!tm)
    return makeError("cannot create an NVPTX target machine for " + arch);
  return std::move(tm);
}

/// Collects the LLVMContext's diagnostics (the linker's, the backend's) instead of
/// letting them go to stderr; errors among them fail the stage. The context's
/// previous handler is restored afterwards.
struct DiagnosticCollector {
  struct Handler : DiagnosticHandler {
    explicit Handler(DiagnosticCollector &c) : c(c) {}
    bool handleDiagnostics(const DiagnosticInfo &di) override {
      if (di.getSeverity() != DS_Error)
        return true; // warnings and remarks are dropped
      std::string msg;
      raw_string_ostream os(msg);
      DiagnosticPrinterRawOStream printer(os);
      di.print(printer);
      c.hasErrors = true;
      c.errors += (c.errors.empty() ? "" : "\n") + msg;
      return true;
    }
    DiagnosticCollector &c;
  };
  explicit DiagnosticCollector(LLVMContext &ctx) : ctx(ctx), previous(ctx.getDiagnosticHandler()) {
    ctx.setDiagnosticHandler(std::make_unique<Handler>(*this));
  }
  ~DiagnosticCollector() { ctx.setDiagnosticHandler(std::move(previous)); }
  Error take(const Twine &what) {
    if (!hasErrors)
      return Error::success();
    hasErrors = false;
    return makeError(what + ": " + std::exchange(errors, ""));
  }
  LLVMContext &ctx;
  std::unique_ptr<DiagnosticHandler> previous;
  bool hasErrors = false;
  std::string errors;
};

/// Makes sure the module's context can translate builtin, llvm and nvvm to LLVM
/// IR. Touches the context only when something is missing.
void ensureTranslations(mlir::MLIRContext &ctx) {
  bool missing = false;
  for (StringRef ns : {"builtin", "llvm", "nvvm"}) {
    mlir::Dialect *d = ctx.getLoadedDialect(ns);
    if (!d || !d->getRegisteredInterface<mlir::LLVMTranslationDialectInterface>())
      missing = true;
  }
  if (!missing)
    return;
  mlir::DialectRegistry registry;
  registerTargetDialects(registry);
  ctx.appendDialectRegistry(registry);
  // Attributes such as `nvvm.kernel` are translated by the NVVM dialect's
  // interface, which exists only once the dialect is loaded.
  ctx.getOrLoadDialect<mlir::LLVM::LLVMDialect>();
  ctx.getOrLoadDialect<mlir::NVVM::NVVMDialect>();
}

/// `.maxntid` together with `.reqntid` makes ptxas fail. reqntid implies a
/// maximum, so a maxntid that it satisfies is dropped; a conflict is an error.
Error reconcileLaunchBounds(Module &m) {
  auto product = [](StringRef list) -> std::optional<uint64_t> {
    SmallVector<StringRef> parts;
    list.split(parts, ',');
    uint64_t p = 1;
    for (StringRef s : parts) {
      uint64_t v;
      if (s.trim().getAsInteger(10, v))
        return std::nullopt;
      p *= v;
    }
    return p;
  };
  for (Function &f : m) {
    if (!f.hasFnAttribute("nvvm.reqntid") || !f.hasFnAttribute("nvvm.maxntid"))
      continue;
    StringRef req = f.getFnAttribute("nvvm.reqntid").getValueAsString();
    StringRef max = f.getFnAttribute("nvvm.maxntid").getValueAsString();
    auto r = product(req), x = product(max);
    if (!r || !x || *r > *x)
      return makeError("kernel '" + f.getName() + "' has nvvm.reqntid = [" + req +
                       "] and nvvm.maxntid = [" + max +
                       "], which conflict (and ptxas rejects both together)");
    f.removeFnAttr("nvvm.maxntid");
  }
  return Error::success();
}

/// The libdevice bitcode of the CUDA toolkit.
Expected<std::string> findLibdevice() {
  SmallVector<std::string, 2> roots;
  if (std::optional<std::string> home = sys::Process::GetEnv("CUDA_HOME"); home && !home->empty())
    roots.push_back(*home);
  roots.push_back("/usr/local/cuda");
  std::string tried;
  for (const std::string &root : roots) {
    SmallString<256> path(root);
    sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (sys::fs::exists(path))
      return std::string(path);
    tried += (tried.empty() ? "" : ", ") + std::string(path);
  }
  return makeError("the module calls libdevice (__nv_*) functions but libdevice was not found "
                   "(tried " +
                   tried + "; set CUDA_HOME)");
}

/// Links libdevice into `m` when it declares `__nv_*` functions; only what is
/// used is linked, and it is internalized so that the optimizer can inline it
/// and drop the rest.
Error linkLibdeviceIfNeeded(Module &m, DiagnosticCollector &diags) {
  bool needed = llvm::any_of(
      m, [](const Function &f) { return f.isDeclaration() && f.getName().starts_with("__nv_"); });
  if (!needed)
    return Error::success();
  Expected<std::string> path = findLibdevice();
  if (!path)
    return path.takeError();
  SMDiagnostic err;
  std::unique_ptr<Module> lib = parseIRFile(*path, err, m.getContext());
  if (!lib) {
    std::string msg;
    raw_string_ostream os(msg);
    err.print("libdevice", os);
    return makeError("cannot read " + *path + ": " + msg);
  }
  lib->setTargetTriple(m.getTargetTriple());
  lib->setDataLayout(m.getDataLayout());
  bool failed = Linker::linkModules(m, std::move(lib), Linker::Flags::LinkOnlyNeeded,
                                    [](Module &dst, const StringSet<> &linked) {
                                      internalizeModule(dst, [&](const GlobalValue &gv) {
                                        return !gv.hasName() || !linked.contains(gv.getName());
                                      });
                                    });
  if (Error e = diags.take("linking libdevice failed"))
    return e;
  if (failed)
    return makeError("linking libdevice (" + *path + ") failed");
  // libdevice asks __nvvm_reflect whether to flush denormals; say no.
  if (!m.getModuleFlag("nvvm-reflect-ftz"))
    m.addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return Error::success();
}

Expected<std::unique_ptr<Module>> translate(mlir::ModuleOp module, const TargetMachine &tm,
                                            LLVMContext &llvmContext, DiagnosticCollector &diags) {
  if (!module)
    return makeError("no module to translate");
  mlir::MLIRContext &ctx = *module->getContext();
  ensureTranslations(ctx);

  std::string mlirErrors;
  std::unique_ptr<Module> m;
  {
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
        std::string loc;
        raw_string_ostream os(loc);
        d.getLocation().print(os);
        mlirErrors += (mlirErrors.empty() ? "" : "\n") + loc + ": " + d.str();
      }
      return mlir::success();
    });
    m = mlir::translateModuleToLLVMIR(module, llvmContext, "tessera");
  }
  if (!m)
    return makeError("translation to LLVM IR failed" +
                     (mlirErrors.empty() ? Twine() : Twine(":\n") + mlirErrors));
  m->setTargetTriple(Triple(kNVPTXTriple));
  m->setDataLayout(tm.createDataLayout());
  if (Error e = reconcileLaunchBounds(*m))
    return std::move(e);
  if (Error e = linkLibdeviceIfNeeded(*m, diags))
    return std::move(e);
  std::string verifyErrors;
  raw_string_ostream vos(verifyErrors);
  if (verifyModule(*m, &vos))
    return makeError("the translated LLVM module is invalid:\n" + verifyErrors);
  return std::move(m);
}

Error optimize(Module &m, TargetMachine &tm, unsigned optLevel, StringRef passes) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  // Tile code arrives unrolled with its vector accesses already explicit: the
  // loop and SLP vectorizers find nothing to do on NVPTX and cost a fifth of
  // the optimization time of an attention kernel.
  PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  PassBuilder pb(&tm, tuning); // registers NVPTX's own passes (NVVMReflect, AA, ...)
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel == 0   ? OptimizationLevel::O0
                            : optLevel == 1 ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  ModulePassManager mpm;
  if (!passes.empty()) {
    if (Error e = pb.parsePassPipeline(mpm, passes))
      return makeError("the LLVM pass pipeline '" + passes +
                       "' does not parse: " + toString(std::move(e)));
  } else {
    mpm =
        optLevel == 0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  }
  mpm.run(m, mam);
  return Error::success();
}

Expected<std::string> codegen(Module &m, TargetMachine &tm, DiagnosticCollector &diags) {
  SmallString<0> ptx;
  {
    raw_svector_ostream os(ptx);
    legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::AssemblyFile))
      return makeError("the NVPTX target machine cannot emit PTX");
    pm.run(m);
  }
  if (Error e = diags.take("PTX generation failed"))
    return std::move(e);
  if (ptx.empty())
    return makeError("PTX generation produced nothing");
  return std::string(ptx);
}

} // namespace

const std::string &defaultLLVMPasses() {
  static const std::string passes = [] {
    const char *env = getenv("TESSERA_LLVM_PASSES");
    return std::string(env ? env : "");
  }();
  return passes;
}

void registerTargetDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
}

bool isValidArch(StringRef arch) {
  std::string err;
  const llvm::Target *target = nvptxTarget(err);
  if (!target)
    return false;
  Error e = checkArchAndFeatures(*target, arch, "");
  bool ok = !e;
  consumeError(std::move(e));
  return ok;
}

Expected<std::unique_ptr<Module>> translateToLLVMModule(mlir::ModuleOp module, StringRef arch,
                                                        LLVMContext &llvmContext,
                                                        const PTXOptions &options) {
  Expected<std::unique_ptr<TargetMachine>> tm = createTargetMachine(arch, options);
  if (!tm)
    return tm.takeError();
  DiagnosticCollector diags(llvmContext);
  return translate(module, **tm, llvmContext, diags);
}

Expected<std::string> translateToLLVMIR(mlir::ModuleOp module, StringRef arch,
                                        const PTXOptions &options) {
  LLVMContext llvmContext;
  Expected<std::unique_ptr<Module>> m = translateToLLVMModule(module, arch, llvmContext, options);
  if (!m)
    return m.takeError();
  std::string ir;
  raw_string_ostream os(ir);
  (*m)->print(os, nullptr);
  return ir;
}

Expected<std::string> emitPTX(Module &m, StringRef arch, const PTXOptions &options) {
  Expected<std::unique_ptr<TargetMachine>> tm = createTargetMachine(arch, options);
  if (!tm)
    return tm.takeError();
  if (m.getTargetTriple().str() != kNVPTXTriple)
    m.setTargetTriple(Triple(kNVPTXTriple));
  m.setDataLayout((*tm)->createDataLayout());
  DiagnosticCollector diags(m.getContext());
  if (Error e = optimize(m, **tm, options.optLevel, options.passes))
    return std::move(e);
  if (Error e = diags.take("LLVM optimization failed"))
    return std::move(e);
  return codegen(m, **tm, diags);
}

Expected<std::string> emitPTX(mlir::ModuleOp module, StringRef arch, const PTXOptions &options) {
  Expected<std::unique_ptr<TargetMachine>> tm = createTargetMachine(arch, options);
  if (!tm)
    return tm.takeError();
  LLVMContext llvmContext;
  DiagnosticCollector diags(llvmContext);
  Expected<std::unique_ptr<Module>> m = translate(module, **tm, llvmContext, diags);
  if (!m)
    return m.takeError();
  if (Error e = optimize(**m, **tm, options.optLevel, options.passes))
    return std::move(e);
  if (Error e = diags.take("LLVM optimization failed"))
    return std::move(e);
  return codegen(**m, **tm, diags);
}

} // namespace tessera::target
