"""Tessera from Python: load .tile programs and launch their kernels on torch
tensors (or anything with __cuda_array_interface__), compile them to PTX, or
run them in the CPU interpreter on host arrays.

    import tessera
    k = tessera.load("examples/softmax.tile").softmax
    k(x, y)                       # on the GPU, on torch's current stream
    ptx = k.compile(x, y).ptx     # no GPU needed
    k.interpret(x_cpu, y_cpu)     # CPU interpreter, outputs written in place

Pure Python over ctypes and libtessera.so (the C API, tessera.h); no compiled
extension, so one build serves every Python 3.9+. Errors raise TypeError or
ValueError for arguments that do not fit a kernel (wrong dtype, rank, device,
layout, sizes), and TesseraError subclasses for the rest, with the located
message the compiler gives ("file:line:col: error: ...").
"""

import ctypes
import os
import threading

from . import _lib
from ._errors import (
    BindingError,
    CompileError,
    CudaError,
    NoGPUError,
    ProgramError,
    TesseraError,
    check as _check,
)
from . import _launch
from ._launch import LaunchPlan as _LaunchPlan
from ._launch import launch_key as _launch_key
from ._launch import stream_handle as _stream_handle
from ._tensors import view as _view

__all__ = [
    "load",
    "load_string",
    "version",
    "Program",
    "Kernel",
    "Compiled",
    "TesseraError",
    "ProgramError",
    "CompileError",
    "BindingError",
    "NoGPUError",
    "CudaError",
]


def version():
    return _lib.lib.tessera_version().decode()


def load(path):
    """The program in the .tile file at `path`."""
    handle = ctypes.c_void_p()
    _check(_lib.lib.tessera_program_load_file(os.fsencode(path), ctypes.byref(handle)))
    return Program(handle)


def load_string(source, name="<string>"):
    """The program in `source`; `name` is what messages call it."""
    handle = ctypes.c_void_p()
    _check(
        _lib.lib.tessera_program_load_string(
            name.encode(), source.encode(), ctypes.byref(handle)
        )
    )
    return Program(handle)


class _Param:
    def __init__(self, name, is_tensor, dtype, dims, written):
        self.name, self.is_tensor, self.dtype = name, is_tensor, dtype
        self.dims, self.written = dims, written  # dims: per axis a name or an int


class Program:
    """A loaded program; its kernels are attributes (`program.softmax`) and
    `program.kernels` lists their names."""

    def __init__(self, handle):
        self._handle = handle
        n = _lib.lib.tessera_program_num_kernels(handle)
        self.kernels = [_lib.lib.tessera_program_kernel_name(handle, i).decode() for i in range(n)]
        self._cache = {}

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _lib is not None:
            _lib.lib.tessera_program_destroy(handle)

    def kernel(self, name=None):
        if name is None:
            if len(self.kernels) != 1:
                raise ValueError(
                    "tessera: the program has %d kernels (%s); name one"
                    % (len(self.kernels), ", ".join(self.kernels))
                )
            name = self.kernels[0]
        if name not in self.kernels:
            raise AttributeError(
                "tessera: no kernel '%s' in the program (it has %s)"
                % (name, ", ".join(self.kernels))
            )
        if name not in self._cache:
            self._cache[name] = Kernel(self, name)
        return self._cache[name]

    def __getattr__(self, name):
        if name.startswith("_") or name == "kernels":
            raise AttributeError(name)
        return self.kernel(name)


class Compiled:
    """What tessera_compile returns: the PTX, its entry, the launch shape and
    the compile time (0 when the disk cache had it)."""

    def __init__(self, handle):
        lib = _lib.lib
        self.ptx = lib.tessera_compiled_ptx(handle).decode()
        self.entry = lib.tessera_compiled_entry(handle).decode()
        self.compile_ms = lib.tessera_compiled_ms(handle)
        self.shared_bytes = lib.tessera_compiled_shared_bytes(handle)
        self.threads = lib.tessera_compiled_threads(handle)
        grid = (ctypes.c_int64 * 3)()
        lib.tessera_compiled_grid(handle, grid)
        self.grid = tuple(grid)
        lib.tessera_compiled_destroy(handle)


_runtimes = {}
_runtimes_lock = threading.Lock()


def _runtime(device_index):
    with _runtimes_lock:
        rt = _runtimes.get(device_index)
        if rt is None:
            handle = ctypes.c_void_p()
            _check(_lib.lib.tessera_runtime_create(device_index, ctypes.byref(handle)))
            rt = _runtimes[device_index] = handle
        return rt


