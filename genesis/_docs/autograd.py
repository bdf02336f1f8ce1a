"""Docstrings of autograd's Tensor attributes and methods (python/autograd.cpp)."""

DOCS = {
    "Tensor.requires_grad": """\
Whether autograd records the operations on this tensor.

Setting it is allowed on leaves only, and ``True`` only for floating dtypes.

Example::

    >>> x = genesis.ones(2)
    >>> x.requires_grad = True
    >>> (x * 2).requires_grad
    True
""",
    "Tensor.requires_grad_": """\
Sets ``requires_grad`` in place and returns the tensor.

Args:
    requires_grad: whether autograd records operations on this tensor. Default: ``True``.

Returns:
    This tensor.

Example::

    >>> genesis.ones(2).requires_grad_().requires_grad
    True
""",
    "Tensor.grad": """\
The gradient that ``backward`` accumulated for this tensor (``None`` until then).

It may be assigned a tensor of the same shape, dtype and device, or ``None``.

Example::

    >>> x = genesis.tensor([1.0, 2.0]).requires_grad_()
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
""",
    "Tensor.grad_fn": """\
The graph node that made this tensor (``None`` for a leaf).

It has ``name()`` and ``next_functions``, as PyTorch's.

Example::

    >>> x = genesis.ones(2).requires_grad_()
    >>> (x * 2).grad_fn.name()
    'MulBackward0'
""",
    "Tensor.is_leaf": """\
Whether the tensor was made by the user rather than by a recorded op.

Example::

    >>> x = genesis.ones(2).requires_grad_()
    >>> x.is_leaf, (x * 2).is_leaf
    (True, False)
""",
    "Tensor.detach": """\
The same memory outside the graph: no history, no gradient.

Returns:
    A tensor sharing this tensor's memory, with ``requires_grad`` False.

Example::

    >>> x = genesis.ones(2).requires_grad_()
    >>> (x * 2).detach().requires_grad
    False
""",
    "Tensor.detach_": """\
Takes this tensor out of the graph in place.

Returns:
    This tensor, now a leaf that does not require grad.

Example::

    >>> y = genesis.ones(2).requires_grad_() * 2
    >>> y.detach_().requires_grad
    False
""",
    "Tensor.data": """\
A detached alias of the tensor (the same memory, outside the graph).

Assigning a tensor makes this tensor view the assigned one's memory and keeps its autograd
record.

Example::

    >>> x = genesis.ones(2).requires_grad_()
    >>> x.data.requires_grad
    False
""",
    "Tensor.retain_grad": """\
Keeps the gradient of this non-leaf tensor in ``.grad`` after backward.

Returns:
    None.

Example::

    >>> x = genesis.ones(2).requires_grad_()
    >>> y = x * 3
    >>> y.retain_grad()
    >>> y.sum().backward()
    >>> y.grad
    tensor([1., 1.])
""",
    "Tensor.retains_grad": """\
Whether ``retain_grad()`` was called on this non-leaf tensor.

Example::

    >>> (genesis.ones(2).requires_grad_() * 2).retains_grad
    False
""",
    "Tensor.register_hook": """\
Runs ``hook(grad)`` on this tensor's gradient during backward.

A tensor that the hook returns replaces the gradient; ``None`` keeps it.

Args:
    hook: a callable taking the gradient.

Returns:
    A handle whose ``remove()`` takes the hook off again.

Example::

    >>> x = genesis.ones(2).requires_grad_()
    >>> h = x.register_hook(lambda g: g * 2)
    >>> x.sum().backward()
    >>> x.grad
    tensor([2., 2.])
    >>> h.remove()
""",
    "Tensor.register_post_accumulate_grad_hook": """\
Runs ``hook(tensor)`` each time backward has added a gradient into this leaf's ``.grad``.

The hook sees the accumulated ``.grad`` (and may use or replace it: an optimizer step during
backward, or DistributedDataParallel's bucket that is ready); what it returns is ignored. Only a
leaf that requires grad takes one (RuntimeError otherwise).

Args:
    hook: a callable taking the tensor.

Returns:
    A handle whose ``remove()`` takes the hook off again.

Example::

    >>> w = genesis.ones(2).requires_grad_()
    >>> seen = []
    >>> h = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    >>> (w * 3).sum().backward()
    >>> seen
    [[3.0, 3.0]]
    >>> h.remove()
""",
    "Tensor.backward": """\
Adds the gradient of this tensor into the ``.grad`` of the leaves it depends on.

Args:
    gradient: this tensor's gradient. Default: ``None``, ones (one-element tensors only).
    retain_graph: keep the saved tensors for another backward. Default: ``create_graph``.
    create_graph: record the pass, so gradients can be differentiated again. Default: False.
    inputs: accumulate only into these tensors' ``.grad``. Default: ``None``, every leaf.

Returns:
    None.

Example::

    >>> x = genesis.tensor([1.0, 2.0]).requires_grad_()
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
""",
    "Tensor._version": """\
The write version of the tensor's memory: it grows with every in-place write.

Example::

    >>> x = genesis.zeros(2)
    >>> v = x._version
    >>> x.add_(1)._version > v
    True
""",
    "_autograd.backward": """\
Adds the gradients of ``tensors`` into the ``.grad`` of the leaves they depend on.

Args:
    tensors: a tensor or a sequence of tensors to differentiate.
    grad_tensors: the gradient of each. Default: ``None``, ones (one-element tensors only).
    retain_graph: keep the saved tensors for another backward. Default: ``create_graph``.
    create_graph: record the pass, so gradients can be differentiated again. Default: False.
    inputs: accumulate only into these tensors' ``.grad``. Default: ``None``, every leaf.

Returns:
    None.

Example::

    >>> x = genesis.tensor([1.0, 2.0]).requires_grad_()
    >>> genesis.autograd.backward((x * x).sum())
    >>> x.grad
    tensor([2., 4.])
""",
    "_autograd.grad": """\
The gradients of ``outputs`` with respect to ``inputs``; no ``.grad`` is touched.

Args:
    outputs: a tensor or a sequence of tensors to differentiate.
    inputs: a tensor or a sequence of tensors to differentiate with respect to.
    grad_outputs: the gradient of each output. Default: ``None``, ones (one-element outputs).
    retain_graph: keep the saved tensors for another pass. Default: ``create_graph``.
    create_graph: record the pass, so gradients can be differentiated again. Default: False.
    allow_unused: give None for an input the outputs do not depend on. Default: False (an
        error).

Returns:
    A tuple with one gradient (or None) per input.

Example::

    >>> x = genesis.tensor(3.0).requires_grad_()
    >>> genesis.autograd.grad(x ** 2, x)
    (tensor(6.),)
""",
}
