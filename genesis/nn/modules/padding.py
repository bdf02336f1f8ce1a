"""Padding layers (zero, constant, reflection, replication, circular in 1, 2 and 3 dims),
PixelShuffle, PixelUnshuffle, ChannelShuffle, Upsample, Fold and Unfold."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "ChannelShuffle",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "Fold",
    "PixelShuffle",
    "PixelUnshuffle",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "Unfold",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


def _amounts(padding: Any, nd: int) -> tuple:
    if isinstance(padding, int):
        return (padding,) * (2 * nd)
    padding = tuple(padding)
    if len(padding) != 2 * nd:
        raise ValueError(f"expected padding of {2 * nd} values, got {padding}")
    return padding


class _PadNd(Module):
    _nd = 0
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _amounts(padding, self._nd)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ReflectionPad1d(_PadNd):
    """Pads the last 1 dim with reflection of the input: PyTorch's ``nn.ReflectionPad1d``.

    Example::

        >>> genesis.nn.ReflectionPad1d(1)(genesis.ones(1, 2, 3)).shape
        genesis.Size([1, 2, 5])
    """

    _nd = 1
    _mode = "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last 1 dim with copies of the edge values: PyTorch's ``nn.ReplicationPad1d``.

    Example::

        >>> genesis.nn.ReplicationPad1d(1)(genesis.ones(1, 2, 3)).shape
        genesis.Size([1, 2, 5])
    """

    _nd = 1
    _mode = "replicate"


class CircularPad1d(_PadNd):
    """Pads the last 1 dim with wrapped-around values: PyTorch's ``nn.CircularPad1d``.

    Example::

        >>> genesis.nn.CircularPad1d(1)(genesis.ones(1, 2, 3)).shape
        genesis.Size([1, 2, 5])
    """

    _nd = 1
    _mode = "circular"


class ZeroPad1d(_PadNd):
    """Pads the last 1 dim with zeros: PyTorch's ``nn.ZeroPad1d``.

    Example::

        >>> genesis.nn.ZeroPad1d(1)(genesis.ones(1, 2, 3)).shape
        genesis.Size([1, 2, 5])
    """

    _nd = 1
    _mode = "constant"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last 1 dim with a constant: PyTorch's ``nn.ConstantPad1d``.

    Example::

        >>> genesis.nn.ConstantPad1d(1, 0.5)(genesis.ones(1, 2, 3)).shape
        genesis.Size([1, 2, 5])
    """

    _nd = 1


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims with reflection of the input: PyTorch's ``nn.ReflectionPad2d``.

    Example::

        >>> genesis.nn.ReflectionPad2d(1)(genesis.ones(1, 2, 3, 3)).shape
        genesis.Size([1, 2, 5, 5])
    """

    _nd = 2
    _mode = "reflect"


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims with copies of the edge values: PyTorch's ``nn.ReplicationPad2d``.

    Example::

        >>> genesis.nn.ReplicationPad2d(1)(genesis.ones(1, 2, 3, 3)).shape
        genesis.Size([1, 2, 5, 5])
    """

    _nd = 2
    _mode = "replicate"


class CircularPad2d(_PadNd):
    """Pads the last 2 dims with wrapped-around values: PyTorch's ``nn.CircularPad2d``.

    Example::

        >>> genesis.nn.CircularPad2d(1)(genesis.ones(1, 2, 3, 3)).shape
        genesis.Size([1, 2, 5, 5])
    """

    _nd = 2
    _mode = "circular"


class ZeroPad2d(_PadNd):
    """Pads the last 2 dims with zeros: PyTorch's ``nn.ZeroPad2d``.

    Example::

        >>> genesis.nn.ZeroPad2d(1)(genesis.ones(1, 2, 3, 3)).shape
        genesis.Size([1, 2, 5, 5])
    """

    _nd = 2
    _mode = "constant"


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with a constant: PyTorch's ``nn.ConstantPad2d``.

    Example::

        >>> genesis.nn.ConstantPad2d(1, 0.5)(genesis.ones(1, 2, 3, 3)).shape
        genesis.Size([1, 2, 5, 5])
    """

    _nd = 2


