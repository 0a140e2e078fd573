"""Minimal .npy reading and writing without NumPy (the CI machines have none).

write(path, descr, shape, values) and read(path) -> (shape, values); descr is one of
<f4 <f2 <i4 <i8 |b1, or |V2 for bf16 (values rounded to nearest even, as NumPy users
store bf16 as 2-byte void)."""
import ast
import struct

FMT = {"<f4": "f", "<f2": "e", "<i4": "i", "<i8": "q", "|b1": "?"}


def bf16_bits(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


def bf16(x):
    """x rounded to bf16, as a Python float."""
    return struct.unpack("<f", struct.pack("<I", bf16_bits(x) << 16))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def write(path, descr, shape, vals):
    dims = ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    hdr += " " * ((64 - (11 + len(hdr)) % 64) % 64) + "\n"
    if descr == "|V2":
        body = b"".join(struct.pack("<H", bf16_bits(v)) for v in vals)
    else:
        body = struct.pack("<%d%s" % (len(vals), FMT[descr]), *vals)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + body)


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    hl = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + hl].decode())
    body = b[10 + hl:]
    n = 1
    for s in h["shape"]:
        n *= s
    if h["descr"] == "|V2":
        bits = struct.unpack("<%dH" % n, body)
        return list(h["shape"]), [struct.unpack("<f", struct.pack("<I", x << 16))[0] for x in bits]
    return list(h["shape"]), list(struct.unpack("<%d%s" % (n, FMT[h["descr"]]), body))