class Kernel:
    """One kernel of a program. Call it on tensors and scalars in declaration
    order; keyword arguments are tune parameters and schedule options
    (BM=128, num_warps=8, persistent=1)."""

    def __init__(self, program, name):
        self.program, self.name = program, name
        self._name = name.encode()
        self._local = threading.local()
        lib, h, kn = _lib.lib, program._handle, name.encode()
        count = ctypes.c_int32()
        _check(lib.tessera_kernel_num_params(h, kn, ctypes.byref(count)))
        self.params = []
        for i in range(count.value):
            info = _lib.ParamInfo()
            _check(lib.tessera_kernel_param(h, kn, i, ctypes.byref(info)))
            dims = []
            for axis in range(info.rank if info.is_tensor else 0):
                dim, literal = ctypes.c_char_p(), ctypes.c_int64()
                _check(
                    lib.tessera_kernel_param_axis(
                        h, kn, i, axis, ctypes.byref(dim), ctypes.byref(literal)
                    )
                )
                dims.append(dim.value.decode() or literal.value)
            self.params.append(
                _Param(
                    info.name.decode(),
                    bool(info.is_tensor),
                    info.dtype.decode(),
                    dims,
                    bool(info.written),
                )
            )

    def __repr__(self):
        return "<tessera kernel %s(%s)>" % (self.name, ", ".join(p.name for p in self.params))

    # -- arguments ---------------------------------------------------------

    def _args(self, args, where, stream=None):
        """The C arguments, checked against the signature; `where` is 'cuda'
        (launch), 'cpu' (interpret) or None (compile: any device)."""
        if len(args) != len(self.params):
            raise TypeError(
                "tessera: %s takes %d arguments (%s), got %d"
                % (self.name, len(self.params), ", ".join(p.name for p in self.params), len(args))
            )
        out = (_lib.Arg * len(args))()
        keep = []
        views = []  # the tensor views (DLPack capsules): the caller holds them during its call
        dims = {}
        device_index = None
        for i, (p, a) in enumerate(zip(self.params, args)):
            t = _view(a, stream)
            if not p.is_tensor:
                if t is not None or not isinstance(a, (bool, int, float)):
                    raise TypeError(
                        "tessera: %s: parameter '%s' is a %s scalar, got %s"
                        % (self.name, p.name, p.dtype, type(a).__name__)
                    )
                out[i].kind = _lib.SCALAR
                out[i].scalar = float(a)
                continue
            if t is None:
                raise TypeError(
                    "tessera: %s: parameter '%s' is a tensor, got %s"
                    % (self.name, p.name, type(a).__name__)
                )
            views.append(t)
            if t.dtype != p.dtype:
                raise TypeError(
                    "tessera: %s: '%s' must be %s, got %s" % (self.name, p.name, p.dtype, t.dtype)
                )
            if len(t.shape) != len(p.dims):
                raise ValueError(
                    "tessera: %s: '%s' must have rank %d, got shape %s"
                    % (self.name, p.name, len(p.dims), list(t.shape))
                )
            for axis, (d, extent) in enumerate(zip(p.dims, t.shape)):
                if isinstance(d, int) and d != extent:
                    raise ValueError(
                        "tessera: %s: axis %d of '%s' must be %d, got %d"
                        % (self.name, axis, p.name, d, extent)
                    )
                if isinstance(d, str):
                    if d in dims and dims[d][0] != extent:
                        raise ValueError(
                            "tessera: %s: dim %s is %d (%s) but %d (axis %d of '%s')"
                            % (self.name, d, dims[d][0], dims[d][1], extent, axis, p.name)
                        )
                    dims.setdefault(d, (extent, "axis %d of '%s'" % (axis, p.name)))
            if t.shape and t.strides[-1] != 1 and t.shape[-1] != 1:
                raise ValueError(
                    "tessera: %s: '%s' must be contiguous along its last axis (stride %d); "
                    "call .contiguous()" % (self.name, p.name, t.strides[-1])
                )
            if where == "cuda":
                if t.device != "cuda":
                    raise ValueError(
                        "tessera: %s: '%s' is on %s; a launch takes CUDA tensors "
                        "(use .interpret() for host data)" % (self.name, p.name, t.device)
                    )
                if device_index is None:
                    device_index = t.device_index or 0
                elif (t.device_index or 0) != device_index:
                    raise ValueError(
                        "tessera: %s: '%s' is on cuda:%d, the others on cuda:%d"
                        % (self.name, p.name, t.device_index or 0, device_index)
                    )
            if where == "cpu":
                if t.device != "cpu":
                    raise ValueError(
                        "tessera: %s: '%s' is on %s; the interpreter takes host tensors"
                        % (self.name, p.name, t.device)
                    )
                if not t.contiguous():
                    raise ValueError(
                        "tessera: %s: the interpreter takes contiguous tensors; '%s' is not"
                        % (self.name, p.name)
                    )
            shape = (ctypes.c_int64 * max(1, len(t.shape)))(*t.shape)
            strides = (ctypes.c_int64 * max(1, len(t.strides)))(*t.strides)
            dtype = t.dtype.encode()
            keep += [shape, strides, dtype]  # the caller holds the tensors
            out[i].kind = _lib.TENSOR
            out[i].data = t.data
            out[i].dtype = dtype
            out[i].rank = len(t.shape)
            out[i].shape = shape
            out[i].strides = strides
        return out, keep, device_index, views

    # Schedule options have hyphens (split-k); as keywords they take underscores.
    _SCHEDULE = {"split_k": "split-k", "warp_specialize": "warp-specialize", "tma_store": "tma-store",
                 "rotate_dots": "rotate-dots", "ping_pong": "ping-pong"}

    @classmethod
    def _params(cls, params):
        out = (_lib.Param * max(1, len(params)))()
        keep = []
        for i, (name, value) in enumerate(params.items()):
            if not isinstance(value, int):
                raise TypeError("tessera: parameter %s must be an integer, got %r" % (name, value))
            encoded = cls._SCHEDULE.get(name, name).encode()
            keep.append(encoded)
            out[i].name = encoded
            out[i].value = int(value)
        return out, keep

    # -- the three ways to run ---------------------------------------------

    def __call__(self, *args, stream=None, **params):
        """Launches on the GPU of the tensors, on `stream` (a torch.cuda.Stream,
        a CUstream handle as an int) or else torch's current stream there.

        A call whose torch tensors have the dtypes, shapes, strides and device
        of an earlier call, with the same keywords, reuses that call's checked
        C arguments with the new data pointers and scalars patched in."""
        key = _launch_key(args, params)
        # Plans are per thread: a plan's arguments are patched in place.
        try:
            plans = self._local.plans
        except AttributeError:
            plans = self._local.plans = {}
        plan = plans.get(key) if key is not None else None
        if plan is None:
            # DLPack producers order their work before the launch's stream
            # (1: the legacy default stream, in the protocol's numbering).
            dl_stream = _stream_handle(stream, 0) or 1
            cargs, keep, device_index, views = self._args(args, "cuda", dl_stream)
            cparams, keep2 = self._params(params)
            plan = _LaunchPlan(cargs, keep + keep2, cparams, len(params), device_index or 0)
            c_plan = _lib.LaunchPlan(
                _runtime(plan.device_index),
                self.program._handle,
                self._name,
                cargs,
                len(args),
                cparams,
                len(params),
            )
            if key is None:
                plan.c = c_plan  # checked afresh every call: launched once, not prepared
            else:
                status = plan.prepare(c_plan)
                if status:
                    _check(status)
                if len(plans) > 64:
                    plans.clear()
                plans[key] = plan
        else:
            for i, slot in plan.pointers:
                slot.value = args[i].data_ptr()
            for i, slot in plan.values:
                slot.value = args[i]
        raw_stream = _launch.raw_stream
        if stream is None and raw_stream is not None:
            handle = raw_stream(plan.device_index)
        else:
            handle = _stream_handle(stream, plan.device_index)
        # One C call of two arguments: the (prepared) plan holds the rest.
        if plan.prepared is not None:
            status = _lib.lib.tessera_launch_prepared(plan.prepared, handle)
        else:
            status = _lib.lib.tessera_launch_planned(plan.c, handle)
        if status:
            _check(status)

    def tune(self, *args, budget=60.0, warp_specialize=False, tma_store=False):
        """Tunes the kernel for the sizes of these CUDA tensors (their data is
        not read: the tuner times every configuration on random inputs of
        those shapes, checking outputs) within `budget` seconds; the winner
        goes into the tuning database, so later calls of these sizes use it.
        Returns (parameters, median milliseconds)."""
        cargs, keep, device_index, views = self._args(args, "cuda")
        rt = _runtime(device_index or 0)
        flags = (_lib.TUNE_WARP_SPECIALIZE if warp_specialize else 0) | (
            _lib.TUNE_TMA_STORE if tma_store else 0
        )
        best = ctypes.create_string_buffer(512)
        ms = ctypes.c_double()
        _check(
            _lib.lib.tessera_tune(
                rt,
                self.program._handle,
                self._name,
                cargs,
                len(args),
                float(budget),
                flags,
                best,
                len(best),
                ctypes.byref(ms),
            )
        )
        params = {}
        for item in best.value.decode().split():
            name, value = item.split("=")
            params[name] = int(value)
        self._local = threading.local()  # launches look the new entry up again
        return params, ms.value

    def compile(self, *args, arch=None, **params):
        """The PTX of the specialization these arguments select (their shapes,
        dtypes and alignment; no GPU needed), as a Compiled."""
        cargs, keep, _, views = self._args(args, None)
        cparams, keep2 = self._params(params)
        handle = ctypes.c_void_p()
        _check(
            _lib.lib.tessera_compile(
                self.program._handle,
                self.name.encode(),
                cargs,
                len(args),
                cparams,
                len(params),
                arch.encode() if arch else None,
                ctypes.byref(handle),
            )
        )
        return Compiled(handle)

    def interpret(self, *args, threads=0, **params):
        """Runs the kernel in the CPU interpreter on host tensors (torch CPU
        tensors, NumPy arrays, writable buffers), writing outputs in place."""
        cargs, keep, _, views = self._args(args, "cpu")
        cparams, keep2 = self._params(params)
        _check(
            _lib.lib.tessera_interpret(
                self.program._handle,
                self.name.encode(),
                cargs,
                len(args),
                cparams,
                len(params),
                threads,
            )
        )
