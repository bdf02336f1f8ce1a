"""One rank of the multi-process tests of tests/distributed/test_distributed.py.

Started by ``python -m genesis.distributed.run --nproc-per-node N distributed_worker.py
SCENARIO [ARG]``; each scenario checks its results itself against values computed on the host
(every rank can compute every rank's data: it is seeded by the rank) and exits non-zero on the
first difference, which the launcher reports.
"""

import datetime
import os
import sys

import numpy as np

import genesis
import genesis.distributed as dist

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
LOCAL_RANK = int(os.environ["LOCAL_RANK"])
TIMEOUT = datetime.timedelta(seconds=60)

NP = {
    genesis.float32: np.float32,
    genesis.float64: np.float64,
    genesis.float16: np.float16,
    genesis.bfloat16: np.float32,
    genesis.int32: np.int32,
    genesis.int64: np.int64,
    genesis.uint8: np.uint8,
    genesis.int8: np.int8,
    genesis.int16: np.int16,
    genesis.bool: np.bool_,
}


BACKEND = os.environ.get("WORKER_BACKEND", "nccl")  # "gloo": CPU tensors through the store


def device():
    if BACKEND == "gloo":
        return "cpu"
    return f"cuda:{LOCAL_RANK % genesis.cuda.device_count()}"


def data(rank, shape, dtype):
    """Rank `rank`'s values: small integers, so every reduction is exact in every dtype."""
    rng = np.random.default_rng(1000 + rank)
    if dtype == genesis.bool:
        return rng.random(shape) < 0.5
    low = 0 if dtype == genesis.uint8 else -3
    return rng.integers(low, 4, size=shape).astype(NP[dtype])


def tensor(values, dtype):
    t = genesis.tensor(values.astype(np.float32) if dtype == genesis.bfloat16 else values)
    return t.to(dtype).to(device())


def host(t):
    t = t.cpu()
    if t.dtype == genesis.bfloat16:
        t = t.float()
    return t.numpy()


def expect(name, got, want):
    got = host(got) if isinstance(got, genesis.Tensor) else np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or not np.array_equal(
        got.astype(np.float64), want.astype(np.float64)
    ):
        sys.exit(f"rank {RANK}: {name}: got {got.tolist()} want {want.tolist()}")


def reduce_host(values, op, dtype):
    stack = np.stack(values).astype(np.float64)
    if dtype == genesis.bool:
        return {"sum": stack.max(0), "product": stack.min(0), "max": stack.max(0),
                "min": stack.min(0)}[op]  # fmt: skip
    out = {"sum": stack.sum(0), "product": stack.prod(0), "max": stack.max(0),
           "min": stack.min(0), "avg": stack.mean(0)}[op]  # fmt: skip
    if dtype == genesis.bfloat16:  # rounded as a bfloat16 result is (an avg of 3 is inexact)
        return host(genesis.tensor(out.astype(np.float32)).bfloat16())
    return out.astype(NP[dtype])


REDUCE_DTYPES = [genesis.float32, genesis.float64, genesis.float16, genesis.bfloat16,
                 genesis.int32, genesis.int64, genesis.uint8, genesis.int8,
                 genesis.bool]  # fmt: skip


def trace(text):
    if os.environ.get("WORKER_TRACE"):
        print(f"rank {RANK}: {text}", file=sys.stderr, flush=True)


