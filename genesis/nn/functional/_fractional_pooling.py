"""Fractional max pooling (Graham, 2014) in 2 and 3 dims, with PyTorch's window placement.

Note [Fractional pooling windows]: every (sample, channel) plane draws one number ``u`` in
[0, 1) per spatial dim (``_random_samples``, shape (N, C, nd): for 2-D the first is the width's
and the second the height's, for 3-D they go time, height, width). Along a dim of input size
``I``, output size ``O`` and pool size ``K``, with ``alpha = (I - K) / (O - 1)``, window ``i``
starts at ``int((i + u) * alpha) - int(u * alpha)`` for ``i < O - 1`` and the last at
``I - K``; each window is ``K`` wide. The arithmetic is done in the samples' dtype (the
input's), as PyTorch does, so the same samples give the same windows. The windows' starts are
small index tensors per plane and dim; their K-wide taps combine into one flat index into the
input plane per (output, tap), gathered from the detached input and reduced with ``max``; the
argmax's flat index is PyTorch's ``indices``, and the values are one more ``gather`` at those
indices from the input itself, whose backward is the scatter-add of the output's gradient at
the indices (as PyTorch's backward), never a loop over outputs.
"""

from __future__ import annotations

import math
from typing import Any

from ..._C import Tensor, arange, cat, full, int64, rand
from ...amp._policies import autocast_policy

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]

