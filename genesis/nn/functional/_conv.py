"""Convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d) and unfold/fold.

Note [Convolution as windows and a product]: a convolution here is the input's sliding windows
(``Tensor.unfold`` once per spatial dim: views, no copy; dilation is a strided slice of each
window) copied once into (C * K, positions) matrices (im2col, Note [Columns in position order])
and multiplied by the weight, one matrix product per sample and group (cuBLAS on CUDA, genesis's
GEMM on the CPU). Gradients are products too (_WindowProduct). A transposed convolution is the
convolution of the input spread out by the stride (zeros between its elements), padded by
``dilation * (k - 1) - padding`` and read with the flipped, transposed weight. This is the
path for CUDA when cuDNN is absent or disabled (genesis.backends.cudnn) and for the CPU's
convolutions that the shifted-window passes do not take (strided, grouped, 3-D, few channels);
the others go to the three C++ passes (_conv_passes.py): cuDNN's on CUDA, on the CPU products
over shifted windows (Note [Convolution over shifted windows] in csrc/cpu/convolution.cpp).
"""

from __future__ import annotations

import math
from typing import Any

from ..._C import Tensor, arange, stack, zeros
from ...amp._policies import autocast_policy
from ...autograd import Function
from . import _conv_passes as _passes
from ._padding import _pad_constant

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_tbc",
    "conv_transpose3d",
    "fold",
    "unfold",
]


def _tuple(value: Any, n: int, name: str, what: str) -> tuple[int, ...]:
    if type(value) is int:
        return (value,) * n
    if type(value) is tuple and len(value) == n and all(type(v) is int for v in value):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    if isinstance(value, (tuple, list)) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        if len(value) == 1:
            return tuple(value) * n
        if len(value) == n:
            return tuple(value)
    raise RuntimeError(
        f"[{name}] expected {what} to be an int or a tuple of {n} ints, got {value!r}"
    )


def _windows(x: Tensor, kernel: tuple, stride: tuple, dilation: tuple) -> Tensor:
    """(N, C, *spatial) -> (N, C, *out, *kernel): the sliding windows, as views."""
    nd = len(kernel)
    for i in range(nd):
        x = x.unfold(2 + i, dilation[i] * (kernel[i] - 1) + 1, stride[i])
    if any(d > 1 for d in dilation):
        x = x[(Ellipsis, *(slice(None, None, d) for d in dilation))]
    return x


