"""Docstring pieces shared by many ops: argument entries and Returns blocks, written once, and
the texts of op families that differ only by name."""

import textwrap

RETURNS_SELF = """\
Returns:
    Tensor: this tensor."""
INPUT_SELF = """\
    input (Tensor): the input tensor (``self`` for the method)."""
OUT_CAST = """\
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor)."""
RETURNS_INPUT_SHAPE_OR_OUT = """\
Returns:
    Tensor: a new tensor of the input's shape, or ``out``."""
OTHER_OPERAND = """\
    other (Tensor or Number): the second operand."""
RETURNS_NEW = """\
Returns:
    Tensor: a new tensor."""
INPUT_TENSOR = """\
    input (Tensor): the tensor."""
INPUT_OPERAND = """\
    input (Tensor or Number): the first operand (``self`` for the method)."""
OUT = """\
    out (Tensor, optional): the tensor to write the result into. Default: None."""
GENERATOR = """\
    generator (genesis.Generator, optional): keyword-only: the stream to draw from.
        Default: None (the default generator)."""
RETURNS_CONTIGUOUS = """\
Returns:
    Tensor: a new contiguous tensor."""
RETURNS_BROADCAST = """\
Returns:
    Tensor: a new tensor with the broadcast shape of the operands."""
RETURNS_BROADCAST_OR_OUT = """\
Returns:
    Tensor: a new tensor with the broadcast shape, or ``out``."""
KEEPDIM_DIMS = """\
    keepdim (bool): keep the reduced dims with size 1. Default: False."""
ALPHA_OTHER = """\
    alpha (Number, optional): keyword-only multiplier for ``other``. Default: None (1)."""
DEVICE = """\
    device (genesis.device, str or int, optional): keyword-only: the device. Default: None
        (the CPU)."""
INPUT_DESTINATION = """\
    input (Tensor): the destination (``self`` for the method)."""
INPUT_INPUT = """\
    input (Tensor): the input tensor."""
INDEX_INT64 = """\
    index (Tensor): int64 indices."""
OTHER_DIVISOR = """\
    other (Tensor or Number): the divisor."""
INPUT_LIKE = """\
    input (Tensor): the tensor whose shape, dtype and device to take."""
DEVICE_LIKE = """\
    device (genesis.device, str or int, optional): keyword-only: the device instead of
        ``input``'s. Default: None."""
DIM_OR_DIMS = """\
    dim (int or tuple of ints, optional): the dimension(s) to reduce. Default: None (all)."""
KEEPDIM_EACH = """\
    keepdim (bool): keep each reduced dimension with size 1. Default: False."""
INPLACE = """\
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False."""
RETURNS_NEW_OR_INPUT = """\
Returns:
    Tensor: a new tensor, or ``input`` when inplace."""
RETURNS_NEW_OR_OUT = """\
Returns:
    Tensor: a new tensor, or ``out``."""
OTHER_TENSOR = """\
    other (Tensor): the second tensor."""
INPUT_SOURCE = """\
    input (Tensor): the source (``self`` for the method)."""
DIM_SCATTER = """\
    dim (int): the dim to scatter along."""
A_SQUARE = """\
    A (Tensor): float32 or float64 matrices ``(..., n, n)``."""
RETURNS_BOOL_BROADCAST = """\
Returns:
    Tensor: a bool tensor with the broadcast shape of the operands."""
RETURNS_SAME_SHAPE_DTYPE = """\
Returns:
    Tensor: a new tensor of the same shape and dtype."""
RETURNS_FLOAT_SAME_SHAPE = """\
Returns:
    Tensor: a new floating point tensor of the same shape."""
RETURNS_THIS = """\
Returns:
    Tensor: self."""
DIMS_SEQUENCE = """\
    dim (int or sequence of ints, optional): the dims to reduce. Default: None (every dim)."""
DIM_SCAN = """\
    dim (int): the dim to scan; negative counts from the end."""
INPUT_FLOAT = """\
    input (Tensor): a floating point tensor."""
DTYPE_FLOAT32 = """\
    dtype (genesis.dtype, optional): keyword-only: the dtype. Default: None (float32)."""
DTYPE_LIKE = """\
    dtype (genesis.dtype, optional): keyword-only: the dtype instead of ``input``'s.
        Default: None."""
SIZE = """\
    *size (int): the sizes, as separate ints or one tuple or list."""
DTYPE_OTHER = """\
    dtype (genesis.dtype, optional): another dtype. Default: None (this tensor's)."""
DEVICE_OTHER = """\
    device (genesis.device, optional): another device. Default: None (this tensor's)."""
INDEX_1D = """\
    index (Tensor): a 1-d (or 0-d) int32 or int64 tensor."""
BETA_INPUT = """\
    beta (Number): the factor of input. Default: 1."""
ALPHA_PRODUCT = """\
    alpha (Number): the factor of the product. Default: 1."""
RETURNS_NONE = """\
Returns:
    None"""
OUT_RESULT_SHAPE = """\
    out (Tensor, optional): a tensor of the result's shape to write into. Default: None."""
DIM_INDEX = """\
    dim (int): the dim to index."""
INDEX_1D_INT64 = """\
    index (Tensor): a 1-d (or 0-d) int64 tensor."""
ACCUMULATE = """\
    accumulate (bool, optional): add instead of writing. Default: False."""
INPUT_DIVIDEND = """\
    input (Tensor or Number): the dividend (``self`` for the method)."""
INPUT_FIRST = """\
    input (Tensor): the first tensor."""
BETA_SELF = """\
    beta (Number): the factor of self. Default: 1."""
BATCH1 = """\
    batch1 (Tensor): a (b, n, m) tensor."""
