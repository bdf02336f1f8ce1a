"""Docstrings of the activations and clamp-like ops bound in csrc/python/activation.cpp."""

from ._fragments import (
    INPLACE,
    INPUT_INPUT,
    INPUT_SELF,
    OTHER_TENSOR,
    OUT_CAST,
    RETURNS_NEW,
    RETURNS_NEW_OR_INPUT,
    RETURNS_NEW_OR_OUT,
    RETURNS_SELF,
    example,
)

_ARGS_CLOSE = f"""\
Args:
    input (Tensor): the first tensor (``self`` for the method).
{OTHER_TENSOR}
    rtol (float, optional): relative tolerance. Default: 1e-05.
    atol (float, optional): absolute tolerance. Default: 1e-08.
    equal_nan (bool, optional): whether two NaNs are close. Default: False."""


def _inplace_nn(name: str, doing: str, args: str, *example_lines: str) -> str:
    """genesis.nn.functional.<name>_: ``name`` writing into ``input``."""
    return f"""\
The in-place ``{name}``: writes the result into ``input`` and returns it.

Args:
    input (Tensor): the tensor to {doing}.
{args}

Returns:
    Tensor: ``input``.

{example(*example_lines)}"""


def _clamp_side(bound: str, side: str, formula: str, *example_lines: str) -> str:
    """genesis.clamp_min and genesis.clamp_max: clamp with one ``bound``."""
    limit = "lower" if bound == "min" else "upper"
    return f"""\
Clamps each element from {side}: ``{formula}`` with PyTorch's type promotion (``clamp``
with only ``{bound}``).

Args:
{INPUT_SELF}
    {bound} (Number or Tensor): the {limit} bound.
{OUT_CAST}

{RETURNS_NEW_OR_OUT}

{example(*example_lines)}"""


