"""PowerSGD gradient compression for DistributedDataParallel (Vogels et al., 2019), as
torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook.

Note [PowerSGD]: each gradient matrix M (a parameter's gradient viewed as rows x the rest) is
sent as two thin factors instead of itself: P = M Q is all-reduced and orthonormalized, then
Q = M^T P is all-reduced, and every rank takes P Q^T / world size as the averaged gradient:
(rows + columns) * rank numbers cross the wire instead of rows * columns. Q starts from a
seeded random matrix (the same on every rank: each draws its seed from the state's own
generator, which every rank advances alike) and, with ``warm_start``, is kept for the next step,
so the power iteration continues. With ``use_error_feedback`` each rank keeps what compression
lost (its gradient less the decompressed one) and adds it to the next step's gradient.
Vectors (biases) and matrices that would not shrink by ``min_compression_rate`` are all-reduced
as they are, in one flat tensor. The first ``start_powerSGD_iter`` steps all-reduce everything.

genesis batches the matrices of one shape into one stacked product (torch does so only with
``batch_tensors_with_same_shape=True``; the values are the same either way), so a bucket of a
transformer's blocks costs a few products rather than one per parameter. Orthonormalization is
Gram-Schmidt over the rank's columns (torch uses a QR for ranks above 2: the factors can differ
in sign, their product does not).

Example::

    >>> from genesis.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
    >>> state = powerSGD.PowerSGDState(None, matrix_approximation_rank=2)
    >>> state.matrix_approximation_rank
    2
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

import genesis
import genesis.distributed as dist

from . import default_hooks

__all__ = ["PowerSGDState", "batched_powerSGD_hook", "powerSGD_hook"]


def _orthonormalize(matrices, epsilon=0.0):
    """Gram-Schmidt in place over the columns of each matrix of a [batch, rows, rank] stack."""
    rank = matrices.shape[-1]
    for i in range(rank):
        col = matrices[..., i : i + 1]
        norm = genesis.linalg.vector_norm(col, dim=-2, keepdim=True)
        col.div_(norm + epsilon if epsilon else norm)
        if i + 1 < rank:
            rest = matrices[..., i + 1 :]
            rest.sub_((col * rest).sum(-2, keepdim=True) * col)


def _should_compress(rows, cols, rank, min_compression_rate):
    """(whether the factors are min_compression_rate times smaller, numbers before, after)."""
    before, after = rows * cols, (rows + cols) * rank
    return after * min_compression_rate < before, before, after


def _allreduce(tensor, group):
    """A future of ``tensor`` summed over the ranks (in place)."""
    return dist.all_reduce(tensor, group=group, async_op=True).get_future()


def _random_into(out, state):
    """Fills ``out`` with standard normals seeded by the state's generator (the same numbers on
    every rank), drawn on the CPU so that no device's generator moves."""
    gen = genesis.Generator().manual_seed(int(state.rng.randint(1_000_000_000)))
    with genesis.no_grad():
        out.copy_(genesis.randn(tuple(out.shape), generator=gen, dtype=out.dtype))


