"""Note [Deferred index errors]: a CUDA index op never waits to learn that an index was out of
range; the first error of a device is raised as IndexError, once, at the host's next wait for
that device. genesis.cuda.set_index_check("immediate") raises at the op instead."""

import gc
import re
import threading

import numpy as np
import pytest
from conftest import requires_cuda

import genesis

MESSAGE = "index 7 is out of bounds for dimension 0 with size 5"


@pytest.fixture
def deferred():
    genesis.cuda.set_index_check("deferred")
    genesis.cuda.set_sync_debug_mode("default")
    yield
    genesis.cuda.set_index_check("deferred")
    genesis.cuda.set_sync_debug_mode("default")


def bad_gather():
    """x[idx] with idx = [1, 7] into 5 items: returns before any check, the error recorded."""
    x = genesis.arange(5.0, device="cuda")
    return x[genesis.tensor([1, 7], device="cuda")]


def expect_deferred(match=MESSAGE, op="index"):
    return pytest.raises(IndexError, match=rf"^\[{re.escape(op)}\] {re.escape(match)} \(recorded")


# --- the API, on every machine -----------------------------------------------------------


def test_index_check_mode_round_trips():
    assert genesis.cuda.get_index_check() == "deferred"
    genesis.cuda.set_index_check("immediate")
    try:
        assert genesis.cuda.get_index_check() == "immediate"
    finally:
        genesis.cuda.set_index_check("deferred")
    assert genesis.cuda.get_index_check() == "deferred"


@pytest.mark.parametrize("bad", ["later", "", None, 1, True, "Deferred"])
def test_index_check_rejects_other_modes(bad):
    with pytest.raises(ValueError, match=r"^\[set_index_check\] expected 'deferred' or"):
        genesis.cuda.set_index_check(bad)
    assert genesis.cuda.get_index_check() == "deferred"


@pytest.mark.parametrize("mode", ["deferred", "immediate"])
def test_cpu_raises_at_the_op_in_either_mode(mode):
    genesis.cuda.set_index_check(mode)
    try:
        x = genesis.arange(5.0)
        with pytest.raises(IndexError, match=re.escape(MESSAGE)):
            x[genesis.tensor([1, 7])]
        with pytest.raises(IndexError, match=r"^\[gather\] "):
            x.gather(0, genesis.tensor([7]))
    finally:
        genesis.cuda.set_index_check("deferred")


# --- each wait raises the pending error, once ------------------------------------------------


def _synchronize(y):
    genesis.cuda.synchronize()


def _item(y):
    y[0].item()


def _tolist(y):
    y.tolist()


def _cpu(y):
    y.cpu()


def _numpy(y):
    y.cpu().numpy()


def _event(y):
    e = genesis.cuda.Event()
    e.record()
    e.synchronize()


def _stream(y):
    genesis.cuda.current_stream().synchronize()


def _mask_get(y):
    y[y > 0]


def _dlpack_to_host(y):
    y.__dlpack__(dl_device=(1, 0))


def _copy_into_cpu(y):
    genesis.zeros(2).copy_(y)


SYNC_POINTS = [
    _synchronize,
    _item,
    _tolist,
    _cpu,
    _numpy,
    _event,
    _stream,
    _mask_get,
    _dlpack_to_host,
    _copy_into_cpu,
]


@requires_cuda
@pytest.mark.parametrize("wait", SYNC_POINTS, ids=lambda f: f.__name__.strip("_"))
def test_each_wait_raises_the_error_once(deferred, wait):
    y = bad_gather()  # no wait, no error yet
    with expect_deferred():
        wait(y)
    wait(y)  # raised once: the record is clear
    genesis.cuda.synchronize()
    # The bad index read element 0; the good one is right, and the device works on.
    assert y.tolist() == [1.0, 0.0]
    assert (genesis.arange(3, device="cuda") * 2).tolist() == [0, 2, 4]


@requires_cuda
def test_no_wait_at_the_op_and_the_message_names_the_wait(deferred):
    x = genesis.arange(5.0, device="cuda")
    idx, idx9 = genesis.tensor([1, 7], device="cuda"), genesis.tensor([9], device="cuda")
    genesis.cuda.set_sync_debug_mode("error")  # any implicit wait would raise RuntimeError
    y = x[idx]
    x[idx9] = 1.0
    genesis.cuda.set_sync_debug_mode("default")
    with pytest.raises(IndexError) as e:
        genesis.cuda.synchronize()
    assert str(e.value) == (
        "[index] index 7 is out of bounds for dimension 0 with size 5 (recorded on cuda:"
        f"{genesis.cuda.current_device()}, raised at synchronize: CUDA index errors are raised "
        "at the next wait for the device, see genesis.cuda.set_index_check)"
    )
    del y


