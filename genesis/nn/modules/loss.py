"""The loss layers of torch.nn: each holds its options (and, for the weighted ones, its weights
as buffers, so ``state_dict`` and ``.to()`` see them as in PyTorch) and calls its function in
``genesis.nn.functional``."""

from __future__ import annotations

import warnings
from typing import Any

from ..._C import Tensor
from .. import functional as F
from ..functional._loss import _legacy_get_string
from .module import Module

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "NLLLoss2d",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]


class _Loss(Module):
    """The base of the losses: ``reduction``, or the legacy ``size_average`` / ``reduce``
    mapped to it as PyTorch does."""

    reduction: str

    def __init__(
        self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean"
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with per-class weights, registered as the buffer ``weight`` (None when not given)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """The mean (or sum) absolute error between input and target: ``F.l1_loss``.

    Example::

        >>> loss = genesis.nn.L1Loss()
        >>> loss(genesis.tensor([1.0, 2.0]), genesis.tensor([0.0, 0.0]))
        tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """The mean (or sum) squared error between input and target: ``F.mse_loss``.

    Example::

        >>> loss = genesis.nn.MSELoss()
        >>> loss(genesis.tensor([1.0, 2.0]), genesis.tensor([0.0, 0.0]))
        tensor(2.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """The negative log-likelihood of class-index targets given log-probabilities: ``F.nll_loss``.

    Args:
        weight (Tensor, optional): (C,) per-class weights (a buffer). Default: None.
        size_average, reduce: deprecated (see ``reduction``).
        ignore_index (int): a target value that adds nothing to the loss. Default: -100.
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.NLLLoss()
        >>> loss(genesis.tensor([[-0.5, -1.0], [-2.0, -0.1]]), genesis.tensor([0, 1]))
        tensor(0.3000)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class NLLLoss2d(NLLLoss):
    """``NLLLoss``, under its deprecated name (which warns with a FutureWarning, as PyTorch's)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class PoissonNLLLoss(_Loss):
    """The negative log-likelihood of Poisson-distributed targets: ``F.poisson_nll_loss``.

    Args:
        log_input (bool): whether the input is the log of the rate. Default: True.
        full (bool): add Stirling's approximation of ``log(target!)``. Default: False.
        size_average, reduce: deprecated (see ``reduction``).
        eps (float): added to the input before its log when not ``log_input``. Default: 1e-8.
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.PoissonNLLLoss()
        >>> loss(genesis.tensor([0.0, 1.0]), genesis.tensor([1.0, 3.0]))
        tensor(0.3591)
    """

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: bool | None = None,
        eps: float = 1e-8,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """The negative log-likelihood of targets under Gaussians: ``F.gaussian_nll_loss``.

    Args (keyword-only):
        full (bool): add the constant ``log(2 pi) / 2``. Default: False.
        eps (float): the least variance used. Default: 1e-6.
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.GaussianNLLLoss()
        >>> loss(genesis.tensor([0.0, 1.0]), genesis.tensor([1.0, 1.0]), genesis.tensor([1.0, 2.0]))
        tensor(0.4233)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence of the target from the input: ``F.kl_div``.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'batchmean' | 'sum' | 'mean'. Default: 'mean'.
        log_target (bool): whether the target holds log-probabilities. Default: False.

    Example::

        >>> loss = genesis.nn.KLDivLoss(reduction="batchmean")
        >>> logq = genesis.tensor([[0.5, 0.5], [0.25, 0.75]]).log()
        >>> loss(logq, genesis.tensor([[0.5, 0.5], [0.5, 0.5]]))
        tensor(0.0719)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class BCELoss(_WeightedLoss):
    """The binary cross entropy between probabilities and targets: ``F.binary_cross_entropy``.

    Args:
        weight (Tensor, optional): weights that broadcast to the input (a buffer). Default: None.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.BCELoss()
        >>> loss(genesis.tensor([0.9, 0.2]), genesis.tensor([1.0, 0.0]))
        tensor(0.1643)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """The binary cross entropy of ``sigmoid(input)``, stably: the logits' BCE.

    ``F.binary_cross_entropy_with_logits``; ``weight`` and ``pos_weight`` are buffers.

    Args:
        weight (Tensor, optional): weights that broadcast to the input. Default: None.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.
        pos_weight (Tensor, optional): weights of the positive targets, (C,) for (N, C)
            input. Default: None.

    Example::

        >>> loss = genesis.nn.BCEWithLogitsLoss(pos_weight=genesis.tensor([2.0]))
        >>> loss(genesis.tensor([0.0, 0.0]), genesis.tensor([1.0, 0.0]))
        tensor(1.0397)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """The hinge embedding loss of distances and targets 1 or -1: ``F.hinge_embedding_loss``.

    Args:
        margin (float): the margin of the -1 targets. Default: 1.0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.HingeEmbeddingLoss()
        >>> loss(genesis.tensor([0.3, 0.3]), genesis.tensor([1.0, -1.0]))
        tensor(0.5000)
    """

    def __init__(
        self,
        margin: float = 1.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-class multi-label hinge loss: ``F.multilabel_margin_loss``.

    Example::

        >>> loss = genesis.nn.MultiLabelMarginLoss()
        >>> loss(genesis.tensor([[0.1, 0.2, 0.4, 0.8]]), genesis.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above: ``F.smooth_l1_loss``.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.
        beta (float): the non-negative threshold. Default: 1.0.

    Example::

        >>> loss = genesis.nn.SmoothL1Loss()
        >>> loss(genesis.tensor([0.5, 2.0]), genesis.tensor([0.0, 0.0]))
        tensor(0.8125)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, delta-scaled absolute error above: ``F.huber_loss``.

    Args:
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.
        delta (float): the positive threshold. Default: 1.0.

    Example::

        >>> loss = genesis.nn.HuberLoss(delta=2.0)
        >>> loss(genesis.tensor([0.5, 3.0]), genesis.tensor([0.0, 0.0]))
        tensor(2.0625)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if not isinstance(delta, (float, int)):
            raise TypeError(f"[HuberLoss] delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """The two-class logistic loss ``log(1 + exp(-y x))``: ``F.soft_margin_loss``.

    Example::

        >>> loss = genesis.nn.SoftMarginLoss()
        >>> loss(genesis.tensor([2.0, 0.0]), genesis.tensor([1.0, -1.0]))
        tensor(0.4100)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """The cross entropy between the softmax of logits and the target: ``F.cross_entropy``.

    The target holds class indices, or class probabilities of the input's shape.

    Args:
        weight (Tensor, optional): (C,) per-class weights (a buffer). Default: None.
        size_average, reduce: deprecated (see ``reduction``).
        ignore_index (int): a target index that adds nothing to the loss. Default: -100.
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.
        label_smoothing (float): in [0, 1], the share of the target spread uniformly over the
            classes. Default: 0.0.

    Example::

        >>> loss = genesis.nn.CrossEntropyLoss()
        >>> loss(genesis.tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 0.0]]), genesis.tensor([0, 2]))
        tensor(0.8606)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The multi-label one-versus-all logistic loss: ``F.multilabel_soft_margin_loss``.

    Args:
        weight (Tensor, optional): (C,) per-class weights (a buffer). Default: None.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.MultiLabelSoftMarginLoss()
        >>> loss(genesis.tensor([[2.0, -1.0]]), genesis.tensor([[1.0, 0.0]]))
        tensor(0.2201)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class CosineEmbeddingLoss(_Loss):
    """A loss on the cosine similarity of two inputs: ``F.cosine_embedding_loss``.

    Args:
        margin (float): the margin of the -1 targets, in [-1, 1]. Default: 0.0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.CosineEmbeddingLoss()
        >>> a, b = genesis.tensor([[1.0, 0.0]]), genesis.tensor([[1.0, 1.0]])
        >>> loss(a, b, genesis.tensor([1.0]))
        tensor(0.2929)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """A loss that ranks input1 above input2 for target 1: ``F.margin_ranking_loss``.

    Args:
        margin (float): the margin. Default: 0.0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.MarginRankingLoss(margin=1.0)
        >>> loss(genesis.tensor([1.0, 0.0]), genesis.tensor([0.5, 0.5]), genesis.tensor([1.0, 1.0]))
        tensor(1.)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss of scores and class indices: ``F.multi_margin_loss``.

    Args:
        p (int): 1 or 2. Default: 1.
        margin (float): the margin. Default: 1.0.
        weight (Tensor, optional): (C,) per-class weights (a buffer). Default: None.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.MultiMarginLoss()
        >>> loss(genesis.tensor([[0.1, 0.2, 0.4, 0.8]]), genesis.tensor([3]))
        tensor(0.3250)
    """

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError(f"[MultiMarginLoss] only p == 1 and p == 2 supported, got {p}")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "[MultiMarginLoss] expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self.weight,
            reduction=self.reduction,
        )


class TripletMarginLoss(_Loss):
    """The triplet loss of anchors, positives and negatives: ``F.triplet_margin_loss``.

    Args:
        margin (float): a positive margin. Default: 1.0.
        p (float): the norm's order. Default: 2.0.
        eps (float): added to the differences. Default: 1e-6.
        swap (bool): use the distance swap. Default: False.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.TripletMarginLoss(eps=0.0)
        >>> a = genesis.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> loss(a, a + 0.5, a + 1.0)
        tensor(0.2929)
    """

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"[TripletMarginLoss] expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet loss with any distance function: ``F.triplet_margin_with_distance_loss``
    (the default distance is a ``PairwiseDistance`` submodule, as in PyTorch).

    Args:
        distance_function (callable, optional): ``d(x, y)``. Default: None (PairwiseDistance).
        margin (float): a positive margin. Default: 1.0.
        swap (bool): use the distance swap. Default: False.
        reduction (str): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Example::

        >>> loss = genesis.nn.TripletMarginWithDistanceLoss(margin=2.0)
        >>> a = genesis.tensor([[0.0, 0.0]])
        >>> loss(a, a, a + 3.0) < 1e-3
        tensor(True)
    """

    def __init__(
        self,
        *,
        distance_function: Any = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                "[TripletMarginWithDistanceLoss] TripletMarginWithDistanceLoss: expected margin "
                f"to be greater than 0, got {margin} instead"
            )
        from .distance import PairwiseDistance

        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class CTCLoss(_Loss):
    """The connectionist temporal classification loss: ``F.ctc_loss``.

    Args:
        blank (int): the blank label. Default: 0.
        reduction (str): 'none' | 'mean' | 'sum'; 'mean' divides each loss by its target
            length, then averages over the batch. Default: 'mean'.
        zero_infinity (bool): make infinite losses (targets no alignment fits) and their
            gradients 0. Default: False.

    Example::

        >>> loss = genesis.nn.CTCLoss()
        >>> log_probs = genesis.full((2, 1, 2), 0.5).log()
        >>> loss(log_probs, genesis.tensor([[1]]), (2,), (1,))
        tensor(0.2877)
    """

    def __init__(
        self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
    ) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any
    ) -> Tensor:
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
