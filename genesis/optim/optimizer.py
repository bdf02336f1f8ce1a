"""Optimizer: PyTorch's base class of optimizers, with its param_groups, state and state_dict.

Note [Optimizer objects]: the objects are PyTorch's, so that a training loop, an LR scheduler
and a saved state_dict treat a genesis optimizer as a torch one: ``param_groups`` is a list of
dicts holding ``params`` and every option (the constructor's defaults filled in), ``state`` maps
each parameter to its dict of state tensors (created at its first step), and ``state_dict()``
numbers the parameters in group order. Each group's step is one fused call into C++ (Note
[Optimizer steps] in csrc/ops/optimizer_step.cpp); gathering the group's tensors into lists is
all the Python does per parameter. The optimizers stepped that way derive from
``_GroupStepOptimizer``, whose ``step`` calls their ``_step_group`` for each group; an optimizer
that is not (LBFGS, a user's subclass) writes its own ``step``. The flags PyTorch uses to pick
among its implementations (``foreach``, ``fused``) are accepted and kept in the groups, so that
state_dicts match, and change nothing: genesis has one implementation. ``capturable`` keeps
the step counts (and the scalar states beside them) on the parameters' GPU, as PyTorch's does
(Note [Capturable steps] in csrc/vocab/optimizer_rules.h); ``differentiable`` is refused.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import _C
from .._C import Tensor
from .._C import bfloat16 as _bfloat16
from .._C import float16 as _float16
from .._C import float32 as _float32
from ..autograd import no_grad
from ..nn.modules._hooks import RemovableHandle

_HALF_DTYPES = (_float16, _bfloat16)  # the dtypes master weights stand in for

__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
]

_global_step_pre_hooks: OrderedDict = OrderedDict()
_global_step_post_hooks: OrderedDict = OrderedDict()


class _RequiredParameter:
    """The default of an option that each param group must give (SGD's lr once was)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)`` to run before every optimizer's ``step``.

    Args:
        hook (Callable): called as ``hook(optimizer, args, kwargs)``; it may return a new
            ``(args, kwargs)`` pair.

    Returns:
        RemovableHandle: ``handle.remove()`` unregisters the hook.

    Example::

        >>> calls = []
        >>> handle = genesis.optim.optimizer.register_optimizer_step_pre_hook(
        ...     lambda opt, args, kwargs: calls.append(type(opt).__name__)
        ... )
        >>> p = genesis.nn.Parameter(genesis.zeros(2))
        >>> p.grad = genesis.ones(2)
        >>> genesis.optim.SGD([p], lr=0.1).step()
        >>> calls
        ['SGD']
        >>> handle.remove()
    """
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)`` to run after every optimizer's ``step``.

    Args:
        hook (Callable): called as ``hook(optimizer, args, kwargs)``.

    Returns:
        RemovableHandle: ``handle.remove()`` unregisters the hook.

    Example::

        >>> steps = []
        >>> handle = genesis.optim.optimizer.register_optimizer_step_post_hook(
        ...     lambda opt, args, kwargs: steps.append(1)
        ... )
        >>> p = genesis.nn.Parameter(genesis.zeros(2))
        >>> p.grad = genesis.ones(2)
        >>> genesis.optim.SGD([p], lr=0.1).step()
        >>> len(steps)
        1
        >>> handle.remove()
    """
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _with_step_hooks(step: Callable) -> Callable:
    """``step`` wrapped to run the global and the optimizer's step hooks around it."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
                args, kwargs = result
        out = step(self, *args, **kwargs)
        for hook in chain(
            self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()
        ):
            hook(self, args, kwargs)
        return out

    wrapper._genesis_hooked = True  # type: ignore[attr-defined]
    return wrapper


def _typename(obj: Any) -> str:
    if isinstance(obj, Tensor):
        return "genesis.Tensor"
    return type(obj).__module__ + "." + type(obj).__qualname__


class Optimizer:
    """The base class of optimizers: parameter groups, per-parameter state, state_dict, hooks.

    A subclass passes its options' defaults and implements ``step``. Parameters come as an
    iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (parameter groups) with a
    ``params`` entry and options that override the defaults for that group.

    Args:
        params (iterable): tensors, ``(name, tensor)`` pairs or dicts of parameter groups.
        defaults (dict): each option's default.

    Example::

        >>> w = genesis.nn.Parameter(genesis.ones(3))
        >>> b = genesis.nn.Parameter(genesis.zeros(1))
        >>> opt = genesis.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.5]
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _typename(params)
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_genesis_hooked", False):
            cls.step = _with_step_hooks(step)  # type: ignore[method-assign]

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own options (the defaults fill the rest).

        Args:
            param_group (dict): ``params`` (a tensor or an ordered collection of tensors or of
                ``(name, tensor)`` pairs) and the options that differ from the defaults.

        Returns:
            None

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(2))], lr=0.1)
            >>> opt.add_param_group({"params": [genesis.nn.Parameter(genesis.zeros(3))], "lr": 1.0})
            >>> len(opt.param_groups), opt.param_groups[1]["momentum"]
            (2, 0)
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(p)
                )
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    f"group {which} to the optimizer"
                )
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of every parameter: to None, or to zeros in place.

        Args:
            set_to_none (bool): drop the gradients (the default) instead of zeroing them; a
                parameter without a gradient is then skipped by ``step``. Default: True.

        Returns:
            None

        Example::

            >>> p = genesis.nn.Parameter(genesis.zeros(2))
            >>> p.grad = genesis.ones(2)
            >>> opt = genesis.optim.SGD([p], lr=0.1)
            >>> opt.zero_grad()
            >>> p.grad is None
            True
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one optimization step (each subclass implements it).

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.
                Default: None.

        Returns:
            The closure's loss, or None.

        Example::

            >>> p = genesis.nn.Parameter(genesis.ones(2))
            >>> p.grad = genesis.ones(2)
            >>> genesis.optim.SGD([p], lr=0.5).step()
            >>> p
            Parameter containing:
            tensor([0.5000, 0.5000], requires_grad=True)
        """
        raise NotImplementedError

    # -- hooks ----------------------------------------------------------------------------------

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Registers ``hook(optimizer, args, kwargs)`` to run before this optimizer's ``step``.

        Args:
            hook (Callable): may return a new ``(args, kwargs)`` pair for ``step``.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> p = genesis.nn.Parameter(genesis.zeros(1))
            >>> opt = genesis.optim.SGD([p], lr=0.1)
            >>> handle = opt.register_step_pre_hook(lambda o, a, k: print("before"))
            >>> opt.step()
            before
        """
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Registers ``hook(optimizer, args, kwargs)`` to run after this optimizer's ``step``.

        Args:
            hook (Callable): called after each step.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> p = genesis.nn.Parameter(genesis.zeros(1))
            >>> opt = genesis.optim.SGD([p], lr=0.1)
            >>> handle = opt.register_step_post_hook(lambda o, a, k: print("after"))
            >>> opt.step()
            after
        """
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Registers ``hook(optimizer)`` to run before ``state_dict`` builds its dict.

        Args:
            hook (Callable): called with the optimizer.
            prepend (bool): run before the hooks already registered. Default: False.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1)
            >>> handle = opt.register_state_dict_pre_hook(lambda o: print("saving"))
            >>> _ = opt.state_dict()
            saving
        """
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Registers ``hook(optimizer, state_dict)`` to run on ``state_dict``'s result; a hook
        that returns a dict replaces it.

        Args:
            hook (Callable): called with the optimizer and the state_dict.
            prepend (bool): run before the hooks already registered. Default: False.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1)
            >>> handle = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
            >>> opt.state_dict()["extra"]
            1
        """
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Registers ``hook(optimizer, state_dict)`` to run before ``load_state_dict``; a hook
        that returns a dict replaces the one loaded.

        Args:
            hook (Callable): called with the optimizer and the state_dict to load.
            prepend (bool): run before the hooks already registered. Default: False.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1)
            >>> handle = opt.register_load_state_dict_pre_hook(lambda o, sd: print("loading"))
            >>> opt.load_state_dict(opt.state_dict())
            loading
        """
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Registers ``hook(optimizer)`` to run after ``load_state_dict``.

        Args:
            hook (Callable): called with the optimizer.
            prepend (bool): run before the hooks already registered. Default: False.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1)
            >>> handle = opt.register_load_state_dict_post_hook(lambda o: print("loaded"))
            >>> opt.load_state_dict(opt.state_dict())
            loaded
        """
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state_dict -----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as PyTorch lays it out: ``state`` maps each parameter's number
        (counted through the groups in order) to its state dict, and ``param_groups`` holds each
        group's options with ``params`` as those numbers. The tensors are the optimizer's own,
        not copies.

        Returns:
            dict: ``{"state": ..., "param_groups": [...]}``.

        Example::

            >>> p = genesis.nn.Parameter(genesis.zeros(2))
            >>> p.grad = genesis.ones(2)
            >>> opt = genesis.optim.SGD([p], lr=0.1, momentum=0.9)
            >>> opt.step()
            >>> opt.state_dict()["state"]
            {0: {'momentum_buffer': tensor([1., 1.])}}
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        numbers: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                numbers.setdefault(id(p), i)
            packed["params"] = [numbers[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(numbers[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result: dict[str, Any] = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            replaced = hook(self, result)
            if replaced is not None:
                result = replaced
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state saved by ``state_dict`` (genesis's or PyTorch's): each group's options,
        and each parameter's state tensors copied to the parameter's device (and, for floating
        tensors other than the step count, its dtype).

        Args:
            state_dict (dict): as ``state_dict`` returns it.

        Returns:
            None

        Example::

            >>> p = genesis.nn.Parameter(genesis.zeros(2))
            >>> p.grad = genesis.ones(2)
            >>> opt = genesis.optim.Adam([p], lr=0.1)
            >>> opt.step()
            >>> fresh = genesis.optim.Adam([p], lr=0.5)
            >>> fresh.load_state_dict(opt.state_dict())
            >>> fresh.param_groups[0]["lr"], fresh.state[p]["step"]
            (0.1, tensor(1.))
        """
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            replaced = hook(self, state_dict)
            if replaced is not None:
                state_dict = replaced
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for i, (g, s) in enumerate(zip(groups, saved_groups)):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    f"of optimizer's group (group {i}: {len(s['params'])} saved parameters, "
                    f"{len(g['params'])} in the optimizer)"
                )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        # Under master weights a 16-bit parameter's state stays float32 (Note [Master weights]).
        mastered = {k for s in saved_groups if s.get("master_weights") for k in s["params"]}
        # A capturable group's step counts live on its parameters' devices (Note [Capturable
        # steps] in csrc/vocab/optimizer_rules.h), as PyTorch loads them.
        captured = {k for s in saved_groups if s.get("capturable") for k in s["params"]}
        state: defaultdict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                dtype = _float32 if key in mastered and param.dtype in _HALF_DTYPES else None
                state[param] = _cast_state(
                    param,
                    value,
                    self._state_shapes_checked(),
                    self._scalar_state_keys(),
                    key,
                    dtype=dtype,
                    scalars_device=param.device if key in captured else None,
                )
            else:
                state[key] = value
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        """The state keys whose tensors must have their parameter's shape (the subclass's)."""
        return ()

    def _scalar_state_keys(self) -> tuple[str, ...]:
        """The state keys of 0-d float32 tensors kept beside the step count (the count; NAdam's
        mu_product; ASGD's eta and mu): loaded onto the CPU, or under ``capturable`` onto the
        parameter's device, rather than moved to the parameter's device and dtype."""
        return ("step",)

    # -- helpers for subclasses -----------------------------------------------------------------

    @staticmethod
    def _params_and_grads(group: dict[str, Any]) -> tuple[list[Tensor], _C._optim.TensorList]:
        """The group's parameters that have a gradient (the others are not stepped), and those
        gradients, read in one compiled pass and held in C++ (a ``_C._optim.TensorList``, which
        the compiled steps take as it is): ``.grad`` per parameter, each a new Python object,
        costs more than the rest of a step's host work."""
        params, grads = _C._optim._params_and_grads(group["params"])
        return params, grads

    @staticmethod
    def _master_weights(
        group: dict[str, Any], params: list[Tensor], states: list[dict[str, Any]]
    ) -> tuple[list[Tensor], list[Tensor | None]]:
        """The tensors a step updates and the 16-bit parameters they stand for (Note [Master
        weights] in csrc/ops/optimizer_step.cpp): without ``master_weights``, the parameters and
        []; with it, each float16/bfloat16 parameter's float32 copy (state "master_param", made
        at its first step) and the parameter, other parameters themselves and None."""
        if not group.get("master_weights", False):
            return params, []
        targets: list[Tensor] = []
        narrow: list[Tensor | None] = []
        for p, state in zip(params, states):
            if p.dtype in _HALF_DTYPES:
                if "master_param" not in state:
                    state["master_param"] = p.detach().to(dtype=_float32, copy=True)
                targets.append(state["master_param"])
                narrow.append(p)
            else:
                targets.append(p)
                narrow.append(None)
        return targets, narrow