# the position of each spatial dim's sample in _random_samples' last dim (PyTorch's order)
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}
_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _ints(name: str, what: str, value: Any, nd: int) -> tuple[int, ...]:
    """An int or a tuple of 1 or nd ints as nd ints (TypeError for non-ints, as PyTorch)."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        raise TypeError(f"[{name}] {what} must be an int or a tuple of ints, got {value!r}")
    if len(items) not in (1, nd):
        raise RuntimeError(
            f"[{name}] {what} must either be a single Int or tuple of {nd} Ints, got {value!r}"
        )
    return items * nd if len(items) == 1 else items


def _sizes_from_ratio(name: str, output_ratio: Any, sizes: tuple, nd: int) -> tuple[int, ...]:
    ratios = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,)
    if len(ratios) not in (1, nd):
        raise ValueError(
            f"[{name}] requires output_ratio to either be a single number or a tuple of {nd}, "
            f"got {output_ratio!r}"
        )
    ratios = ratios * nd if len(ratios) == 1 else ratios
    return tuple(int(n * r) for n, r in zip(sizes, ratios))


def _check_samples(name: str, samples: Any, x: Tensor, nd: int) -> None:
    if not isinstance(samples, Tensor):
        raise TypeError(
            f"[{name}] _random_samples must be a genesis.Tensor, got {type(samples).__name__}"
        )
    if samples.dim() != 3:
        raise RuntimeError(
            f"[{name}] Expect _random_samples to have 3 dimensions, got {samples.dim()}"
        )
    if samples.shape[0] < x.shape[0]:
        raise RuntimeError(
            f"[{name}] Expect _random_samples.size(0) no less then input batch size."
        )
    if samples.shape[1] != x.shape[1]:
        raise RuntimeError(f"[{name}] Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(
            f"[{name}] Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}."
        )
    if samples.dtype != x.dtype:
        raise RuntimeError(f"[{name}] Expect _random_samples to have the same dtype as input")
    if samples.device != x.device:
        raise RuntimeError(
            f"[{name}] Expect _random_samples on the input's device ({x.device}), got "
            f"{samples.device}"
        )


def _starts(u: Tensor, size: int, out: int, k: int) -> Tensor:
    """(N, C) samples -> (N, C, out) int64 window starts (Note [Fractional pooling windows])."""
    n, c = u.shape
    last = full((n, c, 1), size - k, dtype=int64, device=u.device)
    if out <= 1:
        return last[:, :, :out]
    # alpha rounded to the samples' dtype, as PyTorch computes it (on the host: one division)
    alpha = (full((), size - k, dtype=u.dtype) / (out - 1)).item()
    u = u.unsqueeze(-1)
    i = arange(out - 1, dtype=u.dtype, device=u.device)
    first = ((i + u) * alpha).to(int64) - (u * alpha).to(int64)
    # in range for any u in [0, 1); the clamp only keeps other samples inside the input
    return cat([first.clamp(0, size - k), last], -1)


def _fractional_max_pool(
    name: str,
    nd: int,
    input: Any,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    samples: Any,
) -> tuple[Tensor, Tensor]:
    if not isinstance(input, Tensor):
        raise TypeError(f"[{name}] input must be a genesis.Tensor, got {type(input).__name__}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"[{name}] Expected {nd + 1}D or {nd + 2}D input, but got input of size "
            f"{list(input.shape)}"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"[{name}] expected a floating point input, got {input.dtype}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    sizes = tuple(x.shape[2:])
    for d, n in enumerate(sizes):
        if n == 0:
            raise RuntimeError(
                f"[{name}] Expected input to have non-zero size for non-batch dimensions, but "
                f"got {list(input.shape)} with dimension {input.dim() - nd + d} being empty"
            )
    k = _ints(name, "kernel_size", kernel_size, nd)
    if output_size is None and output_ratio is None:
        raise ValueError(f"[{name}] requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        outs = _ints(name, "output_size", output_size, nd)
    else:
        outs = _sizes_from_ratio(name, output_ratio, sizes, nd)
    if any(v <= 0 for v in k):
        raise RuntimeError(f"[{name}] kernel_size must be greater than zero, got {k}")
    if any(o < 0 for o in outs):
        raise RuntimeError(f"[{name}] output_size must not be negative, got {outs}")
    for what, n, o, kk in zip(_DIM_NAMES[nd], sizes, outs, k):
        # PyTorch's bound: o + k - 1 <= n in 2-D, and < n in 3-D
        if o + kk - 1 > n or (nd == 3 and o + kk - 1 == n):
            raise RuntimeError(
                f"[{name}] pool {what} {kk} too large relative to input {what} {n} "
                f"(output {what} {o})"
            )
    if samples is None:
        samples = rand(x.shape[0], x.shape[1], nd, dtype=x.dtype, device=x.device)
    else:
        _check_samples(name, samples, x, nd)
    values, index = _pool(x, k, outs, samples)
    if not batched:
        values, index = values.squeeze(0), index.squeeze(0)
    return values, index


def _pool(x: Tensor, k: tuple, outs: tuple, samples: Tensor) -> tuple[Tensor, Tensor]:
    """The windows' max and its flat index into each input plane (Note [Fractional pooling
    windows]); (N, C, *sizes) -> two (N, C, *outs) tensors."""
    nd = len(k)
    n, c = x.shape[0], x.shape[1]
    sizes = tuple(x.shape[2:])
    plane, taps, count = math.prod(sizes), math.prod(k), math.prod(outs)
    samples = samples.detach()[:n]
    # flat[n, c, o_1..o_nd, t_1..t_nd]: the input position of tap t of window o
    flat = None
    for d in range(nd):
        starts = _starts(samples[:, :, _SAMPLE_OF_DIM[nd][d]], sizes[d], outs[d], k[d])
        pos = starts.unsqueeze(-1) + arange(k[d], device=x.device)  # (N, C, O_d, K_d)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + d], shape[2 + nd + d] = outs[d], k[d]
        pos = pos.view(shape)
        flat = pos if flat is None else flat * sizes[d] + pos
    assert flat is not None  # nd >= 1: the loop ran
    flat = flat.expand(n, c, *outs, *k).reshape(n, c, count, taps)
    planes = x.reshape(n, c, plane)
    windows = planes.detach().gather(2, flat.reshape(n, c, count * taps)).view(n, c, count, taps)
    arg = windows.max(-1)[1]
    index = flat.gather(3, arg.unsqueeze(-1)).view(n, c, count)
    values = planes.gather(2, index)  # its backward: a scatter-add at the indices
    return values.view(n, c, *outs), index.view(n, c, *outs)


def _doc(nd: int, with_indices: bool) -> str:
    shape = {2: "(N, C, H, W) or (C, H, W)", 3: "(N, C, T, H, W) or (C, T, H, W)"}[nd]
    order = {2: "(width, height)", 3: "(time, height, width)"}[nd]
    call, top = {2: ("16.0).view(1, 1, 4, 4", 15), 3: ("27.0).view(1, 1, 3, 3, 3", 26)}[nd]
    ret = (
        "tuple: (values, indices), the indices int64 flat positions in each input plane."
        if with_indices
        else "Tensor: the pooled values (or (values, indices) with ``return_indices``)."
    )
    name = f"fractional_max_pool{nd}d" + ("_with_indices" if with_indices else "")
    sel = "[0].flatten()" if with_indices else ".flatten()"
    return f"""Applies {nd}-D fractional max pooling: ``kernel_size`` windows placed at
    pseudo-random steps so that the output has ``output_size`` (Note [Fractional pooling
    windows]).

    Args:
        input (Tensor): {shape}, floating point.
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's spatial size. Default: None.
        output_ratio (float or tuple, optional): the output's size as a fraction of the
            input's (``int(size * ratio)``), used when ``output_size`` is None. Default: None.
        return_indices (bool, optional): whether to return the argmax positions too
            (always True for ``*_with_indices``). Default: False.
        _random_samples (Tensor, optional): (N, C, {nd}) numbers in [0, 1) in the input's
            dtype, one per plane and dim in the order {order}; drawn with ``genesis.rand``
            (so ``genesis.manual_seed`` repeats them) when not given. Default: None.

    Returns:
        {ret}

    Example::

        >>> import genesis.nn.functional as F
        >>> F.{name}(genesis.arange({call}), 2, output_size=1){sel}
        tensor([{top}.])
    """


@autocast_policy
def fractional_max_pool2d_with_indices(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    return _fractional_max_pool(
        "fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio, _random_samples
    )


@autocast_policy
def fractional_max_pool3d_with_indices(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    return _fractional_max_pool(
        "fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio, _random_samples
    )


@autocast_policy
def fractional_max_pool2d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    values, index = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
    return (values, index) if return_indices else values


@autocast_policy
def fractional_max_pool3d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    values, index = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
    return (values, index) if return_indices else values


for _nd in (2, 3):
    globals()[f"fractional_max_pool{_nd}d"].__doc__ = _doc(_nd, False)
    globals()[f"fractional_max_pool{_nd}d_with_indices"].__doc__ = _doc(_nd, True)
