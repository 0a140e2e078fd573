//===- main.cpp - the tessera command line ----------------------*- C++ -*-===//
//
// CLI11 parsing only: fills the options structs of Driver.h and calls the
// subcommand. Parse errors exit with status 1.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"Tessera: a tile language and JIT compiler for GPUs.\n"
               "Kernels are written as tile programs (.tile) and lowered through the\n"
               "tile MLIR dialect towards PTX."};
  app.set_version_flag("--version", std::string("tessera ") + TESSERA_VERSION);
  app.require_subcommand(1);

  tessera::CompileOptions compile;
  CLI::App *c = app.add_subcommand(
      "compile", "Compile a .tile file and print the chosen stage: ast (the syntax tree) or\n"
                 "tile (verified tile IR, specialized with --param/--dim).");
  c->add_option("file", compile.input, "the .tile source file")->required();
  c->add_option("--kernel", compile.kernel,
                "the kernel to compile (needed only to pick one of several)");
  c->add_option("--param", compile.params,
                "NAME=V: override a tunable parameter (tune clause, num_warps, num_stages)")
      ->allow_extra_args(false);
  c->add_option("--dim", compile.dims,
                "NAME=V: the value of a dim (or integer scalar) for specialization; "
                "dims used as static extents default to 128")
      ->allow_extra_args(false);
  c->add_option("--emit", compile.emit, "the stage to print: ast|tile|gpu|llvm|ptx|cubin")
      ->capture_default_str();
  c->add_option("--arch", compile.arch, "the GPU architecture: sm_90a or sm_80")
      ->capture_default_str();
  c->add_option("-o", compile.output, "write the output to this path instead of stdout");
  c->add_flag("--unaligned", compile.unaligned,
              "do not assume 16-byte aligned tensors (no vectorized global accesses)");
  c->add_option("-O", compile.optLevel, "LLVM optimization level for ptx and cubin (ptxas optimizes again)")
      ->check(CLI::Range(0u, 3u))
      ->capture_default_str();

  tessera::RunOptions run;
  CLI::App *r = app.add_subcommand(
      "run", "Compile a kernel for this GPU and run it on .npy arrays: every tensor\n"
             "argument from --arg, every scalar from --scalar; --out writes tensors back.");
  r->add_option("file", run.input, "the .tile source file")->required();
  r->add_option("--kernel", run.kernel, "the kernel to run (needed only to pick one of several)");
  r->add_option("--arg", run.args, "NAME=PATH.npy: a tensor argument")->allow_extra_args(false);
  r->add_option("--scalar", run.scalars, "NAME=V: a scalar argument")->allow_extra_args(false);
  r->add_option("--param", run.params, "NAME=V: override a tunable parameter")->allow_extra_args(false);
  r->add_option("--out", run.outs, "NAME=PATH.npy: write this tensor argument after the run")
      ->allow_extra_args(false);
  r->add_flag("--interpret", run.interpret, "run in the CPU interpreter instead of on the GPU");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "tessera: error: " << e.what() << "\n"
              << "Run 'tessera --help' or 'tessera compile --help' for usage.\n";
    return 1;
  }
  if (*c)
    return tessera::runCompile(compile);
  if (*r)
    return tessera::runRun(run);
  return 1;
}
