"""PairwiseDistance and CosineSimilarity."""

from __future__ import annotations

from ..._C import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    """The p-norm of ``x1 - x2 + eps`` over the last dimension
    (``genesis.nn.functional.pairwise_distance``).

    Args:
        p (float): the norm's order (may be negative). Default: 2.0.
        eps (float): added to the differences. Default: 1e-6.
        keepdim (bool): keep the vector dimension with size 1. Default: False.

    As in PyTorch, ``p`` is kept in the attribute ``norm``.

    Example::

        >>> dist = genesis.nn.PairwiseDistance(eps=0.0)
        >>> dist(genesis.tensor([[0.0, 0.0]]), genesis.tensor([[3.0, 4.0]]))
        tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine similarity of ``x1`` and ``x2`` along ``dim``
    (``genesis.nn.functional.cosine_similarity``).

    Args:
        dim (int): the dimension to compare along. Default: 1.
        eps (float): the least norm divided by. Default: 1e-8.

    Example::

        >>> cos = genesis.nn.CosineSimilarity(dim=0)
        >>> cos(genesis.tensor([1.0, 0.0]), genesis.tensor([1.0, 1.0]))
        tensor(0.7071)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
