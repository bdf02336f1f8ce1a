"""Note [Write versions] and Note [Validated index memo]: a CUDA gather or scatter through a GPU
index tensor waits for the device's bounds check only until a check of the same, unwritten view
has passed (under the immediate index check: a deferred one never waits); every way of writing
the index (or handing its memory out) must bring the check back, so an out-of-range value
written later still raises IndexError."""

import numpy as np
import pytest
from conftest import DEVICES, requires_cuda

import genesis

testing = genesis._C._testing


@pytest.fixture(autouse=True)
def _immediate_index_check():
    """The memo saves the waits of immediate checks; deferred ones never wait (Note [Deferred
    index errors] in csrc/core/index_check.h)."""
    genesis.cuda.set_index_check("immediate")
    yield
    genesis.cuda.set_index_check("deferred")


def version(t):
    return testing.write_version(t)


# Each writes 10**6 (out of range for every tensor below) into idx[1], through a different path.
def _setitem(i):
    i[1] = 10**6


def _slice_copy(i):
    i[1:2] = genesis.tensor([10**6], device=i.device)


def _view_write(i):
    i.view(2, 2)[0, 1] = 10**6


def _iadd(i):
    i += genesis.tensor([0, 10**6, 0, 0], device=i.device)


def _add_(i):
    i[1:2].add_(10**6)


def _copy_(i):
    i.copy_(genesis.tensor([0, 10**6, 0, 0]))


def _fill_(i):
    i.fill_(10**6)


def _mask_fill(i):
    i[genesis.tensor([False, True, False, False], device=i.device)] = 10**6


def _scatter(i):
    i[genesis.tensor([1], device=i.device)] = genesis.tensor([10**6], device=i.device)


def _storage_copy(i):
    i.untyped_storage().copy_(genesis.tensor([0, 10**6, 0, 0], device=i.device).untyped_storage())


WRITES = [
    _setitem,
    _slice_copy,
    _view_write,
    _iadd,
    _add_,
    _copy_,
    _fill_,
    _mask_fill,
    _scatter,
    _storage_copy,
]
WRITE_IDS = [w.__name__.strip("_") for w in WRITES]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("write", WRITES, ids=WRITE_IDS)
def test_every_write_counts_a_version(device, write):
    idx = genesis.tensor([3, 1, 4, 1], device=device)
    before = version(idx)
    write(idx)
    assert version(idx) > before
    assert idx.cpu().tolist()[1] >= 10**6


@pytest.mark.parametrize("device", DEVICES)
def test_fresh_tensors_are_not_shared(device):
    t = genesis.arange(8, device=device)
    assert not testing.is_shared(t)
    assert not testing.is_shared(t + 1)


@pytest.mark.parametrize("device", DEVICES)
def test_handing_the_address_out_marks_shared(device):
    t = genesis.arange(8, device=device)
    t.data_ptr()
    assert testing.is_shared(t)
    u = genesis.arange(8, device=device)
    u.untyped_storage().data_ptr()
    assert testing.is_shared(u[2:])  # views share the storage, and so the mark
    v = genesis.arange(8, device=device)
    v.__dlpack__()
    assert testing.is_shared(v)


