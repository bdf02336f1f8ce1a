"""The cyclical schedules, stepped once a batch: CyclicLR (triangular cycles between two
lrs) and OneCycleLR (the 1cycle policy); both can cycle the momentum the other way."""

from __future__ import annotations

import math
from typing import Any, Callable, TypedDict

from ..optimizer import Optimizer
from .base import LRScheduler, _format_param, _set_group_value


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
        self._set_optimizer(optimizer)
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
        self._set_optimizer(optimizer)
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
