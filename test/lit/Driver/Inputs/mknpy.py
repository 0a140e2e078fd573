"""Writes a .npy file without NumPy: mknpy.py PATH DESCR SHAPE (e.g. '<f4' 3,4)."""
import struct, sys
path, descr, shape = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",") if s]
n = 1
for s in shape:
    n *= s
size = {"<f4": 4, "<f2": 2, "|V2": 2, "<i4": 4, "<i8": 8, "|b1": 1}[descr]
dims = ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
hdr += " " * ((64 - (11 + len(hdr)) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + bytes((i * 7) % 251 for i in range(n * size)))
