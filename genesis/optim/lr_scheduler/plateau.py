"""ReduceLROnPlateau: the schedule driven by a metric, reducing the lrs when it stops
improving."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..optimizer import Optimizer
from .base import EPOCH_DEPRECATION_WARNING, LRScheduler, _group_values, _set_group_value


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
        self._set_optimizer(optimizer)
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
