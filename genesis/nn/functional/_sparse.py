"""embedding, embedding_bag and one_hot.

The lookups are ``index_select`` on the weight's rows; bags reduce with ``index_add`` /
``index_reduce`` into one row per bag (positions that belong to no bag, and ``padding_idx``,
go to a spare row that is dropped). genesis has no sparse tensors: ``sparse=True`` is refused.

Note [Negative embedding indices]: genesis's index ops take negative indices from the end,
PyTorch's embedding refuses them. On the CPU the indices are checked at once (IndexError
``[embedding] ...``); on CUDA a negative index ``i`` is passed on as ``i - num_embeddings``,
which ``index_select`` reports out of range at the next wait (Note [Deferred index errors]),
so the deferred message names ``index_select`` and that shifted value.
"""

from __future__ import annotations

import warnings

from ..._C import Tensor, arange, index_select, int32, int64, norm, ones, searchsorted, where, zeros
from ...autograd import Function, no_grad

__all__ = ["embedding", "embedding_bag", "one_hot"]


def _check_indices(op: str, input: object, what: str = "input") -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"[{op}] {what} must be a genesis.Tensor, got {type(input).__name__}")
    if input.dtype not in (int64, int32):
        raise RuntimeError(
            f"[{op}] expected {what} of dtype int64 or int32 (indices), got {input.dtype}"
        )


def _check_weight(op: str, weight: object, error: type = RuntimeError) -> None:
    if not isinstance(weight, Tensor):
        raise TypeError(f"[{op}] weight must be a genesis.Tensor, got {type(weight).__name__}")
    if weight.dim() != 2:
        if error is ValueError:  # embedding_bag's (Python) check
            raise ValueError(
                f"[{op}] weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
            )
        raise error(f"[{op}] 'weight' must be 2-D, got a {weight.dim()}-D tensor")


def _in_range(op: str, idx: Tensor, n: int) -> Tensor:
    """``idx`` with every index checked against [0, n) (Note [Negative embedding indices])."""
    if idx.numel() == 0:
        return idx
    if idx.device.type == "cpu":
        t_lo, t_hi = idx.aminmax()
        lo, hi = int(t_lo), int(t_hi)
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise IndexError(
                f"[{op}] index out of range in self: index {bad} is not in [0, {n}) (the rows "
                "of weight)"
            )
        return idx
    return where(idx < 0, idx - n, idx)


def _renorm_(weight: Tensor, idx: Tensor, max_norm: float, norm_type: float) -> None:
    """Scales the rows of ``weight`` named in ``idx`` whose ``norm_type``-norm exceeds
    ``max_norm`` to norm ``max_norm`` (in place, without recording it), as PyTorch's
    ``embedding_renorm_``: ``row *= max_norm / (norm + 1e-7)``. Repeated indices write the same
    values."""
    with no_grad():
        idx = idx if idx.dtype is int64 else idx.long()
        rows = index_select(weight, 0, idx)
        norms = norm(rows, norm_type, dim=1, keepdim=True)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_copy_(0, idx, rows * scale)


class _Embedding(Function):
    """Row lookup whose gradient skips ``padding_idx`` and, with ``scale_grad_by_freq``, divides
    each index's gradient by how often the index occurs (PyTorch's ``embedding_backward``)."""

    @staticmethod
    def forward(ctx, weight, idx, padding_idx, scale_grad_by_freq):  # noqa: ANN001
        ctx.save_for_backward(idx)
        ctx.weight_shape = tuple(weight.shape)
        ctx.padding_idx = padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        return index_select(weight, 0, idx)

    @staticmethod
    def backward(ctx, grad):  # noqa: ANN001
        (idx,) = ctx.saved_tensors
        n, d = ctx.weight_shape
        if ctx.scale_grad_by_freq:
            counts = zeros(n, dtype=int64, device=grad.device).index_add(
                0, idx, ones(idx.shape[0], dtype=int64, device=grad.device)
            )
            grad = grad / index_select(counts, 0, idx).unsqueeze(1)
        rows = n
        if ctx.padding_idx is not None:
            # The padding positions add into a spare row n, dropped below.
            idx = where(idx == ctx.padding_idx, n, idx)
            rows = n + 1
        grad_weight = zeros((rows, d), dtype=grad.dtype, device=grad.device).index_add(0, idx, grad)
        return (grad_weight if rows == n else grad_weight[:n]), None, None, None


