"""Docstrings of the elementwise math (csrc/python/math.cpp): genesis.add ... and Tensor.add ...
share one text each."""

from ._fragments import (
    ALPHA_OTHER,
    INPUT_DIVIDEND,
    INPUT_OPERAND,
    INPUT_SELF,
    OTHER_DIVISOR,
    OTHER_OPERAND,
    OUT_CAST,
    RETURNS_BOOL_BROADCAST,
    RETURNS_BROADCAST,
    RETURNS_FLOAT_SAME_SHAPE,
    RETURNS_INPUT_SHAPE_OR_OUT,
    RETURNS_NEW,
    RETURNS_SAME_SHAPE_DTYPE,
    RETURNS_SELF,
    comparison_alias,
    example,
    fill,
)

_ARGS_OPERANDS = f"Args:\n{INPUT_OPERAND}\n{OTHER_OPERAND}\n{OUT_CAST}"
_ARGS_DIVISION = f"Args:\n{INPUT_DIVIDEND}\n{OTHER_DIVISOR}\n{OUT_CAST}"
_FLOAT32 = "Integer and bool input gives float32."
_NAN_FALSE = "Broadcasting and promotion as in ``genesis.eq``; comparisons with NaN are False."


def _comparison(symbol: str, notes: str, *example_lines: str) -> str:
    """genesis.<name> and Tensor.<name>: the comparison ``input <symbol> other``."""
    return f"""\
Tests ``input {symbol} other`` elementwise; returns a bool tensor.

{notes}

{_ARGS_OPERANDS}

{RETURNS_BOOL_BROADCAST}

{example(*example_lines)}"""


def _bitwise(op: str, symbol: str, *example_lines: str) -> str:
    """genesis.bitwise_<op> and Tensor.bitwise_<op> (the operator ``symbol``)."""
    return f"""\
Computes the bitwise {op} of ``input`` and ``other`` (logical {op} for bool tensors).

For integer and bool operands only: floating point ones are a TypeError. Broadcasting and
promotion as in ``genesis.add``. ``x {symbol} y`` is the same.

Args:
    input (Tensor or Number): the first operand, an integer or bool (``self`` for the method).
    other (Tensor or Number): the second operand, an integer or bool.
{OUT_CAST}

{RETURNS_BROADCAST}

{example(*example_lines)}"""


def _inplace_bitwise(op: str, symbol: str, *example_lines: str) -> str:
    """Tensor.bitwise_<op>_ (the operator ``symbol=``)."""
    return f"""\
Replaces this tensor by its bitwise {op} with ``other`` and returns it (``x {symbol}= other``).

For integer and bool tensors. Takes ``alpha`` like every in-place binary method: ``other`` is
scaled by it first.

Args:
    other (Tensor or Number): an integer or bool operand.
{ALPHA_OTHER}

{RETURNS_SELF}

{example(*example_lines)}"""


def _inplace_float(name: str, what: str, example_input: str, output: str) -> str:
    """Tensor.<name>_ of a function with a floating point result: each element becomes ``what``."""
    return f"""\
Replaces each element of this float tensor by {what}; returns the tensor.

The tensor must be floating point (RuntimeError for integer tensors).

{RETURNS_SELF}

Example::

    >>> genesis.tensor({example_input}).{name}_()
    {output}
"""


def _float_function(
    name: str, summary: str, notes: str, input_: str, output: str, values=""
) -> str:
    """genesis.<name> and Tensor.<name>: a function with a floating point result."""
    return f"""\
{summary}

{fill(notes)}

Args:
{INPUT_SELF}
{OUT_CAST}

Returns:
    Tensor: a new floating point tensor of the same shape{values}.

Example::

    >>> genesis.{name}(genesis.tensor({input_}))
    {output}
"""


