"""The Python package on a GPU with torch (scripts/device-run --python):
the examples against torch, launches on a non-default stream (current and
explicit), a second device where there is one, two Python threads launching
at once, and the host time of a cached launch beside a Triton launch of a
softmax (when Triton is installed). Skipped without torch or a GPU."""

import math
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tessera  # noqa: E402

try:
    import torch

    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = os.path.join(ROOT, "examples")


@unittest.skipUnless(HAVE_GPU, "needs torch and a GPU")
class OnTheGpu(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.softmax = tessera.load(os.path.join(EXAMPLES, "softmax.tile")).softmax

    def check_softmax(self, x, y):
        want = torch.softmax(x.double(), dim=-1)
        self.assertLess((y.double() - want).abs().max().item(), 1e-5)

    def test_softmax_and_matmul_against_torch(self):
        for m, n in [(4096, 1000), (333, 4096), (1, 7)]:
            x = torch.randn(m, n, device="cuda") * 4
            y = torch.full_like(x, float("nan"))
            self.softmax(x, y)
            self.check_softmax(x, y)
        mm = tessera.load(os.path.join(EXAMPLES, "matmul.tile")).matmul
        for m, n, k in [(512, 512, 512), (300, 200, 130), (4096, 4096, 4096)]:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            mm(a, b, c)
            want = a.double() @ b.double()
            err = ((c.double() - want).abs().max() / want.abs().max()).item()
            self.assertLess(err, 1e-2, (m, n, k))

    def test_attention_against_sdpa(self):
        att = tessera.load(os.path.join(EXAMPLES, "attention.tile")).attention
        for b, h, n, d in [(2, 4, 1024, 64), (1, 2, 333, 128)]:
            q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            att(q, k, v, o, 1.0 / math.sqrt(d))
            want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double())
            err = ((o.double() - want).abs().max() / want.abs().max()).item()
            self.assertLess(err, 2e-2, (b, h, n, d))

    def test_streams(self):
        x = torch.randn(2048, 2048, device="cuda")
        y1, y2 = torch.empty_like(x), torch.empty_like(x)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # torch's current stream
            torch.cuda._sleep(1 << 22)  # the launch must queue behind this, on s
            self.softmax(x, y1)
        self.softmax(x, y2, stream=s)  # an explicit stream
        s.synchronize()
        self.check_softmax(x, y1)
        self.check_softmax(x, y2)

    def test_second_device(self):
        if torch.cuda.device_count() < 2:
            self.skipTest("one GPU")
        x = torch.randn(64, 1000, device="cuda:1")
        y = torch.empty_like(x)
        self.softmax(x, y)
        torch.cuda.synchronize(1)
        self.check_softmax(x, y)
        with self.assertRaisesRegex(ValueError, "cuda:1, the others on cuda:0"):
            self.softmax(torch.empty(64, 1000, device="cuda:0"), y)

    def test_two_threads(self):
        xs = [torch.randn(512, 1000 + 24 * i, device="cuda") for i in range(2)]
        ys = [torch.empty_like(x) for x in xs]
        errors = []

        def work(i):
            try:
                for _ in range(50):
                    self.softmax(xs[i], ys[i])
            except Exception as e:
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        torch.cuda.synchronize()
        self.assertEqual(errors, [])
        for x, y in zip(xs, ys):
            self.check_softmax(x, y)

    def test_bad_calls_on_the_gpu(self):
        x = torch.randn(64, 1000, device="cuda")
        with self.assertRaisesRegex(TypeError, "'y' must be f32, got f16"):
            self.softmax(x, x.half())
        with self.assertRaisesRegex(ValueError, "contiguous along its last axis"):
            self.softmax(x.t(), torch.empty(1000, 64, device="cuda"))
        with self.assertRaisesRegex(ValueError, "a launch takes CUDA tensors"):
            self.softmax(x.cpu(), x.cpu())
        y = torch.empty_like(x)
        self.softmax(x, y)  # still usable
        self.check_softmax(x, y)

    def test_host_time_of_a_cached_launch(self):
        def host_us(fn, n=2000):
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
            samples = []
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(n):
                    fn()
                samples.append((time.perf_counter() - start) / n * 1e6)
                torch.cuda.synchronize()
            return sorted(samples)[len(samples) // 2]

        x = torch.randn(128, 1024, device="cuda")
        y = torch.empty_like(x)
        ours = host_us(lambda: self.softmax(x, y))
        mm = tessera.load(os.path.join(EXAMPLES, "matmul.tile")).matmul
        a = torch.randn(128, 128, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(128, 128, device="cuda", dtype=torch.bfloat16)
        matmul = host_us(lambda: mm(a, a, c))
        line = "host time of a cached launch from Python: softmax %.2f us, matmul (TMA) %.2f us" % (
            ours,
            matmul,
        )
        try:
            triton_us = _triton_softmax_host_us(x, y, host_us)
            line += ", Triton softmax %.2f us" % triton_us
        except ImportError:
            line += ", Triton not installed"
        print("\n" + line)


def _triton_softmax_host_us(x, y, host_us):
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
        e = tl.exp(v - tl.max(v, 0))
        tl.store(y_ptr + row * n + cols, e / tl.sum(e, 0), mask=cols < n)

    n = x.shape[1]
    return host_us(lambda: softmax_kernel[(x.shape[0],)](x, y, n, BLOCK=triton.next_power_of_2(n)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
