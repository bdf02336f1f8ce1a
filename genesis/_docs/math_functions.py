"""Docstrings of the elementwise ops bound in csrc/python/math_functions.cpp."""

from ._fragments import (
    INPUT_SELF,
    OUT_CAST,
    RETURNS_INPUT_SHAPE_OR_OUT,
    RETURNS_SELF,
    binary,
    fill,
    inplace_binary,
    inplace_unary,
    unary,
    unary_float,
)

_INTEGER_KEPT = (
    "Integer input is returned unchanged (a new tensor of its dtype); bool input raises "
    "TypeError, as in PyTorch."
)
_LOGICAL = "Returns the elementwise logical {} of the operands (nonzero is True) as a bool tensor."


def _float_test(name: str, what: str, example_input: str, output: str, out: bool = False) -> str:
    """genesis.<name> and Tensor.<name>: a bool tensor, True where ``input`` is ``what``."""
    paragraph = (
        f"Returns a bool tensor that is True where ``input`` is {what}. Integer and bool tensors "
        "are never NaN or infinite. The result has the input's shape."
    )
    args = f"{INPUT_SELF}\n{OUT_CAST}" if out else INPUT_SELF
    returns = "a new bool tensor, or ``out``" if out else "a new bool tensor"
    return (
        f"{fill(paragraph)}\n\nArgs:\n{args}\n\nReturns:\n    Tensor: {returns}.\n\n"
        f"Example::\n\n    >>> genesis.{name}(genesis.tensor({example_input}))\n    {output}\n"
    )


