"""GradScaler: loss scaling for float16 training, as ``torch.amp.GradScaler``."""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable
from enum import Enum
from typing import Any

from .. import _C, cuda

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the current iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class _PerDevice:
    """One tensor, copied once to each device that asks for it."""

    def __init__(self, master: Any) -> None:
        self.master = master
        self.copies: dict[str, Any] = {}

    def get(self, device: Any) -> Any:
        key = str(device)
        if key not in self.copies:
            self.copies[key] = self.master.to(device=device, copy=True)
        return self.copies[key]


class GradScaler:
    """Scales the loss so that small float16 gradients survive, and unscales the gradients
    before the optimizer step, as ``torch.amp.GradScaler``.

    ``scale(loss)`` multiplies by the scale before backward; ``step(optimizer)`` unscales the
    optimizer's gradients (unless ``unscale_`` did already) in one fused pass per device
    (``genesis._amp_foreach_non_finite_check_and_unscale_``) and steps only if none of them
    holds an inf or a NaN; ``update()`` then backs the scale off by ``backoff_factor`` after a
    skipped step, or multiplies it by ``growth_factor`` after ``growth_interval`` steps in a
    row without one (``genesis._amp_update_scale_``, on the scale's device). The scale lives on
    the device of the first scaled output; ``step`` reads the inf flag once per device.

    Args:
        device (str): the device type of the gradients, 'cuda' or 'cpu'. Default: 'cuda'.
        init_scale (float): the first scale. Default: 2.0**16.
        growth_factor (float): the scale's growth (> 1). Default: 2.0.
        backoff_factor (float): the scale's backoff (< 1). Default: 0.5.
        growth_interval (int): steps without inf/NaN between growths. Default: 2000.
        enabled (bool): False makes every method a pass-through. Default: True.

    Example::

        >>> model = genesis.nn.Linear(3, 1)
        >>> opt = genesis.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = genesis.amp.GradScaler("cpu", init_scale=1024.0)
        >>> loss = model(genesis.ones(2, 3)).sum()
        >>> scaler.scale(loss).backward()
        >>> scaler.step(opt)
        >>> scaler.update()
        >>> scaler.get_scale()
        1024.0
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        if device not in ("cuda", "cpu"):
            raise RuntimeError(
                f"GradScaler: device '{device}' has no gradient scaling (use 'cuda' or 'cpu')"
            )
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda.is_available():
            warnings.warn(
                "genesis.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Any = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Any = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(
                _fresh_optimizer_state
            )

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Any, Any]:
        fix = (
            "This may indicate your script did not use scaler.scale(loss or outputs) earlier "
            "in the iteration."
        )
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, device: Any) -> None:
        import genesis

        self._scale = genesis.full((), self._init_scale, dtype=genesis.float32, device=device)
        self._growth_tracker = genesis.full(
            (), self._init_growth_tracker, dtype=genesis.int32, device=device
        )

    def scale(self, outputs: Any) -> Any:
        """Multiplies outputs (usually the loss) by the scale, before backward.

        Args:
            outputs (Tensor or iterable of Tensors): a tensor, or lists and tuples of them.

        Returns:
            the same structure with every tensor multiplied by the scale (``outputs`` itself
            when the scaler is disabled).

        Example::

            >>> scaler = genesis.amp.GradScaler("cpu", init_scale=8.0)
            >>> scaler.scale(genesis.tensor(0.5))
            tensor(4.)
        """
        if not self._enabled:
            return outputs
        replicator: list[_PerDevice] = []

        def apply(value: Any) -> Any:
            if isinstance(value, _C.Tensor):
                if not replicator:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(value.device)
                    replicator.append(_PerDevice(self._scale))
                scale = replicator[0].get(value.device)
                if value.dtype in (_C.float16, _C.bfloat16):
                    # PyTorch multiplies by a 0-d tensor in float: the default scale (65536)
                    # is inf in float16, the product often is not.
                    return (value.float() * scale).to(value.dtype)
                return value * scale
            if isinstance(value, Iterable):
                scaled = map(apply, value)
                if isinstance(value, (list, tuple)):
                    return type(value)(scaled)
                return scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(
        self, optimizer: Any, inv_scale: Any, found_inf: Any, allow_fp16: bool
    ) -> dict[str, Any]:
        import genesis

        inv_scales = _PerDevice(inv_scale)
        found_infs = _PerDevice(found_inf)
        per_device: dict[str, list[Any]] = defaultdict(list)
        devices: dict[str, Any] = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype == genesis.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                per_device[str(grad.device)].append(grad)
                devices[str(grad.device)] = grad.device
        with genesis.no_grad():
            for key, grads in per_device.items():
                device = devices[key]
                _C._amp_foreach_non_finite_check_and_unscale_(
                    grads, found_infs.get(device), inv_scales.get(device)
                )
        return found_infs.copies

    def unscale_(self, optimizer: Any) -> None:
        """Divides an optimizer's gradients by the scale in place, before clipping them, say;
        at most once per ``update()``.

        Args:
            optimizer (genesis.optim.Optimizer): whose parameters' gradients to unscale.

        Returns:
            None

        Example::

            >>> p = genesis.nn.Parameter(genesis.ones(2))
            >>> opt = genesis.optim.SGD([p], lr=0.1)
            >>> scaler = genesis.amp.GradScaler("cpu", init_scale=4.0)
            >>> (p * 3).sum().mul(4.0).backward()
            >>> scaler._lazy_init_scale_growth_tracker(p.device)
            >>> scaler.unscale_(opt)
            >>> p.grad
            tensor([3., 3.])
        """
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        import genesis

        # The reciprocal in double, rounded once to float, as PyTorch.
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = genesis.zeros((), dtype=genesis.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Steps an optimizer unless one of its gradients holds an inf or a NaN, unscaling
        them first if ``unscale_`` did not.

        Args:
            optimizer (genesis.optim.Optimizer): the optimizer to step.
            *args: passed to ``optimizer.step``.
            **kwargs: passed to ``optimizer.step`` (not ``closure``).

        Returns:
            what ``optimizer.step`` returned, or None when the step was skipped.

        Example::

            >>> p = genesis.nn.Parameter(genesis.ones(2))
            >>> opt = genesis.optim.SGD([p], lr=0.1)
            >>> scaler = genesis.amp.GradScaler("cpu", init_scale=4.0)
            >>> scaler.scale(p.sum()).backward()
            >>> scaler.step(opt)
            >>> p
            Parameter containing:
            tensor([0.9000, 0.9000], requires_grad=True)
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        """Sets the scale for the next iteration: backed off after a skipped step, grown
        after ``growth_interval`` good ones, or ``new_scale``.

        Args:
            new_scale (float or Tensor, optional): the scale to use instead. Default: None.

        Returns:
            None

        Example::

            >>> p = genesis.nn.Parameter(genesis.ones(2))
            >>> opt = genesis.optim.SGD([p], lr=0.1)
            >>> scaler = genesis.amp.GradScaler("cpu", init_scale=4.0)
            >>> p.grad = genesis.tensor([float("inf"), 0.0])
            >>> _ = scaler.scale(p.sum())
            >>> scaler.step(opt)
            >>> scaler.update()
            >>> scaler.get_scale()
            2.0
        """
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = (
                    "new_scale should be a float or a 1-element genesis.cuda.FloatTensor or "
                    "genesis.FloatTensor with requires_grad=False."
                )
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [
                found_inf.to(device=scale.device)
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for other in found_infs[1:]:
                combined += other
            _C._amp_update_scale_(
                scale,
                growth_tracker,
                combined,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _get_scale_async(self) -> Any:
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a Python float; reading it waits for the device.

        Returns:
            float: the scale (1.0 when disabled).

        Example::

            >>> genesis.amp.GradScaler("cpu").get_scale()
            65536.0
        """
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale.item())

    def get_growth_factor(self) -> float:
        """The factor the scale grows by.

        Returns:
            float: the growth factor.

        Example::

            >>> genesis.amp.GradScaler("cpu").get_growth_factor()
            2.0
        """
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the factor the scale grows by.

        Args:
            new_factor (float): the growth factor.

        Returns:
            None

        Example::

            >>> scaler = genesis.amp.GradScaler("cpu")
            >>> scaler.set_growth_factor(4.0)
        """
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale backs off by.

        Returns:
            float: the backoff factor.

        Example::

            >>> genesis.amp.GradScaler("cpu").get_backoff_factor()
            0.5
        """
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the factor the scale backs off by.

        Args:
            new_factor (float): the backoff factor.

        Returns:
            None

        Example::

            >>> scaler = genesis.amp.GradScaler("cpu")
            >>> scaler.set_backoff_factor(0.25)
        """
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """The number of steps in a row without inf or NaN after which the scale grows.

        Returns:
            int: the growth interval.

        Example::

            >>> genesis.amp.GradScaler("cpu").get_growth_interval()
            2000
        """
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets the number of steps in a row without inf or NaN after which the scale grows.

        Args:
            new_interval (int): the growth interval.

        Returns:
            None

        Example::

            >>> scaler = genesis.amp.GradScaler("cpu")
            >>> scaler.set_growth_interval(100)
        """
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        """Whether the scaler scales (False also when CUDA was asked for and is missing).

        Returns:
            bool: whether it is enabled.

        Example::

            >>> genesis.amp.GradScaler("cpu", enabled=False).is_enabled()
            False
        """
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scaler's state, with PyTorch's keys, for checkpoints.

        Returns:
            dict: scale, growth_factor, backoff_factor, growth_interval and _growth_tracker
            (empty when disabled).

        Example::

            >>> genesis.amp.GradScaler("cpu", init_scale=8.0).state_dict()["scale"]
            8.0
        """
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state that ``state_dict()`` returned (a no-op when disabled).

        Args:
            state_dict (dict): the state.

        Returns:
            None

        Example::

            >>> a = genesis.amp.GradScaler("cpu", init_scale=8.0)
            >>> b = genesis.amp.GradScaler("cpu")
            >>> b.load_state_dict(a.state_dict())
            >>> b.get_scale()
            8.0
        """
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning of an iteration, "
                    "or at the end after scaler.update()."
                )
            # The scale travels as numbers; the tensors are made again on first use.
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
