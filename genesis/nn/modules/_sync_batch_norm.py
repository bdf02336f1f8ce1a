"""The autograd Function behind SyncBatchNorm's training forward: batch statistics over every
rank of a process group.

Note [Batch statistics across ranks]: each rank reduces its own (N_r, C, *) batch to per-channel
count, mean and biased variance (float32 for 16-bit input, as the eager kernels accumulate), and
the ranks all_gather those 2C + 1 numbers, so a rank with an empty batch (count 0) takes part
without weighing in, and unequal batches combine exactly: N = sum N_r, mean = sum N_r m_r / N,
var = sum N_r (v_r + (m_r - mean)^2) / N (PyTorch's batch_norm_gather_stats_with_counts). The
running statistics take the unbiased var * N / (N - 1). Backward: the input's gradient needs the
global sums of dy and dy * (x - mean), one all_reduce of 2C numbers; the weight's and bias's
gradients are the rank's own sums, which data parallelism then averages as for any parameter.
Every rank must call forward and backward the same number of times, as with any collective.
"""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, bfloat16, cat, float16, float32, full, stack, zeros
from ...autograd import Function, no_grad

__all__: list[str] = []


def _reduced_dims(x: Tensor) -> tuple[int, ...]:
    return (0, *range(2, x.dim()))


def _per_channel(v: Tensor, x: Tensor) -> Tensor:
    """A (C,) vector shaped (1, C, 1, ...) to broadcast over x."""
    return v.reshape((1, -1) + (1,) * (x.dim() - 2))


class SyncBatchNormFunction(Function):
    """y = (x - mean) * invstd * weight + bias with the mean and variance of the whole group's
    batch (Note [Batch statistics across ranks])."""

    @staticmethod
    def forward(
        ctx: Any,
        input: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        running_mean: Tensor | None,
        running_var: Tensor | None,
        eps: float,
        momentum: float,
        process_group: Any,
        world_size: int,
    ) -> Tensor:
        from ... import distributed as dist  # here: genesis.distributed imports genesis.nn

        channels = input.shape[1]
        count = input.numel() // channels
        if count == 1 and world_size < 2:
            raise ValueError(
                "[SyncBatchNorm] Expected more than 1 value per channel when training, got "
                f"input size {count}"
            )
        x = input.to(float32) if input.dtype in (float16, bfloat16) else input
        dims = _reduced_dims(x)
        if count > 0:
            local = cat(
                [
                    x.mean(dims),
                    x.var(dims, unbiased=False),
                    full((1,), count, dtype=x.dtype, device=x.device),
                ]
            )
        else:  # takes part in the gather with a zero count (filtered out below)
            local = zeros(2 * channels + 1, dtype=x.dtype, device=x.device)
        gathered = [
            zeros(2 * channels + 1, dtype=x.dtype, device=x.device) for _ in range(world_size)
        ]
        dist.all_gather(gathered, local, group=process_group)
        table = stack(gathered)  # (world, 2C + 1)
        counts = table[:, 2 * channels : 2 * channels + 1]  # (world, 1)
        total = float(counts.sum())
        if total < 1:
            raise ValueError("[SyncBatchNorm] every rank's batch is empty")
        means, variances = table[:, :channels], table[:, channels : 2 * channels]
        mean = (means * counts).sum(0) / total
        var = ((variances + (means - mean) ** 2) * counts).sum(0) / total
        invstd = (var + eps).rsqrt()
        if running_mean is not None and running_var is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
                unbiased = var * (total / (total - 1)) if total > 1 else var
                running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        scale = invstd if weight is None else invstd * weight.to(x.dtype)
        shift = -mean * scale if bias is None else bias.to(x.dtype) - mean * scale
        out = x * _per_channel(scale, x) + _per_channel(shift, x)
        ctx.save_for_backward(input, weight, mean, invstd)
        ctx.process_group, ctx.total = process_group, total
        return out.to(input.dtype)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        input, weight, mean, invstd = ctx.saved_tensors
        channels = input.shape[1]
        x = input.to(float32) if input.dtype in (float16, bfloat16) else input
        dy = grad_output.to(x.dtype)
        dims = _reduced_dims(x)
        if x.numel() > 0:
            xhat = (x - _per_channel(mean, x)) * _per_channel(invstd, x)
            sum_dy, sum_dy_xhat = dy.sum(dims), (dy * xhat).sum(dims)
        else:
            xhat = x
            sum_dy = sum_dy_xhat = zeros(channels, dtype=x.dtype, device=x.device)
        grad_input = grad_weight = grad_bias = None
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = sum_dy_xhat.to(weight.dtype)
        if weight is not None and ctx.needs_input_grad[2]:
            grad_bias = sum_dy.to(weight.dtype)
        if ctx.needs_input_grad[0]:
            from ... import distributed as dist

            both = cat([sum_dy, sum_dy_xhat])
            dist.all_reduce(both, group=ctx.process_group)  # every rank, even with no items
            mean_dy = _per_channel(both[:channels] / ctx.total, x)
            mean_dy_xhat = _per_channel(both[channels:] / ctx.total, x)
            gain = invstd if weight is None else invstd * weight.to(x.dtype)
            grad_input = ((dy - mean_dy - xhat * mean_dy_xhat) * _per_channel(gain, x)).to(
                input.dtype
            )
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None
