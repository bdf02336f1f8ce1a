"""layer_norm, rms_norm, group_norm, batch_norm, instance_norm, normalize and
local_response_norm.

Note [Normalization numerics]: the statistics are computed in float32 for float16 and bfloat16
inputs (float32 and float64 in their own dtype), as PyTorch does, with the weight and bias
brought to that dtype too; the result is cast back to the input's dtype once, at the end. The
variance that normalizes is the biased one (divides by N), from ``var_mean``; ``rsqrt(var +
eps)`` is the reciprocal standard deviation. Where the statistics are per channel (batch,
instance and group norm) the weight and bias fold into a per-(sample,) channel ``scale`` and
``shift``, so the normalization of the full tensor is one ``addcmul`` (``x * scale + shift``, the
form PyTorch's CPU kernels use); layer_norm's weight runs along the normalized dims, so it
takes a second ``addcmul``. Gradients flow through the autograd of these ops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Union, overload

from ..._C import (
    Tensor,
    _nn,
    addcmul,
    bfloat16,
    cat,
    div,
    float16,
    float32,
    float64,
    rsqrt,
    var_mean,
    zeros,
)
from ..._dtype_info import finfo
from ...amp._policies import autocast_policy
from ...autograd import no_grad

__all__ = [
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "normalize",
    "rms_norm",
]

_HALF = (float16, bfloat16)
_FUSED = (float16, bfloat16, float32, float64)
_Shape = Union[int, Sequence[int]]


# -- shared checks and pieces ------------------------------------------------------------------


def _check_tensors(op: str, input: object, **optional: object) -> None:
    """input is a floating point Tensor; each optional argument is a Tensor or None."""
    if not isinstance(input, Tensor):
        raise TypeError(f"[{op}] input must be a genesis.Tensor, got {type(input).__name__}")
    for name, t in optional.items():
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(
                f"[{op}] {name} must be a genesis.Tensor or None, got {type(t).__name__}"
            )
    if not input.is_floating_point():
        # NotImplementedError (a RuntimeError) is what PyTorch's kernels raise for integers.
        raise NotImplementedError(
            f"[{op}] not implemented for {input.dtype} input: expected a floating point tensor"
        )


def _compute_dtype(input: Tensor):
    """The dtype the statistics are computed in (Note [Normalization numerics])."""
    return float32 if input.dtype in _HALF else input.dtype


@overload
def _as(t: Tensor, dtype) -> Tensor: ...
@overload
def _as(t: None, dtype) -> None: ...
@overload
def _as(t: Tensor | None, dtype) -> Tensor | None: ...
def _as(t: Tensor | None, dtype) -> Tensor | None:
    return t if t is None or t.dtype == dtype else t.to(dtype)


def _fused_fits(input: Tensor, *params: Tensor | None) -> bool:
    """Whether the fused norm kernels take these (Note [Fused row normalization] in
    csrc/ops/normalization.cpp, Note [Fused batch norm] in csrc/ops/batch_norm.cpp): a
    float16/bfloat16/float32/float64 input and parameters of its dtype on its device. Mixed
    dtypes take the composed path, which promotes."""
    dtype = input.dtype
    if dtype not in _FUSED:
        return False
    device = input.device
    for p in params:  # a loop, not all(generator): this runs on every layer call
        if p is not None and (p.dtype != dtype or p.device != device):
            return False
    return True


def _batch_norm_fits(input: Tensor, *params: Tensor | None) -> bool:
    """_fused_fits, or float32 parameters (all of them) beside a float16/bfloat16 input: the
    fused batch norm takes autocast's BatchNorm as it is (Note [Fused batch norm])."""
    dtype = input.dtype
    if dtype not in _FUSED:
        return False
    device = input.device
    present = [p for p in params if p is not None]
    if any(p.device != device for p in present):
        return False
    dtypes = {p.dtype for p in present}
    return not dtypes or dtypes == {dtype} or (dtypes == {float32} and dtype in _HALF)


def _back(y: Tensor, input: Tensor) -> Tensor:
    return y if y.dtype == input.dtype else y.to(input.dtype)


def _check_channels(op: str, channels: int, **tensors: Tensor | None) -> None:
    for name, t in tensors.items():
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"[{op}] {name} should contain {channels} elements not {t.numel()}")


