"""``nn.Module``: the base class of every layer and model, with PyTorch's registration, traversal,
state_dict, device/dtype moves, train/eval and hooks.

Note [Module attributes]: as in PyTorch, a Module keeps its parameters, buffers and submodules in
three ordered dicts (``_parameters``, ``_buffers``, ``_modules``) instead of ``__dict__``;
``__setattr__`` files an assigned Parameter, Module or Buffer into the right one and
``__getattr__`` (called only when normal lookup fails) finds it there. That is what makes
``named_parameters`` list them in registration order with dotted names (``blocks.0.qkv.weight``)
and lets ``state_dict`` and ``load_state_dict`` move them by name.
"""

from __future__ import annotations

import functools
from collections import OrderedDict, namedtuple
from collections.abc import Iterator
from typing import Any, Callable

from ..._C import Tensor, _fusion
from ..._C import device as _device_type
from ..._C import dtype as _dtype_type
from ...autograd import no_grad
from ..parameter import Buffer, Parameter
from . import _hooks
from ._hooks import RemovableHandle

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _check_name(kind: str, name: Any, module: Module, existing: dict) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in existing:
        raise KeyError(f"attribute '{name}' already exists")


def _to_genesis(value: Any) -> Any:
    """A tensor of another library (PyTorch, NumPy ...) as a genesis tensor sharing its memory,
    for load_state_dict; genesis tensors and other values pass through."""
    if isinstance(value, Tensor) or not hasattr(value, "__dlpack__"):
        return value
    from ... import from_dlpack

    return from_dlpack(value.detach() if hasattr(value, "detach") else value)


