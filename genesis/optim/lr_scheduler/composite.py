"""The schedulers made of schedulers: SequentialLR (one after another, switching at
milestones) and ChainedScheduler (all stepped together, their effects compounding)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ..optimizer import Optimizer
from .base import LRScheduler, _group_values, _set_group_value
from .plateau import ReduceLROnPlateau

_PLATEAU_IN_CHAIN = (
    "{} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
    "specified when calling `step`, but got one at index {} in the given schedulers sequence."
)


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