BATCH2 = """\
    batch2 (Tensor): a (b, m, p) tensor."""
DTYPE_FLOATING_FIRST = """\
    dtype (genesis.dtype, optional): convert to this floating dtype first. Default: None."""
KEEPDIM_REDUCED = """\
    keepdim (bool): keep the reduced dimension with size 1. Default: False."""
DIM_SPLIT = """\
    dim (int): the dimension to split. Default: 0."""
TENSORS = """\
    tensors (sequence of Tensors): the tensors."""
OUT_VALUES_INDICES = """\
    out (tuple of two Tensors, optional): tensors (values, indices) to write into. Default: None."""
KEEPDIM_DIM = """\
    keepdim (bool): keep the dim with size 1. Default: False."""
DIM_OPTIONAL = """\
    dim (int, optional): the dim to reduce; None reduces every item. Default: None."""
OUT_RESULT = """\
    out (Tensor, optional): a tensor to write the result into. Default: None."""


def function_form(method_doc: str) -> str:
    """The function form's docstring (genesis.reshape(input, ...)) from its method's: an ``input``
    entry goes first in Args (or an Args block before Returns)."""
    entry = "    input (Tensor): the tensor.\n"
    at = method_doc.find("Args:\n")
    if at >= 0:
        return method_doc[: at + 6] + entry + method_doc[at + 6 :]
    returns = method_doc.find("Returns:\n")
    if returns >= 0:
        return method_doc[:returns] + "Args:\n" + entry + "\n" + method_doc[returns:]
    return method_doc


# The texts of the op families whose prose differs only by name (the paragraphs wrapped at 95
# columns, as the rest of the texts).
_FLOAT_INPUTS = (
    "Integer and bool input gives float32; floating point input keeps its dtype (16-bit floats "
    "compute in float32 and round once)."
)
_BROADCAST_PROMOTE = (
    "Elementwise, with NumPy broadcasting and PyTorch's type promotion (``genesis.result_type``); "
    "either operand may be a number."
)


def example(*lines: str) -> str:
    """The Example section of a text: ``lines`` (doctest input and output), indented."""
    return "Example::\n\n" + "".join(f"    {line}\n" for line in lines)


def fill(paragraph: str) -> str:
    """``paragraph`` wrapped at 95 columns, as the texts' paragraphs are."""
    return textwrap.fill(paragraph, width=95)


def unary(name: str, summary: str, example_input: str, example_output: str) -> str:
    """genesis.<name> and Tensor.<name> (input, out=): ``summary`` and "the same" sentence, one
    example."""
    paragraph = f"{summary} ``genesis.{name}(x)`` and ``x.{name}()`` are the same."
    return f"""\
{fill(paragraph)}

Args:
{INPUT_SELF}
{OUT_CAST}

{RETURNS_INPUT_SHAPE_OR_OUT}

Example::

    >>> genesis.{name}(genesis.tensor({example_input}))
    {example_output}
"""


def unary_float(name: str, summary: str, example_input: str, example_output: str) -> str:
    """genesis.<name> and Tensor.<name>: ``summary``, the float rules, one example."""
    return unary(name, f"{summary} {_FLOAT_INPUTS}", example_input, example_output)


def inplace_unary(name: str, example_input: str, example_output: str) -> str:
    """Tensor.<name>_: the in-place form, one example."""
    paragraph = (
        f"Replaces each element by its {name}; returns this tensor (the in-place ``{name}``). "
        "The result must be castable to this tensor's dtype (a float result cannot be written "
        "into an integer tensor: RuntimeError)."
    )
    return f"""\
{fill(paragraph)}

{RETURNS_SELF}

Example::

    >>> genesis.tensor({example_input}).{name}_()
    {example_output}
"""


def binary(name: str, summary: str, notes: str, operands: str, output: str, other="other") -> str:
    """genesis.<name> and Tensor.<name> (input, ``other``, out=): ``summary``, the broadcasting
    rules and ``notes``, one example ``genesis.<name>(<operands>)``."""
    paragraph = f"{summary} {_BROADCAST_PROMOTE} {notes}"
    return f"""\
{fill(paragraph)}

Args:
{INPUT_OPERAND}
    {other} (Tensor or Number): the second operand.
{OUT_CAST}

{RETURNS_BROADCAST_OR_OUT}

Example::

    >>> genesis.{name}({operands})
    {output}
"""


def inplace_binary(name: str, start: str, operand: str, output: str, other="other") -> str:
    """Tensor.<name>_: the in-place form of a binary op, one example
    ``genesis.tensor(<start>).<name>_(<operand>)``."""
    paragraph = (
        f"The in-place ``{name}``: writes ``{name}(self, {other})`` into this tensor and returns "
        "it. The result dtype must be castable to this tensor's dtype (RuntimeError otherwise), "
        f"and ``{other}`` must broadcast to its shape."
    )
    return f"""\
{fill(paragraph)}

Args:
    {other} (Tensor or Number): the second operand.

{RETURNS_SELF}

Example::

    >>> genesis.tensor({start}).{name}_({operand})
    {output}
"""


def comparison_alias(name: str, target: str, symbol: str, operands: str, output: str) -> str:
    """genesis.<name> and Tensor.<name>: NumPy's name for the comparison <target>."""
    return f"""\
Tests ``input {symbol} other`` elementwise; returns a bool tensor: ``genesis.{target}`` under NumPy's name (the same op).

Args:
{INPUT_OPERAND}
{OTHER_OPERAND}
{OUT_CAST}

{RETURNS_BOOL_BROADCAST}

Example::

    >>> genesis.{name}({operands})
    {output}
"""
