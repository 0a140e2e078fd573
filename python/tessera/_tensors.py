"""What a tensor argument is made of: data pointer, dtype, shape, element
strides and device, read from a torch tensor, an object with
__cuda_array_interface__ (device memory), a DLPack producer (__dlpack__: JAX,
CuPy and others; host or device), __array_interface__ (NumPy, host memory), or,
without NumPy, a buffer (a memoryview, possibly cast to a shape; array.array,
bytearray)."""

import ctypes

# Element types by torch dtype name, array-interface typestr and buffer format.
_TORCH = {
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float64": "f64",
    "int8": "i8",
    "uint8": "u8",
    "int32": "i32",
    "uint32": "u32",
    "int64": "i64",
    "bool": "bool",
    "float8_e4m3fn": "f8e4m3",
    "float8_e5m2": "f8e5m2",
}
_TYPESTR = {
    "f4": "f32",
    "f2": "f16",
    "f8": "f64",
    "i1": "i8",
    "u1": "u8",
    "i4": "i32",
    "u4": "u32",
    "i8": "i64",
    "b1": "bool",
}
_FORMAT = {
    "f": "f32",
    "e": "f16",
    "d": "f64",
    "b": "i8",
    "B": "u8",
    "i": "i32",
    "I": "u32",
    "q": "i64",
    "l": "i64",
    "?": "bool",
}
_BYTES = {
    "f32": 4,
    "f16": 2,
    "bf16": 2,
    "f64": 8,
    "i8": 1,
    "u8": 1,
    "i32": 4,
    "u32": 4,
    "i64": 8,
    "bool": 1,
    "f8e4m3": 1,
    "f8e5m2": 1,
}


class TensorView:
    """data (int address), dtype (a Tessera name), shape, strides (elements),
    device ('cuda' with an index, or 'cpu'), and the object it keeps alive."""

    def __init__(self, data, dtype, shape, strides, device, device_index, owner):
        self.data = data
        self.dtype = dtype
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.device = device
        self.device_index = device_index
        self.owner = owner

    def contiguous(self):
        expect = 1
        for extent, stride in reversed(list(zip(self.shape, self.strides))):
            if extent != 1 and stride != expect:
                return False
            expect *= extent
        return True


def _row_major(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return list(reversed(strides))


def _from_interface(obj, iface, device):
    typestr = iface["typestr"]
    dtype = _TYPESTR.get(typestr[1:])
    if dtype is None:
        raise TypeError("tessera: element type %r is not one Tessera has" % typestr)
    shape = tuple(iface["shape"])
    size = _BYTES[dtype]
    strides = iface.get("strides")
    if strides is None:
        strides = _row_major(shape)
    else:
        if any(s % size for s in strides):
            raise ValueError("tessera: byte strides %s are not whole elements" % (strides,))
        strides = [s // size for s in strides]
    data = iface["data"][0] if iface.get("data") else 0
    return TensorView(data, dtype, shape, strides, device, 0 if device == "cuda" else None, obj)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


# DLPack type codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool, 7/8 float8 (e4m3fn, e5m2).
_DLPACK = {
    (0, 8): "i8",
    (0, 32): "i32",
    (0, 64): "i64",
    (1, 8): "u8",
    (1, 32): "u32",
    (2, 16): "f16",
    (2, 32): "f32",
    (2, 64): "f64",
    (4, 16): "bf16",
    (6, 8): "bool",
}
_DL_CPU, _DL_CUDA, _DL_CUDA_MANAGED = 1, 2, 13

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(obj, stream):
    """A DLPack producer's tensor (its capsule is kept, not consumed). For a
    launch, `stream` is the launch's CUstream (an int; 1 for the legacy
    default stream, as the protocol numbers it): the producer orders its own
    work before that stream's."""
    if stream is None:
        capsule = obj.__dlpack__()
    else:
        try:
            capsule = obj.__dlpack__(stream=stream)
        except (TypeError, BufferError):
            capsule = obj.__dlpack__()  # a host producer: no stream to order
    # A DLManagedTensor starts with its DLTensor.
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.dtype.lanes != 1 or (t.dtype.code, t.dtype.bits) not in _DLPACK:
        raise TypeError(
            "tessera: DLPack element type (code %d, %d bits, %d lanes) is not one Tessera has"
            % (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        )
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else _row_major(shape)
    kind = t.device.device_type
    device = "cuda" if kind in (_DL_CUDA, _DL_CUDA_MANAGED) else "cpu" if kind == _DL_CPU else None
    if device is None:
        raise ValueError("tessera: DLPack device type %d is neither CPU nor CUDA" % kind)
    data = (t.data or 0) + t.byte_offset
    index = t.device.device_id if device == "cuda" else None
    return TensorView(data, _DLPACK[(t.dtype.code, t.dtype.bits)], shape, strides, device, index,
                      (obj, capsule))


def view(obj, stream=None):
    """The TensorView of `obj`, or None when it is not a tensor (a scalar);
    `stream`: the launch's CUstream, for DLPack producers."""
    if isinstance(obj, (bool, int, float)):
        return None
    torch_dtype = getattr(obj, "dtype", None)
    if type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        name = str(torch_dtype).replace("torch.", "")
        dtype = _TORCH.get(name)
        if dtype is None:
            raise TypeError("tessera: torch dtype %s is not one Tessera has" % torch_dtype)
        dev = obj.device
        return TensorView(
            obj.data_ptr(), dtype, obj.shape, obj.stride(), dev.type, dev.index, obj
        )
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_interface(obj, obj.__cuda_array_interface__, "cuda")
    if hasattr(obj, "__array_interface__"):
        return _from_interface(obj, obj.__array_interface__, "cpu")
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, stream)
    try:
        mv = memoryview(obj)
    except TypeError:
        raise TypeError(
            "tessera: expected a tensor (torch, __cuda_array_interface__, NumPy or a buffer) "
            "or a number, got %s" % type(obj).__name__
        ) from None
    dtype = _FORMAT.get(mv.format.lstrip("@=<"))
    if dtype is None:
        raise TypeError("tessera: buffer format %r is not an element type Tessera has" % mv.format)
    if mv.readonly:
        raise ValueError("tessera: a read-only buffer (outputs are written in place)")
    if not mv.c_contiguous:
        raise ValueError("tessera: a buffer that is not row-major contiguous")
    data = ctypes.addressof(ctypes.c_char.from_buffer(mv)) if mv.nbytes else 0
    return TensorView(data, dtype, mv.shape, _row_major(mv.shape), "cpu", None, mv)
