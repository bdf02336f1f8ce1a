"""Docstrings of csrc/python/counting.cpp: bincount and histc."""

from ._fragments import INPUT_FLOAT, OUT_RESULT_SHAPE

DOCS = {
    "Tensor.bincount bincount": """\
Counts how often each non-negative integer occurs in a 1-d tensor.

Item ``k`` of the result is the number of items of ``input`` equal to ``k`` or, with
``weights``, the sum of the weights at those items. The result has
``max(input.max() + 1, minlength)`` items, so genesis waits once for the device to learn its
length. Counts are int64; float32 weights give float32 sums and any other weights float64 (as
PyTorch). An empty ``input`` gives ``minlength`` int64 zeros. On CUDA, weighted sums add in
an unspecified order.

Args:
    input (Tensor): a 1-d tensor of non-negative integers (any integer dtype but bool).
    weights (Tensor, optional): 1-d weights of the input's length. Default: None.
    minlength (int): the least length of the result; non-negative. Default: 0.

Returns:
    Tensor: the counts or weighted sums, 1-d.

Example::

    >>> genesis.bincount(genesis.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    >>> genesis.tensor([2, 2]).bincount(genesis.tensor([0.5, 0.25]), minlength=4)
    tensor([0.0000, 0.0000, 0.7500, 0.0000])
""",
    "Tensor.histc histc": f"""\
Returns a histogram of ``bins`` equal-width bins between ``min`` and ``max``.

With ``min == max`` (the default) the range is the data's own smallest and largest items
(one wait for the device), widened by 1 on each side when those are equal too. Item ``x``
goes to bin ``trunc((x - min) * bins / (max - min))`` computed in the input's dtype, as
PyTorch's CPU histc, and ``x == max`` to the last bin. Items outside the range and NaNs are
not counted. Floating point inputs only (others raise TypeError), of any shape.

Args:
{INPUT_FLOAT}
    bins (int): the number of bins; positive. Default: 100.
    min (float): the lower end of the range. Default: 0.
    max (float): the upper end of the range. Default: 0.
{OUT_RESULT_SHAPE}

Returns:
    Tensor: the counts, 1-d with ``bins`` items, of the input's dtype.

Example::

    >>> genesis.histc(genesis.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    >>> genesis.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]).histc(4)
    tensor([2., 1., 1., 2.])
""",
    "Tensor.histogram histogram": """\
Returns a histogram of ``input`` and its bin edges.

``bins`` is a number of equal bins over ``range`` (the data's smallest and largest items
without it, widened by 0.5 each side when they are equal; ``[0, 1]`` for an empty input), whose
edges are ``genesis.linspace(min, max, bins + 1)`` in the input's dtype (PyTorch's edges can
differ in the last bit), or a 1-d increasing tensor of edges. An item goes to bin ``k`` when ``edge[k] <= item < edge[k + 1]``;
the last bin also takes the last edge; other items and NaNs are not counted. float32 and
float64 inputs only (others raise TypeError), as PyTorch.

Args:
    input (Tensor): a float32 or float64 tensor of any shape.
    bins (int or Tensor): the number of bins, or the bin edges. Default: 100.
    range (tuple, optional): keyword-only: ``(min, max)`` for an int ``bins``. Default: None.
    weight (Tensor, optional): keyword-only: weights of the input's shape and dtype, summed
        instead of counting. Default: None.
    density (bool): keyword-only: divide by the total and the bin widths, so that the
        histogram integrates to 1. Default: False.

Returns:
    tuple: a named tuple ``(hist, bin_edges)``, both of the input's dtype.

Example::

    >>> genesis.histogram(genesis.tensor([1.0, 2.0, 1.0, 4.0]), 3)
    histogram(hist=tensor([2., 1., 1.]), bin_edges=tensor([1., 2., 3., 4.]))
""",
}
