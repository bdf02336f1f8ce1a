"""Two GPUs in one process: ops on cuda:1 while cuda:0 is current, copies between the GPUs in
every layout, per-device pools and statistics, and two threads each loading its own device.
Skipped on machines with fewer than two GPUs."""

import threading

import numpy as np
import pytest
from conftest import DTYPES, check_message

import genesis

pytestmark = pytest.mark.skipif(genesis.cuda.device_count() < 2, reason="needs two CUDA devices")


def rand(*shape, device="cuda:1", seed=0):
    rng = np.random.default_rng(seed)
    return genesis.tensor(rng.standard_normal(shape).astype(np.float32), device=device)


def settle():
    for d in (0, 1):
        genesis.cuda.synchronize(d)


OPS_ON_DEVICE_1 = {
    "add": lambda x: x + x * 2,
    "exp": lambda x: x.exp(),
    "sum": lambda x: x.sum(1),
    "mean": lambda x: x.mean(),
    "max": lambda x: x.max(0).values,
    "argmax": lambda x: x.argmax(1),
    "matmul": lambda x: x @ x.t(),
    "softmax": lambda x: genesis.softmax(x, 1),
    "sort": lambda x: x.sort(1).values,
    "topk": lambda x: x.topk(3, 1).values,
    "cumsum": lambda x: x.cumsum(0),
    "index": lambda x: x[genesis.tensor([2, 0, 1], device=x.device)],
    "mask": lambda x: x[x > 0],
    "setitem": lambda x: x.clone().index_fill_(0, genesis.tensor([1], device=x.device), 5.0),
    "gather": lambda x: x.gather(
        1, genesis.zeros(x.shape[0], 2, dtype=genesis.int64, device=x.device)
    ),  # fmt: skip
    "scatter_add": lambda x: genesis.zeros(4, 6, device=x.device).scatter_add(
        0, genesis.zeros(x.shape, dtype=genesis.int64, device=x.device), x
    ),
    "where": lambda x: genesis.where(x > 0, x, -x),
    "cat": lambda x: genesis.cat([x, x * 3]),
    "nonzero": lambda x: (x > 0).nonzero(),
    "unique": lambda x: genesis.unique((x * 2).round()),
    "einsum": lambda x: genesis.einsum("ij,kj->ik", x, x),
    "transpose_copy": lambda x: x.t().contiguous(),
    "cast": lambda x: x.double().half(),
    "solve": lambda x: genesis.linalg.solve(
        x[:, :4] + 4 * genesis.eye(4, device=x.device), x[:, 4:]
    ),
    "norm": lambda x: genesis.linalg.vector_norm(x, dim=1),
}


@pytest.mark.parametrize("name", sorted(OPS_ON_DEVICE_1))
def test_op_on_device_1_lands_there(name):
    genesis.cuda.set_device(0)
    x = rand(4, 6)
    settle()
    before = genesis.cuda.memory_allocated(0)
    got = OPS_ON_DEVICE_1[name](x)
    assert got.device == genesis.device("cuda:1"), name
    assert genesis.cuda.current_device() == 0
    want = OPS_ON_DEVICE_1[name](x.cpu())
    np.testing.assert_allclose(
        got.cpu().double().numpy(), want.double().numpy(), rtol=1e-3, atol=1e-3
    )
    settle()
    assert genesis.cuda.memory_allocated(0) == before  # nothing landed on cuda:0


def test_random_and_factories_on_device_1():
    genesis.cuda.set_device(0)
    for make in (
        lambda: genesis.randn(100, device="cuda:1"),
        lambda: genesis.rand(100, device="cuda:1"),
        lambda: genesis.zeros(100, device="cuda:1"),
        lambda: genesis.arange(100, device="cuda:1"),
        lambda: genesis.full((100,), 3.0, device="cuda:1"),
    ):
        t = make()
        assert t.device == genesis.device("cuda:1")
        assert np.isfinite(t.cpu().double().numpy()).all()
    assert genesis.cuda.current_device() == 0


def test_ops_under_device_1_as_current():
    with genesis.cuda.device(1):
        x = genesis.ones(8, device="cuda")
        assert x.device == genesis.device("cuda:1")
        y = genesis.ones(8, device="cuda:0") * 2
        assert y.device == genesis.device("cuda:0")
        assert genesis.cuda.current_device() == 1
    assert genesis.cuda.current_device() == 0
    assert (x + 1).sum().item() == 16 and y.sum().item() == 16


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a @ b,
        lambda a, b: genesis.cat([a, b]),
        lambda a, b: genesis.where(a > 0, a, b),
        lambda a, b: genesis.einsum("ij,ij->i", a, b),
    ],
)
def test_mixed_devices_raise_naming_both(op):
    a, b = rand(3, 3, device="cuda:0"), rand(3, 3, device="cuda:1")
    with pytest.raises((RuntimeError, ValueError)) as e:
        op(a, b)
    check_message(e)
    assert "cuda:0" in str(e.value) and "cuda:1" in str(e.value), str(e.value)