def collectives():
    trace("init")
    dist.init_process_group(BACKEND, timeout=TIMEOUT)
    trace("joined")
    assert dist.get_rank() == RANK and dist.get_world_size() == WORLD
    shape = (3, 5)
    everyone = lambda dtype: [data(r, shape, dtype) for r in range(WORLD)]  # noqa: E731
    for dtype in REDUCE_DTYPES:
        ops = ["sum", "max", "min", "product"] + (["avg"] if dtype.is_floating_point else [])
        for op in ops:
            if op == "product" and dtype in (genesis.uint8, genesis.int8):
                continue  # products overflow 8 bits differently on the host
            x = tensor(data(RANK, shape, dtype), dtype)
            trace(f"all_reduce {op} {dtype}")
            dist.all_reduce(x, op=op)
            expect(f"all_reduce {op} {dtype}", x, reduce_host(everyone(dtype), op, dtype))
        for root in range(WORLD):
            x = tensor(data(RANK, shape, dtype), dtype)
            trace(f"broadcast {root} {dtype}")
            dist.broadcast(x, src=root)
            expect(f"broadcast {root} {dtype}", x, data(root, shape, dtype))
            x = tensor(data(RANK, shape, dtype), dtype)
            dist.reduce(x, dst=root, op="max")
            want = (
                reduce_host(everyone(dtype), "max", dtype)
                if RANK == root
                else data(RANK, shape, dtype)
            )
            expect(f"reduce {root} {dtype}", x, want)
        x = tensor(data(RANK, shape, dtype), dtype)
        trace(f"all_gather {dtype}")
        out = [genesis.zeros(shape, dtype=dtype, device=device()) for _ in range(WORLD)]
        dist.all_gather(out, x)
        for r in range(WORLD):
            expect(f"all_gather {dtype} [{r}]", out[r], data(r, shape, dtype))
        flat = genesis.zeros((WORLD * 3, 5), dtype=dtype, device=device())
        dist.all_gather_into_tensor(flat, x)
        expect(f"all_gather_into_tensor {dtype}", flat, np.concatenate(everyone(dtype)))
        if dtype != genesis.bool:
            full = [data(r, (WORLD * 2, 5), dtype) for r in range(WORLD)]
            mine = genesis.zeros((2, 5), dtype=dtype, device=device())
            dist.reduce_scatter_tensor(mine, tensor(full[RANK], dtype), op="sum")
            total = reduce_host(full, "sum", dtype)
            expect(f"reduce_scatter_tensor {dtype}", mine, total[RANK * 2 : RANK * 2 + 2])

    trace("# int16 moves as bytes")
    # int16 moves as bytes and cannot be reduced.
    x = tensor(data(RANK, shape, genesis.int16), genesis.int16)
    dist.broadcast(x, src=WORLD - 1)
    expect("broadcast int16", x, data(WORLD - 1, shape, genesis.int16))
    if BACKEND == "gloo":  # the store's reductions are genesis ops, which take int16
        dist.all_reduce(x)
        expect("all_reduce int16", x, data(WORLD - 1, shape, genesis.int16) * WORLD)
    else:
        try:
            dist.all_reduce(x)
            sys.exit("all_reduce of int16 did not raise")
        except TypeError as e:
            assert "int16" in str(e), e

    trace("# all_to_all_single: equal blo")
    # all_to_all_single: equal blocks, then rank r sends r + 1 rows to every rank.
    rows = np.arange(WORLD * 2 * 3).reshape(WORLD * 2, 3) + 100 * RANK
    out = genesis.zeros((WORLD * 2, 3), dtype=genesis.int64, device=device())
    dist.all_to_all_single(out, tensor(rows, genesis.int64))
    want = np.concatenate(
        [
            (np.arange(WORLD * 2 * 3).reshape(WORLD * 2, 3) + 100 * r)[RANK * 2 : RANK * 2 + 2]
            for r in range(WORLD)
        ]  # fmt: skip
    )
    expect("all_to_all_single", out, want)
    trace("send = [RANK + 1] * WORLD")
    send = [RANK + 1] * WORLD
    recv = [r + 1 for r in range(WORLD)]
    rows = np.full((sum(send), 2), RANK, dtype=np.float32)
    out = genesis.zeros((sum(recv), 2), device=device())
    dist.all_to_all_single(out, tensor(rows, genesis.float32), recv, send)
    expect("all_to_all_single uneven", out, np.repeat(np.arange(WORLD), recv)[:, None] * np.ones(2))

    trace("# A ring of sends")
    # A ring of sends and receives, and the async forms.
    if WORLD > 1:
        right, left = (RANK + 1) % WORLD, (RANK - 1) % WORLD
        got = genesis.zeros(4, device=device())
        if RANK % 2 == 0:
            dist.send(genesis.full((4,), float(RANK), device=device()), dst=right)
            dist.recv(got, src=left)
        else:
            dist.recv(got, src=left)
            dist.send(genesis.full((4,), float(RANK), device=device()), dst=right)
        expect("send/recv", got, np.full(4, float(left)))
        # One stream per group runs them in call order: alternate, as for the blocking forms.
        sending = genesis.full((2,), 7.0 + RANK, device=device())
        if RANK % 2 == 0:
            works = [dist.isend(sending, dst=right), dist.irecv(got[:2], src=left)]
        else:
            works = [dist.irecv(got[:2], src=left), dist.isend(sending, dst=right)]
        for w in works:
            w.wait()
        expect("isend/irecv", got[:2], np.full(2, 7.0 + left))

    trace("# Stream order:")
    # Stream order: the collective follows a large op still queued on the current stream.
    big = genesis.ones(1 << (24 if BACKEND == "nccl" else 18), device=device()) * (RANK + 1)
    work = dist.all_reduce(big, async_op=True)
    work.wait()
    assert float(big[-1].item()) == sum(range(1, WORLD + 1))
    work.synchronize()
    assert work.is_completed() and work.is_success()

    trace("# Subgroups:")
    # Subgroups: each rank alone, then everyone; the others are not members.
    for member in range(WORLD):
        g = dist.new_group([member])
        if RANK == member:
            x = genesis.full((2,), 5.0, device=device())
            dist.all_reduce(x, group=g)
            expect("subgroup all_reduce", x, np.full(2, 5.0))
            assert dist.get_rank(g) == 0 and dist.get_world_size(g) == 1
        else:
            assert dist.get_rank(g) == -1
            try:
                dist.all_reduce(genesis.ones(1, device=device()), group=g)
                sys.exit("a non-member's collective did not raise")
            except RuntimeError as e:
                assert "not a member" in str(e), e
    trace("everyone_group = dist.new_grou")
    everyone_group = dist.new_group(list(reversed(range(WORLD))))
    x = genesis.full((2,), float(RANK), device=device())
    dist.broadcast(x, src=0, group=everyone_group)  # global rank 0, group rank WORLD - 1
    expect("reversed group broadcast", x, np.zeros(2))
    trace("dist.barrier()")
    dist.barrier()
    trace("destroy")
    dist.destroy_process_group()
    trace("destroyed")


