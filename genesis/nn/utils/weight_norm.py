"""The hook-based weight_norm and spectral_norm of PyTorch's older API (``nn.utils.weight_norm``,
deprecated there in favour of the parametrizations), with the same parameter and buffer names:
``weight_g``/``weight_v`` and ``weight_orig``/``weight_u``/``weight_v``."""

from __future__ import annotations

import warnings
from typing import Any

from ...autograd import no_grad
from .. import functional as F
from ..modules.module import Module
from ..parameter import Parameter
from .parametrizations import _norm_except_dim

__all__ = ["remove_spectral_norm", "remove_weight_norm", "spectral_norm", "weight_norm"]


class _WeightNormHook:
    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute(module))


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Replaces ``module.<name>`` by ``<name>_g * <name>_v / ||<name>_v||``, recomputed before
    each forward (PyTorch's deprecated hook form; see ``parametrizations.weight_norm``).

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     layer = genesis.nn.utils.weight_norm(genesis.nn.Linear(3, 2))
        >>> sorted(layer.state_dict())
        ['bias', 'weight_g', 'weight_v']
    """
    warnings.warn(
        "`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.",
        FutureWarning,
        stacklevel=2,
    )
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two weight_norm hooks on the same parameter {name}"
            )
    hook = _WeightNormHook(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, hook.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undoes :func:`weight_norm`: ``<name>`` becomes a parameter again.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     layer = genesis.nn.utils.weight_norm(genesis.nn.Linear(3, 2))
        >>> sorted(genesis.nn.utils.remove_weight_norm(layer).state_dict())
        ['bias', 'weight']
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            with no_grad():
                weight = hook.compute(module)
            delattr(module, name)
            del module._parameters[name + "_g"]
            del module._parameters[name + "_v"]
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")


class _SpectralNormHook:
    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        self.name = name
        self.n_power_iterations = n_power_iterations
        self.dim = dim
        self.eps = eps

    def matrix(self, weight: Any) -> Any:
        if self.dim != 0:
            order = [self.dim] + [d for d in range(weight.dim()) if d != self.dim]
            weight = weight.permute(order)
        return weight.reshape(weight.shape[0], -1)

    def compute(self, module: Module, do_power_iteration: bool) -> Any:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mat.mv(v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()
        sigma = (u * mat.mv(v)).sum()
        return weight / sigma

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute(module, module.training))


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divides ``module.<name>`` by its spectral norm before each forward (power iteration on
    the buffers ``<name>_u``, ``<name>_v``; the weight is ``<name>_orig``): PyTorch's hook form
    (see ``parametrizations.spectral_norm``).

    Example::

        >>> layer = genesis.nn.utils.spectral_norm(genesis.nn.Linear(3, 2))
        >>> sorted(layer.state_dict())
        ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two spectral_norm hooks on the same parameter {name}"
            )
    if n_power_iterations <= 0:
        raise ValueError(
            "Expected n_power_iterations to be positive, but got "
            f"n_power_iterations={n_power_iterations}"
        )
    hook = _SpectralNormHook(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with no_grad():
        mat = hook.matrix(weight)
        h, w = mat.shape
        u = F.normalize(weight.new_empty((h,)).normal_(0, 1), dim=0, eps=eps)
        v = F.normalize(weight.new_empty((w,)).normal_(0, 1), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undoes :func:`spectral_norm`: ``<name>`` becomes a parameter holding the normalized
    weight.

    Example::

        >>> layer = genesis.nn.utils.spectral_norm(genesis.nn.Linear(3, 2))
        >>> sorted(genesis.nn.utils.remove_spectral_norm(layer).state_dict())
        ['bias', 'weight']
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            with no_grad():
                weight = hook.compute(module, do_power_iteration=False)
            delattr(module, name)
            del module._parameters[name + "_orig"]
            del module._buffers[name + "_u"]
            del module._buffers[name + "_v"]
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
