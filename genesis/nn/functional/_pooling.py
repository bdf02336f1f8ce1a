"""Pooling: max, average, power-average and adaptive pools in 1, 2 and 3 dims, and max_unpool.

Note [Pooling as windows]: a fixed-size pool is the padded input's sliding windows (the views of
Note [Convolution as windows and a product]) reduced over the window dims: ``amax``/``max`` (with
the argmax turned into PyTorch's flat index into each input plane) or ``sum`` divided by each
window's count. ``ceil_mode`` adds padding at the end for the last partial window; padding
reads as -inf for max and as zero (counted or not, ``count_include_pad``) for average. An
adaptive pool's windows differ in size (start ``floor(i * L / out)``, end ``ceil((i + 1) * L /
out)``): each dim gathers windows of the largest size with ``index_select`` and masks the
overhang, so every pool is a few compiled ops with gradients, never a loop over outputs.
"""

from __future__ import annotations

import math
from typing import Any

from ..._C import Tensor, _nn, arange, bfloat16, float16, float32, float64, where, zeros
from ..._memory_format import _format_of, contiguous_format
from ...amp._policies import autocast_policy
from ...autograd import Function
from ._conv import _tuple, _windows
from ._padding import _pad_constant

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _batched(name: str, input: Any, nd: int) -> tuple[Tensor, bool]:
    """input as (N, C, *spatial) and whether it was batched."""
    if not isinstance(input, Tensor):
        raise TypeError(f"[{name}] input must be a genesis.Tensor, got {type(input).__name__}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"[{name}] Expected {nd + 1}D or {nd + 2}D input, but got input of size "
            f"{list(input.shape)}"
        )
    batched = input.dim() == nd + 2
    return (input if batched else input.unsqueeze(0)), batched


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1  # the last window would start in the right padding
    return out


