"""examples/softmax.tile as a torch module, checked against torch.softmax.

    python3 examples/python/softmax_module.py      (a GPU and torch needed)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tessera  # noqa: E402
import tessera.testing  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Softmax(torch.nn.Module):
    """Row-wise softmax of a 2-D f32 tensor by the Tessera kernel."""

    kernel = tessera.load(os.path.join(HERE, "..", "softmax.tile")).softmax

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        self.kernel(x, y)
        return y


def main():
    torch.manual_seed(0)
    model = Softmax()
    for m, n in [(4096, 1000), (333, 4096), (1, 7)]:
        x = torch.randn(m, n, device="cuda") * 4
        y = model(x)
        want = torch.softmax(x.double(), dim=-1)
        err = (y.double() - want).abs().max().item()
        ms = tessera.testing.bench(lambda: model.kernel(x, y))
        ms_torch = tessera.testing.bench(lambda: torch.softmax(x, dim=-1))
        gbps = 2 * x.numel() * 4 / ms / 1e6
        print("softmax %dx%d: max abs err %.2e, tessera %.3f ms (%.0f GB/s), torch %.3f ms"
              % (m, n, err, ms, gbps, ms_torch))
        assert err < 1e-5, err


if __name__ == "__main__":
    main()
