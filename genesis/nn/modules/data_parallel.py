"""DataParallel: one process running a module on several GPUs, as torch.nn.DataParallel.

Note [Data parallel in one process]: each call splits the tensors among its arguments into
chunks along ``dim`` (one chunk a device, ``Tensor.chunk``'s sizes), copies the module onto
each device with ``.to`` (differentiable, so each replica's parameters are non-leaf copies whose
gradients add back into the original's ``.grad``; the first device's replica holds the original
tensors themselves, so its buffer updates, such as batch norm's running statistics, persist),
runs the replicas in threads (each on its device, with the caller's grad mode and autocast
state), and concatenates the outputs on ``output_device``. With one device it moves the module
there and calls it; without CUDA it calls the module as it is. PyTorch recommends
DistributedDataParallel (one process a GPU) over this, and so does genesis.
"""

from __future__ import annotations

import threading
import warnings
from itertools import chain
from typing import Any

from ..._C import Tensor, cat
from ..._C import device as _device
from ...autograd import is_grad_enabled, set_grad_enabled
from .module import Module

__all__ = ["DataParallel"]  # the helpers are genesis.nn.parallel's

_LAYER = "DataParallel"


def _index(d: Any) -> int:
    """A device id from an int or a CUDA device ('cuda:1', genesis.device('cuda', 1))."""
    if isinstance(d, int):
        return d
    dev = _device(d)
    if dev.type != "cuda":
        raise ValueError(f"[{_LAYER}] expected CUDA device ids, got {d!r}")
    return 0 if dev.index is None else dev.index


def _scatter(obj: Any, devices: list[int], dim: int) -> list:
    """obj split for each device: tensors chunked along dim and copied there, containers
    walked, anything else repeated; as many parts as the smallest tensor's chunks."""
    if isinstance(obj, Tensor):
        chunks = obj.chunk(len(devices), dim)
        return [c.to(f"cuda:{d}") for c, d in zip(chunks, devices)]
    if isinstance(obj, tuple) and obj:
        if hasattr(obj, "_fields"):  # a namedtuple
            return [type(obj)(*parts) for parts in zip(*(_scatter(o, devices, dim) for o in obj))]
        return list(zip(*(_scatter(o, devices, dim) for o in obj)))
    if isinstance(obj, list) and obj:
        return [list(parts) for parts in zip(*(_scatter(o, devices, dim) for o in obj))]
    if isinstance(obj, dict) and obj:
        return [
            type(obj)(parts) for parts in zip(*(_scatter(i, devices, dim) for i in obj.items()))
        ]
    return [obj for _ in devices]


def scatter(inputs: Any, target_gpus: list, dim: int = 0) -> list:
    """inputs split for each of target_gpus (tensors chunked along dim and copied there)."""
    return _scatter(inputs, [_index(d) for d in target_gpus], dim)


def scatter_kwargs(inputs: tuple, kwargs: dict | None, devices: list[int], dim: int = 0) -> tuple:
    """(inputs per device, kwargs per device), padded to the same count."""
    parts = _scatter(inputs, devices, dim) if inputs else []
    kparts = _scatter(kwargs, devices, dim) if kwargs else []
    if len(parts) < len(kparts):
        parts.extend(() for _ in range(len(kparts) - len(parts)))
    elif len(kparts) < len(parts):
        kparts.extend({} for _ in range(len(parts) - len(kparts)))
    return tuple(parts), tuple(kparts)


def replicate(module: Module, devices: list[int], detach: bool = False) -> list[Module]:
    """A shallow copy of module on each device: parameters and buffers copied with ``.to``
    (the first device's are the originals when they live there), submodules replicated."""

    def copy_to(m: Module, d: int) -> Module:
        replica = object.__new__(type(m))
        replica.__dict__ = m.__dict__.copy()
        target = f"cuda:{d}"
        params = {}
        for name, p in m._parameters.items():
            if p is not None:
                p = p.detach() if detach else p
                p = p.to(target)
            params[name] = p
        buffers = {n: (None if b is None else b.to(target)) for n, b in m._buffers.items()}
        object.__setattr__(replica, "_parameters", params)
        object.__setattr__(replica, "_buffers", buffers)
        object.__setattr__(
            replica,
            "_modules",
            {n: None if c is None else copy_to(c, d) for n, c in m._modules.items()},
        )
        return replica

    return [copy_to(module, d) for d in devices]


