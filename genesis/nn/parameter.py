"""``nn.Parameter`` and ``nn.Buffer``: tensors a Module registers when they are assigned to it.

Note [Parameter is a Tensor subclass]: ``Parameter(data)`` is a Python subclass of
genesis.Tensor whose C++ tensor is an alias of ``data`` (``Tensor.data = data``: same memory,
its own autograd record), so ``isinstance(p, Tensor)`` holds, every op takes it as it takes a
tensor and returns a plain Tensor, and the gradient accumulates in ``p.grad``. It requires grad
by default. ``Buffer`` is a marker for ``module.x = nn.Buffer(t)``: the module registers the
tensor (not the Buffer) as a buffer, as PyTorch does.
"""

from __future__ import annotations

from .._C import Tensor, empty

__all__ = ["Buffer", "Parameter"]


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    Args:
        data (Tensor, optional): the values; the parameter shares their memory. Default: an
            empty float tensor.
        requires_grad (bool, optional): whether the parameter requires gradient. Default: True.

    Example::

        >>> p = genesis.nn.Parameter(genesis.zeros(2))
        >>> p
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
        >>> isinstance(p, genesis.Tensor)
        True
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"[Parameter] data must be a genesis.Tensor, got {type(data).__name__}")
        self = Tensor.__new__(cls)
        self.data = data  # an alias of data's memory, with its own autograd record
        self.requires_grad_(bool(requires_grad))
        return self

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor has no __init__ to call)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        copy = type(self)(self.data.clone(), self.requires_grad)
        if self.grad is not None:
            copy.grad = self.grad.clone()
        memo[id(self)] = copy
        return copy

    def __reduce_ex__(self, protocol):
        # Pickled as its data and flag; the restricted unpickler of genesis.load rebuilds it
        # through _rebuild_parameter (a name it allows).
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A marker that makes a Module register a tensor as a buffer when it is assigned:
    ``self.running_mean = nn.Buffer(zeros(3))``. The module holds the tensor itself.

    Args:
        data (Tensor): the buffer's values (the buffer is this tensor, not a copy).
        persistent (bool, optional): whether the buffer is part of the state_dict. Default: True.
    """

    persistent: bool
    _original: Tensor

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"[Buffer] data must be a genesis.Tensor, got {type(data).__name__}")
        self = Tensor.__new__(cls)
        self.data = data
        self.persistent = persistent
        self._original = data
        return self

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass
