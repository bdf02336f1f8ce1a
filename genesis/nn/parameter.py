"""``nn.Parameter`` and ``nn.Buffer``: tensors a Module registers when they are assigned to it.

Note [Parameter is a Tensor subclass]: ``Parameter(data)`` is a Python subclass of
genesis.Tensor whose C++ tensor is an alias of ``data`` (``Tensor.data = data``: same memory,
its own autograd record), so ``isinstance(p, Tensor)`` holds, every op takes it as it takes a
tensor and returns a plain Tensor, and the gradient accumulates in ``p.grad``. It requires grad
by default. ``Buffer`` is a marker for ``module.x = nn.Buffer(t)``: the module registers the
tensor (not the Buffer) as a buffer, as PyTorch does.

Note [Uninitialized tensors]: ``UninitializedParameter`` and ``UninitializedBuffer`` are the
placeholders of lazy modules (genesis/nn/modules/lazy.py): tensors whose shape is not known yet.
Each holds an empty tensor that only carries the dtype and device to materialize with, so
``module.to(dtype)`` and ``.cuda()`` work on them (a cast gives another placeholder).
PyTorch refuses every other use through ``__torch_function__``; genesis has no such dispatch,
so the placeholder classes replace every other Tensor method and operator with one that raises
ValueError, and the shape attributes with ones that raise RuntimeError (a compiled op given a
placeholder directly, ``genesis.add(p, 1)``, has no such hook: it sees the empty tensor, and most
ops then fail on its shape). ``materialize(shape)``
gives the object its memory and turns it, in place, into a Parameter or a plain Tensor (the
classes keep Tensor's instance layout, ``__slots__ = ()``, so ``__class__`` can change).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from .._C import Tensor, empty

if TYPE_CHECKING:
    from typing import TypeGuard  # Python 3.10; mypy runs on 3.10 or later

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "is_lazy"]


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


# Note [Uninitialized tensors]: the Tensor methods a placeholder keeps as they are (they need no
# values), the casts and moves that give another placeholder, and the shape attributes it refuses.
_KEPT = frozenset({"__hash__", "is_floating_point", "requires_grad_"})
_CASTS: tuple[str, ...] = ("to", "cuda", "cpu", "type", "float", "double", "half", "bfloat16")
_CASTS += ("char", "short", "int", "long", "byte", "bool")
_SHAPE_ATTRIBUTES = ("shape", "ndim", "strides", "nbytes", "T", "mT")
_OWN = frozenset({"__init__", "__new__", "__repr__", "__str__", "__format__", "__deepcopy__"})
_OWN |= {"__reduce_ex__", "__dict__", "__doc__", "__module__", "detach", "share_memory_"}


_Placeholder = TypeVar("_Placeholder", bound="UninitializedTensorMixin")


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share (Note [Uninitialized
    tensors]): ``materialize``, the casts, and the refusal of every other use."""

    __slots__ = ()
    cls_to_become: type
    _what = "tensor"

    if TYPE_CHECKING:
        # Tensor's attributes, which the placeholder classes have from their Tensor base (the
        # mixin comes first in their MRO, so defining them here at runtime would shadow them).
        @property
        def data(self) -> Tensor: ...
        @data.setter
        def data(self, value: Tensor, /) -> None: ...
        @property
        def requires_grad(self) -> bool: ...
        @requires_grad.setter
        def requires_grad(self, value: bool, /) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # everything happens in __new__

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Gives the placeholder memory of ``shape`` (uninitialized values) and makes it a
        Parameter (UninitializedParameter) or a plain Tensor (UninitializedBuffer), in place.

        Args:
            shape (tuple of ints): the shape of the materialized tensor.
            device, dtype (optional): where and in which dtype; by default the placeholder's.
        """
        data = self.data
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.data = empty(
            shape,
            device=data.device if device is None else device,
            dtype=data.dtype if dtype is None else dtype,
        )
        vars(self).pop("persistent", None)
        self.__class__ = self.cls_to_become

    def _like(self: _Placeholder, data: Tensor, requires_grad: bool) -> _Placeholder:
        """Another placeholder of this class whose empty tensor is ``data``."""
        new = Tensor.__new__(type(self))
        new.data = data
        Tensor.requires_grad_(new, requires_grad)
        vars(new).update(vars(self))
        return new

    def detach(self: _Placeholder) -> _Placeholder:
        """A placeholder that does not require grad (Module's moves detach what they move)."""
        return self._like(self.data, False)

    def share_memory_(self) -> NoReturn:
        raise RuntimeError(
            f"[{type(self).__name__}] Can't share memory on an uninitialized {self._what}: run "
            "the module's forward to initialize its parameters before module.share_memory()"
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __deepcopy__(self: _Placeholder, memo: dict) -> _Placeholder:
        if id(self) not in memo:
            memo[id(self)] = self._like(self.data.clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> tuple:
        # Rebuilt from the constructor's arguments; the device and dtype are not kept (PyTorch).
        return (type(self), (self.requires_grad,))


def _refused(name: str) -> Any:
    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise ValueError(
            f"[{type(self).__name__}] Attempted to use an uninitialized {self._what} in "
            f"Tensor.{name}: it has no shape or values yet. This happens when a lazy module's "
            f"parameters are used before its first call, or when a {type(self).__name__} is "
            "used directly: run the module once on a batch (or call materialize(shape)) first"
        )

    refused.__name__ = name
    return refused


def _shape_refused(name: str) -> property:
    def refused(self: Any) -> Any:
        raise RuntimeError(
            f"[{type(self).__name__}] Can't access the {name} of an uninitialized parameter or "
            "buffer. This usually happens in load_state_dict when an uninitialized parameter is "
            "loaded into an initialized one; call forward to initialize the parameters before "
            "reading their attributes"
        )

    return property(refused)


def _cast(name: str) -> Any:
    method = getattr(Tensor, name)

    def cast(self: Any, *args: Any, **kwargs: Any) -> Any:
        data = self.data
        result = method(data, *args, **kwargs)
        if not isinstance(result, Tensor):  # type() without arguments: the type's name
            return result
        if result.dtype == data.dtype and result.device == data.device:
            return self
        return self._like(result, self.requires_grad)

    cast.__name__ = name
    cast.__doc__ = f"Another placeholder, its empty tensor given to Tensor.{name}."
    return cast


for _name, _attr in vars(Tensor).items():
    if _name in _KEPT or _name in _OWN:
        continue
    if _name in _CASTS:
        setattr(UninitializedTensorMixin, _name, _cast(_name))
    elif _name in _SHAPE_ATTRIBUTES:
        setattr(UninitializedTensorMixin, _name, _shape_refused(_name))
    elif callable(_attr) and not isinstance(_attr, (staticmethod, classmethod)):
        setattr(UninitializedTensorMixin, _name, _refused(_name))


def is_lazy(param: Any) -> TypeGuard[UninitializedTensorMixin]:
    """Whether ``param`` is an :class:`UninitializedParameter` or :class:`UninitializedBuffer`."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet: a lazy module's weight until its first call.

    It holds no values; it can change dtype and device (``module.to``) and become a
    :class:`Parameter` with :meth:`materialize`. Any other use (math, indexing, ``shape``)
    raises an error that starts with ``[UninitializedParameter]``.

    Args:
        requires_grad (bool): whether the materialized parameter requires grad. Default: True.
        device, dtype (optional): where and in which dtype it will be materialized.

    Example::

        >>> p = genesis.nn.UninitializedParameter()
        >>> p
        <UninitializedParameter>
        >>> p.materialize((2, 3))
        >>> type(p).__name__, p.shape
        ('Parameter', genesis.Size([2, 3]))
    """

    cls_to_become = Parameter
    _what = "parameter"

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None):
        self = Tensor.__new__(cls)
        self.data = empty(0, device=device, dtype=dtype)
        Tensor.requires_grad_(self, bool(requires_grad))
        return self


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet: a lazy BatchNorm's running statistics until its
    first call.

    It holds no values; it can change dtype and device (``module.to``) and become a plain
    tensor with :meth:`materialize`. Any other use raises an error that starts with
    ``[UninitializedBuffer]``. Register it with ``module.register_buffer(name, buffer)``.

    Args:
        requires_grad (bool): whether the materialized buffer requires grad. Default: False.
        device, dtype (optional): where and in which dtype it will be materialized.
        persistent (bool): kept as the ``persistent`` attribute, as PyTorch's. Default: True.

    Example::

        >>> b = genesis.nn.UninitializedBuffer()
        >>> b.materialize(3)
        >>> type(b).__name__, b.shape
        ('Tensor', genesis.Size([3]))
    """

    __slots__ = ()
    cls_to_become = Tensor
    _what = "buffer"
    persistent: bool

    def __new__(
        cls,
        requires_grad: bool = False,
        device: Any = None,
        dtype: Any = None,
        persistent: bool = True,
    ):
        self = Tensor.__new__(cls)
        self.data = empty(0, device=device, dtype=dtype)
        Tensor.requires_grad_(self, bool(requires_grad))
        self.persistent = persistent
        return self

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (type(self), (self.requires_grad, None, None, self.persistent))
