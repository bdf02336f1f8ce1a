"""The activations of torch.nn.functional with PyTorch's names, signatures (``inplace=``
included) and numerics.

The pointwise ones with a compiled kernel in ``genesis._C._nn`` (relu, elu, leaky_relu, hardtanh,
gelu, silu, mish, softplus) are one fused pass over the data; relu6, logsigmoid and rrelu's eval
form reuse them with other parameters. The rest are short compositions of genesis ops, and their
gradients flow through autograd. The in-place forms write into ``input`` and return it; where
the compiled in-place kernel cannot record a graph (``elu_`` and so ``selu_``/``celu_``) and
``input`` needs a gradient, they compose in-place ops that can.
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import _C
from ..._C import Tensor, _nn, empty_like, expm1, sigmoid, tanh, where, zeros_like
from ..._C._nn import (
    gelu,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    mish,
    relu,
    silu,
    softplus,
)
from ...amp._policies import autocast_policy
from ...autograd import is_grad_enabled

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]

# SELU's constants (Klambauer et al., 2017), as PyTorch's.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ----------------------------------------------------------------------------------------------
# Checks and shared pieces
# ----------------------------------------------------------------------------------------------


def _check_tensor(op: str, input: Any, what: str = "input") -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"[{op}] {what} must be a genesis.Tensor, got {type(input).__name__}")


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("genesis.", "")


def _check_float(op: str, input: Any) -> None:
    _check_tensor(op, input)
    if not input.is_floating_point():
        raise TypeError(
            f"[{op}] not supported for {_dtype_name(input.dtype)} tensors (only floating point)"
        )


def _check_not_bool(op: str, input: Any) -> None:
    _check_tensor(op, input)
    if input.dtype is _C.bool:
        raise TypeError(f"[{op}] not supported for bool tensors")


def _check_inplace(op: str, input: Tensor) -> None:
    """PyTorch's error for an in-place op on a leaf that requires grad (before any write)."""
    if input.is_leaf and input.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"[{op}] a leaf Variable that requires grad is being used in an in-place operation."
        )


def _mul(t: Tensor, factor: float) -> Tensor:
    """``t * factor``, in place when ``t`` is a fresh intermediate outside any graph (the
    compiled activations save their result for backward)."""
    return t * factor if t.requires_grad else t.mul_(factor)


def _elu_family(
    op: str, input: Tensor, alpha: float, scale: float, input_scale: float, inplace: bool
) -> Tensor:
    """ATen's ``elu`` family: ``scale * x`` where ``x > 0``, else
    ``expm1(x * input_scale) * alpha * scale``; elu, selu and celu are its cases."""
    _check_float(op, input)
    if inplace:
        _check_inplace(op, input)
    graph = inplace and input.requires_grad and is_grad_enabled()
    if input_scale == 1.0 and not graph:  # the compiled elu, one pass (then the scale)
        if inplace:
            _nn.elu_(input, alpha)
            return input.mul_(scale) if scale != 1.0 else input
        out = _nn.elu(input, alpha)
        return out if scale == 1.0 else _mul(out, scale)
    # celu (input_scale = 1 / alpha, of either sign), or in place in a graph: the compiled
    # elu_ records none. In-place ops that do, with ATen's values.
    neg = input <= 0
    e = where(neg, input, 0.0)
    if input_scale != 1.0:
        e = e.mul_(input_scale)
    e = expm1(e) * (alpha * scale)
    out = input.masked_fill_(neg, 0.0) if inplace else input.masked_fill(neg, 0.0)
    if scale != 1.0:
        out = out.mul_(scale)
    return out.add_(e)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's legacy implicit dim: 0 for 0-, 1- and 3-d input, else 1 (with its warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _check_dim(op: str, input: Tensor, dim: int) -> int:
    n = max(input.dim(), 1)
    if not -n <= dim < n:
        raise IndexError(
            f"[{op}] dimension out of range (expected to be in range of [{-n}, {n - 1}], "
            f"but got {dim})"
        )
    return dim % n


# ----------------------------------------------------------------------------------------------
# ReLU and its relatives
# ----------------------------------------------------------------------------------------------


