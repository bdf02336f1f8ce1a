"""genesis.futures.Future (torch.futures'): set once, wait, then-chains, errors, collect_all,
and the futures of collectives (Work.get_future)."""

import pytest

import genesis
import genesis.distributed as dist
from genesis.futures import Future, collect_all


def test_set_wait_value_and_chains():
    fut = Future()
    assert not fut.done()
    with pytest.raises(RuntimeError, match=r"^\[Future.value\] "):
        fut.value()
    chained = fut.then(lambda f: f.value() + 1).then(lambda f: f.value() * 10)
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    fut.set_result(1)
    assert seen == [1] and fut.wait() == 1 and chained.wait() == 20
    with pytest.raises(RuntimeError, match="already set"):
        fut.set_result(2)
    late = []
    fut.add_done_callback(lambda f: late.append(f.value()))  # runs at once when set
    assert late == [1]


def test_errors_reach_the_waiter():
    fut = Future()
    broken = fut.then(lambda f: 1 / 0)
    fut.set_result(0)
    with pytest.raises(ZeroDivisionError):
        broken.wait()
    failed = Future()
    failed.set_exception(ValueError("no"))
    with pytest.raises(ValueError, match="no"):
        failed.wait()
    with pytest.raises(ValueError):
        failed.then(lambda f: f.value()).wait()


def test_collect_all():
    a, b = Future(), Future()
    both = collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_result(2)
    assert both.done() and [f.value() for f in both.wait()] == [1, 2]
    assert collect_all([]).wait() == []


def test_the_future_of_a_collective():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        x = genesis.ones(3)
        fut = dist.all_reduce(x, async_op=True).get_future()
        (out,) = fut.wait()
        assert out is x
        doubled = dist.broadcast(x, 0, async_op=True).get_future().then(lambda f: f.value()[0] * 2)
        assert doubled.wait().tolist() == [2.0, 2.0, 2.0]
    finally:
        dist.destroy_process_group()
