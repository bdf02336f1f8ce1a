"""The accumulating index family (csrc/ops/index_reduce.cpp, Note [Accumulating index ops] and
Note [Accumulating scatters]) against PyTorch on the CPU from the same NumPy data: scatter_add,
scatter(reduce="add"/"multiply"), scatter_reduce, index_add, index_reduce and put, as genesis.X,
Tensor.X and the in-place Tensor.X_, over every dtype PyTorch defines each for, with many
duplicate indices, negative dims, 0-d and zero-size inputs, non-contiguous self, index and
source, out=, NaN, integer wrapping, and bad input (out-of-range and wrong-dtype indices, shapes,
read-only and expanded targets).

The float data are small integers (and products of powers of two), so every sum and product is
exact in every dtype and the comparisons can be exact although CUDA adds in any order; one test
uses general float data with a tolerance.
"""

import numpy as np
import pytest
from conftest import DEVICES, check_message, raises_index_error, random_array, to_numpy
from hypothesis import given, settings
from hypothesis import strategies as st

import genesis

torch = pytest.importorskip("torch")

# PyTorch warns that scatter(reduce=) with a tensor and index_reduce are deprecated / beta.
pytestmark = pytest.mark.filterwarnings("ignore:.*(deprecated|beta).*:UserWarning")

B, U8, I8, I16 = genesis.bool, genesis.uint8, genesis.int8, genesis.int16
I32, I64, F16, BF16 = genesis.int32, genesis.int64, genesis.float16, genesis.bfloat16
F32, F64 = genesis.float32, genesis.float64
FLOATS = (F16, BF16, F32, F64)

TORCH_DTYPE = {
    B: torch.bool,
    U8: torch.uint8,
    I8: torch.int8,
    I16: torch.int16,
    I32: torch.int32,
    I64: torch.int64,
    F16: torch.float16,
    BF16: torch.bfloat16,
    F32: torch.float32,
    F64: torch.float64,
}
GENESIS_DTYPE = {v: k for k, v in TORCH_DTYPE.items()}

SHAPE = (4, 5, 6)
DIMS = [0, 1, 2, -1, -2, -3]
SCATTER_REDUCES = ["sum", "prod", "mean", "amax", "amin"]
INDEX_REDUCES = ["prod", "mean", "amax", "amin"]


# ---- helpers ------------------------------------------------------------------------------


def G(a, dt, device):
    return genesis.tensor(np.asarray(a), dtype=dt, device=device)


def T(a, dt=None):
    t = torch.from_numpy(np.array(a, copy=True, order="C"))
    return t if dt is None else t.to(TORCH_DTYPE[dt])


def GI(a, device, dt=I64):
    return genesis.tensor(np.asarray(a), dtype=dt, device=device)


def assert_same(got, want):
    """got (genesis) has want's (torch) dtype, shape and values; NaN equals NaN."""
    assert isinstance(got, genesis.Tensor), type(got)
    assert got.dtype is GENESIS_DTYPE[want.dtype], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    ref = (want.float() if want.dtype == torch.bfloat16 else want).numpy()
    np.testing.assert_array_equal(to_numpy(got), ref)


def small(shape, dt, seed, reduce="sum"):
    """Random values whose sums and products are exact in dt: small integers for sums, max and
    min; +-1, +-2 and 0.5 for products (floats), 1..3 and -1 for integer products (which wrap
    as in PyTorch in any order)."""
    rng = np.random.default_rng(seed)
    if dt is B:
        return rng.random(shape) < 0.5
    if reduce == "prod":
        pool = [-2.0, -1.0, 0.5, 1.0, 2.0] if dt in FLOATS else [1, 2, 3, -1]
        if dt is U8:
            pool = [1, 2, 3]
        return np.asarray(rng.choice(pool, size=shape))
    low = 0 if dt is U8 else -8
    a = rng.integers(low, 9, size=shape)
    return a.astype(np.float64) if dt in FLOATS else a


def rand_index(shape, high, seed, low=0):
    """Random int64 indices in [low, high): with more entries than high, many duplicates."""
    return np.random.default_rng(seed).integers(low, high, size=shape, dtype=np.int64)


def index_shape(dim, n_dim, base=(3, 4, 5)):
    """An index shape no larger than SHAPE except along dim, where it is n_dim long."""
    s = list(base)
    s[dim] = n_dim
    return tuple(s)


def strided(a, dt, device):
    """A non-contiguous genesis view (dims 0 and -1 swapped) holding NumPy array a's values."""
    if a.ndim < 2:
        base = np.zeros(a.shape[0] * 2, dtype=a.dtype)
        base[::2] = a
        v = G(base, dt, device)[::2]
    else:
        v = G(np.ascontiguousarray(a.swapaxes(0, -1)), dt, device).transpose(0, -1)
    assert not v.is_contiguous() and tuple(v.shape) == a.shape
    return v


def raises_on(device, exc, fn):
    with pytest.raises(exc) as e:
        fn()
        if device == "cuda":
            genesis.cuda.synchronize()
    return e