def _columns(x: Tensor, kernel: tuple, stride: tuple, dilation: tuple, groups: int) -> Tensor:
    """The windows of an already padded (N, C, *spatial) input as (N, groups, C / groups * K,
    positions) matrices (im2col): one copy whose innermost runs are the output positions, the
    windows' own contiguous order (Note [Columns in position order])."""
    nd = len(kernel)
    windows = _windows(x, kernel, stride, dilation)  # (N, C, *out, *kernel)
    n, c = windows.shape[0], windows.shape[1]
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))  # (N, C, *kernel, *out)
    positions = math.prod(windows.shape[2 : 2 + nd])
    return windows.permute(*order).reshape(n, groups, c // groups * math.prod(kernel), positions)


def _window_product(
    x: Tensor, weight: Tensor, stride: tuple, dilation: tuple, groups: int
) -> Tensor:
    """The convolution of an already padded (N, C, *spatial) input: per group the weight as a
    (C_out / g, C_in / g * K) matrix times the input's columns, which leaves the result in
    (N, C_out, *out) order with no copy."""
    kernel = tuple(weight.shape[2:])
    out_sizes = [
        (size - d * (k - 1) - 1) // s + 1
        for size, d, k, s in zip(x.shape[2:], dilation, kernel, stride)
    ]
    cols = _columns(x, kernel, stride, dilation, groups)
    w = weight.reshape(groups, weight.shape[0] // groups, cols.shape[2])
    return (w @ cols).reshape(x.shape[0], weight.shape[0], *out_sizes)


# Note [Columns in position order]: the columns are laid out (N, g, C / g * K, positions) so that
# the copy out of the windows' views runs along each window row's contiguous positions (copying
# them in (N, positions, C * K) order took 25 times longer: one item a step across the whole
# input), the forward's product writes (N, C_out, *out) directly, and the weight's gradient is
# the product of the columns with the output gradient's transpose, (C / g * K) x C_out / g per
# sample, added over the samples.


class _WindowProduct(Function):
    """_window_product with its gradients as products too (Note [Convolution as windows and a
    product]): the input's is the transposed convolution of the output's gradient and the
    weight's one more contraction with the windows, so no gradient flows back through the
    windows' views, whose scatter-add backward cost several times the products."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, stride: tuple, dilation: tuple, groups: int):
        ctx.save_for_backward(x, weight)
        ctx.conf = (stride, dilation, groups)
        return _window_product(x, weight, stride, dilation, groups)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        stride, dilation, groups = ctx.conf
        nd = x.dim() - 2
        kernel = tuple(weight.shape[2:])
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            # output_padding: the rows past the last window, which no output reads (< stride)
            extra = [
                size - ((out - 1) * s + d * (k - 1) + 1)
                for size, out, s, d, k in zip(x.shape[2:], grad.shape[2:], stride, dilation, kernel)
            ]
            grad_x = _conv_transpose(
                "conv", nd, grad, weight, None, stride, 0, extra, groups, dilation
            )
        if ctx.needs_input_grad[1]:
            cols = _columns(x, kernel, stride, dilation, groups)  # (N, g, C / g * K, P)
            n, out_channels = grad.shape[0], weight.shape[0]
            g = grad.reshape(n, groups, out_channels // groups, cols.shape[3])
            per_sample = cols @ g.transpose(2, 3)  # (N, g, C / g * K, C_out / g)
            total = per_sample.sum(0) if n != 1 else per_sample[0]
            grad_w = total.transpose(1, 2).reshape(weight.shape)
        return grad_x, grad_w, None, None, None


def _check_input(name: str, input: Any, weight: Any, nd: int) -> bool:
    """Whether the input is batched; raises for wrong types and ranks."""
    for what, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[{name}] {what} must be a genesis.Tensor, got {type(t).__name__}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"[{name}] Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
            f"but got input of size: {list(input.shape)}"
        )
    if weight.dim() != nd + 2:
        raise RuntimeError(
            f"[{name}] weight must be {nd + 2}-D (out_channels, in_channels / groups, *kernel), "
            f"got {list(weight.shape)}"
        )
    if input.dtype != weight.dtype or input.device != weight.device:
        raise RuntimeError(
            f"[{name}] input is {input.dtype} on {input.device} but weight is {weight.dtype} on "
            f"{weight.device}"
        )
    return input.dim() == nd + 2


def _conv(
    name: str,
    nd: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    batched = _check_input(name, input, weight, nd)
    x = input if batched else input.unsqueeze(0)
    # plain tuples: a genesis.Size indexes through Python, and this runs once per layer call
    x_shape, w_shape = tuple(x.shape), tuple(weight.shape)
    stride_t = _tuple(stride, nd, name, "stride")
    dilation_t = _tuple(dilation, nd, name, "dilation")
    kernel = w_shape[2:]
    if min(stride_t) <= 0:
        raise RuntimeError(f"[{name}] non-positive stride is not supported")
    if min(dilation_t) <= 0:
        raise RuntimeError(f"[{name}] dilation should be greater than zero")
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError(f"[{name}] non-positive groups is not supported")
    out_channels, in_per_group = w_shape[0], w_shape[1]
    if x_shape[1] != in_per_group * groups:
        raise RuntimeError(
            f"[{name}] Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {in_per_group * groups} channels, but got "
            f"{x.shape[1]} channels instead"
        )
    if out_channels % groups:
        raise RuntimeError(
            f"[{name}] Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size {list(weight.shape)} instead"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"[{name}] Given weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size "
            f"{list(bias.shape)} instead"
        )
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            if any(s != 1 for s in stride_t):
                raise ValueError(
                    f"[{name}] padding='same' is not supported for strided convolutions"
                )
            totals = [d * (k - 1) for d, k in zip(dilation_t, kernel)]
            pads = [(t // 2, t - t // 2) for t in totals]
        else:
            raise ValueError(
                f"[{name}] Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
            )
    else:
        symmetric = _tuple(padding, nd, name, "padding")
        if min(symmetric) < 0:
            raise RuntimeError(f"[{name}] negative padding is not supported")
        pads = [(p, p) for p in symmetric]
    padded = tuple(size + a + b for size, (a, b) in zip(x_shape[2:], pads))
    if any(size < d * (k - 1) + 1 for size, d, k in zip(padded, dilation_t, kernel)):
        shown = " x ".join(str(s) for s in padded)
        raise RuntimeError(
            f"[{name}] Calculated padded input size per channel: ({shown}). Kernel size: "
            f"({' x '.join(str(k) for k in kernel)}). Kernel size can't be greater than actual "
            "input size"
        )
    out_sizes = [
        (size - d * (k - 1) - 1) // s + 1
        for size, d, k, s in zip(padded, dilation_t, kernel, stride_t)
    ]
    n_batch = x_shape[0]
    if _passes.usable(
        x,
        n_batch * x_shape[1] * math.prod(padded),
        weight.numel(),
        n_batch * out_channels * math.prod(out_sizes),
    ) or _passes.cpu_usable(x, x_shape, w_shape, stride_t, groups):
        # the passes pad symmetrically; an odd 'same' pads its extra row here first
        both = tuple(min(a, b) for a, b in pads)
        if any(a != b for a, b in pads):
            extra = [(a - m, b - m) for (a, b), m in zip(pads, both)]
            x = _pad_constant(x, list(reversed(extra)), 0.0)
        geometry = _passes.Geometry(both, stride_t, dilation_t, groups, name)
        out = _passes.conv(x, weight, geometry)
    else:
        if any(p for pair in pads for p in pair):
            x = _pad_constant(x, list(reversed(pads)), 0.0)
        out = _WindowProduct.apply(x, weight, stride_t, dilation_t, groups)
    if bias is not None:
        out = out + bias.view(out_channels, *([1] * nd))
    return out if batched else out.squeeze(0)


@autocast_policy
def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """Applies a 1-D convolution over an input of shape (N, C_in, L) or (C_in, L).

    On CUDA through cuDNN when it is available (``genesis.backends.cudnn``), otherwise as
    sliding windows contracted with the weight (Note [Convolution as windows and a product]);
    gradients flow to input, weight and bias.

    Args:
        input (Tensor): (N, C_in, L) or unbatched (C_in, L).
        weight (Tensor): (C_out, C_in / groups, kL).
        bias (Tensor, optional): (C_out,). Default: None.
        stride (int or tuple, optional): the step between windows. Default: 1.
        padding (int, tuple or str, optional): zeros added on both sides, or ``"valid"`` (none)
            or ``"same"`` (output as long as the input; stride 1 only). Default: 0.
        dilation (int or tuple, optional): the spacing between kernel taps. Default: 1.
        groups (int, optional): the number of channel groups. Default: 1.

    Returns:
        Tensor: (N, C_out, L_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.conv1d(genesis.tensor([[[1.0, 2.0, 3.0, 4.0]]]), genesis.tensor([[[1.0, -1.0]]]))
        tensor([[[-1., -1., -1.]]])
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@autocast_policy
def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """Applies a 2-D convolution over an input of shape (N, C_in, H, W) or (C_in, H, W).

    On CUDA through cuDNN when it is available (``genesis.backends.cudnn``), otherwise as
    sliding windows contracted with the weight (Note [Convolution as windows and a product]);
    gradients flow to input, weight and bias.

    Args:
        input (Tensor): (N, C_in, H, W) or unbatched (C_in, H, W).
        weight (Tensor): (C_out, C_in / groups, kH, kW).
        bias (Tensor, optional): (C_out,). Default: None.
        stride (int or tuple, optional): the step between windows. Default: 1.
        padding (int, tuple or str, optional): zeros added on both sides, or ``"valid"`` (none)
            or ``"same"`` (output as large as the input; stride 1 only). Default: 0.
        dilation (int or tuple, optional): the spacing between kernel taps. Default: 1.
        groups (int, optional): the number of channel groups. Default: 1.

    Returns:
        Tensor: (N, C_out, H_out, W_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.arange(9.0).view(1, 1, 3, 3)
        >>> F.conv2d(x, genesis.ones(1, 1, 2, 2))
        tensor([[[[ 8., 12.],
                  [20., 24.]]]])
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@autocast_policy
def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """Applies a 3-D convolution over an input of shape (N, C_in, D, H, W) or (C_in, D, H, W).

    On CUDA through cuDNN when it is available (``genesis.backends.cudnn``), otherwise as
    sliding windows contracted with the weight (Note [Convolution as windows and a product]);
    gradients flow to input, weight and bias.

    Args:
        input (Tensor): (N, C_in, D, H, W) or unbatched (C_in, D, H, W).
        weight (Tensor): (C_out, C_in / groups, kD, kH, kW).
        bias (Tensor, optional): (C_out,). Default: None.
        stride (int or tuple, optional): the step between windows. Default: 1.
        padding (int, tuple or str, optional): zeros added on both sides, or ``"valid"`` or
            ``"same"`` (stride 1 only). Default: 0.
        dilation (int or tuple, optional): the spacing between kernel taps. Default: 1.
        groups (int, optional): the number of channel groups. Default: 1.

    Returns:
        Tensor: (N, C_out, D_out, H_out, W_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.conv3d(genesis.ones(1, 1, 2, 2, 2), genesis.ones(1, 1, 2, 2, 2)).flatten()
        tensor([8.])
    """
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _spread(x: Tensor, stride: tuple[int, ...]) -> Tensor:
    """x with stride - 1 zeros between neighbours along each spatial dim."""
    for i, s in enumerate(stride):
        if s == 1:
            continue
        dim = 2 + i
        size = x.shape[dim]
        gaps = zeros(*x.shape, dtype=x.dtype, device=x.device)
        spread = stack([x] + [gaps] * (s - 1), dim + 1)  # (..., size, s, ...)
        shape = list(x.shape)
        shape[dim] = size * s
        x = spread.reshape(shape).narrow(dim, 0, (size - 1) * s + 1)
    return x


def _conv_transpose(
    name: str,
    nd: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
) -> Tensor:
    batched = _check_input(name, input, weight, nd)
    x = input if batched else input.unsqueeze(0)
    stride_t = _tuple(stride, nd, name, "stride")
    padding_t = _tuple(padding, nd, name, "padding")
    out_pad = _tuple(output_padding, nd, name, "output_padding")
    dilation_t = _tuple(dilation, nd, name, "dilation")
    if any(s <= 0 for s in stride_t) or any(d <= 0 for d in dilation_t):
        raise RuntimeError(f"[{name}] stride and dilation must be positive")
    if any(p < 0 for p in padding_t):
        raise RuntimeError(f"[{name}] negative padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(out_pad, stride_t, dilation_t)):
        raise RuntimeError(
            f"[{name}] output padding must be smaller than either stride or dilation, but got "
            f"output_padding={out_pad}, stride={stride_t}, dilation={dilation_t}"
        )
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError(f"[{name}] non-positive groups is not supported")
    in_channels, out_per_group = weight.shape[0], weight.shape[1]
    kernel = tuple(weight.shape[2:])
    if x.shape[1] != in_channels or in_channels % groups:
        raise RuntimeError(
            f"[{name}] Given transposed=1, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {in_channels} channels, but got {x.shape[1]} "
            "channels instead"
        )
    out_channels = out_per_group * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"[{name}] expected bias to be 1-dimensional with {out_channels} elements, but got "
            f"bias of size {list(bias.shape)} instead"
        )
    out_sizes = [
        (size - 1) * s - 2 * p + d * (k - 1) + op + 1
        for size, s, p, d, k, op in zip(
            x.shape[2:], stride_t, padding_t, dilation_t, kernel, out_pad
        )
    ]
    if any(size < 1 for size in out_sizes):
        raise RuntimeError(
            f"[{name}] Given input size per channel: {list(x.shape[2:])}. Calculated output size "
            f"per channel: {out_sizes}. Output size is too small"
        )
    # output_padding >= stride (allowed while < dilation) leaves rows no window of the
    # equivalent convolution reads, which cuDNN's shape rule refuses: the own path takes those.
    out_shape = (x.shape[0], out_channels, *out_sizes)
    if all(op < s for op, s in zip(out_pad, stride_t)) and (
        _passes.usable(x, x.numel(), weight.numel(), math.prod(out_shape))
        or _passes.cpu_usable(x, out_shape, tuple(weight.shape), stride_t, groups)
    ):
        geometry = _passes.Geometry(padding_t, stride_t, dilation_t, groups, name)
        out = _passes.conv_input(x, weight, out_shape, geometry)
        if bias is not None:
            out = out + bias.view(out_channels, *([1] * nd))
        return out if batched else out.squeeze(0)
    x = _spread(x, stride_t)
    # Pads of the equivalent convolution: d * (k - 1) - p before, plus output_padding after
    # (negative amounts crop).
    pairs = []
    for k, p, op, d in zip(kernel, padding_t, out_pad, dilation_t):
        edge = d * (k - 1) - p
        pairs.append((edge, edge + op))
    x = _pad_constant(x, list(reversed(pairs)), 0.0)
    # (C_in, C_out / g, *k) -> (C_out, C_in / g, *k), per group, spatially flipped
    w = weight.reshape(groups, in_channels // groups, out_per_group, *kernel).transpose(1, 2)
    w = w.reshape(out_channels, in_channels // groups, *kernel).flip(list(range(2, 2 + nd)))
    out = _conv(name, nd, x, w, bias, 1, 0, dilation_t, groups)
    return out if batched else out.squeeze(0)


@autocast_policy
def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """Applies a 1-D transposed convolution (the gradient of conv1d with respect to its input).

    Args:
        input (Tensor): (N, C_in, L) or unbatched (C_in, L).
        weight (Tensor): (C_in, C_out / groups, kL).
        bias (Tensor, optional): (C_out,). Default: None.
        stride (int or tuple, optional): the stride of the convolution it transposes. Default: 1.
        padding (int or tuple, optional): the padding of the convolution it transposes, taken
            off both ends of the output. Default: 0.
        output_padding (int or tuple, optional): extra size added to one end of the output.
            Default: 0.
        groups (int, optional): the number of channel groups. Default: 1.
        dilation (int or tuple, optional): the spacing between kernel taps. Default: 1.

    Returns:
        Tensor: (N, C_out, L_out), L_out = (L - 1) * stride - 2 * padding + dilation * (kL - 1)
        + output_padding + 1.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.conv_transpose1d(genesis.tensor([[[1.0, 2.0]]]), genesis.tensor([[[1.0, 1.0]]]))
        tensor([[[1., 3., 2.]]])
    """
    return _conv_transpose(
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


@autocast_policy
def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """Applies a 2-D transposed convolution (the gradient of conv2d with respect to its input).

    Args:
        input (Tensor): (N, C_in, H, W) or unbatched (C_in, H, W).
        weight (Tensor): (C_in, C_out / groups, kH, kW).
        bias (Tensor, optional): (C_out,). Default: None.
        stride (int or tuple, optional): the stride of the convolution it transposes. Default: 1.
        padding (int or tuple, optional): the padding of the convolution it transposes, taken
            off both ends of each output dim. Default: 0.
        output_padding (int or tuple, optional): extra size added to one end of each output dim.
            Default: 0.
        groups (int, optional): the number of channel groups. Default: 1.
        dilation (int or tuple, optional): the spacing between kernel taps. Default: 1.

    Returns:
        Tensor: (N, C_out, H_out, W_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.conv_transpose2d(genesis.ones(1, 1, 1, 1), genesis.ones(1, 1, 2, 2), stride=2)
        tensor([[[[1., 1.],
                  [1., 1.]]]])
    """
    return _conv_transpose(
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


@autocast_policy
def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """Applies a 3-D transposed convolution (the gradient of conv3d with respect to its input).

    Args:
        input (Tensor): (N, C_in, D, H, W) or unbatched (C_in, D, H, W).
        weight (Tensor): (C_in, C_out / groups, kD, kH, kW).
        bias (Tensor, optional): (C_out,). Default: None.
        stride (int or tuple, optional): the stride of the convolution it transposes. Default: 1.
        padding (int or tuple, optional): the padding of the convolution it transposes.
            Default: 0.
        output_padding (int or tuple, optional): extra size added to one end of each output dim.
            Default: 0.
        groups (int, optional): the number of channel groups. Default: 1.
        dilation (int or tuple, optional): the spacing between kernel taps. Default: 1.

    Returns:
        Tensor: (N, C_out, D_out, H_out, W_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.conv_transpose3d(genesis.ones(1, 1, 1, 1, 1), genesis.ones(1, 1, 1, 1, 2)).shape
        genesis.Size([1, 1, 1, 1, 2])
    """
    return _conv_transpose(
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """Extracts sliding blocks of a 4-D (N, C, H, W) input into columns (im2col):
    (N, C * kH * kW, L), L the number of blocks.

    Args:
        input (Tensor): (N, C, H, W) or unbatched (C, H, W).
        kernel_size (int or tuple): the block size.
        dilation (int or tuple, optional): the spacing between a block's elements. Default: 1.
        padding (int or tuple, optional): zeros added on both sides. Default: 0.
        stride (int or tuple, optional): the step between blocks. Default: 1.

    Returns:
        Tensor: (N, C * kH * kW, L) (or (C * kH * kW, L) unbatched).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.unfold(genesis.arange(4.0).view(1, 1, 2, 2), 1)
        tensor([[[0., 1., 2., 3.]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"[unfold] input must be a genesis.Tensor, got {type(input).__name__}")
    if input.dim() not in (3, 4):
        raise NotImplementedError(
            f"[unfold] Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)"
        )
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    kernel = _tuple(kernel_size, 2, "unfold", "kernel_size")
    pads = _tuple(padding, 2, "unfold", "padding")
    if any(pads):
        x = _pad_constant(x, [(pads[1], pads[1]), (pads[0], pads[0])], 0.0)
    dil = _tuple(dilation, 2, "unfold", "dilation")
    st = _tuple(stride, 2, "unfold", "stride")
    for size, d, k in zip(x.shape[2:], dil, kernel):
        if size < d * (k - 1) + 1:
            raise RuntimeError(
                f"[unfold] the padded input ({list(x.shape[2:])}) is smaller than the dilated "
                f"kernel ({kernel}, dilation {dil})"
            )
    w = _windows(x, kernel, st, dil)  # (N, C, oh, ow, kh, kw)
    n, c, oh, ow = w.shape[:4]
    cols = w.permute(0, 1, 4, 5, 2, 3).reshape(n, c * kernel[0] * kernel[1], oh * ow)
    return cols if batched else cols.squeeze(0)


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Sums columns of sliding blocks back into a (N, C, H, W) tensor (col2im), the adjoint of
    :func:`unfold`: overlapping values add up.

    Args:
        input (Tensor): (N, C * kH * kW, L) or unbatched (C * kH * kW, L).
        output_size (int or tuple): (H, W) of the result.
        kernel_size (int or tuple): the block size.
        dilation (int or tuple, optional): the spacing between a block's elements. Default: 1.
        padding (int or tuple, optional): the padding unfold added (cropped off). Default: 0.
        stride (int or tuple, optional): the step between blocks. Default: 1.

    Returns:
        Tensor: (N, C, H, W) (or (C, H, W) unbatched).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.fold(genesis.ones(1, 4, 4), (3, 3), 2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"[fold] input must be a genesis.Tensor, got {type(input).__name__}")
    if input.dim() not in (2, 3):
        raise NotImplementedError(
            f"[fold] Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
            f"supported (got {input.dim()}D)"
        )
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    out_hw = _tuple(output_size, 2, "fold", "output_size")
    kernel = _tuple(kernel_size, 2, "fold", "kernel_size")
    dil = _tuple(dilation, 2, "fold", "dilation")
    pads = _tuple(padding, 2, "fold", "padding")
    st = _tuple(stride, 2, "fold", "stride")
    kk = kernel[0] * kernel[1]
    if x.shape[1] % kk:
        raise RuntimeError(
            f"[fold] Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={x.shape[1]} and kernel_size={kernel}"
        )
    hp, wp = out_hw[0] + 2 * pads[0], out_hw[1] + 2 * pads[1]
    blocks = [(size - d * (k - 1) - 1) // s + 1 for size, d, k, s in zip((hp, wp), dil, kernel, st)]
    if x.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"[fold] Given output_size={out_hw}, kernel_size={kernel}, dilation={dil}, "
            f"padding={pads}, stride={st}, expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{blocks[0] * blocks[1]}, but got input.size(2)={x.shape[2]}."
        )
    n, c = x.shape[0], x.shape[1] // kk
    dev = x.device
    # The flat index in the padded (hp, wp) plane of each (kernel row, kernel col, block row,
    # block col), in the order of unfold's columns.
    rows = (arange(kernel[0], device=dev) * dil[0]).view(-1, 1, 1, 1) + (
        arange(blocks[0], device=dev) * st[0]
    ).view(1, 1, -1, 1)
    cols = (arange(kernel[1], device=dev) * dil[1]).view(1, -1, 1, 1) + (
        arange(blocks[1], device=dev) * st[1]
    ).view(1, 1, 1, -1)
    target = (rows * wp + cols).reshape(-1)
    plane = zeros(n, c, hp * wp, dtype=x.dtype, device=dev)
    out = plane.index_add(2, target, x.reshape(n, c, -1)).view(n, c, hp, wp)
    out = out[:, :, pads[0] : pads[0] + out_hw[0], pads[1] : pads[1] + out_hw[1]]
    return out if batched else out.squeeze(0)


@autocast_policy
def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-D convolution over time-batch-channel input (fairseq's layout).

    Args:
        input (Tensor): (T, B, C_in).
        weight (Tensor): (kT, C_in, C_out).
        bias (Tensor): (C_out,).
        pad (int, optional): zeros added at both ends of the time dim. Default: 0.

    Returns:
        Tensor: (T_out, B, C_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.conv_tbc(genesis.ones(3, 1, 1), genesis.ones(2, 1, 1), genesis.zeros(1)).flatten()
        tensor([2., 2.])
    """
    for what, t in (("input", input), ("weight", weight), ("bias", bias)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[conv_tbc] {what} must be a genesis.Tensor, got {type(t).__name__}")
    if input.dim() != 3 or weight.dim() != 3 or bias.dim() != 1:
        raise RuntimeError(
            "[conv_tbc] expected a 3-D input (T, B, C_in), a 3-D weight (kT, C_in, C_out) and a "
            f"1-D bias, got {list(input.shape)}, {list(weight.shape)} and {list(bias.shape)}"
        )
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)
