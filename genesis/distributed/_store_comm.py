"""The "gloo" backend: collectives of CPU tensors through the group's store.

Note [Collectives through the store]
torch.distributed runs CPU tensors through gloo, which the PyTorch user's CPU tests, debugging
runs and CI machines without a GPU rely on. genesis's CPU backend keeps that role with what every
group already has, its store (rank 0's TCP server, a file, a HashStore): each collective is an
exchange in which every rank publishes its bytes under the collective's sequence number and
reads the others' (the last reader deletes the keys, so the store does not grow), and the
reduction is done on every rank in rank order by genesis ops, so every rank gets the same bits.
Point-to-point sends put their bytes under a key of the (sender, receiver) pair and its own
sequence number. It is correct and simple, not fast: every byte passes through the store's
server, so it suits tests, world-size-1 runs and small models; NCCL is the backend for speed.
The calls finish before they return (a Work of an async_op is complete already), and CUDA
tensors go through host copies (as gloo's CUDA support does).
"""

import genesis

from .. import _C
from ._store import PrefixStore


def _to_bytes(t):
    """The bytes of a tensor's items in row-major order, on the host."""
    if t.numel() == 0:
        return b""
    return t.detach().to("cpu").clone().untyped_storage()._to_bytes()


def _from_bytes(data, shape, dtype):
    """A CPU tensor of `shape` and `dtype` over a copy of `data` (row-major items)."""
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return genesis.empty(shape, dtype=dtype)
    flat = _C._tensor_on_storage(_C._storage_from_bytes(data, "cpu"), 0, [n], [1], dtype)
    return flat.reshape(shape)


def _reduce(parts, op):
    """The reduction of same-shaped CPU tensors, in rank order (every rank gets these bits)."""
    acc = parts[0].clone()
    boolean = acc.dtype == genesis.bool
    for p in parts[1:]:
        if op in ("sum", "avg"):
            acc = acc.logical_or(p) if boolean else acc.add_(p)
        elif op == "product":
            acc = acc.logical_and(p) if boolean else acc.mul_(p)
        elif op == "min":
            acc = genesis.minimum(acc, p)
        else:
            acc = genesis.maximum(acc, p)
    if op == "avg":
        acc = acc.div_(len(parts))
    return acc


def _write(out, value):
    """Copies a host value into `out` (on any device), leaving its other contents be."""
    with genesis.no_grad():
        out.copy_(value.reshape(out.shape) if value.numel() == out.numel() else value)


class StoreCommunicator:
    """One group's collectives over its store (Note [Collectives through the store]).

    The methods have the signatures of the NCCL communicator's, so the collectives call either;
    each returns None, the handle of finished work.

    Args:
        store (Store): the group's store.
        size (int): the number of ranks.
        rank (int): this process's rank in the group.
    """

    def __init__(self, store, size, rank):
        self._store = PrefixStore("cpu", store)
        self._size = size
        self._rank = rank
        self._sequence = 0
        self._sent = {}  # (src, dst) -> how many point-to-point messages so far
        self.device = -1

    def _exchange(self, payload, wanted=None):
        """Every rank's payload in rank order (None for ranks not in `wanted`): each rank
        publishes its own and reads those it needs; the last reader deletes them."""
        self._sequence += 1
        key = f"{self._sequence}/"
        self._store.set(key + str(self._rank), payload)
        ranks = range(self._size) if wanted is None else wanted
        parts = [None] * self._size
        for r in ranks:
            parts[r] = payload if r == self._rank else self._store.get(key + str(r))
        if self._store.add(key + "read", 1) == self._size:
            for r in range(self._size):
                self._store.delete_key(key + str(r))
            self._store.delete_key(key + "read")
        return parts

    def _tensors(self, payloads, like):
        return [_from_bytes(p, like.shape, like.dtype) for p in payloads]

    def all_reduce(self, tensor, output, op):
        parts = self._tensors(self._exchange(_to_bytes(tensor)), tensor)
        _write(output, _reduce(parts, op))

    def broadcast(self, tensor, output, root):
        parts = self._exchange(_to_bytes(tensor) if self._rank == root else b"", [root])
        if self._rank != root:
            _write(output, _from_bytes(parts[root], output.shape, output.dtype))

    def reduce(self, tensor, output, op, root):
        wanted = range(self._size) if self._rank == root else []
        parts = self._exchange(_to_bytes(tensor), wanted)
        if self._rank == root:
            _write(output, _reduce(self._tensors(parts, tensor), op))

    def all_gather(self, tensor, output):
        parts = self._tensors(self._exchange(_to_bytes(tensor)), tensor)
        _write(output, genesis.stack(parts).reshape(output.shape))

    def reduce_scatter(self, tensor, output, op):
        whole = _reduce(self._tensors(self._exchange(_to_bytes(tensor)), tensor), op)
        block = whole.reshape(-1)[self._rank * output.numel() : (self._rank + 1) * output.numel()]
        _write(output, block.reshape(output.shape))

    def all_to_all(self, tensor, output, send, recv):
        flat = tensor.reshape(-1)
        starts = [sum(send[:r]) for r in range(self._size)]
        blocks = [_to_bytes(flat[s : s + n]) for s, n in zip(starts, send)]
        # one exchange carries every block: rank r reads its own block from each payload
        sizes = [len(b) for b in blocks]
        header = ",".join(str(s) for s in sizes).encode() + b"|"
        parts = self._exchange(header + b"".join(blocks))
        received = []
        for src, payload in enumerate(parts):
            head, _, body = payload.partition(b"|")
            lengths = [int(x) for x in head.decode().split(",")]
            begin = sum(lengths[: self._rank])
            piece = body[begin : begin + lengths[self._rank]]
            received.append(_from_bytes(piece, [recv[src]], tensor.dtype))
        _write(output, genesis.cat(received) if received else output)

    def send(self, tensor, peer):
        pair = (self._rank, peer)
        self._sent[pair] = self._sent.get(pair, 0) + 1
        self._store.set(f"p2p/{self._rank}/{peer}/{self._sent[pair]}", _to_bytes(tensor))

    def recv(self, tensor, peer):
        pair = (peer, self._rank)
        self._sent[pair] = self._sent.get(pair, 0) + 1
        key = f"p2p/{peer}/{self._rank}/{self._sent[pair]}"
        data = self._store.get(key)
        self._store.delete_key(key)
        _write(tensor, _from_bytes(data, tensor.shape, tensor.dtype))

    def destroy(self):
        pass

    def abort(self):
        pass

    def async_error(self):
        return ""
