"""torch.optim.lr_scheduler for genesis: the learning-rate schedulers, in Python over an
optimizer's ``param_groups``, with PyTorch's names, signatures, defaults, warnings and numbers.

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
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Callable, TypedDict

from .._C import Tensor
from .optimizer import Optimizer

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]

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
_PLATEAU_IN_CHAIN = (
    "{} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
    "specified when calling `step`, but got one at index {} in the given schedulers sequence."
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


def _lr_lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Callable[[int], float]]:
    groups = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * groups
    if len(lr_lambda) != groups:
        raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


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


def _init_momentum(
    scheduler: CyclicLR | OneCycleLR, base_momentum: Any, max_momentum: Any, last_epoch: int
) -> tuple[list[Any], list[Any]]:
    """CyclicLR's and OneCycleLR's momentum set-up: sets ``use_beta1`` (Adam's ``betas[0]``
    cycles rather than SGD's ``momentum``) and, on a fresh start, the groups' momentum and their
    ``max_momentum``/``base_momentum`` keys."""
    optimizer = scheduler.optimizer
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    scheduler.use_beta1 = "betas" in optimizer.defaults
    base_momentums = _format_param("base_momentum", optimizer, base_momentum)
    max_momentums = _format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for high, low, group in zip(max_momentums, base_momentums, optimizer.param_groups):
            _set_momentum(group, high, scheduler.use_beta1)
            group["max_momentum"] = high
            group["base_momentum"] = low
    return base_momentums, max_momentums


def _set_momentum(group: dict[str, Any], value: Any, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


# -- closed forms -----------------------------------------------------------------------------


def _cosine(base_lr: Any, eta_min: float, t: float, period: float) -> Any:
    """Cosine annealing from ``base_lr`` (t = 0) to ``eta_min`` (t = period)."""
    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * t / period)) / 2


def _annealing_cos(start: Any, end: Any, pct: float) -> Any:
    """OneCycleLR's cosine from ``start`` (pct = 0) to ``end`` (pct = 1)."""
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _annealing_linear(start: Any, end: Any, pct: float) -> Any:
    """OneCycleLR's straight line from ``start`` (pct = 0) to ``end`` (pct = 1)."""
    return (end - start) * pct + start


class _Phase(TypedDict):
    """One of OneCycleLR's phases (PyTorch's keys): up to step ``end_step`` the lr anneals from
    the param group's value under ``start_lr`` to the one under ``end_lr``, and the momentum
    from ``start_momentum``'s to ``end_momentum``'s."""

    end_step: float
    start_lr: str
    end_lr: str
    start_momentum: str
    end_momentum: str


def _phase(
    end_step: float, start_lr: str, end_lr: str, start_momentum: str, end_momentum: str
) -> _Phase:
    return {
        "end_step": end_step,
        "start_lr": start_lr,
        "end_lr": end_lr,
        "start_momentum": start_momentum,
        "end_momentum": end_momentum,
    }


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
        _check_optimizer(optimizer)
        self.optimizer = optimizer
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
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = self._get_closed_form_lr
                values = closed_form() if closed_form is not None else self.get_lr()
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


# -- multiplicative schedules -----------------------------------------------------------------


class LambdaLR(LRScheduler):
    """Sets each group's lr to its initial lr times ``lr_lambda(step)``.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        lr_lambda (callable or list): a function of the step index giving the factor, or a
            list of them, one per param group.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    A state_dict keeps callable objects' attributes but not plain functions or lambdas (Note
    [What a state_dict holds]).

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.LambdaLR(opt, lambda step: 1 / (step + 1))
        >>> for _ in range(3):
        ...     opt.step()
        ...     scheduler.step()
        ...     print(scheduler.get_last_lr())
        [0.5]
        [0.3333333333333333]
        [0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


class MultiplicativeLR(LRScheduler):
    """Multiplies each group's lr by ``lr_lambda(step)`` at every step after the first.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        lr_lambda (callable or list): a function of the step index giving the factor, or a
            list of them, one per param group.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.MultiplicativeLR(opt, lambda step: 0.5)
        >>> for _ in range(3):
        ...     opt.step()
        ...     scheduler.step()
        >>> scheduler.get_last_lr()
        [0.125]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self._is_initial:
            return self._current_lrs()
        return [
            group["lr"] * lmbda(self.last_epoch)
            for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class StepLR(LRScheduler):
    """Multiplies each group's lr by ``gamma`` every ``step_size`` steps.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        step_size (int): the period of the decay, in steps.
        gamma (float): the factor of each decay. Default: 0.1.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs.append(scheduler.get_last_lr()[0])
        >>> lrs
        [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        decays = self.last_epoch // self.step_size
        return [base_lr * self.gamma**decays for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies each group's lr by ``gamma`` at each milestone (by ``gamma**k`` at a milestone
    listed k times).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        milestones (iterable of int): the step indices of the decays.
        gamma (float): the factor of each decay. Default: 0.1.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.MultiStepLR(opt, [1, 3, 3], gamma=0.5)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs.append(scheduler.get_last_lr()[0])
        >>> lrs
        [0.5, 0.5, 0.125, 0.125]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        return self._scaled_lrs(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self) -> list[Any]:
        decays = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma**decays for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiplies each group's lr by ``factor`` for the first ``total_iters`` steps, then
    restores it.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        factor (float): the factor, in [0, 1]. Default: 1/3.
        total_iters (int): the number of steps it lasts. Default: 5.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(3):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> lrs
        [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self.last_epoch == 0:
            return self._scaled_lrs(self.factor)
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return self._scaled_lrs(1.0 / self.factor)

    def _get_closed_form_lr(self) -> list[Any]:
        after = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + after * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Multiplies each group's lr by a factor that goes linearly from ``start_factor`` to
    ``end_factor`` over ``total_iters`` steps, then stays.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        start_factor (float): the first factor, in (0, 1]. Default: 1/3.
        end_factor (float): the last factor, in [0, 1]. Default: 1.0.
        total_iters (int): the number of steps to reach ``end_factor``. Default: 5.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.LinearLR(opt, 0.25, 1.0, total_iters=3)
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self.last_epoch == 0:
            return self._scaled_lrs(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        delta = self.end_factor - self.start_factor
        previous = self.total_iters * self.start_factor + (self.last_epoch - 1) * delta
        return self._scaled_lrs(1.0 + delta / previous)

    def _get_closed_form_lr(self) -> list[Any]:
        done = min(self.total_iters, self.last_epoch)
        return [
            base_lr
            * (self.start_factor + (self.end_factor - self.start_factor) * done / self.total_iters)
            for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiplies each group's lr by ``gamma`` at every step.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        gamma (float): the factor of each step.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> for _ in range(3):
        ...     opt.step()
        ...     scheduler.step()
        >>> scheduler.get_last_lr()
        [0.125]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self._is_initial:
            return self._current_lrs()
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays each group's lr as ``(1 - step / total_iters) ** power`` of its initial lr,
    reaching 0 at ``total_iters`` and staying there.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        total_iters (int): the number of decaying steps. Default: 5.
        power (float): the power of the polynomial. Default: 1.0.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(5):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> lrs
        [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        now = 1.0 - self.last_epoch / self.total_iters
        before = 1.0 - (self.last_epoch - 1) / self.total_iters
        return self._scaled_lrs((now / before) ** self.power)

    def _get_closed_form_lr(self) -> list[Any]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * left**self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneals each group's lr from its initial lr to ``eta_min`` along half a cosine over
    ``T_max`` steps, and back up over the next ``T_max`` (SGDR without the restarts).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        T_max (int): the number of steps of half a period.
        eta_min (float): the lowest lr. Default: 0.0.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(6):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> [round(lr, 4) for lr in lrs]
        [1.0, 0.8536, 0.5, 0.1464, 0.0, 0.1464, 0.5]
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        epoch, T_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and epoch > 0:
            return self._get_closed_form_lr()
        groups = self.optimizer.param_groups
        if (epoch - 1 - T_max) % (2 * T_max) == 0:  # the bottom: rise by the first step's drop
            return [
                group["lr"] + (base_lr - eta_min) * (1 - math.cos(math.pi / T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups)
            ]
        ratio = (1 + math.cos(math.pi * epoch / T_max)) / (
            1 + math.cos(math.pi * (epoch - 1) / T_max)
        )
        return [ratio * (group["lr"] - eta_min) + eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [_cosine(lr, self.eta_min, self.last_epoch, self.T_max) for lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from each group's initial lr to ``eta_min``, restarted every ``T_i``
    steps, where ``T_i`` starts at ``T_0`` and is multiplied by ``T_mult`` at each restart
    (SGDR). ``step(epoch)`` takes fractional epochs and does not warn, as in PyTorch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        T_0 (int): the number of steps to the first restart, positive.
        T_mult (int): the factor of the period at each restart, >= 1. Default: 1.
        eta_min (float): the lowest lr. Default: 0.0.
        last_epoch (int): the index of the last step, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> [round(lr, 4) for lr in lrs]
        [1.0, 0.5, 1.0, 0.5, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch  # fractional after step(epoch) with a float epoch
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        return [_cosine(lr, self.eta_min, self.T_cur, self.T_i) for lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Moves the schedule one step on, or to ``epoch``, and sets each group's ``lr``.

        Args:
            epoch (float, optional): the (possibly fractional) epoch to jump to, for updates
                within an epoch (``scheduler.step(epoch + i / iters)``). Default: None (one
                step on).

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> sched = genesis.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 4, T_mult=2)
            >>> sched.step(5.0)  # the second period, 8 steps long, began at 4
            >>> sched.T_i, sched.T_cur, sched.last_epoch
            (8, 1.0, 5)
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:  # the n-th period begins at T_0 (T_mult**n - 1) / (T_mult - 1)
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)


# -- cyclical schedules -----------------------------------------------------------------------


class CyclicLR(LRScheduler):
    """Cycles each group's lr between ``base_lr`` and ``max_lr`` (the cyclical learning rates of
    Smith, 2017), a step per batch: up over ``step_size_up`` steps, down over
    ``step_size_down``, the height scaled per ``mode`` or ``scale_fn``; with
    ``cycle_momentum`` the momentum (SGD's ``momentum``, Adam's ``betas[0]``) cycles the other
    way between ``max_momentum`` and ``base_momentum``.

    Modes: ``"triangular"``, a constant height; ``"triangular2"``, halved each cycle;
    ``"exp_range"``, scaled by ``gamma**step``. A ``scale_fn`` of one argument replaces the
    mode's; ``scale_mode`` says whether it takes the cycle number or the step.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        base_lr (float or list): the lowest lr of each group (set as the groups' lr).
        max_lr (float or list): the highest lr of each group.
        step_size_up (int): the number of steps of the rise. Default: 2000.
        step_size_down (int, optional): the number of steps of the fall. Default: None
            (``step_size_up``).
        mode (str): ``"triangular"``, ``"triangular2"`` or ``"exp_range"``.
            Default: ``"triangular"``.
        gamma (float): the base of ``"exp_range"``'s scale. Default: 1.0.
        scale_fn (callable, optional): a custom scale, which overrides ``mode``. Default: None.
        scale_mode (str): ``"cycle"`` or ``"iterations"``, the argument of ``scale_fn``.
            Default: ``"cycle"``.
        cycle_momentum (bool): cycle the momentum too. Default: True.
        base_momentum (float or list): the lowest momentum of each group. Default: 0.8.
        max_momentum (float or list): the highest momentum of each group. Default: 0.9.
        last_epoch (int): the index of the last batch, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1, momentum=0.9)
        >>> scheduler = genesis.optim.lr_scheduler.CyclicLR(opt, 0.25, 1.0, step_size_up=2)
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> lrs, opt.param_groups[0]["momentum"]
        ([0.25, 0.625, 1.0, 0.625, 0.25], 0.9)
    """

    use_beta1: bool  # set by _init_momentum, with cycle_momentum only

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        if scale_fn is None:  # the modes fix what their scale takes
            scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _init_momentum(
                self, base_momentum, max_momentum, last_epoch
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The scale of the cycle's height: ``scale_fn(x)`` when one was given, else the
        mode's (1; ``1 / 2**(x - 1)``; ``gamma**x``).

        Args:
            x (float): the cycle number (from 1) or the step, per ``scale_mode``.

        Returns:
            float: the scale.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1)
            >>> scheduler = genesis.optim.lr_scheduler.CyclicLR(
            ...     opt, 0.1, 1.0, mode="triangular2", cycle_momentum=False
            ... )
            >>> scheduler.scale_fn(3)
            0.25
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def _compute_lr(self) -> list[Any]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # the position in the cycle
        if x <= self.step_ratio:
            height = x / self.step_ratio
        else:
            height = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base_lr + (max_lr - base_lr) * height * scale
            for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            momenta = zip(self.base_momentums, self.max_momentums, self.optimizer.param_groups)
            for low, high, group in momenta:
                _set_momentum(group, high - (high - low) * height * scale, self.use_beta1)
        return lrs


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin, 2018), a step per batch: each group's lr rises from
    ``max_lr / div_factor`` to ``max_lr`` over the first ``pct_start`` of ``total_steps``, then
    anneals to ``max_lr / div_factor / final_div_factor``; with ``cycle_momentum`` the
    momentum (SGD's ``momentum``, Adam's ``betas[0]``) goes the other way between
    ``max_momentum`` and ``base_momentum``. ``three_phase`` comes back down to the initial lr
    symmetrically before the final annealing (fast.ai's schedule).

    ``total_steps``, or ``epochs`` and ``steps_per_epoch``, fix the length; stepping past it
    raises a ValueError.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        max_lr (float or list): the peak lr of each group.
        total_steps (int, optional): the number of steps of the cycle. Default: None.
        epochs (int, optional): with ``steps_per_epoch``, gives ``total_steps``. Default: None.
        steps_per_epoch (int, optional): see ``epochs``. Default: None.
        pct_start (float): the fraction of the cycle spent rising. Default: 0.3.
        anneal_strategy (str): ``"cos"`` or ``"linear"``. Default: ``"cos"``.
        cycle_momentum (bool): cycle the momentum too. Default: True.
        base_momentum (float or list): the lowest momentum of each group. Default: 0.85.
        max_momentum (float or list): the highest momentum of each group. Default: 0.95.
        div_factor (float): ``max_lr / initial lr``. Default: 25.0.
        final_div_factor (float): ``initial lr / final lr``. Default: 1e4.
        three_phase (bool): use the three-phase schedule. Default: False.
        last_epoch (int): the index of the last batch, to resume. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=0.1)
        >>> scheduler = genesis.optim.lr_scheduler.OneCycleLR(
        ...     opt, max_lr=1.0, total_steps=5, pct_start=0.4, anneal_strategy="linear",
        ...     cycle_momentum=False, div_factor=4.0, final_div_factor=2.5,
        ... )
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> [round(lr, 4) for lr in lrs]
        [0.25, 1.0, 0.7, 0.4, 0.1]
    """

    use_beta1: bool  # set by _init_momentum, with cycle_momentum only

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy

        # Each phase anneals from one group key to another (PyTorch's table and keys).
        rise_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            fall_end = float(2 * pct_start * self.total_steps) - 2
            self._schedule_phases: list[_Phase] = [
                _phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(fall_end, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                _phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                _phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for peak, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_momentum(self, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _compute_lr(self) -> list[Any]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        anneal = _annealing_cos if self._anneal_func_type == "cos" else _annealing_linear
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step - start_step) / (end_step - start_step)
                    lrs.append(anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        start, end = group[phase["start_momentum"]], group[phase["end_momentum"]]
                        _set_momentum(group, anneal(start, end, pct), self.use_beta1)
                    break
                start_step = end_step
        return lrs


# -- composites -------------------------------------------------------------------------------


def _check_schedulers(owner: str, optimizer: Any, schedulers: Sequence[Any]) -> None:
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(_PLATEAU_IN_CHAIN.format(owner, i))
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {i} has {scheduler.optimizer}, "
                f"which is different from {type(optimizer).__name__}."
            )


class SequentialLR(LRScheduler):
    """Runs ``schedulers`` one after another, switching at each milestone: at step
    ``milestones[i]`` scheduler ``i + 1`` starts from its own step 0 (from the groups'
    ``initial_lr``).

    Args:
        optimizer (Optimizer): the optimizer every scheduler wraps.
        schedulers (list): the schedulers, in order.
        milestones (list of int): the steps at which the next one takes over, one fewer than
            the schedulers.
        last_epoch (int): the index of the last step. Default: -1.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> warmup = genesis.optim.lr_scheduler.LinearLR(opt, 0.5, total_iters=2)
        >>> decay = genesis.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> scheduler = genesis.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], [2])
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> lrs
        [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler, but got no scheduler."
            )
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The schedulers each took a step when they were made: undo them, and take the first
        # scheduler's again from the initial lrs.
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Takes one step back off the ``last_epoch`` of every scheduler inside ``sched``
        (nested SequentialLRs included), undoing the first step each took when made.

        Args:
            sched (LRScheduler, optional): where to start. Default: None (this scheduler).

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> inner = genesis.optim.lr_scheduler.StepLR(opt, step_size=2)
            >>> outer = genesis.optim.lr_scheduler.SequentialLR(opt, [inner], [])
            >>> inner.last_epoch
            0
            >>> outer.recursive_undo()
            >>> inner.last_epoch
            -1
        """
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Moves on one step: the scheduler in charge steps, or, at a milestone, the next one
        starts at its step 0 (its closed form, where it has one).

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> first = genesis.optim.lr_scheduler.ConstantLR(opt, factor=0.5)
            >>> second = genesis.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
            >>> scheduler = genesis.optim.lr_scheduler.SequentialLR(opt, [first, second], [1])
            >>> opt.step()
            >>> scheduler.step()
            >>> scheduler.get_last_lr()
            [1.0]
        """
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(LRScheduler):
    """Steps every scheduler in ``schedulers`` at each step, so their (chainable) effects
    compound: a warm-up and a decay together, say.

    Args:
        schedulers (sequence): the schedulers, all of one optimizer.
        optimizer (Optimizer, optional): that optimizer. Default: None (the first scheduler's).

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> constant = genesis.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> decay = genesis.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> scheduler = genesis.optim.lr_scheduler.ChainedScheduler([constant, decay])
        >>> lrs = scheduler.get_last_lr()
        >>> for _ in range(3):
        ...     opt.step()
        ...     scheduler.step()
        ...     lrs += scheduler.get_last_lr()
        >>> lrs
        [0.5, 0.25, 0.25, 0.125]
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got "
                "no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Steps every scheduler, in order.

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> halve = genesis.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
            >>> scheduler = genesis.optim.lr_scheduler.ChainedScheduler([halve, halve])
            >>> opt.step()
            >>> scheduler.step()
            >>> scheduler.get_last_lr()
            [0.25]
        """
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


# -- driven by a metric -----------------------------------------------------------------------


class ReduceLROnPlateau(LRScheduler):
    """Multiplies each group's lr by ``factor`` when a metric has stopped improving for
    ``patience`` steps; ``step(metrics)`` takes the metric (a validation loss, say).

    The metric improves on the best so far when it is lower (``mode="min"``) or higher
    (``"max"``) by more than ``threshold``, relative (``"rel"``: ``best * (1 - threshold)``
    for min) or absolute (``"abs"``: ``best - threshold``). After a reduction, ``cooldown``
    steps pass before bad steps count again. No lr goes below its ``min_lr``, and a change
    smaller than ``eps`` is not made.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        mode (str): ``"min"`` or ``"max"``. Default: ``"min"``.
        factor (float): the factor of a reduction, below 1. Default: 0.1.
        patience (int): the number of steps without improvement to wait. Default: 10.
        threshold (float): the margin of an improvement. Default: 1e-4.
        threshold_mode (str): ``"rel"`` or ``"abs"``. Default: ``"rel"``.
        cooldown (int): the steps after a reduction before counting again. Default: 0.
        min_lr (float or list): the lowest lr, of all groups or of each. Default: 0.
        eps (float): the smallest change of an lr that is made. Default: 1e-8.

    Example::

        >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
        >>> scheduler = genesis.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
        >>> for loss in [3.0, 2.0, 2.0, 2.0, 1.0]:
        ...     opt.step()
        ...     scheduler.step(loss)
        >>> scheduler.get_last_lr()
        [0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != groups:
                raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * groups
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is in the cooldown after a reduction (bad steps not counted).

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> scheduler = genesis.optim.lr_scheduler.ReduceLROnPlateau(
            ...     opt, patience=0, cooldown=2
            ... )
            >>> scheduler.step(1.0)
            >>> scheduler.step(1.0)
            >>> scheduler.in_cooldown
            True
        """
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Takes one value of the metric and reduces the lrs if it has not improved for more
        than ``patience`` steps.

        Args:
            metrics (float): the metric's value (a float or a one-element Tensor).
            epoch (int, optional): deprecated (it warns, as in PyTorch): the step index to
                record. Default: None.

        Returns:
            None.

        Example::

            >>> opt = genesis.optim.SGD([genesis.nn.Parameter(genesis.zeros(1))], lr=1.0)
            >>> scheduler = genesis.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
            >>> scheduler.step(genesis.tensor(1.0))
            >>> scheduler.step(1.5)
            >>> scheduler.get_last_lr(), scheduler.best
            ([0.1], 1.0)
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                    f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually "
                    "due to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)
