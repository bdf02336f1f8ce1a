"""Other Python threads run while genesis computes or waits for the device, and ops running at
once on several threads give the results they give alone (Note [Releasing the caller's lock] in
csrc/core/caller_lock.h).

How progress is seen: a second thread runs pure Python (it needs the GIL) and stamps the time
on every turn. An op that holds the GIL for its whole run leaves no stamp in the middle half of
its run (a switch can only happen at the edges, between bytecodes of the caller); an op that
lets it go leaves many. Each op is sized, before the check, to run for at least MIN_SECONDS, so
the middle half is long on any machine.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from conftest import DEVICES

import genesis

MIN_SECONDS = 0.08


def _stamps_inside(fn):
    """Runs fn while a second thread stamps; returns (fn's result, stamps in its middle half,
    its duration)."""
    stamps: list[float] = []
    stop = threading.Event()
    running = threading.Event()

    def ticker():
        running.set()
        while not stop.is_set():
            stamps.append(time.perf_counter())
            sum(range(200))  # pure Python: holds the GIL while it runs

    thread = threading.Thread(target=ticker)
    thread.start()
    running.wait()
    try:
        t0 = time.perf_counter()
        result = fn()
        t1 = time.perf_counter()
    finally:
        stop.set()
        thread.join()
    quarter = (t1 - t0) / 4
    inside = [s for s in stamps if t0 + quarter < s < t1 - quarter]
    return result, len(inside), t1 - t0


def _sized(make, run, start):
    """Grows the size (doubling from start) until a run after a warm-up one takes MIN_SECONDS;
    returns the inputs made for that size."""
    size = start
    while True:
        inputs = make(size)
        run(*inputs)  # a first run touches fresh memory; the second is the one that counts
        t0 = time.perf_counter()
        run(*inputs)
        if time.perf_counter() - t0 >= MIN_SECONDS:
            return inputs
        # (a 16-core host needs 2^28 elements for a mul to take MIN_SECONDS)
        assert size < start << 10, f"{run} stays under {MIN_SECONDS} s at size {size}"
        size *= 2


def _sync(device):
    if device == "cuda":
        genesis.cuda.synchronize()


# name -> (make(size) -> inputs, run(*inputs), starting size)
CPU_OPS = {
    "matmul": (lambda n: (genesis.rand(n, n), genesis.rand(n, n)), lambda a, b: a @ b, 128),
    "mul": (lambda n: (genesis.rand(n), genesis.rand(n)), lambda a, b: a * b, 1 << 20),
    "gather": (
        lambda n: (genesis.rand(n), genesis.randint(0, n, (n,))),
        lambda x, i: x[i],
        1 << 20,
    ),
    "randn": (lambda n: (n,), lambda n: genesis.randn(n), 1 << 20),
    "softmax": (lambda n: (genesis.rand(n, 1024),), lambda x: x.softmax(-1), 1024),
    "cat": (
        lambda n: (genesis.rand(n), genesis.rand(n)),
        lambda a, b: genesis.cat([a, b]),
        1 << 20,
    ),
    "sum": (lambda n: (genesis.rand(n, 64),), lambda x: x.sum(0), 1 << 14),
    "mask": (lambda n: (genesis.rand(n),), lambda x: x[x > 0.5], 1 << 20),
    "transposing copy": (lambda n: (genesis.rand(n, 64).t(),), lambda x: x.contiguous(), 1 << 14),
}


def _stamps_in_some_try(fn, tries=3):
    """_stamps_inside up to `tries` times, until a run has stamps in its middle half; returns
    the last (stamps, duration). An op that holds the lock for its whole run has none in any
    try, but one that lets it go can, rarely, see none once on a loaded 2-core machine (CI under
    the sanitizers: the ticker thread got no core for half a second)."""
    for _ in range(tries):
        _, inside, seconds = _stamps_inside(fn)
        if inside > 0:
            break
    return inside, seconds


@pytest.mark.parametrize("name", sorted(CPU_OPS))
def test_other_threads_run_while_a_cpu_op_computes(name):
    make, run, start = CPU_OPS[name]
    inputs = _sized(make, run, start)
    inside, seconds = _stamps_in_some_try(lambda: run(*inputs))
    assert inside > 0, f"{name}: no Python ran during {seconds * 1e3:.0f} ms of compute"


def test_small_ops_keep_the_gil_and_stay_right():
    # Below one grain an op runs serially on the calling thread without releasing (Note [Serial
    # small work]); results are the same as NumPy's.
    a = np.random.default_rng(0).random((64, 64), dtype=np.float32)
    x = genesis.from_numpy(a)
    np.testing.assert_allclose(x.sum(0).numpy(), a.sum(0), rtol=1e-5)
    np.testing.assert_allclose(x.sum(1).numpy(), a.sum(1), rtol=1e-5)


@pytest.mark.skipif(not genesis.cuda.is_available(), reason="no CUDA device available")
@pytest.mark.parametrize("wait", ["synchronize", "cpu", "item"])
def test_other_threads_run_while_waiting_for_the_device(wait):
    # A chain of `steps` queued kernels, then one wait for all of them.
    x = genesis.rand(2048, 2048, device="cuda")
    waits = {
        "synchronize": lambda y: genesis.cuda.synchronize(),
        "cpu": lambda y: y.cpu(),
        "item": lambda y: y.sum().item(),
    }

    def queue_and_wait(steps):
        y = x
        for _ in range(steps):
            y = (y @ x) / 2048.0
        return waits[wait](y)

    steps = _sized(lambda n: (n,), queue_and_wait, 4)
    inside, seconds = _stamps_in_some_try(lambda: queue_and_wait(*steps))
    assert inside > 0, f"no Python ran during {seconds * 1e3:.0f} ms of waiting ({wait})"


@pytest.mark.parametrize("device", DEVICES)
def test_ops_on_eight_threads_at_once_match_one_thread(device):
    # With the GIL let go, ops really run at once: each thread's results equal the serial ones.
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal((256, 256), dtype=np.float32) for _ in range(8)]

    def work(a):
        x = genesis.from_numpy(a).to(device)
        y = (x @ x.t()).softmax(-1) * 2 + x
        return genesis.cat([y.sum(0), y[y > 0].sum().reshape(1)]).cpu().numpy()

    expected = [work(a) for a in inputs]
    results: list = [None] * 8
    errors: list = []

    def thread_main(k):
        try:
            for _ in range(5):
                results[k] = work(inputs[k])
                np.testing.assert_array_equal(results[k], expected[k])
        except BaseException as exc:  # reported below, on the main thread
            errors.append(exc)

    threads = [threading.Thread(target=thread_main, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _sync(device)
    assert not errors, errors[0]
