"""Shared memory (issue 17): share_memory_()/is_shared() on tensors and storages, and CPU
tensors passed between processes as the same memory (Note [Storages between processes] in
genesis/multiprocessing/reductions.py): through a Queue with the fork and spawn start methods,
as a spawned Process's arguments, to and from a Pool; views of one storage stay views of one
storage; the receiver's writes are seen by the sender; bad descriptors raise. Every wait has a
timeout, so a broken transfer fails instead of hanging.
"""

import copy
import os
import pickle

import numpy as np
import pytest

import genesis
import genesis.multiprocessing as gmp

TIMEOUT = 60


def test_share_memory_keeps_values_and_views():
    x = genesis.arange(12.0).reshape(3, 4)
    row = x[1]
    assert not x.is_shared() and not row.is_shared()
    assert x.share_memory_() is x
    assert x.is_shared() and row.is_shared() and x.untyped_storage().is_shared()
    assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist()
    row.mul_(-1)  # the view still shares the (moved) storage
    assert x[1].tolist() == [-4.0, -5.0, -6.0, -7.0]
    before = x.untyped_storage().data_ptr()
    x.share_memory_()  # a second call moves nothing
    assert x.untyped_storage().data_ptr() == before


@pytest.mark.parametrize("dtype", [genesis.bool, genesis.int8, genesis.float16, genesis.float64])
def test_share_memory_of_every_size(dtype):
    for n in (0, 1, 4097):
        a = (np.arange(n) % 3).astype(np.float64)
        x = genesis.tensor(a, dtype=dtype)
        want = x.tolist()
        assert x.share_memory_().tolist() == want
        assert x.is_shared() and x.dtype == dtype and x.shape == (n,)


def test_the_storage_methods():
    s = genesis.ones(3).untyped_storage()
    assert not s.is_shared()
    assert s.share_memory_().is_shared()
    fd, nbytes = s._share_fd_cpu_()
    assert nbytes == 12 and fd >= 0
    same = genesis._C._storage_from_share_fd(fd, nbytes)  # mapped once per process
    assert same._cdata == s._cdata


def test_a_numpy_array_keeps_its_old_memory():
    """As torch: after share_memory_ the tensor no longer writes the array it came from, and the
    array's memory stays valid."""
    a = np.zeros(4, dtype=np.float32)
    x = genesis.from_numpy(a)
    x.share_memory_().add_(1)
    assert a.tolist() == [0.0] * 4 and x.tolist() == [1.0] * 4


def test_plain_pickle_and_deepcopy_still_copy():
    x = genesis.arange(4.0).share_memory_()
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert y.tolist() == x.tolist() and not y.is_shared()
        y.add_(1)
        assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_cuda_tensors_are_shared_already(device):
    x = genesis.ones(3, device=device)
    assert x.is_shared() == (device != "cpu")  # torch's meaning: CUDA memory travels by IPC
    assert x.share_memory_() is x and x.is_shared()
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_bad_descriptors_raise():
    with pytest.raises(RuntimeError, match=r"share_memory_"):
        genesis._C._storage_from_share_fd(10**6, 8)  # no such descriptor
    r, w = os.pipe()
    try:
        with pytest.raises(RuntimeError, match=r"share_memory_"):
            genesis._C._storage_from_share_fd(r, 8)  # a pipe holds no memory
    finally:
        os.close(r)
        os.close(w)
    s = genesis.ones(2).untyped_storage()
    fd, nbytes = s._share_fd_cpu_()
    with pytest.raises(RuntimeError, match=r"\[share_memory_\].*fewer than"):
        genesis._C._storage_from_share_fd(fd, nbytes + 1 << 20)


def test_sharing_strategies():
    assert gmp.get_sharing_strategy() == "file_descriptor"
    assert gmp.get_all_sharing_strategies() == {"file_descriptor"}
    gmp.set_sharing_strategy("file_descriptor")
    with pytest.raises(ValueError, match=r"\[set_sharing_strategy\]"):
        gmp.set_sharing_strategy("file_system")
    assert gmp.Queue is not None and gmp.get_context is not None  # multiprocessing's names


# Workers (module level, so the spawn start method can import them).


def _fill_from_queue(inbox, outbox):
    """Takes (x, row, alone) from inbox: writes through each and reports what it saw."""
    x, row, alone = inbox.get(timeout=TIMEOUT)
    row.fill_(7.0)  # row is a view of x in the same message
    same = x[1].tolist() == [7.0] * x.shape[1]
    later = inbox.get(timeout=TIMEOUT)  # x[2], sent in a later message
    later.fill_(9.0)
    alone.add_(100)
    outbox.put((same, x.is_shared(), x[2].tolist()))


def _fill_argument(x, value, done):
    x.fill_(value)
    done.set()


def _add_one(t):
    t.add_(1)
    return t * 2  # a new tensor, sent back through shared memory too


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_queue_sends_the_same_memory(method):
    ctx = gmp.get_context(method)
    inbox, outbox = ctx.Queue(), ctx.Queue()
    x = genesis.zeros(3, 5)
    alone = genesis.arange(4)
    p = ctx.Process(target=_fill_from_queue, args=(inbox, outbox))
    p.start()
    try:
        inbox.put((x, x[1], alone))
        inbox.put(x[2])
        same, shared, seen = outbox.get(timeout=TIMEOUT)
    finally:
        p.join(TIMEOUT)
        if p.is_alive():
            p.kill()
    assert p.exitcode == 0
    assert same and shared
    assert seen == [9.0] * 5  # x[2] arrived as a view of the storage x had brought
    assert x.is_shared() and alone.is_shared()
    assert x[1].tolist() == [7.0] * 5 and x[2].tolist() == [9.0] * 5  # the child's writes
    assert alone.tolist() == [100, 101, 102, 103]