DOCS = {
    "Tensor.add add": f"""\
Adds ``other``, scaled by ``alpha``, to ``input``: ``input + alpha * other``.

Elementwise, with NumPy broadcasting; either operand may be a Python or NumPy number. The
result dtype follows PyTorch's type promotion (``genesis.result_type``): tensors with
dimensions decide, and a number or 0-d tensor only counts when it is of a higher category
(bool < integer < floating point), so ``uint8_tensor + 1000`` stays uint8 (the number wraps).
Integer arithmetic wraps on overflow. ``genesis.add(x, y)`` and ``x.add(y)`` are the same.

Args:
{INPUT_OPERAND}
    other (Tensor or Number): the operand to add.
    alpha (Number, optional): keyword-only multiplier for ``other``; it must be an int when
        the result is an integer tensor. Default: None (1).
{OUT_CAST}

{RETURNS_BROADCAST}

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> genesis.add(x, genesis.tensor([10.0, 20.0]))
    tensor([[11., 22.],
            [13., 24.]])
    >>> x.add(1, alpha=2)
    tensor([[3., 4.],
            [5., 6.]])
    >>> (genesis.tensor([1, 2]) + 0.5).dtype  # a float number makes an int tensor float32
    genesis.float32
""",
    "Tensor.sub Tensor.subtract sub subtract": f"""\
Subtracts ``other``, scaled by ``alpha``, from ``input``: ``input - alpha * other``.

Elementwise, with NumPy broadcasting and PyTorch's type promotion (see ``genesis.add``);
either operand may be a number. ``sub`` and ``subtract`` are the same function, and so are
``genesis.sub(x, y)`` and ``x.sub(y)``. Bool tensors cannot be subtracted (TypeError; use
``^``), as in PyTorch.

Args:
{INPUT_OPERAND}
    other (Tensor or Number): the operand to subtract.
    alpha (Number, optional): keyword-only multiplier for ``other``; it must be an int when
        the result is an integer tensor. Default: None (1).
{OUT_CAST}

{RETURNS_BROADCAST}

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> genesis.sub(x, genesis.tensor([10.0, 20.0]), alpha=0.5)
    tensor([[-4., -8.],
            [-2., -6.]])
    >>> genesis.subtract(5, genesis.tensor([1, 2]))
    tensor([4, 3])
""",
    "Tensor.mul Tensor.multiply mul multiply": f"""\
Multiplies ``input`` by ``other``, elementwise.

With NumPy broadcasting and PyTorch's type promotion (see ``genesis.add``); either operand
may be a number. Integer products wrap on overflow. ``mul`` and ``multiply`` are the same
function, and so are ``genesis.mul(x, y)`` and ``x.mul(y)``.

{_ARGS_OPERANDS}

{RETURNS_BROADCAST}

Example::

    >>> x = genesis.tensor([1, 2, 3])
    >>> genesis.mul(x, x)
    tensor([1, 4, 9])
    >>> x.multiply(2.5)
    tensor([2.5000, 5.0000, 7.5000])
    >>> genesis.tensor([100], dtype=genesis.int8) * 2  # wraps
    tensor([-56], dtype=genesis.int8)
""",
    "Tensor.div Tensor.divide div divide": f"""\
Divides ``input`` by ``other``, elementwise, with an optional rounding.

Without ``rounding_mode`` this is true division: the result is floating point even for
integer operands (the promoted dtype when it is floating, else float32). With
``rounding_mode="trunc"`` the quotient is rounded toward zero, with ``"floor"`` toward minus
infinity (Python's ``//``); both keep the promoted dtype, so integers stay integers. Integer
division by zero gives 0 (NumPy's answer; PyTorch raises on the CPU); float division by zero
follows IEEE (inf or nan). ``div``, ``divide`` and ``x.div(y)`` are the same function.

Args:
{INPUT_DIVIDEND}
{OTHER_DIVISOR}
    rounding_mode (str, optional): keyword-only: None, ``"trunc"`` or ``"floor"``.
        Default: None (true division).

{RETURNS_BROADCAST}

Example::

    >>> a = genesis.tensor([7, -7])
    >>> genesis.div(a, 2)
    tensor([ 3.5000, -3.5000])
    >>> a.div(2, rounding_mode="trunc"), a.divide(2, rounding_mode="floor")
    (tensor([ 3, -3]), tensor([ 3, -4]))
""",
    "Tensor.true_divide true_divide": f"""\
Divides ``input`` by ``other`` with true division: ``div`` without a rounding mode.

The result is floating point even for integer operands (the promoted dtype when it is
floating, else float32); division by zero gives inf or nan. Broadcasting and promotion as in
``genesis.add``.

{_ARGS_DIVISION}

Returns:
    Tensor: a new floating point tensor.

Example::

    >>> genesis.true_divide(genesis.tensor([1, 2, 3]), 2)
    tensor([0.5000, 1.0000, 1.5000])
""",
    "Tensor.floor_divide floor_divide": f"""\
Divides ``input`` by ``other`` and rounds toward minus infinity: Python's ``//``.

For integers and floats alike, as Python's operator and PyTorch's ``floor_divide`` do. The
result keeps the promoted dtype. Integer division by zero gives 0, on the CPU and on CUDA, and
``INT_MIN // -1`` wraps; float division by zero gives inf or nan.

{_ARGS_DIVISION}

{RETURNS_BROADCAST}

Example::

    >>> a = genesis.tensor([7, -7, 7])
    >>> genesis.floor_divide(a, genesis.tensor([2, 2, -2]))
    tensor([ 3, -4, -4])
    >>> a // 0
    tensor([0, 0, 0])
""",
    "Tensor.remainder remainder": f"""\
Returns the remainder of ``input / other``, with the sign of ``other``: Python's ``%``.

``input - floor_divide(input, other) * other``, for integers and floats. Integer ``x % 0``
gives 0; float ``x % 0.0`` is nan.

{_ARGS_DIVISION}

{RETURNS_BROADCAST}

Example::

    >>> genesis.remainder(genesis.tensor([7, -7, 7]), genesis.tensor([2, 2, -2]))
    tensor([ 1,  1, -1])
    >>> genesis.tensor([7.5, -7.5]) % 2
    tensor([1.5000, 0.5000])
""",
    "Tensor.pow pow": f"""\
Raises ``input`` to the power ``other``, elementwise.

Broadcasting and type promotion as in ``genesis.add``. An integer tensor raised to a
negative Python int is a RuntimeError; from a tensor of exponents, negative ones give 0 except
for the bases 1 and -1. Integer powers wrap on overflow.

Args:
    input (Tensor or Number): the base (``self`` for the method).
    other (Tensor or Number): the exponent.
{OUT_CAST}

{RETURNS_BROADCAST}

Example::

    >>> genesis.pow(genesis.tensor([1.0, 2.0, 3.0]), 2)
    tensor([1., 4., 9.])
    >>> genesis.tensor([2, 3]) ** genesis.tensor([-1, 2])
    tensor([0, 9])
    >>> 2 ** genesis.tensor([0, 1, 2])
    tensor([1, 2, 4])
""",
    "Tensor.maximum maximum": f"""\
Returns the elementwise maximum of ``input`` and ``other``.

Broadcasting and type promotion as in ``genesis.add``. NaN propagates: where either operand
is NaN the result is NaN (as in PyTorch, and NumPy's ``maximum``). ``x.max(other)`` is the
same operation.

{_ARGS_OPERANDS}

{RETURNS_BROADCAST}

Example::

    >>> genesis.maximum(genesis.tensor([1, 5, 3]), genesis.tensor([4, 2, 3]))
    tensor([4, 5, 3])
    >>> genesis.tensor([1.0, float("nan")]).maximum(genesis.tensor(0.0))
    tensor([1., nan])
""",
    "Tensor.minimum minimum": f"""\
Returns the elementwise minimum of ``input`` and ``other``.

Broadcasting and type promotion as in ``genesis.add``. NaN propagates: where either operand
is NaN the result is NaN. ``x.min(other)`` is the same operation.

{_ARGS_OPERANDS}

{RETURNS_BROADCAST}

Example::

    >>> genesis.minimum(genesis.tensor([1, 5, 3]), genesis.tensor([4, 2, 3]))
    tensor([1, 2, 3])
    >>> genesis.tensor([1.5, -2.0]).minimum(0)
    tensor([ 0., -2.])
""",
    "Tensor.eq eq": f"""\
Tests ``input == other`` elementwise; returns a bool tensor.

The operands broadcast and are compared in their promoted dtype (see ``genesis.add``): a
number that does not fit the dtype wraps first, so ``uint8_tensor == 256`` compares with 0, as
in PyTorch. ``x == y`` is the same, which is why tensors hash by identity.

{_ARGS_OPERANDS}

{RETURNS_BOOL_BROADCAST}

Example::

    >>> genesis.eq(genesis.tensor([1, 2, 3]), genesis.tensor([1, 0, 3]))
    tensor([ True, False,  True])
    >>> genesis.tensor([0.5, 1.0]).eq(1)
    tensor([False,  True])
""",
    "Tensor.ne ne": _comparison(
        "!=",
        "Broadcasting and promotion as in ``genesis.eq``. NaN is not equal to anything, itself\n"
        "included.",
        ">>> genesis.ne(genesis.tensor([1, 2, 3]), 2)",
        "tensor([ True, False,  True])",
    ),
    "Tensor.lt lt": _comparison(
        "<",
        _NAN_FALSE,
        ">>> genesis.lt(genesis.tensor([1, 2, 3]), 2)",
        "tensor([ True, False, False])",
    ),
    "Tensor.le le": _comparison(
        "<=",
        _NAN_FALSE,
        ">>> genesis.le(genesis.tensor([1, 2, 3]), 2)",
        "tensor([ True,  True, False])",
    ),
    "Tensor.gt gt": _comparison(
        ">",
        _NAN_FALSE,
        ">>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])",
        ">>> genesis.gt(x, 2)",
        "tensor([[False, False],",
        "        [ True,  True]])",
    ),
    "Tensor.ge ge": _comparison(
        ">=", _NAN_FALSE, ">>> genesis.tensor([1, 2, 3]).ge(2)", "tensor([False,  True,  True])"
    ),
    "Tensor.bitwise_and bitwise_and": _bitwise(
        "AND",
        "&",
        ">>> genesis.bitwise_and(genesis.tensor([5, 3]), 6)",
        "tensor([4, 2])",
        ">>> genesis.tensor([True, False]) & genesis.tensor([True, True])",
        "tensor([ True, False])",
    ),
    "Tensor.bitwise_or bitwise_or": _bitwise(
        "OR", "|", ">>> genesis.bitwise_or(genesis.tensor([5, 3]), 6)", "tensor([7, 7])"
    ),
    "Tensor.bitwise_xor bitwise_xor": _bitwise(
        "XOR",
        "^",
        ">>> genesis.bitwise_xor(genesis.tensor([5, 3]), 6)",
        "tensor([3, 5])",
        ">>> genesis.tensor([True, False]) ^ True",
        "tensor([False,  True])",
    ),
    "Tensor.add_": f"""\
Adds ``alpha * other`` to this tensor in place and returns it (``x += other``).

The sum is computed in the promoted dtype and cast back to this tensor's dtype. That cast may
narrow within a category (an int64 result into int8 wraps) but must not turn a floating point
result into an integer or anything into bool (RuntimeError), and ``other`` must broadcast to
this tensor's shape: it does not grow. An operand that overlaps this tensor's memory is read
from a copy, as in NumPy, and an expanded tensor cannot be written (``clone()`` it first).

Args:
    other (Tensor or Number): the operand to add.
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> x = genesis.zeros(3)
    >>> x.add_(genesis.tensor([1, 2, 3]))
    tensor([1., 2., 3.])
    >>> x.add_(1, alpha=10)
    tensor([11., 12., 13.])
""",
    "Tensor.sub_ Tensor.subtract_": f"""\
Subtracts ``alpha * other`` from this tensor in place and returns it (``x -= other``).

``sub_`` and ``subtract_`` are the same. The result is cast back to this tensor's dtype under
the rules of ``add_`` (no float into integer, no growing the shape).

Args:
    other (Tensor or Number): the operand to subtract.
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> x = genesis.tensor([5, 6, 7])
    >>> x.sub_(genesis.tensor([1, 1, 1]), alpha=2)
    tensor([3, 4, 5])
    >>> x.subtract_(3)
    tensor([0, 1, 2])
""",
    "Tensor.mul_ Tensor.multiply_": f"""\
Multiplies this tensor by ``other`` in place and returns it (``x *= other``).

``mul_`` and ``multiply_`` are the same. The product is cast back to this tensor's dtype under
the rules of ``add_``. Like every in-place binary method, it also takes ``alpha``, which scales
``other`` first (a genesis extension; PyTorch's ``mul_`` has no ``alpha``).

Args:
    other (Tensor or Number): the factor.
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> b = genesis.arange(3, dtype=genesis.int8)
    >>> b.mul_(genesis.tensor([2, 2, 2]))  # the int64 result is cast to int8
    tensor([0, 2, 4], dtype=genesis.int8)
""",
    "Tensor.div_ Tensor.divide_": f"""\
Divides this tensor by ``other`` in place and returns it (``x /= other``).

``div_`` and ``divide_`` are the same. Without ``rounding_mode`` the quotient is floating
point, so the tensor must be floating point too (RuntimeError for an integer tensor); with
``"trunc"`` or ``"floor"`` integer tensors work. See ``genesis.div``.

Args:
{OTHER_DIVISOR}
    rounding_mode (str, optional): keyword-only: None, ``"trunc"`` or ``"floor"``.
        Default: None (true division).

{RETURNS_SELF}

Example::

    >>> x = genesis.tensor([3.0, 5.0])
    >>> x.div_(2)
    tensor([1.5000, 2.5000])
    >>> genesis.tensor([7, -7]).divide_(2, rounding_mode="floor")
    tensor([ 3, -4])
""",
    "Tensor.true_divide_": f"""\
Divides this floating point tensor by ``other`` in place (true division) and returns it.

The quotient is floating point, so an integer tensor raises RuntimeError. Takes ``alpha``
like every in-place binary method: ``other`` is scaled by it first.

Args:
{OTHER_DIVISOR}
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, 3.0]).true_divide_(2)
    tensor([0.5000, 1.5000])
""",
    "Tensor.floor_divide_": f"""\
Divides this tensor by ``other`` in place, rounding toward minus infinity, and returns it.

``x //= other``. See ``genesis.floor_divide``; the cast rules of ``add_`` apply. Takes
``alpha`` like every in-place binary method: ``other`` is scaled by it first.

Args:
{OTHER_DIVISOR}
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([7, -7]).floor_divide_(2)
    tensor([ 3, -4])
""",
    "Tensor.remainder_": f"""\
Replaces this tensor by its remainder modulo ``other`` (sign of ``other``) and returns it.

``x %= other``. See ``genesis.remainder``; the cast rules of ``add_`` apply. Takes ``alpha``
like every in-place binary method: ``other`` is scaled by it first.

Args:
{OTHER_DIVISOR}
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([7, -7]).remainder_(3)
    tensor([1, 2])
""",
    "Tensor.pow_": f"""\
Raises this tensor to the power ``other`` in place and returns it (``x **= other``).

See ``genesis.pow``; the cast rules of ``add_`` apply. Takes ``alpha`` like every in-place
binary method: ``other`` is scaled by it first.

Args:
    other (Tensor or Number): the exponent.
{ALPHA_OTHER}

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1.0, 2.0, 3.0]).pow_(2)
    tensor([1., 4., 9.])
""",
    "Tensor.bitwise_and_": _inplace_bitwise(
        "AND", "&", ">>> genesis.tensor([5, 3]).bitwise_and_(6)", "tensor([4, 2])"
    ),
    "Tensor.bitwise_or_": _inplace_bitwise(
        "OR",
        "|",
        ">>> genesis.tensor([True, False]).bitwise_or_(genesis.tensor([False, False]))",
        "tensor([ True, False])",
    ),
    "Tensor.bitwise_xor_": _inplace_bitwise(
        "XOR", "^", ">>> genesis.tensor([5, 3]).bitwise_xor_(6)", "tensor([3, 5])"
    ),
    "Tensor.neg Tensor.negative neg negative": f"""\
Returns the negation of ``input``, elementwise: ``-input``.

The dtype is kept. Bool tensors cannot be negated (TypeError; use ``~`` or
``logical_not``), as in PyTorch; unsigned integers wrap. ``neg`` and ``negative`` are the same
function, and so are ``genesis.neg(x)``, ``x.neg()`` and ``-x``.

Args:
    input (Tensor): the tensor to negate (``self`` for the method).
{OUT_CAST}

{RETURNS_SAME_SHAPE_DTYPE}

Example::

    >>> genesis.neg(genesis.tensor([1, -2, 0]))
    tensor([-1,  2,  0])
    >>> genesis.tensor([1.5]).negative()
    tensor([-1.5000])
""",
    "Tensor.abs abs": f"""\
Returns the absolute value of each element of ``input``.

The dtype is kept (the most negative integer stays negative, as it wraps); bool tensors are
a TypeError. Python's ``abs(x)`` is the same.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_SAME_SHAPE_DTYPE}

Example::

    >>> genesis.abs(genesis.tensor([-1.5, 0.0, 2.0]))
    tensor([1.5000, 0.0000, 2.0000])
""",
    "Tensor.relu relu": f"""\
Returns ``max(input, 0)`` elementwise (the rectified linear unit).

The dtype is kept, and NaN stays NaN.

Args:
{INPUT_SELF}

{RETURNS_SAME_SHAPE_DTYPE}

Example::

    >>> genesis.relu(genesis.tensor([-1.0, 0.5, float("nan")]))
    tensor([0.0000, 0.5000,    nan])
""",
    "Tensor.exp exp": f"""\
Returns ``e ** input`` elementwise.

Integer and bool input gives float32; floating point input keeps its dtype. On the CPU,
float32 and float64 (and the 16-bit types, through float32) use genesis's own vectorized
``exp``, within 1 ulp of the correctly rounded value, so the last bit may differ from NumPy's.

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_FLOAT_SAME_SHAPE}

Example::

    >>> genesis.exp(genesis.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
""",
    "Tensor.log log": _float_function(
        "log",
        "Returns the natural logarithm of each element of ``input``.",
        "Integer and bool input gives float32. ``log(0)`` is ``-inf`` and the log of a negative "
        "number is nan, as in IEEE arithmetic.",
        "[1.0, 0.0, -1.0]",
        "tensor([0., -inf, nan])",
    ),
    "Tensor.sqrt sqrt": _float_function(
        "sqrt",
        "Returns the square root of each element of ``input``.",
        "Integer and bool input gives float32; negative numbers give nan.",
        "[1, 4, 9]",
        "tensor([1., 2., 3.])",
    ),
    "Tensor.rsqrt rsqrt": _float_function(
        "rsqrt",
        "Returns the reciprocal of the square root of each element: ``1 / sqrt(input)``.",
        "Integer and bool input gives float32; 0 gives inf and negative numbers nan.",
        "[1.0, 4.0, 0.0]",
        "tensor([1.0000, 0.5000,    inf])",
    ),
    "Tensor.sin sin": _float_function(
        "sin",
        "Returns the sine of each element of ``input`` (in radians).",
        _FLOAT32,
        "[0.0, 3.14159265 / 2]",
        "tensor([0., 1.])",
    ),
    "Tensor.cos cos": _float_function(
        "cos",
        "Returns the cosine of each element of ``input`` (in radians).",
        _FLOAT32,
        "[0.0, 3.14159265]",
        "tensor([ 1., -1.])",
    ),
    "Tensor.tanh tanh": _float_function(
        "tanh",
        "Returns the hyperbolic tangent of each element of ``input``.",
        _FLOAT32,
        "[0.0, 100.0]",
        "tensor([0., 1.])",
        values=", with values in [-1, 1]",
    ),
    "Tensor.sigmoid sigmoid": _float_function(
        "sigmoid",
        "Returns the logistic sigmoid of each element: ``1 / (1 + exp(-input))``.",
        _FLOAT32,
        "[0.0, 100.0, -100.0]",
        "tensor([0.5000, 1.0000, 0.0000])",
        values=", with values in [0, 1]",
    ),
    "Tensor.bitwise_not bitwise_not": f"""\
Returns the bitwise NOT of each element (logical NOT for bool tensors).

For integer and bool tensors only: floating point ones are a TypeError. ``~x`` is the same.

Args:
    input (Tensor): an integer or bool tensor (``self`` for the method).
{OUT_CAST}

{RETURNS_SAME_SHAPE_DTYPE}

Example::

    >>> genesis.bitwise_not(genesis.tensor([0, 5]))
    tensor([-1, -6])
    >>> ~genesis.tensor([True, False])
    tensor([False,  True])
""",
    "Tensor.neg_ Tensor.negative_": f"""\
Negates this tensor in place and returns it.

``neg_`` and ``negative_`` are the same; bool tensors are a TypeError.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1, -2]).neg_()
    tensor([-1,  2])
""",
    "Tensor.abs_": f"""\
Replaces each element of this tensor by its absolute value and returns the tensor.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-1, 2]).abs_()
    tensor([1, 2])
""",
    "Tensor.relu_": f"""\
Replaces each negative element of this tensor by 0 and returns the tensor.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-1.0, 2.0]).relu_()
    tensor([0., 2.])
""",
    "Tensor.exp_": f"""\
Replaces each element of this float tensor by its exponential; returns the tensor.

The tensor must be floating point: the float32 result of an integer tensor cannot be written
back (RuntimeError).

{RETURNS_SELF}

Example::

    >>> genesis.tensor([0.0, 1.0]).exp_()
    tensor([1.0000, 2.7183])
""",
    "Tensor.log_": _inplace_float("log", "its natural log", "[1.0, 1.0]", "tensor([0., 0.])"),
    "Tensor.sqrt_": _inplace_float("sqrt", "its square root", "[4.0, 9.0]", "tensor([2., 3.])"),
    "Tensor.rsqrt_": _inplace_float(
        "rsqrt", "``1 / sqrt(x)``", "[4.0, 16.0]", "tensor([0.5000, 0.2500])"
    ),
    "Tensor.sin_": _inplace_float("sin", "its sine", "[0.0]", "tensor([0.])"),
    "Tensor.cos_": _inplace_float("cos", "its cosine", "[0.0]", "tensor([1.])"),
    "Tensor.tanh_": _inplace_float("tanh", "its tanh", "[0.0]", "tensor([0.])"),
    "Tensor.sigmoid_": _inplace_float("sigmoid", "its sigmoid", "[0.0]", "tensor([0.5000])"),
    "Tensor.bitwise_not_": f"""\
Replaces each element of this integer or bool tensor by its bitwise NOT; returns it.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([True, False]).bitwise_not_()
    tensor([False,  True])
""",
    "Tensor.logical_not logical_not": f"""\
Returns ``input == 0`` elementwise: True where an element is zero (or False).

Works for every dtype and always gives bool (for bool tensors it is ``~x``).

Args:
{INPUT_SELF}

Returns:
    Tensor: a bool tensor of the same shape.

Example::

    >>> genesis.logical_not(genesis.tensor([0, 3]))
    tensor([ True, False])
    >>> genesis.tensor([0.0, -1.5]).logical_not()
    tensor([ True, False])
""",
    "Tensor.clamp Tensor.clip clamp clip": f"""\
Limits each element of ``input`` to the range [``min``, ``max``].

Either bound may be left out, but not both (RuntimeError); each is a number or a tensor that
broadcasts to ``input``.
Bounds are promoted with ``input`` as in ``genesis.add``, so a float bound gives an integer
tensor a float32 result. NaN in ``input`` stays NaN. ``clamp`` and ``clip`` are the same
function, and so are ``genesis.clamp(x, ...)`` and ``x.clamp(...)``.

Args:
{INPUT_SELF}
    min (Tensor or Number, optional): the lower bound. Default: None (no lower bound).
    max (Tensor or Number, optional): the upper bound. Default: None (no upper bound).

{RETURNS_NEW}

Example::

    >>> x = genesis.tensor([1.0, 2.0, 3.0, 4.0])
    >>> genesis.clamp(x, min=1.5, max=3.5)
    tensor([1.5000, 2.0000, 3.0000, 3.5000])
    >>> x.clip(max=genesis.tensor([0.0, 5.0, 0.0, 5.0]))
    tensor([0., 2., 0., 4.])
""",
    "Tensor.clamp_ Tensor.clip_": f"""\
Limits each element of this tensor to [``min``, ``max``] in place and returns it.

``clamp_`` and ``clip_`` are the same. The result is cast back to this tensor's dtype under
the rules of ``add_``.

Args:
    min (Tensor or Number, optional): the lower bound. Default: None (no lower bound).
    max (Tensor or Number, optional): the upper bound. Default: None (no upper bound).

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-5, 0, 5]).clamp_(-1, 1)
    tensor([-1,  0,  1])
""",
    "where": """\
Chooses elements from ``input`` where ``condition`` is True, else from ``other``.

``condition``, ``input`` and ``other`` broadcast together; ``input`` and ``other`` may be
numbers, and the result has their promoted dtype (as in ``genesis.add``). The condition must
be a bool tensor: other dtypes are a TypeError (PyTorch accepts uint8, NumPy anything).
``genesis.where(condition)`` alone is ``genesis.nonzero(condition, as_tuple=True)``.

Args:
    condition (Tensor): a bool tensor.
    input (Tensor or Number, optional): the values where ``condition`` is True. Default: None
        (with ``other`` None too: the one-argument form).
    other (Tensor or Number, optional): the values where ``condition`` is False. Default: None.

Returns:
    Tensor: a new tensor with the broadcast shape (a tuple of index tensors for the one-argument
    form).

Example::

    >>> x = genesis.tensor([1, 2, 3])
    >>> genesis.where(x > 1, x, 0)
    tensor([0, 2, 3])
    >>> genesis.where(x > 1, 0.5, x)
    tensor([1.0000, 0.5000, 0.5000])
    >>> genesis.where(x > 1)
    (tensor([1, 2]),)
""",
    "Tensor.where": """\
Chooses elements from this tensor where ``condition`` is True, else from ``other``.

``x.where(condition, other)`` is ``genesis.where(condition, x, other)``.

Args:
    condition (Tensor): a bool tensor that broadcasts with this tensor and ``other``.
    other (Tensor or Number): the values where ``condition`` is False.

Returns:
    Tensor: a new tensor with the broadcast shape and the promoted dtype.

Example::

    >>> x = genesis.tensor([1.0, -2.0, 3.0])
    >>> x.where(x > 0, 0.0)
    tensor([1., 0., 3.])
""",
    "result_type": """\
Returns the dtype that an operation such as ``tensor1 + tensor2`` gives.

PyTorch's ``torch.result_type`` rules: tensors with dimensions decide, by ``promote_types``
of their dtypes; 0-d tensors and numbers count only when they are of a higher category (bool <
integer < floating point) than every tensor with dimensions, a 0-d tensor bringing its dtype, a
Python float float32 and an int int64. Without tensors with dimensions, 0-d tensors decide over
numbers in the same way.

Args:
    tensor1 (Tensor or Number): the first operand.
    tensor2 (Tensor or Number): the second operand.

Returns:
    genesis.dtype: the promoted dtype.

Example::

    >>> u = genesis.tensor([1, 2], dtype=genesis.uint8)
    >>> genesis.result_type(u, 1000)
    genesis.uint8
    >>> genesis.result_type(u, 2.5)
    genesis.float32
    >>> genesis.result_type(u, genesis.tensor([1, 2]))
    genesis.int64
""",
    "Tensor.__add__": "x + other: ``add(x, other)``.",
    "Tensor.__radd__": "other + x, for a number or other non-tensor on the left.",
    "Tensor.__iadd__": "x += other: in place, as ``x.add_(other)``.",
    "Tensor.__sub__": "x - other: ``sub(x, other)``.",
    "Tensor.__rsub__": "other - x, for a number or other non-tensor on the left.",
    "Tensor.__isub__": "x -= other: in place, as ``x.sub_(other)``.",
    "Tensor.__mul__": "x * other: ``mul(x, other)``.",
    "Tensor.__rmul__": "other * x, for a number or other non-tensor on the left.",
    "Tensor.__imul__": "x *= other: in place, as ``x.mul_(other)``.",
    "Tensor.__truediv__": "x / other: ``div(x, other)``, true division.",
    "Tensor.__rtruediv__": "other / x, for a number or other non-tensor on the left.",
    "Tensor.__itruediv__": "x /= other: in place, as ``x.div_(other)``.",
    "Tensor.__floordiv__": "x // other: ``floor_divide(x, other)``.",
    "Tensor.__rfloordiv__": "other // x, for a number or other non-tensor on the left.",
    "Tensor.__ifloordiv__": "x //= other: in place, as ``x.floor_divide_(other)``.",
    "Tensor.__mod__": "x % other: ``remainder(x, other)``.",
    "Tensor.__rmod__": "other % x, for a number or other non-tensor on the left.",
    "Tensor.__imod__": "x %= other: in place, as ``x.remainder_(other)``.",
    "Tensor.__pow__": "x ** other: ``pow(x, other)``.",
    "Tensor.__rpow__": "other ** x, for a number or other non-tensor on the left.",
    "Tensor.__ipow__": "x **= other: in place, as ``x.pow_(other)``.",
    "Tensor.__and__": "x & other: ``bitwise_and(x, other)``.",
    "Tensor.__rand__": "other & x, for a number or other non-tensor on the left.",
    "Tensor.__iand__": "x &= other: in place, as ``x.bitwise_and_(other)``.",
    "Tensor.__or__": "x | other: ``bitwise_or(x, other)``.",
    "Tensor.__ror__": "other | x, for a number or other non-tensor on the left.",
    "Tensor.__ior__": "x |= other: in place, as ``x.bitwise_or_(other)``.",
    "Tensor.__xor__": "x ^ other: ``bitwise_xor(x, other)``.",
    "Tensor.__rxor__": "other ^ x, for a number or other non-tensor on the left.",
    "Tensor.__ixor__": "x ^= other: in place, as ``x.bitwise_xor_(other)``.",
    "Tensor.__lshift__": "x << other: ``bitwise_left_shift(x, other)``.",
    "Tensor.__rlshift__": "other << x, for a number or other non-tensor on the left.",
    "Tensor.__ilshift__": "x <<= other: in place, as ``x.bitwise_left_shift_(other)``.",
    "Tensor.__rshift__": "x >> other: ``bitwise_right_shift(x, other)``.",
    "Tensor.__rrshift__": "other >> x, for a number or other non-tensor on the left.",
    "Tensor.__irshift__": "x >>= other: in place, as ``x.bitwise_right_shift_(other)``.",
    "Tensor.logical_not_": """\
In place ``logical_not``: each element becomes 1 where it was zero, else 0, in the
tensor's own dtype (True/False for bool).

Args:
    self (Tensor): the tensor to overwrite.

Returns:
    Tensor: ``self``.

Example::

    >>> t = genesis.tensor([0.0, 2.5])
    >>> t.logical_not_()
    tensor([1., 0.])
""",
    "Tensor.__eq__": "x == other: elementwise, a bool tensor (``eq``).",
    "Tensor.__ne__": "x != other: elementwise, a bool tensor (``ne``).",
    "Tensor.__lt__": "x < other: elementwise, a bool tensor (``lt``).",
    "Tensor.__le__": "x <= other: elementwise, a bool tensor (``le``).",
    "Tensor.__gt__": "x > other: elementwise, a bool tensor (``gt``).",
    "Tensor.__ge__": "x >= other: elementwise, a bool tensor (``ge``).",
    "Tensor.__neg__": "-x: ``neg(x)``; a TypeError for bool tensors.",
    "Tensor.__pos__": "+x: the tensor itself (a new handle on the same memory, not a copy).",
    "Tensor.__abs__": "abs(x): ``genesis.abs(x)``.",
    "Tensor.__invert__": "~x: ``bitwise_not(x)``; inverts a bool mask.",
    "Tensor.absolute absolute": f"""\
The absolute value of each element: ``genesis.abs`` under NumPy's name (the same op).

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.absolute(genesis.tensor([-1.5, 0.0, 2.0]))
    tensor([1.5000, 0.0000, 2.0000])
""",
    "Tensor.absolute_": f"""\
Replaces each element by its absolute value; returns this tensor (the in-place ``absolute``,
which is ``abs_``).

{RETURNS_SELF}

Example::

    >>> genesis.tensor([-1, 2]).absolute_()
    tensor([1, 2])
""",
    "Tensor.greater greater": comparison_alias(
        "greater", "gt", ">", "genesis.tensor([1, 2, 3]), 2", "tensor([False, False,  True])"
    ),
    "Tensor.greater_equal greater_equal": comparison_alias(
        "greater_equal", "ge", ">=", "genesis.tensor([1, 2, 3]), 2", "tensor([False,  True,  True])"
    ),
    "Tensor.less less": comparison_alias(
        "less", "lt", "<", "genesis.tensor([1, 2, 3]), 2", "tensor([ True, False, False])"
    ),
    "Tensor.less_equal less_equal": comparison_alias(
        "less_equal", "le", "<=", "genesis.tensor([1, 2, 3]), 2", "tensor([ True,  True, False])"
    ),
    "Tensor.not_equal not_equal": comparison_alias(
        "not_equal", "ne", "!=", "genesis.tensor([1, 2, 3]), 2", "tensor([ True, False,  True])"
    ),
}