class Module:
    """Base class for all neural network modules; models subclass it and define ``forward``.

    Submodules, parameters and buffers assigned as attributes are registered (Note [Module
    attributes]), so ``parameters()``, ``state_dict()``, ``to()`` and ``train()`` reach them.

    Example::

        >>> class TwoLayer(genesis.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc1 = genesis.nn.Linear(4, 8)
        ...         self.fc2 = genesis.nn.Linear(8, 2)
        ...     def forward(self, x):
        ...         return self.fc2(genesis.nn.functional.relu(self.fc1(x)))
        >>> model = TwoLayer()
        >>> [name for name, _ in model.named_parameters()]
        ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
        >>> model(genesis.zeros(3, 4)).shape
        genesis.Size([3, 2])
    """

    training: bool
    _version: int = 1
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not self.call_super_init and (args or kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected argument: Module.__init__ "
                "takes no arguments"
            )
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_modules", {})
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> None:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    forward = _forward_unimplemented  # type: ignore[assignment]

    # -- registration -----------------------------------------------------------------------

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a buffer (state that is not a parameter, e.g. BatchNorm's running mean);
        ``persistent=False`` leaves it out of the state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(genesis Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            tensor = tensor._original
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (None registers the name with no tensor, as a bias=False layer does)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(genesis.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                "created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a child module, reachable as an attribute named ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name("module", name, self, self._modules)
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def _lookup(self, target: str, kind: str) -> Any:
        module_path, _, name = target.rpartition(".")
        owner = self.get_submodule(module_path)
        if not hasattr(owner, name):
            raise AttributeError(f"{owner._get_name()} has no attribute `{name}`")
        return owner, name

    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path (``"blocks.0.attn"``); ``""`` is this module."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path (``"fc1.weight"``)."""
        owner, name = self._lookup(target, "parameter")
        param = getattr(owner, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (``"bn.running_mean"``)."""
        owner, name = self._lookup(target, "buffer")
        if name not in owner._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(owner, name)

    # -- attribute protocol (Note [Module attributes]) ----------------------------------------

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*stores: dict | set) -> None:
            for store in stores:
                if name in store:
                    if isinstance(store, dict):
                        del store[name]
                    else:
                        store.discard(name)

        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(genesis.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' "
                    "(genesis.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            remove_from(d, self._parameters, self._modules)
            self.register_buffer(name, value, value.persistent)
            return
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                    "(genesis.Tensor or None expected)"
                )
            buffers[name] = value
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        super().__delattr__(name)

    def __dir__(self) -> list[str]:
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name, default in (
            ("_forward_pre_hooks_with_kwargs", OrderedDict()),
            ("_forward_hooks_with_kwargs", OrderedDict()),
            ("_forward_hooks_always_called", OrderedDict()),
            ("_backward_pre_hooks", OrderedDict()),
            ("_state_dict_pre_hooks", OrderedDict()),
            ("_load_state_dict_post_hooks", OrderedDict()),
            ("_non_persistent_buffers_set", set()),
        ):
            self.__dict__.setdefault(name, default)

    # -- traversal ----------------------------------------------------------------------------

    def _named_members(
        self,
        get_members: Callable,
        prefix: str = "",
        recurse: bool = True,
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Any]]:
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." if module_prefix else "") + name, value

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and, with ``recurse``, of its submodules), each tied
        parameter once, in registration order."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs: ``("fc1.weight", p)``."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module (and, with ``recurse``, of its submodules)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs."""
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def children(self) -> Iterator[Module]:
        """The direct submodules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, direct submodule) pairs, each module once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        """This module and every submodule, depth first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """(dotted name, module) pairs for this module (name ``prefix``) and its submodules."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # -- modes and gradients ------------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Sets training mode on this module and every submodule (Dropout and BatchNorm act on
        it); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Sets ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears every parameter's gradient: to None (default) or to zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad
                if grad.grad_fn is not None:
                    grad = grad.detach()
                    p.grad = grad
                grad.requires_grad_(False)
                grad.zero_()

    def share_memory(self) -> Module:
        """Moves every parameter and buffer to shared memory (CPU); returns self."""
        return self._apply(lambda t: t.share_memory_())

    # -- moves and casts ----------------------------------------------------------------------

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if applied is not param:
                # The Parameter object stays (optimizers and tied modules hold it); its data
                # and gradient move, as PyTorch's default does.
                param.data = applied.detach() if applied.requires_grad else applied
            if param.grad is not None:
                with no_grad():
                    grad_applied = fn(param.grad)
                if grad_applied is not param.grad:
                    param.grad = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Calls ``fn`` on every submodule and then on this module (as for initialization);
        returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Moves and/or casts the parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)``, with ``non_blocking``, and ``memory_format=``
        (``genesis.channels_last``: the 4-D and 5-D ones re-laid, Note [Memory formats]). A
        dtype casts only the floating-point tensors; it must be a floating-point dtype. Returns
        self."""
        device, dtype, non_blocking, layout = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            cast = dtype if dtype is not None and t.is_floating_point() else None
            relay = layout if layout is not None and t.dim() in (4, 5) else None
            if device is None and cast is None and relay is None:
                return t
            kw: dict[str, Any] = {"non_blocking": non_blocking}
            if relay is not None:
                kw["memory_format"] = relay
            if device is not None:
                kw["device"] = device
            if cast is not None:
                kw["dtype"] = cast
            return t.to(**kw)

        return self._apply(convert)

    def cuda(self, device: Any = None) -> Module:
        """Moves every parameter and buffer to a CUDA device (the current one by default)."""
        target = "cuda" if device is None else device
        if isinstance(target, int):
            target = f"cuda:{target}"
        return self._apply(lambda t: t.to(target))

    def cpu(self) -> Module:
        """Moves every parameter and buffer to the CPU."""
        return self._apply(lambda t: t.to("cpu"))

    def _cast_floating(self, dtype: _dtype_type) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def type(self, dst_type: _dtype_type) -> Module:
        """Casts every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.to(dst_type))

    def float(self) -> Module:
        """Casts floating-point parameters and buffers to float32."""
        from ... import float32

        return self._cast_floating(float32)

    def double(self) -> Module:
        """Casts floating-point parameters and buffers to float64."""
        from ... import float64

        return self._cast_floating(float64)

    def half(self) -> Module:
        """Casts floating-point parameters and buffers to float16."""
        from ... import float16

        return self._cast_floating(float16)

    def bfloat16(self) -> Module:
        """Casts floating-point parameters and buffers to bfloat16."""
        from ... import bfloat16

        return self._cast_floating(bfloat16)

    # -- state_dict ---------------------------------------------------------------------------

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra = type(self).get_extra_state is not Module.get_extra_state
        if extra:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(
        self,
        *args: Any,
        destination: dict | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Any]:
        """An ordered dict of every parameter and persistent buffer by dotted name, detached
        (``keep_vars=True``: the tensors themselves). Loads into PyTorch's model of the same
        structure after ``torch.from_dlpack`` on each value, and back with
        :meth:`load_state_dict`."""
        if args:
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {"version": self._version})
            if result is not None:
                destination = result
        return destination

    def get_extra_state(self) -> Any:
        """Extra state saved in the state_dict as ``<prefix>_extra_state`` when a subclass
        overrides this (and :meth:`set_extra_state`)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restores what :meth:`get_extra_state` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        assign = local_metadata.get("assign_to_params_buffers", False)
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent_buffers = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update({k: v for k, v in persistent_buffers.items() if v is not None})
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = _to_genesis(state_dict[key])
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected a tensor from the '
                    f"checkpoint but received {type(value).__name__}"
                )
                continue
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                if assign:
                    if isinstance(param, Parameter):
                        new = (
                            value
                            if isinstance(value, Parameter)
                            else Parameter(value, requires_grad=param.requires_grad)
                        )
                        setattr(self, name, new)
                    else:
                        setattr(self, name, value)
                else:
                    with no_grad():
                        param.copy_(value)
            except Exception as ex:  # noqa: BLE001 - reported with the key, as PyTorch does
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                input_name = key[len(prefix) :].split(".", 1)
                if input_name[0] not in self._modules and input_name[0] not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict: dict[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copies parameters and buffers from ``state_dict`` into this module, by name.

        ``strict`` (default) raises RuntimeError listing every missing and unexpected key; a
        shape mismatch is an error either way. Values may be genesis tensors or tensors of
        libraries that speak DLPack (a PyTorch state_dict loads as it is). ``assign=True``
        makes the module hold the given tensors instead of copying into its own.

        Returns:
            NamedTuple ``(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict).__name__}."
            )
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state = OrderedDict(state_dict)

        def load(module: Module, prefix: str = "") -> None:
            local = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local["assign_to_params_buffers"] = True
            module._load_from_state_dict(state, prefix, local, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, incompatible)

        load(self)
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + ". ",
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ",
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` collects this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs after this module's entries
        are collected."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module loads its entries."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` runs after this module loaded its entries; it may
        edit the key lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # -- hooks and calling --------------------------------------------------------------------

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``) runs before
        ``forward``; a non-None result replaces the arguments."""
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) runs after ``forward``; a non-None result replaces the output.
        ``always_call`` runs it even when forward raised."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """``hook(module, grad_output)`` runs when the gradients of the module's outputs are
        known; a non-None result replaces them (Note [Full backward hooks])."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the module's
        tensor inputs are known; a non-None result replaces grad_input (Note [Full backward
        hooks])."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's deprecated form; registered as a full backward hook."""
        return self.register_full_backward_hook(hook)

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        # Module.compile: the compiled call opens a region and comes back here, which then runs
        # the module (no frame is added to uncompiled calls: warnings name the caller's line).
        compiled = self.__dict__.get("_compiled_call_impl")
        if compiled is not None and not _fusion.region_active():
            return compiled(*args, **kwargs)
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        state = None
        if self._backward_hooks or self._backward_pre_hooks:
            args, state = _hooks.wrap_inputs(self, args)
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:  # noqa: BLE001,S110 - the forward's error is the one shown
                        pass
            raise
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        if state is not None:
            output = _hooks.wrap_outputs(state, output)
        return output

    __call__ = _call_impl

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's calls in place with ``genesis.compile`` (its arguments).

        Unlike ``genesis.compile(module)``, the module stays the same object, with the same
        ``state_dict`` keys.
        """
        from ..._compile import compile as compile_fn

        object.__setattr__(
            self, "_compiled_call_impl", compile_fn(self._call_impl, *args, **kwargs)
        )

    # -- representation -----------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in its repr; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append("(" + name + "): " + _addindent(repr(module), 2))
        head = self._get_name() + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, Any, bool, Any]:
    """(device, dtype, non_blocking, memory_format) from Module.to's argument forms."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = bool(kwargs.pop("non_blocking", False))
    layout = kwargs.pop("memory_format", None)
    copy_flag = kwargs.pop("copy", None)
    del copy_flag
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    for value in rest:
        if isinstance(value, _dtype_type):
            dtype = value
        elif isinstance(value, bool):
            non_blocking = value
        elif isinstance(value, (str, int, _device_type)):
            device = value
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {value!r}")
    if isinstance(device, int):
        device = f"cuda:{device}"
    return device, dtype, non_blocking, layout
