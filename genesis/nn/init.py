"""``nn.init``: fill a tensor in place with PyTorch's initialization schemes.

Each function runs without recording gradients, draws from genesis's generator (or the one given)
on the tensor's own device, and returns the tensor. The formulas are PyTorch's: the same bounds
and standard deviations for the same shapes, gains and modes.

Example::

    >>> w = genesis.empty(3, 5)
    >>> _ = genesis.nn.init.kaiming_uniform_(w, a=5 ** 0.5)
    >>> bool((w.abs() <= 1 / 5 ** 0.5).all())
    True
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .._C import Tensor
from .._C import eye as _eye
from .._C import rand as _rand
from ..autograd import no_grad

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "sparse_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def _check(tensor: Any, name: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"[init.{name}] expected a genesis.Tensor, got {type(tensor).__name__}")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity: 1 for linear, conv and sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (slope ``param``, default 0.01),
    3/4 for selu.

    Example::

        >>> genesis.nn.init.calculate_gain("tanh")
        1.6666666666666667
    """
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` with values drawn from U(a, b)."""
    _check(tensor, "uniform_")
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` with values drawn from N(mean, std^2)."""
    _check(tensor, "normal_")
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fills ``tensor`` with N(mean, std^2) values truncated to [a, b] (drawn by inverting the
    normal distribution function over the uniform values between the bounds' probabilities,
    so no value is redrawn)."""
    _check(tensor, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        low, high = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
        tensor.uniform_(2 * low - 1, 2 * high - 1, generator=generator)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(a, b)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills ``tensor`` with ``val``."""
    _check(tensor, "constant_")
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` with zeros."""
    _check(tensor, "zeros_")
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D ``tensor`` with the identity matrix (ones on the diagonal)."""
    _check(tensor, "eye_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(_eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fills a 3-, 4- or 5-D convolution weight with the Dirac delta, so the convolution is the
    identity on as many channels as fit (per group)."""
    _check(tensor, "dirac_")
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    n = min(out_per_group, sizes[1])
    from .. import arange, zeros

    with no_grad():
        tensor.zero_()
        if n == 0 or groups == 0:
            return tensor
        d = arange(n, device=tensor.device)
        rows = (arange(groups, device=tensor.device).unsqueeze(1) * out_per_group + d).flatten()
        cols = d.repeat(groups)
        centers = [
            zeros(rows.shape[0], dtype=rows.dtype, device=tensor.device) + size // 2
            for size in sizes[2:]
        ]
        tensor[(rows, cols, *centers)] = 1
        return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` with U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""
    _check(tensor, "xavier_uniform_")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` with N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""
    _check(tensor, "xavier_normal_")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """Fills ``tensor`` with U(-b, b), b = gain * sqrt(3 / fan) (He), where gain is
    ``calculate_gain(nonlinearity, a)`` and fan the fan of ``mode``."""
    _check(tensor, "kaiming_uniform_")
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """Fills ``tensor`` with N(0, std^2), std = gain / sqrt(fan) (He)."""
    _check(tensor, "kaiming_normal_")
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` (2-D or more, flattened to rows x rest) with a (semi-)orthogonal matrix
    times ``gain``: the Q of a QR decomposition of a normal matrix, signs fixed by R's
    diagonal so the distribution is uniform."""
    _check(tensor, "orthogonal_")
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .. import float32, float64
    from ..linalg import qr

    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        # QR in float32 at least (the half types have no decomposition), on the tensor's device.
        work = float64 if tensor.dtype == float64 else float32
        flat = tensor.new_empty((rows, cols), dtype=work).normal_(0.0, 1.0, generator=generator)
        if rows < cols:
            flat = flat.t()
        q, r = qr(flat)
        q = q * r.diagonal().sign()
        if rows < cols:
            q = q.t()
        tensor.view(rows, cols).copy_(q * gain) if tensor.is_contiguous() else tensor.copy_(
            (q * gain).reshape(tensor.shape)
        )
        return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fills a 2-D ``tensor`` with N(0, std^2) values and then zeros ``ceil(sparsity * rows)``
    randomly chosen rows in each column."""
    _check(tensor, "sparse_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0.0, std, generator=generator)
        if num_zeros and cols:
            # Each column's zeroed rows: the first num_zeros of a random permutation of the
            # rows, all columns at once (the argsort of independent uniform draws).
            order = _rand(rows, cols, generator=generator, device=tensor.device).argsort(dim=0)
            tensor.scatter_(0, order[:num_zeros], 0.0)
        return tensor


def _deprecated(new: Any) -> Any:
    def old(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of "
            f"`nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    old.__name__ = new.__name__[:-1]
    old.__doc__ = f"Deprecated form of :func:`{new.__name__}`."
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