def layouts(dtype):
    rng = np.random.default_rng(3)
    base = genesis.tensor((rng.standard_normal((6, 8)) * 10).astype(np.float32)).to(dtype)
    return {
        "contiguous": lambda d: base.to(d),
        "transposed": lambda d: base.to(d).t(),
        "sliced": lambda d: base.to(d)[1:5, ::3],
        "reversed": lambda d: base.to(d).flip(0),
        "expanded": lambda d: base.to(d)[:1].expand(4, 8),
        "zero_dim": lambda d: base.to(d)[2, 3],
        "zero_size": lambda d: base.to(d)[:0],
    }


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "reversed", "expanded",
                                    "zero_dim", "zero_size"])  # fmt: skip
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_peer_copy_every_layout(layout, dtype):
    make = layouts(dtype)[layout]
    want = make("cpu")
    for src, dst in (("cuda:0", "cuda:1"), ("cuda:1", "cuda:0")):
        x = make(src)
        y = x.to(dst)
        assert y.device == genesis.device(dst)
        assert genesis.equal(y.cpu(), want)
        # Into an existing strided destination, with a cast.
        z = genesis.zeros(tuple(reversed(want.shape)), dtype=genesis.float64, device=dst)
        z = z.t() if z.dim() == 2 else z.reshape(want.shape)
        z.copy_(x)
        assert genesis.equal(z.cpu(), want.double())


def test_peer_copy_follows_queued_work_without_sync():
    # The copy must wait for the kernel still queued on cuda:0's stream, and the next op on
    # cuda:1 for the copy: no host synchronisation in between.
    x = genesis.ones(1 << 24, device="cuda:0")
    for _ in range(5):
        x = x * 1.5
    y = x.to("cuda:1") + 1
    assert y[-1].item() == 1.5**5 + 1
    assert y.sum().item() == pytest.approx((1.5**5 + 1) * (1 << 24), rel=1e-6)


def test_peer_copy_on_side_streams():
    s0, s1 = genesis.cuda.Stream(device=0), genesis.cuda.Stream(device=1)
    with genesis.cuda.stream(s0):
        x = genesis.arange(1 << 20, dtype=genesis.float32, device="cuda:0") * 2
    with genesis.cuda.stream(s1):
        dst = genesis.empty(1 << 20, device="cuda:1")
    with genesis.cuda.stream(s0), genesis.cuda.stream(s1):
        dst.copy_(x)
        total = dst.sum()
    assert total.item() == float(np.arange(1 << 20, dtype=np.float64).sum() * 2)


def test_can_device_access_peer():
    assert genesis.cuda.can_device_access_peer(0, 0) is False
    assert isinstance(genesis.cuda.can_device_access_peer(0, 1), bool)
    with pytest.raises((RuntimeError, ValueError)):
        genesis.cuda.can_device_access_peer(0, 64)


def test_memory_statistics_are_per_device():
    settle()
    genesis.cuda.empty_cache()
    base0, base1 = genesis.cuda.memory_allocated(0), genesis.cuda.memory_allocated(1)
    x = genesis.empty(1 << 20, device="cuda:1")
    assert genesis.cuda.memory_allocated(1) == base1 + (4 << 20)
    assert genesis.cuda.memory_allocated(0) == base0
    assert genesis.cuda.memory_stats(1)["allocated_bytes.all.current"] == base1 + (4 << 20)
    del x
    assert genesis.cuda.memory_allocated(1) == base1
    reserved0 = genesis.cuda.memory_reserved(0)
    genesis.cuda.empty_cache()
    assert genesis.cuda.memory_reserved(0) <= reserved0


def test_two_threads_each_loading_its_own_device():
    errors = []

    def work(device):
        try:
            for i in range(200):
                a = genesis.full((1000 + i,), float(device + 1), device=f"cuda:{device}")
                b = (a * 2).sum().item()
                assert b == 2.0 * (device + 1) * (1000 + i)
                c = a.to(f"cuda:{1 - device}")
                assert c.device == genesis.device(f"cuda:{1 - device}")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    settle()
