"""A convolution as three C++ passes (forward, the input's gradient, the weight's), each
differentiable by the other two (Note [Convolution's three passes] in
csrc/autograd/convolution.cpp): through cuDNN on CUDA (Note [Convolutions through cuDNN] in
csrc/cuda/cudnn_convolution.cpp, when ``usable`` says so), and on the CPU as products over
shifted windows (Note [Convolution over shifted windows] in csrc/cpu/convolution.cpp, for the
geometries ``cpu_usable`` takes). _conv.py calls these and keeps its own path otherwise.
"""

from __future__ import annotations

from typing import NamedTuple

from ..._C import Tensor, _nn, bfloat16, float16, float32, float64
from ...backends import cudnn

__all__: list[str] = []  # helpers of _conv.py; no public names

_DTYPES = (float16, bfloat16, float32, float64)
_ITEMS_LIMIT = 2**31 - 1  # cuDNN's legacy API counts items in int


class Geometry(NamedTuple):
    """A convolution's symmetric padding, stride and dilation per spatial dim, its groups and
    the op named in errors."""

    padding: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    groups: int
    op: str


def usable(x: Tensor, *sizes: int) -> bool:
    """Whether the convolution of CUDA tensor x whose operands and result have the given item
    counts goes to cuDNN: a floating dtype, cuDNN enabled and loadable, int-sized tensors."""
    return (
        x.is_cuda
        and x.dtype in _DTYPES
        and cudnn.enabled
        and all(n <= _ITEMS_LIMIT for n in sizes)
        and cudnn.is_available()
    )


def cpu_usable(x: Tensor, x_sizes: tuple, w_sizes: tuple, stride: tuple, groups: int) -> bool:
    """Whether the CPU's shifted-window passes take the convolution of a CPU tensor x of sizes
    x_sizes with a weight of w_sizes: 1-D or 2-D, stride 1, one group, enough channels."""
    return x.device.type == "cpu" and _nn._cpu_conv_usable(
        x.dtype, list(x_sizes), list(w_sizes), list(stride), groups
    )


def conv(x: Tensor, w: Tensor, g: Geometry) -> Tensor:
    """y = conv(x, w), differentiable (Note [Convolution's three passes])."""
    return _nn._conv(x, w, g.padding, g.stride, g.dilation, g.groups, *_settings(), g.op)


def conv_input(dy: Tensor, w: Tensor, x_sizes: tuple, g: Geometry) -> Tensor:
    """dx = conv_input(dy, w), of size x_sizes: the transposed convolution of dy."""
    return _nn._conv_backward_input(
        dy, w, list(x_sizes), g.padding, g.stride, g.dilation, g.groups, *_settings(), g.op
    )


def _settings() -> tuple[bool, bool, bool]:
    return bool(cudnn.benchmark), bool(cudnn.deterministic), bool(cudnn.allow_tf32)
