"""The connectionist temporal classification loss (torch.nn.functional.ctc_loss).

The forward (alpha) and backward (beta) recursions run in log space over every sample and every
position of the extended label sequence at once, with one Python loop over time steps, as the
recurrent layers do; the gradient is formed in closed form from both (Note [CTC as two
recursions]), so backward never goes through the T steps of the forward's ops.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from ..._C import (
    Tensor,
    add,
    arange,
    bfloat16,
    exp,
    float16,
    full,
    int64,
    isinf,
    log,
    logsumexp,
    maximum,
    stack,
    tensor,
    where,
    zeros,
)
from ..._C import bool as bool_
from ..._dtype_info import finfo
from ...amp._policies import autocast_policy
from ...autograd import Function, once_differentiable

__all__ = ["ctc_loss"]

_OP = "ctc_loss"

# Note [CTC as two recursions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A target l of length S is aligned with the T frames through its extended sequence l' of
# length L = 2S + 1: blanks interleaved with the labels (l'[2j] = blank, l'[2j+1] = l[j]). A path
# sits in one state s of l' per frame; from frame t-1 to t it stays (s), moves on one (s-1 -> s)
# or skips the blank between two labels (s-2 -> s, for odd s >= 3 where l'[s] != l'[s-2]: never
# between two equal labels, whose blank is needed to tell them apart). With E[t, s] =
# log_probs[t, l'[s]]:
#
#   alpha[t, s] = E[t, s] + logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if skip)
#
# from a virtual alpha[-1] that is 0 (log 1) at s = 0 and -inf elsewhere, which gives the
# usual start (states 0 and 1 at frame 0). The likelihood is p = alpha[il-1, L-1] +
# alpha[il-1, L-2] (log-summed; only L-1 when S = 0), with il the sample's input length;
# il = 0 leaves the virtual state, so p is 1 for an empty target and 0 otherwise. The loss is
# -log p: inf when no path fits in il frames (zero_infinity makes that 0, gradient 0). The
# batch shares one L, from its longest target; each sample's final states are its own.
#
# Each step reads alpha[t-1] as three shifted slices (views) of one row of a buffer with two
# -inf columns in front, adds the skip's bias (0, or -inf where forbidden) to the s-2 slice,
# takes the elementwise logsumexp of the three (_logsumexp3; on CUDA one fused logsumexp of them
# stacked) and adds the emission: a dozen small kernels at most for all N samples and L states.
# The loop stops at the longest input length; shorter samples compute frames nobody reads,
# and each sample's alpha is gathered at its frame il-1.
#
# beta runs the same way backwards, including the emission as alpha does:
#
#   beta[t, s] = E[t, s] + logsumexp(beta[t+1, s], beta[t+1, s+1], beta[t+1, s+2] if skip)
#
# started at each sample's own last frame il-1 with E there on the two final states (a `where`
# on t >= il-1 per step keeps a sample at its start until its frames begin). Then for every
# frame t < il, sum_s exp(alpha[t, s] + beta[t, s] - E[t, s]) = p, and the share of state s,
# gamma[t, s] = exp(alpha + beta - E + nll), is the posterior that frame t emits l'[s]. The
# derivative of nll = -log p w.r.t. log_probs[t, c], log_probs taken as free variables, is
# -sum_{s: l'[s] = c} gamma[t, s] (p is linear in each y = exp(log_probs[t, c]) on each path).
#
# PyTorch's gradient, which this returns, adds exp(log_probs[t, c]):
#
#   grad[t, n, c] = exp(log_probs[t, n, c]) - sum_{s: l'[s] = c} gamma[t, n, s]
#
# (the sum one scatter-add of gamma at l'). That is the gradient w.r.t. the logits u of
# log_probs = log_softmax(u), the way CTC is used: log_softmax's backward maps g to
# g - softmax(u) * sum_c g, and since gamma sums to 1 over c at every frame, both forms give
# the same softmax(u) - gamma for the logits. Taken alone on unnormalized log_probs it is not
# their derivative, so gradcheck goes through log_softmax. Frames t >= il get 0; a sample
# whose loss is inf gets NaN on its frames (0 with zero_infinity), as in PyTorch. backward is
# once_differentiable: its ops hold alpha and beta fixed, so they could not give a second
# derivative (PyTorch has none either).


class _CTC(Function):
    """The per-sample CTC losses of (T, N, C) log_probs, with PyTorch's closed-form gradient
    (Note [CTC as two recursions]). ``skip`` (N, L) is 0 where the skip into a state is allowed
    and -inf where not, ``end`` (N, L) 0 on each sample's final states and -inf elsewhere;
    ``frames`` is the longest input length (later frames are never read)."""

    @staticmethod
    def forward(
        ctx: Any,
        log_probs: Tensor,
        ext: Tensor,
        skip: Tensor,
        end: Tensor,
        input_lengths: Tensor,
        frames: int,
        zero_infinity: bool,
    ) -> Tensor:
        t_max, n, _ = log_probs.shape
        emit = _emissions(log_probs, ext)
        length = ext.shape[1]
        # alphas[t + 1, :, 2:] is alpha[t]; alphas[0] the virtual start; two -inf columns in
        # front stand for the states s-1 and s-2 of s = 0.
        alphas = full((t_max + 1, n, length + 2), -math.inf, dtype=emit.dtype, device=emit.device)
        alphas[0, :, 2] = 0.0
        lowest = finfo(emit.dtype).min
        for t in range(frames):  # over time; each step covers every sample and state
            prev = alphas[t]
            step = _logsumexp3(
                prev[:, :length] + skip, prev[:, 1 : length + 1], prev[:, 2:], lowest
            )
            add(emit[t], step, out=alphas[t + 1, :, 2:])
        at = input_lengths.view(1, n, 1).expand(1, n, length)
        last = alphas[:, :, 2:].gather(0, at).squeeze(0)  # alpha at each sample's last frame
        nll = -logsumexp(last + end, -1)
        ctx.save_for_backward(log_probs, ext, skip, end, input_lengths, alphas, nll)
        ctx.frames, ctx.zero_infinity = frames, zero_infinity
        return where(isinf(nll), 0.0, nll) if zero_infinity else nll

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        log_probs, ext, skip, end, input_lengths, alphas, nll = ctx.saved_tensors
        t_max, n, classes = log_probs.shape
        emit = _emissions(log_probs, ext)
        length = ext.shape[1]
        frame = arange(t_max, device=emit.device).view(t_max, 1, 1)
        started = frame >= (input_lengths - 1).view(1, n, 1)  # at or past the last frame
        # betas[t, :, :L] is beta[t]; two -inf columns after it stand for the states s+1 and
        # s+2 of s = L-1, and the row betas[T] for the frame after the last.
        betas = full((t_max + 1, n, length + 2), -math.inf, dtype=emit.dtype, device=emit.device)
        skip_back = full((n, length), -math.inf, dtype=skip.dtype, device=skip.device)
        skip_back[:, : length - 2] = skip[:, 2:]  # the skip from s into s+2
        lowest = finfo(emit.dtype).min
        for t in range(ctx.frames - 1, -1, -1):  # over time, backwards
            nxt = betas[t + 1]
            step = _logsumexp3(
                nxt[:, :length], nxt[:, 1 : length + 1], nxt[:, 2:] + skip_back, lowest
            )
            add(emit[t], where(started[t], end, step), out=betas[t, :, :length])
        gamma = exp(alphas[1:, :, 2:] + betas[:t_max, :, :length] - emit + nll.view(1, n, 1))
        index = ext.unsqueeze(0).expand(t_max, n, length)
        occupancy = zeros(t_max, n, classes, dtype=emit.dtype, device=emit.device)
        result = exp(log_probs) - occupancy.scatter_add(2, index, gamma)
        inside = frame < input_lengths.view(1, n, 1)
        impossible = isinf(nll).view(1, n, 1)
        if ctx.zero_infinity:
            inside = inside & impossible.logical_not()
        else:
            result = where(impossible, math.nan, result)
        result = where(inside, result * grad.view(1, n, 1), 0.0)
        return result, None, None, None, None, None, None


def _logsumexp3(a: Tensor, b: Tensor, c: Tensor, lowest: float) -> Tensor:
    """log(exp(a) + exp(b) + exp(c)), elementwise (-inf where all three are); ``lowest`` is
    the dtype's lowest finite value."""
    if a.is_cuda:  # one fused row kernel over the stacked triples
        return logsumexp(stack([a, b, c], -1), -1)
    # On the CPU a reduction over rows of three is several times slower than these small
    # elementwise ops. The largest is clamped finite so that -inf - top is -inf, never NaN.
    top = maximum(maximum(a, b), c).clamp_min(lowest)
    return log(exp(a - top) + exp(b - top) + exp(c - top)) + top


