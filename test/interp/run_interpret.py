"""`tessera run FILE --interpret` as a new user runs it: .npy files in and out.

Usage: run_interpret.py TESSERA SOURCE_DIR
For programs of the language core (normalisations, a column reduction, a transposed
half-precision matmul, long-row softmax, causal f16 attention, the attention example at
B=1 H=2 N=256 D=64, ...), writes random inputs (ragged sizes), runs the interpreter
through the CLI, and compares the --out files with float64 references computed here in
plain Python. One line per program; exit status 1 if any is off."""
import math
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyio  # noqa: E402

TESSERA, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="tessera-interp-")
rng = random.Random(11)
failures = 0


def rand(n, lo=-1.0, hi=1.0, rnd=lambda v: v):
    return [rnd(rng.uniform(lo, hi)) for _ in range(n)]


def run(name, file, tensors, scalars=(), kernel=None, outs=()):
    """tensors: {name: (descr, shape, values)}; returns ({out: values}, seconds)."""
    cmd = [TESSERA, "run", os.path.join(SRC, file), "--interpret"]
    if kernel:
        cmd += ["--kernel", kernel]
    for n, (descr, shape, vals) in tensors.items():
        path = os.path.join(TMP, "%s_%s.npy" % (name, n))
        npyio.write(path, descr, shape, vals)
        cmd += ["--arg", "%s=%s" % (n, path)]
    for n, v in scalars:
        cmd += ["--scalar", "%s=%s" % (n, v)]
    for n in outs:
        cmd += ["--out", "%s=%s" % (n, os.path.join(TMP, "%s_%s_out.npy" % (name, n)))]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.time() - t0
    if r.returncode != 0:
        raise RuntimeError("exit %d: %s" % (r.returncode, r.stderr.strip()))
    return {n: npyio.read(os.path.join(TMP, "%s_%s_out.npy" % (name, n)))[1] for n in outs}, secs


def report(name, got, want, atol, rtol, secs):
    global failures
    worst, bad = 0.0, 0
    for g, w in zip(got, want):
        d = abs(g - w)
        if not (d <= atol + rtol * abs(w)):
            bad += 1
        if d == d:
            worst = max(worst, d)
    if len(got) != len(want):
        bad = max(bad, 1)
    failures += bad != 0
    print("%-34s %s  max abs err %.3g (atol %g, rtol %g), %.2f s" % (
        name, "PASS" if bad == 0 else "FAIL (%d off)" % bad, worst, atol, rtol, secs))


def matmul(a, b, m, n, k, a_t=False):
    c = [0.0] * (m * n)
    for i in range(m):
        for p in range(k):
            av = a[p * m + i] if a_t else a[i * k + p]
            row = b[p * n:(p + 1) * n]
            for j in range(n):
                c[i * n + j] += av * row[j]
    return c


def softmax_row(row):
    mx = max(row)
    e = [math.exp(v - mx) for v in row]
    s = sum(e)
    return [v / s for v in e]


def attention_rows(q, k, v, n, d, heads, rows, scale, causal):
    out = {}
    for h in range(heads):
        base = h * n * d
        for i in rows:
            lim = i + 1 if causal else n
            s = [scale * sum(q[base + i * d + e] * k[base + j * d + e] for e in range(d)) for j in range(lim)]
            p = softmax_row(s)
            out[(h, i)] = [sum(p[j] * v[base + j * d + e] for j in range(lim)) for e in range(d)]
    return out


def check(name, fn):
    global failures
    try:
        fn(name)
    except Exception as e:  # a failed run is a failure, reported, not a crash
        failures += 1
        print("%-34s FAIL %s" % (name, e))


def layernorm(name):
    m, n = 5, 300
    x, w, b = rand(m * n, -2, 3), rand(n), rand(n)
    out, secs = run(name, "examples/layernorm.tile", {"x": ("<f4", [m, n], x), "w": ("<f4", [n], w),
                    "b": ("<f4", [n], b), "y": ("<f4", [m, n], [0.0] * (m * n))}, [("eps", "1e-5")], outs=["y"])
    x = npyio.read(os.path.join(TMP, name + "_x.npy"))[1]
    want = []
    for r in range(m):
        row = x[r * n:(r + 1) * n]
        mean = sum(row) / n
        var = sum((v - mean) ** 2 for v in row) / n
        want += [(v - mean) / math.sqrt(var + 1e-5) * w_ + b_ for v, w_, b_ in zip(row, w, b)]
    report(name, out["y"], want, 1e-4, 1e-4, secs)


def rmsnorm_f16(name):
    m, n = 3, 1500
    x, w = rand(m * n, -2, 2, npyio.f16), rand(n, rnd=npyio.f16)
    out, secs = run(name, "test/programs/rmsnorm.tile", {"x": ("<f2", [m, n], x), "w": ("<f2", [n], w),
                    "y": ("<f2", [m, n], [0.0] * (m * n))}, [("eps", "1e-6")], outs=["y"])
    want = []
    for r in range(m):
        row = x[r * n:(r + 1) * n]
        rr = 1 / math.sqrt(sum(v * v for v in row) / n + 1e-6)
        want += [v * rr * w_ for v, w_ in zip(row, w)]
    report(name, out["y"], want, 2e-3, 2e-3, secs)


