#!/usr/bin/env python3
"""Replaces every cubin in a Tessera kernel cache by the toolkit ptxas's cubin of the same PTX.

Usage: scripts/cubin-swap.py CACHE_DIR   (on the GPU machine; scripts/device-run --ptxas)

The runtime stores a kernel as two entries (runtime/jit/DiskCache.cpp): `<key>.tkc` with the
PTX and `<key>-cubin.tkc` with the driver JIT's cubin, each a text header (`name value`
lines, among them `bytes` and `sha256` of the body), a blank line and the body. For each
cubin entry this assembles the PTX entry's body with `ptxas -arch=<its .target>` and
rewrites the cubin entry with the new body, length and checksum, so that the next run
loads ptxas's code. Prints one summary line; exits 1 if ptxas rejected any PTX.
"""
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys
import tempfile

PTXAS = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")


def read(path):
    data = open(path, "rb").read()
    split = data.index(b"\n\n")
    return data[:split].decode().split("\n"), data[split + 2:]


def write(path, header, body):
    lines = [l for l in header if not l.startswith(("bytes ", "sha256 "))]
    lines += ["bytes %d" % len(body), "sha256 " + hashlib.sha256(body).hexdigest()]
    with open(path, "wb") as f:
        f.write(("\n".join(lines) + "\n\n").encode() + body)


def swap(cache, name):
    ptx_entry = os.path.join(cache, name[: -len("-cubin.tkc")] + ".tkc")
    if not os.path.exists(ptx_entry):
        return "no PTX entry"
    _, ptx = read(ptx_entry)
    target = re.search(rb"^\.target\s+(sm_\w+)", ptx, re.M)
    if not target:
        return "no .target"
    header, _ = read(os.path.join(cache, name))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "k.ptx"), "wb") as f:
            f.write(ptx)
        r = subprocess.run([PTXAS, "-arch=" + target.group(1).decode(), os.path.join(tmp, "k.ptx"),
                            "-o", os.path.join(tmp, "k.cubin")], capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write("%s: ptxas failed:\n%s" % (name, r.stderr))
            return "ptxas failed"
        write(os.path.join(cache, name), header, open(os.path.join(tmp, "k.cubin"), "rb").read())
    return "replaced"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cache = sys.argv[1]
    names = sorted(n for n in os.listdir(cache) if n.endswith("-cubin.tkc"))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 4) as pool:
        results = list(pool.map(lambda n: swap(cache, n), names))
    counts = {r: results.count(r) for r in sorted(set(results))}
    print("cubin-swap: %d cubins in %s: %s" % (len(names), cache, counts))
    sys.exit(1 if counts.get("ptxas failed") else 0)


if __name__ == "__main__":
    main()
