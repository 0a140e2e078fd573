"""What a launch of Kernel (tessera/__init__.py) caches and looks up: the
checked C arguments of a launch signature (LaunchPlan), the key that finds
them again for torch tensors and numbers (launch_key), and the CUDA stream a
launch goes on (stream_handle)."""

import ctypes
import sys

from . import _lib


class LaunchPlan:
    """The checked C arguments of a launch signature; per argument, whether it
    is a scalar (patched by value) or a tensor (patched by data pointer)."""

    def __init__(self, cargs, keep, cparams, num_params, device_index):
        self.cargs, self.keep, self.cparams = cargs, keep, cparams
        self.num_params, self.device_index = num_params, device_index
        # Views of the patched fields inside the C array: a cached launch
        # sets them without building an Arg per argument.
        size = ctypes.sizeof(_lib.Arg)
        data, scalar = _lib.Arg.data.offset, _lib.Arg.scalar.offset
        self.pointers = [
            (i, ctypes.c_uint64.from_buffer(cargs, i * size + data))
            for i, c in enumerate(cargs)
            if c.kind == _lib.TENSOR
        ]
        self.values = [
            (i, ctypes.c_double.from_buffer(cargs, i * size + scalar))
            for i, c in enumerate(cargs)
            if c.kind == _lib.SCALAR
        ]
        self.c = None  # the C plan: runtime, program, kernel and these arrays
        self.prepared = None  # the C plan checked and converted once (an address)

    def prepare(self, c_plan):
        """Keeps `c_plan` (a _lib.LaunchPlan over these arrays) and its prepared
        form, which later launches patch (tessera_launch_prepared)."""
        handle = ctypes.c_void_p()
        status = _lib.lib.tessera_launch_prepare(ctypes.byref(c_plan), ctypes.byref(handle))
        self.c = c_plan
        self.prepared = handle.value
        return status

    def __del__(self):
        prepared, self.prepared = self.prepared, None
        if prepared is not None:
            try:
                _lib.lib.tessera_prepared_launch_destroy(prepared)
            except (AttributeError, TypeError):
                pass  # the interpreter's shutdown took the library first


def launch_key(args, params):
    """What decides a launch's checks and C arguments, for torch tensors and
    numbers; None for anything else (checked afresh every call). One flat
    tuple: a tensor gives four items (its dtype first), a number its type."""
    global _torch_module, _torch_tensor, raw_stream
    torch = sys.modules.get("torch")
    if torch is not _torch_module:
        _torch_module = torch
        _torch_tensor = torch.Tensor if torch is not None else None
        raw_stream = _raw_stream_getter(torch)
    tensor = _torch_tensor
    key = ()
    for a in args:
        t = type(a)
        if t is tensor or (tensor is not None and isinstance(a, tensor)):
            # get_device(): the CUDA index, -1 on the CPU (cheaper than .device).
            key += (a.dtype, a.shape, a.stride(), a.get_device())
        elif t is float or t is int:
            key += (t,)
        else:
            return None
    if params:
        key += (tuple((k, type(v), v) for k, v in params.items()),)
    return key


# The torch module last seen, its Tensor class and its raw current-stream
# getter (None where this torch lacks it), looked up again only when the
# module changes (a cached launch then costs one dictionary lookup).
_torch_module = None
_torch_tensor = None
raw_stream = None


def _raw_stream_getter(torch):
    """torch's raw current-stream getter (what Triton's launcher calls: no
    Stream object made), or None where this torch lacks it."""
    return getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)


def stream_handle(stream, device_index):
    if stream is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        raw = _raw_stream_getter(torch)
        if raw is not None:
            return raw(device_index)
        return torch.cuda.current_stream(device_index).cuda_stream
    if isinstance(stream, int):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise TypeError("tessera: stream must be a torch.cuda.Stream or a CUstream handle")
    return handle