class _GroupStepOptimizer(Optimizer):
    """The optimizers whose step is one fused call per parameter group (every one but LBFGS):
    ``step`` runs the closure, then ``_step_group(group)`` (the subclass's) for each group under
    no_grad; hooks wrap it as they wrap any optimizer's step."""

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one step over every parameter that has a gradient: one fused call per
        parameter group (Note [Optimizer objects]).

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss, run
                with gradients enabled before the step. Default: None.

        Returns:
            The closure's loss, or None.

        Example::

            >>> p = genesis.nn.Parameter(genesis.ones(2))
            >>> p.grad = genesis.ones(2)
            >>> genesis.optim.Adam([p], lr=0.5).step()
            >>> p
            Parameter containing:
            tensor([0.5000, 0.5000], requires_grad=True)
        """
        loss = _closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused call over the group's parameters that have a gradient (the subclass's)."""
        raise NotImplementedError


def _register(hooks: OrderedDict, hook: Callable, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _cast_state(
    param: Tensor,
    value: Any,
    shaped: tuple[str, ...],
    scalars: tuple[str, ...],
    number: int,
    key: Any = None,
    dtype: Any = None,
    scalars_device: Any = None,
):
    """A deep copy of a parameter's saved state with its tensors on the parameter's device (and
    floating ones, except the step count, in its dtype), as PyTorch loads them; the `scalars`
    (float32) on the CPU, or on `scalars_device` when given (capturable)."""
    if isinstance(value, Tensor):
        if key in shaped and tuple(value.shape) != tuple(param.shape):
            raise ValueError(
                f"loaded state dict has a {key!r} of shape {tuple(value.shape)} for parameter "
                f"{number}, whose shape is {tuple(param.shape)}"
            )
        if key in scalars:
            device = scalars_device if scalars_device is not None else "cpu"
            return value.to(device=device, dtype=_float32, copy=True)
        if param.is_floating_point() and value.is_floating_point():
            return value.to(device=param.device, dtype=dtype or param.dtype, copy=True)
        return value.to(device=param.device, copy=True)
    if isinstance(value, dict):
        return {
            k: _cast_state(param, v, shaped, scalars, number, k, dtype, scalars_device)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        items = (_cast_state(param, v, shaped, scalars, number, None, dtype) for v in value)
        return type(value)(items)
    return value


def _check_lr(lr: Any) -> None:
    """PyTorch's checks of a learning rate (a float or a one-element tensor)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= _scalar(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def _scalar(value: Any) -> float:
    """A float option that may be given as a one-element tensor (a learning rate)."""
    return float(value.item()) if isinstance(value, Tensor) else float(value)


def _new_step(param: Tensor, group: dict[str, Any]) -> Tensor:
    """A parameter's step count at its first step: a 0-d float32 tensor on the CPU, or under
    ``capturable`` on the parameter's device, where a captured step increments it (Note
    [Capturable steps] in csrc/vocab/optimizer_rules.h)."""
    if group.get("capturable", False):
        return _C.zeros((), dtype=_float32, device=param.device)
    return _C.tensor(0.0, dtype=_float32)


def _check_capturable(
    name: str, group: dict[str, Any], params: list[Tensor], held: str = "params and state_steps"
) -> None:
    """PyTorch's check of a capturable step: its parameters must be on a GPU (`held`: what
    PyTorch's message names)."""
    if group.get("capturable", False) and not all(p.is_cuda for p in params):
        raise AssertionError(
            f"[{name}] If capturable=True, {held} must be on supported devices: ['cuda']."
        )


def _lr_arguments(group: dict[str, Any], params: list[Tensor], on_device: bool) -> dict[str, Any]:
    """The lr keywords of a compiled step: the learning rate as a float, or, where the step reads
    it on the device (`on_device`: a capturable step, or SGD's), a tensor lr on the parameters'
    GPU as itself (Note [Capturable steps] in csrc/vocab/optimizer_rules.h)."""
    lr = group["lr"]
    if on_device and isinstance(lr, Tensor) and lr.is_cuda and lr.device == params[0].device:
        return {"lr": 0.0, "lr_tensor": lr}
    return {"lr": _scalar(lr)}


def _closure_loss(closure: Callable[[], Any] | None) -> Any:
    """The closure's loss, evaluated with gradients enabled (a step runs under no_grad)."""
    if closure is None:
        return None
    from ..autograd import enable_grad

    with enable_grad():
        return closure()


def _check_implementation_flags(
    name: str, foreach: bool | None, fused: bool | None, differentiable: bool
) -> None:
    """PyTorch's checks of the flags that pick its implementations, and the refusal of the one
    genesis does not have (Note [Optimizer objects])."""
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if differentiable:
        raise NotImplementedError(f"[{name}] differentiable=True is not supported by genesis")