def parallel_apply(
    modules: list, inputs: tuple, kwargs_tup: tuple | None = None, devices: list | None = None
) -> list:
    """modules[i](*inputs[i], **kwargs_tup[i]) on devices[i] (default: the device of the
    module's first parameter), one thread each; the first error is raised."""
    from ... import cuda
    from ...amp import autocast, get_autocast_dtype, is_autocast_enabled

    # grad mode and autocast are per thread: the workers take the caller's
    kwargs = kwargs_tup if kwargs_tup is not None else tuple({} for _ in modules)
    if devices is None:
        devices = [next(m.parameters()).device.index or 0 for m in modules]
    devices = [_index(d) for d in devices]
    if not (len(modules) == len(inputs) == len(kwargs) == len(devices)):
        raise ValueError(f"[{_LAYER}] parallel_apply needs one input, kwargs and device a module")
    grad = is_grad_enabled()
    cast, cast_dtype = is_autocast_enabled("cuda"), get_autocast_dtype("cuda")
    results: list[Any] = [None] * len(modules)
    errors: list[BaseException | None] = [None] * len(modules)

    def work(i: int) -> None:
        try:
            with (
                set_grad_enabled(grad),
                cuda.device(devices[i]),
                autocast("cuda", dtype=cast_dtype, enabled=cast),
            ):
                args = inputs[i] if isinstance(inputs[i], (list, tuple)) else (inputs[i],)
                results[i] = modules[i](*args, **kwargs[i])
        except BaseException as error:  # re-raised in the caller's thread
            errors[i] = error

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(modules))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for error in errors:
        if error is not None:
            raise error
    return results


def gather(outputs: list, target: Any, dim: int = 0) -> Any:
    """The replicas' outputs joined on target (a device id, -1 for the CPU): tensors
    concatenated along dim (0-dim ones become a vector, with a warning), containers walked."""
    where = "cpu" if target == -1 else f"cuda:{_index(target)}"
    first = outputs[0]
    if isinstance(first, Tensor):
        if all(o.dim() == 0 for o in outputs):
            warnings.warn(
                f"[{_LAYER}] was asked to gather along dimension 0, but all input tensors were "
                "scalars; will instead unsqueeze and return a vector.",
                stacklevel=3,
            )
            outputs = [o.reshape(1) for o in outputs]
        return cat([o.to(where) for o in outputs], dim)
    if first is None:
        return None
    if isinstance(first, dict):
        if any(len(o) != len(first) for o in outputs):
            raise ValueError(f"[{_LAYER}] all dicts must have the same number of keys")
        return type(first)((k, gather([o[k] for o in outputs], target, dim)) for k in first)
    if isinstance(first, (list, tuple)):
        parts = [gather(list(p), target, dim) for p in zip(*outputs)]
        return type(first)(*parts) if hasattr(first, "_fields") else type(first)(parts)
    return outputs


class DataParallel(Module):
    """Runs ``module`` on several GPUs of this process, each on a slice of the batch (Note
    [Data parallel in one process]).

    Args:
        module (Module): the module to run; its parameters and buffers must be on
            ``device_ids[0]``.
        device_ids (list of int or device): the GPUs (default: all).
        output_device (int or device): where outputs are gathered (default: device_ids[0]; -1
            for the CPU).
        dim (int): the dim inputs are split and outputs joined along. Default: 0.

    Its ``state_dict`` keys start with ``module.``, as PyTorch's.

    Example::

        >>> net = genesis.nn.DataParallel(genesis.nn.Linear(4, 2))
        >>> net(genesis.zeros(3, 4)).shape
        genesis.Size([3, 2])
    """

    def __init__(
        self,
        module: Module,
        device_ids: list | None = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        from ... import cuda

        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"[{_LAYER}] module must be a genesis.nn.Module, got {type(module).__name__}"
            )
        self.module = module
        self.dim = dim
        if not cuda.is_available():
            self.device_ids: list[int] = []
            self.output_device = None
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if not device_ids:
            raise ValueError(f"[{_LAYER}] device_ids must not be empty")
        self.device_ids = [_index(d) for d in device_ids]
        self.output_device = self.device_ids[0] if output_device is None else output_device
        if self.output_device != -1:
            self.output_device = _index(self.output_device)
        self.src_device = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device:
                raise RuntimeError(
                    f"[{_LAYER}] module must have its parameters and buffers on device "
                    f"{self.src_device} (device_ids[0]) but found one of them on device: "
                    f"{t.device}"
                )
        parts, kparts = scatter_kwargs(inputs, kwargs, self.device_ids, self.dim)
        if not parts and not kparts:
            parts, kparts = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*parts[0], **kparts[0])
        devices = self.device_ids[: len(parts)]
        replicas = replicate(self.module, devices, not is_grad_enabled())
        outputs = parallel_apply(replicas, parts, kparts, devices)
        return gather(outputs, self.output_device, self.dim)


def data_parallel(
    module: Module,
    inputs: Any,
    device_ids: list | None = None,
    output_device: Any = None,
    dim: int = 0,
    module_kwargs: dict | None = None,
) -> Any:
    """One DataParallel call as a function: module(*inputs, **module_kwargs) split over
    device_ids and gathered on output_device."""
    net = DataParallel(module, device_ids, output_device, dim)
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return net(*inputs, **(module_kwargs or {}))
