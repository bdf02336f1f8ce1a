"""Conv1d/2d/3d and ConvTranspose1d/2d/3d, with PyTorch's arguments, attributes, default
initialization and repr."""

from __future__ import annotations

import math
from typing import Any

from ..._C import Tensor, empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _ntuple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    _nd = 0
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        transposed: bool,
        output_padding: Any,
        groups: int,
        bias: bool,
        padding_mode: str,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if groups <= 0:
            raise ValueError(f"[{name}] groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError(f"[{name}] in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError(f"[{name}] out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"[{name}] padding_mode must be one of {list(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        n = self._nd
        kernel_size = _ntuple(n)(kernel_size)
        stride = _ntuple(n)(stride)
        dilation = _ntuple(n)(dilation)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(
                    f"[{name}] Invalid padding string {padding!r}, should be one of "
                    "['valid', 'same']"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError(
                    f"[{name}] padding='same' is not supported for strided convolutions"
                )
        else:
            padding = _ntuple(n)(padding)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = _ntuple(n)(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's (last dim first) amounts for the non-zero padding modes
        if isinstance(padding, str):
            pairs = [(0, 0)] * n
            if padding == "same":
                totals = [d * (k - 1) for d, k in zip(dilation, kernel_size)]
                pairs = [(t // 2, t - t // 2) for t in totals]
        else:
            pairs = [(p, p) for p in padding]
        self._reversed_padding_repeated_twice = [v for pair in reversed(pairs) for v in pair]
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws the weight (kaiming-uniform, a=sqrt(5)) and bias (U(-1/sqrt(fan_in), ...))
        again, as PyTorch's default initialization."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        s += f", stride={self.stride}"
        if self.padding != (0,) * len(self.padding):  # a string ('same') always shows
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self.__dict__.setdefault("padding_mode", "zeros")


class _Conv(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            False,
            0,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        fn = getattr(F, f"conv{self._nd}d")
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """A 1-D convolution layer over (N, C_in, L) input: PyTorch's ``nn.Conv1d``.

    Args: in_channels, out_channels, kernel_size, stride=1, padding=0 (int, tuple, 'valid' or
    'same'), dilation=1, groups=1, bias=True, padding_mode='zeros' ('reflect', 'replicate',
    'circular'), device, dtype. The weight is (out_channels, in_channels / groups, k).

    Example::

        >>> genesis.nn.Conv1d(2, 4, 3)(genesis.zeros(1, 2, 10)).shape
        genesis.Size([1, 4, 8])
    """

    _nd = 1


class Conv2d(_Conv):
    """A 2-D convolution layer over (N, C_in, H, W) input: PyTorch's ``nn.Conv2d``.

    Args: in_channels, out_channels, kernel_size, stride=1, padding=0 (int, tuple, 'valid' or
    'same'), dilation=1, groups=1, bias=True, padding_mode='zeros' ('reflect', 'replicate',
    'circular'), device, dtype. The weight is (out_channels, in_channels / groups, kH, kW).

    Example::

        >>> genesis.nn.Conv2d(3, 8, 3, padding=1)(genesis.zeros(2, 3, 16, 16)).shape
        genesis.Size([2, 8, 16, 16])
    """

    _nd = 2


class Conv3d(_Conv):
    """A 3-D convolution layer over (N, C_in, D, H, W) input: PyTorch's ``nn.Conv3d``.

    Example::

        >>> genesis.nn.Conv3d(1, 2, 2)(genesis.zeros(1, 1, 3, 3, 3)).shape
        genesis.Size([1, 2, 2, 2, 2])
    """

    _nd = 3


class _ConvTranspose(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'[{type(self).__name__}] Only "zeros" padding mode is supported for '
                f"{type(self).__name__}"
            )
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            True,
            output_padding,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        if output_size is None:
            return self.output_padding
        n = self._nd
        batched = input.dim() == n + 2
        lead = 2 if batched else 1
        sizes = list(output_size)
        if len(sizes) == lead + n:
            sizes = sizes[lead:]
        if len(sizes) != n:
            raise ValueError(
                f"[{type(self).__name__}] for {input.dim()}D input, output_size must have {n} "
                f"or {lead + n} elements (got {len(sizes)})"
            )
        mins = [
            (input.shape[d + lead] - 1) * self.stride[d]
            - 2 * self.padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1)
            + 1
            for d in range(n)
        ]
        maxs = [m + s - 1 for m, s in zip(mins, self.stride)]
        for size, lo, hi in zip(sizes, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(
                    f"[{type(self).__name__}] requested an output size of {sizes}, but valid "
                    f"sizes range from {mins} to {maxs} (for an input of "
                    f"{list(input.shape[lead:])})"
                )
        return tuple(s - m for s, m in zip(sizes, mins))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        out_pad = self._output_padding(input, output_size)
        fn = getattr(F, f"conv_transpose{self._nd}d")
        return fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            out_pad,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTranspose):
    """A 1-D transposed convolution layer: PyTorch's ``nn.ConvTranspose1d``. The weight is
    (in_channels, out_channels / groups, k).

    Example::

        >>> genesis.nn.ConvTranspose1d(2, 3, 2, stride=2)(genesis.zeros(1, 2, 4)).shape
        genesis.Size([1, 3, 8])
    """

    _nd = 1


class ConvTranspose2d(_ConvTranspose):
    """A 2-D transposed convolution layer: PyTorch's ``nn.ConvTranspose2d``.

    Example::

        >>> genesis.nn.ConvTranspose2d(4, 2, 2, stride=2)(genesis.zeros(1, 4, 5, 5)).shape
        genesis.Size([1, 2, 10, 10])
    """

    _nd = 2


class ConvTranspose3d(_ConvTranspose):
    """A 3-D transposed convolution layer: PyTorch's ``nn.ConvTranspose3d``.

    Example::

        >>> genesis.nn.ConvTranspose3d(1, 1, 2)(genesis.zeros(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 3, 3, 3])
    """

    _nd = 3
