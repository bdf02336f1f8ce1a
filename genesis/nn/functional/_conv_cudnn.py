"""Convolutions on CUDA through cuDNN (Note [Convolutions through cuDNN] in
csrc/cuda/cudnn_convolution.cpp), used by _conv.py when ``usable`` says so.

Note [Convolution's three passes]: the forward pass y = conv(x, w), the input's gradient
dx = conv_input(dy, w) (the transposed convolution) and the weight's dw = conv_weight(x, dy)
are each one cuDNN call, and the set is closed under differentiation: from
<g, conv(x, w)> = <conv_input(g, w), x> = <conv_weight(x, g), w> and the same identity read
from the other two passes, each pass's gradients are two of the three passes again. So each is
an autograd Function whose backward applies the other Functions, and double backward (a
gradient penalty, say) stays on cuDNN with no formula of its own.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._C import Tensor, _nn, bfloat16, float16, float32, float64
from ...autograd import Function
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


def _settings() -> tuple[bool, bool, bool]:
    return bool(cudnn.benchmark), bool(cudnn.deterministic), bool(cudnn.allow_tf32)


class Conv(Function):
    """y = conv(x, w)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, g: Geometry) -> Tensor:
        ctx.save_for_backward(x, w)
        ctx.geometry = g
        return _nn._cudnn_conv(x, w, g.padding, g.stride, g.dilation, g.groups, *_settings(), g.op)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        x, w = ctx.saved_tensors
        g = ctx.geometry
        gx = ConvInput.apply(grad, w, tuple(x.shape), g) if ctx.needs_input_grad[0] else None
        gw = ConvWeight.apply(x, grad, tuple(w.shape), g) if ctx.needs_input_grad[1] else None
        return gx, gw, None


class ConvInput(Function):
    """dx = conv_input(dy, w), of size x_sizes: the transposed convolution of dy."""

    @staticmethod
    def forward(ctx: Any, dy: Tensor, w: Tensor, x_sizes: tuple, g: Geometry) -> Tensor:
        ctx.save_for_backward(dy, w)
        ctx.geometry = g
        return _nn._cudnn_conv_backward_input(
            dy, w, list(x_sizes), g.padding, g.stride, g.dilation, g.groups, *_settings(), g.op
        )

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        dy, w = ctx.saved_tensors
        g = ctx.geometry
        gdy = Conv.apply(grad, w, g) if ctx.needs_input_grad[0] else None
        gw = ConvWeight.apply(grad, dy, tuple(w.shape), g) if ctx.needs_input_grad[1] else None
        return gdy, gw, None, None


class ConvWeight(Function):
    """dw = conv_weight(x, dy), of size w_sizes."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dy: Tensor, w_sizes: tuple, g: Geometry) -> Tensor:
        ctx.save_for_backward(x, dy)
        ctx.geometry = g
        return _nn._cudnn_conv_backward_weight(
            x, dy, list(w_sizes), g.padding, g.stride, g.dilation, g.groups, *_settings(), g.op
        )

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        x, dy = ctx.saved_tensors
        g = ctx.geometry
        gx = ConvInput.apply(dy, grad, tuple(x.shape), g) if ctx.needs_input_grad[0] else None
        gdy = Conv.apply(x, grad, g) if ctx.needs_input_grad[1] else None
        return gx, gdy, None, None