def _emissions(log_probs: Tensor, ext: Tensor) -> Tensor:
    """E[t, n, s] = log_probs[t, n, ext[n, s]]: (T, N, L), one gather."""
    t_max = log_probs.shape[0]
    index = ext.unsqueeze(0).expand(t_max, *ext.shape)
    try:
        return log_probs.gather(2, index)
    except IndexError:
        raise IndexError(
            f"[{_OP}] a target is out of bounds for {log_probs.shape[2]} classes"
        ) from None


# ----------------------------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------------------------


def _lengths(name: str, value: Any) -> list[int]:
    """A lengths argument as Python ints: an integral tensor (any shape) or a tuple/list of ints."""
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point or value.dtype == bool_:
            raise RuntimeError(f"[{_OP}] {name} must be integral, got {value.dtype}")
        return [int(v) for v in value.detach().reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        try:
            return [operator.index(v) for v in value]
        except TypeError:
            pass
    raise TypeError(
        f"[{_OP}] {name} must be a tensor or a tuple of ints, got {type(value).__name__}"
    )


def _check_lengths(
    n: int, t_max: int, targets: Tensor, input_lengths: list[int], target_lengths: list[int]
) -> None:
    """PyTorch's checks of the lengths against the batch, the frames and the targets."""
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if len(lengths) != n:
            raise RuntimeError(
                f"[{_OP}] {name} must be of size batch_size ({n}), got {len(lengths)}"
            )
    for name, lengths in (("target_lengths", target_lengths), ("input_lengths", input_lengths)):
        low = min(lengths)
        if low < 0:
            raise RuntimeError(
                f"[{_OP}] expected {name} to have value at least 0, but got value {low}"
            )
    longest = max(input_lengths)
    if longest > t_max:
        raise RuntimeError(
            f"[{_OP}] expected input_lengths to have value at most {t_max} (the frames of "
            f"log_probs), but got value {longest}"
        )
    if targets.ndim == 1:
        total = sum(target_lengths)
        if targets.shape[0] != total:
            raise RuntimeError(
                f"[{_OP}] expected concatenated targets of size {total} (the sum of "
                f"target_lengths), but got size {targets.shape[0]}"
            )
    else:
        if targets.shape[0] != n:
            raise RuntimeError(
                f"[{_OP}] expected padded targets with {n} rows (the batch size), but got "
                f"{targets.shape[0]}"
            )
        if targets.shape[1] < max(target_lengths):
            raise RuntimeError(
                f"[{_OP}] expected padded targets with at least {max(target_lengths)} columns "
                f"(the longest target), but got {targets.shape[1]}"
            )


def _labels(
    targets: Tensor, target_lengths: Tensor, longest: int, blank: int, classes: int
) -> Tensor:
    """The (N, longest) labels of padded (N, S) or concatenated targets, blank past each
    sample's length (padding is never read); a negative label, which the gather would wrap,
    is sent out of range."""
    n = target_lengths.shape[0]
    cols = arange(longest, device=targets.device)
    valid = cols.view(1, longest) < target_lengths.view(n, 1)
    if targets.ndim == 2:
        labels = targets[:, :longest]
    elif longest == 0:
        labels = zeros(n, 0, dtype=int64, device=targets.device)
    else:
        starts = target_lengths.cumsum(0) - target_lengths
        labels = targets.take(where(valid, starts.view(n, 1) + cols.view(1, longest), 0))
    labels = where(labels < 0, classes, labels)
    return where(valid, labels, blank)


@autocast_policy
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss: minus the log of the summed probability
    of every alignment of each target with its frames.

    The forward recursion over the extended target (blanks interleaved) runs in log space for
    the whole batch at once, one step per frame, and the gradient comes from the backward
    recursion in closed form: PyTorch's ``exp(log_probs) - posterior`` (Note [CTC as two
    recursions] in ``genesis/nn/functional/_ctc.py``), right for ``log_probs`` made by
    ``log_softmax``. Frames past a sample's input length get no gradient. A target that no
    alignment fits (too long for its frames, counting the blanks between repeated labels) has an
    infinite loss and NaN gradients, or 0 and zero gradients with ``zero_infinity``.

    Args:
        log_probs (Tensor): (T, N, C) or unbatched (T, C) log-probabilities (``log_softmax``
            over C), float32 or float64.
        targets (Tensor): integer labels in [0, C): padded (N, S), each row read up to its
            target length, or all targets concatenated, (sum(target_lengths),).
        input_lengths (Tensor or tuple of ints): (N,) frames of each sample, each <= T.
        target_lengths (Tensor or tuple of ints): (N,) length of each target.
        blank (int, optional): the blank label, in [0, C). Default: 0.
        reduction (str, optional): 'none' | 'mean' | 'sum'; 'mean' divides each loss by its
            target length (at least 1), then averages over the batch. Default: 'mean'.
        zero_infinity (bool, optional): make infinite losses (and their gradients) 0.
            Default: False.

    Returns:
        Tensor: the loss, 0-d, or (N,) for 'none' (0-d for unbatched input).

    Example::

        >>> import genesis.nn.functional as F
        >>> log_probs = genesis.tensor([[0.5, 0.5], [0.5, 0.5]]).log().view(2, 1, 2)
        >>> F.ctc_loss(log_probs, genesis.tensor([[1]]), (2,), (1,), reduction="none")
        tensor([0.2877])
    """
    for name, value in (("log_probs", log_probs), ("targets", targets)):
        if not isinstance(value, Tensor):
            raise TypeError(f"[{_OP}] {name} must be a genesis.Tensor, got {type(value).__name__}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"[{_OP}] {reduction} is not a valid value for reduction")
    if isinstance(blank, bool) or not isinstance(blank, int):
        raise TypeError(f"[{_OP}] blank must be an int, got {type(blank).__name__}")
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError(
            f"[{_OP}] input_lengths and target_lengths must both be tensors or both tuples of "
            f"ints, got {type(input_lengths).__name__} and {type(target_lengths).__name__}"
        )
    in_lengths = _lengths("input_lengths", input_lengths)
    tg_lengths = _lengths("target_lengths", target_lengths)
    if log_probs.dtype in (float16, bfloat16) or not log_probs.dtype.is_floating_point:
        raise NotImplementedError(
            f"[{_OP}] not implemented for {log_probs.dtype} log_probs (float32 and float64 only, "
            "as in PyTorch)"
        )
    if log_probs.numel() == 0:
        raise RuntimeError(f"[{_OP}] log_probs tensor must not be empty")
    batched = log_probs.ndim == 3
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(
            f"[{_OP}] expected 3-D (T, N, C) or 2-D unbatched (T, C) log_probs, got "
            f"{log_probs.ndim}-D {tuple(log_probs.shape)}"
        )
    lp = log_probs if batched else log_probs.unsqueeze(1)
    t_max, n, classes = lp.shape
    if targets.ndim not in (1, 2):
        raise RuntimeError(
            f"[{_OP}] expected 1-D (concatenated) or 2-D (padded) targets, got {targets.ndim}-D "
            f"{tuple(targets.shape)}"
        )
    if not 0 <= blank < classes:
        raise RuntimeError(f"[{_OP}] blank must be in label range [0, {classes}), got {blank}")
    _check_lengths(n, t_max, targets, in_lengths, tg_lengths)

    device = lp.device
    targets = targets.to(device=device, dtype=int64)
    tl = tensor(tg_lengths, dtype=int64, device=device)
    longest = max(tg_lengths)
    labels = _labels(targets, tl, longest, blank, classes)
    length = 2 * longest + 1
    ext = full((n, length), blank, dtype=int64, device=device)
    ext[:, 1::2] = labels
    skip = full((n, length), -math.inf, dtype=lp.dtype, device=device)  # 0 where allowed
    if longest > 1:
        skip[:, 3::2] = where(labels[:, 1:] != labels[:, :-1], 0.0, -math.inf)
    states = arange(length, device=device).view(1, length)
    final = (states == 2 * tl.view(n, 1)) | (states == 2 * tl.view(n, 1) - 1)
    end = where(final, 0.0, -math.inf).to(lp.dtype)
    il = tensor(in_lengths, dtype=int64, device=device)
    loss = _CTC.apply(lp, ext, skip, end, il, max(in_lengths), bool(zero_infinity))
    if reduction == "mean":
        return (loss / tl.clamp_min(1).to(loss.dtype)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.squeeze(0)
