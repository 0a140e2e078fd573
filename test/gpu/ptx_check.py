#!/usr/bin/env python3
"""Runs Tessera-generated PTX on a GPU and checks it against PyTorch.

Usage: ptx_check.py PTXDIR   (PTXDIR from scripts/device-ptx-check)

A stopgap until the C++ runtime exists: loads each kernel with the CUDA driver
API through ctypes, binds arguments by the kernel ABI (docs/kernel-abi.md: per
tensor a pointer, i32 extents and i64 strides in elements but the last; scalars by
value), launches with the grid the kernel's grid clause gives, and compares with
a float64 reference. Outputs are poisoned (NaN) first so unwritten elements show.
Prints one line per case and 'N passed, N failed'. With --bench, also times the
softmax and matmul kernels (median of CUDA events) beside PyTorch.
"""
import ctypes
import math
import sys

import torch

cuda = ctypes.CDLL("libcuda.so.1")


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: {name.value.decode() if name.value else rc}")


class Kernel:
    def __init__(self, path, name, smem, warps):
        self.smem, self.threads, self.sync = smem, 32 * warps, True
        data = open(path, "rb").read() + b"\0"
        self.module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(8192)
        opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, _SIZE_BYTES
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(8192))
        rc = cuda.cuModuleLoadDataEx(ctypes.byref(self.module), data, 2, opts, vals)
        if rc != 0:
            raise RuntimeError(f"cuModuleLoadDataEx({path}): {rc}: {log.value.decode()}")
        self.fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.fn), self.module, name.encode()),
              f"cuModuleGetFunction({name})")
        if smem > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            check(cuda.cuFuncSetAttribute(self.fn, 8, smem), "cuFuncSetAttribute")

    def __call__(self, grid, *args):
        cargs = []
        for a in args:
            if isinstance(a, torch.Tensor):
                cargs.append(ctypes.c_uint64(a.data_ptr()))
                cargs += [ctypes.c_int32(d) for d in a.shape]
                cargs += [ctypes.c_int64(s) for s in a.stride()[:-1]]
                assert a.stride()[-1] == 1
            elif isinstance(a, float):
                cargs.append(ctypes.c_float(a))
            else:
                cargs.append(ctypes.c_int32(a))
        ptrs = (ctypes.c_void_p * len(cargs))(*[ctypes.cast(ctypes.pointer(c), ctypes.c_void_p) for c in cargs])
        g = list(grid) + [1] * (3 - len(grid))
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cuda.cuLaunchKernel(self.fn, g[0], g[1], g[2], self.threads, 1, 1, self.smem, stream,
                                  ptrs, None), "cuLaunchKernel")
        if self.sync:
            torch.cuda.synchronize()


def cdiv(a, b):
    return (a + b - 1) // b


def close(name, got, want, atol, rtol):
    got64, want64 = got.double(), want.double()
    err = (got64 - want64).abs().max().item()
    ok = bool(torch.isfinite(got64).all()) and torch.allclose(got64, want64, atol=atol, rtol=rtol)
    rel = err / max(want64.abs().max().item(), 1e-30)
    print(f"{'PASS' if ok else 'FAIL'} {name}: max abs err {err:.3g} (rel {rel:.3g})")
    return ok


