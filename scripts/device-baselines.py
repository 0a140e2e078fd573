"""Baselines on the lent GPU, timed like Tessera's figures: PyTorch (cuBLAS, SDPA) and a
Triton softmax. Medians of CUDA-event timings after warm-up, fresh random inputs, outputs
checked against float64 (sampled) references. Prints one BASELINE line per figure.

--attention adds head dims 256, a long sequence and grouped-query attention;
--attention-only skips the copy, matmul and softmax figures; --json PATH writes the
attention rows as a rivals file for `tessera bench --suite --rivals PATH` (the row
schema of the bench's own --json, labelled as the suite labels its rows), timed as
the bench times: a 256 MiB write before each launch flushes L2, CUDA events around
the launch alone."""
import json
import math
import sys

import torch

torch.manual_seed(0)
dev = "cuda"


def timings_ms(fn, warmup=10, reps=30, flush=None):
    """Median, min and max ms of single launches between CUDA events; `flush` (a
    buffer) is written before each launch, outside the events, to empty L2."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        if flush is not None:
            flush.fill_(1)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2], times[0], times[-1]


def median_ms(fn):
    return timings_ms(fn)[0]


def flushed_ms(fn):
    """The bench's way: 5 warm-up launches, 30 timed, a 256 MiB write before each."""
    return timings_ms(fn, 5, 30, torch.empty(256 << 20, dtype=torch.uint8, device=dev))


