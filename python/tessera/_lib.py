"""The ctypes binding of libtessera.so (runtime/capi/include/tessera/tessera.h).

The library is looked for, in order: $TESSERA_LIBRARY_PATH (the file, or a
directory holding it), next to this package, and in the build tree the package
was installed from (recorded at install time in _build_dir.txt) or sits in
(python/ beside build/).
"""

import ctypes
import os

OK = 0
INVALID_ARGUMENT = 1
PROGRAM = 2
BINDING = 3
COMPILE = 4
NO_GPU = 5
CUDA = 6
RUNTIME = 7

TENSOR = 0
SCALAR = 1

_NAME = "libtessera.so"


class Arg(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("data", ctypes.c_uint64),
        ("dtype", ctypes.c_char_p),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("scalar", ctypes.c_double),
    ]


class Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


class LaunchPlan(ctypes.Structure):
    _fields_ = [
        ("runtime", ctypes.c_void_p),
        ("program", ctypes.c_void_p),
        ("kernel", ctypes.c_char_p),
        ("args", ctypes.POINTER(Arg)),
        ("num_args", ctypes.c_int32),
        ("params", ctypes.POINTER(Param)),
        ("num_params", ctypes.c_int32),
    ]


class ParamInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("is_tensor", ctypes.c_int32),
        ("dtype", ctypes.c_char_p),
        ("rank", ctypes.c_int32),
        ("written", ctypes.c_int32),
    ]


def _candidates():
    env = os.environ.get("TESSERA_LIBRARY_PATH")
    if env:
        yield os.path.join(env, _NAME) if os.path.isdir(env) else env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, _NAME)
    recorded = os.path.join(here, "_build_dir.txt")
    if os.path.exists(recorded):
        with open(recorded) as f:
            yield os.path.join(f.read().strip(), "lib", _NAME)
    yield os.path.join(here, "..", "..", "build", "lib", _NAME)


def _load():
    tried = []
    for path in _candidates():
        path = os.path.normpath(path)
        if os.path.exists(path):
            return ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        tried.append(path)
    raise ImportError(
        "tessera: libtessera.so not found (build it with `cmake --build build --target "
        "tessera-capi`, or set TESSERA_LIBRARY_PATH); looked at: " + ", ".join(tried)
    )


lib = _load()

_P = ctypes.c_void_p
_status = ctypes.c_int
_signatures = {
    "tessera_last_error": (ctypes.c_char_p, []),
    "tessera_version": (ctypes.c_char_p, []),
    "tessera_program_load_file": (_status, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "tessera_program_load_string": (
        _status,
        [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)],
    ),
    "tessera_program_destroy": (None, [_P]),
    "tessera_program_num_kernels": (ctypes.c_int32, [_P]),
    "tessera_program_kernel_name": (ctypes.c_char_p, [_P, ctypes.c_int32]),
    "tessera_kernel_num_params": (
        _status,
        [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32)],
    ),
    "tessera_kernel_param": (
        _status,
        [_P, ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(ParamInfo)],
    ),
    "tessera_kernel_param_axis": (
        _status,
        [
            _P,
            ctypes.c_char_p,
            ctypes.c_int32,
            ctypes.c_int32,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.c_int64),
        ],
    ),
    "tessera_compile": (
        _status,
        [
            _P,
            ctypes.c_char_p,
            ctypes.POINTER(Arg),
            ctypes.c_int32,
            ctypes.POINTER(Param),
            ctypes.c_int32,
            ctypes.c_char_p,
            ctypes.POINTER(_P),
        ],
    ),
    "tessera_compiled_destroy": (None, [_P]),
    "tessera_compiled_ptx": (ctypes.c_char_p, [_P]),
    "tessera_compiled_entry": (ctypes.c_char_p, [_P]),
    "tessera_compiled_ms": (ctypes.c_double, [_P]),
    "tessera_compiled_shared_bytes": (ctypes.c_int64, [_P]),
    "tessera_compiled_threads": (ctypes.c_int32, [_P]),
    "tessera_compiled_grid": (None, [_P, ctypes.POINTER(ctypes.c_int64)]),
    "tessera_interpret": (
        _status,
        [
            _P,
            ctypes.c_char_p,
            ctypes.POINTER(Arg),
            ctypes.c_int32,
            ctypes.POINTER(Param),
            ctypes.c_int32,
            ctypes.c_uint32,
        ],
    ),
    "tessera_runtime_create": (_status, [ctypes.c_int32, ctypes.POINTER(_P)]),
    "tessera_runtime_destroy": (None, [_P]),
    "tessera_launch": (
        _status,
        [
            _P,
            _P,
            ctypes.c_char_p,
            ctypes.POINTER(Arg),
            ctypes.c_int32,
            ctypes.POINTER(Param),
            ctypes.c_int32,
            _P,
        ],
    ),
    "tessera_launch_planned": (_status, [ctypes.POINTER(LaunchPlan), _P]),
    "tessera_launch_prepare": (_status, [ctypes.POINTER(LaunchPlan), ctypes.POINTER(_P)]),
    "tessera_launch_prepared": (_status, [_P, _P]),
    "tessera_prepared_launch_destroy": (None, [_P]),
    "tessera_tune": (
        _status,
        [
            _P,
            _P,
            ctypes.c_char_p,
            ctypes.POINTER(Arg),
            ctypes.c_int32,
            ctypes.c_double,
            ctypes.c_uint32,
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_double),
        ],
    ),
}
TUNE_WARP_SPECIALIZE = 1
TUNE_TMA_STORE = 2
for _name, (_res, _args) in _signatures.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def last_error():
    return lib.tessera_last_error().decode("utf-8", "replace")
