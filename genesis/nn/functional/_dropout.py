"""dropout, dropout1d/2d/3d (whole channels), alpha_dropout and feature_alpha_dropout.

The masks are drawn from genesis's generator, which is counter-based (Philox): after
``genesis.manual_seed(s)`` the same calls draw the same masks on the CPU and on CUDA. PyTorch's
generator is a different one, so the masks differ from PyTorch's; their distribution, scaling
and gradient (the mask times the scale) are PyTorch's. Element dropout is one fused pass that
writes the result and a bool mask, and its backward one pass over the gradient and the mask
(Note [Fused dropout] in csrc/ops/dropout.cpp); channel and alpha dropout draw the mask with
``bernoulli_``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._C import Tensor, _nn, empty, ones_like
from ...autograd import Function

__all__ = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]

# SELU's negative saturation value, -lambda * alpha (PyTorch's alpha_dropout constant).
_SELU_ALPHA = 1.7580993408473766


def _check(op: str, input: object, p: float) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"[{op}] input must be a genesis.Tensor, got {type(input).__name__}")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"[{op}] dropout probability has to be between 0 and 1, but got {p}")


class _FusedDropout(Function):
    """out, mask = dropout(x) in one pass; the gradient is the mask times the scale."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, p: float) -> Tensor:
        out, mask = _nn._fused_dropout(x, p)
        ctx.save_for_backward(mask)
        ctx.scale = 1.0 / (1.0 - p)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None]:
        (mask,) = ctx.saved_tensors
        return _MaskedScale.apply(grad, mask, ctx.scale), None


class _MaskedScale(Function):
    """grad * scale where mask, else grad * 0: linear in grad, so its own backward is itself
    (double backward through dropout)."""

    @staticmethod
    def forward(ctx: Any, grad: Tensor, mask: Tensor, scale: float) -> Tensor:
        ctx.save_for_backward(mask)
        ctx.scale = scale
        return _nn._dropout_masked_scale(grad, mask, scale)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, None, None]:
        (mask,) = ctx.saved_tensors
        return _MaskedScale.apply(gg, mask, ctx.scale), None, None