def _lookup(weight: Tensor, idx: Tensor, padding_idx: int | None, scale: bool) -> Tensor:
    if padding_idx is None and not scale:
        return index_select(weight, 0, idx)
    return _Embedding.apply(weight, idx, padding_idx, scale)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Looks up the rows of ``weight`` at the indices in ``input``.

    PyTorch's ``torch.nn.functional.embedding``: the result is ``weight[input]``, of shape
    ``input.shape + (embedding_dim,)``, and its gradient adds into the looked-up rows of
    ``weight``. Indices must be in [0, num_embeddings): others raise IndexError (on CUDA at the
    next wait, Note [Negative embedding indices]).

    Args:
        input (Tensor): int64 or int32 indices of any shape.
        weight (Tensor): the (num_embeddings, embedding_dim) table.
        padding_idx (int, optional): a row whose lookups get no gradient (negative counts from
            the end). Default: ``None``.
        max_norm (float, optional): rows looked up whose ``norm_type``-norm exceeds it are
            scaled to norm ``max_norm`` first, in ``weight`` itself (not recorded by autograd).
            Default: ``None``.
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.0.
        scale_grad_by_freq (bool): divide each row's gradient by the number of times its index
            occurs in ``input``. Default: ``False``.
        sparse (bool): sparse gradients, which genesis does not support: ``True`` raises
            RuntimeError. Default: ``False``.

    Returns:
        Tensor: the rows, of shape ``(*input.shape, embedding_dim)``.

    Example::

        >>> import genesis.nn.functional as F
        >>> w = genesis.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> F.embedding(genesis.tensor([[2, 0], [1, 1]]), w)
        tensor([[[3., 4.],
                 [0., 0.]],
        <BLANKLINE>
                [[1., 2.],
                 [1., 2.]]])
        >>> F.embedding(genesis.tensor([2]), w.clone(), max_norm=1.0)
        tensor([[0.6000, 0.8000]])
    """
    _check_indices("embedding", input)
    _check_weight("embedding", weight)
    if sparse:
        raise RuntimeError("[embedding] sparse gradients are not supported")
    n = weight.shape[0]
    padding_idx = _padding_index("embedding", padding_idx, n, AssertionError)
    idx = _in_range("embedding", input.reshape(-1), n)
    if max_norm is not None:
        _renorm_(weight, idx, max_norm, norm_type)
    rows = _lookup(weight, idx, padding_idx, scale_grad_by_freq)
    return rows if input.dim() == 1 else rows.view(*input.shape, weight.shape[1])


def _padding_index(op: str, padding_idx: int | None, n: int, error: type) -> int | None:
    """``padding_idx`` in [0, n), or None; negative values count from the end."""
    if padding_idx is None:
        return None
    if error is AssertionError:  # embedding's (Python) check
        if (padding_idx > 0 and padding_idx >= n) or padding_idx < -n:
            raise AssertionError(f"[{op}] Padding_idx must be within num_embeddings")
    elif padding_idx >= n or padding_idx < -n:
        raise error(
            f"[{op}] padding_idx must be within the number of embeddings, {-n} through {n - 1}, "
            f"but got {padding_idx}"
        )
    return padding_idx + n if padding_idx < 0 else padding_idx


_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Computes sums, means or maxes of bags of rows of ``weight``.

    PyTorch's ``torch.nn.functional.embedding_bag``. A 2-D ``input`` (B, N) is B bags of N
    indices; a 1-D ``input`` is the bags one after the other, bag ``b`` starting at
    ``offsets[b]`` (with ``include_last_offset``, ``offsets`` has B + 1 entries, the last one
    ending the last bag, as in CSR). Empty bags give zeros. Entries equal to ``padding_idx`` are
    left out of their bag (and give no gradient). The rows are looked up with one
    ``index_select`` and reduced with one ``index_add`` (``"sum"``, ``"mean"``) or
    ``index_reduce`` (``"max"``); on CUDA, the float sums may differ in their last bits
    between runs (atomic additions), as PyTorch documents.

    Args:
        input (Tensor): int64 or int32 indices, 1-D (with ``offsets``) or 2-D.
        weight (Tensor): the (num_embeddings, embedding_dim) table.
        offsets (Tensor, optional): for a 1-D ``input``, the 1-D int64 or int32 start of each
            bag (non-decreasing, the first one 0); must be None for a 2-D input.
            Default: ``None``.
        max_norm (float, optional): rows looked up whose ``norm_type``-norm exceeds it are
            scaled to norm ``max_norm`` first, in ``weight`` itself. Default: ``None``.
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): divide each row's gradient by the number of times its index
            occurs in ``input`` (not with ``"max"``). Default: ``False``.
        mode (str): ``"sum"``, ``"mean"`` or ``"max"``, how each bag is reduced.
            Default: ``"mean"``.
        sparse (bool): sparse gradients, which genesis does not support: ``True`` raises
            RuntimeError. Default: ``False``.
        per_sample_weights (Tensor, optional): weights of ``input``'s shape and ``weight``'s
            dtype that scale each row before a ``"sum"``. Default: ``None`` (all ones).
        include_last_offset (bool): ``offsets`` has one more entry, the end of the last bag.
            Default: ``False``.
        padding_idx (int, optional): an index left out of every bag (negative counts from the
            end). Default: ``None``.

    Returns:
        Tensor: the (B, embedding_dim) bag results.

    Example::

        >>> import genesis.nn.functional as F
        >>> w = genesis.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> F.embedding_bag(genesis.tensor([0, 2, 1, 1]), w, genesis.tensor([0, 2]), mode="sum")
        tensor([[6., 8.],
                [6., 8.]])
        >>> F.embedding_bag(genesis.tensor([[0, 2], [1, 0]]), w, mode="max")
        tensor([[5., 6.],
                [3., 4.]])
    """
    if (
        isinstance(weight, Tensor)
        and isinstance(input, Tensor)
        and weight.dtype is int64
        and input.is_floating_point()
    ):
        warnings.warn(
            "[embedding_bag] Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    _check_indices("embedding_bag", input)
    _check_weight("embedding_bag", weight, ValueError)
    if per_sample_weights is not None:
        if not isinstance(per_sample_weights, Tensor):
            raise TypeError(
                "[embedding_bag] per_sample_weights must be a genesis.Tensor, got "
                f"{type(per_sample_weights).__name__}"
            )
        if per_sample_weights.shape != input.shape:
            raise ValueError(
                f"[embedding_bag] If per_sample_weights ({tuple(per_sample_weights.shape)}) is "
                f"not None, then it must have the same shape as the input ({tuple(input.shape)})"
            )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "[embedding_bag] if input is 2D, then offsets has to be None, as input is "
                "treated is a mini-batch of fixed length sequences. However, found offsets of "
                f"type {type(offsets)}"
            )
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("[embedding_bag] offsets has to be a 1D Tensor but got None")
        _check_indices("embedding_bag", offsets, "offsets")
        if offsets.dim() != 1:
            raise ValueError("[embedding_bag] offsets has to be a 1D Tensor")
    else:
        raise ValueError(
            "[embedding_bag] input has to be 1D or 2D Tensor, but got Tensor of dimension "
            f"{input.dim()}"
        )
    if mode not in _MODES:
        raise ValueError("[embedding_bag] mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError(
                "[embedding_bag] max mode does not support scaling the gradient by the frequency"
            )
        if sparse:
            raise ValueError("[embedding_bag] max mode does not support sparse weights")
    if sparse:
        raise RuntimeError("[embedding_bag] sparse gradients are not supported")
    n, d = weight.shape
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                "[embedding_bag] per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}')."
            )
        if per_sample_weights.dtype is not weight.dtype:
            raise RuntimeError(
                f"[embedding_bag] per_sample_weights ({per_sample_weights.dtype}) must have "
                f"weight's dtype ({weight.dtype})"
            )
    padding_idx = _padding_index("embedding_bag", padding_idx, n, RuntimeError)
    # (include_last_offset is False for a 2-D input, and a 1-D input has offsets)
    if include_last_offset and offsets is not None and offsets.numel() < 1:
        raise RuntimeError(
            "[embedding_bag] include_last_offset: number of offset should be at least 1"
        )

    flat = _in_range("embedding_bag", input.reshape(-1), n)
    if max_norm is not None:
        _renorm_(weight, flat, max_norm, norm_type)
    rows = _lookup(weight, flat, None, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)

    if input.dim() == 2 and input.shape[1] > 0 and padding_idx is None:
        # Bags of one length: a reduction over dim 1 (no atomics).
        bags = rows.view(input.shape[0], input.shape[1], d)
        if mode == "sum":
            return bags.sum(1)
        if mode == "mean":
            return bags.mean(1)
        return bags.amax(1)

    # Bag numbers: position i is in the bag b + 1 with offsets[b] <= i < offsets[b + 1], counted
    # by searchsorted (1-based); row 0 of the result takes positions before offsets[0] and the
    # padding entries, row len(offsets) + 1 (include_last_offset) those past the last offset.
    num_pos = flat.shape[0]
    if input.dim() == 2:
        num_bags = input.shape[0]
        # searchsorted of bag starts 0, L, 2L ... is i // L + 1; every position is in a bag.
        length = max(input.shape[1], 1)
        bag = arange(num_pos, device=flat.device) // length + 1
    else:
        assert offsets is not None  # a 1-D input: checked above
        num_bags = offsets.shape[0] - (1 if include_last_offset else 0)
        if offsets.device.type == "cpu" and offsets.numel() > 0:
            _check_offsets(offsets, num_pos, include_last_offset)
        bag = searchsorted(offsets, arange(num_pos, device=flat.device), right=True)
    if padding_idx is not None:
        bag = where(flat == padding_idx, 0, bag)
    spare = 1 if input.dim() == 2 or not include_last_offset else 2
    total = num_bags + spare
    if mode == "max":
        out = zeros((total, d), dtype=weight.dtype, device=weight.device).index_reduce(
            0, bag, rows, "amax", include_self=False
        )
        return out[1 : num_bags + 1]
    out = zeros((total, d), dtype=weight.dtype, device=weight.device).index_add(0, bag, rows)
    out = out[1 : num_bags + 1]
    if mode == "sum":
        return out
    counts = zeros(total, dtype=int64, device=weight.device).index_add(
        0, bag, ones(num_pos, dtype=int64, device=weight.device)
    )
    return out / counts[1 : num_bags + 1].clamp_min(1).unsqueeze(1)