@requires_cuda
def test_two_bad_ops_report_the_first(deferred):
    x = genesis.arange(5.0, device="cuda")
    x[genesis.tensor([7], device="cuda")]
    x.gather(0, genesis.tensor([-9], device="cuda"))
    with expect_deferred():
        genesis.cuda.synchronize()
    genesis.cuda.synchronize()  # the second error was never recorded: nothing more


@pytest.mark.parametrize(
    "op, call",
    [
        ("index", lambda x, i: x[i]),
        ("index", lambda x, i: x.__setitem__(i, 1.0)),
        ("index_select", lambda x, i: x.index_select(0, i)),
        ("gather", lambda x, i: x.gather(0, i)),
        ("take", lambda x, i: x.take(i)),
        ("take_along_dim", lambda x, i: x.take_along_dim(i, 0)),
        ("index_fill_", lambda x, i: x.index_fill_(0, i, 1.0)),
        ("index_copy_", lambda x, i: x.index_copy_(0, i, genesis.ones(1, device="cuda"))),
        ("scatter_", lambda x, i: x.scatter_(0, i, 1.0)),
        ("scatter_add_", lambda x, i: x.scatter_add_(0, i, genesis.ones(1, device="cuda"))),
        (
            "scatter_reduce_",
            lambda x, i: x.scatter_reduce_(0, i, genesis.ones(1, device="cuda"), "amax"),
        ),
        ("index_add_", lambda x, i: x.index_add_(0, i, genesis.ones(1, device="cuda"))),
        ("put_", lambda x, i: x.put_(i, genesis.ones(1, device="cuda"))),
        ("index_put_", lambda x, i: x.index_put_((i,), genesis.ones(1, device="cuda"), True)),
    ],
)
@requires_cuda
def test_the_error_names_the_op_and_writes_nothing(deferred, op, call):
    x = genesis.zeros(5, device="cuda")
    idx = genesis.tensor([7], device="cuda")
    call(x, idx)  # warm up: the first call may set things up
    genesis.cuda.set_sync_debug_mode("error")
    try:
        call(x, idx)  # never waits
    finally:
        genesis.cuda.set_sync_debug_mode("default")
    with expect_deferred(op=op):
        genesis.cuda.synchronize()
    assert x.tolist() == [0.0] * 5  # the bad index was never written


@requires_cuda
def test_a_checked_scatter_writes_nothing_but_later_ones_do(deferred):
    x = genesis.zeros(5, device="cuda")
    # One bad index among good ones: the whole scatter is dropped (NumPy leaves x unchanged).
    x[genesis.tensor([0, 7, 2], device="cuda")] = genesis.ones(3, device="cuda")
    # While that error is pending, a good scatter still writes.
    x[genesis.tensor([4], device="cuda")] = 5.0
    with expect_deferred():
        genesis.cuda.synchronize()
    assert x.tolist() == [0.0, 0.0, 0.0, 0.0, 5.0]


@requires_cuda
def test_a_stream_destroyed_before_any_wait(deferred):
    s = genesis.cuda.Stream()
    with genesis.cuda.stream(s):
        x = genesis.arange(5.0, device="cuda")
        idx = genesis.tensor([1, 7], device="cuda")
        y = x[idx]
    del s, y, x, idx
    gc.collect()
    with expect_deferred():
        genesis.cuda.synchronize()  # a device wait covers every stream


@requires_cuda
def test_an_error_from_another_thread_is_raised_at_this_threads_wait(deferred):
    done = threading.Event()

    def work():
        bad_gather()
        done.set()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert done.is_set()
    with expect_deferred():
        genesis.cuda.synchronize()


@requires_cuda
def test_threads_waiting_together_raise_it_once(deferred):
    bad_gather()
    raised, errors = [], []
    barrier = threading.Barrier(8)

    def wait():
        barrier.wait()
        try:
            genesis.cuda.synchronize()
        except IndexError as e:
            raised.append(str(e))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=wait) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(raised) == 1 and MESSAGE in raised[0]


