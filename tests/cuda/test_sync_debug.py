"""genesis.cuda.set_sync_debug_mode (Note [Sync debug mode]): the waits an operation makes for
the GPU on the caller's behalf warn or raise; explicit synchronization and queued work do not;
bad modes raise ValueError."""

import warnings

import numpy as np
import pytest
from conftest import requires_cuda

import genesis


@pytest.fixture
def mode():
    """Sets a mode for the test and puts 'default' back afterwards, whatever happens."""
    yield genesis.cuda.set_sync_debug_mode
    genesis.cuda.set_sync_debug_mode("default")


@pytest.mark.parametrize("value, code", [("default", 0), ("warn", 1), ("error", 2), (1, 1), (2, 2)])
def test_modes_by_name_and_number(mode, value, code):
    mode(value)
    assert genesis.cuda.get_sync_debug_mode() == code


@pytest.mark.parametrize("bad", ["loud", "", None, 3, -1, True, 1.0])
def test_bad_modes_raise(mode, bad):
    mode("warn")
    with pytest.raises(ValueError, match=r"^\[set_sync_debug_mode\]"):
        genesis.cuda.set_sync_debug_mode(bad)
    assert genesis.cuda.get_sync_debug_mode() == 1  # unchanged


def test_cpu_work_never_reports(mode):
    mode("error")
    x = genesis.arange(6.0)
    assert x[x > 2].tolist() == [3.0, 4.0, 5.0] and x.sum().item() == 15.0


def _waits():
    """(name, call) of operations that wait for the device, on fresh CUDA tensors."""
    x = genesis.arange(8.0, device="cuda")
    idx = genesis.tensor([1, 3], device="cuda")
    return [
        ("item", lambda: x.sum().item()),
        ("tolist", lambda: x.tolist()),
        ("cpu", lambda: x.cpu()),
        ("numpy", lambda: x.cpu().numpy()),
        ("mask get", lambda: x[x > 3]),
        ("nonzero", lambda: genesis.nonzero(x)),
        ("index tensor", lambda: x[idx]),
    ]


@requires_cuda
def test_error_mode_raises_before_each_wait(mode):
    names = []
    genesis.cuda.set_index_check("immediate")  # an index tensor's check waits only then
    try:
        for name, call in _waits():
            mode("error")
            with pytest.raises(RuntimeError, match=r"synchronizes the host with cuda:\d+"):
                call()
            mode("default")
            call()  # still works afterwards: nothing was left half done
            names.append(name)
    finally:
        genesis.cuda.set_index_check("deferred")
    assert len(names) == 7


@requires_cuda
def test_warn_mode_warns_and_goes_on(mode):
    x = genesis.arange(8.0, device="cuda")
    mode("warn")
    with pytest.warns(UserWarning, match=r"^\[copy\] synchronizes the host with cuda:\d+"):
        assert x.sum().item() == 28.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            x.tolist()  # a filter that turns the warning into an error raises from the op


@requires_cuda
def test_queued_work_and_explicit_waits_never_report(mode):
    mode("error")
    x = genesis.arange(1000.0, device="cuda")
    y = (x * 2 + 1).sum(0)
    z = genesis.where(x > 3, x, 0.0).cumsum(0)
    x.add_(1)
    idx = genesis.arange(3, device="cuda")
    w = x[idx]  # the deferred index check (Note [Deferred index errors]) never waits
    x[idx] = w
    genesis.cuda.synchronize()
    genesis.cuda.current_stream().synchronize()
    e = genesis.cuda.Event()
    e.record()
    e.synchronize()
    mode("default")
    assert y.item() == 1000.0 * 999 + 1000 and z.shape == (1000,)
    np.testing.assert_array_equal(x.cpu().numpy(), np.arange(1000.0) + 1)


@requires_cuda
def test_default_mode_reports_nothing(mode):
    mode("default")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _, call in _waits():
            call()