def relu_(input: Tensor) -> Tensor:
    """Applies ReLU in place: ``relu(input, inplace=True)``.

    Args:
        input (Tensor): the tensor to transform.

    Returns:
        Tensor: ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([-1.0, 2.0])
        >>> F.relu_(x) is x, x
        (True, tensor([0., 2.]))
    """
    _check_tensor("relu_", input)
    return _nn.relu(input, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """Applies ReLU6, ``min(max(x, 0), 6)``, elementwise.

    That is ``hardtanh(input, 0, 6)``, one compiled pass; integer input keeps its dtype.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.relu6(genesis.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    _check_not_bool("relu6", input)
    return _nn.hardtanh(input, 0, 6, inplace)


@autocast_policy
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Applies the parametric ReLU, ``x`` where ``x > 0`` and ``weight * x`` elsewhere.

    ``weight`` is 0-d or 1-D with one element (shared by all channels) or one per channel, the
    channels being dim 1 of ``input`` (PyTorch's rule: a 1-D input has one channel). Input and
    weight need the same floating point dtype; gradients flow to both.

    Args:
        input (Tensor): the (N, C, ...) input.
        weight (Tensor): the learnable slopes, ``(1,)``, ``()`` or ``(C,)``.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.prelu(genesis.tensor([[-2.0, 1.0], [4.0, -4.0]]), genesis.tensor([0.5, 0.25]))
        tensor([[-1.,  1.],
                [ 4., -1.]])
    """
    _check_float("prelu", input)
    _check_tensor("prelu", weight, "weight")
    if weight.dim() > 1:
        raise RuntimeError(
            f"[prelu] expected weight to be a scalar or 1D tensor, but got ndim = {weight.dim()}"
        )
    if weight.dtype is not input.dtype:
        raise RuntimeError(
            f"[prelu] type promoting not supported: got input {_dtype_name(input.dtype)} and "
            f"weight {_dtype_name(weight.dtype)}"
        )
    count = weight.numel()
    if count == 1:
        w = weight.reshape(())
    else:
        if input.dim() == 0:
            raise RuntimeError(f"[prelu] a 0-d input takes 1 weight, got {count}")
        channels = input.shape[1] if input.dim() > 1 else 1
        if count != channels:
            raise RuntimeError(
                f"[prelu] mismatch of parameter numbers and input channel size: found parameter "
                f"numbers = {count} and channel size = {channels}"
            )
        w = weight.reshape((count,) + (1,) * (input.dim() - 2))
    return where(input > 0, input, input * w)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Applies the randomized leaky ReLU: ``x`` where ``x > 0``, ``a * x`` elsewhere.

    In training each element's ``a`` is drawn from U(``lower``, ``upper``) with genesis's
    generator (so the draws differ from PyTorch's; their distribution and the gradient, ``a``,
    are PyTorch's); in evaluation ``a`` is the mean ``(lower + upper) / 2``.

    Args:
        input (Tensor): the input tensor (floating point).
        lower (float, optional): the lower bound of the slope. Default: ``1/8``.
        upper (float, optional): the upper bound of the slope. Default: ``1/3``.
        training (bool, optional): draw random slopes (else use their mean). Default: ``False``.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.rrelu(genesis.tensor([-4.0, 2.0]), 0.25, 0.75)
        tensor([-2.,  2.])
    """
    op = "rrelu_" if inplace else "rrelu"
    _check_float(op, input)
    if lower > upper:
        raise RuntimeError(
            f"[{op}] lower bound should be less than or equal to the upper bound, got "
            f"lower={lower} > upper={upper}"
        )
    if inplace:
        _check_inplace(op, input)
    if not training:
        return _nn.leaky_relu(input, (lower + upper) / 2, inplace)
    noise = empty_like(input).uniform_(lower, upper).masked_fill_(input > 0, 1.0)
    return input.mul_(noise) if inplace else input * noise


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """Applies the randomized leaky ReLU in place: ``rrelu(..., inplace=True)``.

    Args:
        input (Tensor): the tensor to transform.
        lower (float, optional): the lower bound of the slope. Default: ``1/8``.
        upper (float, optional): the upper bound of the slope. Default: ``1/3``.
        training (bool, optional): draw random slopes (else use their mean). Default: ``False``.

    Returns:
        Tensor: ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([-4.0, 2.0])
        >>> F.rrelu_(x, 0.25, 0.75) is x, x
        (True, tensor([-2.,  2.]))
    """
    return rrelu(input, lower, upper, training, True)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """Replaces each element that is not greater than ``threshold`` with ``value``.

    ``y = x if x > threshold else value`` (NaN stays NaN); any dtype but bool.

    Args:
        input (Tensor): the input tensor.
        threshold (float): the value to compare with.
        value (float): what replaces the elements at or below ``threshold``.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.threshold(genesis.tensor([-1.0, 0.5, 2.0]), 0.5, -9.0)
        tensor([-9., -9.,  2.])
    """
    op = "threshold_" if inplace else "threshold"
    _check_not_bool(op, input)
    mask = input <= threshold
    if inplace:
        _check_inplace(op, input)
        return input.masked_fill_(mask, value)
    return input.masked_fill(mask, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """Applies ``threshold`` in place: ``threshold(input, threshold, value, inplace=True)``.

    Args:
        input (Tensor): the tensor to transform.
        threshold (float): the value to compare with.
        value (float): what replaces the elements at or below ``threshold``.

    Returns:
        Tensor: ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([-1.0, 2.0])
        >>> F.threshold_(x, 0.0, 7.0) is x, x
        (True, tensor([7., 2.]))
    """
    # The parameter named like this function hides it here: call through the module's name.
    return _threshold_impl(input, threshold, value)


def _threshold_impl(input: Tensor, thresh: float, value: float) -> Tensor:
    return threshold(input, thresh, value, True)


# ----------------------------------------------------------------------------------------------
# The exponential family
# ----------------------------------------------------------------------------------------------


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Applies the exponential linear unit, ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)``
    elsewhere.

    Floating point input only; one compiled pass.

    Args:
        input (Tensor): the input tensor.
        alpha (float, optional): the value the negative side tends to, negated. Default: ``1.0``.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.elu(genesis.tensor([-1.0, 0.0, 2.0]))
        tensor([-0.6321,  0.0000,  2.0000])
    """
    return _elu_family("elu_" if inplace else "elu", input, alpha, 1.0, 1.0, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Applies ELU in place: ``elu(input, alpha, inplace=True)``.

    Args:
        input (Tensor): the tensor to transform.
        alpha (float, optional): the value the negative side tends to, negated. Default: ``1.0``.

    Returns:
        Tensor: ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([-1.0, 2.0])
        >>> F.elu_(x) is x, x
        (True, tensor([-0.6321,  2.0000]))
    """
    return _elu_family("elu_", input, alpha, 1.0, 1.0, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Applies the scaled exponential linear unit, ``scale * elu(x, alpha)``, elementwise.

    ``alpha = 1.6732632423543772`` and ``scale = 1.0507009873554805``, as PyTorch's.
    Floating point input only.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.selu(genesis.tensor([-1.0, 0.0, 2.0]))
        tensor([-1.1113,  0.0000,  2.1014])
    """
    op = "selu_" if inplace else "selu"
    return _elu_family(op, input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def selu_(input: Tensor) -> Tensor:
    """Applies SELU in place: ``selu(input, inplace=True)``.

    Args:
        input (Tensor): the tensor to transform.

    Returns:
        Tensor: ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([-1.0, 2.0])
        >>> F.selu_(x) is x, x
        (True, tensor([-1.1113,  2.1014]))
    """
    return _elu_family("selu_", input, _SELU_ALPHA, _SELU_SCALE, 1.0, True)


def _celu_check(op: str, alpha: float) -> None:
    if alpha == 0:
        raise RuntimeError(f"[{op}] ZeroDivisionError: alpha cannot be 0 for CELU")


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Applies the continuously differentiable ELU, ``x`` where ``x > 0``,
    ``alpha * (exp(x / alpha) - 1)`` elsewhere.

    Floating point input only; ``alpha`` must not be 0.

    Args:
        input (Tensor): the input tensor.
        alpha (float, optional): the scale of the negative side. Default: ``1.0``.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.celu(genesis.tensor([-1.0, 0.0, 2.0]), alpha=2.0)
        tensor([-0.7869,  0.0000,  2.0000])
    """
    op = "celu_" if inplace else "celu"
    _celu_check(op, alpha)
    return _elu_family(op, input, alpha, 1.0, 1.0 / alpha, inplace)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Applies CELU in place: ``celu(input, alpha, inplace=True)``.

    Args:
        input (Tensor): the tensor to transform.
        alpha (float, optional): the scale of the negative side. Default: ``1.0``.

    Returns:
        Tensor: ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([-1.0, 2.0])
        >>> F.celu_(x) is x, x
        (True, tensor([-0.6321,  2.0000]))
    """
    _celu_check("celu_", alpha)
    return _elu_family("celu_", input, alpha, 1.0, 1.0 / alpha, True)


# ----------------------------------------------------------------------------------------------
# Sigmoid-like and smooth activations
# ----------------------------------------------------------------------------------------------


def logsigmoid(input: Tensor) -> Tensor:
    """Applies ``log(sigmoid(x))`` elementwise, computed stably as ``-softplus(-x)``.

    One compiled pass (``softplus`` with ``beta=-1``); floating point input only.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.logsigmoid(genesis.tensor([-1.0, 0.0, 1.0]))
        tensor([-1.3133, -0.6931, -0.3133])
    """
    _check_float("logsigmoid", input)
    # log(1 + exp(-x)) / -1; where -x > 20 it is x, as PyTorch's log-sigmoid to float precision.
    return softplus(input, -1.0, 20.0)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Applies the hard sigmoid, ``min(max(x + 3, 0), 6) / 6``, elementwise.

    Floating point input only. The gradient is ``1/6`` on ``(-3, 3)`` and zero elsewhere.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.hardsigmoid(genesis.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    op = "hardsigmoid_" if inplace else "hardsigmoid"
    _check_float(op, input)
    if inplace:
        _check_inplace(op, input)
        out = input.add_(3.0)
    else:
        out = input + 3.0
    return _nn.hardtanh_(out, 0.0, 6.0).div_(6.0)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """Applies the hard swish, ``x * min(max(x + 3, 0), 6) / 6``, elementwise.

    Floating point input only.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return it.
            Default: ``False``.

    Returns:
        Tensor: a new tensor, or ``input`` when ``inplace``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.hardswish(genesis.tensor([-4.0, -1.5, 0.0, 1.5, 4.0]))
        tensor([-0.0000, -0.3750,  0.0000,  1.1250,  4.0000])
    """
    op = "hardswish_" if inplace else "hardswish"
    _check_float(op, input)
    if inplace:
        _check_inplace(op, input)
    gate = _nn.hardtanh_(input + 3.0, 0.0, 6.0)
    if inplace:
        return input.mul_(gate).div_(6.0)
    return gate.mul_(input).div_(6.0)


def tanhshrink(input: Tensor) -> Tensor:
    """Applies ``x - tanh(x)`` elementwise.

    Args:
        input (Tensor): the input tensor (integers give float32, as in PyTorch).

    Returns:
        Tensor: a new tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.tanhshrink(genesis.tensor([0.0, 1.0]))
        tensor([0.0000, 0.2384])
    """
    _check_tensor("tanhshrink", input)
    return input - _C.tanh(input)


def softsign(input: Tensor) -> Tensor:
    """Applies ``x / (1 + |x|)`` elementwise.

    Args:
        input (Tensor): the input tensor (integers give float32, as in PyTorch).

    Returns:
        Tensor: a new tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.softsign(genesis.tensor([-3.0, 0.0, 1.0]))
        tensor([-0.7500,  0.0000,  0.5000])
    """
    _check_tensor("softsign", input)
    return input / (input.abs() + 1)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Applies the gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the halves of ``input``
    along ``dim``.

    Args:
        input (Tensor): the input tensor; its size along ``dim`` must be even.
        dim (int, optional): the dimension to split. Default: ``-1``.

    Returns:
        Tensor: ``input``'s shape with ``dim`` halved.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.glu(genesis.tensor([[1.0, 2.0, 0.0, 100.0]]))
        tensor([[0.5000, 2.0000]])
    """
    _check_float("glu", input)
    if input.dim() == 0:
        raise RuntimeError("[glu] glu does not support scalars because halving size must be even")
    d = _check_dim("glu", input, dim)
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(
            f"[glu] halving dimension must be even, but dimension {d} is size {size}"
        )
    half = size // 2
    return input.narrow(d, 0, half) * _C.sigmoid(input.narrow(d, half, half))


# ----------------------------------------------------------------------------------------------
# Shrinkage
# ----------------------------------------------------------------------------------------------


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Applies hard shrinkage: 0 where ``-lambd <= x <= lambd``, ``x`` elsewhere.

    Floating point input only.

    Args:
        input (Tensor): the input tensor.
        lambd (float, optional): the half-width of the zeroed band. Default: ``0.5``.

    Returns:
        Tensor: a new tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.hardshrink(genesis.tensor([-1.0, 0.3, 0.5, 2.0]))
        tensor([-1.,  0.,  0.,  2.])
    """
    _check_float("hardshrink", input)
    return input.masked_fill(input.abs() <= lambd, 0.0)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Applies soft shrinkage: ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``,
    0 between.

    Floating point input only; ``lambd`` must be non-negative. Computed as
    ``x - clamp(x, -lambd, lambd)``.

    Args:
        input (Tensor): the input tensor.
        lambd (float, optional): the amount of shrinkage (>= 0). Default: ``0.5``.

    Returns:
        Tensor: a new tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.softshrink(genesis.tensor([-1.0, 0.3, 2.0]))
        tensor([-0.5000,  0.0000,  1.5000])
    """
    _check_float("softshrink", input)
    if not lambd >= 0:
        raise RuntimeError(f"[softshrink] lambda must be greater or equal to 0, but got {lambd}")
    return input - input.clamp(-lambd, lambd)


# ----------------------------------------------------------------------------------------------
# Softmax family
# ----------------------------------------------------------------------------------------------


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """Applies softmax along ``dim``: ``exp(x) / sum(exp(x))``, computed stably.

    ``dim=None`` follows PyTorch's deprecated implicit choice (0 for 0-, 1- and 3-d input, else
    1) and warns. Floating point input, or any input with a floating ``dtype``.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to normalize over. Default: ``None``.
        _stacklevel (int, optional): the ``stacklevel`` of the implicit-dim warning.
            Default: ``3``.
        dtype (genesis.dtype, optional): cast ``input`` to this dtype first. Default: ``None``.

    Returns:
        Tensor: a tensor of ``input``'s shape whose slices along ``dim`` sum to 1.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.softmax(genesis.tensor([[0.0, 0.0], [0.0, 2.0]]), dim=1)
        tensor([[0.5000, 0.5000],
                [0.1192, 0.8808]])
    """
    _check_tensor("softmax", input)
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.softmax(input, dim, dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """Applies ``log(softmax(x))`` along ``dim``, computed stably as ``x - logsumexp(x)``.

    ``dim=None`` follows PyTorch's deprecated implicit choice (0 for 0-, 1- and 3-d input, else
    1) and warns.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to normalize over. Default: ``None``.
        _stacklevel (int, optional): the ``stacklevel`` of the implicit-dim warning.
            Default: ``3``.
        dtype (genesis.dtype, optional): cast ``input`` to this dtype first. Default: ``None``.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.log_softmax(genesis.tensor([0.0, 0.0]), dim=0)
        tensor([-0.6931, -0.6931])
    """
    _check_tensor("log_softmax", input)
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.log_softmax(input, dim, dtype)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """Applies softmin along ``dim``: ``softmax(-x)``.

    ``dim=None`` follows PyTorch's deprecated implicit choice (0 for 0-, 1- and 3-d input, else
    1) and warns.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to normalize over. Default: ``None``.
        _stacklevel (int, optional): the ``stacklevel`` of the implicit-dim warning.
            Default: ``3``.
        dtype (genesis.dtype, optional): cast ``-input`` to this dtype first. Default: ``None``.

    Returns:
        Tensor: a tensor of ``input``'s shape whose slices along ``dim`` sum to 1.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.softmin(genesis.tensor([0.0, 2.0]), dim=0)
        tensor([0.8808, 0.1192])
    """
    _check_not_bool("softmin", input)
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    _check_dim("softmin", input, dim)
    if dtype is None and not input.is_floating_point():
        raise TypeError(f"[softmin] expects a floating point dtype, got {_dtype_name(input.dtype)}")
    return _C.softmax(-input, dim, dtype)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """Samples from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    ``g`` standard Gumbel noise.

    With ``hard=True`` the result is one-hot at each slice's maximum in the forward pass, while
    the gradient is the soft sample's (the straight-through estimator):
    ``y_hard - y_soft.detach() + y_soft``. The noise comes from genesis's generator, so the
    samples differ from PyTorch's; their distribution is PyTorch's.

    Args:
        logits (Tensor): unnormalized log-probabilities (floating point).
        tau (float, optional): the temperature, > 0. Default: ``1``.
        hard (bool, optional): return one-hot samples with the soft gradient. Default: ``False``.
        eps (float, optional): deprecated and unused (a warning when given). Default: ``1e-10``.
        dim (int, optional): the dimension of the categories. Default: ``-1``.

    Returns:
        Tensor: a tensor of ``logits``' shape whose slices along ``dim`` sum to 1.

    Example::

        >>> import genesis.nn.functional as F
        >>> y = F.gumbel_softmax(genesis.zeros(2, 3), hard=True)
        >>> y.sum(-1)
        tensor([1., 1.])
    """
    _check_float("gumbel_softmax", logits)
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    _check_dim("gumbel_softmax", logits, dim)
    # -log(Exp(1)) is a standard Gumbel sample.
    gumbels = empty_like(logits).exponential_().log_().neg_()
    y_soft = _C.softmax((logits + gumbels).div_(tau), dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
