"""LayerNorm, RMSNorm, GroupNorm and LocalResponseNorm. (PyTorch's legacy ``CrossMapLRN2d``
is not provided.)"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Union

from ..._C import Tensor, empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]

_Shape = Union[int, Sequence[int]]


def _as_shape(normalized_shape: _Shape) -> tuple[int, ...]:
    if isinstance(normalized_shape, (int, numbers.Integral)):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Layer normalization over the last dims of the input, with a learned elementwise affine.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, the mean and biased variance taken
    over the trailing dims given by ``normalized_shape``.

    Args:
        normalized_shape (int or sequence of ints): the trailing dims to normalize over.
        eps (float): added to the variance for numerical stability. Default: 1e-5.
        elementwise_affine (bool): whether to learn ``weight`` (ones) and ``bias`` (zeros) of
            shape ``normalized_shape``. Default: True.
        bias (bool): whether to learn the bias (with ``elementwise_affine``). Default: True.
        device, dtype: where and in which dtype the parameters are made.

    Example::

        >>> norm = genesis.nn.LayerNorm(4)
        >>> norm
        LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
        >>> norm(genesis.tensor([[1.0, 2.0, 3.0, 6.0]]))
        tensor([[-1.0690, -0.5345,  0.0000,  1.6036]],
               grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(
        self,
        normalized_shape: _Shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets the weight to 1 and the bias to 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root mean square normalization over the last dims of the input, with a learned scale.

    ``y = x / sqrt(mean(x**2) + eps) * weight``, the mean over the trailing dims given by
    ``normalized_shape``.

    Args:
        normalized_shape (int or sequence of ints): the trailing dims to normalize over.
        eps (float, optional): added to the mean square; None for the machine epsilon of the
            compute dtype (float32's for float16 and bfloat16 input). Default: None.
        elementwise_affine (bool): whether to learn ``weight`` (ones) of shape
            ``normalized_shape``. Default: True.
        device, dtype: where and in which dtype the parameters are made.

    Example::

        >>> norm = genesis.nn.RMSNorm(2)
        >>> norm
        RMSNorm((2,), eps=None, elementwise_affine=True)
        >>> norm(genesis.tensor([[3.0, 4.0]]))
        tensor([[0.8485, 1.1314]], grad_fn=<FusedRmsNormBackward0>)
    """

    def __init__(
        self,
        normalized_shape: _Shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets the weight to 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class GroupNorm(Module):
    """Group normalization: the channels are split into groups and each (sample, group) is
    normalized by its own mean and variance, then scaled and shifted per channel.

    Args:
        num_groups (int): the number of groups; must divide ``num_channels``.
        num_channels (int): C, the number of channels of the (N, C, *) input.
        eps (float): added to the variance for numerical stability. Default: 1e-5.
        affine (bool): whether to learn per-channel ``weight`` (ones) and ``bias`` (zeros).
            Default: True.
        device, dtype: where and in which dtype the parameters are made.
        bias (bool): keyword-only: whether to learn the bias (with ``affine``). Default: True.

    Example::

        >>> norm = genesis.nn.GroupNorm(2, 4)
        >>> norm
        GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
        >>> norm(genesis.randn(3, 4, 5)).shape
        genesis.Size([3, 4, 5])
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"[GroupNorm] num_channels ({num_channels}) must be divisible by num_groups "
                f"({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.weight = Parameter(empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets the weight to 1 and the bias to 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class LocalResponseNorm(Module):
    """Local response normalization across channels: each element is divided by a power of
    the sum of squares of its ``size`` neighbouring channels.

    ``y[c] = x[c] / (k + alpha / size * sum(x[c']**2))**beta`` (see
    :func:`genesis.nn.functional.local_response_norm`).

    Args:
        size (int): the number of neighbouring channels summed.
        alpha (float): the multiplicative factor. Default: 1e-4.
        beta (float): the exponent. Default: 0.75.
        k (float): the additive constant. Default: 1.0.

    Example::

        >>> lrn = genesis.nn.LocalResponseNorm(2)
        >>> lrn
        LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
        >>> lrn(genesis.randn(2, 4, 3, 3)).shape
        genesis.Size([2, 4, 3, 3])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