def option(name):
    """The value after `name` on the command line, or None."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


ok = True
rivals = []  # --json: the attention rows as `tessera bench --rivals` reads them
print("BASELINE device", torch.cuda.get_device_name(), "torch", torch.__version__)
attention_only = "--attention-only" in sys.argv

if not attention_only:
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

# Attention: PyTorch SDPA (flash and cuDNN backends), full and causal; with
# --attention also head dims 256, a long sequence and grouped-query attention
# (32 query heads over 8 key/value heads: SDPA's enable_gqa, or where a backend
# refuses it, the key/value heads repeated to the query heads: the same FLOPs).
# Rows 0..63 and the last 64 rows of the first (batch, head) are checked
# against float64.
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402


def attention_ref(q, k, v, causal, rows):
    s = (q[rows].double() @ k.double().T) / math.sqrt(q.shape[-1])
    if causal:
        cols = torch.arange(k.shape[0], device=q.device)
        s = s.masked_fill(cols[None, :] > rows[:, None], float("-inf"))
    return torch.softmax(s, -1) @ v.double()


shapes = [(4, 32, 32, 4096, 128), (4, 32, 32, 4096, 64)]
if "--attention" in sys.argv or attention_only:
    shapes += [(4, 32, 32, 4096, 256), (1, 32, 32, 16384, 128), (4, 32, 8, 4096, 128)]
for (B, H, HK, N, D) in shapes:
    q = torch.randn(B, H, N, D, device=dev, dtype=torch.bfloat16)
    k, v = (torch.randn(B, HK, N, D, device=dev, dtype=torch.bfloat16) for _ in range(2))
    rows = torch.cat([torch.arange(64), torch.arange(N - 64, N)]).to(dev)
    label = "B%d H%d N%d D%d" % (B, H, N, D) if HK == H else "GQA B%d H%d/%d N%d D%d" % (B, H, HK, N, D)
    for causal in (False, True):
        if N > 4096 and causal:
            continue
        flops = 4 * B * H * N * N * D / (2 if causal else 1)
        want = attention_ref(q[0, 0], k[0, 0], v[0, 0], causal, rows)
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            how = ""
            try:
                with sdpa_kernel(backend):
                    if HK == H:
                        f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    else:
                        try:
                            f = lambda: torch.nn.functional.scaled_dot_product_attention(
                                q, k, v, is_causal=causal, enable_gqa=True)
                            f()
                        except Exception:
                            ke, ve = (x.repeat_interleave(H // HK, dim=1) for x in (k, v))
                            f = lambda: torch.nn.functional.scaled_dot_product_attention(q, ke, ve, is_causal=causal)
                            how = " (key/value heads repeated)"
                    o = f()
                    err = (o[0, 0, rows].double() - want).abs().max().item()
                    good = err < 2e-2
                    ok &= good
                    t = median_ms(f)
                    if option("--json"):
                        # The suite's label: "causal " first, GQA rows under both GQA kernels.
                        median, lo, hi = flushed_ms(f)
                        note = "PyTorch %s SDPA, %s backend%s, L2 flushed" % (torch.__version__, name, how)
                        for size in [label] + (["GQA grouped" + label[3:]] if HK != H else []):
                            rivals.append({"workload": "attention", "size": ("causal " if causal else "") + size,
                                           "side": "sdpa-" + name, "median_ms": median, "min_ms": lo,
                                           "max_ms": hi, "ok": bool(good), "note": note})
                print("BASELINE SDPA-%s attention %s %s: %.3f ms %.1f TFLOP/s%s%s" % (
                    name, label, "causal" if causal else "full", t, flops / t / 1e9, how,
                    "" if good else " CHECK FAILED (max abs err %.3g)" % err))
            except Exception as e:
                print("BASELINE SDPA-%s %s unavailable: %s" % (name, label, str(e).splitlines()[0]))
            torch.cuda.empty_cache()

# A variable-length batch: the sixteen sequence lengths of the suite's varlen row
# (runtime/bench/Compare.cpp), packed into [T, H, D] as FlashAttention's varlen layout;
# SDPA on nested (jagged) tensors, whichever backends take them. FLOPs 4 H D sum(len^2).
kVarlenLengths = [4096, 1024, 3072, 512, 2048, 3584, 1536, 2560, 4000, 700, 3300, 1900, 2800, 1200,
                  3800, 2300]
if "--attention" in sys.argv or attention_only:
    H, D = 32, 128
    lens = kVarlenLengths
    starts = [sum(lens[:i]) for i in range(len(lens) + 1)]
    qp, kp, vp = (torch.randn(starts[-1], H, D, device=dev, dtype=torch.bfloat16) for _ in range(3))
    flops = 4 * H * D * sum(n * n for n in lens)
    label = "varlen %d seqs H%d D%d" % (len(lens), H, D)
    rows = torch.cat([torch.arange(64), torch.arange(lens[0] - 64, lens[0])]).to(dev)
    want = attention_ref(qp[:lens[0], 0], kp[:lens[0], 0], vp[:lens[0], 0], False, rows)
    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            offsets = torch.tensor(starts, device=dev, dtype=torch.int64)
            nq, nk, nv = (torch.nested.nested_tensor_from_jagged(x, offsets).transpose(1, 2)
                          for x in (qp, kp, vp))
            with sdpa_kernel(backend):
                f = lambda: torch.nn.functional.scaled_dot_product_attention(nq, nk, nv)
                o = f().transpose(1, 2).values()  # [T, H, D] again
                err = (o[rows, 0].double() - want).abs().max().item()
                good = err < 2e-2
                ok &= good
                t = median_ms(f)
                if option("--json"):
                    median, lo, hi = flushed_ms(f)
                    note = "PyTorch %s SDPA on nested tensors, %s backend, L2 flushed" % (
                        torch.__version__, name)
                    rivals.append({"workload": "attention", "size": label, "side": "sdpa-" + name,
                                   "median_ms": median, "min_ms": lo, "max_ms": hi, "ok": bool(good),
                                   "note": note})
            print("BASELINE SDPA-%s attention %s full: %.3f ms %.1f TFLOP/s%s" % (
                name, label, t, flops / t / 1e9, "" if good else " CHECK FAILED (max abs err %.3g)" % err))
        except Exception as e:
            print("BASELINE SDPA-%s %s unavailable: %s" % (name, label, str(e).splitlines()[0]))
        torch.cuda.empty_cache()

if option("--json"):
    with open(option("--json"), "w") as out:
        json.dump({"device": torch.cuda.get_device_name(), "rows": rivals}, out, indent=1)
    print("BASELINE wrote %d rival rows to %s" % (len(rivals), option("--json")))
print("BASELINE", "all checks passed" if ok else "SOME CHECKS FAILED")
sys.exit(0 if ok else 1)