def column_sum(name):
    m, n = 70, 150
    x = rand(m * n)
    out, secs = run(name, "test/programs/column_sum.tile", {"x": ("<f4", [m, n], x), "s": ("<f4", [n], [0.0] * n),
                    "mean": ("<f4", [n], [0.0] * n)}, outs=["s", "mean"])
    x = npyio.read(os.path.join(TMP, name + "_x.npy"))[1]
    s = [sum(x[i * n + j] for i in range(m)) for j in range(n)]
    report(name, out["s"] + out["mean"], s + [v / m for v in s], 1e-4, 1e-5, secs)


def matmul_tn_f16(name):
    m, n, k = 50, 40, 70
    a, b = rand(k * m, rnd=npyio.f16), rand(k * n, rnd=npyio.f16)
    out, secs = run(name, "test/programs/matmul_transposed_f16.tile", {"a": ("<f2", [k, m], a),
                    "b": ("<f2", [k, n], b), "c": ("<f2", [m, n], [0.0] * (m * n))}, kernel="matmul_tn", outs=["c"])
    report(name, out["c"], matmul(a, b, m, n, k, a_t=True), 1e-3, 2e-3, secs)


def matmul_bf16(name):
    m, n, k = 70, 90, 64
    a, b = rand(m * k, rnd=npyio.bf16), rand(k * n, rnd=npyio.bf16)
    out, secs = run(name, "examples/matmul.tile", {"a": ("|V2", [m, k], a), "b": ("|V2", [k, n], b),
                    "c": ("|V2", [m, n], [0.0] * (m * n))}, outs=["c"])
    report(name, out["c"], matmul(a, b, m, n, k), 2e-3 * math.sqrt(k), 8e-3, secs)


def softmax_long(name):
    m, n = 2, 5000
    x = rand(m * n, -6, 6)
    out, secs = run(name, "test/programs/softmax_long.tile", {"x": ("<f4", [m, n], x),
                    "y": ("<f4", [m, n], [0.0] * (m * n))}, outs=["y"])
    x = npyio.read(os.path.join(TMP, name + "_x.npy"))[1]
    want = softmax_row(x[:n]) + softmax_row(x[n:])
    report(name, out["y"], want, 1e-7, 1e-4, secs)


def causal_attention_f16(name):
    h, n, d = 2, 80, 64
    q, k, v = (rand(h * n * d, -2, 2, npyio.f16) for _ in range(3))
    out, secs = run(name, "test/programs/causal_attention_f16.tile", {"q": ("<f2", [1, h, n, d], q),
                    "k": ("<f2", [1, h, n, d], k), "v": ("<f2", [1, h, n, d], v),
                    "o": ("<f2", [1, h, n, d], [0.0] * (h * n * d))},
                    [("sm_scale", "0.125"), ("causal", "true")], outs=["o"])
    ref = attention_rows(q, k, v, n, d, h, range(n), 0.125, True)
    got, want = [], []
    for (hh, i), row in ref.items():
        got += out["o"][(hh * n + i) * d:(hh * n + i + 1) * d]
        want += row
    report(name, got, want, 3e-3, 3e-3, secs)


def attention_example(name):
    h, n, d = 2, 256, 64
    q, k, v = (rand(h * n * d, -2, 2, npyio.bf16) for _ in range(3))
    out, secs = run(name, "examples/attention.tile", {"q": ("|V2", [1, h, n, d], q), "k": ("|V2", [1, h, n, d], k),
                    "v": ("|V2", [1, h, n, d], v), "o": ("|V2", [1, h, n, d], [0.0] * (h * n * d))},
                    [("scale", "0.125")], outs=["o"])
    ref = attention_rows(q, k, v, n, d, h, [0, 1, 127, 128, 200, 255], 0.125, False)
    got, want = [], []
    for (hh, i), row in ref.items():
        got += out["o"][(hh * n + i) * d:(hh * n + i + 1) * d]
        want += row
    report(name + " (6 rows/head checked)", got, want, 1e-2, 1.6e-2, secs)
    if secs >= 10:
        global failures
        failures += 1
        print("%-34s FAIL: %.2f s, the bar is 10 s" % (name, secs))


def embedding(name):
    t, vocab, d, p = 9, 20, 30, 4
    ids = [rng.randrange(-2, 24) for _ in range(t)]
    table, pos = rand(vocab * d, rnd=npyio.bf16), rand(p * d, rnd=npyio.bf16)
    out, secs = run(name, "test/programs/embedding.tile", {"ids": ("<i8", [t], ids),
                    "table": ("|V2", [vocab, d], table), "pos": ("|V2", [p, d], pos),
                    "out": ("|V2", [t, d], [0.0] * (t * d)), "bad": ("<i4", [t], [7] * t)},
                    [("scale", "0.5")], outs=["out", "bad"])
    want = []
    for i, tok in enumerate(ids):
        ok = 0 <= tok < vocab
        want += [npyio.bf16((table[tok * d + j] * 0.5 if ok else 0.0) + pos[(i % p) * d + j]) for j in range(d)]
    report(name, out["out"] + out["bad"], want + [0 if 0 <= tok < vocab else 1 for tok in ids], 0, 8e-3, secs)


for name, fn in [("layernorm 5x300", layernorm), ("rmsnorm f16 3x1500", rmsnorm_f16),
                 ("column_sum 70x150", column_sum), ("matmul_tn f16 50x40x70", matmul_tn_f16),
                 ("matmul bf16 70x90x64", matmul_bf16), ("softmax_long 2x5000", softmax_long),
                 ("causal_attention f16 1x2x80x64", causal_attention_f16),
                 ("attention 1x2x256x64", attention_example), ("embedding i64 ids", embedding)]:
    check(name, fn)
print("%d of 9 off" % failures if failures else "all 9 within tolerance")
sys.exit(1 if failures else 0)
