"""Pooling layers: MaxPool, AvgPool, LPPool, AdaptiveAvgPool, AdaptiveMaxPool (1, 2, 3 dims),
FractionalMaxPool (2, 3 dims) and MaxUnpool, with PyTorch's arguments and reprs."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


class _MaxPoolNd(Module):
    _nd = 0

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )

    def forward(self, input: Tensor) -> Any:
        fn = getattr(F, f"max_pool{self._nd}d")
        return fn(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling: PyTorch's ``nn.MaxPool1d`` (``return_indices`` gives the argmax too).

    Example::

        >>> genesis.nn.MaxPool1d(2)(genesis.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
        tensor([[[3., 2.]]])
    """

    _nd = 1


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling: PyTorch's ``nn.MaxPool2d``.

    Example::

        >>> genesis.nn.MaxPool2d(2)(genesis.zeros(1, 3, 8, 8)).shape
        genesis.Size([1, 3, 4, 4])
    """

    _nd = 2


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling: PyTorch's ``nn.MaxPool3d``.

    Example::

        >>> genesis.nn.MaxPool3d(2)(genesis.zeros(1, 1, 4, 4, 4)).shape
        genesis.Size([1, 1, 2, 2, 2])
    """

    _nd = 3


class _AvgPoolNd(Module):
    _nd = 0

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
    ) -> None:
        super().__init__()
        if self._nd == 1:  # PyTorch keeps AvgPool1d's arguments as 1-tuples
            kernel_size = _ntuple(1)(kernel_size)
            stride = _ntuple(1)(stride if stride is not None else kernel_size)
            padding = _ntuple(1)(padding)
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        if self._nd > 1:
            self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        fn = getattr(F, f"avg_pool{self._nd}d")
        args = [
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        ]
        if self._nd > 1:
            args.append(self.divisor_override)
        return fn(*args)


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling: PyTorch's ``nn.AvgPool1d``.

    Example::

        >>> genesis.nn.AvgPool1d(2)(genesis.tensor([[[1.0, 2.0, 3.0, 4.0]]]))
        tensor([[[1.5000, 3.5000]]])
    """

    _nd = 1

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling: PyTorch's ``nn.AvgPool2d``.

    Example::

        >>> genesis.nn.AvgPool2d(2)(genesis.ones(1, 1, 4, 4)).shape
        genesis.Size([1, 1, 2, 2])
    """

    _nd = 2


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling: PyTorch's ``nn.AvgPool3d``.

    Example::

        >>> genesis.nn.AvgPool3d(2)(genesis.ones(1, 1, 2, 2, 2)).flatten()
        tensor([1.])
    """

    _nd = 3


class _LPPoolNd(Module):
    _nd = 0

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )

    def forward(self, input: Tensor) -> Tensor:
        fn = getattr(F, f"lp_pool{self._nd}d")
        return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """1-D power-average pooling: PyTorch's ``nn.LPPool1d``.

    Example::

        >>> genesis.nn.LPPool1d(2, 2)(genesis.tensor([[[3.0, 4.0]]]))
        tensor([[[5.]]])
    """

    _nd = 1


class LPPool2d(_LPPoolNd):
    """2-D power-average pooling: PyTorch's ``nn.LPPool2d``.

    Example::

        >>> genesis.nn.LPPool2d(2, 2)(genesis.ones(1, 1, 2, 2)).flatten()
        tensor([2.])
    """

    _nd = 2


class LPPool3d(_LPPoolNd):
    """3-D power-average pooling: PyTorch's ``nn.LPPool3d``.

    Example::

        >>> genesis.nn.LPPool3d(1, 2)(genesis.ones(1, 1, 2, 2, 2)).flatten()
        tensor([8.])
    """

    _nd = 3


class _AdaptiveAvgPoolNd(Module):
    _nd = 0

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, f"adaptive_avg_pool{self._nd}d")(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """1-D adaptive average pooling to ``output_size``: PyTorch's ``nn.AdaptiveAvgPool1d``.

    Example::

        >>> genesis.nn.AdaptiveAvgPool1d(1)(genesis.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[2.]]])
    """

    _nd = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """2-D adaptive average pooling to ``output_size``: PyTorch's ``nn.AdaptiveAvgPool2d``.

    Example::

        >>> genesis.nn.AdaptiveAvgPool2d((1, 1))(genesis.ones(2, 3, 7, 7)).shape
        genesis.Size([2, 3, 1, 1])
    """

    _nd = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """3-D adaptive average pooling to ``output_size``: PyTorch's ``nn.AdaptiveAvgPool3d``.

    Example::

        >>> genesis.nn.AdaptiveAvgPool3d(1)(genesis.ones(1, 1, 2, 3, 4)).flatten()
        tensor([1.])
    """

    _nd = 3


class _AdaptiveMaxPoolNd(Module):
    _nd = 0

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Any:
        return getattr(F, f"adaptive_max_pool{self._nd}d")(
            input, self.output_size, self.return_indices
        )


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """1-D adaptive max pooling to ``output_size``: PyTorch's ``nn.AdaptiveMaxPool1d``.

    Example::

        >>> genesis.nn.AdaptiveMaxPool1d(1)(genesis.tensor([[[1.0, 5.0, 3.0]]]))
        tensor([[[5.]]])
    """

    _nd = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """2-D adaptive max pooling to ``output_size``: PyTorch's ``nn.AdaptiveMaxPool2d``.

    Example::

        >>> genesis.nn.AdaptiveMaxPool2d(2)(genesis.zeros(1, 1, 5, 5)).shape
        genesis.Size([1, 1, 2, 2])
    """

    _nd = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """3-D adaptive max pooling to ``output_size``: PyTorch's ``nn.AdaptiveMaxPool3d``.

    Example::

        >>> genesis.nn.AdaptiveMaxPool3d(1)(genesis.arange(8.0).view(1, 1, 2, 2, 2)).flatten()
        tensor([7.])
    """

    _nd = 3


class _FractionalMaxPoolNd(Module):
    _nd = 0

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        n, name = self._nd, type(self).__name__
        self.kernel_size = _ntuple(n)(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(n)(output_size) if output_size is not None else None
        self.output_ratio = _ntuple(n)(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"[{name}] requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError(f"[{name}] only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"[{name}] output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        return getattr(F, f"fractional_max_pool{self._nd}d")(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling: PyTorch's ``nn.FractionalMaxPool2d``.

    ``kernel_size`` windows at pseudo-random steps give an output of ``output_size`` (or
    ``output_ratio`` times the input's size); the steps are drawn per sample and channel from
    genesis's generator on each call unless ``_random_samples`` (N, C, 2) is given
    (``F.fractional_max_pool2d``, Note [Fractional pooling windows]).

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's (H, W). Default: None.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's,
            each in (0, 1). Default: None.
        return_indices (bool, optional): whether to return the argmax positions too.
            Default: False.
        _random_samples (Tensor, optional): fixed samples, kept as a buffer. Default: None.

    Example::

        >>> genesis.nn.FractionalMaxPool2d(3, output_ratio=0.5)(genesis.zeros(1, 2, 9, 9)).shape
        genesis.Size([1, 2, 4, 4])
    """

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling: PyTorch's ``nn.FractionalMaxPool3d`` (as FractionalMaxPool2d,
    with ``_random_samples`` of shape (N, C, 3)).

    Example::

        >>> genesis.nn.FractionalMaxPool3d(2, output_size=3)(genesis.zeros(1, 1, 6, 6, 6)).shape
        genesis.Size([1, 1, 3, 3, 3])
    """

    _nd = 3


class _MaxUnpoolNd(Module):
    _nd = 0

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        n = self._nd
        self.kernel_size = _ntuple(n)(kernel_size)
        self.stride = _ntuple(n)(stride if stride is not None else kernel_size)
        self.padding = _ntuple(n)(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        fn = getattr(F, f"max_unpool{self._nd}d")
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverts MaxPool1d with its indices: PyTorch's ``nn.MaxUnpool1d``.

    Example::

        >>> genesis.nn.MaxUnpool1d(2)(genesis.tensor([[[5.0]]]), genesis.tensor([[[1]]]))
        tensor([[[0., 5.]]])
    """

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverts MaxPool2d with its indices: PyTorch's ``nn.MaxUnpool2d``.

    Example::

        >>> pool = genesis.nn.MaxPool2d(2, return_indices=True)
        >>> out, idx = pool(genesis.arange(4.0).view(1, 1, 2, 2))
        >>> genesis.nn.MaxUnpool2d(2)(out, idx).flatten()
        tensor([0., 0., 0., 3.])
    """

    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverts MaxPool3d with its indices: PyTorch's ``nn.MaxUnpool3d``.

    Example::

        >>> genesis.nn.MaxUnpool3d(1)(genesis.ones(1, 1, 1, 1, 1), genesis.zeros(1, 1, 1, 1, 1,
        ...     dtype=genesis.int64)).flatten()
        tensor([1.])
    """

    _nd = 3
