/* The C API from C, without a GPU: load programs (and fail with located
 * messages), read signatures, compile to PTX, interpret on host memory, and
 * get a status (never an abort) for bad calls and for a runtime without a
 * driver. With an argument, the path of a shared libLLVM: it is loaded
 * first, globally, so libtessera.so (linked to this program) must resolve to
 * its own hidden copy of LLVM beside it.
 * Usage: tessera-capi-test SOURCE_DIR [LIBLLVM] */
#include "tessera/tessera.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static tessera_arg tensor(void *data, const char *dtype, int32_t rank, const int64_t *shape) {
  tessera_arg a;
  memset(&a, 0, sizeof a);
  a.kind = TESSERA_ARG_TENSOR;
  a.data = (uint64_t)(uintptr_t)data;
  a.dtype = dtype;
  a.rank = rank;
  a.shape = shape;
  return a;
}

static const char *kAxpy = "// y = a * x + y\n"
                           "kernel axpy(x: tensor<f32, [N]>, y: tensor<f32, [N]>, a: f32)\n"
                           "  tune BLOCK in [256, 128]\n"
                           "  grid [cdiv(N, BLOCK)]\n"
                           "{\n"
                           "  let i = program_id(0);\n"
                           "  store(y, [i], a * load(x, [i], [BLOCK]) + load(y, [i], [BLOCK]));\n"
                           "}\n";

/* Eight threads compile and interpret with one shared program at once, each
 * its own size and block (six specializations, some asked for twice at once)
 * and its own last error. */
typedef struct {
  const tessera_program *prog;
  int64_t n, block;
  int ok;
} worker_arg;

