"""Timing kernels as triton.testing.do_bench does: CUDA-event medians."""


def bench(fn, warmup=25, rep=100, quantiles=None):
    """Milliseconds per call of `fn` on torch's current stream: `warmup`
    calls, then `rep` calls each timed between two CUDA events, the L2 cache
    flushed before each (a 256 MB write). Returns the median, or the given
    `quantiles` (e.g. [0.5, 0.2, 0.8]) as a list."""
    try:
        import torch
    except ImportError:
        raise ImportError("tessera.testing.bench times with torch.cuda events: install torch") from None
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    for s, e in zip(starts, ends):
        cache.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))

    def at(q):
        return times[min(len(times) - 1, int(q * len(times)))]

    if quantiles is None:
        return at(0.5)
    return [at(q) for q in quantiles]