def _check_offsets(offsets: Tensor, num_pos: int, include_last_offset: bool) -> None:
    """PyTorch's checks of CPU offsets: the first is 0, the last no larger than the input."""
    first, last = int(offsets[0]), int(offsets[-1])
    if first != 0:
        raise RuntimeError(
            "[embedding_bag] offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
            f"has to start from position 0. However, got {first}"
        )
    if last > num_pos:
        raise RuntimeError(
            f"[embedding_bag] offsets[-1] can not be greater than input's length {num_pos} but "
            f"got offsets[-1] of {last}"
        )


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Returns int64 one-hot vectors of the class indices in ``tensor``.

    PyTorch's ``torch.nn.functional.one_hot``: the result has shape
    ``(*tensor.shape, num_classes)``, 1 at each class index and 0 elsewhere. With
    ``num_classes=-1`` the count is one more than the largest index (genesis waits for the
    device to learn it). Negative or too large indices raise RuntimeError on the CPU (and on
    CUDA when ``num_classes`` is inferred); on CUDA with a given ``num_classes`` an IndexError
    at the next wait, as PyTorch relies on a device assert there.

    Args:
        tensor (Tensor): int64 class indices of any shape.
        num_classes (int): the number of classes, or -1 to infer it. Default: -1.

    Returns:
        Tensor: the int64 one-hot tensor, with one more dim than ``tensor``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.one_hot(genesis.tensor([0, 2, 1]))
        tensor([[1, 0, 0],
                [0, 0, 1],
                [0, 1, 0]])
        >>> F.one_hot(genesis.tensor([1]), num_classes=4)
        tensor([[0, 1, 0, 0]])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"[one_hot] tensor must be a genesis.Tensor, got {type(tensor).__name__}")
    if tensor.dtype is not int64:
        raise RuntimeError(
            "[one_hot] one_hot is only applicable to index tensor of type LongTensor (int64), "
            f"got {tensor.dtype}"
        )
    shape = tuple(tensor.shape)
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("[one_hot] Can not infer total number of classes from empty tensor.")
        return zeros(shape + (num_classes,), dtype=int64, device=tensor.device)
    idx = tensor
    if tensor.device.type == "cpu" or num_classes == -1:
        t_lo, t_hi = tensor.aminmax()
        lo, hi = int(t_lo), int(t_hi)
        if lo < 0:
            raise RuntimeError("[one_hot] Class values must be non-negative.")
        if num_classes == -1:
            num_classes = hi + 1
        elif num_classes <= hi:
            raise RuntimeError("[one_hot] Class values must be smaller than num_classes.")
    else:
        if num_classes < 1:
            raise RuntimeError("[one_hot] num_classes should be positive")
        idx = where(tensor < 0, tensor - num_classes, tensor)  # negative: out of range
    out = zeros(shape + (num_classes,), dtype=int64, device=tensor.device)
    return out.scatter_(-1, idx.unsqueeze(-1), 1)
