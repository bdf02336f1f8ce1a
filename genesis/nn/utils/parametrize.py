"""``nn.utils.parametrize``: a module's parameter or buffer computed by modules from stored
originals (``weight = parametrization(original)``), with PyTorch's layout and names.

Note [Parametrized modules]: registering a parametrization moves the tensor ``name`` to
``module.parametrizations[name].original`` (or ``original0``, ``original1`` ... when the
parametrization's ``right_inverse`` returns several tensors) and gives the module a subclass of
its own class, ``Parametrized<Class>``, with a property ``name`` that runs the parametrizations
on the originals when read and their right inverses when assigned. That is PyTorch's scheme, so
the state_dict keys (``parametrizations.weight.original0``) and the repr are PyTorch's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..._C import Tensor
from ...autograd import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "type_before_parametrizations",
]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once and reused (for a forward
    pass that reads a parametrized weight several times)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and the original(s) they are computed from."""

    def __init__(self, modules: list[Module], original: Tensor, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        requires_grad = original.requires_grad
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "[register_parametrization] When `right_inverse` outputs one tensor, it may "
                    f"not change the dtype.\noriginal.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            # The original keeps its identity (an optimizer may hold it), now with new values.
            with no_grad():
                original.data = new.detach()
            self._register_original("original", original, requires_grad)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        "[register_parametrization] 'right_inverse' must return a "
                        "Tensor or a Sequence of tensors (list, tuple...)"
                    )
                self._register_original(f"original{i}", value.detach().clone(), requires_grad)
        if not unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(
                    "[register_parametrization] a parametrization must return a "
                    f"tensor, got {type(z).__name__}"
                )
            if z.dtype != original.dtype or tuple(z.shape) != tuple(original.shape):
                raise ValueError(
                    "[register_parametrization] Registering a parametrization may not change "
                    f"the shape or dtype of the tensor: {original.dtype} {tuple(original.shape)}"
                    f" became {z.dtype} {tuple(z.shape)} (pass unsafe=True to allow it)"
                )

    def _register_original(self, name: str, value: Tensor, requires_grad: bool) -> None:
        if isinstance(value, Parameter):
            self.register_parameter(name, value)
        elif requires_grad:
            self.register_parameter(name, Parameter(value, requires_grad))
        else:
            self.register_buffer(name, value)

    def right_inverse(self, value: Tensor) -> None:
        """Sets the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, v in enumerate(value):
                    getattr(self, f"original{i}").copy_(v)

    def forward(self) -> Tensor:
        first = self[0]
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    cls = module.__class__

    def getstate(self: Any) -> None:
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict()."
        )

    param_cls = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": getstate})
    module.__class__ = param_cls


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    """The class of ``module`` before parametrizations changed it."""
    return module.__class__.__bases__[0] if is_parametrized(module) else module.__class__


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` on the stored original
    (Note [Parametrized modules]); registering again on the same name chains them.

    Example::

        >>> class Symmetric(genesis.nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).transpose(-1, -2)
        >>> layer = genesis.nn.Linear(3, 3)
        >>> _ = genesis.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
        >>> bool((layer.weight == layer.weight.T).all())
        True
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor) or x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
                raise ValueError(
                    "[register_parametrization] Registering a parametrization may "
                    "not change the shape or dtype of the tensor"
                )
            if hasattr(parametrization, "right_inverse"):
                z = parametrization.right_inverse(x)
                if not isinstance(z, Tensor):
                    raise ValueError(
                        "[register_parametrization] parametrization.right_inverse "
                        "must return a tensor"
                    )
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Removes the parametrizations of ``tensor_name``; the tensor becomes a plain parameter
    holding the parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            with no_grad():
                if tuple(value.shape) == tuple(original.shape):
                    original.copy_(value)
                else:
                    original.data = value.detach()
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                "that is parametrized in terms of a sequence of tensors."
            )
        with no_grad():
            value = getattr(module, tensor_name)
        original = (
            Parameter(value.detach().clone(), value.requires_grad)
            if isinstance(plist.original0, Parameter)
            else value.detach().clone()
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module
