"""The base of the learning-rate schedulers: LRScheduler (its first step, ``step``, the
warnings, ``state_dict``) and the helpers over param groups the schedulers share.

Note [Chainable and closed forms]: as in PyTorch, ``step()`` computes each new learning rate
from the one the optimizer holds now (StepLR multiplies ``group['lr']`` by ``gamma`` every
``step_size`` steps), so schedulers stepped on one optimizer compound (ChainedScheduler). The
deprecated ``step(epoch)`` uses instead the scheduler's closed form of ``epoch`` and
``base_lrs``, where it has one (``_get_closed_form_lr``, PyTorch's hook name). Every formula is
PyTorch's, term for term and in the same order, so the floats are PyTorch's to the last bit. A
scheduler class supplies ``_compute_lr``; ``get_lr`` (what ``step`` calls, and what a user
subclass overrides as in PyTorch) adds PyTorch's warning for calls from outside ``step``.

Note [Counting optimizer steps]: PyTorch warns when the first ``scheduler.step()`` comes before
any ``optimizer.step()`` (the schedule's first value is then skipped). To know, a scheduler
replaces the optimizer's ``step`` with a wrapper, an instance attribute marked
``_wrapped_by_lr_sched`` that holds the optimizer only weakly and sets ``optimizer._opt_called``.
At the first ``scheduler.step()`` after construction, a missing mark means ``step`` was replaced
after the scheduler was made, and a missing ``_opt_called`` that it has not run.

Note [What a state_dict holds]: as in PyTorch, a scheduler's state_dict is its ``__dict__``
without the optimizer, under PyTorch's attribute names, so state_dicts of torch schedulers load
here and the other way round. User functions are not saved: a plain function or lambda becomes
None and a callable object its ``__dict__``, loaded back into the function the new scheduler was
built with (``lr_lambdas``, CyclicLR's ``_scale_fn_custom``); the schedulers that SequentialLR
and ChainedScheduler hold are saved as their own state_dicts.

Learning rates may be floats or 0-d genesis Tensors: a Tensor lr is filled in place, never
replaced, and ``base_lrs`` and ``get_last_lr()`` hold clones.
"""

from __future__ import annotations

import functools
import types
import warnings
import weakref
from collections.abc import Sequence
from typing import Any, Callable

from ..._C import Tensor
from ..optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)
_HOW_TO = (
    "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
_STEP_REPLACED_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    f"`lr_scheduler.step()`. {_HOW_TO}"
)
_STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value "
    f"of the learning rate schedule. {_HOW_TO}"
)
_GET_LR_WARNING = (
    "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."
)


# -- helpers over param groups ----------------------------------------------------------------


def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """``group[key]`` of every param group (Tensors cloned)."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """Stores ``value`` under ``key``, filling a Tensor that is there in place."""
    if isinstance(group[key], Tensor):
        if isinstance(value, Tensor) and value.dim() != 0:
            value = value.squeeze()
        group[key].fill_(value)
    else:
        group[key] = value


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per param group: a list or tuple as it is (of the right length), else repeated."""
    groups = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != groups:
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has {groups}."
            )
    else:
        param = [param] * groups
    return [_copy(p) for p in param]


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _callable_state(fn: Any) -> dict[str, Any] | None:
    """What a state_dict keeps of a user function (Note [What a state_dict holds])."""
    if fn is None or isinstance(fn, types.FunctionType):
        return None
    return fn.__dict__.copy()