DOCS = {
    "_nn.silu": f"""\
Applies SiLU (the swish function), ``x * sigmoid(x)``, elementwise, computed as
``x / (1 + exp(-x))``. Floating point input only (integers raise TypeError, as in PyTorch).
Also ``genesis.nn.functional.silu``.

Args:
{INPUT_INPUT}
{INPLACE}

{RETURNS_NEW_OR_INPUT}

Example::

    >>> genesis.silu(genesis.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.2689,  0.0000,  1.7616])
""",
    "_nn.mish": f"""\
Applies Mish, ``x * tanh(softplus(x))``, elementwise. Floating point input only.
Also ``genesis.nn.functional.mish``.

Args:
{INPUT_INPUT}
{INPLACE}

{RETURNS_NEW_OR_INPUT}

Example::

    >>> genesis.mish(genesis.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.3034,  0.0000,  1.9440])
""",
    "_nn.relu": f"""\
Applies ReLU, ``max(x, 0)``, elementwise (torch.nn.functional's form, with ``inplace``;
``genesis.relu`` and ``Tensor.relu`` are the plain ones).

Args:
{INPUT_INPUT}
{INPLACE}

{RETURNS_NEW_OR_INPUT}

Example::

    >>> genesis.nn.functional.relu(genesis.tensor([-1.0, 0.0, 2.0]), inplace=True)
    tensor([0., 0., 2.])
""",
    "_nn.gelu": f"""\
Applies GELU elementwise: ``x * Phi(x)`` with the standard normal CDF ``Phi``, computed as
``x / 2 * (1 + erf(x / sqrt(2)))``, or with ``approximate='tanh'`` PyTorch's tanh approximation
``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))``. Floating point input only. Also
``genesis.nn.functional.gelu``.

Args:
{INPUT_INPUT}
    approximate (str, optional): keyword-only, ``'none'`` or ``'tanh'``. Default: ``'none'``.

{RETURNS_NEW}

Example::

    >>> genesis.gelu(genesis.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.1587,  0.0000,  1.9545])
    >>> genesis.gelu(genesis.tensor([-1.0, 0.0, 2.0]), approximate='tanh')
    tensor([-0.1588,  0.0000,  1.9546])
""",
    "_nn.softplus": f"""\
Applies softplus, ``log(1 + exp(beta * x)) / beta``, elementwise; where ``beta * x`` exceeds
``threshold`` the result is ``x`` itself (as PyTorch, for numerical stability). Floating point
input only. Also ``genesis.nn.functional.softplus``.

Args:
{INPUT_INPUT}
    beta (float, optional): the sharpness. Default: 1.
    threshold (float, optional): above it the function is linear. Default: 20.

{RETURNS_NEW}

Example::

    >>> genesis.softplus(genesis.tensor([-1.0, 0.0, 30.0]))
    tensor([ 0.3133,  0.6931, 30.0000])
    >>> genesis.softplus(genesis.tensor([-1.0, 0.0, 2.0]), beta=2.0)
    tensor([0.0635, 0.3466, 2.0091])
""",
    "_nn.elu": f"""\
Applies ELU elementwise: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere. Floating point
input only. Also ``genesis.nn.functional.elu``.

Args:
{INPUT_INPUT}
    alpha (float, optional): the value the negative side tends to, negated. Default: 1.
{INPLACE}

{RETURNS_NEW_OR_INPUT}

Example::

    >>> genesis.elu(genesis.tensor([-2.0, 0.0, 2.0]))
    tensor([-0.8647,  0.0000,  2.0000])
    >>> genesis.elu(genesis.tensor([-2.0, 0.0, 2.0]), alpha=0.5)
    tensor([-0.4323,  0.0000,  2.0000])
""",
    "_nn.elu_": _inplace_nn(
        "elu",
        "transform",
        "    alpha (float, optional): as in ``elu``. Default: 1.",
        ">>> x = genesis.tensor([-2.0, 2.0])",
        ">>> genesis.nn.functional.elu_(x) is x",
        "True",
    ),
    "_nn.leaky_relu": f"""\
Applies the leaky ReLU elementwise: ``x`` where ``x > 0``, ``negative_slope * x`` elsewhere.
Floating point input only. Also ``genesis.nn.functional.leaky_relu``.

Args:
{INPUT_INPUT}
    negative_slope (float, optional): the slope below zero. Default: 0.01.
{INPLACE}

{RETURNS_NEW_OR_INPUT}

Example::

    >>> genesis.leaky_relu(genesis.tensor([-2.0, 0.0, 2.0]), 0.1)
    tensor([-0.2000,  0.0000,  2.0000])
""",
    "_nn.leaky_relu_": _inplace_nn(
        "leaky_relu",
        "transform",
        "    negative_slope (float, optional): as in ``leaky_relu``. Default: 0.01.",
        ">>> genesis.nn.functional.leaky_relu_(genesis.tensor([-2.0, 2.0]), 0.5)",
        "tensor([-1.,  2.])",
    ),
    "_nn.hardtanh": f"""\
Clamps each element to ``[min_val, max_val]`` (``clamp`` under the activation's name); every
dtype but bool. Also ``genesis.nn.functional.hardtanh``.

Args:
{INPUT_INPUT}
    min_val (Number, optional): the lower bound. Default: -1.
    max_val (Number, optional): the upper bound, at least min_val. Default: 1.
{INPLACE}

{RETURNS_NEW_OR_INPUT}

Example::

    >>> genesis.hardtanh(genesis.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
""",
    "_nn.hardtanh_": _inplace_nn(
        "hardtanh",
        "clamp",
        "    min_val (Number, optional): the lower bound. Default: -1.\n"
        "    max_val (Number, optional): the upper bound. Default: 1.",
        ">>> genesis.nn.functional.hardtanh_(genesis.tensor([-2.0, 0.5, 2.0]), 0.0, 1.0)",
        "tensor([0.0000, 0.5000, 1.0000])",
    ),
    "Tensor.lerp lerp": f"""\
Linear interpolation, ``input + weight * (end - input)``, elementwise with broadcasting. As in
PyTorch, where ``|weight| >= 0.5`` it computes ``end - (end - input) * (1 - weight)``, so a
weight of 1 gives ``end`` exactly. Floating point tensors of one dtype (a tensor weight too).
``genesis.lerp(a, b, w)`` and ``a.lerp(b, w)`` are the same.

Args:
    input (Tensor): the start (``self`` for the method).
    end (Tensor): the end.
    weight (float or Tensor): the weight.
{OUT_CAST}

{RETURNS_NEW_OR_OUT}

Example::

    >>> genesis.lerp(genesis.tensor([0.0, 1.0]), genesis.tensor([10.0, 3.0]), 0.25)
    tensor([2.5000, 1.5000])
""",
    "Tensor.lerp_": f"""\
The in-place ``lerp``: interpolates this tensor towards ``end`` and returns it.

Args:
    end (Tensor): the end.
    weight (float or Tensor): the weight.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([0.0, 1.0]).lerp_(genesis.tensor([10.0, 3.0]), 0.5)
    tensor([5., 2.])
""",
    "Tensor.addcmul addcmul": f"""\
Computes ``input + value * tensor1 * tensor2`` elementwise, with broadcasting and type
promotion over the three tensors. For integer results ``value`` must be an integer.

Args:
    input (Tensor): the tensor added to (``self`` for the method).
    tensor1 (Tensor): the first factor.
    tensor2 (Tensor): the second factor.
    value (Number, optional): keyword-only, the scale of the product. Default: 1.
{OUT_CAST}

{RETURNS_NEW_OR_OUT}

Example::

    >>> genesis.addcmul(genesis.tensor([1.0, 2.0]), genesis.tensor([3.0, 4.0]), genesis.tensor([0.5, 2.0]), value=2)
    tensor([ 4., 18.])
""",
    "Tensor.addcmul_": f"""\
The in-place ``addcmul``: adds ``value * tensor1 * tensor2`` to this tensor and returns it.

Args:
    tensor1 (Tensor): the first factor.
    tensor2 (Tensor): the second factor.
    value (Number, optional): keyword-only scale. Default: 1.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, 2.0]).addcmul_(genesis.tensor([3.0, 4.0]), genesis.tensor([0.5, 2.0]))
    tensor([ 2.5000, 10.0000])
""",
    "Tensor.addcdiv addcdiv": f"""\
Computes ``input + value * tensor1 / tensor2`` elementwise, with broadcasting and type
promotion; integer division is refused (TypeError), as in PyTorch.

Args:
    input (Tensor): the tensor added to (``self`` for the method).
    tensor1 (Tensor): the numerator.
    tensor2 (Tensor): the denominator.
    value (Number, optional): keyword-only, the scale of the quotient. Default: 1.
{OUT_CAST}

{RETURNS_NEW_OR_OUT}

Example::

    >>> genesis.addcdiv(genesis.tensor([1.0, 2.0]), genesis.tensor([3.0, 4.0]), genesis.tensor([2.0, 8.0]), value=0.5)
    tensor([1.7500, 2.2500])
""",
    "Tensor.addcdiv_": f"""\
The in-place ``addcdiv``: adds ``value * tensor1 / tensor2`` to this tensor and returns it.

Args:
    tensor1 (Tensor): the numerator.
    tensor2 (Tensor): the denominator.
    value (Number, optional): keyword-only scale. Default: 1.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, 2.0]).addcdiv_(genesis.tensor([3.0, 4.0]), genesis.tensor([2.0, 8.0]))
    tensor([2.5000, 2.5000])
""",
    "Tensor.clamp_min clamp_min": _clamp_side(
        "min",
        "below",
        "max(input, min)",
        ">>> genesis.clamp_min(genesis.tensor([-2.0, 0.5, 2.0]), 0.0)",
        "tensor([0.0000, 0.5000, 2.0000])",
    ),
    "Tensor.clamp_min_": f"""\
The in-place ``clamp_min``; returns this tensor.

Args:
    min (Number or Tensor): the lower bound.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-2, 1, 3]).clamp_min_(0)
    tensor([0, 1, 3])
""",
    "Tensor.clamp_max clamp_max": _clamp_side(
        "max",
        "above",
        "min(input, max)",
        ">>> genesis.clamp_max(genesis.tensor([-2.0, 0.5, 2.0]), 1.0)",
        "tensor([-2.0000,  0.5000,  1.0000])",
    ),
    "Tensor.clamp_max_": f"""\
The in-place ``clamp_max``; returns this tensor.

Args:
    max (Number or Tensor): the upper bound.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-2, 1, 3]).clamp_max_(2)
    tensor([-2,  1,  2])
""",
    "Tensor.nan_to_num nan_to_num": f"""\
Replaces NaN by ``nan``, positive infinity by ``posinf`` and negative infinity by ``neginf``;
the infinities default to the largest and lowest finite values of the dtype. Integer and bool
input is returned as a copy.

Args:
{INPUT_SELF}
    nan (float, optional): the value for NaN. Default: 0.
    posinf (float, optional): the value for +inf. Default: None (the dtype's largest).
    neginf (float, optional): the value for -inf. Default: None (the dtype's lowest).
{OUT_CAST}

{RETURNS_NEW_OR_OUT}

Example::

    >>> x = genesis.tensor([float('nan'), float('inf'), -float('inf'), 1.5])
    >>> genesis.nan_to_num(x, posinf=9.0)
    tensor([ 0.0000e+00,  9.0000e+00, -3.4028e+38,  1.5000e+00])
    >>> x.nan_to_num().tolist()[1] == genesis.finfo(genesis.float32).max
    True
""",
    "Tensor.nan_to_num_": f"""\
The in-place ``nan_to_num``; returns this tensor.

Args:
    nan (float, optional): the value for NaN. Default: 0.
    posinf (float, optional): the value for +inf. Default: None.
    neginf (float, optional): the value for -inf. Default: None.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([float('nan'), 2.0]).nan_to_num_(nan=-1.0)
    tensor([-1.,  2.])
""",
    "Tensor.isclose isclose": f"""\
Tests elementwise whether ``|input - other| <= atol + rtol * |other|`` (with broadcasting);
equal values (infinities of one sign too) are close, NaNs only with ``equal_nan``. Both
tensors must have one dtype; integers compare in float32.

{_ARGS_CLOSE}

Returns:
    Tensor: a bool tensor of the broadcast shape.

Example::

    >>> genesis.isclose(genesis.tensor([1.0, 1.001, float('nan')]), genesis.tensor([1.0, 1.0, float('nan')]), rtol=1e-4)
    tensor([ True, False, False])
""",
    "Tensor.allclose allclose": f"""\
Whether ``isclose`` holds for every element (as a Python bool).

{_ARGS_CLOSE}

Returns:
    bool: True when every pair is close.

Example::

    >>> genesis.allclose(genesis.tensor([1.0, 2.0]), genesis.tensor([1.0, 2.0000001]))
    True
""",
    "Tensor.equal equal": f"""\
Whether the two tensors have the same shape and equal elements (a Python bool); values compare
with type promotion, and NaN equals nothing.

Args:
    input (Tensor): the first tensor (``self`` for the method).
{OTHER_TENSOR}

Returns:
    bool: True when shapes and elements are equal.

Example::

    >>> genesis.equal(genesis.tensor([1, 2]), genesis.tensor([1, 2]))
    True
    >>> genesis.equal(genesis.tensor([1, 2]), genesis.tensor([[1, 2]]))
    False
""",
}