static void *worker(void *p) {
  worker_arg *w = (worker_arg *)p;
  int64_t n = w->n;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  tessera_arg args[3] = {tensor(x, "f32", 1, &n), tensor(y, "f32", 1, &n), {0}};
  args[2].kind = TESSERA_ARG_SCALAR;
  args[2].scalar = 3.0;
  tessera_param block = {"BLOCK", w->block};
  tessera_compiled *ck = NULL;
  int ok = tessera_compile(w->prog, NULL, args, 3, &block, 1, "sm_80", &ck) == TESSERA_OK &&
           strstr(tessera_compiled_ptx(ck), ".entry") != NULL;
  int64_t grid[3];
  tessera_compiled_grid(ck, grid);
  ok = ok && grid[0] == (n + w->block - 1) / w->block;
  tessera_compiled_destroy(ck);
  ok = ok && tessera_interpret(w->prog, NULL, args, 3, &block, 1, 1) == TESSERA_OK;
  for (int64_t i = 0; ok && i < n; ++i)
    ok = y[i] == 3.0f * (float)i + 1.0f;
  /* This thread's error, whatever the others do meanwhile. */
  tessera_param bad = {"NOPE", 1};
  ok = ok && tessera_compile(w->prog, NULL, args, 3, &bad, 1, NULL, &ck) == TESSERA_ERROR_COMPILE &&
       strstr(tessera_last_error(), "'NOPE'") != NULL;
  free(x);
  free(y);
  w->ok = ok;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SOURCE_DIR [LIBLLVM]\n", argv[0]);
    return 2;
  }
  if (argc > 2) {
    void *llvm = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL);
    CHECK(llvm != NULL, "could not load %s: %s", argv[2], dlerror());
  }
  CHECK(strlen(tessera_version()) > 0, "no version");

  /* A program from a string: one kernel, its signature. */
  tessera_program *prog = NULL;
  CHECK(tessera_program_load_string("axpy.tile", kAxpy, &prog) == TESSERA_OK, "%s",
        tessera_last_error());
  if (!prog)
    return 1;
  CHECK(tessera_program_num_kernels(prog) == 1, "kernels");
  CHECK(strcmp(tessera_program_kernel_name(prog, 0), "axpy") == 0, "name");
  CHECK(tessera_program_kernel_name(prog, 1) == NULL, "past the end");
  int32_t nparams = 0;
  CHECK(tessera_kernel_num_params(prog, NULL, &nparams) == TESSERA_OK && nparams == 3, "params");
  tessera_param_info info;
  CHECK(tessera_kernel_param(prog, "axpy", 1, &info) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(strcmp(info.name, "y") == 0 && info.is_tensor && strcmp(info.dtype, "f32") == 0 &&
            info.rank == 1 && info.written,
        "param y: %s %d %s %d %d", info.name, info.is_tensor, info.dtype, info.rank, info.written);
  const char *dim = NULL;
  int64_t literal = -1;
  CHECK(tessera_kernel_param_axis(prog, NULL, 0, 0, &dim, &literal) == TESSERA_OK &&
            strcmp(dim, "N") == 0 && literal == 0,
        "axis");
  CHECK(tessera_kernel_param(prog, "axpy", 3, &info) == TESSERA_ERROR_INVALID_ARGUMENT,
        "no fourth parameter");
  CHECK(strstr(tessera_last_error(), "no parameter 3") != NULL, "%s", tessera_last_error());
  CHECK(tessera_kernel_num_params(prog, "nope", &nparams) == TESSERA_ERROR_INVALID_ARGUMENT,
        "unknown kernel");
  CHECK(strstr(tessera_last_error(), "nope") != NULL, "%s", tessera_last_error());

  /* Compile: the specialization of these shapes, for sm_90a and sm_80. */
  int64_t n = 1000;
  tessera_arg args[3] = {tensor(NULL, "f32", 1, &n), tensor(NULL, "f32", 1, &n), {0}};
  args[2].kind = TESSERA_ARG_SCALAR;
  args[2].scalar = 2.0;
  tessera_param block = {"BLOCK", 128};
  tessera_compiled *ck = NULL;
  CHECK(tessera_compile(prog, NULL, args, 3, &block, 1, "sm_80", &ck) == TESSERA_OK, "%s",
        tessera_last_error());
  if (ck) {
    CHECK(strstr(tessera_compiled_ptx(ck), ".target sm_80") != NULL, "sm_80 PTX");
    CHECK(strstr(tessera_compiled_ptx(ck), tessera_compiled_entry(ck)) != NULL, "entry");
    int64_t grid[3];
    tessera_compiled_grid(ck, grid);
    CHECK(grid[0] == 8 && grid[1] == 1 && grid[2] == 1, "grid %lld", (long long)grid[0]);
    CHECK(tessera_compiled_threads(ck) == 128, "threads %d", tessera_compiled_threads(ck));
    tessera_compiled_destroy(ck);
  }
  ck = NULL;
  CHECK(tessera_compile(prog, NULL, args, 3, NULL, 0, NULL, &ck) == TESSERA_OK, "%s",
        tessera_last_error());
  if (ck)
    CHECK(strstr(tessera_compiled_ptx(ck), ".target sm_90a") != NULL, "default arch");
  tessera_compiled_destroy(ck);

  /* Bad calls: a dtype the kernel does not take, a bad parameter, an unknown
   * dtype, an unknown architecture. */
  tessera_arg wrong[3] = {tensor(NULL, "f16", 1, &n), args[1], args[2]};
  CHECK(tessera_compile(prog, NULL, wrong, 3, NULL, 0, NULL, &ck) == TESSERA_ERROR_BINDING, "f16");
  CHECK(strstr(tessera_last_error(), "f16") != NULL, "%s", tessera_last_error());
  tessera_param bad = {"BLOCKS", 128};
  CHECK(tessera_compile(prog, NULL, args, 3, &bad, 1, NULL, &ck) == TESSERA_ERROR_COMPILE,
        "BLOCKS");
  CHECK(strstr(tessera_last_error(), "no tunable parameter 'BLOCKS'") != NULL, "%s",
        tessera_last_error());
  wrong[0] = tensor(NULL, "f31", 1, &n);
  CHECK(tessera_compile(prog, NULL, wrong, 3, NULL, 0, NULL, &ck) ==
            TESSERA_ERROR_INVALID_ARGUMENT,
        "f31");
  CHECK(tessera_compile(prog, NULL, args, 3, NULL, 0, "sm_70", &ck) == TESSERA_ERROR_COMPILE,
        "sm_70");
  CHECK(strstr(tessera_last_error(), "sm_70") != NULL, "%s", tessera_last_error());
  CHECK(tessera_compile(NULL, NULL, args, 3, NULL, 0, NULL, &ck) == TESSERA_ERROR_INVALID_ARGUMENT,
        "null program");

  /* Interpret on host memory; outputs written in place. */
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) {
    x[i] = (float)(i % 17) - 8.0f;
    y[i] = (float)(i % 5) * 0.25f;
  }
  args[0].data = (uint64_t)(uintptr_t)x;
  args[1].data = (uint64_t)(uintptr_t)y;
  CHECK(tessera_interpret(prog, "axpy", args, 3, NULL, 0, 2) == TESSERA_OK, "%s",
        tessera_last_error());
  int wrongValues = 0;
  for (int64_t i = 0; i < n; ++i)
    wrongValues += fabsf(y[i] - (2.0f * ((float)(i % 17) - 8.0f) + (float)(i % 5) * 0.25f)) > 0;
  CHECK(wrongValues == 0, "%d wrong values", wrongValues);
  int64_t shorter = n - 1;
  args[1].shape = &shorter;
  CHECK(tessera_interpret(prog, "axpy", args, 3, NULL, 0, 2) == TESSERA_ERROR_BINDING,
        "dims that disagree: %s", tessera_last_error());
  CHECK(strstr(tessera_last_error(), "N") != NULL, "%s", tessera_last_error());
  args[1].shape = &n;
  args[0].data = 0;
  CHECK(tessera_interpret(prog, "axpy", args, 3, NULL, 0, 2) == TESSERA_ERROR_INVALID_ARGUMENT,
        "null host pointer");
  free(x);
  free(y);

  /* Threads sharing the program. */
  {
    pthread_t threads[8];
    worker_arg w[8];
    for (int i = 0; i < 8; ++i) {
      w[i].prog = prog;
      w[i].n = 1000 + 129 * i;
      w[i].block = 32 << (i % 6);
      w[i].ok = 0;
      pthread_create(&threads[i], NULL, worker, &w[i]);
    }
    for (int i = 0; i < 8; ++i) {
      pthread_join(threads[i], NULL);
      CHECK(w[i].ok, "thread %d (n = %lld)", i, (long long)w[i].n);
    }
  }
  tessera_program_destroy(prog);

  /* Programs that do not load: located messages. */
  prog = NULL;
  CHECK(tessera_program_load_string("bad.tile", "kernel k(x: tensor<f32, [N]>) grid [1] {\n"
                                                "  store(x, [0] load(x, [0], [4]));\n}\n",
                                    &prog) == TESSERA_ERROR_PROGRAM,
        "syntax error");
  CHECK(strstr(tessera_last_error(), "bad.tile:2:") != NULL, "%s", tessera_last_error());
  /* An undefined name is found when a kernel is compiled: located too. */
  CHECK(tessera_program_load_string("late.tile", "kernel k(x: tensor<f32, [N]>) grid [1] {\n"
                                                 "  store(x, [0], load(x, [0], [4]) + y);\n}\n",
                                    &prog) == TESSERA_OK,
        "%s", tessera_last_error());
  if (prog) {
    CHECK(tessera_compile(prog, NULL, args, 1, NULL, 0, NULL, &ck) == TESSERA_ERROR_COMPILE,
          "undefined name");
    CHECK(strstr(tessera_last_error(), "late.tile:2:") != NULL, "%s", tessera_last_error());
    tessera_program_destroy(prog);
  }
  CHECK(tessera_program_load_file("/nonexistent/x.tile", &prog) == TESSERA_ERROR_PROGRAM, "file");
  CHECK(strstr(tessera_last_error(), "/nonexistent/x.tile") != NULL, "%s", tessera_last_error());

  /* A file: the examples' softmax. */
  char path[4096];
  snprintf(path, sizeof path, "%s/examples/softmax.tile", argv[1]);
  CHECK(tessera_program_load_file(path, &prog) == TESSERA_OK, "%s", tessera_last_error());
  tessera_program_destroy(prog);

  /* No driver here (or a GPU): a status and a message, not an abort. */
  tessera_runtime *rt = NULL;
  tessera_status s = tessera_runtime_create(0, &rt);
  if (s == TESSERA_OK)
    tessera_runtime_destroy(rt);
  else
    CHECK(s == TESSERA_ERROR_NO_GPU && strlen(tessera_last_error()) > 0, "status %d: %s", (int)s,
          tessera_last_error());
  CHECK(tessera_launch(NULL, NULL, NULL, NULL, 0, NULL, 0, NULL) == TESSERA_ERROR_INVALID_ARGUMENT,
        "null launch");
  CHECK(tessera_launch_planned(NULL, NULL) == TESSERA_ERROR_INVALID_ARGUMENT, "null plan");
  CHECK(strstr(tessera_last_error(), "null plan") != NULL, "%s", tessera_last_error());
  tessera_launch_plan empty = {0};
  CHECK(tessera_launch_planned(&empty, NULL) == TESSERA_ERROR_INVALID_ARGUMENT, "empty plan");
  CHECK(strstr(tessera_last_error(), "null runtime") != NULL, "%s", tessera_last_error());

  /* A prepared plan: converted once, its conversion errors at preparation (the
   * runtime is not used before a launch, so any non-null handle does here). */
  tessera_prepared_launch *prepared = NULL;
  CHECK(tessera_launch_prepare(NULL, &prepared) == TESSERA_ERROR_INVALID_ARGUMENT, "null plan");
  CHECK(tessera_launch_prepare(&empty, &prepared) == TESSERA_ERROR_INVALID_ARGUMENT, "empty");
  CHECK(strstr(tessera_last_error(), "null runtime") != NULL, "%s", tessera_last_error());
  CHECK(tessera_launch_prepared(NULL, NULL) == TESSERA_ERROR_INVALID_ARGUMENT, "null prepared");
  CHECK(strstr(tessera_last_error(), "null prepared launch") != NULL, "%s", tessera_last_error());
  tessera_prepared_launch_destroy(NULL);
  {
    tessera_program *axpy = NULL;
    CHECK(tessera_program_load_string("axpy.tile", kAxpy, &axpy) == TESSERA_OK, "%s",
          tessera_last_error());
    int64_t n = 100;
    tessera_arg args[3] = {tensor(NULL, "f32", 1, &n), tensor(NULL, "f32", 1, &n)};
    args[2].kind = TESSERA_ARG_SCALAR;
    args[2].scalar = 2.0;
    tessera_launch_plan plan = {(tessera_runtime *)&plan, axpy, "axpy", args, 3, NULL, 0};
    CHECK(tessera_launch_prepare(&plan, &prepared) == TESSERA_OK, "%s", tessera_last_error());
    tessera_prepared_launch_destroy(prepared);
    args[1].dtype = "f33";
    CHECK(tessera_launch_prepare(&plan, &prepared) == TESSERA_ERROR_INVALID_ARGUMENT, "dtype");
    CHECK(strstr(tessera_last_error(), "argument 1: unknown dtype 'f33'") != NULL, "%s",
          tessera_last_error());
    args[1].dtype = "f32";
    plan.kernel = "axpz";
    CHECK(tessera_launch_prepare(&plan, &prepared) == TESSERA_ERROR_INVALID_ARGUMENT, "kernel");
    CHECK(strstr(tessera_last_error(), "axpz") != NULL, "%s", tessera_last_error());
    tessera_program_destroy(axpy);
  }
  CHECK(tessera_tune(NULL, NULL, NULL, NULL, 0, 1.0, 0, NULL, 0, NULL) ==
            TESSERA_ERROR_INVALID_ARGUMENT,
        "null tune");

  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("capi: all checks passed\n");
  return failures ? 1 : 0;
}
