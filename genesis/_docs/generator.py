"""Docstrings of csrc/python/generator.cpp: genesis.Generator, the RNG state functions and the
distributions.
"""

from ._fragments import GENERATOR, RETURNS_NONE, RETURNS_SELF

DOCS = {
    "Generator": """\
An independent stream of random numbers, for the ``generator=`` argument of random ops.

Each generator is a Philox4x32-10 stream: a seed and an offset that every draw advances. Its
numbers depend only on that state, so a generator gives the same numbers on the CPU and on
CUDA; the device it is made for is recorded (PyTorch's API) but it can fill tensors on any
device. ``genesis.default_generator`` serves every call without ``generator=``.

Args:
    device (str or genesis.device): the device it is made for. Default: "cpu".

Example::

    >>> g = genesis.Generator().manual_seed(7)
    >>> a = genesis.rand(3, generator=g)
    >>> b = genesis.rand(3, generator=genesis.Generator().manual_seed(7))
    >>> genesis.equal(a, b)
    True
""",
    "Generator.__init__": f"""\
Makes a generator seeded with PyTorch's default seed, 67280421310721.

Args:
    device (str or genesis.device): the device it is made for. Default: "cpu".

{RETURNS_NONE}

Example::

    >>> genesis.Generator("cpu").initial_seed()
    67280421310721
""",
    "Generator.manual_seed": """\
Restarts this generator at ``seed`` and returns the generator itself.

Args:
    seed (int): any integer in [-2**63, 2**64); negative seeds wrap to their two's complement.

Returns:
    Generator: this generator.

Example::

    >>> g = genesis.Generator()
    >>> g.manual_seed(3).initial_seed()
    3
""",
    "Generator.seed": """\
Seeds this generator with a nondeterministic number and returns the seed.

Returns:
    int: the new seed.

Example::

    >>> g = genesis.Generator()
    >>> s = g.seed()
    >>> g.initial_seed() == s
    True
""",
    "Generator.initial_seed": """\
Returns the seed this generator was last started at.

Returns:
    int: the seed, in [0, 2**64).

Example::

    >>> genesis.Generator().manual_seed(11).initial_seed()
    11
""",
    "Generator.get_state": """\
Returns this generator's state as a uint8 CPU tensor of 16 bytes (seed, then offset).

Returns:
    Tensor: the state, for ``set_state``.

Example::

    >>> g = genesis.Generator().manual_seed(1)
    >>> state = g.get_state()
    >>> a = genesis.rand(2, generator=g)
    >>> b = genesis.rand(2, generator=g.set_state(state))
    >>> genesis.equal(a, b)
    True
""",
    "Generator.set_state": """\
Restores a state from ``get_state`` and returns the generator itself.

Args:
    new_state (Tensor): a uint8 CPU tensor of 16 bytes, as ``get_state`` returns.

Returns:
    Generator: this generator.

Example::

    >>> g = genesis.Generator()
    >>> g.set_state(genesis.Generator().manual_seed(5).get_state()).initial_seed()
    5
""",
    "Generator.device": """\
The device this generator was made for.

Example::

    >>> genesis.Generator().device
    device(type='cpu')
""",
    "get_rng_state": """\
Returns the default generator's state as a uint8 CPU tensor of 16 bytes.

Returns:
    Tensor: the state, for ``set_rng_state``.

Example::

    >>> state = genesis.get_rng_state()
    >>> a = genesis.rand(2)
    >>> genesis.set_rng_state(state)
    >>> genesis.equal(a, genesis.rand(2))
    True
""",
    "set_rng_state": f"""\
Restores the default generator's state from ``get_rng_state``.

Args:
    new_state (Tensor): a uint8 CPU tensor of 16 bytes.

{RETURNS_NONE}

Example::

    >>> genesis.set_rng_state(genesis.get_rng_state())
""",
    "randperm": f"""\
Returns a random permutation of the integers 0 to n - 1.

The permutation sorts random 64-bit keys (a stable sort), so it is the same on every device for
a generator state.

Args:
    n (int): the number of items, non-negative.
{GENERATOR}
    dtype (genesis.dtype, optional): keyword-only: the result's dtype. Default: None (int64).
    device (str or genesis.device, optional): keyword-only: where to make it. Default: None
        (the CPU).

Returns:
    Tensor: the permutation.

Example::

    >>> p = genesis.randperm(5, generator=genesis.Generator().manual_seed(0))
    >>> sorted(p.tolist())
    [0, 1, 2, 3, 4]
""",
    "Tensor.multinomial multinomial": f"""\
Draws category indices with probabilities proportional to non-negative weights.

Each row of a 2-d ``input`` (or a 1-d ``input``) holds the weights of its categories; it must
have a positive sum, no NaN, no infinity and no negative weight (ValueError otherwise). Without
replacement every index appears at most once per row, drawn in order (each next with
probability proportional to the weights left; Note [Exponential races]).

Args:
    input (Tensor): 1-d or 2-d floating point weights.
    num_samples (int): indices to draw per row.
    replacement (bool): draw with replacement. Default: False.
{GENERATOR}

Returns:
    Tensor: int64 indices, ``(num_samples,)`` or ``(rows, num_samples)``.

Example::

    >>> w = genesis.tensor([0.0, 10.0, 0.0, 1.0])
    >>> sorted(genesis.multinomial(w, 2).tolist())
    [1, 3]
""",
    "Tensor.bernoulli bernoulli": f"""\
Draws 1 with the probability in each item of ``input``, else 0.

Args:
    input (Tensor): floating point probabilities in [0, 1].
{GENERATOR}

Returns:
    Tensor: zeros and ones, of the input's shape and dtype.

Example::

    >>> genesis.bernoulli(genesis.tensor([0.0, 1.0, 1.0]))
    tensor([0., 1., 1.])
""",
    "poisson": """\
Draws a Poisson count for each rate in ``input``.

Item ``i`` of the result is a sample of Poisson(``input[i]``): a non-negative whole number
with mean and variance ``input[i]``. Rates below 10 use Knuth's product of uniforms, larger
ones Hörmann's transformed rejection (PTRS); each element draws from its own Philox counters,
so a generator state gives the same numbers on the CPU and on CUDA (they differ from
PyTorch's). The generator advances by one counter per element.

Args:
    input (Tensor): floating point rates, finite and non-negative (others raise ValueError).
    generator (genesis.Generator, optional): the stream to draw from. Default: None (the
        default generator).

Returns:
    Tensor: the counts, of the input's shape and dtype.

Example::

    >>> genesis.poisson(genesis.tensor([0.0, 0.0]))
    tensor([0., 0.])
    >>> genesis.poisson(genesis.full((1000,), 4.0)).mean().item() > 3.5
    True
""",
    "normal": f"""\
Draws normal numbers with the given means and standard deviations.

``mean`` and ``std`` are tensors (broadcast together) or numbers; with two numbers ``size``
gives the shape.

Args:
    mean (Tensor or float): the means. Default: 0.0.
    std (Tensor or float): the standard deviations. Default: 1.0.
    size (sequence of ints, optional): the shape, with number mean and std. Default: None.
{GENERATOR}
    dtype (genesis.dtype, optional): keyword-only: the dtype, with number mean and std.
        Default: None (float32).
    device (str or genesis.device, optional): keyword-only: the device, with number mean and
        std. Default: None (the CPU).

Returns:
    Tensor: the draws.

Example::

    >>> genesis.normal(genesis.tensor([0.0, 100.0]), 0.0).tolist()
    [0.0, 100.0]
    >>> genesis.normal(2.0, 3.0, size=(2, 3)).shape
    genesis.Size([2, 3])
""",
    "Tensor.uniform_": f"""\
Fills the tensor with numbers drawn uniformly from [from, to) and returns it.

Args:
    from_ (float): the lower bound (PyTorch's ``from``, a Python keyword). Default: 0.0.
    to (float): the upper bound. Default: 1.0.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> x = genesis.empty(100).uniform_(-2.0, 2.0)
    >>> bool((x >= -2).all() and (x < 2).all())
    True
""",
    "Tensor.normal_": f"""\
Fills the tensor with normal numbers of the given mean and standard deviation.

Args:
    mean (float): the mean. Default: 0.0.
    std (float): the standard deviation, non-negative. Default: 1.0.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> genesis.empty(3).normal_(5.0, 0.0).tolist()
    [5.0, 5.0, 5.0]
""",
    "Tensor.random_": f"""\
Fills the tensor with integers drawn uniformly from [from, to).

``random_(to)`` draws from [0, to); ``random_()`` from 0 up to the largest integer the dtype
holds exactly (2**24 for float32, the maximum for integer dtypes).

Args:
    from_ (int, optional): the lower bound, or the upper bound when ``to`` is None
        (PyTorch's ``from``, a Python keyword). Default: None.
    to (int, optional): the upper bound (exclusive). Default: None.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> x = genesis.empty(50, dtype=genesis.int64).random_(3, 6)
    >>> sorted(set(x.tolist())) <= [3, 4, 5]
    True
""",
    "Tensor.exponential_": f"""\
Fills the tensor with exponential numbers of rate ``lambd`` (mean 1 / lambd).

Args:
    lambd (float): the rate, positive. Default: 1.0.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> bool((genesis.empty(100).exponential_(2.0) >= 0).all())
    True
""",
    "Tensor.geometric_": f"""\
Fills the tensor with geometric numbers: trials up to the first success of probability p.

Args:
    p (float): the success probability, in (0, 1).
{GENERATOR}

Returns:
    Tensor: this tensor (values 1, 2, ...).

Example::

    >>> bool((genesis.empty(100).geometric_(0.5) >= 1).all())
    True
""",
    "Tensor.log_normal_": f"""\
Fills the tensor with log-normal numbers: exp of normal(mean, std).

Args:
    mean (float): the mean of the logarithm. Default: 1.0.
    std (float): the standard deviation of the logarithm, positive. Default: 2.0.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> bool((genesis.empty(100).log_normal_() > 0).all())
    True
""",
    "Tensor.cauchy_": f"""\
Fills the tensor with Cauchy numbers of the given median and scale.

Args:
    median (float): the median. Default: 0.0.
    sigma (float): the scale, positive. Default: 1.0.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> genesis.empty(4).cauchy_().shape
    genesis.Size([4])
""",
    "Tensor.bernoulli_": f"""\
Fills the tensor with 1 with probability ``p``, else 0.

Args:
    p (float or Tensor): the probability, or a tensor of probabilities broadcast to this
        tensor. Default: 0.5.
{GENERATOR}

{RETURNS_SELF}

Example::

    >>> genesis.empty(3).bernoulli_(1.0).tolist()
    [1.0, 1.0, 1.0]
""",
}