def _geometry(
    name: str,
    x: Tensor,
    nd: int,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
) -> tuple:
    k = _tuple(kernel_size, nd, name, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _tuple(stride, nd, name, "stride")
    p = _tuple(padding, nd, name, "padding")
    d = _tuple(dilation, nd, name, "dilation")
    if any(v <= 0 for v in k + s + d):
        raise RuntimeError(f"[{name}] kernel_size, stride and dilation must be greater than zero")
    if any(pi < 0 or pi > ki // 2 for pi, ki in zip(p, k)):
        raise RuntimeError(
            f"[{name}] pad should be at most half of effective kernel size, but got pad={p}, "
            f"kernel_size={k}"
        )
    sizes = tuple(x.shape[2:])
    outs = tuple(
        _out_size(n, ki, si, pi, di, ceil_mode) for n, ki, si, pi, di in zip(sizes, k, s, p, d)
    )
    if any(o <= 0 for o in outs):
        raise RuntimeError(
            f"[{name}] Given input size: {list(x.shape[1:])}. Calculated output size: "
            f"{[x.shape[1], *outs]}. Output size is too small"
        )
    # the end padding that makes the windows reach the last output (ceil_mode may add some)
    ends = tuple(
        (o - 1) * si + di * (ki - 1) + 1 - n - pi
        for o, si, di, ki, n, pi in zip(outs, s, d, k, sizes, p)
    )
    return k, s, p, d, outs, ends


def _max_pool(
    name: str,
    nd: int,
    input: Any,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    with_indices: bool,
) -> Any:
    x, batched = _batched(name, input, nd)
    k, s, p, d, outs, ends = _geometry(
        name, x, nd, kernel_size, stride, padding, dilation, ceil_mode
    )
    values, index = _MaxPool.apply(x, k, s, p, d, outs, ends)
    if not with_indices:
        return values if batched else values.squeeze(0)
    if not batched:
        values, index = values.squeeze(0), index.squeeze(0)
    return values, index


def _max_and_index(x: Tensor, k: tuple, s: tuple, p: tuple, d: tuple, outs: tuple, ends: tuple):
    """Each window's max and its argmax as PyTorch's flat index into the input plane."""
    nd = len(k)
    sizes = tuple(x.shape[2:])
    pairs = [(pi, max(e, 0)) for pi, e in zip(p, ends)]
    padded = (
        _pad_constant(x, list(reversed(pairs)), -math.inf) if any(a or b for a, b in pairs) else x
    )
    win = _windows(padded, k, s, d)  # (N, C, *outs, *k)
    win = win[(Ellipsis, *[slice(0, o) for o in outs], *[slice(None)] * nd)]
    flat = win.reshape(*win.shape[: 2 + nd], -1)
    values, arg = flat.max(-1)
    # The argmax's position in the input plane: per dim, out * stride - pad + tap * dilation.
    index = None
    rest = arg
    strides_of_taps = [math.prod(k[i + 1 :]) for i in range(nd)]
    for i in range(nd):
        tap = rest.div(strides_of_taps[i], rounding_mode="floor") if i < nd - 1 else rest
        rest = rest - tap * strides_of_taps[i]
        shape = [1] * (2 + nd)
        shape[2 + i] = outs[i]
        start = (arange(outs[i], device=x.device) * s[i] - p[i]).view(shape)
        pos = start + tap * d[i]
        index = pos if index is None else index * sizes[i] + pos
    assert index is not None  # nd >= 1: the loop ran
    return values, index


class _MaxPool(Function):
    """Max pooling whose backward adds each output's gradient at its argmax in the input plane
    (one scatter-add the size of the output), as PyTorch's max_pool backward does; through the
    windows' views it would scatter a zero-filled tensor the size of every window."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, k: tuple, s: tuple, p: tuple, d: tuple, outs, ends):
        if x.dtype in (float16, bfloat16, float32, float64):  # one kernel (csrc/ops/max_pool.h)
            values, index = _nn._max_pool(x, list(k), list(s), list(p), list(d), list(outs))
        else:
            values, index = _max_and_index(x, k, s, p, d, outs, ends)
        ctx.save_for_backward(index)
        ctx.input_shape = tuple(x.shape)
        ctx.channels_last = _format_of(x) is not contiguous_format
        ctx.mark_non_differentiable(index)
        return values, index

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _grad_index: Any) -> tuple[Tensor | None, ...]:
        (index,) = ctx.saved_tensors
        shape = ctx.input_shape
        n, c = shape[:2]
        plane = math.prod(shape[2:])
        if ctx.channels_last:  # the gradient keeps the input's layout, as PyTorch's
            into = zeros(n, *shape[2:], c, dtype=grad.dtype, device=grad.device).movedim(-1, 1)
        else:
            into = zeros(shape, dtype=grad.dtype, device=grad.device)
        # in place through an (N, C, plane) view: the out-of-place form would copy the zeros
        # once more
        into.view(n, c, plane).scatter_add_(2, index.reshape(n, c, -1), grad.reshape(n, c, -1))
        return into, None, None, None, None, None, None


def _avg_pool(
    name: str,
    nd: int,
    input: Any,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Any,
) -> Tensor:
    x, batched = _batched(name, input, nd)
    k, s, p, d, outs, ends = _geometry(name, x, nd, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"[{name}] divisor must be not zero")
    pairs = [(pi, max(e, 0)) for pi, e in zip(p, ends)]
    padded = _pad_constant(x, list(reversed(pairs)), 0.0) if any(a or b for a, b in pairs) else x
    win = _windows(padded, k, s, d)
    win = win[(Ellipsis, *[slice(0, o) for o in outs], *[slice(None)] * nd)]
    total = win.sum(list(range(2 + nd, 2 + 2 * nd)))
    if divisor_override is not None:
        out = total / divisor_override
    else:
        # Each window's count: its taps inside the input (count_include_pad: inside the input
        # and its padding, not the ceil_mode overhang), from a mask of the spatial plane.
        sizes = tuple(x.shape[2:])
        mask = zeros(
            *[n + pi + max(e, 0) + pi for n, pi, e in zip(sizes, p, ends)],
            dtype=x.dtype,
            device=x.device,
        )
        inside = tuple(
            slice(0 if count_include_pad else pi, (n + 2 * pi) if count_include_pad else pi + n)
            for n, pi in zip(sizes, p)
        )
        mask[inside] = 1.0
        counts = _windows(mask.view(1, 1, *mask.shape), k, s, d)
        counts = counts[(Ellipsis, *[slice(0, o) for o in outs], *[slice(None)] * nd)]
        counts = counts.sum(list(range(2 + nd, 2 + 2 * nd)))
        out = total / counts
    return out if batched else out.squeeze(0)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling that also returns the argmax positions (flat, per input row).

    Args:
        input (Tensor): (N, C, L) or (C, L).
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: None
            (``kernel_size``).
        padding (int or tuple, optional): -inf padding on both sides, at most half the window.
            Default: 0.
        dilation (int or tuple, optional): the spacing between window taps. Default: 1.
        ceil_mode (bool, optional): whether a partial last window gives an output. Default: False.
        return_indices (bool, optional): accepted for PyTorch's signature; always True here.
            Default: False.

    Returns:
        tuple: (values, indices), the indices int64 positions in the input's last dim.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.max_pool1d_with_indices(genesis.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """
    return _max_pool(
        "max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, True
    )


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling that also returns the argmax positions (flat, per input plane).

    Args:
        input (Tensor): (N, C, H, W) or (C, H, W).
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: None
            (``kernel_size``).
        padding (int or tuple, optional): -inf padding on both sides, at most half the window.
            Default: 0.
        dilation (int or tuple, optional): the spacing between window taps. Default: 1.
        ceil_mode (bool, optional): whether a partial last window gives an output. Default: False.
        return_indices (bool, optional): accepted for PyTorch's signature; always True here.
            Default: False.

    Returns:
        tuple: (values, indices), the indices int64 positions ``h * W + w`` in each plane.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.max_pool2d_with_indices(genesis.arange(4.0).view(1, 1, 2, 2), 2)
        (tensor([[[[3.]]]]), tensor([[[[3]]]]))
    """
    return _max_pool(
        "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, True
    )


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-D max pooling that also returns the argmax positions (flat, per input volume).

    Args:
        input (Tensor): (N, C, D, H, W) or (C, D, H, W).
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: None
            (``kernel_size``).
        padding (int or tuple, optional): -inf padding on both sides, at most half the window.
            Default: 0.
        dilation (int or tuple, optional): the spacing between window taps. Default: 1.
        ceil_mode (bool, optional): whether a partial last window gives an output. Default: False.
        return_indices (bool, optional): accepted for PyTorch's signature; always True here.
            Default: False.

    Returns:
        tuple: (values, indices), the indices int64 positions ``(d * H + h) * W + w``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.max_pool3d_with_indices(genesis.arange(8.0).view(1, 1, 2, 2, 2), 2)[1].flatten()
        tensor([7])
    """
    return _max_pool(
        "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, True
    )


def _max_pool_doc(nd: int) -> str:
    shape = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[nd]
    view = {1: "1, 1, 16", 2: "1, 1, 4, 4", 3: "1, 2, 2, 2, 2"}[nd]
    result = {
        1: "tensor([ 1.,  3.,  5.,  7.,  9., 11., 13., 15.])",
        2: "tensor([ 5.,  7., 13., 15.])",
        3: "tensor([ 7., 15.])",
    }[nd]
    return f"""Applies {nd}-D max pooling over an input of shape {shape} (or unbatched).

    Windows are reduced with max (NaN propagates); with ``return_indices=True`` the result is
    (values, indices) as from ``max_pool{nd}d_with_indices`` (Note [Pooling as windows]).

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: None
            (``kernel_size``).
        padding (int or tuple, optional): -inf padding on both sides, at most half the window.
            Default: 0.
        dilation (int or tuple, optional): the spacing between window taps. Default: 1.
        ceil_mode (bool, optional): whether a partial last window gives an output. Default: False.
        return_indices (bool, optional): whether to return the argmax positions too.
            Default: False.

    Returns:
        Tensor: the pooled values (or the tuple (values, indices)).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.max_pool{nd}d(genesis.arange(16.0).view({view}), 2).flatten()
        {result}
    """


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    out = _max_pool(
        "max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )
    return out


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    return _max_pool(
        "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


@autocast_policy
def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    return _max_pool(
        "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


max_pool1d.__doc__ = _max_pool_doc(1)
max_pool2d.__doc__ = _max_pool_doc(2)
max_pool3d.__doc__ = _max_pool_doc(3)


def _avg_pool_doc(nd: int) -> str:
    shape = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[nd]
    extra = (
        ""
        if nd == 1
        else """
        divisor_override (int, optional): divide every window's sum by this instead of its
            count. Default: None."""
    )
    example = {
        1: ("genesis.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2", "tensor([[[1.5000, 3.5000]]])"),
        2: ("genesis.arange(4.0).view(1, 1, 2, 2), 2", "tensor([[[[1.5000]]]])"),
        3: ("genesis.arange(8.0).view(1, 1, 2, 2, 2), 2", "tensor([[[[[3.5000]]]]])"),
    }[nd]
    return f"""Applies {nd}-D average pooling over an input of shape {shape} (or unbatched).

    Each window's sum is divided by its count: the window size with ``count_include_pad``,
    else the taps inside the input; ``ceil_mode``'s overhang never counts (Note [Pooling as
    windows]).

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: None
            (``kernel_size``).
        padding (int or tuple, optional): zero padding on both sides, at most half the window.
            Default: 0.
        ceil_mode (bool, optional): whether a partial last window gives an output. Default: False.
        count_include_pad (bool, optional): whether padding counts in the divisor. Default: True.{extra}

    Returns:
        Tensor: the pooled values.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.avg_pool{nd}d({example[0]})
        {example[1]}
    """  # noqa: E501


@autocast_policy
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(
        "avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None
    )


@autocast_policy
def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    return _avg_pool(
        "avg_pool2d",
        2,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


@autocast_policy
def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    return _avg_pool(
        "avg_pool3d",
        3,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


avg_pool1d.__doc__ = _avg_pool_doc(1)
avg_pool2d.__doc__ = _avg_pool_doc(2)
avg_pool3d.__doc__ = _avg_pool_doc(3)


def _lp_pool(
    name: str, nd: int, input: Any, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool
) -> Tensor:
    k = _tuple(kernel_size, nd, name, "kernel_size")
    pooled = _avg_pool(name, nd, input.pow(norm_type), k, stride, 0, ceil_mode, True, None)
    # avg * window size is the window's sum of x^p; PyTorch keeps its sign through a relu
    return (pooled.sign() * pooled.abs().relu()).mul(math.prod(k)).pow(1.0 / norm_type)


def _lp_pool_doc(nd: int) -> str:
    return f"""Applies {nd}-D power-average pooling: each window gives ``(sum x^p)^(1/p)``.

    Args:
        input (Tensor): the input, batched or unbatched.
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: None
            (``kernel_size``).
        ceil_mode (bool, optional): whether a partial last window gives an output. Default: False.

    Returns:
        Tensor: the pooled values.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.lp_pool1d(genesis.tensor([[[3.0, 4.0]]]), 2, 2)
        tensor([[[5.]]])
    """


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool("lp_pool1d", 1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool("lp_pool2d", 2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool("lp_pool3d", 3, input, norm_type, kernel_size, stride, ceil_mode)


lp_pool1d.__doc__ = _lp_pool_doc(1)
lp_pool2d.__doc__ = _lp_pool_doc(2)
lp_pool3d.__doc__ = _lp_pool_doc(3)


def _adaptive_windows(size: int, out: int, device: Any) -> tuple[Tensor, Tensor, int]:
    """(index, valid, width): for each output, the input positions of its window padded to the
    widest window (index clamped, valid False past the window's end)."""
    starts = [(i * size) // out for i in range(out)]
    stops = [-((-(i + 1) * size) // out) for i in range(out)]
    width = max(b - a for a, b in zip(starts, stops))
    start = arange(out, device=device).mul(size).div(out, rounding_mode="floor")
    stop = arange(1, out + 1, device=device).mul(size).add(out - 1).div(out, rounding_mode="floor")
    taps = arange(width, device=device)
    pos = start.view(-1, 1) + taps.view(1, -1)
    valid = pos < stop.view(-1, 1)
    return pos.clamp(max=size - 1).reshape(-1), valid, width


def _output_size(name: str, output_size: Any, sizes: tuple, nd: int) -> tuple[int, ...]:
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        wanted: tuple = (output_size,) * nd
    elif isinstance(output_size, (tuple, list)) and len(output_size) == nd:
        wanted = tuple(output_size)
    else:
        raise ValueError(
            f"[{name}] output_size must be an int or a tuple of {nd}, got {output_size!r}"
        )
    result = tuple(n if o is None else o for o, n in zip(wanted, sizes))
    if any(o <= 0 for o in result):
        raise RuntimeError(f"[{name}] output_size must be positive, got {output_size!r}")
    return result


def _adaptive(name: str, nd: int, input: Any, output_size: Any, kind: str) -> Any:
    x, batched = _batched(name, input, nd)
    sizes = tuple(x.shape[2:])
    if any(n == 0 for n in sizes):
        raise RuntimeError(f"[{name}] input has a zero-size spatial dim: {list(x.shape)}")
    outs = _output_size(name, output_size, sizes, nd)
    if kind == "avg" and x.is_floating_point() and all(n % o == 0 for n, o in zip(sizes, outs)):
        # Windows of n / o items that tile the input (a global average, or an even split): one
        # mean over the split dims, a reshaped view even of a channels-last input.
        split = [x.shape[0], x.shape[1]]
        for n, o in zip(sizes, outs):
            split += [o, n // o]
        y = x.reshape(split).mean(tuple(3 + 2 * i for i in range(nd)))
        return y if batched else y.squeeze(0)
    if kind == "avg":
        # An average over a box is an average along each dim in turn.
        for i in range(nd):
            dim = 2 + i
            index, valid, width = _adaptive_windows(sizes[i], outs[i], x.device)
            g = x.index_select(dim, index)
            shape = list(x.shape)
            shape[dim : dim + 1] = [outs[i], width]
            g = g.reshape(shape)
            mask_shape = [1] * len(shape)
            mask_shape[dim], mask_shape[dim + 1] = outs[i], width
            m = valid.view(mask_shape).to(x.dtype)
            x = (g * m).sum(dim + 1) / m.sum(dim + 1)
        return x if batched else x.squeeze(0)
    # max: gather whole boxes (every dim's window), so the argmax is over the box
    g = x
    valid_all = None
    widths = []
    for i in range(nd):
        dim = 2 + 2 * i
        index, valid, width = _adaptive_windows(sizes[i], outs[i], x.device)
        widths.append(width)
        g = g.index_select(dim, index)
        shape = list(g.shape)
        shape[dim : dim + 1] = [outs[i], width]
        g = g.reshape(shape)
        vshape = [1] * (2 + 2 * nd)
        vshape[2 + 2 * i], vshape[3 + 2 * i] = outs[i], width
        v = valid.view(vshape)
        valid_all = v if valid_all is None else valid_all & v
    assert valid_all is not None  # nd >= 1: the loop ran
    g = where(valid_all, g, -math.inf)
    # (N, C, o1, w1, o2, w2, ...) -> (N, C, o1, o2, ..., w1 * w2 * ...)
    order = [0, 1] + [2 + 2 * i for i in range(nd)] + [3 + 2 * i for i in range(nd)]
    g = g.permute(order).reshape(x.shape[0], x.shape[1], *outs, -1)
    values, arg = g.max(-1)
    if kind == "max":
        return values if batched else values.squeeze(0)
    index_all = None
    rest = arg
    for i in range(nd):
        step = math.prod(widths[i + 1 :])
        tap = rest.div(step, rounding_mode="floor") if i < nd - 1 else rest
        rest = rest - tap * step
        shape = [1] * (2 + nd)
        shape[2 + i] = outs[i]
        start = arange(outs[i], device=x.device).mul(sizes[i]).div(outs[i], rounding_mode="floor")
        pos = start.view(shape) + tap
        index_all = pos if index_all is None else index_all * sizes[i] + pos
    assert index_all is not None  # nd >= 1: the loop ran
    if not batched:
        values, index_all = values.squeeze(0), index_all.squeeze(0)
    return values, index_all


def _adaptive_doc(nd: int, kind: str, with_indices: bool = False) -> str:
    what = "average" if kind == "avg" else "max"
    ret = (
        "tuple: (values, indices), the indices int64 flat positions in each input plane."
        if with_indices
        else "Tensor: the pooled values"
        + (" (or (values, indices) with return_indices)." if kind == "max" else ".")
    )
    ri = (
        ""
        if kind == "avg"
        else """
        return_indices (bool, optional): whether to return the argmax positions too.
            Default: False."""
    )
    call = {
        1: "genesis.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2",
        2: "genesis.arange(16.0).view(1, 1, 4, 4), 2",
        3: "genesis.arange(8.0).view(1, 1, 2, 2, 2), 1",
    }[nd]
    res = {
        ("avg", 1): "tensor([1.5000, 3.5000])",
        ("max", 1): "tensor([2., 4.])",
        ("avg", 2): "tensor([ 2.5000,  4.5000, 10.5000, 12.5000])",
        ("max", 2): "tensor([ 5.,  7., 13., 15.])",
        ("avg", 3): "tensor([3.5000])",
        ("max", 3): "tensor([7.])",
    }[(kind, nd)]
    name = f"adaptive_{kind}_pool{nd}d" + ("_with_indices" if with_indices else "")
    sel = "[0].flatten()" if with_indices else ".flatten()"
    return f"""Applies {nd}-D adaptive {what} pooling: the output has ``output_size`` for any
    input size, window ``i`` covering ``[floor(i * L / out), ceil((i + 1) * L / out))``.

    Args:
        input (Tensor): (N, C, *spatial) or unbatched.
        output_size (int or tuple): the output's spatial size (None keeps a dim).{ri}

    Returns:
        {ret}

    Example::

        >>> import genesis.nn.functional as F
        >>> F.{name}({call}){sel}
        {res}
    """


@autocast_policy
def adaptive_avg_pool1d(input, output_size):
    return _adaptive("adaptive_avg_pool1d", 1, input, output_size, "avg")


@autocast_policy
def adaptive_avg_pool2d(input, output_size):
    return _adaptive("adaptive_avg_pool2d", 2, input, output_size, "avg")


@autocast_policy
def adaptive_avg_pool3d(input, output_size):
    return _adaptive("adaptive_avg_pool3d", 3, input, output_size, "avg")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive(
        "adaptive_max_pool1d", 1, input, output_size, "max_idx" if return_indices else "max"
    )


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive(
        "adaptive_max_pool2d", 2, input, output_size, "max_idx" if return_indices else "max"
    )


@autocast_policy
def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive(
        "adaptive_max_pool3d", 3, input, output_size, "max_idx" if return_indices else "max"
    )


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive("adaptive_max_pool1d", 1, input, output_size, "max_idx")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive("adaptive_max_pool2d", 2, input, output_size, "max_idx")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive("adaptive_max_pool3d", 3, input, output_size, "max_idx")


for _nd in (1, 2, 3):
    globals()[f"adaptive_avg_pool{_nd}d"].__doc__ = _adaptive_doc(_nd, "avg")
    globals()[f"adaptive_max_pool{_nd}d"].__doc__ = _adaptive_doc(_nd, "max")
    globals()[f"adaptive_max_pool{_nd}d_with_indices"].__doc__ = _adaptive_doc(_nd, "max", True)


def _max_unpool(
    name: str,
    nd: int,
    input: Any,
    indices: Any,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    output_size: Any,
) -> Tensor:
    x, batched = _batched(name, input, nd)
    if not isinstance(indices, Tensor) or tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"[{name}] Expected shape of indices to be same as that of the input "
            f"tensor ({list(input.shape)})"
        )
    idx = indices if batched else indices.unsqueeze(0)
    k = _tuple(kernel_size, nd, name, "kernel_size")
    s = k if stride is None else _tuple(stride, nd, name, "stride")
    p = _tuple(padding, nd, name, "padding")
    default = [(n - 1) * si - 2 * pi + ki for n, si, pi, ki in zip(x.shape[2:], s, p, k)]
    if output_size is None:
        out = default
    else:
        out = list(output_size)[-nd:]
        if len(out) != nd:
            raise ValueError(f"[{name}] output_size should have {nd} or {nd + 2} elements")
    n, c = x.shape[0], x.shape[1]
    plane = math.prod(out)
    flat = zeros(n, c, plane, dtype=x.dtype, device=x.device)
    result = flat.scatter(2, idx.reshape(n, c, -1), x.reshape(n, c, -1)).view(n, c, *out)
    return result if batched else result.squeeze(0)


def _max_unpool_doc(nd: int) -> str:
    return f"""Inverts ``max_pool{nd}d``: each value goes to its index in a zero output.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the indices ``max_pool{nd}d(..., return_indices=True)`` gave.
        kernel_size (int or tuple): the pool's window size.
        stride (int or tuple, optional): the pool's stride. Default: None (``kernel_size``).
        padding (int or tuple, optional): the pool's padding. Default: 0.
        output_size (tuple, optional): the output's size, when the default is ambiguous.
            Default: None.

    Returns:
        Tensor: the unpooled tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.max_unpool1d(genesis.tensor([[[5.0]]]), genesis.tensor([[[1]]]), 2)
        tensor([[[0., 5.]]])
    """


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size)


@autocast_policy
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size)


@autocast_policy
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size)


max_unpool1d.__doc__ = _max_unpool_doc(1)
max_unpool2d.__doc__ = _max_unpool_doc(2)
max_unpool3d.__doc__ = _max_unpool_doc(3)
