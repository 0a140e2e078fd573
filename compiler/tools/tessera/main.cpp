//===- main.cpp - the tessera command line ----------------------*- C++ -*-===//
//
// CLI11 parsing only: fills the options structs of Driver.h and calls the
// subcommand. Parse errors exit with status 1.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/tessera/Driver.h"
#include "lib/Target/TargetInfo.h"

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
  c->add_option("--scalar", compile.scalars,
                "NAME=V: a scalar argument, as for run and tune; integer and bool scalars "
                "specialize the kernel (a 'where' clause that uses one needs it)")
      ->allow_extra_args(false);
  c->add_option("--emit", compile.emit, "the stage to print: ast|tile|gpu|llvm|ptx|cubin")
      ->capture_default_str();
  const std::string archs = tessera::target::TargetInfo::supportedList();
  c->add_option("--arch", compile.arch,
                "the GPU architecture (default " + tessera::target::TargetInfo::kDefaultArch.str() +
                    "; one of " + archs + ")");
  c->add_option("-o", compile.output, "write the output to this path instead of stdout");
  c->add_flag("--timings", compile.timings,
              "print where the time goes to stderr: the frontend, each code-generation pass, "
              "LLVM IR and PTX, ptxas (wall clock, in a tree)");
  c->add_flag("--unaligned", compile.unaligned,
              "do not assume 16-byte aligned tensors (no vectorized global accesses)");
  c->add_option("--sms", compile.sms,
                "N: the GPU's multiprocessor count, what num_sms() is (a GPU run uses its own)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--debug", compile.debug,
              "compile assert()s in (a failed one is reported by the runtime); without it they "
              "are dropped from GPU code");
  c->add_flag("--index64", compile.index64,
              "compile for the 64-bit size class (what a launch with an extent of 2^31 or more "
              "uses): 64-bit extents, and i64 dims, program_id(), num_programs() and arange()");
  c->add_option("-O", compile.optLevel,
                "LLVM optimization level for ptx and cubin (ptxas optimizes again)")
      ->check(CLI::Range(0u, 3u))
      ->capture_default_str();
  c->add_option("--llvm-passes", compile.llvmPasses,
                "an LLVM pass pipeline (opt -passes syntax) run on the IR instead of "
                "default<O-level>, for measuring cheaper ones (default: $TESSERA_LLVM_PASSES)");

  tessera::RunOptions run;
  CLI::App *r = app.add_subcommand(
      "run", "Compile a kernel for this GPU and run it on .npy arrays: every tensor\n"
             "argument from --arg, every scalar from --scalar; --out writes tensors back.");
  r->add_option("file", run.input, "the .tile source file")->required();
  r->add_option("--kernel", run.kernel, "the kernel to run (needed only to pick one of several)");
  r->add_option("--arg", run.args, "NAME=PATH.npy: a tensor argument")->allow_extra_args(false);
  r->add_option("--scalar", run.scalars, "NAME=V: a scalar argument")->allow_extra_args(false);
  r->add_option("--param", run.params, "NAME=V: override a tunable parameter")
      ->allow_extra_args(false);
  r->add_option("--out", run.outs, "NAME=PATH.npy: write this tensor argument after the run")
      ->allow_extra_args(false);
  r->add_flag("--interpret", run.interpret, "run in the CPU interpreter instead of on the GPU");
  r->add_option("--sms", run.sms,
                "N: what num_sms() is in the interpreter (--interpret only; on the GPU it is the "
                "GPU's multiprocessor count)")
      ->check(CLI::PositiveNumber);
  r->add_flag("--debug", run.debug,
              "on the GPU, compile assert()s in and fail with the first one that fails (the "
              "interpreter always checks them)");
  r->add_flag("--index64", run.index64,
              "run the 64-bit size class of the kernel even when no extent needs it (2^31 or "
              "more)");
  r->add_option("--arch", run.arch,
                "compile for this architecture instead of the GPU's (it must run there: "
                "sm_80 code runs on an sm_90a GPU)");

  tessera::TuneOptions tune;
  CLI::App *t = app.add_subcommand(
      "tune", "Autotune a kernel: enumerate its tune configurations, prune them, compile the rest\n"
              "in parallel and time them on the GPU; the winner goes to the tuning database.");
  t->add_option("file", tune.input, "the .tile source file")->required();
  t->add_option("--kernel", tune.kernel, "the kernel to tune (needed only to pick one of several)");
  t->add_option("--dim", tune.dims, "NAME=V: the size of a dim")->allow_extra_args(false);
  t->add_option("--scalar", tune.scalars, "NAME=V: a scalar argument")->allow_extra_args(false);
  t->add_option("--arg", tune.args,
                "NAME=PATH.npy: a tensor's contents, where its values decide the work (varlen "
                "attention's cu_seqlens); the other tensors are random")
      ->allow_extra_args(false);
  t->add_flag("--compile-only", tune.compileOnly,
              "enumerate, prune and compile (ptxas resource reports) without a GPU");
  t->add_option("--arch", tune.arch,
                "tune for this architecture (its budgets, its code) instead of the GPU's; "
                "with --compile-only the default is " +
                    tessera::target::TargetInfo::kDefaultArch.str());
  t->add_option("--threads", tune.threads, "compile workers (default: one per hardware thread)");
  t->add_option("--budget", tune.budget, "seconds for the whole search on the GPU")
      ->capture_default_str();
  t->add_option("--flops", tune.flops, "floating-point operations per launch (for TFLOP/s)");
  t->add_option("--bytes", tune.bytes, "bytes moved per launch (for TB/s)");
  t->add_option("--db", tune.db,
                "the tuning database (default: $TESSERA_TUNING_DB or the cache directory)");
  t->add_flag("--no-save", tune.noSave, "do not store the winner");
  t->add_flag("--warp-specialize", tune.warpSpecialize,
              "on sm_90a, also try every configuration with a producer warpgroup, alone and "
              "persistent (a kernel whose loop computes several dots, attention, gets the "
              "first without it)");
  t->add_flag("--tma-store", tune.tmaStore,
              "on sm_90a, also try every configuration (but split-K ones) with its epilogue "
              "stored through shared memory by TMA");
  t->add_option("--param", tune.params,
                "NAME=V: fix a tunable parameter or schedule option in every configuration (the "
                "search covers the rest)")
      ->allow_extra_args(false);

  tessera::BenchOptions bench;
  CLI::App *bn = app.add_subcommand(
      "bench",
      "Compare kernels with hand-written CUDA baselines (examples/cuda) and vendor libraries.");
  bn->add_option("file", bench.input, "the .tile kernel to compare (with --against)");
  bn->add_option("--kernel", bench.kernel, "the kernel (needed only to pick one of several)");
  bn->add_option("--against", bench.against, "FILE.cu:KERNEL: the hand-written CUDA twin");
  bn->add_option("--dim", bench.dims, "NAME=V: the size of a dim")->allow_extra_args(false);
  bn->add_option("--scalar", bench.scalars, "NAME=V: a scalar argument")->allow_extra_args(false);
  bn->add_option("--arg", bench.args,
                 "NAME=PATH.npy: a tensor's contents, for both sides (varlen attention's "
                 "cu_seqlens); the other tensors are random")
      ->allow_extra_args(false);
  bn->add_option("--flops", bench.flops, "floating-point operations per launch (for TFLOP/s)");
  bn->add_option("--bytes", bench.bytes, "bytes moved per launch (for TB/s)");
  bn->add_flag("--suite", bench.suite,
               "softmax, matmul and attention over size sweeps, against CUDA and cuBLAS");
  bn->add_option("--only", bench.only,
                 "with --suite: only the rows whose workload and size contain this text");
  bn->add_option(
      "--source-dir", bench.sourceDir,
      "where --suite finds the kernels (default: the working directory, "
      "$TESSERA_SOURCE_DIR, or the tree around the tessera binary or it was built from)");
  bn->add_option("--json", bench.json, "write the results as JSON");
  bn->add_option("--rivals", bench.rivals,
                 "with --suite: a JSON file of rows measured on this GPU by another program "
                 "(scripts/device-baselines.py --json), shown beside the suite's rows");
  bn->add_option("--svg", bench.svg, "write throughput against size as an SVG plot");
  bn->add_option("--reps", bench.reps, "timed launches per side")->capture_default_str();
  bn->add_flag("--compile-only", bench.compileOnly,
               "compile every CUDA baseline with NVRTC (no GPU needed)");
  bn->add_option("--cuda-dir", bench.cudaDir,
                 "the directory of the .cu baselines (default: examples/cuda of the source tree, "
                 "found as for --source-dir)");
  bn->add_option("--arch", bench.arch,
                 "compile the Tessera kernels for this architecture instead of the GPU's "
                 "(the CUDA baselines keep the GPU's)");

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
  if (*t)
    return tessera::runTune(tune);
  if (*bn)
    return tessera::runBench(bench);
  return 1;
}