DOCS = {
    "Tensor.floor floor": unary(
        "floor",
        f"Rounds each element down to the nearest integer, elementwise. {_INTEGER_KEPT}",
        "[-1.5, 0.5, 2.7]",
        "tensor([-2.,  0.,  2.])",
    ),
    "Tensor.floor_": inplace_unary("floor", "[-1.5, 0.5, 2.7]", "tensor([-2.,  0.,  2.])"),
    "Tensor.ceil ceil": unary(
        "ceil",
        f"Rounds each element up to the nearest integer, elementwise. {_INTEGER_KEPT}",
        "[-1.5, 0.5, 2.7]",
        "tensor([-1.,  1.,  3.])",
    ),
    "Tensor.ceil_": inplace_unary("ceil", "[-1.5, 0.5, 2.7]", "tensor([-1.,  1.,  3.])"),
    "Tensor.trunc trunc": unary(
        "trunc",
        f"Rounds each element toward zero to an integer, elementwise. {_INTEGER_KEPT}",
        "[-1.5, 0.5, 2.7]",
        "tensor([-1.,  0.,  2.])",
    ),
    "Tensor.trunc_": inplace_unary("trunc", "[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])"),
    "Tensor.fix fix": unary(
        "fix",
        "Rounds each element toward zero to an integer, elementwise (an alias of trunc). "
        + _INTEGER_KEPT,
        "[-1.5, 0.5, 2.7]",
        "tensor([-1.,  0.,  2.])",
    ),
    "Tensor.fix_": inplace_unary("fix", "[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])"),
    "Tensor.frac frac": unary(
        "frac",
        "Returns the fractional part of each element, ``input - trunc(input)``. Floating point "
        "input only: integer and bool input raise TypeError, as in PyTorch.",
        "[-1.5, 0.25, 2.0]",
        "tensor([-0.5000,  0.2500,  0.0000])",
    ),
    "Tensor.frac_": inplace_unary(
        "frac", "[-1.5, 0.25, 2.0]", "tensor([-0.5000,  0.2500,  0.0000])"
    ),
    "Tensor.sign sign": unary(
        "sign",
        "Returns the sign of each element: -1, 0 or 1 (NaN gives 0, as PyTorch). Every dtype, "
        "bool included (``sign(True)`` is True); the result keeps the input's dtype.",
        "[-2.5, 0.0, 3.0]",
        "tensor([-1.,  0.,  1.])",
    ),
    "Tensor.sign_": inplace_unary("sign", "[-2.5, 0.0, 3.0]", "tensor([-1.,  0.,  1.])"),
    "Tensor.sgn sgn": unary(
        "sgn",
        "Returns the sign of each element: -1, 0 or 1; for real tensors the same as ``sign``. "
        "Every dtype, bool included (``sign(True)`` is True); the result keeps the input's dtype.",
        "[-2, 0, 7]",
        "tensor([-1,  0,  1])",
    ),
    "Tensor.sgn_": inplace_unary("sgn", "[-2, 0, 7]", "tensor([-1,  0,  1])"),
    "Tensor.square square": unary(
        "square",
        "Returns the square of each element, ``input * input``. The result keeps the input's "
        "dtype (integers wrap on overflow); bool input gives int64, as PyTorch's ``pow(x, 2)``.",
        "[-2, 3]",
        "tensor([4, 9])",
    ),
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
    "Tensor.erfc erfc": unary_float(
        "erfc",
        "Returns the complementary error function ``1 - erf(input)`` of each element.",
        "[0.0, 0.5, -2.0]",
        "tensor([1.0000, 0.4795, 1.9953])",
    ),
    "Tensor.erfc_": inplace_unary("erfc", "[0.0, 0.5, -2.0]", "tensor([1.0000, 0.4795, 1.9953])"),
    "Tensor.erfinv erfinv": unary_float(
        "erfinv",
        "Returns the inverse error function of each element (``erf(erfinv(y)) == y``).",
        "[0.0, 0.5, -1.0]",
        "tensor([0.0000, 0.4769,   -inf])",
    ),
    "Tensor.erfinv_": inplace_unary(
        "erfinv", "[0.0, 0.5, -1.0]", "tensor([0.0000, 0.4769,   -inf])"
    ),
    "Tensor.lgamma lgamma": unary_float(
        "lgamma",
        "Returns the natural logarithm of the absolute value of the gamma function.",
        "[0.5, 1.0, 10.0]",
        "tensor([ 0.5724,  0.0000, 12.8018])",
    ),
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
    "Tensor.arcsin arcsin": unary_float(
        "arcsin",
        "Returns the arcsine of each element (an alias of asin; NaN outside [-1, 1]).",
        "[0.0, 0.5]",
        "tensor([0.0000, 0.5236])",
    ),
    "Tensor.arcsin_": inplace_unary("arcsin", "[0.0, 0.5]", "tensor([0.0000, 0.5236])"),
    "Tensor.acos acos": unary_float(
        "acos",
        "Returns the arccosine of each element (NaN outside [-1, 1]).",
        "[1.0, 0.0, -2.0]",
        "tensor([0.0000, 1.5708,    nan])",
    ),
    "Tensor.acos_": inplace_unary("acos", "[1.0, 0.0, -2.0]", "tensor([0.0000, 1.5708,    nan])"),
    "Tensor.arccos arccos": unary_float(
        "arccos",
        "Returns the arccosine of each element (an alias of acos; NaN outside [-1, 1]).",
        "[1.0, 0.5]",
        "tensor([0.0000, 1.0472])",
    ),
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
    "Tensor.arccosh arccosh": unary_float(
        "arccosh",
        "Returns the inverse hyperbolic cosine of each element (an alias of acosh).",
        "[1.0, 2.0]",
        "tensor([0.0000, 1.3170])",
    ),
    "Tensor.arccosh_": inplace_unary("arccosh", "[1.0, 2.0]", "tensor([0.0000, 1.3170])"),
    "Tensor.atanh atanh": unary_float(
        "atanh",
        "Returns the inverse hyperbolic tangent of each element (NaN outside [-1, 1]).",
        "[0.0, 0.5, 1.0]",
        "tensor([0.0000, 0.5493,    inf])",
    ),
    "Tensor.atanh_": inplace_unary("atanh", "[0.0, 0.5, 1.0]", "tensor([0.0000, 0.5493,    inf])"),
    "Tensor.arctanh arctanh": unary_float(
        "arctanh",
        "Returns the inverse hyperbolic tangent of each element (an alias of atanh).",
        "[0.0, 0.5]",
        "tensor([0.0000, 0.5493])",
    ),
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
    "Tensor.atan2 atan2": binary(
        "atan2",
        "Returns the arctangent of ``input / other`` in the quadrant of the point (other, input).",
        "Integer and bool operands give float32.",
        "genesis.tensor([1.0, -1.0]), genesis.tensor([-1.0, 0.0])",
        "tensor([ 2.3562, -1.5708])",
    ),
    "Tensor.atan2_": inplace_binary(
        "atan2", "[1.0, -1.0]", "genesis.tensor([-1.0, 0.0])", "tensor([ 2.3562, -1.5708])"
    ),
    "Tensor.arctan2 arctan2": binary(
        "arctan2",
        "Returns the arctangent of ``input / other`` in the right quadrant (an alias of atan2).",
        "Integer and bool operands give float32.",
        "genesis.tensor([1.0]), genesis.tensor([1.0])",
        "tensor([0.7854])",
    ),
    "Tensor.arctan2_": inplace_binary(
        "arctan2", "[1.0]", "genesis.tensor([1.0])", "tensor([0.7854])"
    ),
    "Tensor.hypot hypot": binary(
        "hypot",
        "Returns ``sqrt(input ** 2 + other ** 2)`` elementwise, without overflow in between.",
        "Floating point operands only (TypeError otherwise, as PyTorch).",
        "genesis.tensor([3.0, 5.0]), genesis.tensor([4.0, 12.0])",
        "tensor([ 5., 13.])",
    ),
    "Tensor.hypot_": inplace_binary(
        "hypot", "[3.0, 5.0]", "genesis.tensor([4.0, 12.0])", "tensor([ 5., 13.])"
    ),
    "Tensor.fmod fmod": binary(
        "fmod",
        "Returns the remainder of ``input / other`` with the sign of the dividend (C's fmod).",
        "Compare ``remainder``, whose result has the sign of the divisor. Integer ``x fmod 0`` "
        "gives 0 (PyTorch's CPU raises); bool is refused (TypeError).",
        "genesis.tensor([5, -5]), 3",
        "tensor([ 2, -2])",
    ),
    "Tensor.fmod_": inplace_binary("fmod", "[5, -5]", "3", "tensor([ 2, -2])"),
    "Tensor.copysign copysign": binary(
        "copysign",
        "Returns the magnitude of ``input`` with the sign of ``other``, elementwise.",
        "Integer and bool operands give float32.",
        "genesis.tensor([1.0, -2.0]), genesis.tensor([-0.0, 3.0])",
        "tensor([-1.,  2.])",
    ),
    "Tensor.copysign_": inplace_binary(
        "copysign", "[1.0, -2.0]", "genesis.tensor([-0.0, 3.0])", "tensor([-1.,  2.])"
    ),
    "Tensor.heaviside heaviside": binary(
        "heaviside",
        "Returns the Heaviside step function: 0 where input < 0, 1 where input > 0, ``values`` "
        "where input == 0.",
        "Both tensors must have the same dtype (TypeError otherwise, as PyTorch); NaN input gives "
        "0.",
        "genesis.tensor([-1.5, 0.0, 2.0]), genesis.tensor([0.5])",
        "tensor([0.0000, 0.5000, 1.0000])",
        other="values",
    ),
    "Tensor.heaviside_": inplace_binary(
        "heaviside",
        "[-1.5, 0.0, 2.0]",
        "genesis.tensor([0.5])",
        "tensor([0.0000, 0.5000, 1.0000])",
        other="values",
    ),
    "Tensor.logical_and logical_and": binary(
        "logical_and",
        _LOGICAL.format("AND"),
        "Any dtypes; numbers count as nonzero or zero.",
        "genesis.tensor([1, 0, 2]), genesis.tensor([True, True, False])",
        "tensor([ True, False, False])",
    ),
    "Tensor.logical_and_": inplace_binary(
        "logical_and", "[1, 0, 2]", "genesis.tensor([True, True, False])", "tensor([1, 0, 0])"
    ),
    "Tensor.logical_or logical_or": binary(
        "logical_or",
        _LOGICAL.format("OR"),
        "Any dtypes; numbers count as nonzero or zero.",
        "genesis.tensor([1, 0, 0]), genesis.tensor([0.0, 0.0, 3.0])",
        "tensor([ True, False,  True])",
    ),
    "Tensor.logical_or_": inplace_binary(
        "logical_or", "[1, 0, 0]", "genesis.tensor([0.0, 0.0, 3.0])", "tensor([1, 0, 1])"
    ),
    "Tensor.logical_xor logical_xor": binary(
        "logical_xor",
        _LOGICAL.format("XOR"),
        "Any dtypes; numbers count as nonzero or zero.",
        "genesis.tensor([1, 0, 2]), genesis.tensor([1, 1, 0])",
        "tensor([False,  True,  True])",
    ),
    "Tensor.logical_xor_": inplace_binary(
        "logical_xor", "[1, 0, 2]", "genesis.tensor([1, 1, 0])", "tensor([0, 1, 1])"
    ),
    "Tensor.bitwise_left_shift bitwise_left_shift": binary(
        "bitwise_left_shift",
        "Shifts the bits of ``input`` left by ``other``, elementwise.",
        "Integer dtypes only (TypeError for floats and bool). A shift by a negative amount or by "
        "the width of the type or more gives 0, as PyTorch.",
        "genesis.tensor([1, 3]), genesis.tensor([2, 1])",
        "tensor([4, 6])",
    ),
    "Tensor.bitwise_left_shift_": inplace_binary(
        "bitwise_left_shift", "[1, 3]", "genesis.tensor([2, 1])", "tensor([4, 6])"
    ),
    "Tensor.bitwise_right_shift bitwise_right_shift": binary(
        "bitwise_right_shift",
        "Shifts the bits of ``input`` right by ``other`` (arithmetic for signed types), "
        "elementwise.",
        "Integer dtypes only (TypeError for floats and bool). A shift by a negative amount or by "
        "the width of the type or more gives 0, or -1 for negative signed values, as PyTorch.",
        "genesis.tensor([16, -16]), 2",
        "tensor([ 4, -4])",
    ),
    "Tensor.bitwise_right_shift_": inplace_binary(
        "bitwise_right_shift", "[16, -16]", "2", "tensor([ 4, -4])"
    ),
    "Tensor.isnan isnan": _float_test(
        "isnan", "NaN", "[1.0, float('nan'), float('inf')]", "tensor([False,  True, False])"
    ),
    "Tensor.isinf isinf": _float_test(
        "isinf",
        "positive or negative infinity",
        "[1.0, float('-inf'), float('inf')]",
        "tensor([False,  True,  True])",
    ),
    "Tensor.isposinf isposinf": _float_test(
        "isposinf",
        "positive infinity",
        "[1.0, float('-inf'), float('inf')]",
        "tensor([False, False,  True])",
        out=True,
    ),
    "Tensor.isneginf isneginf": _float_test(
        "isneginf",
        "negative infinity",
        "[1.0, float('-inf'), float('inf')]",
        "tensor([False,  True, False])",
        out=True,
    ),
    "Tensor.isfinite isfinite": _float_test(
        "isfinite",
        "neither infinite nor NaN",
        "[1.0, float('nan'), float('inf')]",
        "tensor([ True, False, False])",
    ),
}
