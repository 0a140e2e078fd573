/*===- tessera.h - the C API of the Tessera runtime ----------------------===*\
 *
 * Load .tile programs, compile their kernels to PTX, run them in the CPU
 * interpreter on host memory, and launch them on the GPU on raw device
 * pointers, from C or any language with a C FFI (the Python package uses
 * ctypes). Built as one shared library, libtessera.so, with LLVM and MLIR
 * linked in and hidden: it exports the tessera_* functions alone.
 *
 * Errors: every function that can fail returns a tessera_status (TESSERA_OK,
 * 0, on success) and leaves a message for tessera_last_error() on the calling
 * thread: a located one ("file:line:col: error: ...", with the source line)
 * for a bad program, the CUDA call and error name for a driver failure.
 * Nothing aborts the process.
 *
 * Threads: programs are immutable once loaded and may be shared. A runtime
 * may be shared between threads: its launches run one at a time, and a
 * specialization asked for by several threads at once is compiled once
 * (runtime/jit/Runtime.h). Compiling and interpreting need no runtime and may
 * run on any thread. The last error is per thread. A launch plan's arrays and
 * a prepared launch belong to one thread at a time (they are patched in place).
 *
\*===----------------------------------------------------------------------===*/
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TESSERA_API __attribute__((visibility("default")))
#else
#define TESSERA_API
#endif

typedef enum tessera_status {
  TESSERA_OK = 0,
  TESSERA_ERROR_INVALID_ARGUMENT = 1, /* a null handle, an unknown name, a bad value */
  TESSERA_ERROR_PROGRAM = 2,          /* the source does not parse or type-check */
  TESSERA_ERROR_BINDING = 3,          /* arguments that do not fit the kernel's signature */
  TESSERA_ERROR_COMPILE = 4,          /* code generation failed */
  TESSERA_ERROR_NO_GPU = 5,           /* no NVIDIA driver or GPU */
  TESSERA_ERROR_CUDA = 6,             /* creating a runtime failed in the driver */
  TESSERA_ERROR_RUNTIME = 7           /* a launch, interpretation or tuning that failed
                                         past binding (compile errors, driver calls,
                                         failed asserts: the message says which) */
} tessera_status;

typedef struct tessera_program tessera_program;
typedef struct tessera_runtime tessera_runtime;
typedef struct tessera_compiled tessera_compiled;

/* One argument: a tensor (data, dtype, shape and element strides; strides may
 * be null for row-major contiguous) or a scalar. For launches `data` is a
 * device pointer; for tessera_interpret a host pointer to row-major data; for
 * tessera_compile only the shape, strides and alignment matter (data may be
 * 0, read as aligned). dtype names: f32 f16 bf16 f64 i8 u8 i32 u32 i64 bool
 * f8e4m3 f8e5m2. */
typedef enum tessera_arg_kind { TESSERA_ARG_TENSOR = 0, TESSERA_ARG_SCALAR = 1 } tessera_arg_kind;
typedef struct tessera_arg {
  tessera_arg_kind kind;
  uint64_t data;
  const char *dtype;
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
  double scalar;
} tessera_arg;

/* A tune parameter or schedule option ("BM", "num_warps", "persistent"). */
typedef struct tessera_param {
  const char *name;
  int64_t value;
} tessera_param;

/* The message of the last failure on this thread ("" when none). Valid until
 * the thread's next call into the library. */
TESSERA_API const char *tessera_last_error(void);
/* The library's version and compiler identity (part of every cache key). */
TESSERA_API const char *tessera_version(void);

/* Programs. `name` is what located messages call the source. */
TESSERA_API tessera_status tessera_program_load_file(const char *path, tessera_program **out);
TESSERA_API tessera_status tessera_program_load_string(const char *name, const char *source,
                                                       tessera_program **out);
TESSERA_API void tessera_program_destroy(tessera_program *program);
TESSERA_API int32_t tessera_program_num_kernels(const tessera_program *program);
/* Null when `index` is out of range. */
TESSERA_API const char *tessera_program_kernel_name(const tessera_program *program, int32_t index);

/* A kernel's signature: its parameters in order (names and dim names are
 * owned by the program and live as long as it). `kernel` may be null or ""
 * when the program has one kernel. For a tensor, `dtype` and `rank`; each axis
 * is named by a dim ("" for a literal extent, given in `literal`). */
typedef struct tessera_param_info {
  const char *name;
  int32_t is_tensor;
  const char *dtype;
  int32_t rank;
  int32_t written; /* a tensor the kernel stores to */
} tessera_param_info;
TESSERA_API tessera_status tessera_kernel_num_params(const tessera_program *program,
                                                     const char *kernel, int32_t *out);
TESSERA_API tessera_status tessera_kernel_param(const tessera_program *program, const char *kernel,
                                                int32_t index, tessera_param_info *out);
/* Axis `axis` of tensor parameter `index`: its dim's name ("" when literal)
 * and the literal extent (0 when named). */
TESSERA_API tessera_status tessera_kernel_param_axis(const tessera_program *program,
                                                     const char *kernel, int32_t index,
                                                     int32_t axis, const char **dim,
                                                     int64_t *literal);