def debug_mismatch():
    """GENESIS_DISTRIBUTED_DEBUG=DETAIL: disagreeing shapes raise on every rank, no hang."""
    dist.init_process_group("nccl", timeout=TIMEOUT)
    x = genesis.ones(4 + RANK, device=device())
    try:
        dist.all_reduce(x)
        sys.exit("a mismatched all_reduce did not raise")
    except RuntimeError as e:
        assert "different collectives" in str(e) and "rank 1" in str(e), e
    dist.destroy_process_group()


def debug_missing_rank():
    """A rank that never calls the collective: the others time out with a clear error."""
    dist.init_process_group("nccl", timeout=TIMEOUT)
    hasty = dist.new_group(list(range(WORLD)), timeout=datetime.timedelta(seconds=2))
    if RANK == 0:
        try:
            dist.all_reduce(genesis.ones(2, device=device()), group=hasty)
            sys.exit("a collective without its peers did not raise")
        except RuntimeError as e:
            assert "timed out" in str(e) and "rank 1" in str(e), e
    dist.destroy_process_group()


def torch_nccl(path):
    """genesis tensors through torch.distributed (NCCL) by DLPack, and torch's through genesis."""
    import torch
    import torch.distributed as tdist

    torch.cuda.set_device(LOCAL_RANK)
    tdist.init_process_group("nccl", init_method=f"file://{path}", rank=RANK, world_size=WORLD)
    x = genesis.full((1000,), float(RANK + 1), device=device())
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr()
    tdist.all_reduce(t)
    torch.cuda.synchronize()
    expect("torch all_reduce of a genesis tensor", x, np.full(1000, sum(range(1, WORLD + 1))))
    tdist.destroy_process_group()
    dist.init_process_group("nccl", timeout=TIMEOUT)
    u = torch.full((8,), float(RANK), device=f"cuda:{LOCAL_RANK}")
    g = genesis.from_dlpack(u)
    dist.all_reduce(g, op="max")
    genesis.cuda.synchronize()
    assert u.tolist() == [float(WORLD - 1)] * 8, u
    dist.destroy_process_group()


def both_nccl(path, order):
    """genesis's and torch's NCCL groups alive at once in one process, made in either order,
    each library's all_reduce interleaved with the other's, then both torn down."""
    import torch
    import torch.distributed as tdist

    torch.cuda.set_device(LOCAL_RANK)
    for step in order.split(","):
        if step == "genesis":
            dist.init_process_group("nccl", timeout=TIMEOUT)
        else:
            tdist.init_process_group("nccl", init_method=f"file://{path}", rank=RANK,
                                     world_size=WORLD)  # fmt: skip
    x = genesis.full((1 << 20,), float(RANK + 1), device=device())
    t = torch.full((1 << 20,), float(RANK + 2), device=f"cuda:{LOCAL_RANK}")
    for _ in range(3):
        dist.all_reduce(x)
        tdist.all_reduce(t)
    genesis.cuda.synchronize()
    torch.cuda.synchronize()
    total = sum(range(1, WORLD + 1))
    expect("genesis all_reduce beside torch's group", x[:4], np.full(4, total * WORLD**2))
    assert t[:4].tolist() == [float((total + WORLD) * WORLD**2)] * 4, t[:4]
    tdist.destroy_process_group()
    dist.destroy_process_group()


def torch_gloo(path):
    """CPU genesis tensors through torch.distributed's gloo backend by DLPack (no GPU)."""
    import torch
    import torch.distributed as tdist

    tdist.init_process_group("gloo", init_method=f"file://{path}", rank=RANK, world_size=WORLD)
    x = genesis.arange(6.0) + RANK
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr()
    tdist.all_reduce(t)
    expect("gloo all_reduce of a genesis tensor", x,
           np.arange(6.0) * WORLD + sum(range(WORLD)))  # fmt: skip
    tdist.destroy_process_group()


SCENARIOS = {
    "collectives": collectives,
    "debug_mismatch": debug_mismatch,
    "debug_missing_rank": debug_missing_rank,
    "torch_nccl": torch_nccl,
    "both_nccl": both_nccl,
    "torch_gloo": torch_gloo,
}

if __name__ == "__main__":
    if os.environ.get("WORKER_IMPORT_TORCH"):
        import torch  # noqa: F401
    SCENARIOS[sys.argv[1]](*sys.argv[2:])
    print(f"rank {RANK}: {sys.argv[1]} ok", flush=True)