def _check_eps(op: str, eps: float, training: bool) -> None:
    if training and eps <= 0.0:
        raise ValueError(f"[{op}] eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"[{op}] eps must be non-negative, but got {eps}")


def _check_momentum(op: str, momentum: object) -> float:
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
        raise TypeError(f"[{op}] momentum must be a float, got {type(momentum).__name__}")
    return float(momentum)


def _check_pair(op: str, running_mean: Tensor | None, running_var: Tensor | None) -> None:
    if (running_mean is None) != (running_var is None):
        raise ValueError(
            f"[{op}] running_mean and running_var must either both be None or neither be None"
        )


def _normalized_dims(op: str, input: Tensor, normalized_shape: _Shape) -> tuple[int, ...]:
    """normalized_shape as a tuple of ints that the input's trailing dims must equal."""
    if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
        shape: tuple[int, ...] = (normalized_shape,)
    else:
        try:
            shape = tuple(int(s) for s in normalized_shape)  # type: ignore[union-attr]
        except TypeError:
            raise TypeError(
                f"[{op}] normalized_shape must be an int or a sequence of ints, got "
                f"{type(normalized_shape).__name__}"
            ) from None
    if not shape:
        raise RuntimeError(
            f"[{op}] Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            "least one element, but got normalized_shape = []"
        )
    k = len(shape)
    if input.ndim < k or tuple(input.shape[-k:]) != shape:
        raise RuntimeError(
            f"[{op}] Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    return shape


def _check_affine_shape(op: str, name: str, t: Tensor | None, shape: tuple[int, ...]) -> None:
    if t is not None and tuple(t.shape) != shape:
        raise RuntimeError(
            f"[{op}] Expected {name} to be of same shape as normalized_shape, but got {name} of "
            f"shape {list(t.shape)} and normalized_shape = {list(shape)}"
        )


def _verify_batch_size(op: str, size: Sequence[int]) -> None:
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(
            f"[{op}] Expected more than 1 value per channel when training, got input size "
            f"{list(size)}"
        )


def _empty(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """The result for an input with no elements: an empty tensor still tied to input, weight
    and bias in the graph (their gradients are zeros), as in PyTorch."""
    shape = (-1,) + (1,) * (input.ndim - 2)
    out = input.clone()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return _back(out, input)


def _scale_shift(
    input: Tensor,
    x: Tensor,
    mean: Tensor,
    var: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> Tensor:
    """``(x - mean) * rsqrt(var + eps) * weight + bias`` with per-channel statistics: mean and
    var are (C,) or (N, C) in x's dtype, weight and bias (C,). One pass over x (an addcmul)."""
    dtype = x.dtype
    scale = rsqrt(var + eps)
    if weight is not None:
        scale = scale * _as(weight, dtype)
    shift = -mean * scale if bias is None else addcmul(_as(bias, dtype), mean, scale, value=-1)
    tail = (1,) * (x.ndim - 2)
    lead = (-1,) if mean.ndim == 1 else tuple(mean.shape)
    y = addcmul(shift.reshape(*lead, *tail), x, scale.reshape(*lead, *tail))
    return _back(y, input)


def _update_running(
    running_mean: Tensor, running_var: Tensor, mean: Tensor, var: Tensor, n: int, momentum: float
) -> None:
    """running = (1 - momentum) * running + momentum * batch, with the unbiased variance."""
    with no_grad():
        unbiased = var.detach() * (n / (n - 1)) if n > 1 else var.detach()
        running_mean.lerp_(_as(mean.detach(), running_mean.dtype), momentum)
        running_var.lerp_(_as(unbiased, running_var.dtype), momentum)


# -- the functions ---------------------------------------------------------------------------


@autocast_policy
def layer_norm(
    input: Tensor,
    normalized_shape: _Shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes the input over its last dims to zero mean and unit variance.

    PyTorch's ``torch.nn.functional.layer_norm``: ``(x - mean) / sqrt(var + eps) * weight +
    bias``, the mean and the biased variance taken over the trailing dims given by
    ``normalized_shape``. float16 and bfloat16 inputs are computed in float32 (Note
    [Normalization numerics]).

    Args:
        input (Tensor): the input, (*, normalized_shape[0], normalized_shape[1], ...).
        normalized_shape (int or sequence of ints): the trailing dims to normalize over.
        weight (Tensor, optional): multiplies the result; its shape is ``normalized_shape``.
            Default: ``None``.
        bias (Tensor, optional): added to the result; its shape is ``normalized_shape``.
            Default: ``None``.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.

    Returns:
        Tensor: the normalized tensor, the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.layer_norm(genesis.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 8.0]]), [3])
        tensor([[-1.2247,  0.0000,  1.2247],
                [-0.7071, -0.7071,  1.4142]])
    """
    _check_tensors("layer_norm", input, weight=weight, bias=bias)
    shape = _normalized_dims("layer_norm", input, normalized_shape)
    _check_affine_shape("layer_norm", "weight", weight, shape)
    _check_affine_shape("layer_norm", "bias", bias, shape)
    if _fused_fits(input, weight, bias):
        return _nn._layer_norm(input, len(shape), weight, bias, float(eps))
    dtype = _compute_dtype(input)
    x = _as(input, dtype)
    var, mean = var_mean(x, tuple(range(-len(shape), 0)), correction=0, keepdim=True)
    rstd = rsqrt(var + eps)
    y = addcmul(-mean * rstd, x, rstd)
    w, b = _as(weight, dtype), _as(bias, dtype)
    if w is not None and b is not None:
        y = addcmul(b, y, w)
    elif w is not None:
        y = y * w
    elif b is not None:
        y = y + b
    return _back(y, input)


@autocast_policy
def rms_norm(
    input: Tensor,
    normalized_shape: _Shape,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Divides the input by the root mean square of its last dims.

    PyTorch's ``torch.nn.functional.rms_norm``: ``x / sqrt(mean(x**2) + eps) * weight``, the
    mean taken over the trailing dims given by ``normalized_shape``. float16 and bfloat16 inputs
    are computed in float32, and ``eps=None`` is the machine epsilon of that compute dtype
    (float32's for float16 and bfloat16 inputs), as PyTorch's kernel uses.

    Args:
        input (Tensor): the input, (*, normalized_shape[0], normalized_shape[1], ...).
        normalized_shape (int or sequence of ints): the trailing dims to normalize over.
        weight (Tensor, optional): multiplies the result; its shape is ``normalized_shape``.
            Default: ``None``.
        eps (float, optional): added to the mean square. Default: ``None``
            (``genesis.finfo(dtype).eps`` of the compute dtype).

    Returns:
        Tensor: the normalized tensor, the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.rms_norm(genesis.tensor([[3.0, 4.0], [1.0, -1.0]]), [2])
        tensor([[ 0.8485,  1.1314],
                [ 1.0000, -1.0000]])
    """
    _check_tensors("rms_norm", input, weight=weight)
    shape = _normalized_dims("rms_norm", input, normalized_shape)
    _check_affine_shape("rms_norm", "weight", weight, shape)
    dtype = _compute_dtype(input)
    if eps is None:
        eps = finfo(dtype).eps
    if _fused_fits(input, weight):
        return _nn._rms_norm(input, len(shape), weight, float(eps))
    x = _as(input, dtype)
    y = x * rsqrt(x.square().mean(tuple(range(-len(shape), 0)), keepdim=True) + eps)
    if weight is not None:
        y = y * _as(weight, dtype)
    return _back(y, input)


@autocast_policy
def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes each group of channels of each sample to zero mean and unit variance.

    PyTorch's ``torch.nn.functional.group_norm``: the C channels of an (N, C, *) input are split
    into ``num_groups`` groups of consecutive channels; each (sample, group) is normalized with
    its own mean and biased variance, then each channel is scaled by ``weight`` and shifted by
    ``bias``. float16 and bfloat16 inputs are computed in float32.

    Args:
        input (Tensor): the (N, C, *) input.
        num_groups (int): the number of groups; must divide C.
        weight (Tensor, optional): the (C,) per-channel scale. Default: ``None``.
        bias (Tensor, optional): the (C,) per-channel shift. Default: ``None``.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.

    Returns:
        Tensor: the normalized tensor, the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.group_norm(genesis.tensor([[[1.0], [3.0], [5.0], [5.0]]]), 2).flatten()
        tensor([-1.0000,  1.0000,  0.0000,  0.0000])
    """
    _check_tensors("group_norm", input, weight=weight, bias=bias)
    if input.ndim < 2:
        raise RuntimeError(
            "[group_norm] Expected at least 2 dimensions for input tensor but received "
            f"{input.ndim}"
        )
    if isinstance(num_groups, bool) or not isinstance(num_groups, int):
        raise TypeError(f"[group_norm] num_groups must be an int, got {type(num_groups).__name__}")
    if num_groups <= 0:
        raise RuntimeError(
            f"[group_norm] Expected num groups to be greater than 0, got {num_groups}"
        )
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(
            "[group_norm] Expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(
                f"[group_norm] Expected {name} to be a vector of size equal to the number of "
                f"channels in input, but got {name} of shape {list(t.shape)} and input of shape "
                f"{list(input.shape)}"
            )
    spatial = tuple(input.shape[2:])
    _verify_batch_size("group_norm", [n * c // num_groups, num_groups, *spatial])
    if input.numel() == 0:
        return _empty(input, weight, bias)
    if _fused_fits(input, weight, bias):
        # Note [Fused group norm] in csrc/ops/group_norm.cpp: one pass for the statistics and
        # one for the scaled and shifted result, two backward.
        return _nn._group_norm(input, num_groups, weight, bias, float(eps))
    per = c // num_groups
    dtype = _compute_dtype(input)
    x = _as(input, dtype)
    grouped = x.reshape(n, num_groups, per, *spatial)  # a view: it splits one dim
    var, mean = var_mean(grouped, tuple(range(2, grouped.ndim)), correction=0, keepdim=True)
    rstd = rsqrt(var + eps).reshape(n, num_groups, 1)  # (N, G, 1)
    mean = mean.reshape(n, num_groups, 1)
    if weight is not None:
        scale = rstd * _as(weight, dtype).reshape(num_groups, per)
    else:
        scale = rstd.expand(n, num_groups, per)
    if bias is not None:
        shift = addcmul(_as(bias, dtype).reshape(num_groups, per), mean, scale, value=-1)
    else:
        shift = -mean * scale
    tail = (1,) * len(spatial)
    y = addcmul(shift.reshape(n, c, *tail), x, scale.reshape(n, c, *tail))
    return _back(y, input)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes each channel with statistics over the batch and spatial dims.

    PyTorch's ``torch.nn.functional.batch_norm`` for an (N, C, *) input. In training the mean
    and biased variance of each channel over the batch are used, and when running statistics
    are given they are updated in place: ``running = (1 - momentum) * running + momentum *
    batch``, with the unbiased variance for ``running_var``. Out of training the running
    statistics normalize. float16 and bfloat16 inputs are computed in float32.

    Args:
        input (Tensor): the (N, C, *) input.
        running_mean (Tensor or None): the (C,) running mean; required out of training.
        running_var (Tensor or None): the (C,) running variance; given with ``running_mean``.
        weight (Tensor, optional): the (C,) per-channel scale. Default: ``None``.
        bias (Tensor, optional): the (C,) per-channel shift. Default: ``None``.
        training (bool): use (and update) the batch statistics. Default: ``False``.
        momentum (float): the weight of the batch statistics in the update. Default: ``0.1``.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.

    Returns:
        Tensor: the normalized tensor, the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[1.0, 10.0], [3.0, 30.0]])
        >>> mean, var = genesis.zeros(2), genesis.ones(2)
        >>> F.batch_norm(x, mean, var, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
        >>> mean, var
        (tensor([0.2000, 2.0000]), tensor([ 1.1000, 20.9000]))
    """
    _check_tensors(
        "batch_norm",
        input,
        running_mean=running_mean,
        running_var=running_var,
        weight=weight,
        bias=bias,
    )
    if input.ndim < 2:
        raise RuntimeError(
            f"[batch_norm] expected an (N, C, *) input of at least 2 dims, got {input.ndim}D input"
        )
    _check_pair("batch_norm", running_mean, running_var)
    if not training and running_mean is None:
        raise RuntimeError("[batch_norm] running_mean must be defined in evaluation mode")
    shape = tuple(input.shape)  # a plain tuple: genesis.Size indexes through Python
    if training:
        _verify_batch_size("batch_norm", shape)
    _check_eps("batch_norm", eps, training)
    momentum = _check_momentum("batch_norm", momentum)
    c = shape[1]
    _check_channels(
        "batch_norm",
        c,
        running_mean=running_mean,
        running_var=running_var,
        weight=weight,
        bias=bias,
    )
    if input.numel() == 0:
        return _empty(input, weight, bias)
    contiguous_stats = (running_mean is None or running_mean.is_contiguous()) and (
        running_var is None or running_var.is_contiguous()
    )
    if (
        c <= 65535
        and contiguous_stats
        and _batch_norm_fits(input, weight, bias, running_mean, running_var)
    ):
        return _nn._batch_norm(
            input, running_mean, running_var, weight, bias, training, momentum, float(eps)
        )
    dtype = _compute_dtype(input)
    x = _as(input, dtype)
    if training:
        var, mean = var_mean(x, (0, *range(2, x.ndim)), correction=0)
        if running_mean is not None and running_var is not None:  # both or neither
            _update_running(running_mean, running_var, mean, var, x.numel() // c, momentum)
    else:
        # running_mean is defined in evaluation mode (checked above), and so running_var
        assert running_mean is not None and running_var is not None
        mean, var = _as(running_mean, dtype), _as(running_var, dtype)
    return _scale_shift(input, x, mean, var, weight, bias, eps)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes each channel of each sample with its own spatial statistics.

    PyTorch's ``torch.nn.functional.instance_norm`` for an (N, C, *) input: with
    ``use_input_stats`` every (sample, channel) is normalized by its mean and biased variance
    over the spatial dims, and running statistics, when given, are updated in place with the
    batch average of those (the unbiased variances for ``running_var``); without it the running
    statistics normalize. float16 and bfloat16 inputs are computed in float32.

    Args:
        input (Tensor): the (N, C, *) input.
        running_mean (Tensor, optional): the (C,) running mean. Default: ``None``.
        running_var (Tensor, optional): the (C,) running variance. Default: ``None``.
        weight (Tensor, optional): the (C,) per-channel scale. Default: ``None``.
        bias (Tensor, optional): the (C,) per-channel shift. Default: ``None``.
        use_input_stats (bool): normalize with the input's statistics. Default: ``True``.
        momentum (float): the weight of the new statistics in the update. Default: ``0.1``.
        eps (float): added to the variance for numerical stability. Default: ``1e-5``.

    Returns:
        Tensor: the normalized tensor, the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.instance_norm(genesis.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    _check_tensors(
        "instance_norm",
        input,
        running_mean=running_mean,
        running_var=running_var,
        weight=weight,
        bias=bias,
    )
    if input.ndim < 2:
        raise RuntimeError(
            f"[instance_norm] expected an (N, C, *) input of at least 2 dims, got {input.ndim}D "
            "input"
        )
    _check_pair("instance_norm", running_mean, running_var)
    if use_input_stats:
        if math.prod(input.shape[2:]) == 1:
            raise ValueError(
                "[instance_norm] Expected more than 1 spatial element when training, got input "
                f"size {list(input.shape)}"
            )
    elif running_mean is None:
        raise RuntimeError(
            "[instance_norm] Expected running_mean and running_var to be defined when "
            "use_input_stats is false"
        )
    momentum = _check_momentum("instance_norm", momentum)
    _check_eps("instance_norm", eps, False)
    c = input.shape[1]
    _check_channels(
        "instance_norm",
        c,
        running_mean=running_mean,
        running_var=running_var,
        weight=weight,
        bias=bias,
    )
    if input.numel() == 0:
        return _empty(input, weight, bias)
    dtype = _compute_dtype(input)
    x = _as(input, dtype)
    if use_input_stats:
        var, mean = var_mean(x, tuple(range(2, x.ndim)), correction=0)  # (N, C)
        if running_mean is not None and running_var is not None:  # both or neither
            n = math.prod(x.shape[2:])
            with no_grad():
                unbiased = var.detach() * (n / (n - 1)) if n > 1 else var.detach()
                _update_running(
                    running_mean,
                    running_var,
                    mean.detach().mean(0),
                    unbiased.mean(0),
                    1,
                    momentum,
                )
    else:
        # running_mean is defined without use_input_stats (checked above), and so running_var
        assert running_mean is not None and running_var is not None
        mean, var = _as(running_mean, dtype), _as(running_var, dtype)
    return _scale_shift(input, x, mean, var, weight, bias, eps)


@autocast_policy
def normalize(
    input: Tensor,
    p: float = 2.0,
    dim: int = 1,
    eps: float = 1e-12,
    out: Tensor | None = None,
) -> Tensor:
    """Divides the input by its p-norm along a dim, kept away from zero by ``eps``.

    PyTorch's ``torch.nn.functional.normalize``: ``input / max(norm(input, p, dim), eps)``.
    float16 and bfloat16 inputs are computed in float32.

    Args:
        input (Tensor): the input, of any shape.
        p (float): the exponent of the norm. Default: ``2.0``.
        dim (int or tuple of ints): the dim(s) the norm runs over. Default: ``1``.
        eps (float): the smallest denominator. Default: ``1e-12``.
        out (Tensor, optional): the output tensor; it does not record gradients.
            Default: ``None``.

    Returns:
        Tensor: the normalized tensor (``out`` when given), the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.normalize(genesis.tensor([[3.0, 4.0], [0.0, 0.0]]))
        tensor([[0.6000, 0.8000],
                [0.0000, 0.0000]])
    """
    _check_tensors("normalize", input, out=out)
    dtype = _compute_dtype(input)
    x = _as(input, dtype)
    try:
        denom = x.norm(p, dim, keepdim=True).clamp_min(eps)
    except IndexError as e:  # the dim: reported under this function's name
        msg = str(e)
        raise IndexError(f"[normalize] {msg.split('] ', 1)[-1]}") from None
    if out is None:
        return _back(x / denom, input)
    if x is input:
        return div(input, denom, out=out)
    with no_grad():
        return out.copy_(x / denom)


def local_response_norm(
    input: Tensor,
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
) -> Tensor:
    """Divides each element by a power of the sum of squares of its neighbouring channels.

    PyTorch's ``torch.nn.functional.local_response_norm`` for an (N, C, *) input:
    ``x[c] / (k + alpha / size * sum(x[c']**2))**beta``, the sum over the ``size`` channels
    ``c - size // 2 <= c' <= c + (size - 1) // 2`` (zeros beyond the edges). float16 and bfloat16
    inputs are computed in float32.

    Args:
        input (Tensor): the (N, C, *) input, at least 3-D.
        size (int): the number of neighbouring channels summed.
        alpha (float): the multiplicative factor. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive constant. Default: ``1.0``.

    Returns:
        Tensor: the normalized tensor, the input's shape and dtype.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[[1.0], [2.0], [2.0]]])
        >>> F.local_response_norm(x, 2, alpha=1.0, beta=1.0).flatten()
        tensor([0.6667, 0.5714, 0.4000])
    """
    _check_tensors("local_response_norm", input)
    if input.ndim < 3:
        raise ValueError(
            f"[local_response_norm] Expected 3D or higher dimensionality input (got "
            f"{input.ndim} dimensions)"
        )
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise RuntimeError(f"[local_response_norm] size must be a positive int, got {size!r}")
    if input.numel() == 0:
        return input
    dtype = _compute_dtype(input)
    x = _as(input, dtype)
    squares = x.square()
    before, after = size // 2, (size - 1) // 2
    if before or after:
        rest = tuple(x.shape[2:])
        parts = [squares]
        if before:
            parts.insert(0, zeros((x.shape[0], before, *rest), dtype=dtype, device=x.device))
        if after:
            parts.append(zeros((x.shape[0], after, *rest), dtype=dtype, device=x.device))
        squares = cat(parts, 1)
    window = squares.unfold(1, size, 1).sum(-1)  # (N, C, *): each channel's window of squares
    y = x / (window * (alpha / size) + k).pow(beta)
    return _back(y, input)
