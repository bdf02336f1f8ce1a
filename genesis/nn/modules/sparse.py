"""Embedding and EmbeddingBag."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, empty
from ...autograd import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _padding(layer: str, padding_idx: int | None, num_embeddings: int, word: str) -> int | None:
    """PyTorch's constructor check of padding_idx; negative values count from the end."""
    if padding_idx is None:
        return None
    if (padding_idx > 0 and padding_idx >= num_embeddings) or padding_idx < -num_embeddings:
        raise AssertionError(f"[{layer}] {word} must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def _given_weight(layer: str, weight: Any, num_embeddings: int, embedding_dim: int) -> Tensor:
    if not isinstance(weight, Tensor):
        raise TypeError(f"[{layer}] _weight must be a genesis.Tensor, got {type(weight).__name__}")
    if list(weight.shape) != [num_embeddings, embedding_dim]:
        raise AssertionError(
            f"[{layer}] Shape of weight does not match num_embeddings and embedding_dim: "
            f"{tuple(weight.shape)} is not ({num_embeddings}, {embedding_dim})"
        )
    return weight


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``: maps indices of
    any shape to their rows of ``weight``.

    Args:
        num_embeddings (int): the size of the dictionary.
        embedding_dim (int): the size of each vector.
        padding_idx (int, optional): a row that gets no gradient, set to zeros at construction
            (negative counts from the end). Default: None.
        max_norm (float, optional): rows looked up whose norm exceeds it are renormalized to it
            in place (see ``genesis.nn.functional.embedding``). Default: None.
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.0.
        scale_grad_by_freq (bool): scale the gradients by the inverse frequency of the indices
            in the batch. Default: False.
        sparse (bool): sparse gradients, which genesis does not support: True raises
            RuntimeError. Default: False.
        device, dtype: where and in which dtype the weight is made.

    The weight is (num_embeddings, embedding_dim), drawn from N(0, 1) as in PyTorch.

    Example::

        >>> emb = genesis.nn.Embedding(10, 3, padding_idx=0)
        >>> emb(genesis.tensor([[1, 2], [0, 9]])).shape
        genesis.Size([2, 2, 3])
        >>> emb
        Embedding(10, 3, padding_idx=0)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if sparse:
            raise RuntimeError("[Embedding] sparse gradients are not supported")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding("Embedding", padding_idx, num_embeddings, "Padding_idx")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(
                empty((num_embeddings, embedding_dim), device=device, dtype=dtype),
                requires_grad=not _freeze,
            )
            self.reset_parameters()
        else:
            weight = _given_weight("Embedding", _weight, num_embeddings, embedding_dim)
            self.weight = Parameter(weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        """Draws the weight again from N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """Makes an Embedding whose weight is ``embeddings`` (shared, not copied).

        Args:
            embeddings (Tensor): the (num_embeddings, embedding_dim) weight.
            freeze (bool): the weight does not require grad. Default: True.
            padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse: as for the
                constructor (the padding row is not zeroed).

        Returns:
            Embedding: the layer.
        """
        if not isinstance(embeddings, Tensor):
            raise TypeError(
                f"[Embedding] embeddings must be a genesis.Tensor, got {type(embeddings).__name__}"
            )
        if embeddings.dim() != 2:
            raise AssertionError(
                "[Embedding] Embeddings parameter is expected to be 2-dimensional, got "
                f"{embeddings.dim()}-D"
            )
        rows, cols = embeddings.shape
        return cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            _freeze=freeze,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )


class EmbeddingBag(Module):
    """Sums, means or maxes of bags of embeddings (``genesis.nn.functional.embedding_bag``).

    Args:
        num_embeddings (int): the size of the dictionary.
        embedding_dim (int): the size of each vector.
        max_norm (float, optional): rows looked up whose norm exceeds it are renormalized to it
            in place. Default: None.
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.0.
        scale_grad_by_freq (bool): scale the gradients by the inverse frequency of the indices
            in the batch (not with ``mode="max"``). Default: False.
        mode (str): ``"sum"``, ``"mean"`` or ``"max"``. Default: ``"mean"``.
        sparse (bool): sparse gradients, which genesis does not support: True raises
            RuntimeError. Default: False.
        include_last_offset (bool): ``offsets`` ends with the end of the last bag (CSR).
            Default: False.
        padding_idx (int, optional): an index left out of every bag, whose row is set to zeros
            at construction (negative counts from the end). Default: None.
        device, dtype: where and in which dtype the weight is made.

    The weight is (num_embeddings, embedding_dim), drawn from N(0, 1) as in PyTorch.

    Example::

        >>> bag = genesis.nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(genesis.tensor([1, 2, 4, 5]), genesis.tensor([0, 2])).shape
        genesis.Size([2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Tensor | None = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if sparse:
            raise RuntimeError("[EmbeddingBag] sparse gradients are not supported")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding("EmbeddingBag", padding_idx, num_embeddings, "padding_idx")
        if _weight is None:
            self.weight = Parameter(
                empty((num_embeddings, embedding_dim), device=device, dtype=dtype)
            )
            self.reset_parameters()
        else:
            weight = _given_weight("EmbeddingBag", _weight, num_embeddings, embedding_dim)
            self.weight = Parameter(weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Draws the weight again from N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(
        self, input: Tensor, offsets: Tensor | None = None, per_sample_weights: Tensor | None = None
    ) -> Tensor:
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self) -> str:
        s = "{num_embeddings}, {embedding_dim}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        s += ", mode={mode}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        return s.format(**{k: repr(v) for k, v in self.__dict__.items()})

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
    ) -> EmbeddingBag:
        """Makes an EmbeddingBag whose weight is ``embeddings`` (shared, not copied).

        Args:
            embeddings (Tensor): the (num_embeddings, embedding_dim) weight.
            freeze (bool): the weight does not require grad. Default: True.
            max_norm, norm_type, scale_grad_by_freq, mode, sparse, include_last_offset,
                padding_idx: as for the constructor (the padding row is not zeroed).

        Returns:
            EmbeddingBag: the layer.
        """
        if not isinstance(embeddings, Tensor):
            raise TypeError(
                "[EmbeddingBag] embeddings must be a genesis.Tensor, got "
                f"{type(embeddings).__name__}"
            )
        if embeddings.dim() != 2:
            raise AssertionError(
                "[EmbeddingBag] Embeddings parameter is expected to be 2-dimensional, got "
                f"{embeddings.dim()}-D"
            )
        rows, cols = embeddings.shape
        bag = cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            mode=mode,
            sparse=sparse,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag
