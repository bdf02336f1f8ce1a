"""pairwise_distance, cosine_similarity and pdist."""

from __future__ import annotations

from ..._C import Tensor, broadcast_tensors, norm, result_type, triu_indices
from ...amp._policies import autocast_policy
from ...autograd import no_grad
from ...linalg import vector_norm

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def _check_tensors(op: str, **tensors: object) -> None:
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"[{op}] {name} must be a genesis.Tensor, got {type(t).__name__}")


def _broadcast(op: str, x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    try:
        b1, b2 = broadcast_tensors(x1, x2)
    except (RuntimeError, ValueError) as e:
        raise RuntimeError(
            f"[{op}] x1 {tuple(x1.shape)} and x2 {tuple(x2.shape)} do not broadcast together"
        ) from e
    return b1, b2


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """Returns the p-norm of ``x1 - x2 + eps`` over the last dimension.

    PyTorch's ``torch.nn.functional.pairwise_distance``: ``x1`` and ``x2`` broadcast together
    and the norm is taken over the last dim of the broadcast shape (``eps`` is added to every
    difference, which keeps negative ``p`` finite). Integer inputs give float32 distances, as
    in PyTorch (the ``eps`` makes them floating point).

    Args:
        x1 (Tensor): (N, D) or (D,) vectors.
        x2 (Tensor): vectors that broadcast with ``x1``.
        p (float): the norm's order (any number, ``inf`` included). Default: 2.0.
        eps (float): added to the differences. Default: 1e-6.
        keepdim (bool): keep the reduced dim with size 1. Default: ``False``.

    Returns:
        Tensor: the distances, (N,) or () (with ``keepdim``, (N, 1) or (1,)).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.pairwise_distance(genesis.tensor([[0.0, 0.0], [1.0, 1.0]]),
        ...                     genesis.tensor([[3.0, 4.0], [1.0, 1.0]]), eps=0.0)
        tensor([5., 0.])
    """
    _check_tensors("pairwise_distance", x1=x1, x2=x2)
    _broadcast("pairwise_distance", x1, x2)
    dim = max(x1.dim(), x2.dim()) - 1
    return norm(x1 - x2 + eps, p, dim=dim, keepdim=keepdim)


@autocast_policy
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Returns the cosine similarity of ``x1`` and ``x2`` along ``dim``.

    PyTorch's ``torch.nn.functional.cosine_similarity`` and its formula: the inputs broadcast
    together, each is divided by its 2-norm along ``dim`` clamped from below by ``eps``, and
    the products are summed over ``dim``, so the result stays in [-1, 1]. As in PyTorch, the
    clamp is not recorded by autograd (the gradient is that of the unclamped norm), and
    integer inputs are converted to the floating point common dtype (which must exist).

    Args:
        x1 (Tensor): the first input.
        x2 (Tensor): the second input, broadcastable with ``x1``.
        dim (int): the dim of the broadcast shape to compare along. Default: 1.
        eps (float): the least norm divided by. Default: 1e-8.

    Returns:
        Tensor: the similarities, of the broadcast shape without ``dim``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.cosine_similarity(genesis.tensor([[1.0, 0.0], [3.0, 4.0]]),
        ...                     genesis.tensor([[0.0, 2.0], [4.0, 3.0]]))
        tensor([0.0000, 0.9600])
    """
    _check_tensors("cosine_similarity", x1=x1, x2=x2)
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(
            "[cosine_similarity] expected common dtype to be floating point, yet common dtype "
            f"is {common}"
        )
    if not x1.is_floating_point():
        x1 = x1.to(common)
    if not x2.is_floating_point():
        x2 = x2.to(common)
    x1, x2 = _broadcast("cosine_similarity", x1, x2)
    # The norms are clamped in place without recording it, as in PyTorch (Note above).
    n1 = vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    n2 = vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@autocast_policy
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """Returns the p-norm distance between every pair of rows of ``input``.

    PyTorch's ``torch.nn.functional.pdist``: for an (N, M) input, the N * (N - 1) / 2
    distances ``||input[i] - input[j]||_p`` for ``i < j``, in row-major order (the upper
    triangle of the distance matrix without its diagonal). The differences of all pairs are
    made at once: the work and memory are N * (N - 1) / 2 * M.

    Args:
        input (Tensor): an (N, M) floating point tensor.
        p (float): the norm's order, in [0, inf]. Default: 2.

    Returns:
        Tensor: the (N * (N - 1) / 2,) distances.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.pdist(genesis.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
        tensor([5.0000, 1.0000, 4.2426])
    """
    _check_tensors("pdist", input=input)
    if input.dim() != 2:
        raise RuntimeError(f"[pdist] pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError(f"[pdist] pdist only supports floating-point dtypes, got {input.dtype}")
    if p < 0:
        raise RuntimeError(f"[pdist] pdist only supports non-negative p values, got {p}")
    i, j = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return norm(input.index_select(0, i) - input.index_select(0, j), p, dim=1)