class ReflectionPad3d(_PadNd):
    """Pads the last 3 dims with reflection of the input: PyTorch's ``nn.ReflectionPad3d``.

    Example::

        >>> genesis.nn.ReflectionPad3d(1)(genesis.ones(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 4, 4, 4])
    """

    _nd = 3
    _mode = "reflect"


class ReplicationPad3d(_PadNd):
    """Pads the last 3 dims with copies of the edge values: PyTorch's ``nn.ReplicationPad3d``.

    Example::

        >>> genesis.nn.ReplicationPad3d(1)(genesis.ones(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 4, 4, 4])
    """

    _nd = 3
    _mode = "replicate"


class CircularPad3d(_PadNd):
    """Pads the last 3 dims with wrapped-around values: PyTorch's ``nn.CircularPad3d``.

    Example::

        >>> genesis.nn.CircularPad3d(1)(genesis.ones(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 4, 4, 4])
    """

    _nd = 3
    _mode = "circular"


class ZeroPad3d(_PadNd):
    """Pads the last 3 dims with zeros: PyTorch's ``nn.ZeroPad3d``.

    Example::

        >>> genesis.nn.ZeroPad3d(1)(genesis.ones(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 4, 4, 4])
    """

    _nd = 3
    _mode = "constant"


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with a constant: PyTorch's ``nn.ConstantPad3d``.

    Example::

        >>> genesis.nn.ConstantPad3d(1, 0.5)(genesis.ones(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 4, 4, 4])
    """

    _nd = 3


class PixelShuffle(Module):
    """Rearranges (*, C * r^2, H, W) into (*, C, H * r, W * r): PyTorch's ``nn.PixelShuffle``.

    Example::

        >>> genesis.nn.PixelShuffle(2)(genesis.zeros(1, 8, 3, 3)).shape
        genesis.Size([1, 2, 6, 6])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearranges (*, C, H * r, W * r) into (*, C * r^2, H, W): PyTorch's
    ``nn.PixelUnshuffle``.

    Example::

        >>> genesis.nn.PixelUnshuffle(2)(genesis.zeros(1, 2, 6, 6)).shape
        genesis.Size([1, 8, 3, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Shuffles the channels of (N, C, *) in ``groups`` groups: PyTorch's ``nn.ChannelShuffle``.

    Example::

        >>> genesis.nn.ChannelShuffle(2)(genesis.arange(4.0).view(1, 4, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class Upsample(Module):
    """Resizes by ``size`` or ``scale_factor`` with ``F.interpolate``: PyTorch's ``nn.Upsample``.

    Example::

        >>> genesis.nn.Upsample(scale_factor=2, mode="nearest")(genesis.ones(1, 1, 2, 2)).shape
        genesis.Size([1, 1, 4, 4])
    """

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-D upsampling: PyTorch's ``nn.UpsamplingNearest2d``.

    Example::

        >>> genesis.nn.UpsamplingNearest2d(scale_factor=2)(genesis.ones(1, 1, 1, 1)).shape
        genesis.Size([1, 1, 2, 2])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-D upsampling with aligned corners: PyTorch's ``nn.UpsamplingBilinear2d``.

    Example::

        >>> genesis.nn.UpsamplingBilinear2d(size=3)(genesis.ones(1, 1, 2, 2)).shape
        genesis.Size([1, 1, 3, 3])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class Fold(Module):
    """Sums columns of sliding blocks into a tensor (col2im): PyTorch's ``nn.Fold``.

    Example::

        >>> genesis.nn.Fold((3, 3), 2)(genesis.ones(1, 4, 4)).shape
        genesis.Size([1, 1, 3, 3])
    """

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Extracts sliding blocks into columns (im2col): PyTorch's ``nn.Unfold``.

    Example::

        >>> genesis.nn.Unfold(2)(genesis.ones(1, 1, 3, 3)).shape
        genesis.Size([1, 4, 4])
    """

    def __init__(
        self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )
