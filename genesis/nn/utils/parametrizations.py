"""``nn.utils.parametrizations``: weight_norm and spectral_norm as parametrizations (Note
[Parametrized modules] in parametrize.py), with PyTorch's formulas, buffers and names."""

from __future__ import annotations

from ..._C import Tensor
from ...autograd import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of v over every dim but ``dim`` (keeping dims), or of all of v for dim -1."""
    if dim == -1:
        return v.norm()
    others = [d for d in range(v.dim()) if d != dim]
    return v.norm(dim=others, keepdim=True) if others else v.abs()


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrizes ``module.<name>`` as ``g * v / ||v||`` (norm over every dim but ``dim``;
    ``dim=None``: over the whole tensor), with ``g`` and ``v`` stored as
    ``parametrizations.<name>.original0`` and ``original1``.

    Example::

        >>> layer = genesis.nn.utils.parametrizations.weight_norm(genesis.nn.Linear(3, 2))
        >>> sorted(layer.state_dict())
        ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty((h,)).normal_(0, 1)
            v = weight_mat.new_empty((w,)).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            order = [self.dim] + [d for d in range(weight.dim()) if d != self.dim]
            weight = weight.permute(order)
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # Updates the buffers in place (no gradient), as PyTorch's power iteration does.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = (u * weight_mat.mv(v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Reparametrizes ``module.<name>`` as the weight divided by its spectral norm, estimated by
    power iteration (``n_power_iterations`` steps per training forward; the vectors are the
    buffers ``parametrizations.<name>.0._u`` and ``_v``).

    Example::

        >>> layer = genesis.nn.utils.parametrizations.spectral_norm(genesis.nn.Linear(3, 2))
        >>> [key for key in layer.state_dict() if key.startswith("parametrizations")][1:]
        ['parametrizations.weight.0._u', 'parametrizations.weight.0._v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