class PowerSGDState:
    """The hyperparameters and the per-bucket memory of PowerSGD (Note [PowerSGD]), as
    torch's ``PowerSGDState``; one state serves every bucket of a DDP model.

    Args:
        process_group (ProcessGroup): the ranks (None: the default group).
        matrix_approximation_rank (int): the factors' rank; lower compresses more. Default: 1.
        start_powerSGD_iter (int): plain all-reduce until this step. Default: 1000.
        min_compression_rate (float): compress a matrix only if the factors are this many times
            smaller. Default: 2.
        use_error_feedback (bool): add what compression lost to the next step's gradient.
            Default: True.
        warm_start (bool): keep Q for the next step instead of drawing it again. Default: True.
        orthogonalization_epsilon (float): added to each column's norm (0: none). Default: 0.
        random_seed (int): seeds the draws of Q. Default: 0.
        compression_stats_logging_frequency (int): accepted for torch's signature (genesis
            logs nothing; ``compression_stats()`` has the numbers). Default: 10000.
        batch_tensors_with_same_shape (bool): accepted for torch's signature; genesis always
            batches same-shaped matrices. Default: False.

    Example::

        >>> state = PowerSGDState(None, start_powerSGD_iter=10)
        >>> state.iter
        0
    """

    __slots__ = [
        "process_group",
        "matrix_approximation_rank",
        "start_powerSGD_iter",
        "min_compression_rate",
        "use_error_feedback",
        "warm_start",
        "orthogonalization_epsilon",
        "rng",
        "error_dict",
        "p_memory_dict",
        "q_memory_dict",
        "iter",
        "total_numel_before_compression",
        "total_numel_after_compression",
        "compression_stats_logging_frequency",
        "next_stats_report",
        "batch_tensors_with_same_shape",
    ]

    def __init__(
        self,
        process_group,
        matrix_approximation_rank=1,
        start_powerSGD_iter=1_000,
        min_compression_rate=2,
        use_error_feedback=True,
        warm_start=True,
        orthogonalization_epsilon=0,
        random_seed=0,
        compression_stats_logging_frequency=10_000,
        batch_tensors_with_same_shape=False,
    ):
        if matrix_approximation_rank < 1:
            raise ValueError(
                "PowerSGDState: matrix_approximation_rank must be at least 1, got "
                f"{matrix_approximation_rank}"
            )
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError(
                "PowerSGDState: expect start_powerSGD_iter > 1 if use_error_feedback or "
                "warm_start is enabled, because PowerSGD can only be applied after the first two "
                "iterations in DDP"
            )
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.rng = np.random.RandomState(random_seed)
        self.error_dict = {}  # bucket index -> what compression lost
        self.p_memory_dict = {}  # bucket index -> the flat Ps, and the Qs:
        self.q_memory_dict = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape

    def __getstate__(self):
        """The state without its process group (which cannot be pickled), as torch's."""
        return {k: getattr(self, k) for k in self.__slots__ if k != "process_group"}

    def __setstate__(self, state):
        self.process_group = None  # the default group
        for k, v in state.items():
            setattr(self, k, v)

    def maybe_increase_iter(self, bucket):
        """Counts a step when the iteration's last bucket is reduced.

        Args:
            bucket (GradBucket): the bucket just reduced.

        Returns:
            None

        Example::

            >>> state.maybe_increase_iter(bucket)  # doctest: +SKIP
        """
        if bucket.is_last():
            self.iter += 1

    def compression_stats(self):
        """(compression rate, numbers before compression, numbers after) over the steps
        compressed so far; the rate is 0 before any.

        Returns:
            tuple: ``(float, int, int)``.

        Example::

            >>> PowerSGDState(None).compression_stats()
            (0, 0, 0)
        """
        before, after = self.total_numel_before_compression, self.total_numel_after_compression
        return (before / after if after > 0 else 0, before, after)


def _plain_allreduce(state, bucket):
    state.maybe_increase_iter(bucket)
    return default_hooks.allreduce_hook(state.process_group, bucket)


def powerSGD_hook(state, bucket):  # noqa: N802 - torch's name
    """Averages a bucket of gradients over the ranks through low-rank factors of each matrix
    (Note [PowerSGD]): plain all-reduce for the first ``state.start_powerSGD_iter`` steps.

    Args:
        state (PowerSGDState): the hyperparameters and memory.
        bucket (GradBucket): the bucket.

    Returns:
        genesis.futures.Future: of the bucket's flat tensor, averaged.

    Example::

        >>> state = PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=10)
        >>> ddp.register_comm_hook(state, powerSGD_hook)  # doctest: +SKIP
    """
    if state.iter < state.start_powerSGD_iter:
        return _plain_allreduce(state, bucket)
    group = state.process_group
    world = dist.get_world_size(group)
    buffer = bucket.buffer()
    index = bucket.index()
    original = _with_error_feedback(state, index, buffer)

    # Which gradients shrink enough as factors, grouped by (rows, columns, rank).
    shapes = OrderedDict()  # (rows, columns, rank) -> the gradients
    plain = []
    for grad in bucket.gradients():
        rows = grad.shape[0] if grad.dim() > 0 else 1
        cols = grad.numel() // rows if rows else 0
        rank = min(rows, cols, state.matrix_approximation_rank)
        compress, before, after = _should_compress(rows, cols, rank, state.min_compression_rate)
        state.total_numel_before_compression += before
        if compress and grad.dim() > 1:
            state.total_numel_after_compression += after
            shapes.setdefault((rows, cols, rank), []).append(grad)
        else:
            state.total_numel_after_compression += before
            plain.append(grad)

    # Memory for the factors: P and Q of every matrix, flat, one all-reduce each.
    p_size = sum(len(g) * r * c for (r, _, c), g in shapes.items())
    q_size = sum(len(g) * m * c for (_, m, c), g in shapes.items())
    fresh = not state.warm_start or index not in state.p_memory_dict
    if fresh:
        state.p_memory_dict[index] = genesis.empty(p_size, dtype=buffer.dtype, device=buffer.device)
        state.q_memory_dict[index] = genesis.empty(q_size, dtype=buffer.dtype, device=buffer.device)
    p_memory, q_memory = state.p_memory_dict[index], state.q_memory_dict[index]
    batches, p_at, q_at = [], 0, 0
    with genesis.no_grad():
        for (rows, cols, rank), grads in shapes.items():
            k = len(grads)
            p = p_memory[p_at : p_at + k * rows * rank].view(k, rows, rank)
            q = q_memory[q_at : q_at + k * cols * rank].view(k, cols, rank)
            p_at, q_at = p_at + p.numel(), q_at + q.numel()
            if fresh:
                _random_into(q, state)
            _orthonormalize(q, state.orthogonalization_epsilon)
            m = genesis.stack([g.reshape(rows, cols) for g in grads])
            genesis.bmm(m, q, out=p)
            batches.append((grads, m, p, q))
        flat_plain = (
            genesis.cat([g.reshape(-1) for g in plain])
            if plain
            else genesis.empty(0, dtype=buffer.dtype, device=buffer.device)
        )

    def after_plain(fut):
        with genesis.no_grad():
            averaged = fut.value()[0].div_(world)
            at = 0
            for g in plain:
                g.copy_(averaged[at : at + g.numel()].view_as(g))
                at += g.numel()
        return _allreduce(p_memory, group).wait()

    def after_p(fut):
        with genesis.no_grad():
            for _, m, p, q in batches:
                _orthonormalize(p, state.orthogonalization_epsilon)
                genesis.bmm(m.transpose(1, 2), p, out=q)
        return _allreduce(q_memory, group).wait()

    def after_q(fut):
        with genesis.no_grad():
            q_memory.div_(world)
            for grads, m, p, q in batches:
                genesis.bmm(p, q.transpose(1, 2), out=m)
                for i, g in enumerate(grads):
                    g.copy_(m[i].view_as(g))
            if original is not None:
                state.error_dict[index] = original - buffer
        if not state.warm_start:
            state.p_memory_dict.clear()
            state.q_memory_dict.clear()
        state.maybe_increase_iter(bucket)
        return buffer

    return _allreduce(flat_plain, group).then(after_plain).then(after_p).then(after_q)


