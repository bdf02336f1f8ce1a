"""Identity, Linear and Bilinear."""

from __future__ import annotations

import math
from typing import Any

from ... import _C
from ..._C import Tensor, empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Bilinear", "Identity", "Linear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments, as PyTorch's does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


def _check_features(
    layer: str, input: Any, expected: int, weight: Tensor, what: str = "input"
) -> None:
    """The layer's own message for an input of the wrong type, size, dtype or device."""
    if not isinstance(input, Tensor):
        raise TypeError(f"[{layer}] {what} must be a genesis.Tensor, got {type(input).__name__}")
    # Under autocast the layer casts its inputs itself (Note [Autocast policies]).
    mixed = input.dtype != weight.dtype
    if (mixed and not _C._amp._active()) or input.device != weight.device:
        raise RuntimeError(
            f"[{layer}] {what} is {input.dtype} on {input.device} but the weight is "
            f"{weight.dtype} on {weight.device}; move one with .to()"
        )
    got = input.size(-1) if input.dim() else None
    if got != expected:
        shown = "a 0-d tensor" if got is None else f"{got}"
        raise RuntimeError(
            f"[{layer}] expected {what} with {expected} features in its last dimension, got "
            f"{shown} (input shape {tuple(input.shape)})"
        )


class Linear(Module):
    """``y = x @ weight.T + bias`` over the last dimension of ``x``.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): whether to learn an additive bias. Default: True.
        device, dtype: where and in which dtype the parameters are made.

    The weight is (out_features, in_features), initialized as PyTorch's: kaiming-uniform with
    ``a=sqrt(5)``, i.e. U(-1/sqrt(in_features), 1/sqrt(in_features)), and so is the bias.

    Example::

        >>> layer = genesis.nn.Linear(4, 2)
        >>> layer(genesis.randn(3, 4)).shape
        genesis.Size([3, 2])
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws the weight and bias again with the default initialization."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        weight = self.weight  # read once: a parametrized weight is computed on each read
        _check_features("Linear", input, self.in_features, weight)
        return F.linear(input, weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """``y = x1^T A x2 + b``: weight (out_features, in1_features, in2_features).

    Args:
        in1_features (int), in2_features (int): sizes of the two inputs' last dimensions.
        out_features (int): size of the output's last dimension.
        bias (bool): whether to learn an additive bias. Default: True.
        device, dtype: where and in which dtype the parameters are made.

    Weight and bias start as U(-1/sqrt(in1_features), 1/sqrt(in1_features)), as in PyTorch.
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            empty((out_features, in1_features, in2_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws the weight and bias again with the default initialization."""
        bound = 1 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] else 0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        weight = self.weight  # read once: a parametrized weight is computed on each read
        _check_features("Bilinear", input1, self.in1_features, weight, "input1")
        _check_features("Bilinear", input2, self.in2_features, weight, "input2")
        return F.bilinear(input1, input2, weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
