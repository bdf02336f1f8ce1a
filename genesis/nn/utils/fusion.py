"""Folding an eval-mode BatchNorm into the convolution or linear layer before it."""

from __future__ import annotations

import copy
from typing import Any

from ..._C import Tensor, zeros_like
from ...autograd import no_grad
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of one convolution equal to ``conv`` followed by an eval-mode
    BatchNorm with these statistics and affine parameters.

    Example::

        >>> w, b = genesis.nn.utils.fuse_conv_bn_weights(
        ...     genesis.ones(2, 1, 1, 1), None, genesis.zeros(2), genesis.ones(2), 0.0,
        ...     genesis.tensor([2.0, 3.0]), genesis.tensor([1.0, 0.0]))
        >>> w.flatten().tolist(), b.tolist()
        ([2.0, 3.0], [1.0, 0.0])
    """
    dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = bn_rm.new_ones(bn_rm.shape)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
    shape = [1] * conv_w.dim()
    shape[1 if transpose else 0] = -1
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of an eval-mode ``conv`` with ``bn`` (eval mode) folded into its weight and bias.

    Example::

        >>> conv = genesis.nn.Conv2d(2, 3, 1).eval()
        >>> bn = genesis.nn.BatchNorm2d(3).eval()
        >>> fused = genesis.nn.utils.fuse_conv_bn_eval(conv, bn)
        >>> x = genesis.randn(1, 2, 4, 4)
        >>> bool(genesis.allclose(fused(x), bn(conv(x)), atol=1e-6))
        True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("[fuse_conv_bn_eval] the BatchNorm has no running statistics")
    with no_grad():
        fused.weight, fused.bias = fuse_conv_bn_weights(
            fused.weight,
            fused.bias,
            bn.running_mean,
            bn.running_var,
            bn.eps,
            bn.weight,
            bn.bias,
            transpose,
        )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of one linear layer equal to ``linear`` followed by an eval-mode
    BatchNorm1d with these statistics and affine parameters.

    Example::

        >>> w, b = genesis.nn.utils.fuse_linear_bn_weights(
        ...     genesis.ones(2, 1), None, genesis.zeros(2), genesis.ones(2), 0.0,
        ...     genesis.tensor([2.0, 3.0]), genesis.zeros(2))
        >>> w.flatten().tolist()
        [2.0, 3.0]
    """
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * bn_scale.unsqueeze(-1)
    fused_b = (linear_b - bn_rm) * bn_scale + bn_b
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of an eval-mode ``linear`` with ``bn`` (eval mode) folded into it.

    Example::

        >>> linear = genesis.nn.Linear(2, 3).eval()
        >>> bn = genesis.nn.BatchNorm1d(3).eval()
        >>> fused = genesis.nn.utils.fuse_linear_bn_eval(linear, bn)
        >>> x = genesis.randn(4, 2)
        >>> bool(genesis.allclose(fused(x), bn(linear(x)), atol=1e-6))
        True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features must equal bn.num_features or bn.num_features must be 1"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("[fuse_linear_bn_eval] the BatchNorm has no running statistics")
    fused = copy.deepcopy(linear)
    with no_grad():
        fused.weight, fused.bias = fuse_linear_bn_weights(
            fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
        )
    return fused
