"""examples/attention.tile as a torch module, checked against
torch.nn.functional.scaled_dot_product_attention in float64.

    python3 examples/python/attention_module.py    (a GPU and torch needed)
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tessera  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Attention(torch.nn.Module):
    """softmax(Q K^T / sqrt(D)) V over [B, H, N, D] bf16 tensors."""

    kernel = tessera.load(os.path.join(HERE, "..", "attention.tile")).kernel()

    def forward(self, q, k, v):
        o = torch.empty_like(q)
        self.kernel(q.contiguous(), k.contiguous(), v.contiguous(), o, 1.0 / math.sqrt(q.shape[-1]))
        return o


def main():
    torch.manual_seed(0)
    model = Attention()
    for b, h, n, d in [(2, 4, 1024, 64), (1, 2, 333, 128)]:
        q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = model(q, k, v)
        want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double())
        err = ((o.double() - want).abs().max() / want.abs().max()).item()
        print("attention B%d H%d N%d D%d: max rel err %.2e" % (b, h, n, d, err))
        assert err < 2e-2, err


if __name__ == "__main__":
    main()
