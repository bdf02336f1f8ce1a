"""genesis.Generator, get_rng_state/set_rng_state/fork_rng, and the distributions: randperm,
multinomial, bernoulli, normal and the in-place fills. Checked for: the same numbers on CPU and
CUDA for a generator state, independent streams, state round trips, the moments of each
distribution on large draws, every dtype the fill accepts, and bad input.
"""

import math

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, check_message, dtype_id, to_numpy

import genesis

N = 200_000  # draws for the moment checks: the standard error of a mean is ~0.2% of sigma


def _gen(seed=123):
    return genesis.Generator().manual_seed(seed)


def test_generator_streams_are_independent_and_reproducible():
    a = genesis.rand(5, generator=_gen(1))
    b = genesis.rand(5, generator=_gen(1))
    c = genesis.rand(5, generator=_gen(2))
    assert genesis.equal(a, b) and not genesis.equal(a, c)
    genesis.manual_seed(1)  # the default generator seeded the same gives the same numbers
    assert genesis.equal(genesis.rand(5), a)
    g = _gen(1)
    first = genesis.randn(3, generator=g)
    second = genesis.randn(3, generator=g)  # the stream moves on
    assert not genesis.equal(first, second)
    genesis.manual_seed(9)
    before = genesis.rand(2)
    genesis.manual_seed(9)
    genesis.rand(7, generator=_gen(4))  # another generator leaves the default one alone
    assert genesis.equal(genesis.rand(2), before)
    assert (
        genesis.randint(0, 10, (4,), generator=_gen(3)).tolist()
        == genesis.randint(0, 10, (4,), generator=_gen(3)).tolist()
    )


def test_state_round_trips():
    g = _gen(5)
    genesis.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype is genesis.uint8 and state.shape == (16,)
    a = genesis.rand(4, generator=g)
    assert genesis.equal(genesis.rand(4, generator=g.set_state(state)), a)
    assert genesis.Generator().set_state(state).initial_seed() == 5
    saved = genesis.get_rng_state()
    x = genesis.rand(3)
    genesis.set_rng_state(saved)
    assert genesis.equal(genesis.rand(3), x)
    saved = genesis.get_rng_state()
    with genesis.fork_rng():
        genesis.rand(100)
    y = genesis.rand(3)
    genesis.set_rng_state(saved)
    assert genesis.equal(genesis.rand(3), y)
    assert genesis.default_generator.initial_seed() == genesis.initial_seed()
    assert genesis.Generator("cpu").device == genesis.device("cpu")


def test_bad_generators_and_states():
    with pytest.raises(TypeError) as e:
        genesis.rand(2, generator="g")
    check_message(e, "rand")
    for bad, exc in [
        (genesis.zeros(16), TypeError),
        (genesis.zeros(15, dtype=genesis.uint8), ValueError),
        (genesis.zeros(2, 8, dtype=genesis.uint8), ValueError),
    ]:
        with pytest.raises(exc) as e:
            genesis.Generator().set_state(bad)
        check_message(e, "set_state")
        with pytest.raises(exc) as e:
            genesis.set_rng_state(bad)
        check_message(e, "set_rng_state")


FILLS = [
    ("uniform_", (-2.0, 3.0), lambda a: (a.mean(), 0.5, 0.02)),
    ("normal_", (1.5, 2.0), lambda a: (a.std(), 2.0, 0.02)),
    ("exponential_", (2.0,), lambda a: (a.mean(), 0.5, 0.01)),
    ("geometric_", (0.25,), lambda a: (a.mean(), 4.0, 0.05)),
    ("log_normal_", (0.5, 0.25), lambda a: (np.median(a), math.exp(0.5), 0.02)),
    ("cauchy_", (3.0, 0.5), lambda a: (np.median(a), 3.0, 0.02)),
    ("bernoulli_", (0.3,), lambda a: (a.mean(), 0.3, 0.01)),
]


@pytest.mark.parametrize("name, args, moment", FILLS, ids=[f[0] for f in FILLS])
def test_fill_moments_and_devices(device, name, args, moment):
    x = genesis.empty(N, dtype=genesis.float64, device=device)
    assert getattr(x, name)(*args, generator=_gen()) is x
    got, want, tol = moment(to_numpy(x))
    assert abs(got - want) < tol, (name, got, want)
    cpu = getattr(genesis.empty(N, dtype=genesis.float64), name)(*args, generator=_gen())
    # The same stream on any device; CUDA's float64 log/exp/sin/cos may differ from the C
    # library's in the last bits, as for randn.
    np.testing.assert_allclose(to_numpy(x), to_numpy(cpu), rtol=1e-9, atol=1e-12)
    if name == "uniform_":
        a = to_numpy(x)
        assert a.min() >= -2.0 and a.max() < 3.0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_fills_keep_dtype_and_layout(device, dtype):
    base = genesis.zeros(6, 8, dtype=dtype, device=device)
    view = base[:, ::2]  # a non-contiguous target: only its items change
    view.uniform_(1.0, 2.0, generator=_gen())
    a = to_numpy(base)
    assert (a[:, ::2] >= 1.0).all() and (a[:, ::2] <= 2.0).all() and (a[:, 1::2] == 0).all()
    assert view.dtype is dtype
    view.normal_()
    view.exponential_()
    view.log_normal_()
    view.cauchy_()
    view.geometric_(0.5)
    view.bernoulli_(genesis.full((6, 4), 0.5, device=device))
    view.random_(10)
    assert set(np.unique(to_numpy(view))) <= set(range(10))


