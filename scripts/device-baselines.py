"""Baselines on the lent GPU, timed like Tessera's figures: PyTorch (cuBLAS, SDPA) and a
Triton softmax. Medians of CUDA-event timings after warm-up, fresh random inputs, outputs
checked against float64 (sampled) references. Prints one BASELINE line per figure."""
import math
import sys

import torch

torch.manual_seed(0)
dev = "cuda"


def median_ms(fn, warmup=10, reps=30):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


ok = True
print("BASELINE device", torch.cuda.get_device_name(), "torch", torch.__version__)

# Copy ceiling.
x = torch.randn(32768, 4096, device=dev, dtype=torch.bfloat16)
y = torch.empty_like(x)
t = median_ms(lambda: y.copy_(x))
print("BASELINE copy bf16 32768x4096: %.3f ms %.2f TB/s" % (t, 2 * x.numel() * 2 / t / 1e9))

# Matmul: cuBLAS through torch.matmul.
for n in (2048, 4096, 8192):
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    c = a @ b
    ref = (a[:64].double() @ b.double())
    err = (c[:64].double() - ref).abs().max().item()
    good = err < 0.02 * math.sqrt(n) + 0.01 * ref.abs().max().item()
    ok &= good
    t = median_ms(lambda: torch.matmul(a, b))
    print("BASELINE cuBLAS matmul bf16 %d^3: %.3f ms %.1f TFLOP/s%s" % (n, t, 2 * n ** 3 / t / 1e9, "" if good else " CHECK FAILED"))

# Softmax: torch and a Triton kernel (one row per program).
try:
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        e = tl.exp(v - tl.max(v, 0))
        tl.store(y_ptr + row * n_cols + cols, (e / tl.sum(e, 0)).to(y_ptr.dtype.element_ty), mask=cols < n_cols)
except Exception as e:  # Triton missing: torch only
    triton = None
    print("BASELINE triton unavailable:", e)

for m, n, dt in ((32768, 4096, torch.bfloat16), (16384, 8192, torch.float32)):
    x = torch.randn(m, n, device=dev, dtype=dt) * 3
    ref = torch.softmax(x[:8].double(), 1)
    nbytes = 2 * x.numel() * x.element_size()
    y = torch.softmax(x, 1)
    t = median_ms(lambda: torch.softmax(x, 1))
    print("BASELINE torch softmax %s %dx%d: %.3f ms %.2f TB/s" % (str(dt).split(".")[1], m, n, t, nbytes / t / 1e9))
    if triton:
        y = torch.empty_like(x)
        best = None
        for w in (4, 8, 16):
            run = lambda: softmax_rows[(m,)](x, y, n, BLOCK=triton.next_power_of_2(n), num_warps=w)
            run()
            err = (y[:8].double() - ref).abs().max().item()
            good = err < (1e-2 if dt == torch.bfloat16 else 1e-5)
            ok &= good
            t = median_ms(run)
            best = t if best is None else min(best, t)
            print("BASELINE triton softmax %s %dx%d num_warps=%d: %.3f ms %.2f TB/s%s" % (
                str(dt).split(".")[1], m, n, w, t, nbytes / t / 1e9, "" if good else " CHECK FAILED"))

# Attention: PyTorch SDPA (flash backend), full and causal.
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

for (B, H, N, D) in ((4, 32, 4096, 128), (4, 32, 4096, 64)):
    q, k, v = (torch.randn(B, H, N, D, device=dev, dtype=torch.bfloat16) for _ in range(3))
    for causal in (False, True):
        flops = 4 * B * H * N * N * D / (2 if causal else 1)
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    o = f()
                    t = median_ms(f)
                print("BASELINE SDPA-%s attention B%d H%d N%d D%d %s: %.3f ms %.1f TFLOP/s" % (
                    name, B, H, N, D, "causal" if causal else "full", t, flops / t / 1e9))
            except Exception as e:
                print("BASELINE SDPA-%s unavailable: %s" % (name, str(e).splitlines()[0]))
print("BASELINE", "all checks passed" if ok else "SOME CHECKS FAILED")
sys.exit(0 if ok else 1)