def _with_error_feedback(state, index, buffer):
    """Adds the error kept for this bucket to its gradients; returns a copy of the result (None
    without error feedback)."""
    if not state.use_error_feedback:
        return None
    with genesis.no_grad():
        if index in state.error_dict:
            buffer.add_(state.error_dict[index])
        else:
            state.error_dict[index] = genesis.zeros_like(buffer)
        return buffer.clone()


def batched_powerSGD_hook(state, bucket):  # noqa: N802 - torch's name
    """PowerSGD of the whole bucket as one square matrix (its flat tensor padded with zeros),
    as torch's ``batched_powerSGD_hook``: faster than ``powerSGD_hook`` but usually less
    accurate above rank 1, since the square mixes parameters' rows.

    Args:
        state (PowerSGDState): the hyperparameters and memory.
        bucket (GradBucket): the bucket.

    Returns:
        genesis.futures.Future: of the bucket's flat tensor, averaged.

    Example::

        >>> state = PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=10)
        >>> ddp.register_comm_hook(state, batched_powerSGD_hook)  # doctest: +SKIP
    """
    if state.iter < state.start_powerSGD_iter:
        return _plain_allreduce(state, bucket)
    group = state.process_group
    world = dist.get_world_size(group)
    buffer = bucket.buffer()
    index = bucket.index()
    length = buffer.numel()
    side = math.ceil(math.sqrt(length))
    rank = min(side, state.matrix_approximation_rank)
    state.total_numel_before_compression += length
    state.total_numel_after_compression += 2 * side * rank
    with genesis.no_grad():
        square = genesis.zeros(side * side, dtype=buffer.dtype, device=buffer.device)
        square[:length].copy_(buffer)
    original = _with_error_feedback(state, index, square)
    matrix = square.view(1, side, side)
    if not state.warm_start or index not in state.p_memory_dict:
        state.p_memory_dict[index] = genesis.empty(
            1, side, rank, dtype=buffer.dtype, device=buffer.device
        )
        q = genesis.empty(1, side, rank, dtype=buffer.dtype, device=buffer.device)
        _random_into(q, state)
        state.q_memory_dict[index] = q
    p, q = state.p_memory_dict[index], state.q_memory_dict[index]
    with genesis.no_grad():
        _orthonormalize(q, state.orthogonalization_epsilon)
        genesis.bmm(matrix, q, out=p)

    def after_p(fut):
        with genesis.no_grad():
            _orthonormalize(p, state.orthogonalization_epsilon)
            genesis.bmm(matrix.transpose(1, 2), p, out=q)
        return _allreduce(q, group).wait()

    def after_q(fut):
        with genesis.no_grad():
            q.div_(world)
            genesis.bmm(p, q.transpose(1, 2), out=matrix)
            if original is not None:
                state.error_dict[index] = original - square
            buffer.copy_(square[:length])
        if not state.warm_start:
            state.p_memory_dict.clear()
            state.q_memory_dict.clear()
        state.maybe_increase_iter(bucket)
        return buffer

    return _allreduce(p, group).then(after_p).then(after_q)