def test_random_ranges(device):
    for dtype, lo, hi in [
        (genesis.int64, -5, 5),
        (genesis.uint8, 0, 256),
        (genesis.float32, 0, 100),
        (genesis.int8, -128, 128),
    ]:
        x = genesis.empty(10_000, dtype=dtype, device=device).random_(lo, hi, generator=_gen())
        a = to_numpy(x)
        assert a.min() >= lo and a.max() < hi and len(np.unique(a)) > min(hi - lo, 100) // 2
    assert to_numpy(genesis.empty(1000, dtype=genesis.int16, device=device).random_()).min() >= 0
    b = genesis.empty(1000, dtype=genesis.bool, device=device).random_()
    assert 300 < int(b.sum()) < 700


def test_randperm(device):
    for n in (0, 1, 7, 1000):
        p = genesis.randperm(n, generator=_gen(), device=device)
        assert p.dtype is genesis.int64 and p.device.type == device
        assert sorted(p.tolist()) == list(range(n))
    assert (
        genesis.randperm(50, generator=_gen()).tolist()
        == genesis.randperm(50, generator=_gen(), device=device).tolist()
    )
    assert genesis.randperm(10, dtype=genesis.float32).dtype is genesis.float32
    with pytest.raises(ValueError) as e:
        genesis.randperm(-1)
    check_message(e, "randperm")


def test_multinomial(device):
    w = genesis.tensor([[0.0, 1.0, 3.0, 0.0], [2.0, 2.0, 0.0, 4.0]], device=device)
    draws = genesis.multinomial(w, 20_000, replacement=True, generator=_gen())
    assert draws.shape == (2, 20_000) and draws.dtype is genesis.int64
    for row, probs in zip(to_numpy(draws), ([0, 0.25, 0.75, 0], [0.25, 0.25, 0, 0.5])):
        freq = np.bincount(row, minlength=4) / row.size
        np.testing.assert_allclose(freq, probs, atol=0.015)
    once = genesis.multinomial(w, 2, generator=_gen())
    assert sorted(to_numpy(once)[0].tolist()) == [1, 2]
    assert len(set(to_numpy(once)[1].tolist())) == 2 and 2 not in to_numpy(once)[1]
    # Without replacement the first draw follows the weights.
    firsts = [
        genesis.multinomial(genesis.tensor([1.0, 3.0], device=device), 1, generator=_gen(s)).item()
        for s in range(400)
    ]
    assert 0.65 < np.mean(firsts) < 0.85
    cpu = genesis.multinomial(w.cpu(), 3, replacement=True, generator=_gen())
    assert genesis.equal(cpu, genesis.multinomial(w, 3, replacement=True, generator=_gen()).cpu())
    for bad, kwargs in [
        (genesis.tensor([1.0, -1.0]), {}),
        (genesis.tensor([0.0, 0.0]), {}),
        (genesis.tensor([1.0, float("nan")]), {}),
        (genesis.tensor([1.0, float("inf")]), {}),
        (genesis.tensor([1.0, 0.0]), {"num_samples": 2}),
        (genesis.tensor([1.0, 1.0]), {"num_samples": 3}),
        (genesis.tensor([1.0, 1.0]), {"num_samples": 0}),
    ]:
        n = kwargs.get("num_samples", 1)
        with pytest.raises(ValueError) as e:
            genesis.multinomial(bad.to(device), n)
        check_message(e, "multinomial")
    with pytest.raises(TypeError) as e:
        genesis.multinomial(genesis.tensor([1, 2], device=device), 1)
    check_message(e, "multinomial")


def test_bernoulli_and_normal(device):
    p = genesis.full((N,), 0.2, dtype=genesis.float64, device=device)
    b = genesis.bernoulli(p, generator=_gen())
    assert b.dtype is genesis.float64 and abs(to_numpy(b).mean() - 0.2) < 0.01
    assert genesis.equal(p.bernoulli(generator=_gen()).cpu(), b.cpu())
    mean = genesis.tensor([0.0, 100.0], device=device)
    assert genesis.normal(mean, 0.0).tolist() == [0.0, 100.0]
    z = genesis.normal(genesis.zeros(N, device=device), genesis.full((N,), 3.0, device=device))
    assert abs(to_numpy(z).std() - 3.0) < 0.05
    n = genesis.normal(2.0, 0.5, size=(N,), generator=_gen(), device=device)
    assert n.dtype is genesis.float32 and abs(to_numpy(n).mean() - 2.0) < 0.01
    assert genesis.normal(1.0, genesis.ones(3, device=device)).shape == (3,)
    with pytest.raises(TypeError) as e:
        genesis.normal(0.0, 1.0)
    check_message(e, "normal")


def test_bad_fill_parameters(device):
    x = genesis.empty(4, device=device)
    for call, exc in [
        (lambda: x.uniform_(2.0, 1.0), ValueError),
        (lambda: x.normal_(0.0, -1.0), ValueError),
        (lambda: x.exponential_(0.0), ValueError),
        (lambda: x.geometric_(1.5), ValueError),
        (lambda: x.log_normal_(0.0, 0.0), ValueError),
        (lambda: x.cauchy_(0.0, -1.0), ValueError),
        (lambda: x.bernoulli_(1.5), ValueError),
        (lambda: x.random_(5, 5), ValueError),
        (lambda: genesis.empty(4, dtype=genesis.int32, device=device).uniform_(), TypeError),
    ]:
        with pytest.raises(exc) as e:
            call()
        assert str(e.value).startswith("["), e.value
