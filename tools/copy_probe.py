"""GPT-2's layout copies one by one, genesis against torch (GPU machine only).

    PYTHONPATH=. python tools/copy_probe.py

The copies around attention in the issue-47 GPT-2 step (8 x 1024 tokens, 12 heads of 64, bf16):
q taken from the fused qkv product into heads, the attention's output back to tokens, a head
gradient back to tokens, and the three gradients joined for the qkv product. For each, the CUDA
kernels both libraries launch and their times (torch.profiler sees genesis's kernels too) and
the rate over the bytes read and written once. Used to tune the strided copy kernel.
"""

from __future__ import annotations

import numpy as np
import torch

import genesis
from tools.step_profile import kernel_table

B, T, H, D = 8, 1024, 12, 64
C = H * D


def cases(lib):
    rng = np.random.default_rng(0)

    def bf16(*shape):
        return lib.tensor(rng.standard_normal(shape, dtype=np.float32), device="cuda").to(
            lib.bfloat16
        )

    qkv, heads = bf16(B, T, 3 * C), bf16(B, H, T, D)
    pieces = [bf16(B, T, C) for _ in range(3)]
    return {
        "q to heads (.contiguous())": lambda: (
            qkv[..., :C].view(B, T, H, D).transpose(1, 2).contiguous()
        ),
        "heads to tokens (.contiguous())": lambda: heads.transpose(1, 2).contiguous(),
        "heads to tokens (.reshape())": lambda: heads.transpose(1, 2).reshape(B, T, C),
        "cat of 3 gradients (dim 2)": lambda: lib.cat(pieces, dim=2),
    }


def main() -> None:
    mine, theirs = cases(genesis), cases(torch)
    piece = B * T * C * 2
    for name in mine:
        moved = 2 * piece * (3 if name.startswith("cat") else 1)
        print(f"\n== {name}: {moved / 1e6:.1f} MB read + written")
        for label, fn, sync in (
            ("genesis", mine[name], genesis.cuda.synchronize),
            ("torch", theirs[name], torch.cuda.synchronize),
        ):
            kernel_table(label, fn, sync, moved, "TB/s", iters=20)


if __name__ == "__main__":
    main()
