"""The exceptions Tessera raises, and the one place a C API status becomes
one: check() raises the class of a failed status with the library's last
message (thread-local in libtessera, so concurrent callers see their own)."""

from . import _lib


class TesseraError(RuntimeError):
    """A failure the C API reported; str() is its message."""


class ProgramError(TesseraError):
    """The source does not parse or type-check (the message points at the line)."""


class CompileError(TesseraError):
    """Code generation failed for this specialization."""


class BindingError(TesseraError, ValueError):
    """Arguments that do not fit the kernel (sizes that disagree, strides)."""


class NoGPUError(TesseraError):
    """No NVIDIA driver or GPU."""


class CudaError(TesseraError):
    """A driver call or a launch failed."""


ERRORS = {
    _lib.INVALID_ARGUMENT: ValueError,
    _lib.PROGRAM: ProgramError,
    _lib.BINDING: BindingError,
    _lib.COMPILE: CompileError,
    _lib.NO_GPU: NoGPUError,
    _lib.CUDA: CudaError,
    _lib.RUNTIME: TesseraError,
}


def check(status):
    if status != _lib.OK:
        raise ERRORS.get(status, TesseraError)(_lib.last_error())


# Public under the package's name (tracebacks, repr, pickling), as they were
# when defined in tessera/__init__.py.
for _cls in (TesseraError, ProgramError, CompileError, BindingError, NoGPUError, CudaError):
    _cls.__module__ = "tessera"
del _cls