def check_writer(excinfo, op):
    msg = str(excinfo.value)
    assert msg.startswith((f"[{op}]", f"[{op.rstrip('_')}_]")), msg


# ---- scatter_add and scatter(reduce=) ----------------------------------------------------------


def test_scatter_add(device, dtype):
    a = small(SHAPE, dtype, 1)
    x, tx = G(a, dtype, device), T(a, dtype)
    for k, dim in enumerate(DIMS):
        ishape = index_shape(dim, 12)  # 12 entries along a dim of 4..6: many duplicates
        i = rand_index(ishape, SHAPE[dim], 10 + k)
        s = small((5, 6, 7) if dim % 3 != 0 else (12, 6, 7), dtype, 20 + k)
        if dim % 3 == 1:
            s = small((4, 12, 7), dtype, 20 + k)
        elif dim % 3 == 2:
            s = small((4, 5, 12), dtype, 20 + k)
        want = torch.scatter_add(tx, dim, T(i), T(s, dtype))
        gi, gs = GI(i, device), G(s, dtype, device)
        assert_same(genesis.scatter_add(x, dim, gi, gs), want)
        assert_same(x.scatter_add(dim, gi, gs), want)
        assert_same(genesis.scatter_add(input=x, dim=dim, index=gi, src=gs), want)
        y = x.clone()
        assert y.scatter_add_(dim, gi, gs) is y
        assert_same(y, want)
    assert_same(x, tx)  # the input is left alone


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_with_reduce(device, dtype, reduce):
    r = "prod" if reduce == "multiply" else "sum"
    a = small(SHAPE, dtype, 2, r)
    x, tx = G(a, dtype, device), T(a, dtype)
    for k, dim in enumerate([0, -1]):
        i = rand_index(index_shape(dim, 9), SHAPE[dim], 30 + k)
        s = small(i.shape, dtype, 40 + k, r)
        gi, gs = GI(i, device), G(s, dtype, device)
        want = torch.scatter(tx, dim, T(i), T(s, dtype), reduce=reduce)
        assert_same(genesis.scatter(x, dim, gi, gs, reduce=reduce), want)
        assert_same(x.scatter(dim, gi, gs, reduce=reduce), want)
        y = x.clone()
        assert y.scatter_(dim, gi, gs, reduce=reduce) is y
        assert_same(y, want)
        # A number: combined once per index entry.
        v = True if dtype is B else 2
        want = tx.clone().scatter_(dim, T(i), v, reduce=reduce)
        assert_same(x.scatter(dim, gi, v, reduce=reduce), want)
        y = x.clone()
        assert y.scatter_(dim, gi, v, reduce=reduce) is y
        assert_same(y, want)


def test_scatter_reduce_argument_errors(device):
    x = genesis.zeros(2, 3, device=device)
    i = GI([[0, 1, 2]], device)
    for call in (
        lambda: x.scatter(1, i, x, reduce="sum"),
        lambda: x.scatter_(1, i, 1.0, reduce="max"),
        lambda: x.scatter_reduce(1, i, x, "add"),
        lambda: x.index_reduce(1, i[0], x, "sum"),
    ):
        with pytest.raises(RuntimeError) as e:
            call()
        check_message(e)
    with pytest.raises(TypeError) as e:
        x.scatter_(1, i, x, reduce=3)
    check_message(e, "scatter_")
    assert to_numpy(x).sum() == 0


# ---- scatter_reduce ----------------------------------------------------------------------------


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", SCATTER_REDUCES)
def test_scatter_reduce(device, dtype, reduce, include_self):
    a = small(SHAPE, dtype, 3, reduce)
    x, tx = G(a, dtype, device), T(a, dtype)
    if reduce == "mean" and dtype is B:  # PyTorch: not implemented for bool
        with pytest.raises(RuntimeError) as e:
            x.scatter_reduce(0, GI([[0]], device), x, reduce, include_self=include_self)
        check_message(e, "scatter_reduce")
        return
    for k, dim in enumerate(DIMS):
        i = rand_index(index_shape(dim, 10), SHAPE[dim], 50 + k)
        s = small(i.shape, dtype, 60 + k, reduce)
        gi, gs = GI(i, device), G(s, dtype, device)
        want = torch.scatter_reduce(tx, dim, T(i), T(s, dtype), reduce, include_self=include_self)
        got = genesis.scatter_reduce(x, dim, gi, gs, reduce, include_self=include_self)
        assert_same(got, want)
        assert_same(x.scatter_reduce(dim, gi, gs, reduce, include_self=include_self), want)
        y = x.clone()
        assert y.scatter_reduce_(dim, gi, gs, reduce=reduce, include_self=include_self) is y
        assert_same(y, want)
    assert_same(x, tx)


@pytest.mark.parametrize("dt", [F16, BF16, F32, F64])
@pytest.mark.parametrize("reduce", ["amax", "amin", "sum", "prod", "mean"])
def test_scatter_reduce_propagates_nan(device, dt, reduce):
    a = np.array([1.0, np.nan, 3.0, 4.0])
    s = np.array([np.nan, 2.0, 5.0, -1.0, 7.0])
    i = np.array([0, 1, 2, 2, 3])
    for include_self in (True, False):
        want = T(a, dt).scatter_reduce(0, T(i), T(s, dt), reduce, include_self=include_self)
        got = G(a, dt, device).scatter_reduce(
            0, GI(i, device), G(s, dt, device), reduce, include_self=include_self
        )
        assert_same(got, want)


