"""The DataLoader with worker processes: the same batches as without workers (and as torch's,
where comparable), seeding, get_worker_info, worker_init_fn, IterableDataset sharding, batches
in shared memory, persistent workers, in_order=False; the failures: a worker's exception
re-raised with its traceback, a worker killed by a signal, timeouts, unpicklable datasets under
spawn; and shutdown: after the epoch, break, del, garbage collection and KeyboardInterrupt, no
worker process is left. Datasets are small and workers forked unless a test is about spawn.
"""

import gc
import os
import random
import signal
import threading
import time

import numpy as np
import pytest
from isolated import run_isolated

import genesis
from genesis.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

FORK = "fork"

# Three workers on a 2-core machine are fine here.
pytestmark = pytest.mark.filterwarnings("ignore:.*worker processes:UserWarning")


def _gone(pid, within=5.0):
    """True once no process ``pid`` exists (they are our children: joined means reaped)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def _worker_pids(iterator):
    return [p.pid for p in iterator._workers.processes]


class Numbers(Dataset):
    """Sample i: (i as float32 array of 2, i, 'name i')."""

    def __init__(self, n=20):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full(2, i, np.float32), i, f"name {i}"


class Pid(Dataset):
    """Sample i: the worker's pid, after ``delay`` seconds."""

    def __init__(self, n=40, delay=0.0):
        self.n, self.delay = n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.delay)
        return os.getpid()