@requires_cuda
def test_many_threads_with_bad_ops_each_error_raised_once(deferred):
    """Threads make bad and good gathers and wait: every IndexError raised names a real bad
    index, no good result is wrong, and at the end nothing is pending."""
    raised, wrong = [], []
    x = genesis.arange(100.0, device="cuda")

    def work(k):
        for r in range(20):
            bad = (k + r) % 3 == 0
            idx = genesis.tensor([k, 100 + k if bad else k], device="cuda")
            try:
                got = x[idx].tolist()
                if not bad and got != [float(k), float(k)]:
                    wrong.append((k, got))
            except IndexError as e:
                raised.append(str(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    genesis.cuda.synchronize()  # nothing left
    assert wrong == []
    assert raised, "some bad gathers were made"
    for m in raised:
        assert re.search(r"index 1\d\d is out of bounds for dimension 0 with size 100", m), m


# --- the immediate mode: today's behaviour --------------------------------------------------


@requires_cuda
def test_immediate_mode_raises_at_the_op(deferred):
    genesis.cuda.set_index_check("immediate")
    x = genesis.arange(5.0, device="cuda")
    with pytest.raises(IndexError) as e:
        x[genesis.tensor([1, 7], device="cuda")]
    assert str(e.value) == "[index] " + MESSAGE
    with pytest.raises(IndexError, match=r"^\[gather\] index 7 is out"):
        x.gather(0, genesis.tensor([7], device="cuda"))
    genesis.cuda.synchronize()  # nothing pending
    genesis.cuda.set_sync_debug_mode("error")
    with pytest.raises(RuntimeError, match=r"^\[index bounds check\] synchronizes the host"):
        x[genesis.tensor([1], device="cuda")]


@requires_cuda
def test_switching_to_immediate_raises_a_pending_error_at_the_next_check(deferred):
    bad_gather()
    genesis.cuda.set_index_check("immediate")
    x = genesis.arange(5.0, device="cuda")
    with pytest.raises(IndexError, match=re.escape(MESSAGE)):
        x[genesis.tensor([0], device="cuda")]  # waits, and finds the earlier error
    assert x[genesis.tensor([0], device="cuda")].tolist() == [0.0]


@requires_cuda
def test_many_errors_in_a_row_keep_the_device_usable(deferred):
    x = genesis.arange(5.0, device="cuda")
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = int(rng.integers(5, 1000))
        x[genesis.tensor([v], device="cuda")]
        with pytest.raises(IndexError, match=rf"index {v} is out of bounds"):
            genesis.cuda.synchronize()
    assert x[genesis.tensor([4, 0], device="cuda")].tolist() == [4.0, 0.0]


@pytest.mark.skipif(genesis.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_each_device_keeps_its_own_record(deferred):
    x = genesis.arange(5.0, device="cuda:1")
    x[genesis.tensor([1, 7], device="cuda:1")]
    genesis.cuda.synchronize(0)  # another device: nothing to raise
    genesis.zeros(2, device="cuda:0").tolist()
    with pytest.raises(IndexError, match=r"index 7 .* \(recorded on cuda:1, raised at synchronize"):
        genesis.cuda.synchronize(1)
    genesis.cuda.synchronize(1)


@requires_cuda
def test_the_memo_of_deferred_checks_lapses_when_an_error_is_raised(deferred):
    # Note [Validated index memo]: a view whose deferred check was launched is remembered in range
    # provisionally, until an index error is raised; a bad one is reported, then checked again.
    known = genesis._C._testing.index_known_in_range
    x = genesis.arange(5.0, device="cuda")
    good = genesis.tensor([4, 0, -5], device="cuda")
    assert not known(good, 5)
    np.testing.assert_array_equal(x[good].cpu().numpy(), [4.0, 0.0, 0.0])
    assert known(good, 5) and known(good, 6) and not known(good, 4)
    np.testing.assert_array_equal(x[good].cpu().numpy(), [4.0, 0.0, 0.0])  # skips the check
    bad = genesis.tensor([1, 7], device="cuda")
    for _ in range(3):  # reported at every wait after a use, the memo notwithstanding
        x[bad]
        assert known(bad, 5)  # provisional: the check has been launched
        x[bad]
        with expect_deferred():
            genesis.cuda.synchronize()
        assert not known(bad, 5) and not known(good, 5)  # every provisional memo lapsed
    good[0] = 9  # a write brings the check back, deferred or not
    x[good]
    with pytest.raises(IndexError, match=r"index 9 is out of bounds"):
        genesis.cuda.synchronize()
