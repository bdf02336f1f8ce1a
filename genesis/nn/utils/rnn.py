"""``nn.utils.rnn``: PackedSequence and the functions that pack, pad and unpad sequences.

Note [Packing by mask]: a batch of sequences sorted by length, laid out time-major as (T, B),
packs into the rows whose position ``t`` is below the sequence's length, taken in row-major
order (time step by time step, the active sequences of each step in order): that is PyTorch's
packed layout, so packing is one ``index_select`` of the flattened (T * B) rows with the flat
positions of that mask, and unpacking is one ``index_copy`` into a (T * B) tensor of the padding
value. The index vectors have one entry per packed row; the data moves through compiled ops
with gradients.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from ..._C import Tensor, arange, cat, full, int64, tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence(
    namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
):
    """A batch of variable-length sequences packed time step by time step (the input and
    output of the recurrent layers): ``data`` holds the packed rows, ``batch_sizes`` (int64, on
    the CPU) how many sequences are active at each step, ``sorted_indices`` and
    ``unsorted_indices`` the permutation to and from length order.

    Example::

        >>> from genesis.nn.utils.rnn import pack_sequence
        >>> packed = pack_sequence([genesis.tensor([1.0, 2.0, 3.0]), genesis.tensor([4.0])])
        >>> packed.data, packed.batch_sizes
        (tensor([1., 4., 2., 3.]), tensor([2, 1, 1]))
    """

    def __new__(
        cls,
        data: Tensor,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequence with ``data`` (and the index tensors' device) moved or cast."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        sorted_i = None if self.sorted_indices is None else self.sorted_indices.to(device)
        unsorted_i = None if self.unsorted_indices is None else self.unsorted_indices.to(device)
        return type(self)(data, self.batch_sizes, sorted_i, unsorted_i)

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to("cuda")

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation vector (None stays None).

    Example::

        >>> genesis.nn.utils.rnn.invert_permutation(genesis.tensor([2, 0, 1]))
        tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    inverse = permutation.new_empty(permutation.shape)
    return inverse.scatter_(0, permutation, arange(permutation.numel(), device=permutation.device))


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise ValueError("[pack_padded_sequence] lengths must be a 1-D tensor")
        return [int(v) for v in lengths.cpu().tolist()]
    return [int(v) for v in lengths]


def _active_rows(lengths: list[int], steps: int, device: Any) -> tuple[Tensor, Tensor]:
    """(flat positions t * B + b of the active (t, b) in row-major order, batch_sizes)."""
    lens = tensor(lengths, dtype=int64, device=device)
    mask = arange(steps, device=device).view(-1, 1) < lens.view(1, -1)  # (T, B)
    flat = mask.reshape(-1).nonzero().reshape(-1)
    return flat, mask.sum(1).cpu()


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Packs a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences of the
    given lengths (Note [Packing by mask]).

    Example::

        >>> from genesis.nn.utils.rnn import pack_padded_sequence
        >>> padded = genesis.tensor([[1.0, 4.0], [2.0, 0.0], [3.0, 0.0]])
        >>> pack_padded_sequence(padded, [3, 1]).data
        tensor([1., 4., 2., 3.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"[pack_padded_sequence] input must be a genesis.Tensor, got {type(input).__name__}"
        )
    lens = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if input.dim() < 2 or len(lens) != input.shape[batch_dim]:
        raise RuntimeError(
            f"[pack_padded_sequence] Expected `len(lengths)` to be equal to batch_size, but got "
            f"{len(lens)} (batch_size={input.shape[batch_dim] if input.dim() >= 2 else None})"
        )
    if any(n <= 0 for n in lens):
        raise RuntimeError(
            "[pack_padded_sequence] Length of all samples has to be greater than 0, but found an "
            "element in 'lengths' that is <= 0"
        )
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError(
                "[pack_padded_sequence] `lengths` array must be sorted in decreasing order when "
                "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                "pack_padded_sequence and/or pack_sequence to sidestep this requirement if you "
                "do not need ONNX exportability."
            )
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        sorted_indices = tensor(order, dtype=int64, device=input.device)
        input = input.index_select(batch_dim, sorted_indices)
        lens = [lens[i] for i in order]
    if batch_first:
        input = input.transpose(0, 1)
    steps = input.shape[0]
    if lens[0] > steps:
        raise RuntimeError(
            f"[pack_padded_sequence] a length ({lens[0]}) exceeds the padded length ({steps})"
        )
    flat, batch_sizes = _active_rows(lens, steps, input.device)
    rows = input.reshape(steps * input.shape[1], *input.shape[2:])
    return PackedSequence(rows.index_select(0, flat), batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Unpacks a PackedSequence into a padded (T, B, *) batch (or (B, T, *)) and the lengths
    (int64, CPU), in the original batch order.

    Example::

        >>> from genesis.nn.utils.rnn import pack_sequence, pad_packed_sequence
        >>> packed = pack_sequence([genesis.tensor([1.0, 2.0]), genesis.tensor([3.0])])
        >>> pad_packed_sequence(packed, batch_first=True)
        (tensor([[1., 2.],
                [3., 0.]]), tensor([2, 1]))
    """
    data, batch_sizes = sequence.data, sequence.batch_sizes
    sizes = [int(v) for v in batch_sizes.tolist()]
    steps, batch = len(sizes), sizes[0]
    lens = [sum(1 for s in sizes if s > b) for b in range(batch)]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "[pad_packed_sequence] Expected total_length to be at least the length of the "
                f"longest sequence in input, but got total_length={total_length} and max "
                f"sequence length being {steps}"
            )
    out_steps = steps if total_length is None else total_length
    flat, _ = _active_rows(lens, steps, data.device)
    padded = full(
        (out_steps * batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device
    )
    padded = padded.index_copy(0, flat, data).view(out_steps, batch, *data.shape[1:])
    lengths = tensor(lens, dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(
    sequences: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stacks sequences of shapes (L_i, *) into one padded (L_max, B, *) tensor (or
    (B, L_max, *)), padding at the end (``padding_side="left"``: at the start).

    Example::

        >>> from genesis.nn.utils.rnn import pad_sequence
        >>> pad_sequence([genesis.tensor([1.0, 2.0]), genesis.tensor([3.0])], batch_first=True)
        tensor([[1., 2.],
                [3., 0.]])
    """
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("[pad_sequence] received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"[pad_sequence] Expected padding_side to be one of left or right, but got "
            f"{padding_side}."
        )
    lens = [s.shape[0] for s in sequences]
    batch, longest = len(sequences), max(lens)
    first = sequences[0]
    device = first.device
    data = cat(sequences, 0)
    # Row of each element in the (T, B) layout: t * B + b, t shifted for left padding.
    seq_of_row = arange(batch, device=device).repeat_interleave(
        tensor(lens, dtype=int64, device=device)
    )
    starts = tensor([sum(lens[:b]) for b in range(batch)], dtype=int64, device=device)
    t = arange(data.shape[0], device=device) - starts.index_select(0, seq_of_row)
    if padding_side == "left":
        shift = tensor([longest - n for n in lens], dtype=int64, device=device)
        t = t + shift.index_select(0, seq_of_row)
    rows = t * batch + seq_of_row
    padded = full(
        (longest * batch, *first.shape[1:]), padding_value, dtype=first.dtype, device=device
    )
    padded = padded.index_copy(0, rows, data).view(longest, batch, *first.shape[1:])
    return padded.transpose(0, 1) if batch_first else padded


def unpad_sequence(
    padded_sequences: Tensor, lengths: Any, batch_first: bool = False
) -> list[Tensor]:
    """Splits a padded batch back into the list of its sequences (the inverse of pad_sequence).

    Example::

        >>> from genesis.nn.utils.rnn import unpad_sequence
        >>> unpad_sequence(genesis.tensor([[1.0, 2.0], [3.0, 0.0]]), [2, 1], batch_first=True)
        [tensor([1., 2.]), tensor([3.])]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lens = _lengths_list(lengths)
    return [padded_sequences[b, :n] for b, n in enumerate(lens)]


def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of sequences of shapes (L_i, *) (pad_sequence, then pack_padded_sequence).

    Example::

        >>> from genesis.nn.utils.rnn import pack_sequence
        >>> pack_sequence([genesis.tensor([1.0]), genesis.tensor([2.0, 3.0])],
        ...               enforce_sorted=False).data
        tensor([2., 1., 3.])
    """
    sequences = list(sequences)
    lens = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lens, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in the original order.

    Example::

        >>> from genesis.nn.utils.rnn import pack_sequence, unpack_sequence
        >>> unpack_sequence(pack_sequence([genesis.tensor([1.0, 2.0]), genesis.tensor([3.0])]))
        [tensor([1., 2.]), tensor([3.])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