/* Compiling: the specialization these arguments select, to PTX, without a
 * GPU. `arch` null or "" means sm_90a. */
TESSERA_API tessera_status tessera_compile(const tessera_program *program, const char *kernel,
                                           const tessera_arg *args, int32_t num_args,
                                           const tessera_param *params, int32_t num_params,
                                           const char *arch, tessera_compiled **out);
TESSERA_API void tessera_compiled_destroy(tessera_compiled *compiled);
TESSERA_API const char *tessera_compiled_ptx(const tessera_compiled *compiled);
TESSERA_API const char *tessera_compiled_entry(const tessera_compiled *compiled);
/* Milliseconds of the frontend and code generation (0 when from the cache). */
TESSERA_API double tessera_compiled_ms(const tessera_compiled *compiled);
TESSERA_API int64_t tessera_compiled_shared_bytes(const tessera_compiled *compiled);
TESSERA_API int32_t tessera_compiled_threads(const tessera_compiled *compiled);
TESSERA_API void tessera_compiled_grid(const tessera_compiled *compiled, int64_t grid[3]);

/* Interpreting: runs the kernel on the CPU over host memory (tensors
 * row-major; strides must be null or row-major); outputs are written in
 * place. `threads` 0: one per hardware thread. */
TESSERA_API tessera_status tessera_interpret(const tessera_program *program, const char *kernel,
                                             const tessera_arg *args, int32_t num_args,
                                             const tessera_param *params, int32_t num_params,
                                             uint32_t threads);

/* The GPU. A runtime owns device `device`'s primary context, a disk cache
 * ($TESSERA_CACHE_DIR or the default) and the tuning database. */
TESSERA_API tessera_status tessera_runtime_create(int32_t device, tessera_runtime **out);
TESSERA_API void tessera_runtime_destroy(tessera_runtime *runtime);
/* Launches on `stream` (a CUstream; null: the default stream). Without
 * params, the tuning database's configuration for these sizes, else the cost
 * model's. Asynchronous, as cuLaunchKernel. */
TESSERA_API tessera_status tessera_launch(tessera_runtime *runtime, const tessera_program *program,
                                          const char *kernel, const tessera_arg *args,
                                          int32_t num_args, const tessera_param *params,
                                          int32_t num_params, void *stream);

/* One launch signature's arguments in one place, for callers that launch it
 * again and again, patching data pointers and scalars in `args` in between
 * (the Python package does): tessera_launch_planned(plan, stream) is
 * tessera_launch(plan->runtime, plan->program, plan->kernel, plan->args,
 * plan->num_args, plan->params, plan->num_params, stream), every check
 * included. The arrays stay the caller's and are read at each launch. */
typedef struct tessera_launch_plan {
  tessera_runtime *runtime;
  const tessera_program *program;
  const char *kernel;
  const tessera_arg *args;
  int32_t num_args;
  const tessera_param *params;
  int32_t num_params;
} tessera_launch_plan;
TESSERA_API tessera_status tessera_launch_planned(const tessera_launch_plan *plan, void *stream);

/* A plan checked and converted once, for the launches that follow it:
 * tessera_launch_prepared(prepared, stream) launches as
 * tessera_launch_planned(plan, stream) would, but re-reads only the data
 * pointers of the plan's tensor arguments and the values of its scalars; the
 * runtime, program, kernel, dtypes, ranks, shapes, strides and parameters
 * stay those the plan had when it was prepared (prepare it again after
 * changing them). The plan, its arrays, its runtime and its program must
 * outlive the prepared launch, which one thread at a time may launch (the
 * runtime under it is shared as usual). */
typedef struct tessera_prepared_launch tessera_prepared_launch;
TESSERA_API tessera_status tessera_launch_prepare(const tessera_launch_plan *plan,
                                                  tessera_prepared_launch **out);
TESSERA_API tessera_status tessera_launch_prepared(tessera_prepared_launch *prepared, void *stream);
TESSERA_API void tessera_prepared_launch_destroy(tessera_prepared_launch *prepared);

/* Tunes `kernel` for the sizes of these arguments on the runtime's GPU: every
 * configuration of its tune clauses (with the flags, the compiler's schedules
 * too) compiled, then timed on random inputs of those shapes with outputs
 * checked against the default configuration's, within `budget_seconds`.
 * Tensor data is not read. The winner goes into the runtime's tuning database
 * (unless it is off), which later launches of these sizes consult; its
 * parameters ("BM=128 BN=256 num_warps=8") are copied into `best`
 * (NUL-terminated, cut to `best_size`) and its median time into `best_ms`
 * (either may be null). */
#define TESSERA_TUNE_WARP_SPECIALIZE 1u /* also warp-specialized and persistent */
#define TESSERA_TUNE_TMA_STORE 2u       /* also TMA-store epilogues */
TESSERA_API tessera_status tessera_tune(tessera_runtime *runtime, const tessera_program *program,
                                        const char *kernel, const tessera_arg *args,
                                        int32_t num_args, double budget_seconds, uint32_t flags,
                                        char *best, size_t best_size, double *best_ms);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TESSERA_H */
