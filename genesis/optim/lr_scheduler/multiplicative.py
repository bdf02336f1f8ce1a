"""The multiplicative schedules: each step multiplies the lrs by a factor (LambdaLR and
MultiplicativeLR by a user function's, StepLR, MultiStepLR and ExponentialLR by ``gamma``,
ConstantLR and LinearLR by a warm-up factor, PolynomialLR by a polynomial decay's), with the
closed forms that ``step(epoch)`` uses (Note [Chainable and closed forms] in base.py)."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from typing import Any, Callable

from ..optimizer import Optimizer
from .base import LRScheduler


def _lr_lambdas(
    optimizer: Optimizer, lr_lambda: Any, check_callable: bool = False
) -> list[Callable[[int], float]]:
    """One function per param group (LambdaLR's and MultiplicativeLR's ``lr_lambda``);
    ``check_callable`` raises MultiplicativeLR's TypeError for one that is not callable."""
    groups = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        lambdas = [lr_lambda] * groups
    elif len(lr_lambda) != groups:
        raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
    else:
        lambdas = list(lr_lambda)
    if check_callable:
        for fn in lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
    return lambdas


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
        self._set_optimizer(optimizer)
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
        self._set_optimizer(optimizer)
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda, check_callable=True)
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