def poison(*shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def median_ms(fn, warmup=10, reps=15, inner=10):
    """Median over `reps` CUDA-event timings of `inner` back-to-back launches, after
    warm-up (back to back, so the launcher's host time overlaps the GPU's work)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / inner)
    return sorted(times)[len(times) // 2]


def bench(k):
    """First throughput figures of the generated code, beside PyTorch in the same run."""
    m, n = 32768, 4096
    x = torch.randn(m, n, device="cuda")
    y = torch.empty_like(x)
    sm = k("softmax_4096", "softmax")
    sm.sync = False
    t = median_ms(lambda: sm([m], x, y))
    tt = median_ms(lambda: torch.softmax(x, 1))
    gb = 2 * x.numel() * 4 / 1e9
    print(f"BENCH softmax f32 {m}x{n}: tessera {t:.3f} ms {gb / t:.2f} TB/s; torch {tt:.3f} ms {gb / tt:.2f} TB/s")
    for size in (2048, 4096):
        a = torch.randn(size, size, device="cuda").bfloat16()
        b = torch.randn(size, size, device="cuda").bfloat16()
        c = torch.empty(size, size, device="cuda").bfloat16()
        tt = median_ms(lambda: torch.matmul(a, b))
        fl = 2 * size ** 3 / 1e9
        for case in ("matmul_aligned", "matmul_aligned_O1"):
            mm = k(case, "matmul")
            mm.sync = False
            t = median_ms(lambda: mm([cdiv(size, 128), cdiv(size, 128)], a, b, c))
            print(f"BENCH {case} bf16 {size}^3: tessera {t:.3f} ms {fl / t:.0f} TFLOP/s; "
                  f"torch (cuBLAS) {tt:.3f} ms {fl / tt:.0f} TFLOP/s")
    # Attention forward, bf16, D=128 (the example's defaults: BM 128, BN 64, 8 warps).
    bsz, h, nseq, dd = 4, 16, 4096, 128
    q, kt, v = (torch.randn(bsz, h, nseq, dd, device="cuda").bfloat16() for _ in range(3))
    o = torch.empty_like(q)
    scale = 1.0 / math.sqrt(dd)
    fl = 4 * bsz * h * nseq * nseq * dd / 1e9
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for causal in (False, True):
        tt = median_ms(lambda: sdpa(q, kt, v, is_causal=causal))
        cases = ["causal_attention_d128"] if causal else ["attention_d128", "attention_d128_O1"]
        f = fl / 2 if causal else fl
        for case in cases:
            at = k(case, "causal_attention" if causal else "attention")
            at.sync = False
            t = median_ms(lambda: at([cdiv(nseq, 128), bsz * h], q, kt, v, o, scale))
            print(f"BENCH {case} B{bsz} H{h} N{nseq} D{dd}: tessera {t:.3f} ms {f / t:.0f} TFLOP/s; "
                  f"torch sdpa {tt:.3f} ms {f / tt:.0f} TFLOP/s")


def main():
    d = sys.argv[1]
    torch.manual_seed(0)
    torch.zeros(1, device="cuda")  # the primary context
    man = {}
    for line in open(f"{d}/manifest.tsv"):
        n, smem, warps = line.split()
        man[n] = (int(smem), int(warps))

    def k(case, name):
        return Kernel(f"{d}/{case}.ptx", name, *man[case])

    results = []
    # vector_add
    for case, n in [("vector_add_aligned", 1 << 20), ("vector_add_ragged", 100003)]:
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        z = poison(n)
        k(case, "vector_add")([cdiv(n, 1024)], x, y, z)
        results.append(close(f"{case} N={n}", z, x + y, 1e-6, 1e-6))
    # softmax
    for case, (m, n) in [("softmax_4096", (512, 4096)), ("softmax_1000", (333, 1000))]:
        x = torch.randn(m, n, device="cuda") * 3
        y = poison(m, n)
        k(case, "softmax")([m], x, y)
        results.append(close(f"{case} {m}x{n}", y, torch.softmax(x.double(), 1), 1e-5, 1e-4))
    # layernorm / rmsnorm
    m, n = 257, 1000
    x = torch.randn(m, n, device="cuda")
    w, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    y = poison(m, n)
    k("layernorm_1000", "layernorm")([m], x, w, b, y, 1e-5)
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    results.append(close(f"layernorm {m}x{n}", y, ref, 1e-4, 1e-4))
    xb, wb = x.bfloat16(), w.bfloat16()
    yb = poison(m, n, dtype=torch.bfloat16)
    k("rmsnorm_1000", "rmsnorm")([m], xb, wb, yb, 1e-6)
    xd = xb.double()
    ref = xd * torch.rsqrt((xd * xd).mean(1, keepdim=True) + 1e-6) * wb.double()
    results.append(close(f"rmsnorm bf16 {m}x{n}", yb, ref, 3e-2, 2e-2))
    # matmul
    for case, (mm, nn, kk) in [("matmul_aligned", (512, 512, 512)), ("matmul_ragged", (300, 200, 130))]:
        a = torch.randn(mm, kk, device="cuda").bfloat16()
        bt = torch.randn(kk, nn, device="cuda").bfloat16()
        c = poison(mm, nn, dtype=torch.bfloat16)
        k(case, "matmul")([cdiv(mm, 128), cdiv(nn, 128)], a, bt, c)
        ref = a.double() @ bt.double()
        results.append(close(f"{case} {mm}x{nn}x{kk}", c, ref, 0.05 * math.sqrt(kk) / 8, 1e-2))
    a = torch.randn(256, 384, device="cuda").bfloat16()  # [K, M]
    bt = torch.randn(256, 256, device="cuda").bfloat16()  # [K, N]
    c = poison(384, 256, dtype=torch.bfloat16)
    k("matmul_tn", "matmul_tn")([cdiv(384, 128), cdiv(256, 128)], a, bt, c)
    results.append(close("matmul_tn 384x256x256", c, a.double().T @ bt.double(), 0.2, 1e-2))
    # attention
    for case, name, causal, dd in [("attention_d64", "attention", False, 64),
                                   ("causal_attention_d64", "causal_attention", True, 64),
                                   ("attention_d128", "attention", False, 128),
                                   ("attention_d128_O1", "attention", False, 128),
                                   ("causal_attention_d128", "causal_attention", True, 128)]:
        for nseq in (256, 200):
            bsz, h = 1, 2
            q, kt, v = (torch.randn(bsz, h, nseq, dd, device="cuda").bfloat16() for _ in range(3))
            o = poison(bsz, h, nseq, dd, dtype=torch.bfloat16)
            scale = 1.0 / math.sqrt(dd)
            k(case, name)([cdiv(nseq, 128), bsz * h], q, kt, v, o, scale)
            s = (q.double() @ kt.double().transpose(-1, -2)) * scale
            if causal:
                mask = torch.ones(nseq, nseq, device="cuda", dtype=torch.bool).tril()
                s = s.masked_fill(~mask, float("-inf"))
            ref = torch.softmax(s, -1) @ v.double()
            results.append(close(f"{case} B1 H2 N{nseq} D{dd}", o, ref, 2e-2, 2e-2))
    # f16 causal attention (test/programs), causal on and off, BM 64, 4 warps
    for causal in (1, 0):
        for nseq in (256, 200):
            bsz, h, dd = 2, 3, 64
            q, kt, v = (torch.randn(bsz, h, nseq, dd, device="cuda").half() for _ in range(3))
            o = poison(bsz, h, nseq, dd, dtype=torch.half)
            scale = 1.0 / math.sqrt(dd)
            k("causal_attention_f16_d64", "causal_attention")([cdiv(nseq, 64), bsz * h], q, kt, v, o, scale, causal)
            s = (q.double() @ kt.double().transpose(-1, -2)) * scale
            if causal:
                mask = torch.ones(nseq, nseq, device="cuda", dtype=torch.bool).tril()
                s = s.masked_fill(~mask, float("-inf"))
            ref = torch.softmax(s, -1) @ v.double()
            results.append(close(f"causal_attention_f16 causal={causal} B2 H3 N{nseq} D64", o, ref, 2e-2, 2e-2))
    # reductions of tensor-core products (in the mma layout, across warps)
    a = torch.randn(32, 64, device="cuda").bfloat16()
    bt = torch.randn(64, 128, device="cuda").bfloat16()
    rows, cols = poison(32), poison(128)
    k("dot_reductions", "dot_reductions")([1], a, bt, rows, cols)
    prod = a.double() @ bt.double()
    results.append(close("dot_reductions rows", rows, prod.sum(1), 2e-3, 1e-4))
    results.append(close("dot_reductions cols", cols, prod.max(0).values, 2e-3, 1e-4))
    a = torch.randn(200, 64, device="cuda").bfloat16()
    bt = torch.randn(64, 64, device="cuda").bfloat16()
    y = poison(200)
    k("dot_rowsum", "dot_rowsum")([cdiv(200, 64)], a, bt, y)
    results.append(close("dot_rowsum 200x64x64", y, (a.double() @ bt.double()).sum(1), 2e-3, 1e-4))
    if "--bench" in sys.argv:
        bench(k)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