class Failing(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 5:
            raise KeyError("sample five is missing")
        return i


class Randoms(Dataset):
    """Draws from every generator a worker seeds: genesis, Python's random and NumPy's."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {
            "genesis": float(genesis.rand(1)),
            "random": random.random(),
            "numpy": int(np.random.randint(1 << 30)),
            "seed": info.seed if info else -1,
            "id": info.id if info else -1,
        }


def _split(worker, num_workers, start, stop, uneven):
    """A worker's part of range(start, stop): by stride, or (uneven) worker 0 the first
    two thirds and the others the rest by stride."""
    if not uneven:
        return range(start + worker, stop, num_workers)
    cut = start + 2 * (stop - start) // 3
    if worker == 0:
        return range(start, cut)
    return range(cut + worker - 1, stop, num_workers - 1)


class Sharded(IterableDataset):
    """range(start, stop), split among the workers (``_split``)."""

    def __init__(self, start, stop, uneven=False):
        self.start, self.stop, self.uneven = start, stop, uneven

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.stop))
        return iter(_split(info.id, info.num_workers, self.start, self.stop, self.uneven))


def _values(loader):
    out = []
    for batch in loader:
        if isinstance(batch, dict):
            out.append({k: v.tolist() if hasattr(v, "tolist") else v for k, v in batch.items()})
        elif isinstance(batch, list):
            out.append([b.tolist() if hasattr(b, "tolist") else b for b in batch])
        else:
            out.append(batch.tolist() if hasattr(batch, "tolist") else batch)
    return out


def _loader(dataset, **kwargs):
    if kwargs.get("num_workers", 0) > 0:
        kwargs.setdefault("multiprocessing_context", FORK)
    return DataLoader(dataset, **kwargs)


@pytest.mark.parametrize("options", [{"batch_size": 3}, {"batch_size": None}], ids=str)
def test_same_batches_with_any_number_of_workers(options):
    want = _values(_loader(Numbers(), **options))
    for workers in (1, 2, 3):
        assert _values(_loader(Numbers(), num_workers=workers, **options)) == want


def test_same_shuffled_batches_for_a_seed_with_0_1_2_workers():
    results = []
    for workers in (0, 1, 2):
        genesis.manual_seed(123)
        results.append(_values(_loader(Numbers(), batch_size=4, shuffle=True, num_workers=workers)))
        g = genesis.Generator()
        g.manual_seed(5)
        loader = _loader(Numbers(), batch_size=4, shuffle=True, num_workers=workers, generator=g)
        results.append(_values(loader))
    assert results[0] == results[2] == results[4]
    assert results[1] == results[3] == results[5]
    assert results[0] != results[1]


def test_batches_from_workers_are_shared_memory():
    ds = TensorDataset(genesis.arange(24.0).reshape(12, 2), genesis.arange(12))
    for x, y in _loader(ds, batch_size=5, num_workers=2):
        assert x.is_shared() and y.is_shared()


def test_workers_are_seeded_like_torch():
    torch_worker = pytest.importorskip("torch.utils.data._utils.worker")
    genesis.manual_seed(0)
    batches = list(_loader(Randoms(), batch_size=2, num_workers=2))
    genesis.manual_seed(0)
    again = list(_loader(Randoms(), batch_size=2, num_workers=2))
    assert _values(batches) == _values(again)  # the main seed fixes the workers' streams
    seeds = {int(b["id"][0]): int(b["seed"][0]) for b in batches}
    assert set(seeds) == {0, 1} and seeds[1] == seeds[0] + 1
    base = seeds[0]
    for b in batches:
        worker, first = int(b["id"][0]), int(b["numpy"][0])
        if first == int(batches[worker]["numpy"][0]):  # the worker's first draw
            np.random.seed(torch_worker._generate_state(base, worker))
            assert np.random.randint(1 << 30) == first
            random.seed(base + worker)
            assert random.random() == pytest.approx(float(batches[worker]["random"][0]))
    assert batches[0]["genesis"][0] != batches[1]["genesis"][0]


def test_get_worker_info_and_worker_init_fn():
    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id and info.num_workers == 3
        info.dataset.tag = f"worker {worker_id}"

    class Tagged(Dataset):
        tag = "main"

        def __len__(self):
            return 9

        def __getitem__(self, i):
            info = get_worker_info()
            assert info.dataset is self
            return f"{self.tag} of {info.num_workers}"

    ds = Tagged()
    out = [s for batch in _loader(ds, num_workers=3, worker_init_fn=init) for s in batch]
    assert sorted(set(out)) == ["worker 0 of 3", "worker 1 of 3", "worker 2 of 3"]
    assert ds.tag == "main" and get_worker_info() is None


def test_worker_init_fn_error_is_raised():
    def init(worker_id):
        raise ValueError(f"init of {worker_id} failed")

    with pytest.raises(ValueError, match="worker_init_fn") as info:
        list(_loader(Numbers(), num_workers=1, worker_init_fn=init))
    assert "init of 0 failed" in str(info.value)


@pytest.mark.parametrize("uneven", [False, True])
@pytest.mark.parametrize("batch_size", [2, 3, None])
def test_iterable_dataset_sharded_by_worker_as_torch(uneven, batch_size):
    torch = pytest.importorskip("torch")

    class TorchSharded(torch.utils.data.IterableDataset):
        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            return iter(_split(info.id, info.num_workers, 0, 17, uneven))

    mine = _values(_loader(Sharded(0, 17, uneven), batch_size=batch_size, num_workers=3))
    theirs = torch.utils.data.DataLoader(
        TorchSharded(), batch_size=batch_size, num_workers=3, multiprocessing_context=FORK
    )
    assert mine == [b.tolist() if hasattr(b, "tolist") else b for b in theirs]
    flat = [v for b in mine for v in (b if isinstance(b, list) else [b])]
    assert sorted(flat) == list(range(17))


def test_iterable_dataset_drop_last_per_worker():
    out = _values(_loader(Sharded(0, 10), batch_size=3, num_workers=2, drop_last=True))
    assert out == [[0, 2, 4], [1, 3, 5]]  # each worker drops its own incomplete batch


def test_worker_exception_carries_the_worker_traceback():
    loader = _loader(Failing(), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    with pytest.raises(KeyError) as info:
        next(it)
    text = str(info.value)
    assert "Caught KeyError in DataLoader worker 0" in text
    assert "while fetching batch 2" in text
    assert 'raise KeyError("sample five is missing")' in text  # the worker's own line
    assert "test_data_workers.py" in text
    assert next(it).tolist() == [6, 7]  # the other batches still come, as in torch


def test_collate_error_names_the_batch_and_the_worker():
    def collate(batch):
        if 4 in batch:
            raise TypeError("cannot collate 4")
        return batch

    with pytest.raises(TypeError, match="cannot collate 4") as info:
        list(_loader(range(8), batch_size=2, num_workers=2, collate_fn=collate))
    assert "in DataLoader worker 0" in str(info.value)
    assert "while collating batch 2" in str(info.value)


class StopsEarly(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise StopIteration  # would end a for loop silently
        return i


@pytest.mark.parametrize("workers", [0, 2])
def test_stop_iteration_from_a_map_style_dataset_is_an_error(workers):
    with pytest.raises(RuntimeError, match="StopIteration"):
        list(_loader(StopsEarly(), batch_size=2, num_workers=workers))


class Unsendable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return lambda: i  # cannot be pickled back to the main process


def test_unpicklable_batch_is_reported():
    with pytest.raises(Exception, match="while sending it to the main process"):
        list(_loader(Unsendable(), num_workers=1, collate_fn=lambda b: b))


def test_killed_worker_raises_at_once():
    it = iter(_loader(Pid(delay=0.05), batch_size=2, num_workers=2))
    next(it)
    pids = _worker_pids(it)
    start = time.monotonic()
    os.kill(pids[1], signal.SIGKILL)
    with pytest.raises(RuntimeError) as info:
        for _ in range(40):
            next(it)
    assert time.monotonic() - start < 5
    assert f"[DataLoader] worker 1 (pid {pids[1]}) exited unexpectedly with signal SIGKILL" in str(
        info.value
    )
    assert all(_gone(p) for p in pids)  # the other worker is shut down too
    with pytest.raises(StopIteration):
        next(it)


def test_timeout_raises():
    it = iter(_loader(Pid(n=4, delay=1.0), num_workers=1, timeout=0.2))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 0.2 seconds"):
        next(it)
    assert time.monotonic() - start < 0.9
    time.sleep(1.0)
    assert isinstance(int(next(it)), int)  # a later call may still get the batch
    pids = _worker_pids(it)
    del it
    assert all(_gone(p) for p in pids)


def test_workers_stop_after_the_epoch():
    it = iter(_loader(Numbers(6), batch_size=2, num_workers=2))
    pids = _worker_pids(it)
    assert len(list(it)) == 3
    assert all(_gone(p) for p in pids)


def test_break_and_del_stop_the_workers():
    loader = _loader(Pid(n=100, delay=0.01), batch_size=2, num_workers=2)
    for batch in loader:
        pids = set(batch.tolist())
        break
    assert all(_gone(p) for p in pids)
    it = iter(loader)
    next(it)
    pids = _worker_pids(it)
    del it
    assert all(_gone(p) for p in pids)


def test_garbage_collection_of_an_iterator_in_a_cycle_stops_the_workers():
    it = iter(_loader(Pid(n=100), batch_size=2, num_workers=2))
    next(it)
    pids = _worker_pids(it)
    it.cycle = it  # only the cycle collector can free it
    del it
    gc.collect()
    assert all(_gone(p) for p in pids)


def test_keyboard_interrupt_stops_the_workers():
    # A process started in the background by a non-interactive shell (CI) inherits SIGINT as
    # ignored, and Python then leaves it so: install Python's own handler for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        it = iter(_loader(Pid(n=10, delay=3.0), num_workers=2))
        pids = _worker_pids(it)
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            next(it)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 2.0
    assert all(_gone(p) for p in pids)  # terminated: they were in the middle of an item


def test_persistent_workers_keep_their_processes_and_datasets():
    class Counting(Dataset):
        def __init__(self):
            self.calls = 0

        def __len__(self):
            return 4

        def __getitem__(self, i):
            self.calls += 1  # in the worker's copy
            return os.getpid(), self.calls

    loader = _loader(Counting(), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [[(b[0].tolist(), b[1].tolist()) for b in loader] for _ in range(3)]
    pids = [set(sum((p for p, _ in e), [])) for e in epochs]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
    calls = [max(max(c) for _, c in e) for e in epochs]
    assert calls == [2, 4, 6]  # the workers' dataset copies live on
    it = iter(loader)
    next(it)  # abandon an epoch half way: the next one starts afresh
    assert len(list(loader)) == 2
    del loader, it  # the loader held the iterator, and so the workers
    gc.collect()
    assert all(_gone(p) for p in pids[0])


def test_persistent_workers_with_an_iterable_dataset():
    loader = _loader(Sharded(0, 7), batch_size=2, num_workers=2, persistent_workers=True)
    first = _values(loader)
    assert first == _values(loader)
    assert sorted(v for b in first for v in b) == list(range(7))


def test_prefetch_factor_bounds_tasks_in_flight():
    it = iter(_loader(Pid(n=50), num_workers=2, prefetch_factor=3))
    assert len(it._tasks) == 6 and max(it._outstanding) == 3
    next(it)
    assert len(it._tasks) + len(it._results) <= 6


def test_in_order_false_yields_ready_batches_first():
    class SlowFirst(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            if i == 0:
                time.sleep(0.5)
            return i

    out = [int(b) for b in _loader(SlowFirst(), num_workers=2, in_order=False)]
    assert sorted(out) == list(range(6)) and out[0] != 0
    assert [int(b) for b in _loader(SlowFirst(), num_workers=2)] == list(range(6))


def test_dicts_and_strings_come_through_workers():
    out = list(_loader(Numbers(4), batch_size=2, num_workers=2))
    assert out[1][2] == ("name 2", "name 3") or out[1][2] == ["name 2", "name 3"]
    assert out[1][1].tolist() == [2, 3] and out[1][0].dtype == genesis.float32


def test_spawn_workers():
    loader = DataLoader(Numbers(6), batch_size=3, num_workers=1, multiprocessing_context="spawn")
    assert _values(loader) == _values(DataLoader(Numbers(6), batch_size=3))


def test_unpicklable_dataset_under_spawn_is_explained():
    class Inner(Dataset):  # a local class cannot be pickled
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return i

    loader = DataLoader(Inner(), num_workers=1, multiprocessing_context="spawn")
    with pytest.raises(Exception, match=r"\[DataLoader\] cannot start worker 0") as info:
        iter(loader)
    assert "the dataset" in str(info.value) and "module level" in str(info.value)
    loader = DataLoader(
        range(3), num_workers=1, multiprocessing_context="spawn", collate_fn=lambda b: b
    )
    with pytest.raises(Exception, match="the collate_fn"):
        iter(loader)


def test_running_out_of_file_descriptors_is_explained():
    out = run_isolated(
        """
        import resource
        import genesis
        from genesis.utils.data import DataLoader, TensorDataset

        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, hard))
        ds = TensorDataset(genesis.arange(400.0), genesis.arange(400))
        kept = []
        try:
            loader = DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context="fork")
            for batch in loader:
                kept.append(batch)  # each keeps two descriptors
        except RuntimeError as e:
            print(e)
        """,
        timeout=60,
    )
    assert "near its limit of 128" in out and "ulimit -n" in out
