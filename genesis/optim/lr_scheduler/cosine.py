"""Cosine annealing: CosineAnnealingLR (down over ``T_max`` steps and back up) and
CosineAnnealingWarmRestarts (SGDR, restarted every period)."""

from __future__ import annotations

import math
from typing import Any

from ..optimizer import Optimizer
from .base import LRScheduler


def _cosine(base_lr: Any, eta_min: float, t: float, period: float) -> Any:
    """Cosine annealing from ``base_lr`` (t = 0) to ``eta_min`` (t = period)."""
    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * t / period)) / 2


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
        self._set_lrs_from(self.get_lr)