def _count_optimizer_steps(optimizer: Optimizer) -> None:
    """Wraps ``optimizer.step`` once to record that it ran (Note [Counting optimizer steps])."""
    step = optimizer.step
    if hasattr(step, "_wrapped_by_lr_sched"):
        return
    func = getattr(step, "__func__", None)  # None: step is a plain callable already
    opt_ref = weakref.ref(optimizer)

    @functools.wraps(func or step)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func(opt, *args, **kwargs) if func is not None else step(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


# -- the base class ---------------------------------------------------------------------------


class LRScheduler:
    """The base class of the learning-rate schedulers: it records each param group's starting
    lr as ``group['initial_lr']`` (and in ``base_lrs``), wraps ``optimizer.step`` to warn when
    the scheduler steps first (Note [Counting optimizer steps]), and takes the first step at
    construction, so ``get_last_lr()`` holds the schedule's first value at once.

    A subclass overrides :meth:`get_lr`, which returns the learning rates of step
    ``last_epoch``, as in PyTorch.

    Args:
        optimizer (Optimizer): the optimizer whose param groups' ``lr`` the scheduler sets.
        last_epoch (int): the index of the last step taken, to resume a schedule; the param
            groups then need ``initial_lr``. Default: -1 (a fresh start).

    Example::

        >>> class Halving(genesis.optim.lr_scheduler.LRScheduler):
        ...     def get_lr(self):
        ...         return [base_lr * 0.5**self.last_epoch for base_lr in self.base_lrs]
        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = Halving(opt)
        >>> opt.step()
        >>> scheduler.step()
        >>> scheduler.get_last_lr(), opt.param_groups[0]["initial_lr"]
        ([0.5], 1.0)
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False
    _compute_lr: Callable[[], list[Any]] | None = None  # each scheduler's formulas
    _get_closed_form_lr: Callable[[], list[Any]] | None = None  # step(epoch)'s, where there is one
    # What state_dict and load_state_dict treat apart (Note [What a state_dict holds]): declared
    # only, with no value here, as the schedulers that have them set them.
    lr_lambdas: list[Callable[[int], float]]  # LambdaLR, MultiplicativeLR
    _scale_fn_custom: Callable[[float], float] | None  # CyclicLR
    _schedulers: Sequence[LRScheduler]  # SequentialLR, ChainedScheduler

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        self._set_optimizer(optimizer)
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                        "trying to resume training from a checkpoint but haven't properly loaded "
                        "the optimizer state\n2. You're using last_epoch >= 0 for a fresh "
                        "training run (not recommended)"
                    )
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _count_optimizer_steps(optimizer)
        self._initial_step()

    def _set_optimizer(self, optimizer: Any) -> None:
        """Checks that ``optimizer`` is an Optimizer and keeps it."""
        _check_optimizer(optimizer)
        self.optimizer = optimizer

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute but the optimizer, under PyTorch's names
        (Note [What a state_dict holds]).

        Returns:
            dict: the state, for :meth:`load_state_dict`.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> scheduler = genesis.optim.lr_scheduler.StepLR(opt, step_size=2)
            >>> state = scheduler.state_dict()
            >>> state["last_epoch"], state["base_lrs"], state["step_size"]
            (0, [1.0], 2)
        """
        state = {key: value for key, value in self.__dict__.items() if key != "optimizer"}
        if "lr_lambdas" in state:
            state["lr_lambdas"] = [_callable_state(fn) for fn in self.lr_lambdas]
        if "_scale_fn_custom" in state:
            state["_scale_fn_custom"] = _callable_state(self._scale_fn_custom)
        if "_schedulers" in state:
            state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores a state from :meth:`state_dict`; the functions the scheduler was built
        with stay, with the saved attributes of callable objects loaded into them.

        Args:
            state_dict (dict): a state from :meth:`state_dict` (this scheduler's class, of
                genesis or of PyTorch).

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> scheduler = genesis.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
            >>> scheduler.load_state_dict({**scheduler.state_dict(), "last_epoch": 3})
            >>> scheduler.last_epoch
            3
        """
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas", None)
        has_scale_fn = "_scale_fn_custom" in state
        scale_fn = state.pop("_scale_fn_custom", None)
        schedulers = state.pop("_schedulers", None)
        self.__dict__.update(state)
        for fn, saved in zip(getattr(self, "lr_lambdas", []), lambdas or []):
            if saved is not None:
                fn.__dict__.update(saved)
        if has_scale_fn and scale_fn is not None:
            self._scale_fn_custom.__dict__.update(scale_fn)
        for scheduler, saved in zip(getattr(self, "_schedulers", []), schedulers or []):
            scheduler.load_state_dict(saved)

    def get_last_lr(self) -> list[Any]:
        """The learning rates the last :meth:`step` set, one per param group.

        Returns:
            list: floats, or clones of the groups' Tensor lrs.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> genesis.optim.lr_scheduler.ConstantLR(opt, factor=0.5).get_last_lr()
            [0.5]
        """
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The learning rates of step ``last_epoch``, one per param group; :meth:`step` calls it
        and a subclass overrides it. Called from outside ``step`` it warns, as PyTorch does,
        since the chainable forms depend on the lrs the optimizer holds at the time (Note
        [Chainable and closed forms]): :meth:`get_last_lr` is what to read.

        Returns:
            list: the learning rates.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> scheduler = genesis.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5)
            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     scheduler.get_lr()
            [0.5]
        """
        if self._compute_lr is None:
            raise NotImplementedError
        if not self._get_lr_called_within_step:
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=2)
        return self._compute_lr()

    def step(self, epoch: int | None = None) -> None:
        """Moves the schedule one step on and sets each param group's ``lr``. Call it after
        ``optimizer.step()``: the first call warns otherwise, as in PyTorch.

        Args:
            epoch (int, optional): deprecated (it warns, as in PyTorch): jump to this step,
                with the scheduler's closed form where it has one. Default: None.

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> scheduler = genesis.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
            >>> opt.step()
            >>> scheduler.step()
            >>> opt.param_groups[0]["lr"]
            0.5
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_STEP_REPLACED_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        if epoch is None:
            self.last_epoch += 1
            self._set_lrs_from(self.get_lr)
        else:
            self.last_epoch = epoch
            self._set_lrs_from(self._get_closed_form_lr or self.get_lr)

    def _set_lrs_from(self, compute: Callable[[], list[Any]]) -> None:
        """Sets the lrs ``compute`` returns, called as from within ``step`` (no warning)."""
        self._get_lr_called_within_step = True
        try:
            values = compute()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _set_lrs(self, values: list[Any]) -> None:
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(
                f"[{type(self).__name__}] computed {len(values)} learning rates for "
                f"{len(groups)} param groups (was a group added after the scheduler was made?)"
            )
        for group, lr in zip(groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = _group_values(self.optimizer, "lr")

    def _current_lrs(self) -> list[Any]:
        return _group_values(self.optimizer, "lr")

    def _scaled_lrs(self, factor: float) -> list[Any]:
        return [group["lr"] * factor for group in self.optimizer.param_groups]


class _LRScheduler(LRScheduler):
    """PyTorch's former name of :class:`LRScheduler`, kept as a subclass as PyTorch keeps it."""
