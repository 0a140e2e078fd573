//===- Driver.cpp - the stages behind the tessera command -------*- C++ -*-===//
//
// `tessera compile`: reads the file, parses --param/--dim, and runs the pipeline up
// to the stage `--emit` names, one small function per stage.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"

#include "dialects/Tile/TileDialect.h"
#include "lib/Frontend/Parser.h"
#include "lib/IRGen/IRGen.h"
#include "lib/Pipeline/Pipeline.h"
#include "lib/Target/PTX.h"
#include "lib/Target/TargetInfo.h"
#include "runtime/jit/Compiler.h"
#include "runtime/jit/Grid.h"

#include "mlir/IR/DialectRegistry.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace tessera;

namespace {

std::optional<EmitStage> parseStage(llvm::StringRef s) {
  return llvm::StringSwitch<std::optional<EmitStage>>(s)
      .Case("ast", EmitStage::AST)
      .Case("tile", EmitStage::Tile)
      .Case("gpu", EmitStage::GPU)
      .Case("llvm", EmitStage::LLVM)
      .Case("ptx", EmitStage::PTX)
      .Case("cubin", EmitStage::Cubin)
      .Default(std::nullopt);
}

/// Parses NAME=INTEGER items into `out`; reports the first bad one.
/// Writes `text` to the -o path or stdout.
int writeOutput(const CompileOptions &opts, llvm::function_ref<void(llvm::raw_ostream &)> print) {
  if (opts.output.empty() || opts.output == "-") {
    print(llvm::outs());
    llvm::outs().flush();
    return 0;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(opts.output, ec, llvm::sys::fs::OF_None);
  if (ec) {
    printToolError(llvm::errs(), "cannot write '" + opts.output + "': " + ec.message());
    return 1;
  }
  print(os);
  return 0;
}

FrontendOptions frontendOptions(const CompileOptions &opts, const Specialization &spec) {
  FrontendOptions fo;
  fo.kernel = opts.kernel;
  fo.spec = spec;
  return fo;
}

/// The syntax tree, printed once the program has passed every check.
int emitAST(const CompileOptions &opts, const SourceFile &file, const Specialization &spec) {
  {
    DiagnosticEngine diags(file);
    mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
    FrontendOptions fo = frontendOptions(opts, spec);
    fo.canonicalize = false;
    bool ok = (bool)buildTileModule(file, fo, ctx, diags);
    diags.render(llvm::errs());
    if (!ok)
      return 1;
  }
  DiagnosticEngine diags(file);
  std::unique_ptr<Module> ast = parseFile(file, diags);
  return writeOutput(opts, [&](llvm::raw_ostream &os) {
    Module selected;
    if (opts.kernel.empty()) {
      dumpAST(*ast, os);
      return;
    }
    for (auto &k : ast->kernels)
      if (k->name == opts.kernel)
        selected.kernels.push_back(std::move(k));
    dumpAST(selected, os);
  });
}

/// With --timings, a timing manager that prints its tree to stderr when it
/// goes out of scope; disabled otherwise (its scopes then cost nothing).
struct StageTimer {
  mlir::DefaultTimingManager manager;
  mlir::TimingScope root;
  explicit StageTimer(bool on) {
    manager.setEnabled(on);
    manager.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
    root = manager.getRootScope();
  }
};

int emitTile(const CompileOptions &opts, const SourceFile &file, const Specialization &spec) {
  StageTimer timer(opts.timings);
  DiagnosticEngine diags(file);
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  mlir::TimingScope frontend = timer.root.nest("frontend (parse, check, tile IR)");
  auto module = buildTileModule(file, frontendOptions(opts, spec), ctx, diags);
  frontend.stop();
  diags.render(llvm::errs());
  if (!module)
    return 1;
  return writeOutput(opts, [&](llvm::raw_ostream &os) { module->print(os); });
}

/// A cluster option that the grid of these sizes cannot launch is dropped,
/// with a note, as the runtime drops it (jit::clusterObstacle); where the
/// grid's size is not known (a dim without --dim), it stays, with a note.
void dropUnlaunchableCluster(mlir::ModuleOp module, const SourceFile &file,
                             const Specialization &spec) {
  module.walk([&](mlir::tile::KernelOp kernel) {
    if (mlir::tile::scheduleOption(kernel, kClusterOption) <= 1)
      return;
    auto program = jit::Program::fromSource(file.name(), file.text());
    if (!program) {
      llvm::consumeError(program.takeError());
      return;
    }
    auto sig = (*program)->kernel(kernel.getSymName());
    if (!sig) {
      llvm::consumeError(sig.takeError());
      return;
    }
    jit::CompileRequest req;
    req.dims = spec.dims;
    auto grid = jit::evaluateGrid(kernel, *sig, req);
    if (!grid) {
      llvm::errs() << "tessera: note: " << kClusterOption << "="
                   << mlir::tile::scheduleOption(kernel, kClusterOption)
                   << " kept: the grid's size is not known (" << llvm::toString(grid.takeError())
                   << "); a launch drops it where axis 0 is not a multiple of it\n";
      return;
    }
    if (std::string why = jit::clusterObstacle(kernel, *grid); !why.empty()) {
      llvm::errs() << "tessera: note: " << why << "; the option is dropped\n";
      kernel->removeAttr("tile.cluster");
    }
  });
}

/// gpu (LLVM + NVVM dialects), llvm (LLVM IR), ptx, cubin: the code generator.
int emitCodegen(const CompileOptions &opts, const SourceFile &file, const Specialization &spec,
                EmitStage stage) {
  StageTimer timer(opts.timings);
  DiagnosticEngine diags(file);
  mlir::DialectRegistry registry;
  pipeline::registerCodegenDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::TimingScope frontend = timer.root.nest("frontend (parse, check, tile IR)");
  auto module = buildTileModule(file, frontendOptions(opts, spec), ctx, diags);
  frontend.stop();
  if (!module) {
    diags.render(llvm::errs());
    return 1;
  }
  if (opts.unaligned)
    module->walk([&](mlir::Operation *op) {
      if (op->getName().getStringRef() == "tile.kernel")
        op->setAttr("tile.aligned", mlir::BoolAttr::get(&ctx, false));
    });
  if (opts.debug)
    module->walk([&](mlir::tile::KernelOp k) { pipeline::enableAsserts(k); });
  dropUnlaunchableCluster(*module, file, spec);
  {
    DiagnosticEngine::MLIRHandler handler(diags, ctx, /*internal=*/false);
    if (failed(pipeline::lowerToLLVMDialect(*module, opts.arch,
                                            opts.timings ? &timer.root : nullptr))) {
      diags.render(llvm::errs());
      return 1;
    }
  }
  diags.render(llvm::errs()); // notes
  if (stage == EmitStage::GPU)
    return writeOutput(opts, [&](llvm::raw_ostream &os) { module->print(os); });
  mlir::TimingScope backend =
      timer.root.nest(stage == EmitStage::LLVM ? "LLVM IR" : "LLVM IR and PTX (NVPTX)");
  auto text = stage == EmitStage::LLVM
                  ? pipeline::toLLVMIR(*module, opts.arch)
                  : pipeline::toPTX(*module, opts.arch, opts.optLevel,
                                    opts.llvmPasses.empty() ? target::defaultLLVMPasses()
                                                            : opts.llvmPasses);
  backend.stop();
  if (!text) {
    printToolError(llvm::errs(), "code generation failed: " + llvm::toString(text.takeError()));
    return 1;
  }
  if (stage != EmitStage::Cubin)
    return writeOutput(opts, [&](llvm::raw_ostream &os) { os << *text; });
  std::string log;
  mlir::TimingScope ptxas = timer.root.nest("ptxas");
  auto cubin = target::compileCubin(*text, opts.arch, &log);
  ptxas.stop();
  if (!cubin) {
    std::string msg = llvm::toString(cubin.takeError());
    // A missing ptxas is the environment's fault, not the program's.
    bool missing = llvm::StringRef(msg).contains("ptxas not found");
    printToolError(llvm::errs(), msg);
    return missing ? 2 : 1;
  }
  return writeOutput(opts, [&](llvm::raw_ostream &os) { os.write(cubin->data(), cubin->size()); });
}

} // namespace

bool tessera::splitItems(const std::vector<std::string> &items, const char *flag, const char *what,
                         std::map<std::string, std::string> &out) {
  for (const std::string &item : items) {
    llvm::StringRef s(item);
    auto [name, value] = s.split('=');
    name = name.trim();
    value = value.trim();
    // (A hyphen for the compiler's schedule options, such as split-k.)
    bool nameOk = !name.empty() && (isalpha((unsigned char)name[0]) || name[0] == '_') &&
                  llvm::all_of(name, [](char c) {
                    return isalnum((unsigned char)c) || c == '_' || c == '-';
                  });
    if (!s.contains('=') || !nameOk || value.empty()) {
      printToolError(llvm::errs(),
                     llvm::Twine(flag) + " expects NAME=" + what + ", got '" + item + "'");
      return false;
    }
    if (!out.emplace(name.str(), value.str()).second) {
      printToolError(llvm::errs(), llvm::Twine(flag) + " " + name + " is given twice");
      return false;
    }
  }
  return true;
}

bool tessera::parseIntegerItems(const std::vector<std::string> &items, const char *flag,
                                std::map<std::string, int64_t> &out) {
  std::map<std::string, std::string> text;
  if (!splitItems(items, flag, "INTEGER", text))
    return false;
  for (auto &[name, value] : text) {
    int64_t v;
    if (llvm::StringRef(value).getAsInteger(10, v)) {
      printToolError(llvm::errs(),
                     llvm::Twine(flag) + " expects NAME=INTEGER, got '" + name + "=" + value + "'");
      return false;
    }
    out[name] = v;
  }
  return true;
}

bool tessera::parseNumberItems(const std::vector<std::string> &items, const char *flag,
                               std::map<std::string, double> &out) {
  std::map<std::string, std::string> text;
  if (!splitItems(items, flag, "NUMBER", text))
    return false;
  for (auto &[name, value] : text) {
    double x = 0;
    if (value != "true" && value != "false" && llvm::StringRef(value).getAsDouble(x)) {
      printToolError(llvm::errs(),
                     llvm::Twine(flag) + " expects NAME=NUMBER, got '" + name + "=" + value + "'");
      return false;
    }
    out[name] = value == "true" ? 1 : value == "false" ? 0 : x;
  }
  return true;
}

bool tessera::parseNpyItems(const std::vector<std::string> &items, const char *flag,
                            std::map<std::string, NpyArray> &out) {
  std::map<std::string, std::string> paths;
  if (!splitItems(items, flag, "PATH.npy", paths))
    return false;
  for (auto &[name, path] : paths) {
    auto a = readNpy(path);
    if (!a) {
      reportError(a.takeError());
      return false;
    }
    out[name] = std::move(*a);
  }
  return true;
}

bool tessera::checkArch(const std::string &arch) {
  if (arch.empty() || target::TargetInfo::lookup(arch))
    return true;
  printToolError(llvm::errs(), "unsupported --arch '" + arch + "'; expected one of " +
                                   target::TargetInfo::supportedList());
  return false;
}

int tessera::runCompile(const CompileOptions &options) {
  CompileOptions opts = options;
  if (opts.arch.empty())
    opts.arch = target::TargetInfo::kDefaultArch.str();
  std::optional<EmitStage> stage = parseStage(opts.emit);
  if (!stage) {
    printToolError(llvm::errs(), "unknown --emit stage '" + opts.emit +
                                     "'; expected ast, tile, gpu, llvm, ptx or cubin");
    return 1;
  }
  if (!checkArch(opts.arch))
    return 1;
  Specialization spec;
  if (!parseIntegerItems(opts.params, "--param", spec.params) ||
      !parseIntegerItems(opts.dims, "--dim", spec.dims) ||
      !parseNumberItems(opts.scalars, "--scalar", spec.scalars))
    return 1;
  if (opts.sms > 0)
    spec.numSms = opts.sms;
  spec.index64 = opts.index64;
  auto buf = llvm::MemoryBuffer::getFile(opts.input, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    printToolError(llvm::errs(), "cannot read '" + opts.input + "': " + buf.getError().message());
    return 1;
  }
  SourceFile file(opts.input, (*buf)->getBuffer().str());
  switch (*stage) {
  case EmitStage::AST:
    return emitAST(opts, file, spec);
  case EmitStage::Tile:
    return emitTile(opts, file, spec);
  default:
    return emitCodegen(opts, file, spec, *stage);
  }
}
