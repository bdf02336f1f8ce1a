"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (2016) for large vocabularies,
with PyTorch's submodules (``head``, ``tail``), so that state_dicts load both ways."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from ..._C import Tensor, cat, int64, where
from ..._C import bool as bool_
from ...autograd import no_grad
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear, _check_features
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_NAME = "AdaptiveLogSoftmaxWithLoss"


class AdaptiveLogSoftmaxWithLoss(Module):
    """The adaptive softmax: PyTorch's ``nn.AdaptiveLogSoftmaxWithLoss``.

    Classes are sorted by frequency and split by ``cutoffs``: the ``head`` scores the first
    ``cutoffs[0]`` classes (the shortlist) and one entry per cluster; cluster ``i`` (classes
    ``cutoffs[i]`` to ``cutoffs[i + 1] - 1``, the last ending at ``n_classes``) is scored by
    ``tail[i]``, a projection to ``in_features // div_value ** (i + 1)`` features and a linear
    layer to its classes. A class's log-probability is its head log-probability, or its
    cluster's head log-probability plus its log-probability within the cluster. ``forward``
    runs each cluster only on the rows whose targets fall in it.

    Args:
        in_features (int): the number of features of the input.
        n_classes (int): the number of classes.
        cutoffs (sequence of int): increasing, unique cluster boundaries in [1, n_classes - 1].
        div_value (float, optional): the factor by which each cluster's projection shrinks.
            Default: 4.0.
        head_bias (bool, optional): whether the head has a bias. Default: False.
        device, dtype: where and in which dtype the parameters are made.

    ``forward(input, target)`` takes (N, in_features) and (N,) (or (in_features,) and a 0-d
    target) and returns the named tuple ``(output, loss)``: each target's log-probability and
    the mean negative log-likelihood. ``log_prob(input)`` gives every class's log-probability
    (N, n_classes), ``predict(input)`` the most likely class (N,).

    Example::

        >>> asm = genesis.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs=[4, 7])
        >>> out = asm(genesis.randn(3, 16), genesis.tensor([0, 5, 9]))
        >>> out.output.shape, out.loss.shape
        (genesis.Size([3]), genesis.Size([]))
        >>> asm.log_prob(genesis.randn(3, 16)).exp().sum(1).allclose(genesis.ones(3))
        True
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Any,
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError(f"[{_NAME}] cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                f"[{_NAME}] cutoffs should be a sequence of unique, positive integers sorted in "
                "an increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kw),
                    Linear(hidden, size, bias=False, **kw),
                )
            )

    def reset_parameters(self) -> None:
        """Draws the head's and the tail's parameters again (Linear's default initialization)."""
        self.head.reset_parameters()
        for layer in self.tail.modules():
            if isinstance(layer, Linear):
                layer.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> _ASMoutput:
        for what, value in (("input", input), ("target", target)):
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"[{_NAME}] {what} must be a genesis.Tensor, got {type(value).__name__}"
                )
        if target.dim() == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError(
                    f"[{_NAME}] Input and target should have the same size in the batch dimension."
                )
            if input.dim() != 2:
                raise RuntimeError(
                    f"[{_NAME}] 1D target tensor expects 2D input tensors, but found inputs with "
                    f"size {list(input.shape)}"
                )
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(
                    f"[{_NAME}] 0D target tensor expects 1D input tensors, but found inputs with "
                    f"size {list(input.shape)}"
                )
        else:
            raise RuntimeError(
                f"[{_NAME}] 0D or 1D target tensor expected, multi-target not supported"
            )
        _check_features(_NAME, input, self.in_features, self.head.weight)
        if target.dtype.is_floating_point or target.dtype == bool_:
            raise RuntimeError(f"[{_NAME}] expected an integer target, got {target.dtype}")
        batched = target.dim() == 1
        x = input if batched else input.unsqueeze(0)
        t = (target if batched else target.unsqueeze(0)).to(int64)
        if t.numel() and bool(((t < 0) | (t >= self.n_classes)).any()):
            raise RuntimeError(
                f"[{_NAME}] Target values should be in [0, {self.n_classes - 1}], but values in "
                f"range [{t.min().item()}, {t.max().item()}] were found."
            )
        # cluster[j]: 0 for a shortlist target, i + 1 for one in tail[i]
        cluster = t.new_zeros(t.shape)
        for c in self.cutoffs[:-1]:
            cluster = cluster + (t >= c).to(int64)
        in_head = where(cluster == 0, t, cluster + (self.shortlist_size - 1))
        head_logprob = F.log_softmax(self.head(x), dim=1)
        output = head_logprob.gather(1, in_head.unsqueeze(1)).squeeze(1)
        for i, projection in enumerate(self.tail):
            rows = (cluster == i + 1).nonzero().view(-1)
            if rows.numel() == 0:
                continue
            relative = t.index_select(0, rows) - self.cutoffs[i]
            logprob = F.log_softmax(projection(x.index_select(0, rows)), dim=1)
            output = output.index_add(0, rows, logprob.gather(1, relative.unsqueeze(1)).squeeze(1))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """Every class's log-probability from the input and the head's output."""
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            cluster = self.shortlist_size + i
            logprob = F.log_softmax(projection(input), dim=1)
            parts.append(logprob + head_logprob[:, cluster : cluster + 1])
        return cat(parts, 1)

    def _check_2d(self, input: Any, what: str) -> None:
        _check_features(_NAME, input, self.in_features, self.head.weight)
        if input.dim() != 2:
            raise RuntimeError(
                f"[{_NAME}] {what} expects a 2D input (N, in_features), but found inputs with "
                f"size {list(input.shape)}"
            )

    def log_prob(self, input: Tensor) -> Tensor:
        """Every class's log-probability.

        Args:
            input (Tensor): (N, in_features).

        Returns:
            Tensor: (N, n_classes).
        """
        self._check_2d(input, "log_prob")
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row, as ``log_prob(input).argmax(1)`` but computing
        the clusters only for the rows whose head's best entry is a cluster.

        Args:
            input (Tensor): (N, in_features).

        Returns:
            Tensor: (N,) int64.
        """
        self._check_2d(input, "predict")
        with no_grad():
            head_output = self.head(input)
            output = head_output.argmax(1)
            rows = (output >= self.shortlist_size).nonzero().view(-1)
            if rows.numel() == 0:
                return output
            if rows.numel() == output.numel():
                return self._full_log_prob(input, head_output).argmax(1)
            best = self._full_log_prob(
                input.index_select(0, rows), head_output.index_select(0, rows)
            ).argmax(1)
            return output.index_copy(0, rows, best)
