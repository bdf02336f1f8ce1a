"""Docstrings of the elementwise ops bound in csrc/python/math_functions.cpp."""

from ._fragments import (
    INPUT_OPERAND,
    INPUT_SELF,
    OTHER_OPERAND,
    OUT_CAST,
    RETURNS_BROADCAST_OR_OUT,
    RETURNS_INPUT_SHAPE_OR_OUT,
    RETURNS_SELF,
    inplace_unary,
    unary_float,
)

DOCS = {
    "Tensor.floor floor": f"""\
Rounds each element down to the nearest integer, elementwise. Integer input is returned
unchanged (a new tensor of its dtype); bool input raises TypeError, as in PyTorch.
``genesis.floor(x)`` and ``x.floor()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.floor(genesis.tensor([-1.5, 0.5, 2.7]))
    tensor([-2.,  0.,  2.])
""",
    "Tensor.floor_": inplace_unary("floor", "[-1.5, 0.5, 2.7]", "tensor([-2.,  0.,  2.])"),
    "Tensor.ceil ceil": f"""\
Rounds each element up to the nearest integer, elementwise. Integer input is returned unchanged
(a new tensor of its dtype); bool input raises TypeError, as in PyTorch. ``genesis.ceil(x)``
and ``x.ceil()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.ceil(genesis.tensor([-1.5, 0.5, 2.7]))
    tensor([-1.,  1.,  3.])
""",
    "Tensor.ceil_": inplace_unary("ceil", "[-1.5, 0.5, 2.7]", "tensor([-1.,  1.,  3.])"),
    "Tensor.trunc trunc": f"""\
Rounds each element toward zero to an integer, elementwise. Integer input is returned unchanged
(a new tensor of its dtype); bool input raises TypeError, as in PyTorch. ``genesis.trunc(x)``
and ``x.trunc()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.trunc(genesis.tensor([-1.5, 0.5, 2.7]))
    tensor([-1.,  0.,  2.])
""",
    "Tensor.trunc_": inplace_unary("trunc", "[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])"),
    "Tensor.fix fix": f"""\
Rounds each element toward zero to an integer, elementwise (an alias of trunc). Integer input
is returned unchanged (a new tensor of its dtype); bool input raises TypeError, as in PyTorch.
``genesis.fix(x)`` and ``x.fix()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.fix(genesis.tensor([-1.5, 0.5, 2.7]))
    tensor([-1.,  0.,  2.])
""",
    "Tensor.fix_": inplace_unary("fix", "[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])"),
    "Tensor.frac frac": f"""\
Returns the fractional part of each element, ``input - trunc(input)``. Floating point input
only: integer and bool input raise TypeError, as in PyTorch. ``genesis.frac(x)`` and
``x.frac()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.frac(genesis.tensor([-1.5, 0.25, 2.0]))
    tensor([-0.5000,  0.2500,  0.0000])
""",
    "Tensor.frac_": inplace_unary(
        "frac", "[-1.5, 0.25, 2.0]", "tensor([-0.5000,  0.2500,  0.0000])"
    ),
    "Tensor.sign sign": f"""\
Returns the sign of each element: -1, 0 or 1 (NaN gives 0, as PyTorch). Every dtype, bool
included (``sign(True)`` is True); the result keeps the input's dtype. ``genesis.sign(x)`` and
``x.sign()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.sign(genesis.tensor([-2.5, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
""",
    "Tensor.sign_": inplace_unary("sign", "[-2.5, 0.0, 3.0]", "tensor([-1.,  0.,  1.])"),
    "Tensor.sgn sgn": f"""\
Returns the sign of each element: -1, 0 or 1; for real tensors the same as ``sign``. Every
dtype, bool included (``sign(True)`` is True); the result keeps the input's dtype.
``genesis.sgn(x)`` and ``x.sgn()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.sgn(genesis.tensor([-2, 0, 7]))
    tensor([-1,  0,  1])
""",
    "Tensor.sgn_": inplace_unary("sgn", "[-2, 0, 7]", "tensor([-1,  0,  1])"),
    "Tensor.square square": f"""\
Returns the square of each element, ``input * input``. The result keeps the input's dtype
(integers wrap on overflow); bool input gives int64, as PyTorch's ``pow(x, 2)``.
``genesis.square(x)`` and ``x.square()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.square(genesis.tensor([-2, 3]))
    tensor([4, 9])
""",
    "Tensor.square_": inplace_unary("square", "[-2, 3]", "tensor([4, 9])"),
    "Tensor.reciprocal reciprocal": unary_float(
        "reciprocal",
        "Returns ``1 / input`` elementwise.",
        "[2.0, -4.0, 0.0]",
        "tensor([ 0.5000, -0.2500,     inf])",
    ),
    "Tensor.reciprocal_": inplace_unary(
        "reciprocal", "[2.0, -4.0, 0.0]", "tensor([ 0.5000, -0.2500,     inf])"
    ),
    "Tensor.log1p log1p": unary_float(
        "log1p",
        "Returns ``log(1 + input)`` elementwise, accurate for small inputs.",
        "[0.0, 1e-8, 1.0]",
        "tensor([0.0000e+00, 1.0000e-08, 6.9315e-01])",
    ),
    "Tensor.log1p_": inplace_unary(
        "log1p", "[0.0, 1e-8, 1.0]", "tensor([0.0000e+00, 1.0000e-08, 6.9315e-01])"
    ),
    "Tensor.expm1 expm1": unary_float(
        "expm1",
        "Returns ``exp(input) - 1`` elementwise, accurate for small inputs.",
        "[0.0, 1e-8, 1.0]",
        "tensor([0.0000e+00, 1.0000e-08, 1.7183e+00])",
    ),
    "Tensor.expm1_": inplace_unary(
        "expm1", "[0.0, 1e-8, 1.0]", "tensor([0.0000e+00, 1.0000e-08, 1.7183e+00])"
    ),
    "Tensor.log2 log2": unary_float(
        "log2",
        "Returns the base-2 logarithm of each element.",
        "[1.0, 8.0, 0.5]",
        "tensor([ 0.,  3., -1.])",
    ),
    "Tensor.log2_": inplace_unary("log2", "[1.0, 8.0, 0.5]", "tensor([ 0.,  3., -1.])"),
    "Tensor.log10 log10": unary_float(
        "log10",
        "Returns the base-10 logarithm of each element.",
        "[1.0, 1000.0, 0.1]",
        "tensor([ 0.,  3., -1.])",
    ),
    "Tensor.log10_": inplace_unary("log10", "[1.0, 1000.0, 0.1]", "tensor([ 0.,  3., -1.])"),
    "Tensor.exp2 exp2": unary_float(
        "exp2",
        "Returns ``2 ** input`` elementwise.",
        "[0.0, 3.0, -1.0]",
        "tensor([1.0000, 8.0000, 0.5000])",
    ),
    "Tensor.exp2_": inplace_unary("exp2", "[0.0, 3.0, -1.0]", "tensor([1.0000, 8.0000, 0.5000])"),
    "Tensor.erf erf": unary_float(
        "erf",
        "Returns the error function of each element.",
        "[0.0, 0.5, -2.0]",
        "tensor([ 0.0000,  0.5205, -0.9953])",
    ),
    "Tensor.erf_": inplace_unary("erf", "[0.0, 0.5, -2.0]", "tensor([ 0.0000,  0.5205, -0.9953])"),
    "Tensor.erfc erfc": f"""\
Returns the complementary error function ``1 - erf(input)`` of each element. Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.erfc(x)`` and ``x.erfc()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.erfc(genesis.tensor([0.0, 0.5, -2.0]))
    tensor([1.0000, 0.4795, 1.9953])
""",
    "Tensor.erfc_": inplace_unary("erfc", "[0.0, 0.5, -2.0]", "tensor([1.0000, 0.4795, 1.9953])"),
    "Tensor.erfinv erfinv": f"""\
Returns the inverse error function of each element (``erf(erfinv(y)) == y``). Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.erfinv(x)`` and ``x.erfinv()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.erfinv(genesis.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.4769,   -inf])
""",
    "Tensor.erfinv_": inplace_unary(
        "erfinv", "[0.0, 0.5, -1.0]", "tensor([0.0000, 0.4769,   -inf])"
    ),
    "Tensor.lgamma lgamma": f"""\
Returns the natural logarithm of the absolute value of the gamma function. Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.lgamma(x)`` and ``x.lgamma()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.lgamma(genesis.tensor([0.5, 1.0, 10.0]))
    tensor([ 0.5724,  0.0000, 12.8018])
""",
    "Tensor.lgamma_": inplace_unary(
        "lgamma", "[0.5, 1.0, 10.0]", "tensor([ 0.5724,  0.0000, 12.8018])"
    ),
    "Tensor.digamma digamma": unary_float(
        "digamma",
        "Returns the digamma function (the derivative of lgamma) of each element.",
        "[1.0, 0.5, -1.5]",
        "tensor([-0.5772, -1.9635,  0.7032])",
    ),
    "Tensor.digamma_": inplace_unary(
        "digamma", "[1.0, 0.5, -1.5]", "tensor([-0.5772, -1.9635,  0.7032])"
    ),
    "Tensor.polygamma polygamma": f"""\
Returns the n-th derivative of the digamma function at each element: ``polygamma(0, x)`` is
``digamma(x)``, ``polygamma(1, x)`` the trigamma function. Integer and bool input gives float32;
floating point input keeps its dtype (16-bit floats compute in float32 and round once). At the
poles (0, -1, -2, ...) odd n gives inf and even n -inf. Differentiable: the derivative of
``polygamma(n, x)`` is ``polygamma(n + 1, x)``. ``genesis.polygamma(n, x)`` and
``x.polygamma(n)`` are the same.

Args:
    n (int): the order of the derivative, at least 0 (a negative n raises ValueError).
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.polygamma(1, genesis.tensor([1.0, 0.5, 2.0]))
    tensor([1.6449, 4.9348, 0.6449])
    >>> genesis.tensor([1.0, 0.5, 2.0]).polygamma(2)
    tensor([ -2.4041, -16.8288,  -0.4041])
""",
    "Tensor.polygamma_": f"""\
Replaces each element x by ``polygamma(n, x)``; returns this tensor (the in-place
``polygamma``). The result must be castable to this tensor's dtype (a float result cannot be
written into an integer tensor: RuntimeError).

Args:
    n (int): the order of the derivative, at least 0.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, 0.5, 2.0]).polygamma_(1)
    tensor([1.6449, 4.9348, 0.6449])
""",
    "Tensor.sinh sinh": unary_float(
        "sinh",
        "Returns the hyperbolic sine of each element.",
        "[0.0, 1.0, -2.0]",
        "tensor([ 0.0000,  1.1752, -3.6269])",
    ),
    "Tensor.sinh_": inplace_unary(
        "sinh", "[0.0, 1.0, -2.0]", "tensor([ 0.0000,  1.1752, -3.6269])"
    ),
    "Tensor.cosh cosh": unary_float(
        "cosh",
        "Returns the hyperbolic cosine of each element.",
        "[0.0, 1.0, -2.0]",
        "tensor([1.0000, 1.5431, 3.7622])",
    ),
    "Tensor.cosh_": inplace_unary("cosh", "[0.0, 1.0, -2.0]", "tensor([1.0000, 1.5431, 3.7622])"),
    "Tensor.asin asin": unary_float(
        "asin",
        "Returns the arcsine of each element (NaN outside [-1, 1]).",
        "[0.0, 1.0, 2.0]",
        "tensor([0.0000, 1.5708,    nan])",
    ),
    "Tensor.asin_": inplace_unary("asin", "[0.0, 1.0, 2.0]", "tensor([0.0000, 1.5708,    nan])"),
    "Tensor.arcsin arcsin": f"""\
Returns the arcsine of each element (an alias of asin; NaN outside [-1, 1]). Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.arcsin(x)`` and ``x.arcsin()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.arcsin(genesis.tensor([0.0, 0.5]))
    tensor([0.0000, 0.5236])
""",
    "Tensor.arcsin_": inplace_unary("arcsin", "[0.0, 0.5]", "tensor([0.0000, 0.5236])"),
    "Tensor.acos acos": unary_float(
        "acos",
        "Returns the arccosine of each element (NaN outside [-1, 1]).",
        "[1.0, 0.0, -2.0]",
        "tensor([0.0000, 1.5708,    nan])",
    ),
    "Tensor.acos_": inplace_unary("acos", "[1.0, 0.0, -2.0]", "tensor([0.0000, 1.5708,    nan])"),
    "Tensor.arccos arccos": f"""\
Returns the arccosine of each element (an alias of acos; NaN outside [-1, 1]). Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.arccos(x)`` and ``x.arccos()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.arccos(genesis.tensor([1.0, 0.5]))
    tensor([0.0000, 1.0472])
""",
    "Tensor.arccos_": inplace_unary("arccos", "[1.0, 0.5]", "tensor([0.0000, 1.0472])"),
    "Tensor.atan atan": unary_float(
        "atan",
        "Returns the arctangent of each element.",
        "[0.0, 1.0, -10.0]",
        "tensor([ 0.0000,  0.7854, -1.4711])",
    ),
    "Tensor.atan_": inplace_unary(
        "atan", "[0.0, 1.0, -10.0]", "tensor([ 0.0000,  0.7854, -1.4711])"
    ),
    "Tensor.arctan arctan": unary_float(
        "arctan",
        "Returns the arctangent of each element (an alias of atan).",
        "[0.0, 1.0]",
        "tensor([0.0000, 0.7854])",
    ),
    "Tensor.arctan_": inplace_unary("arctan", "[0.0, 1.0]", "tensor([0.0000, 0.7854])"),
    "Tensor.asinh asinh": unary_float(
        "asinh",
        "Returns the inverse hyperbolic sine of each element.",
        "[0.0, 1.0, -2.0]",
        "tensor([ 0.0000,  0.8814, -1.4436])",
    ),
    "Tensor.asinh_": inplace_unary(
        "asinh", "[0.0, 1.0, -2.0]", "tensor([ 0.0000,  0.8814, -1.4436])"
    ),
    "Tensor.arcsinh arcsinh": unary_float(
        "arcsinh",
        "Returns the inverse hyperbolic sine of each element (an alias of asinh).",
        "[0.0, 1.0]",
        "tensor([0.0000, 0.8814])",
    ),
    "Tensor.arcsinh_": inplace_unary("arcsinh", "[0.0, 1.0]", "tensor([0.0000, 0.8814])"),
    "Tensor.acosh acosh": unary_float(
        "acosh",
        "Returns the inverse hyperbolic cosine of each element (NaN below 1).",
        "[1.0, 2.0, 0.5]",
        "tensor([0.0000, 1.3170,    nan])",
    ),
    "Tensor.acosh_": inplace_unary("acosh", "[1.0, 2.0, 0.5]", "tensor([0.0000, 1.3170,    nan])"),
    "Tensor.arccosh arccosh": f"""\
Returns the inverse hyperbolic cosine of each element (an alias of acosh). Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.arccosh(x)`` and ``x.arccosh()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.arccosh(genesis.tensor([1.0, 2.0]))
    tensor([0.0000, 1.3170])
""",
    "Tensor.arccosh_": inplace_unary("arccosh", "[1.0, 2.0]", "tensor([0.0000, 1.3170])"),
    "Tensor.atanh atanh": f"""\
Returns the inverse hyperbolic tangent of each element (NaN outside [-1, 1]). Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.atanh(x)`` and ``x.atanh()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.atanh(genesis.tensor([0.0, 0.5, 1.0]))
    tensor([0.0000, 0.5493,    inf])
""",
    "Tensor.atanh_": inplace_unary("atanh", "[0.0, 0.5, 1.0]", "tensor([0.0000, 0.5493,    inf])"),
    "Tensor.arctanh arctanh": f"""\
Returns the inverse hyperbolic tangent of each element (an alias of atanh). Integer and bool
input gives float32; floating point input keeps its dtype (16-bit floats compute in float32 and
round once). ``genesis.arctanh(x)`` and ``x.arctanh()`` are the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.arctanh(genesis.tensor([0.0, 0.5]))
    tensor([0.0000, 0.5493])
""",
    "Tensor.arctanh_": inplace_unary("arctanh", "[0.0, 0.5]", "tensor([0.0000, 0.5493])"),
    "Tensor.round round": f"""\
Rounds each element to the nearest integer, halves to even (as PyTorch and NumPy), or to
``decimals`` decimal places. Integer input is returned unchanged; bool input, and integer input
with nonzero ``decimals``, raise TypeError. With ``decimals`` the result is PyTorch's ``rint(x
* 10**decimals) / 10**decimals``, so it can differ from the decimal rounding of the printed
value.

Args:
{INPUT_SELF}
    decimals (int, optional): keyword-only number of decimal places (negative: tens, hundreds...).
        Default: 0.
{OUT_CAST}

Returns:
    Tensor: a new tensor of the input's shape and dtype, or ``out``.

Example::

    >>> genesis.round(genesis.tensor([0.5, 1.5, -2.5, 2.7]))
    tensor([ 0.,  2., -2.,  3.])
    >>> genesis.round(genesis.tensor([1.2345, 123.45]), decimals=2)
    tensor([  1.2300, 123.4500])
""",
    "Tensor.round_": f"""\
Rounds each element in place (halves to even, or to ``decimals`` places); returns this tensor.

Args:
    decimals (int, optional): keyword-only number of decimal places. Default: 0.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([0.5, 1.5, 2.25]).round_()
    tensor([0., 2., 2.])
""",
    "Tensor.atan2 atan2": f"""\
Returns the arctangent of ``input / other`` in the quadrant of the point (other, input).
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Integer and bool operands give float32.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.atan2(genesis.tensor([1.0, -1.0]), genesis.tensor([-1.0, 0.0]))
    tensor([ 2.3562, -1.5708])
""",
    "Tensor.atan2_": f"""\
The in-place ``atan2``: writes ``atan2(self, other)`` into this tensor and returns it. The
result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and ``other``
must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, -1.0]).atan2_(genesis.tensor([-1.0, 0.0]))
    tensor([ 2.3562, -1.5708])
""",
    "Tensor.arctan2 arctan2": f"""\
Returns the arctangent of ``input / other`` in the right quadrant (an alias of atan2).
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Integer and bool operands give float32.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.arctan2(genesis.tensor([1.0]), genesis.tensor([1.0]))
    tensor([0.7854])
""",
    "Tensor.arctan2_": f"""\
The in-place ``arctan2``: writes ``arctan2(self, other)`` into this tensor and returns it. The
result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and ``other``
must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0]).arctan2_(genesis.tensor([1.0]))
    tensor([0.7854])
""",
    "Tensor.hypot hypot": f"""\
Returns ``sqrt(input ** 2 + other ** 2)`` elementwise, without overflow in between.
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Floating point operands only (TypeError otherwise, as PyTorch).

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.hypot(genesis.tensor([3.0, 5.0]), genesis.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
""",
    "Tensor.hypot_": f"""\
The in-place ``hypot``: writes ``hypot(self, other)`` into this tensor and returns it. The
result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and ``other``
must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([3.0, 5.0]).hypot_(genesis.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
""",
    "Tensor.fmod fmod": f"""\
Returns the remainder of ``input / other`` with the sign of the dividend (C's fmod).
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Compare ``remainder``, whose result has the sign of the
divisor. Integer ``x fmod 0`` gives 0 (PyTorch's CPU raises); bool is refused (TypeError).

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.fmod(genesis.tensor([5, -5]), 3)
    tensor([ 2, -2])
""",
    "Tensor.fmod_": f"""\
The in-place ``fmod``: writes ``fmod(self, other)`` into this tensor and returns it. The result
dtype must be castable to this tensor's dtype (RuntimeError otherwise), and ``other`` must
broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([5, -5]).fmod_(3)
    tensor([ 2, -2])
""",
    "Tensor.copysign copysign": f"""\
Returns the magnitude of ``input`` with the sign of ``other``, elementwise. Elementwise, with
NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``); either operand may
be a number. Integer and bool operands give float32.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.copysign(genesis.tensor([1.0, -2.0]), genesis.tensor([-0.0, 3.0]))
    tensor([-1.,  2.])
""",
    "Tensor.copysign_": f"""\
The in-place ``copysign``: writes ``copysign(self, other)`` into this tensor and returns it.
The result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and
``other`` must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, -2.0]).copysign_(genesis.tensor([-0.0, 3.0]))
    tensor([-1.,  2.])
""",
    "Tensor.heaviside heaviside": f"""\
Returns the Heaviside step function: 0 where input < 0, 1 where input > 0, ``values`` where
input == 0. Elementwise, with NumPy broadcasting and PyTorch's type promotion
(``genesis.result_type``); either operand may be a number. Both tensors must have the same
dtype (TypeError otherwise, as PyTorch); NaN input gives 0.

Args:
{INPUT_OPERAND}
    values (Tensor or Number): the second operand.
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.heaviside(genesis.tensor([-1.5, 0.0, 2.0]), genesis.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
""",
    "Tensor.heaviside_": f"""\
The in-place ``heaviside``: writes ``heaviside(self, values)`` into this tensor and returns it.
The result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and
``values`` must broadcast to its shape.

Args:
    values (Tensor or Number): the second operand.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-1.5, 0.0, 2.0]).heaviside_(genesis.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
""",
    "Tensor.logical_and logical_and": f"""\
Returns the elementwise logical AND of the operands (nonzero is True) as a bool tensor.
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Any dtypes; numbers count as nonzero or zero.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.logical_and(genesis.tensor([1, 0, 2]), genesis.tensor([True, True, False]))
    tensor([ True, False, False])
""",
    "Tensor.logical_and_": f"""\
The in-place ``logical_and``: writes ``logical_and(self, other)`` into this tensor and returns
it. The result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and
``other`` must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1, 0, 2]).logical_and_(genesis.tensor([True, True, False]))
    tensor([1, 0, 0])
""",
    "Tensor.logical_or logical_or": f"""\
Returns the elementwise logical OR of the operands (nonzero is True) as a bool tensor.
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Any dtypes; numbers count as nonzero or zero.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.logical_or(genesis.tensor([1, 0, 0]), genesis.tensor([0.0, 0.0, 3.0]))
    tensor([ True, False,  True])
""",
    "Tensor.logical_or_": f"""\
The in-place ``logical_or``: writes ``logical_or(self, other)`` into this tensor and returns
it. The result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and
``other`` must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1, 0, 0]).logical_or_(genesis.tensor([0.0, 0.0, 3.0]))
    tensor([1, 0, 1])
""",
    "Tensor.logical_xor logical_xor": f"""\
Returns the elementwise logical XOR of the operands (nonzero is True) as a bool tensor.
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Any dtypes; numbers count as nonzero or zero.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.logical_xor(genesis.tensor([1, 0, 2]), genesis.tensor([1, 1, 0]))
    tensor([False,  True,  True])
""",
    "Tensor.logical_xor_": f"""\
The in-place ``logical_xor``: writes ``logical_xor(self, other)`` into this tensor and returns
it. The result dtype must be castable to this tensor's dtype (RuntimeError otherwise), and
``other`` must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1, 0, 2]).logical_xor_(genesis.tensor([1, 1, 0]))
    tensor([0, 1, 1])
""",
    "Tensor.bitwise_left_shift bitwise_left_shift": f"""\
Shifts the bits of ``input`` left by ``other``, elementwise. Elementwise, with NumPy
broadcasting and PyTorch's type promotion (``genesis.result_type``); either operand may be a
number. Integer dtypes only (TypeError for floats and bool). A shift by a negative amount or by
the width of the type or more gives 0, as PyTorch.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.bitwise_left_shift(genesis.tensor([1, 3]), genesis.tensor([2, 1]))
    tensor([4, 6])
""",
    "Tensor.bitwise_left_shift_": f"""\
The in-place ``bitwise_left_shift``: writes ``bitwise_left_shift(self, other)`` into this
tensor and returns it. The result dtype must be castable to this tensor's dtype (RuntimeError
otherwise), and ``other`` must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1, 3]).bitwise_left_shift_(genesis.tensor([2, 1]))
    tensor([4, 6])
""",
    "Tensor.bitwise_right_shift bitwise_right_shift": f"""\
Shifts the bits of ``input`` right by ``other`` (arithmetic for signed types), elementwise.
Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``);
either operand may be a number. Integer dtypes only (TypeError for floats and bool). A shift by
a negative amount or by the width of the type or more gives 0, or -1 for negative signed
values, as PyTorch.

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.bitwise_right_shift(genesis.tensor([16, -16]), 2)
    tensor([ 4, -4])
""",
    "Tensor.bitwise_right_shift_": f"""\
The in-place ``bitwise_right_shift``: writes ``bitwise_right_shift(self, other)`` into this
tensor and returns it. The result dtype must be castable to this tensor's dtype (RuntimeError
otherwise), and ``other`` must broadcast to its shape.

Args:
{OTHER_OPERAND}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([16, -16]).bitwise_right_shift_(2)
    tensor([ 4, -4])
""",
    "Tensor.isnan isnan": f"""\
Returns a bool tensor that is True where ``input`` is NaN. Integer and bool tensors are never
NaN or infinite. The result has the input's shape.

Args:
{INPUT_SELF}

Returns:
    Tensor: a new bool tensor.

Example::

    >>> genesis.isnan(genesis.tensor([1.0, float('nan'), float('inf')]))
    tensor([False,  True, False])
""",
    "Tensor.isinf isinf": f"""\
Returns a bool tensor that is True where ``input`` is positive or negative infinity. Integer
and bool tensors are never NaN or infinite. The result has the input's shape.

Args:
{INPUT_SELF}

Returns:
    Tensor: a new bool tensor.

Example::

    >>> genesis.isinf(genesis.tensor([1.0, float('-inf'), float('inf')]))
    tensor([False,  True,  True])
""",
    "Tensor.isposinf isposinf": f"""\
Returns a bool tensor that is True where ``input`` is positive infinity. Integer and bool
tensors are never NaN or infinite. The result has the input's shape.

Args:
{INPUT_SELF}
{OUT_CAST}

Returns:
    Tensor: a new bool tensor, or ``out``.

Example::

    >>> genesis.isposinf(genesis.tensor([1.0, float('-inf'), float('inf')]))
    tensor([False, False,  True])
""",
    "Tensor.isneginf isneginf": f"""\
Returns a bool tensor that is True where ``input`` is negative infinity. Integer and bool
tensors are never NaN or infinite. The result has the input's shape.

Args:
{INPUT_SELF}
{OUT_CAST}

Returns:
    Tensor: a new bool tensor, or ``out``.

Example::

    >>> genesis.isneginf(genesis.tensor([1.0, float('-inf'), float('inf')]))
    tensor([False,  True, False])
""",
    "Tensor.isfinite isfinite": f"""\
Returns a bool tensor that is True where ``input`` is neither infinite nor NaN. Integer and
bool tensors are never NaN or infinite. The result has the input's shape.

Args:
{INPUT_SELF}

Returns:
    Tensor: a new bool tensor.

Example::

    >>> genesis.isfinite(genesis.tensor([1.0, float('nan'), float('inf')]))
    tensor([ True, False, False])
""",
}