# Each only reads idx (Tensor::data(), not mutable_data()): none may count a write version, so
# reading an index tensor keeps what is known about it.
READS = {
    "item": lambda i: i[0].item(),
    "tolist": lambda i: i.tolist(),
    "repr": repr,
    "str": str,
    "sum": lambda i: i.sum(),
    "add": lambda i: i + 1,
    "compare": lambda i: i < 2,
    "clone": lambda i: i.clone(),
    "contiguous_copy": lambda i: i[::2].contiguous(),
    "cast": lambda i: i.to(genesis.float32),
    "cpu": lambda i: i.cpu(),
    "gather_from": lambda i: i[genesis.tensor([0, 2], device=i.device)],
    "as_index": lambda i: genesis.zeros(10, device=i.device)[i],
    "as_mask_source": lambda i: genesis.zeros(4, device=i.device)[i > 1],
    "matmul": lambda i: i.to(genesis.float32).view(2, 2) @ i.to(genesis.float32).view(2, 2),
    "cat": lambda i: genesis.cat([i, i]),
    "max": lambda i: i.max(dim=0),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("read", list(READS.values()), ids=list(READS))
def test_reads_count_no_version(device, read):
    idx = genesis.tensor([3, 1, 4, 1], device=device)
    before = version(idx)
    read(idx)
    assert version(idx) == before


def test_numpy_exchange_marks_shared():
    t = genesis.arange(8)
    t.numpy()
    assert testing.is_shared(t)
    assert testing.is_shared(genesis.from_numpy(np.arange(4)))
    assert testing.is_shared(genesis.from_dlpack(np.arange(4)))


# --- the memo on CUDA ----------------------------------------------------------------------


def _waits():
    return testing.index_check_waits()


def _x(n=1000):
    rng = np.random.default_rng(7)
    a = rng.random((n, 3), dtype=np.float32)
    return a, genesis.tensor(a, device="cuda")


@requires_cuda
def test_repeated_gather_checks_once():
    a, x = _x()
    idx_np = np.array([5, -1, 999, 0])
    idx = genesis.tensor(idx_np, device="cuda")
    np.testing.assert_array_equal(x[idx].cpu().numpy(), a[idx_np])
    w = _waits()
    for _ in range(3):
        np.testing.assert_array_equal(x[idx].cpu().numpy(), a[idx_np])
    assert _waits() == w  # the memo held: no wait
    # A larger dim is covered by the same check; a smaller one is checked again.
    big = genesis.zeros(5000, device="cuda")
    big[idx]
    assert _waits() == w
    small = genesis.zeros(10, device="cuda")
    with pytest.raises(IndexError, match="index 999 is out of bounds"):
        small[idx]
    assert _waits() == w + 1


@requires_cuda
@pytest.mark.parametrize("write", WRITES, ids=WRITE_IDS)
def test_gather_after_a_write_checks_again(write):
    a, x = _x()
    idx = genesis.tensor([3, 1, 4, 1], device="cuda")
    x[idx]
    x[idx]  # memo in place
    write(idx)
    with pytest.raises(IndexError, match="out of bounds"):
        x[idx]
    # The device stays usable and a good index works again.
    idx.copy_(genesis.tensor([2, 0, 1, 2]))
    np.testing.assert_array_equal(x[idx].cpu().numpy(), a[[2, 0, 1, 2]])


@requires_cuda
@pytest.mark.parametrize("write", WRITES, ids=WRITE_IDS)
def test_scatter_after_a_write_checks_again_and_leaves_dst(write):
    a, x = _x()
    idx = genesis.tensor([3, 1, 4, 1], device="cuda")
    v = genesis.tensor(np.full((4, 3), 2.5, np.float32), device="cuda")
    x[idx] = v
    x[idx] = v  # memo in place
    expect = a.copy()
    expect[[3, 1, 4, 1]] = 2.5
    write(idx)
    with pytest.raises(IndexError, match="out of bounds"):
        x[idx] = v
    np.testing.assert_array_equal(x.cpu().numpy(), expect)  # unchanged by the failed scatter


@requires_cuda
def test_views_of_one_index_storage_are_checked_apart():
    a, x = _x(10)
    base = genesis.tensor([1, 2, 3, 50], device="cuda")
    head = base[:3]
    np.testing.assert_array_equal(x[head].cpu().numpy(), a[[1, 2, 3]])
    with pytest.raises(IndexError, match="index 50"):
        x[base]  # same storage, another view: its own check
    np.testing.assert_array_equal(x[head].cpu().numpy(), a[[1, 2, 3]])


@requires_cuda
def test_shared_index_is_checked_every_time():
    _, x = _x()
    idx = genesis.tensor([1, 2], device="cuda")
    idx.data_ptr()  # anyone may write it now
    x[idx]
    w = _waits()
    x[idx]
    assert _waits() == w + 1


@requires_cuda
def test_index_written_by_torch_through_dlpack_raises():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    _, x = _x()
    idx = genesis.tensor([1, 2, 3], device="cuda")
    x[idx]
    shared = torch.from_dlpack(idx)
    x[idx]
    shared[0] = 10**6
    with pytest.raises(IndexError, match="index 1000000"):
        x[idx]


@requires_cuda
@pytest.mark.parametrize("read", list(READS.values()), ids=list(READS))
def test_a_read_index_is_not_checked_again(read):
    _, x = _x()
    idx = genesis.tensor([1, 2, 3, 4], device="cuda")
    x[idx]
    read(idx)  # may wait for indices of its own (gather_from, as_index)
    w = _waits()
    x[idx]
    assert _waits() == w


@requires_cuda
def test_reading_an_index_keeps_its_memo():
    _, x = _x()
    idx = genesis.tensor([1, 2, 3], device="cuda")
    x[idx]
    before = version(idx)
    x[idx]
    y = genesis.zeros(1000, 3, device="cuda")
    y[idx] = genesis.ones(3, 3, device="cuda")
    assert version(idx) == before