def test_integer_sums_and_products_wrap(device):
    for dt in (U8, I8, I16, I32, I64):
        info = np.iinfo({U8: np.uint8, I8: np.int8, I16: np.int16, I32: np.int32}.get(dt, np.int64))
        a = np.array([info.max, info.min, 3])
        s = np.array([info.max, info.max, 7, info.max // 3 + 1, 5, 3])
        i = np.array([0, 0, 1, 1, 2, 2])
        for reduce in ("sum", "prod", "mean"):
            want = T(a, dt).scatter_reduce(0, T(i), T(s, dt), reduce)
            assert_same(
                G(a, dt, device).scatter_reduce(0, GI(i, device), G(s, dt, device), reduce), want
            )
        want = T(a, dt).scatter_add(0, T(i), T(s, dt))
        assert_same(G(a, dt, device).scatter_add(0, GI(i, device), G(s, dt, device)), want)


def test_float_sums_of_general_data(device):
    # Not exact in general (CUDA adds in any order): float32 to a tolerance.
    a = random_array((64, 8), F32, 5)
    s = random_array((1000, 8), F32, 6)
    i = rand_index((1000, 8), 64, 7)
    want = torch.scatter_add(T(a), 0, T(i), T(s)).numpy()
    got = to_numpy(genesis.scatter_add(G(a, F32, device), 0, GI(i, device), G(s, F32, device)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-2)
    for dt in (F16, BF16):
        want = torch.scatter_add(T(a, dt), 0, T(i), T(s, dt)).float().numpy()
        got = to_numpy(genesis.scatter_add(G(a, dt, device), 0, GI(i, device), G(s, dt, device)))
        scale = np.abs(want).max()
        np.testing.assert_allclose(got, want, rtol=0, atol=0.05 * scale)


def test_heavy_contention(device, dtype):
    # 2^17 values into 3 elements: every thread of the CUDA kernel collides (the atomics and
    # compare-and-swap loops of every dtype). Ones make float sums order-free. On CUDA float16
    # and bfloat16 round at each addition (Note [Wide scatter sums]) and stop growing at 2048
    # and 256 in any order, as PyTorch's CUDA atomics do; the CPU sums them in float32.
    n = 1 << 17
    i = rand_index((n,), 3, 31)
    x = genesis.zeros(3, dtype=dtype, device=device)
    ones = genesis.ones(n, dtype=dtype, device=device)
    want = torch.zeros(3, dtype=TORCH_DTYPE[dtype]).scatter_add(
        0, T(i), torch.ones(n, dtype=TORCH_DTYPE[dtype])
    )
    if device == "cuda" and dtype in (F16, BF16):
        want = torch.full((3,), 2048.0 if dtype is F16 else 256.0, dtype=TORCH_DTYPE[dtype])
    assert_same(x.scatter_add(0, GI(i, device), ones), want)
    s = small((n,), dtype, 32)
    for reduce in ("amax", "amin"):
        want = T(small((3,), dtype, 33), dtype).scatter_reduce(0, T(i), T(s, dtype), reduce)
        got = G(small((3,), dtype, 33), dtype, device).scatter_reduce(
            0, GI(i, device), G(s, dtype, device), reduce
        )
        assert_same(got, want)
    if dtype is not B:  # products of -1 and 1: exact and order-free in every dtype
        p = np.where(np.random.default_rng(34).random(n) < 0.5, -1, 1)
        want = torch.ones(3, dtype=TORCH_DTYPE[dtype]) if dtype is not U8 else None
        if want is not None:
            want = want.scatter_reduce(0, T(i), T(p, dtype), "prod")
            got = genesis.ones(3, dtype=dtype, device=device).scatter_reduce(
                0, GI(i, device), G(p, dtype, device), "prod"
            )
            assert_same(got, want)


@pytest.mark.parametrize("dt, big", [(F16, 2048.0), (BF16, 256.0)])
def test_16_bit_accumulation_follows_pytorch(device, dt, big):
    # Note [Wide scatter sums]: on the CPU the scatter family sums and multiplies 16-bit floats
    # in float32 and rounds once (big + 1 + 1 keeps both ones), while index_add, put and
    # index_put round after each addition (each one is lost), as PyTorch's CPU does. On CUDA
    # all of them round after each addition, as PyTorch's CUDA atomics do.
    base, tb = (
        genesis.tensor([big], dtype=dt, device=device),
        torch.tensor([big]).to(TORCH_DTYPE[dt]),
    )
    i, ti = GI([0, 0], device), torch.tensor([0, 0])
    s, ts = genesis.ones(2, dtype=dt, device=device), torch.ones(2, dtype=TORCH_DTYPE[dt])
    scatter_cases = [
        (lambda x: x.scatter_add(0, i, s), lambda t: t.scatter_add(0, ti, ts)),
        (lambda x: x.scatter(0, i, s, reduce="add"), lambda t: t.scatter(0, ti, ts, reduce="add")),
        (
            lambda x: x.scatter(0, i, 1.0, reduce="add"),
            lambda t: t.scatter(0, ti, 1.0, reduce="add"),
        ),
        (lambda x: x.scatter_reduce(0, i, s, "sum"), lambda t: t.scatter_reduce(0, ti, ts, "sum")),
    ]
    rounding_cases = [
        (lambda x: x.index_add(0, i, s), lambda t: t.index_add(0, ti, ts)),
        (lambda x: x.put(i, s, True), lambda t: t.put(ti, ts, True)),
        (lambda x: x.index_put((i,), s, True), lambda t: t.index_put((ti,), ts, True)),
    ]
    mean = (
        lambda x: x.scatter_reduce(0, i, s, "mean"),
        lambda t: t.scatter_reduce(0, ti, ts, "mean"),
    )
    for g, t in rounding_cases:
        assert_same(g(base), t(tb))
    if device == "cpu":
        for g, t in [*scatter_cases, mean]:
            assert_same(g(base), t(tb))
        assert to_numpy(base.scatter_add(0, i, s)).tolist() == [big + 2]
    else:
        for g, _ in scatter_cases:
            assert to_numpy(g(base)).tolist() == [big]
        # the sum rounds to big at each addition, then divides by the count of 3
        assert_same(mean[0](base), tb / 3)
    assert to_numpy(base.index_add(0, i, s)).tolist() == [big]


@pytest.mark.parametrize("dt", [F16, BF16, F32])
def test_index_add_of_rows_rounds_after_each_addition_on_the_cpu(dt):
    # Whole rows combine as vectors (16-bit floats through float chunks of 256): rows longer
    # than a chunk, many duplicates, general data; bit for bit the per-row, per-addition rounding
    # of the serial loop (Note [Wide scatter sums], Note [Accumulating scatters]).
    rng = np.random.default_rng(4)
    to_dt = {
        F16: lambda a: a.astype(np.float16).astype(np.float32),
        BF16: lambda a: to_numpy(genesis.tensor(a).to(BF16).float()),
        F32: lambda a: a.astype(np.float32),
    }[dt]
    dst, src = to_dt(rng.standard_normal((16, 300))), to_dt(rng.standard_normal((200, 300)))
    rows = rng.integers(0, 16, 200)
    got = genesis.tensor(dst).to(dt)
    got.index_add_(0, genesis.tensor(rows), genesis.tensor(src).to(dt))
    amax = (
        genesis.tensor(dst)
        .to(dt)
        .index_reduce(0, genesis.tensor(rows), genesis.tensor(src).to(dt), "amax")
    )
    want, want_max = dst.copy(), dst.copy()
    for k, r in enumerate(rows):
        want[r] = to_dt(want[r] + src[k])
        want_max[r] = np.maximum(want_max[r], src[k])
    np.testing.assert_array_equal(to_numpy(got.float()), want)
    np.testing.assert_array_equal(to_numpy(amax.float()), want_max)


# ---- index_add and index_reduce ----------------------------------------------------------------


def test_index_add(device, dtype):
    a = small(SHAPE, dtype, 8)
    x, tx = G(a, dtype, device), T(a, dtype)
    alphas = [1, True] if dtype is B else ([1, 2, -3] if dtype not in FLOATS else [1, 0.5, -2])
    if dtype is U8:
        alphas = [1, 2]
    for k, dim in enumerate(DIMS):
        i = rand_index((11,), SHAPE[dim], 70 + k)
        sshape = list(SHAPE)
        sshape[dim] = 11
        s = small(sshape, dtype, 80 + k)
        for alpha in alphas:
            for idt in (I64, I32):
                want = torch.index_add(tx, dim, T(i, idt), T(s, dtype), alpha=alpha)
                gi, gs = GI(i, device, idt), G(s, dtype, device)
                assert_same(genesis.index_add(x, dim, gi, gs, alpha=alpha), want)
                assert_same(x.index_add(dim, gi, gs, alpha=alpha), want)
                y = x.clone()
                assert y.index_add_(dim, gi, gs, alpha=alpha) is y
                assert_same(y, want)
        want = torch.index_add(tx, dim, T(i), T(s, dtype))
        assert_same(genesis.index_add(input=x, dim=dim, index=GI(i, device), source=gs), want)
    assert_same(x, tx)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", INDEX_REDUCES)
def test_index_reduce(device, dtype, reduce, include_self):
    a = small(SHAPE, dtype, 9, reduce)
    x, tx = G(a, dtype, device), T(a, dtype)
    if dtype is B:  # PyTorch defines index_reduce for numbers only
        with pytest.raises(TypeError) as e:
            x.index_reduce_(0, GI([0], device), x[:1], reduce, include_self=include_self)
        check_message(e, "index_reduce_")
        return
    for k, dim in enumerate(DIMS):
        i = rand_index((9,), SHAPE[dim], 90 + k)
        sshape = list(SHAPE)
        sshape[dim] = 9
        s = small(sshape, dtype, 100 + k, reduce)
        gi, gs = GI(i, device), G(s, dtype, device)
        want = torch.index_reduce(tx, dim, T(i), T(s, dtype), reduce, include_self=include_self)
        assert_same(genesis.index_reduce(x, dim, gi, gs, reduce, include_self=include_self), want)
        assert_same(x.index_reduce(dim, gi, gs, reduce, include_self=include_self), want)
        y = x.clone()
        assert y.index_reduce_(dim, gi, gs, reduce, include_self=include_self) is y
        assert_same(y, want)
    assert_same(x, tx)


# ---- put -----------------------------------------------------------------------------------


@pytest.mark.parametrize("accumulate", [False, True])
def test_put(device, dtype, accumulate):
    a = small(SHAPE, dtype, 11)
    x, tx = G(a, dtype, device), T(a, dtype)
    n = int(np.prod(SHAPE))
    if accumulate:
        i = rand_index((7, 9), n, 12, low=-n)  # duplicates and negative indices
    else:  # distinct indices: the result is defined
        i = np.random.default_rng(12).permutation(n)[:63]
        i[::2] -= n
        i = i.reshape(7, 9)
    s = small(i.shape, dtype, 13)
    # PyTorch refuses negative indices in put_; genesis counts them from the end.
    want = tx.clone().put_(T(i % n), T(s, dtype), accumulate=accumulate)
    gi, gs = GI(i, device), G(s, dtype, device)
    assert_same(genesis.put(x, gi, gs, accumulate), want)
    assert_same(x.put(gi, gs, accumulate=accumulate), want)
    assert_same(genesis.put(input=x, index=gi, source=gs, accumulate=accumulate), want)
    y = x.clone()
    assert y.put_(gi, gs, accumulate) is y
    assert_same(y, want)
    # Into a non-contiguous tensor: written through to its memory.
    v = strided(a, dtype, device)
    assert v.put_(gi, gs.reshape(-1), accumulate=accumulate) is v
    assert_same(v, want)
    assert_same(x, tx)


# ---- index_put ----------------------------------------------------------------------------


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(device, dtype, accumulate):
    a = small(SHAPE, dtype, 21)
    x, tx = G(a, dtype, device), T(a, dtype)
    rng = np.random.default_rng(22)
    if accumulate:  # duplicates
        i0, i1 = rng.integers(0, 4, 9), rng.integers(0, 5, 9)
    else:  # distinct pairs
        flat = rng.permutation(20)[:9]
        i0, i1 = flat // 5, flat % 5
    mask = rng.random((4, 5)) < 0.5
    keys = [
        ((i0,), small((9, 5, 6), dtype, 23)),
        ((i0, i1), small((9, 6), dtype, 24)),
        ((i0, i1), small((6,), dtype, 25)),  # broadcast values
        ((i0[:, None], i1[None, :4]), small((9, 4, 6), dtype, 26)),
        ((mask,), small((int(mask.sum()), 6), dtype, 27)),
    ]
    if not accumulate:  # the keys whose positions are distinct
        keys = [keys[1], keys[2], keys[4]]
    for idx, v in keys:
        want = tx.index_put(tuple(T(k) for k in idx), T(v, dtype), accumulate=accumulate)
        gidx = tuple(G(k, B, device) if k.dtype == bool else GI(k, device) for k in idx)
        gv = G(v, dtype, device)
        assert_same(genesis.index_put(x, gidx, gv, accumulate), want)
        assert_same(x.index_put(list(gidx), gv, accumulate=accumulate), want)
        y = x.clone()
        assert y.index_put_(gidx, gv, accumulate) is y
        assert_same(y, want)
    # int32 indices, as PyTorch (distinct rows unless accumulating: which duplicate wins a plain
    # write is unspecified on CUDA, in PyTorch too).
    rows = i0 if accumulate else rng.permutation(4)[:3]
    vals = small((len(rows), 5, 6), dtype, 28)
    want = tx.index_put((T(rows).int(),), T(vals, dtype), accumulate)
    got = x.index_put((GI(rows, device, I32),), G(vals, dtype, device), accumulate)
    assert_same(got, want)
    assert_same(x, tx)


def test_index_put_errors(device):
    x = genesis.zeros(3, 4, device=device)
    i = GI([0, 2], device)
    with pytest.raises(TypeError) as e:
        x.index_put_((i,), genesis.ones(4, dtype=F64, device=device))
    check_message(e, "index_put_")
    with pytest.raises(TypeError) as e:
        x.index_put_((genesis.tensor([0.0], device=device),), genesis.ones(4, device=device))
    check_message(e, "index_put_")
    e = raises_on(
        device,
        IndexError,
        lambda: x.index_put_((GI([0, 3], device),), genesis.ones(4, device=device), True),
    )
    check_message(e, "index_put_")
    with raises_index_error() as e:
        genesis.index_put(x, (i, i, i), genesis.ones(2, device=device))
    check_message(e, "index_put")
    assert to_numpy(x).sum() == 0


# ---- shapes: 0-d, zero-size, non-contiguous, aliasing, out= -------------------------------------


def test_zero_dim_and_zero_size(device):
    t0 = torch.tensor(5.0)
    x0 = genesis.tensor(5.0, device=device)
    i0, s0 = GI(0, device), genesis.tensor(2.0, device=device)
    assert_same(x0.scatter_add(0, i0, s0), t0.scatter_add(0, torch.tensor(0), torch.tensor(2.0)))
    assert_same(
        x0.scatter_reduce(0, i0, s0, "amin"),
        t0.scatter_reduce(0, torch.tensor(0), torch.tensor(2.0), "amin"),
    )
    assert_same(x0.index_add(0, i0, s0), t0.index_add(0, torch.tensor(0), torch.tensor(2.0)))
    assert_same(
        x0.index_reduce(0, i0, s0, "prod"),
        t0.index_reduce(0, torch.tensor(0), torch.tensor(2.0), "prod"),
    )
    two = genesis.tensor([2.0, 3.0], device=device)
    want = t0.put(torch.tensor([0, 0]), torch.tensor([2.0, 3.0]), accumulate=True)
    assert_same(x0.put(GI([0, 0], device), two, accumulate=True), want)
    # Empty indices change nothing (PyTorch skips scatter's shape checks then).
    x = genesis.ones(3, 4, device=device)
    e = GI(np.zeros((0,), np.int64), device)
    assert_same(x.scatter_add(0, e, genesis.ones(5, device=device)), torch.ones(3, 4))
    assert_same(x.scatter_reduce(1, e.reshape(0, 1), x, "prod"), torch.ones(3, 4))
    assert_same(x.index_add(1, e, genesis.ones(3, 0, device=device)), torch.ones(3, 4))
    assert_same(x.index_reduce(0, e, genesis.ones(0, 4, device=device), "amax"), torch.ones(3, 4))
    assert_same(x.put(e, genesis.ones(0, device=device)), torch.ones(3, 4))
    # Zero-size tensors.
    z = genesis.zeros(0, 3, device=device)
    assert_same(z.scatter_add(1, GI(np.zeros((0, 2), np.int64), device), z), torch.zeros(0, 3))
    assert_same(
        z.index_add(1, GI([2, 2], device), genesis.ones(0, 2, device=device)), torch.zeros(0, 3)
    )


def test_non_contiguous_operands(device):
    rng = np.random.default_rng(14)
    a = rng.integers(-8, 9, size=(6, 5)).astype(np.float32)
    i = rand_index((8, 5), 6, 15)
    s = rng.integers(-8, 9, size=(8, 5)).astype(np.float32)
    want = torch.scatter_add(T(a), 0, T(i), T(s))
    for xs in (False, True):
        for is_ in (False, True):
            for ss in (False, True):
                x = strided(a, F32, device) if xs else G(a, F32, device)
                gi = strided(i, I64, device) if is_ else GI(i, device)
                gs = strided(s, F32, device) if ss else G(s, F32, device)
                assert_same(genesis.scatter_add(x, 0, gi, gs), want)
                y = x.clone() if not xs else strided(a, F32, device)
                y.scatter_add_(0, gi, gs)
                assert_same(y, want)
    # index_add into a transposed view along each dim.
    src = rng.integers(-8, 9, size=(6, 4)).astype(np.float32)
    idx = np.array([3, 0, 3, 4])
    want = torch.index_add(T(a), 1, T(idx), T(src))
    y = strided(a, F32, device)
    y.index_add_(1, strided(idx, I64, device), strided(src, F32, device))
    assert_same(y, want)


def test_source_aliasing_self(device):
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i = np.array([[2, 2, 0, 1], [0, 0, 0, 0]])
    want = T(a).scatter_add_(0, T(i), T(a))
    x = G(a, F32, device)
    x.scatter_add_(0, GI(i, device), x)
    assert_same(x, want)
    want = T(a).index_add_(0, torch.tensor([1, 1, 0]), T(a))
    x = G(a, F32, device)
    x.index_add_(0, GI([1, 1, 0], device), x)
    assert_same(x, want)


def test_out(device):
    a = small((4, 3), F32, 16).astype(np.float32)
    x, tx = G(a, F32, device), T(a)
    i = rand_index((6, 3), 4, 17)
    s = small((6, 3), F32, 18).astype(np.float32)
    gi, gs = GI(i, device), G(s, F32, device)
    out = genesis.empty(4, 3, device=device)
    assert genesis.scatter_add(x, 0, gi, gs, out=out) is out
    assert_same(out, torch.scatter_add(tx, 0, T(i), T(s)))
    assert genesis.scatter_reduce(x, 0, gi, gs, "amax", include_self=False, out=out) is out
    assert_same(out, torch.scatter_reduce(tx, 0, T(i), T(s), "amax", include_self=False))
    ii = rand_index((6,), 4, 19)
    assert genesis.index_add(x, 0, GI(ii, device), gs, alpha=2, out=out) is out
    assert_same(out, torch.index_add(tx, 0, T(ii), T(s), alpha=2))
    assert genesis.index_reduce(x, 0, GI(ii, device), gs, "mean", out=out) is out
    assert_same(out, torch.index_reduce(tx, 0, T(ii), T(s), "mean"))


# ---- hypothesis: random shapes, dims and duplicates ------------------------------------------


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
    reduce=st.sampled_from(SCATTER_REDUCES),
    include_self=st.booleans(),
    dt=st.sampled_from([I64, F64, I16, U8, F16, BF16]),
)
def test_scatter_reduce_fuzz(dev, shape, data, reduce, include_self, dt):
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    ishape = [data.draw(st.integers(0, s)) for s in shape]
    ishape[dim] = data.draw(st.integers(0, 8))
    seed = data.draw(st.integers(0, 2**16))
    a = small(shape, dt, seed, reduce)
    i = rand_index(ishape, shape[dim], seed + 1)
    s = small(ishape, dt, seed + 2, reduce)
    want = torch.scatter_reduce(T(a, dt), dim, T(i), T(s, dt), reduce, include_self=include_self)
    got = genesis.scatter_reduce(
        G(a, dt, dev), dim, GI(i, dev), G(s, dt, dev), reduce, include_self=include_self
    )
    assert_same(got, want)
    if ishape and all(ishape):
        want = torch.scatter_add(T(a, dt), dim, T(i), T(s, dt))
        assert_same(genesis.scatter_add(G(a, dt, dev), dim, GI(i, dev), G(s, dt, dev)), want)


# ---- bad input -----------------------------------------------------------------------------


WRITERS = [
    ("scatter_add", lambda x, i, s: x.scatter_add(0, i, s)),
    ("scatter_add_", lambda x, i, s: x.scatter_add_(0, i, s)),
    ("scatter_", lambda x, i, s: x.scatter_(0, i, s, reduce="multiply")),
    ("scatter_reduce_", lambda x, i, s: x.scatter_reduce_(0, i, s, "amin")),
    ("scatter_reduce_", lambda x, i, s: x.scatter_reduce_(0, i, s, "mean", include_self=False)),
    ("index_add_", lambda x, i, s: x.index_add_(0, i, s)),
    ("index_reduce_", lambda x, i, s: x.index_reduce_(0, i, s, "prod")),
    ("put_", lambda x, i, s: x.put_(i, s, accumulate=True)),
    ("put_", lambda x, i, s: x.put_(i, s)),
    ("index_put_", lambda x, i, s: x.index_put_((i,), s, accumulate=True)),
]


@pytest.mark.parametrize("op, call", WRITERS)
@pytest.mark.parametrize("bad", [5, -6, 2**40, -(2**63)])
def test_out_of_range_indices(device, op, call, bad):
    x = genesis.zeros(5, device=device)
    i = GI([1, bad, 2], device)
    s = genesis.ones(3, device=device)
    e = raises_on(device, IndexError, lambda: call(x, i, s))
    check_writer(e, op)
    assert "out of bounds" in str(e.value) and str(bad) in str(e.value)
    assert to_numpy(x).tolist() == [0.0] * 5  # nothing written
    # The device is still usable and the next call is checked afresh.
    assert to_numpy(x.scatter_add(0, GI([4, 4], device), s[:2])).tolist() == [0, 0, 0, 0, 2]


@pytest.mark.parametrize("op, call", WRITERS)
def test_wrong_index_dtypes(device, op, call):
    x = genesis.zeros(5, device=device)
    s = genesis.ones(2, device=device)
    bad = [F32, B, I16] if op.startswith("index_") else [I32, F32, B, I16]
    if op == "index_put_":  # bool is a mask there
        bad = [F32, I16]
    for dt in bad:
        with pytest.raises(TypeError) as e:
            call(x, genesis.tensor([1, 0], dtype=dt, device=device), s)
        check_writer(e, op)
    assert to_numpy(x).sum() == 0


@pytest.mark.parametrize("op, call", WRITERS)
def test_wrong_source_dtype(device, op, call):
    x = genesis.zeros(5, device=device)
    with pytest.raises(TypeError) as e:
        call(x, GI([1, 0], device), genesis.ones(2, dtype=F64, device=device))
    check_writer(e, op)


@pytest.mark.parametrize("op, call", WRITERS)
def test_expanded_targets_are_refused(device, op, call):
    if op == "scatter_add":  # writes a copy: fine
        return
    x = genesis.zeros(1, device=device).expand(5)
    with pytest.raises(RuntimeError) as e:
        call(x, GI([1, 0], device), genesis.ones(2, device=device))
    check_writer(e, op)


def test_expanded_target_out_of_place_works(device):
    x = genesis.zeros(1, device=device).expand(3)
    got = x.scatter_add(0, GI([2, 2], device), genesis.ones(2, device=device))
    assert to_numpy(got).tolist() == [0, 0, 2]


def test_shape_errors(device):
    x = genesis.zeros(3, 4, device=device)
    i = GI([[0, 1]], device)
    cases = [
        (
            "scatter_add",
            lambda: x.scatter_add(0, GI([0, 1], device), genesis.ones(2, device=device)),
        ),
        (
            "scatter_add",
            lambda: x.scatter_add(
                0, GI(np.zeros((2, 5), np.int64), device), genesis.ones(2, 5, device=device)
            ),
        ),
        ("scatter_add", lambda: x.scatter_add(0, i, genesis.ones(1, 1, device=device))),
        (
            "scatter_reduce",
            lambda: x.scatter_reduce(1, i, genesis.ones(1, 1, device=device), "sum"),
        ),
        (
            "index_add",
            lambda: x.index_add(0, GI([0, 1], device), genesis.ones(2, 3, device=device)),
        ),
        (
            "index_add",
            lambda: x.index_add(0, GI([0, 1], device), genesis.ones(3, 4, device=device)),
        ),
        (
            "index_reduce",
            lambda: x.index_reduce(1, GI([0], device), genesis.ones(3, 2, device=device), "amax"),
        ),
    ]
    for op, call in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        check_writer(e, op)
    with raises_index_error() as e:  # a 2-d index for index_add
        x.index_add(0, i, genesis.ones(2, 4, device=device))
    check_writer(e, "index_add")
    with raises_index_error() as e:  # put: as many values as indices
        x.put(GI([0, 1], device), genesis.ones(3, device=device))
    check_writer(e, "put")
    assert to_numpy(x).sum() == 0


def test_read_only_targets(device):
    if device != "cpu":
        pytest.skip("read-only memory comes from NumPy")
    buf = np.arange(5, dtype=np.float32)
    buf.flags.writeable = False
    x = genesis.from_numpy(buf)
    for op, call in WRITERS:
        if op == "scatter_add":
            continue
        with pytest.raises(ValueError, match="read-only") as e:
            call(x, GI([1, 0], device), genesis.ones(2))
        check_writer(e, op)
    assert buf.tolist() == [0, 1, 2, 3, 4]
    # The out-of-place forms write a copy.
    assert to_numpy(x.scatter_add(0, GI([1, 1], device), genesis.ones(2))).tolist() == [
        0,
        3,
        2,
        3,
        4,
    ]


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
@pytest.mark.parametrize(
    "shape, dim, cut",
    [
        ((300, 64), 0, None),  # whole rows: one vector atomic per 4 (2) items
        ((50, 7, 1028), 1, None),  # a middle dim, rows of 1028
        ((40, 12), 0, (slice(None), slice(1, None))),  # rows one item off alignment
        ((40, 13), 0, None),  # a row length no vector divides
        ((40, 16), 0, (slice(None), slice(None, None, 2))),  # strided rows
        ((20, 24), -1, None),  # along the innermost dim: item at a time
    ],
)
def test_index_add_of_rows_with_duplicates(device, dtype, shape, dim, cut):
    """Sums along a dim move whole rows (Note [Vector scatter sums] on CUDA): duplicates all
    count, aligned or not; small integers keep every sum exact in any order."""
    rng = np.random.default_rng(11)
    base = rng.integers(-4, 5, shape).astype(np.float32)
    x, tx = G(base, dtype, device), T(base, dtype)
    if cut is not None:
        x, tx = x[cut], tx[cut]
    d = dim % x.ndim
    i = rng.integers(0, x.shape[d], 3 * x.shape[d])  # every row several times
    sshape = list(x.shape)
    sshape[d] = len(i)
    s = rng.integers(-3, 4, sshape).astype(np.float32)
    for alpha in (1, 2):
        want = tx.clone().index_add_(d, T(i), T(s, dtype), alpha=alpha)
        got = x.clone().index_add_(d, GI(i, device), G(s, dtype, device), alpha=alpha)
        assert_same(got, want)
    if d == 0:
        want = tx.clone().index_put_((T(i),), T(s, dtype), accumulate=True)
        got = x.clone().index_put_((GI(i, device),), G(s, dtype, device), accumulate=True)
        assert_same(got, want)


@pytest.mark.parametrize("dim", [0, 1])
def test_cpu_accumulating_scatters_cut_over_threads_keep_the_serial_order(dim):
    # A scatter through an index key may be cut over threads along a dim the key leaves as it
    # is (Note [Scattering along a dim on the CPU] in cpu/index.cpp): duplicates still combine
    # in row-major order, bit for bit what np.add.at computes serially in float32.
    rng = np.random.default_rng(500 + dim)
    a = rng.standard_normal((300, 400), dtype=np.float32)
    n = 900  # more rows (columns) than x has: duplicates
    idx = rng.integers(0, a.shape[dim], n)
    sshape = (n, 400) if dim == 0 else (300, n)
    src = rng.standard_normal(sshape, dtype=np.float32)
    want = a.copy()
    np.add.at(want, idx if dim == 0 else (slice(None), idx), src)
    x = genesis.tensor(a)
    x.index_add_(dim, genesis.tensor(idx), genesis.tensor(src))
    assert x.numpy().tobytes() == want.tobytes()
    if dim == 0:  # the same through index_put_ with accumulate
        x = genesis.tensor(a)
        x.index_put_((genesis.tensor(idx),), genesis.tensor(src), accumulate=True)
        assert x.numpy().tobytes() == want.tobytes()
