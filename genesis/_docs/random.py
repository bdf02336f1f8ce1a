"""Docstrings of the random number functions (csrc/python/random.cpp)."""

from ._fragments import (
    DEVICE,
    DEVICE_LIKE,
    DTYPE_LIKE,
    GENERATOR,
    INPUT_LIKE,
    RETURNS_NONE,
    SIZE,
    example,
)


def _random_like(numbers: str, function: str, samples: str, *example_lines: str) -> str:
    """genesis.rand_like and genesis.randn_like: ``function``'s ``numbers`` in ``input``'s shape."""
    return f"""\
Returns {numbers} with the shape of ``input`` (and its dtype).

See ``{function}``; ``input``'s dtype must be floating point unless ``dtype`` is given.

Args:
{INPUT_LIKE}
    dtype (genesis.dtype, optional): keyword-only: a floating point dtype instead of
        ``input``'s. Default: None.
{DEVICE_LIKE}

Returns:
    Tensor: a new tensor of {samples} samples.

{example(*example_lines)}"""


DOCS = {
    "manual_seed": f"""\
Restarts the random number generator at ``seed``, on every device.

genesis has one generator for all devices, counter-based (Philox4x32-10): element ``i`` of a
draw depends only on the seed and a counter, so a seed gives the same numbers on the CPU and
on CUDA (``randn`` up to the last bit), however the work is split across threads. The
numbers differ from PyTorch's for the same seed. Unlike ``torch.manual_seed``, nothing is
returned.

Args:
    seed (int): any integer in [-2**63, 2**64); negative seeds wrap to their two's complement.

{RETURNS_NONE}

Example::

    >>> genesis.manual_seed(0)
    >>> a = genesis.rand(4)
    >>> genesis.manual_seed(0)
    >>> b, c = genesis.rand(2), genesis.rand(2)
    >>> b.tolist() + c.tolist() == a.tolist()
    True
""",
    "initial_seed": """\
Returns the seed the random number generator was last started at.

Before any ``manual_seed`` or ``seed`` call it is 67280421310721, PyTorch's default.

Returns:
    int: the seed, in [0, 2**64).

Example::

    >>> genesis.manual_seed(42)
    >>> genesis.initial_seed()
    42
    >>> genesis.manual_seed(-1)
    >>> genesis.initial_seed()
    18446744073709551615
""",
    "seed": """\
Seeds the random number generator with a nondeterministic number and returns it.

Returns:
    int: the new seed (also what ``initial_seed()`` returns now).

Example::

    >>> s = genesis.seed()
    >>> genesis.initial_seed() == s
    True
""",
    "rand": f"""\
Returns a tensor of random numbers drawn uniformly from [0, 1).

The dtype must be floating point (TypeError otherwise); float16 and bfloat16 values stay below
1. A seed gives the same numbers on the CPU and on CUDA, bit for bit, and two draws of 2 numbers
equal one draw of 4 (see ``manual_seed``).

Args:
{SIZE}
{GENERATOR}
    dtype (genesis.dtype, optional): keyword-only: a floating point dtype. Default: None
        (float32).
{DEVICE}

Returns:
    Tensor: a new tensor of uniform samples.

Example::

    >>> genesis.manual_seed(0)
    >>> x = genesis.rand(2, 3)
    >>> x.shape, bool(((x >= 0) & (x < 1)).all())
    (genesis.Size([2, 3]), True)
    >>> genesis.manual_seed(0)
    >>> genesis.rand(6).tolist() == x.flatten().tolist()
    True
""",
    "randn": f"""\
Returns a tensor of random numbers drawn from the standard normal distribution.

Box-Muller over the Philox generator (see ``manual_seed``). float32 and the 16-bit types are
computed in float32, four numbers per counter, from 24-bit uniforms (so ``|x| < 5.77``);
float64 takes one counter per element. Results may differ in the last bit between the CPU and a
GPU, whose ``log`` and ``cos`` round differently. The dtype must be floating point.

Args:
{SIZE}
{GENERATOR}
    dtype (genesis.dtype, optional): keyword-only: a floating point dtype. Default: None
        (float32).
{DEVICE}

Returns:
    Tensor: a new tensor of normal samples.

Example::

    >>> genesis.manual_seed(0)
    >>> x = genesis.randn(1000, dtype=genesis.float64)
    >>> x.shape, abs(x.mean().item()) < 0.1, abs(x.std().item() - 1) < 0.1
    (genesis.Size([1000]), True, True)
""",
    "randint": f"""\
Returns a tensor of random integers drawn uniformly from [``low``, ``high``).

Takes PyTorch's two forms, ``randint(high, size)`` (``low`` is 0) and ``randint(low, high,
size)``, positionally or by keyword. The result is int64 unless ``dtype`` says otherwise; the
range must fit the dtype and not be empty (ValueError), and bool is refused. A seed gives the
same numbers on the CPU and on CUDA.

Args:
    low (int, optional): the smallest value. Default: 0.
    high (int): one above the largest value.
    size (tuple of ints): the shape of the result.
{GENERATOR}
    dtype (genesis.dtype, optional): keyword-only: the dtype. Default: None (int64, or
        ``out``'s dtype).
    device (genesis.device, str or int, optional): keyword-only: the device. Default: None
        (the CPU, or ``out``'s device).
    out (Tensor, optional): keyword-only tensor to write the result into (resized to ``size``
        as PyTorch resizes out). Default: None.

Returns:
    Tensor: a new tensor of random integers, or ``out``.

Example::

    >>> genesis.manual_seed(0)
    >>> n = genesis.randint(3, 10, (1000,))
    >>> n.dtype, n.min().item() >= 3, n.max().item() <= 9
    (genesis.int64, True, True)
    >>> genesis.randint(10, (2, 2)).shape
    genesis.Size([2, 2])
    >>> genesis.randint(0, 256, (4,), dtype=genesis.uint8).dtype
    genesis.uint8
""",
    "rand_like": _random_like(
        "uniform random numbers in [0, 1)",
        "rand",
        "uniform",
        ">>> genesis.rand_like(genesis.zeros(2, 2, dtype=genesis.float16)).dtype",
        "genesis.float16",
    ),
    "randn_like": _random_like(
        "standard normal random numbers",
        "randn",
        "normal",
        ">>> genesis.randn_like(genesis.zeros(3, dtype=genesis.float64)).shape",
        "genesis.Size([3])",
    ),
    "randint_like": f"""\
Returns random integers in [``low``, ``high``) with ``input``'s shape (and its dtype).

``randint_like(input, high)`` or ``randint_like(input, low, high)``. The result has
``input``'s dtype (a float tensor gets whole numbers as floats) unless ``dtype`` is given.

Args:
{INPUT_LIKE}
    low (int, optional): the smallest value. Default: 0.
    high (int): one above the largest value.
{DTYPE_LIKE}
{DEVICE_LIKE}

Returns:
    Tensor: a new tensor of random integers.

Example::

    >>> genesis.manual_seed(0)
    >>> r = genesis.randint_like(genesis.zeros(100), 5)
    >>> r.dtype, bool((r == r.long()).all()), r.max().item() < 5
    (genesis.float32, True, True)
""",
}