def _dropout_impl(
    op: str,
    input: Tensor,
    p: float,
    training: bool,
    inplace: bool,
    feature: bool,
    alpha: bool,
    batched: bool = True,
) -> Tensor:
    """Dropout of every element, or (``feature``) of whole channels: the noise has the input's
    first two sizes (only the first when not ``batched``) and 1 for the rest, as PyTorch's
    feature noise. ``alpha``: the SELU-preserving variant. Follows ATen's ``_dropout_impl``."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(f"[{op}] expected a floating point input, got {input.dtype}")
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    if not feature and not alpha:
        if not inplace:
            return _FusedDropout.apply(input, p)
        # The same draw as out of place, applied by an in-place product that autograd records.
        _, mask = _nn._fused_dropout(input.detach(), p)
        return input.mul_(_nn._dropout_masked_scale(ones_like(input), mask, 1.0 / (1.0 - p)))
    if feature:
        lead = 2 if batched else 1  # an unbatched input is one sample: its dim 0 is C
        if input.dim() < lead:
            raise RuntimeError(
                f"[{op}] Feature dropout requires at least 2 dimensions in the input, got a "
                f"{input.dim()}-D input" + ("" if batched else " (one sample, no batch dim)")
            )
        shape = tuple(input.shape[:lead]) + (1,) * (input.dim() - lead)
    else:
        shape = tuple(input.shape)
    noise = empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
        noise.mul_(a)
        out = input.mul_(noise) if inplace else input * noise
        return out.add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)``.

    PyTorch's ``torch.nn.functional.dropout``: the mask is drawn from genesis's generator
    (the same on the CPU and on CUDA for a seed); the gradient is the mask times the scale.
    With ``training=False``, ``p=0`` or an empty input the input itself is returned; ``p=1``
    gives zeros.

    Args:
        input (Tensor): a floating point tensor of any shape.
        p (float): the probability of an element to be zeroed, in [0, 1]. Default: 0.5.
        training (bool): apply dropout if ``True``. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Returns:
        Tensor: the result, of the input's shape (``input`` itself when ``inplace``).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.dropout(genesis.ones(2, 3), p=0.5, training=False)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
        >>> F.dropout(genesis.ones(4), p=1.0)
        tensor([0., 0., 0., 0.])
        >>> sorted(set(F.dropout(genesis.ones(1000), p=0.5).tolist()))
        [0.0, 2.0]
    """
    _check("dropout", input, p)
    return _dropout_impl("dropout", input, p, training, inplace, feature=False, alpha=False)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels (1-D feature maps) with probability ``p``, scaling the rest.

    PyTorch's ``torch.nn.functional.dropout1d``: for a (N, C, L) input each ``input[n, c]`` is
    kept (times ``1 / (1 - p)``) or zeroed as a whole; a (C, L) input is one sample.

    Args:
        input (Tensor): a (N, C, L) or (C, L) floating point tensor.
        p (float): the probability of a channel to be zeroed, in [0, 1]. Default: 0.5.
        training (bool): apply dropout if ``True``. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Returns:
        Tensor: the result, of the input's shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> y = F.dropout1d(genesis.ones(8, 16, 5), p=0.5)
        >>> bool((y == y[:, :, :1]).all())
        True
    """
    _check("dropout1d", input, p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"[dropout1d] Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _dropout_impl(
        "dropout1d",
        input,
        p,
        training,
        inplace,
        feature=True,
        alpha=False,
        batched=input.dim() == 3,
    )


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels (2-D feature maps) with probability ``p``, scaling the rest.

    PyTorch's ``torch.nn.functional.dropout2d``: for a (N, C, H, W) input each ``input[n, c]``
    is kept (times ``1 / (1 - p)``) or zeroed as a whole. As in PyTorch, a 3-D input is taken
    as (N, C, L) (1-D channel dropout, with a warning), and inputs of other ranks warn and drop
    ``input[n, c, ...]`` of their first two dims.

    Args:
        input (Tensor): a (N, C, H, W) floating point tensor.
        p (float): the probability of a channel to be zeroed, in [0, 1]. Default: 0.5.
        training (bool): apply dropout if ``True``. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Returns:
        Tensor: the result, of the input's shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> y = F.dropout2d(genesis.ones(4, 8, 3, 3), p=0.5)
        >>> bool((y == y[:, :, :1, :1]).all())
        True
    """
    _check("dropout2d", input, p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"[dropout2d] Received a {inp_dim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if inp_dim == 3:
        warnings.warn(
            "[dropout2d] Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _dropout_impl("dropout2d", input, p, training, inplace, feature=True, alpha=False)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels (3-D feature maps) with probability ``p``, scaling the rest.

    PyTorch's ``torch.nn.functional.dropout3d``: for a (N, C, D, H, W) input each
    ``input[n, c]`` is kept (times ``1 / (1 - p)``) or zeroed as a whole; a (C, D, H, W) input
    is one sample. Inputs of other ranks warn, as in PyTorch, and are taken as one sample.

    Args:
        input (Tensor): a (N, C, D, H, W) or (C, D, H, W) floating point tensor.
        p (float): the probability of a channel to be zeroed, in [0, 1]. Default: 0.5.
        training (bool): apply dropout if ``True``. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Returns:
        Tensor: the result, of the input's shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> y = F.dropout3d(genesis.ones(2, 8, 2, 2, 2), p=0.5)
        >>> bool((y == y[:, :, :1, :1, :1]).all())
        True
    """
    _check("dropout3d", input, p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"[dropout3d] Received a {inp_dim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    return _dropout_impl(
        "dropout3d",
        input,
        p,
        training,
        inplace,
        feature=True,
        alpha=False,
        batched=inp_dim == 5,
    )


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Applies alpha dropout, which keeps the mean and variance of SELU activations.

    PyTorch's ``torch.nn.functional.alpha_dropout``: each element is dropped with probability
    ``p`` and set to SELU's negative saturation value, then all are scaled and shifted
    (``a * x + b`` on kept elements, with PyTorch's ``a`` and ``b``) so that inputs of zero
    mean and unit variance keep them. Note that ``training`` defaults to ``False`` here, as in
    PyTorch; ``p=1`` gives zeros.

    Args:
        input (Tensor): a floating point tensor of any shape.
        p (float): the probability of an element to be dropped, in [0, 1]. Default: 0.5.
        training (bool): apply dropout if ``True``. Default: ``False``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Returns:
        Tensor: the result, of the input's shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.alpha_dropout(genesis.tensor([1.0, -2.0]), p=0.5)
        tensor([ 1., -2.])
        >>> y = F.alpha_dropout(genesis.zeros(1000), p=0.5, training=True)
        >>> len(set(y.tolist()))
        2
    """
    _check("alpha_dropout", input, p)
    return _dropout_impl("alpha_dropout", input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Applies alpha dropout to whole channels instead of single elements.

    PyTorch's ``torch.nn.functional.feature_alpha_dropout``: ``input[n, c]`` of a
    (N, C, ...) input is dropped (set to SELU's negative saturation value) as a whole with
    probability ``p``, then everything is scaled and shifted as in ``alpha_dropout``. Note that
    ``training`` defaults to ``False`` here, as in PyTorch.

    Args:
        input (Tensor): a (N, C, ...) floating point tensor (at least 2-D).
        p (float): the probability of a channel to be dropped, in [0, 1]. Default: 0.5.
        training (bool): apply dropout if ``True``. Default: ``False``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Returns:
        Tensor: the result, of the input's shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> y = F.feature_alpha_dropout(genesis.zeros(4, 6, 5), p=0.5, training=True)
        >>> bool((y == y[:, :, :1]).all())
        True
    """
    _check("feature_alpha_dropout", input, p)
    return _dropout_impl(
        "feature_alpha_dropout", input, p, training, inplace, feature=True, alpha=True
    )