def test_a_spawned_process_gets_its_arguments_as_the_same_memory():
    ctx = gmp.get_context("spawn")
    x = genesis.zeros(1000)
    done = ctx.Event()
    p = ctx.Process(target=_fill_argument, args=(x[10:20], 3.5, done))
    p.start()
    p.join(TIMEOUT)
    if p.is_alive():
        p.kill()
    assert p.exitcode == 0 and done.is_set()
    assert x[10:20].tolist() == [3.5] * 10 and x[:10].tolist() == [0.0] * 10


def test_a_forked_child_shares_what_was_shared_before_the_fork():
    ctx = gmp.get_context("fork")
    shared, private = genesis.zeros(4).share_memory_(), genesis.zeros(4)
    done = ctx.Event()
    p = ctx.Process(target=_fill_argument, args=(shared, 2.0, done))
    p.start()
    p.join(TIMEOUT)
    q = ctx.Process(target=_fill_argument, args=(private, 2.0, done))
    q.start()
    q.join(TIMEOUT)
    assert p.exitcode == 0 and q.exitcode == 0
    assert shared.tolist() == [2.0] * 4  # MAP_SHARED pages survive the fork
    assert private.tolist() == [0.0] * 4  # ordinary memory is copied on write


def test_a_pool_maps_over_shared_tensors():
    ctx = gmp.get_context("spawn")
    parts = [genesis.full((3,), float(i)) for i in range(4)]
    with ctx.Pool(2) as pool:
        doubled = pool.map(_add_one, parts, chunksize=1)
    assert [p.tolist() for p in parts] == [[float(i + 1)] * 3 for i in range(4)]
    assert [d.tolist() for d in doubled] == [[float(2 * (i + 1))] * 3 for i in range(4)]
    assert all(d.is_shared() for d in doubled)


# CUDA tensors between processes (Note [CUDA storages between processes]).


def _cuda_worker(inbox, outbox):
    """Takes (x, view) (CUDA), writes through the view, reports x's values, then waits for
    "drop" (releasing x) or "hold" (keeping it until killed)."""
    x, view = inbox.get(timeout=TIMEOUT)
    view.fill_(5.0)
    genesis.cuda.synchronize()
    outbox.put((str(x.device), x.cpu().tolist(), x.is_shared()))
    order = inbox.get(timeout=TIMEOUT)
    if order == "drop":
        del x, view
        outbox.put("dropped")
        inbox.get(timeout=TIMEOUT)  # stays alive until told: its pid must look alive
    else:
        import time

        time.sleep(TIMEOUT)


def _start_cuda_worker():
    ctx = gmp.get_context("spawn")  # a forked child cannot use CUDA
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_cuda_worker, args=(inbox, outbox))
    p.start()
    return p, inbox, outbox


def _sent_count():
    from genesis.multiprocessing import reductions

    gmp.release_sent_cuda()
    return len(reductions._sent)


def test_a_cuda_tensor_travels_by_ipc_and_is_released(device):
    if device == "cpu":
        pytest.skip("CUDA IPC")
    before = _sent_count()
    x = genesis.arange(8.0, device=device)
    p, inbox, outbox = _start_cuda_worker()
    try:
        inbox.put((x, x[2:4]))
        where, values, shared = outbox.get(timeout=TIMEOUT)
        assert where.startswith("cuda") and shared
        assert values == [0.0, 1.0, 5.0, 5.0, 4.0, 5.0, 6.0, 7.0]
        assert x.tolist() == values  # the worker wrote this process's memory
        assert _sent_count() == before + 1  # kept while the worker holds it
        inbox.put("drop")
        assert outbox.get(timeout=TIMEOUT) == "dropped"
        assert _sent_count() == before  # let go once the worker's storage is gone
        inbox.put("exit")
    finally:
        p.join(TIMEOUT)
        if p.is_alive():
            p.kill()
    assert p.exitcode == 0


def test_a_killed_receiver_does_not_keep_cuda_memory(device):
    if device == "cpu":
        pytest.skip("CUDA IPC")
    before = _sent_count()
    x = genesis.zeros(1000, device=device)
    p, inbox, outbox = _start_cuda_worker()
    try:
        inbox.put((x, x[:10]))
        outbox.get(timeout=TIMEOUT)
        inbox.put("hold")
        assert _sent_count() == before + 1
    finally:
        p.kill()
        p.join(TIMEOUT)
    assert _sent_count() == before  # its process is gone: the memory is let go
    assert x[:10].tolist() == [5.0] * 10


def test_a_cuda_tensor_sent_to_its_own_process_arrives_as_itself(device):
    if device == "cpu":
        pytest.skip("CUDA IPC")
    x = genesis.ones(4, device=device)
    sender, receiver = gmp.Pipe()
    sender.send(x[1:])
    y = receiver.recv()
    assert y.untyped_storage()._cdata == x.untyped_storage()._cdata
    y.fill_(3.0)
    assert x.tolist() == [1.0, 3.0, 3.0, 3.0]
    assert gmp.release_sent_cuda() == 0
