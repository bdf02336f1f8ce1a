"""PyTorch's index-family functions (csrc/ops/index_ops.cpp, Note [Index-family ops]) against
PyTorch on the CPU from the same NumPy data: index_select, gather, take_along_dim, take,
masked_select, masked_fill, masked_scatter, index_fill, index_copy, scatter, nonzero, argwhere
and where(condition), as genesis.X, Tensor.X and the in-place Tensor.X_, over every dtype,
negative dims, 0-d and zero-size inputs and indices, non-contiguous data and indices,
broadcasting, out=, writes through strided views, read-only tensors and bad input.

Index ops move values and compute nothing, so every comparison is exact. Where genesis
documents an error type other than PyTorch's, the tests follow genesis and say so.
"""

import numpy as np
import pytest
from conftest import check_message, dtype_id, raises_index_error, random_array, to_numpy

import genesis

torch = pytest.importorskip("torch")

B, U8, I8, I16 = genesis.bool, genesis.uint8, genesis.int8, genesis.int16
I32, I64, F16, BF16 = genesis.int32, genesis.int64, genesis.float16, genesis.bfloat16
F32, F64 = genesis.float32, genesis.float64

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

# A value every dtype holds exactly, away from the random data's typical values.
FILL = {
    B: True,
    U8: 200,
    I8: -100,
    I16: -30000,
    I32: 2**31 - 1,
    I64: -(2**62),
    F16: -2.5,
    BF16: -2.5,
    F32: -2.5,
    F64: -2.5,
}

SHAPE = (4, 5, 6)
DIMS = [0, 1, 2, -1, -2, -3]
VIEW_KINDS = ["transposed", "negative_step"]
JUNK_INDEX = 10**9  # in the parts of a strided index's base that the view does not show


# ---- helpers ------------------------------------------------------------------------------


def G(a, dt, device):
    """A genesis tensor holding NumPy array a's values as dtype dt."""
    return genesis.tensor(np.asarray(a), dtype=dt, device=device)


def T(a, dt=None):
    """A torch tensor holding NumPy array a's values (as dtype dt, default a's dtype)."""
    t = torch.from_numpy(np.array(a, copy=True, order="C"))
    return t if dt is None else t.to(TORCH_DTYPE[dt])


def GI(a, device, dt=I64):
    """A genesis index tensor."""
    return genesis.tensor(np.asarray(a), dtype=dt, device=device)


def assert_same(got, want):
    """got (a genesis tensor) has want's (a torch tensor's) dtype, shape and values, exactly."""
    assert isinstance(got, genesis.Tensor), type(got)
    assert got.dtype is GENESIS_DTYPE[want.dtype], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    ref = (want.float() if want.dtype == torch.bfloat16 else want).numpy()
    np.testing.assert_array_equal(to_numpy(got), ref)


def rand_index(shape, high, seed, low=0):
    """Random int64 indices in [low, high), duplicates and any order."""
    return np.random.default_rng(seed).integers(low, high, size=shape, dtype=np.int64)


def unique_index(shape, dim, size, seed):
    """int64 indices in [0, size), distinct along dim within each slice (scatter's and
    index_copy's results are then defined)."""
    shape = list(shape)
    dim %= len(shape)
    n = shape.pop(dim)
    keys = np.random.default_rng(seed).random([*shape, size]).argsort(axis=-1)[..., :n]
    return np.ascontiguousarray(np.moveaxis(keys, -1, dim)).astype(np.int64)


def mask_of(shape, seed):
    """A random bool mask with at least one True (when it has elements)."""
    m = np.array(random_array(shape, B, seed), copy=True)
    if m.size:
        m.reshape(-1)[0] = True
    return m


def view_of(v, kind):
    """A non-contiguous view of a NumPy array or genesis tensor: dims 0 and -1 swapped, or
    reversed in dim 0 and every other element, reversed, in the last dim (1-d: v[::-2])."""
    if kind == "transposed" and v.ndim > 1:
        return v.swapaxes(0, -1)
    return v[::-2] if v.ndim == 1 else v[::-1, ..., ::-2]


def base_shape(shape, kind):
    shape = list(shape)
    if kind == "transposed" and len(shape) > 1:
        shape[0], shape[-1] = shape[-1], shape[0]
    else:
        shape[-1] *= 2
    return tuple(shape)


def strided_pair(n, kind, dt, device, junk=None):
    """(view, base): a non-contiguous genesis view of a larger base holding NumPy array n's
    values; the base's elements outside the view hold `junk` (default: n's first value)."""
    base = np.empty(base_shape(n.shape, kind), dtype=n.dtype)
    base[...] = n.reshape(-1)[0] if junk is None else junk
    view_of(base, kind)[...] = n
    g = G(base, dt, device)
    v = view_of(g, kind)
    assert tuple(v.shape) == n.shape
    assert not v.is_contiguous()
    return v, g


def strided(n, kind, dt, device, junk=None):
    return strided_pair(n, kind, dt, device, junk)[0]


def check_writer_message(excinfo, op):
    """genesis.op and Tensor.op run Tensor.op_ on a copy: the message names either."""
    msg = str(excinfo.value)
    assert msg.startswith((f"[{op}]", f"[{op.rstrip('_')}_]")), msg


def raises_on(device, exc, fn):
    """fn raises exc; on CUDA a device-side check surfaces at the next synchronisation."""
    with pytest.raises(exc) as e:
        fn()
        if device == "cuda":
            genesis.cuda.synchronize()
    return e


# ---- readers over every dtype -------------------------------------------------------------


def test_index_select(device, dtype):
    a = random_array(SHAPE, dtype, 1)
    x, tx = G(a, dtype, device), T(a, dtype)
    for k, dim in enumerate(DIMS):
        n = SHAPE[dim]
        i = rand_index((7,), n, 10 + k)
        for idt in (I64, I32):
            want = torch.index_select(tx, dim, T(i, idt))
            assert_same(genesis.index_select(x, dim, GI(i, device, idt)), want)
            assert_same(x.index_select(dim, GI(i, device, idt)), want)
            assert_same(genesis.index_select(input=x, dim=dim, index=GI(i, device, idt)), want)
        # A 0-d index selects one entry and keeps the dim.
        i0 = np.asarray(n - 1)
        want = torch.index_select(tx, dim, T(i0))
        assert_same(genesis.index_select(x, dim, GI(i0, device)), want)
        assert_same(x.index_select(dim, GI(i0, device, I32)), want)
    assert_same(x, tx)  # the input is left alone


def test_gather(device, dtype):
    a = random_array(SHAPE, dtype, 2)
    x, tx = G(a, dtype, device), T(a, dtype)
    for k, dim in enumerate(DIMS):
        ishape = [3, 4, 5]
        ishape[dim] = 8  # dim may be longer than the input's; the others no longer
        i = rand_index(ishape, SHAPE[dim], 20 + k)
        want = torch.gather(tx, dim, T(i))
        assert_same(genesis.gather(x, dim, GI(i, device)), want)
        assert_same(x.gather(dim, GI(i, device)), want)
        assert_same(genesis.gather(x, dim, GI(i, device), sparse_grad=False), want)
        assert_same(x.gather(dim, GI(i, device), sparse_grad=False), want)
    assert_same(x, tx)


def test_take_along_dim(device, dtype):
    a = random_array((4, 1, 6), dtype, 3)
    x, tx = G(a, dtype, device), T(a, dtype)
    # (indices' shape, dim): the dims other than dim broadcast between input and indices.
    cases = [((4, 1, 6), 0), ((1, 5, 3), 2), ((4, 5, 9), -1), ((1, 3, 6), 1), ((7, 1, 1), -3)]
    for k, (ishape, dim) in enumerate(cases):
        i = rand_index(ishape, a.shape[dim], 30 + k)
        want = torch.take_along_dim(tx, T(i), dim)
        assert_same(genesis.take_along_dim(x, GI(i, device), dim), want)
        assert_same(genesis.take_along_dim(x, GI(i, device), dim=dim), want)
        assert_same(x.take_along_dim(GI(i, device), dim), want)
    # dim=None: both flattened.
    i = rand_index((3, 5), a.size, 39)
    want = torch.take_along_dim(tx, T(i))
    assert_same(genesis.take_along_dim(x, GI(i, device)), want)
    assert_same(genesis.take_along_dim(x, GI(i, device), None), want)
    assert_same(x.take_along_dim(GI(i, device)), want)


def test_take(device, dtype):
    a = random_array((4, 5), dtype, 4)
    x, tx = G(a, dtype, device), T(a, dtype)
    i = rand_index((3, 7), 20, 5, low=-20)  # negative indices count from the end (PyTorch)
    want = torch.take(tx, T(i))
    assert_same(genesis.take(x, GI(i, device)), want)
    assert_same(x.take(GI(i, device)), want)
    assert_same(genesis.take(input=x, index=GI(i, device)), want)
    i0 = np.asarray(-1)  # a 0-d index gives a 0-d result
    assert_same(genesis.take(x, GI(i0, device)), torch.take(tx, T(i0)))


def test_masked_select(device, dtype):
    a = random_array(SHAPE, dtype, 6)
    x, tx = G(a, dtype, device), T(a, dtype)
    for k, mshape in enumerate([SHAPE, (5, 6), (5, 1), (6,), (1,), ()]):
        m = mask_of(mshape, 60 + k)
        want = torch.masked_select(tx, T(m))
        assert_same(genesis.masked_select(x, G(m, B, device)), want)
        assert_same(x.masked_select(G(m, B, device)), want)
    none = np.zeros((5, 6), dtype=bool)
    assert_same(x.masked_select(G(none, B, device)), torch.masked_select(tx, T(none)))
    # The input broadcasts to the mask's shape too.
    small = random_array((5, 1), dtype, 7)
    m = mask_of(SHAPE, 8)
    want = torch.masked_select(T(small, dtype), T(m))
    assert_same(genesis.masked_select(G(small, dtype, device), G(m, B, device)), want)


def test_nonzero_argwhere_where(device, dtype):
    a = np.array(random_array(SHAPE, dtype, 9), copy=True)
    a[random_array(SHAPE, B, 10)] = 0  # about half zeros
    if dtype.is_floating_point:
        a.reshape(-1)[:4] = [np.nan, -0.0, np.inf, 0.0]  # NaN is nonzero, -0.0 is zero
    x, tx = G(a, dtype, device), T(a, dtype)
    want = torch.nonzero(tx)
    for got in (genesis.nonzero(x), x.nonzero(), genesis.argwhere(x), x.argwhere()):
        assert_same(got, want)
    assert_same(genesis.nonzero(input=x, as_tuple=False), want)
    want_t = torch.nonzero(tx, as_tuple=True)
    for got in (genesis.nonzero(x, as_tuple=True), x.nonzero(as_tuple=True), genesis.where(x)):
        assert isinstance(got, tuple) and len(got) == len(want_t)
        for g, w in zip(got, want_t):
            assert_same(g, w)


@pytest.mark.parametrize("shape", [(7,), (300_000,), (2, 3, 40_000), (4, 1, 1, 70_001), (5, 0)])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
def test_nonzero_of_large_masks(device, shape, density):
    # Masks long enough to be cut into chunks (Note [Parallel nonzero]), dense and sparse, and
    # a transposed (non-contiguous) view of each.
    a = np.random.default_rng(11).random(shape) < density
    x = genesis.tensor(a, device=device)
    np.testing.assert_array_equal(to_numpy(genesis.nonzero(x)), np.argwhere(a))
    if len(shape) > 1:
        np.testing.assert_array_equal(to_numpy(x.mT.nonzero()), np.argwhere(a.swapaxes(-1, -2)))


def test_nonzero_of_chunks_ending_in_false(device):
    # A 1-d mask's chunks each stop at their last true item (Note [Parallel nonzero]): chunks
    # that end in false runs, chunks with no true item at all, and a true item at each edge.
    n = 3 * 131_072 + 5
    a = np.random.default_rng(12).random(n) < 0.5
    a[131_072 - 1000 : 131_072] = False  # the first chunk ends in a false run
    a[131_072 : 2 * 131_072] = False  # a chunk without a true item
    a[2 * 131_072] = True
    a[-3:] = False
    x = genesis.tensor(a, device=device)
    np.testing.assert_array_equal(to_numpy(x.nonzero()).ravel(), np.flatnonzero(a))
    a[:] = False
    a[-1] = True
    np.testing.assert_array_equal(
        to_numpy(genesis.tensor(a, device=device).nonzero()).ravel(), np.flatnonzero(a)
    )


@pytest.mark.parametrize("n", [1, 3, 4095, 4096, 4097, 3 * 4096 + 5, 70_001])
@pytest.mark.parametrize("offset", [0, 1, 2])
def test_nonzero_of_1d_masks_around_tiles(device, n, offset):
    # On CUDA a 1-d mask's positions are a select over tiles of 4096 (Note [Positions of a 1-d
    # mask]): lengths around a tile, masks starting 1 and 2 bytes past an alignment, and every
    # density from none to all.
    rng = np.random.default_rng(n + offset)
    for density in (0.0, 0.3, 1.0):
        a = rng.random(n + offset) < density
        x = genesis.tensor(a, device=device)[offset:]
        assert x.is_contiguous()
        np.testing.assert_array_equal(to_numpy(x.nonzero()).ravel(), np.flatnonzero(a[offset:]))
        (col,) = genesis.nonzero(x, as_tuple=True)
        np.testing.assert_array_equal(to_numpy(col), np.flatnonzero(a[offset:]))


# ---- writers over every dtype -------------------------------------------------------------


def test_masked_fill(device, dtype):
    a = random_array(SHAPE, dtype, 11)
    x, tx = G(a, dtype, device), T(a, dtype)
    value = FILL[dtype]
    for k, mshape in enumerate([SHAPE, (5, 6), (5, 1), ()]):  # the mask broadcasts to x
        m = mask_of(mshape, 110 + k)
        gm, tm = G(m, B, device), T(m)
        want = torch.masked_fill(tx, tm, value)
        assert_same(genesis.masked_fill(x, gm, value), want)
        assert_same(x.masked_fill(gm, value), want)
        assert_same(genesis.masked_fill(input=x, mask=gm, value=value), want)
        # A 0-d tensor value, of x's dtype or another one (converted, as in PyTorch).
        g_value = genesis.tensor(value, dtype=dtype, device=device)
        assert_same(x.masked_fill(gm, g_value), torch.masked_fill(tx, tm, torch.tensor(value)))
        g3 = genesis.tensor(3.0, dtype=F64, device=device)
        assert_same(
            x.masked_fill(gm, g3), tx.masked_fill(tm, torch.tensor(3.0, dtype=torch.float64))
        )
        y = x.clone()
        assert y.masked_fill_(gm, value) is y
        assert_same(y, want)
        y = x.clone()
        assert y.masked_fill_(gm, g_value) is y
        assert_same(y, want)
    assert_same(x, tx)


def test_masked_scatter(device, dtype):
    a = random_array(SHAPE, dtype, 12)
    x, tx = G(a, dtype, device), T(a, dtype)
    # More elements than any mask selects: the leading ones are read, in row-major order.
    s = random_array((11, 13), dtype, 13)
    gs, ts = G(s, dtype, device), T(s, dtype)
    for k, mshape in enumerate([SHAPE, (5, 6), (6,), ()]):
        m = mask_of(mshape, 120 + k)
        gm, tm = G(m, B, device), T(m)
        want = torch.masked_scatter(tx, tm, ts)
        assert_same(genesis.masked_scatter(x, gm, gs), want)
        assert_same(x.masked_scatter(gm, gs), want)
        assert_same(genesis.masked_scatter(input=x, mask=gm, source=gs), want)
        y = x.clone()
        assert y.masked_scatter_(gm, gs) is y
        assert_same(y, want)
    assert_same(x, tx)


def test_index_fill(device, dtype):
    a = random_array(SHAPE, dtype, 14)
    x, tx = G(a, dtype, device), T(a, dtype)
    value = FILL[dtype]
    for k, dim in enumerate(DIMS):
        i = rand_index((4,), SHAPE[dim], 140 + k)  # duplicates all write the same value
        gi, ti = GI(i, device), T(i)
        want = torch.index_fill(tx, dim, ti, value)
        assert_same(genesis.index_fill(x, dim, gi, value), want)
        assert_same(x.index_fill(dim, gi, value), want)
        assert_same(genesis.index_fill(input=x, dim=dim, index=gi, value=value), want)
        g_value = genesis.tensor(value, dtype=dtype, device=device)
        assert_same(x.index_fill(dim, gi, g_value), want)
        y = x.clone()
        assert y.index_fill_(dim, gi, value) is y
        assert_same(y, want)
        i0 = np.asarray(SHAPE[dim] - 1)
        want = torch.index_fill(tx, dim, T(i0), torch.tensor(value))
        assert_same(x.index_fill(dim, GI(i0, device), g_value), want)
    assert_same(x, tx)


def test_index_copy(device, dtype):
    a = random_array(SHAPE, dtype, 15)
    x, tx = G(a, dtype, device), T(a, dtype)
    for k, dim in enumerate(DIMS):
        n = SHAPE[dim]
        i = np.random.default_rng(150 + k).permutation(n)[: n - 1].astype(np.int64)
        sshape = list(SHAPE)
        sshape[dim] = n - 1
        s = random_array(sshape, dtype, 160 + k)
        gi, gs, ti, ts = GI(i, device), G(s, dtype, device), T(i), T(s, dtype)
        want = torch.index_copy(tx, dim, ti, ts)
        assert_same(genesis.index_copy(x, dim, gi, gs), want)
        assert_same(x.index_copy(dim, gi, gs), want)
        assert_same(genesis.index_copy(input=x, dim=dim, index=gi, source=gs), want)
        y = x.clone()
        assert y.index_copy_(dim, gi, gs) is y
        assert_same(y, want)
        # A 0-d index: the source has one entry in dim.
        sshape[dim] = 1
        s1 = random_array(sshape, dtype, 170 + k)
        i0 = np.asarray(n - 1)
        want = torch.index_copy(tx, dim, T(i0), T(s1, dtype))
        assert_same(x.index_copy(dim, GI(i0, device), G(s1, dtype, device)), want)
    assert_same(x, tx)


def test_scatter(device, dtype):
    a = random_array(SHAPE, dtype, 16)
    x, tx = G(a, dtype, device), T(a, dtype)
    value = FILL[dtype]
    for k, dim in enumerate(DIMS):
        ishape = [3, 4, 5]
        ishape[dim] = SHAPE[dim] - 1
        i = unique_index(ishape, dim, SHAPE[dim], 180 + k)  # duplicates keep any one value
        # src is larger than index in every dim: only its leading block is read.
        s = random_array([n + 1 for n in ishape], dtype, 190 + k)
        gi, gs, ti, ts = GI(i, device), G(s, dtype, device), T(i), T(s, dtype)
        want = torch.scatter(tx, dim, ti, ts)
        assert_same(genesis.scatter(x, dim, gi, gs), want)
        assert_same(x.scatter(dim, gi, gs), want)
        assert_same(genesis.scatter(input=x, dim=dim, index=gi, src=gs), want)
        y = x.clone()
        assert y.scatter_(dim, gi, gs) is y
        assert_same(y, want)
        # A Python number as src.
        want = torch.scatter(tx, dim, ti, value)
        assert_same(genesis.scatter(x, dim, gi, value), want)
        assert_same(x.scatter(dim, gi, value), want)
        y = x.clone()
        assert y.scatter_(dim, gi, value) is y
        assert_same(y, want)
    assert_same(x, tx)


@pytest.mark.parametrize("dtype", [U8, F16, F32, I64], ids=dtype_id)
def test_scatter_along_the_last_dim_of_rows(device, dtype):
    # Dense rows of index and src with a multiple of 4 columns take the CUDA rows kernel (Note
    # at scatter_index_flat_kernel in kernels/index.cu): x wider than index, x a strided view,
    # outer dims that merge, a shape that does not fit (7 columns), and an out-of-range index,
    # which raises and writes nothing.
    cases = [((6, 12), (6, 8)), ((2, 3, 16), (2, 3, 8)), ((5, 7), (5, 4)), ((4, 9), (4, 7))]
    for k, (xshape, ishape) in enumerate(cases):
        a = random_array(xshape, dtype, 300 + k)
        i = unique_index(ishape, -1, xshape[-1], 310 + k)
        src = random_array(ishape, dtype, 320 + k)
        for view in (False, True):
            if view:  # every other column of a wider tensor
                wide = np.repeat(a, 2, axis=-1)
                x = G(wide, dtype, device)[..., ::2]
                assert not x.is_contiguous()
            else:
                x = G(a, dtype, device)
            want = torch.scatter(T(a, dtype), -1, T(i), T(src, dtype))
            assert_same(x.scatter_(-1, GI(i, device), G(src, dtype, device)), want)
    x = G(random_array((4, 8), dtype, 330), dtype, device)
    before = to_numpy(x).copy()
    bad = np.tile(np.arange(4, dtype=np.int64), (4, 1))
    bad[2, 3] = 8
    with raises_index_error():
        x.scatter_(1, GI(bad, device), G(random_array((4, 4), dtype, 331), dtype, device))
    np.testing.assert_array_equal(to_numpy(x), before)


@pytest.mark.parametrize("dtype", [U8, F16, F32, I64], ids=dtype_id)
def test_scatter_of_many_rows_matches_torch(device, dtype):
    # 512 or more dense rows whose dst rows fit in shared memory take the staged CUDA kernel
    # (Note [Staged row scatter] in kernels/index.cu): whole rows, x wider than index (its
    # other items kept), x a column slice of a wider tensor (the columns past it untouched),
    # rows of more than 256 quads (a thread takes several), and a duplicate-free index whose
    # rows skip some of x's items.
    cases = [((600, 64), (600, 64)), ((520, 48), (520, 32)), ((512, 1280), (512, 1024))]
    for k, (xshape, ishape) in enumerate(cases):
        a = random_array(xshape, dtype, 340 + k)
        i = unique_index(ishape, -1, xshape[-1], 350 + k)
        src = random_array(ishape, dtype, 360 + k)
        want = torch.scatter(T(a, dtype), -1, T(i), T(src, dtype))
        assert_same(G(a, dtype, device).scatter_(-1, GI(i, device), G(src, dtype, device)), want)
        wide = np.concatenate([a, random_array(xshape, dtype, 370 + k)], axis=-1)
        w = G(wide, dtype, device)
        w[:, : xshape[-1]].scatter_(1, GI(i, device), G(src, dtype, device))
        assert_same(w[:, : xshape[-1]], want)
        np.testing.assert_array_equal(to_numpy(w)[:, xshape[-1] :], wide[:, xshape[-1] :])
    # Duplicates within rows: each written item is one of the values sent to it.
    rows, cols = 600, 32
    i = np.random.default_rng(380).integers(0, cols // 2, (rows, cols), dtype=np.int64)
    src = random_array((rows, cols), dtype, 381)
    x = genesis.zeros(rows, cols, dtype=dtype, device=device)
    got = to_numpy(x.scatter_(1, GI(i, device), G(src, dtype, device)))
    for r in range(0, rows, 37):
        for j in range(cols):
            sent = src[r][i[r] == j]
            assert got[r, j] in sent if sent.size else got[r, j] == 0, (r, j)
    # An out-of-range index raises and writes nothing, in any row.
    x = G(random_array((600, 64), dtype, 390), dtype, device)
    before = to_numpy(x).copy()
    bad = unique_index((600, 64), -1, 64, 391)
    bad[599, 5] = 64
    with raises_index_error():
        x.scatter_(1, GI(bad, device), G(random_array((600, 64), dtype, 392), dtype, device))
    np.testing.assert_array_equal(to_numpy(x), before)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_cpu_gather_along_a_dim_of_a_large_view(dim):
    # One checked pass over the index (cpu::gather_along_dim), cut over threads: a strided
    # source, negative indices, an index smaller than x in the other dims; an index out of range
    # anywhere raises, naming it, and nothing outside x is read.
    rng = np.random.default_rng(420 + dim)
    a = rng.standard_normal((70, 50, 80), dtype=np.float32)[:, ::-1, ::2]
    ishape = [64, 44, 36]
    ishape[dim] = 90
    i = rng.integers(-a.shape[dim], a.shape[dim], ishape)
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(ishape))
    want = np.take_along_axis(a[cut], i, axis=dim)
    x = genesis.tensor(np.ascontiguousarray(a[::-1]))[::-1]  # a view with a negative stride
    got = x.gather(dim, genesis.tensor(i))
    np.testing.assert_array_equal(got.numpy(), want)
    bad = i.copy()
    bad[-1, -1, -1] = -a.shape[dim] - 1
    with pytest.raises(IndexError, match=rf"index {bad[-1, -1, -1]} is out of bounds for dim"):
        x.gather(dim, genesis.tensor(bad))


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_cpu_scatter_along_a_dim_keeps_the_serial_order(dim):
    # Note [Scattering along a dim on the CPU]: threads take whole slices of dim 0 (dim 1 when
    # scattering along dim 0), so with duplicates the last value in row-major order wins and sums
    # add in that order, bit for bit, as NumPy's fancy assignment and np.add.at do serially.
    # Large enough to be cut over threads; index smaller than x in the other dims, and strided.
    rng = np.random.default_rng(400 + dim)
    xshape, ishape = [64, 48, 40], [60, 44, 36]
    ishape[dim] = 96  # more index items than x has along dim: duplicates in every fiber
    a = rng.standard_normal(xshape, dtype=np.float32)
    i = rng.integers(-xshape[dim], xshape[dim], ishape * np.array([1, 1, 2]))[..., ::2]
    src = rng.standard_normal(ishape, dtype=np.float32)
    grid = list(np.ix_(*[np.arange(n) for n in ishape]))
    grid[dim] = np.where(i < 0, i + xshape[dim], i)
    want = a.copy()
    want[tuple(grid)] = src  # serial, row-major: the last duplicate wins
    x = genesis.tensor(a)
    x.scatter_(dim, genesis.tensor(i), genesis.tensor(src))
    np.testing.assert_array_equal(x.numpy(), want)
    want = a.copy()
    np.add.at(want, tuple(grid), src)
    x = genesis.tensor(a)
    x.scatter_add_(dim, genesis.tensor(i), genesis.tensor(src))
    assert x.numpy().tobytes() == want.tobytes()
    # An index out of range anywhere raises and writes nothing.
    bad = i.copy()
    bad[-1, -1, -1] = xshape[dim]
    x = genesis.tensor(a)
    with raises_index_error():
        x.scatter_(dim, genesis.tensor(bad), genesis.tensor(src))
    with raises_index_error():
        x.scatter_add_(dim, genesis.tensor(bad), genesis.tensor(src))
    np.testing.assert_array_equal(x.numpy(), a)


def test_duplicate_indices_keep_one_of_the_values(device):
    # PyTorch documents scatter_ and index_copy_ with duplicate indices as keeping an
    # unspecified one of the written values.
    src = genesis.tensor([10.0, 20.0, 30.0, 40.0], device=device)
    i = GI([1, 1, 1, 3], device)
    for got in (
        genesis.zeros(5, device=device).scatter(0, i, src),
        genesis.zeros(5, device=device).index_copy(0, i, src),
    ):
        v = to_numpy(got)
        assert v[1] in (10.0, 20.0, 30.0)
        np.testing.assert_array_equal(v[[0, 2, 3, 4]], [0.0, 0.0, 40.0, 0.0])


def test_value_conversion_matches_torch(device):
    # Numbers are converted to the tensor's dtype as PyTorch does: floats truncate into
    # integers, anything nonzero is True; values out of the dtype's range raise RuntimeError.
    m = genesis.tensor([True, False, True], device=device)
    tm = torch.tensor([True, False, True])
    for dt, value in [(I64, 2.7), (I32, -1.7), (B, 2.5), (B, 0.0), (F32, True), (F16, 1 / 3)]:
        a = random_array((3,), dt, 200)
        x, tx = G(a, dt, device), T(a, dt)
        assert_same(x.masked_fill(m, value), tx.masked_fill(tm, value))
        assert_same(x.index_fill(0, GI([2], device), value), tx.index_fill(0, T([2]), value))
        assert_same(x.scatter(0, GI([1], device), value), tx.scatter(0, T([1]), value))
    x = genesis.zeros(3, dtype=I8, device=device)
    for call, op in [
        (lambda: x.masked_fill(m, 1000), "masked_fill"),
        (lambda: x.masked_fill_(m, -129), "masked_fill_"),
        (lambda: x.index_fill_(0, GI([0], device), 300), "index_fill_"),
        (lambda: x.scatter_(0, GI([0], device), 1e300), "scatter_"),
        (lambda: x.index_fill(0, GI([0], device), genesis.tensor(1000)), "index_fill"),
    ]:
        with pytest.raises(RuntimeError) as e:
            call()
        check_writer_message(e, op)
    assert to_numpy(x).tolist() == [0, 0, 0]


# ---- layouts ------------------------------------------------------------------------------


@pytest.mark.parametrize("data_kind", VIEW_KINDS)
@pytest.mark.parametrize("index_kind", VIEW_KINDS)
@pytest.mark.parametrize("dt", [F32, I16, B], ids=dtype_id)
def test_readers_non_contiguous(device, data_kind, index_kind, dt):
    # Data and indices are non-contiguous views (transposed, negative-step slices); the
    # indices' bases hold out-of-range junk outside the view, so reading it would raise.
    a = random_array((6, 7, 8), dt, 30)
    x, tx = strided(a, data_kind, dt, device), T(a, dt)

    def index(i):
        return strided(i, index_kind, I64, device, junk=JUNK_INDEX)

    i = rand_index((9,), 7, 31)
    assert_same(genesis.index_select(x, 1, index(i)), torch.index_select(tx, 1, T(i)))
    i32 = strided(i.astype(np.int32), index_kind, I32, device, junk=2**31 - 1)
    assert_same(x.index_select(-2, i32), torch.index_select(tx, -2, T(i)))
    i = rand_index((5, 7, 4), 8, 32)
    assert_same(genesis.gather(x, -1, index(i)), torch.gather(tx, -1, T(i)))
    i = rand_index((3, 6, 8), 6, 33)
    assert_same(x.gather(0, index(i)), torch.gather(tx, 0, T(i)))
    i = rand_index((6, 3, 8), 7, 34)
    assert_same(genesis.take_along_dim(x, index(i), 1), torch.take_along_dim(tx, T(i), 1))
    i = rand_index((1, 7, 5), 8, 35)
    assert_same(x.take_along_dim(index(i), -1), torch.take_along_dim(tx, T(i), -1))
    i = rand_index((4, 5), a.size, 36, low=-a.size)
    assert_same(genesis.take(x, index(i)), torch.take(tx, T(i)))
    i %= a.size
    assert_same(genesis.take_along_dim(x, index(i)), torch.take_along_dim(tx, T(i)))
    m = mask_of(a.shape, 37)
    gm = strided(m, index_kind, B, device, junk=True)
    assert_same(genesis.masked_select(x, gm), torch.masked_select(tx, T(m)))
    assert_same(x.masked_select(gm[0]), torch.masked_select(tx, T(m[0])))  # broadcast too
    assert_same(genesis.nonzero(x), torch.nonzero(tx))
    assert_same(gm.nonzero(), torch.nonzero(T(m)))
    for g, w in zip(genesis.where(gm), torch.where(T(m))):
        assert_same(g, w)


# name -> call(target, args) with args built by writer_args (genesis or torch flavour).
WRITERS = {
    "masked_fill_": lambda t, a: t.masked_fill_(a["mask"], 1.5),
    "masked_fill_tensor": lambda t, a: t.masked_fill_(a["mask"], a["value"]),
    "masked_fill_broadcast": lambda t, a: t.masked_fill_(a["mask"][0], -7.0),
    "masked_scatter_": lambda t, a: t.masked_scatter_(a["mask"], a["source"]),
    "index_fill_": lambda t, a: t.index_fill_(1, a["index1"], -3.0),
    "index_copy_": lambda t, a: t.index_copy_(-1, a["perm"], a["slices"]),
    "scatter_": lambda t, a: t.scatter_(-1, a["scatter_index"], a["src"]),
    "scatter_value": lambda t, a: t.scatter_(0, a["scatter_index0"], 9.0),
}


def writer_args(shape, seed):
    """NumPy arguments for WRITERS over a float32 target of `shape` (3-d)."""
    s0, s1, s2 = shape
    return {
        "mask": mask_of(shape, seed),
        "value": np.asarray(4.25, dtype=np.float32),
        "source": random_array((s0 * s1 * s2 + 3,), F32, seed + 1),
        "index1": rand_index((3,), s1, seed + 2),
        "perm": np.random.default_rng(seed + 3).permutation(s2)[: s2 - 1].astype(np.int64),
        "slices": random_array((s0, s1, s2 - 1), F32, seed + 4),
        "scatter_index": unique_index((s0, s1, s2 - 2), -1, s2, seed + 5),
        "src": random_array((s0, s1, s2 - 2), F32, seed + 6),
        "scatter_index0": unique_index((s0 - 1, s1, s2), 0, s0, seed + 7),
    }


@pytest.mark.parametrize("kind", VIEW_KINDS)
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_writers_through_strided_views(device, kind, name):
    # The in-place writers write a non-contiguous view of a base, with non-contiguous
    # arguments, return the view, and the base sees the writes (and nothing else changes).
    a = random_array((6, 5, 8), F32, 40)
    target, base = strided_pair(a, kind, F32, device)
    before = to_numpy(base)
    args = writer_args(tuple(target.shape), 41)
    g_args = {}
    for key, v in args.items():
        dt = {np.dtype(bool): B, np.dtype(np.int64): I64}.get(v.dtype, F32)
        if v.ndim == 0:
            g_args[key] = G(v, dt, device)
        else:
            junk = JUNK_INDEX if dt is I64 else None
            g_args[key] = strided(v, "negative_step" if v.ndim == 1 else kind, dt, device, junk)
    assert WRITERS[name](target, g_args) is target
    t = T(a)
    WRITERS[name](t, {key: torch.from_numpy(v) for key, v in args.items()})
    want = before.copy()
    view_of(want, kind)[...] = t.numpy()
    np.testing.assert_array_equal(to_numpy(base), want)


# ---- 0-d and zero-size --------------------------------------------------------------------


def test_zero_dim(device):
    s = random_array((), F32, 50)
    x, tx = G(s, F32, device), T(s)
    i0, ti0 = GI(0, device), torch.tensor(0)
    i1, ti1 = GI([0], device), torch.tensor([0])
    v = random_array((5,), F32, 51)
    y, ty = G(v, F32, device), T(v)
    one = G([False, True, False, False, False], B, device)
    cases = [
        (genesis.index_select(x, 0, i0), torch.index_select(tx, 0, ti0)),
        (genesis.index_select(x, -1, i1), torch.index_select(tx, -1, ti1)),
        (genesis.index_select(y, 0, GI(3, device)), torch.index_select(ty, 0, torch.tensor(3))),
        (genesis.gather(x, 0, i0), torch.gather(tx, 0, ti0)),
        (genesis.gather(x, 0, GI([0, 0], device)), torch.gather(tx, 0, torch.tensor([0, 0]))),
        (genesis.gather(y, 0, GI(4, device)), torch.gather(ty, 0, torch.tensor(4))),
        (genesis.take(x, i0), torch.take(tx, ti0)),
        (genesis.take(x, GI([[0, 0], [0, 0]], device)), torch.take(tx, torch.zeros(2, 2).long())),
        (genesis.take(y, GI(-2, device)), torch.take(ty, torch.tensor(-2))),
        (genesis.take_along_dim(x, i0), torch.take_along_dim(tx, ti0)),
        (genesis.take_along_dim(y, GI(3, device)), torch.take_along_dim(ty, torch.tensor(3))),
        (genesis.masked_select(x, G(True, B, device)), torch.masked_select(tx, torch.tensor(True))),
        (x.masked_select(G(False, B, device)), tx.masked_select(torch.tensor(False))),
        (x.masked_select(G([True, False, True], B, device)), tx.masked_select(T([1, 0, 1], B))),
        (x.masked_fill(G(True, B, device), 2.0), tx.masked_fill(torch.tensor(True), 2.0)),
        (y.masked_fill(G(True, B, device), 2.0), ty.masked_fill(torch.tensor(True), 2.0)),
        (x.masked_scatter(G(True, B, device), y), tx.masked_scatter(torch.tensor(True), ty)),
        (y.masked_scatter(one, x), ty.masked_scatter(T(to_numpy(one)), tx)),  # a 0-d source
        (x.index_fill(0, i0, 3.0), tx.index_fill(0, ti0, 3.0)),
        (x.index_fill(-1, i1, 3.0), tx.index_fill(-1, ti1, 3.0)),
        (x.index_copy(0, i0, G(7.0, F32, device)), tx.index_copy(0, ti0, torch.tensor(7.0))),
        (x.index_copy(0, i1, G([7.0], F32, device)), tx.index_copy(0, ti1, torch.tensor([7.0]))),
        (x.scatter(0, i0, G(7.0, F32, device)), tx.scatter(0, ti0, torch.tensor(7.0))),
        (x.scatter(0, i0, 7.0), tx.scatter(0, ti0, 7.0)),
        (x.scatter(0, i1, G([7.0], F32, device)), tx.scatter(0, ti1, torch.tensor([7.0]))),
        (genesis.nonzero(x), torch.nonzero(tx)),  # shape (1, 0)
        (genesis.nonzero(G(0.0, F32, device)), torch.nonzero(torch.tensor(0.0))),  # (0, 0)
        (x.argwhere(), tx.argwhere()),
    ]
    for got, want in cases:
        assert_same(got, want)
    for got in (genesis.nonzero(x, as_tuple=True), genesis.where(x)):
        assert len(got) == 1  # a 0-d input counts as 1-d
        assert_same(got[0], torch.nonzero(tx, as_tuple=True)[0])
    # genesis's take_along_dim with a dim takes 0-d input and indices as gather does; PyTorch
    # raises IndexError there (its gather takes them).
    assert_same(genesis.take_along_dim(x, i0, 0), torch.gather(tx, 0, ti0))
    z = x.clone()
    assert z.index_fill_(0, i0, -1.0) is z and z.item() == -1.0
    assert z.scatter_(0, i0, G(5.0, F32, device)) is z and z.item() == 5.0


def test_zero_size(device):
    a = random_array((4, 3), F32, 52)
    x, tx = G(a, F32, device), T(a)
    e, te = genesis.zeros(0, 3, device=device), torch.zeros(0, 3)
    none, tnone = GI(np.zeros(0, np.int64), device), torch.zeros(0, dtype=torch.int64)
    i40, ti40 = GI(np.zeros((4, 0), np.int64), device), torch.zeros(4, 0, dtype=torch.int64)
    i02 = np.zeros((0, 2), np.int64)
    zeros23 = np.zeros((2, 3), np.float32)
    cases = [
        (genesis.index_select(x, 0, none), torch.index_select(tx, 0, tnone)),
        (genesis.index_select(e, 1, GI([2, 0], device)), torch.index_select(te, 1, T([2, 0]))),
        (genesis.index_select(e, 0, none), torch.index_select(te, 0, tnone)),
        (genesis.gather(x, 1, i40), torch.gather(tx, 1, ti40)),
        (genesis.gather(e, 1, GI(i02, device)), torch.gather(te, 1, T(i02))),
        (genesis.gather(x, 0, GI(np.zeros((0, 3), np.int64), device)), tx.gather(0, te.long())),
        (genesis.take(x, GI(i02, device)), torch.take(tx, T(i02))),
        (genesis.take(e, none), torch.take(te, tnone)),
        (genesis.take_along_dim(x, i40, 1), torch.take_along_dim(tx, ti40, 1)),
        (genesis.take_along_dim(e, GI(i02, device), 1), torch.take_along_dim(te, T(i02), 1)),
        (genesis.take_along_dim(x, none), torch.take_along_dim(tx, tnone)),
        (genesis.masked_select(e, e > 0), torch.masked_select(te, te > 0)),
        (genesis.masked_select(x, x != x), torch.masked_select(tx, tx != tx)),  # none selected
        (genesis.nonzero(e), torch.nonzero(te)),
        (genesis.nonzero(G(zeros23, F32, device)), torch.nonzero(T(zeros23))),
        (genesis.masked_fill(e, e > 0, 1.0), torch.masked_fill(te, te > 0, 1.0)),
        (genesis.masked_scatter(e, e > 0, e), torch.masked_scatter(te, te > 0, te)),
        (genesis.masked_scatter(x, x != x, e), torch.masked_scatter(tx, tx != tx, te)),
        (genesis.index_fill(x, 1, none, 1.0), torch.index_fill(tx, 1, tnone, 1.0)),
        (genesis.index_copy(x, 1, none, x[:, :0]), torch.index_copy(tx, 1, tnone, tx[:, :0])),
        (genesis.scatter(x, 1, i40, x[:, :0]), torch.scatter(tx, 1, ti40, tx[:, :0])),
        (genesis.scatter(x, 1, i40, 5.0), torch.scatter(tx, 1, ti40, 5.0)),
        (genesis.scatter(e, 0, e.long(), e), torch.scatter(te, 0, te.long(), te)),
    ]
    for got, want in cases:
        assert_same(got, want)
    for got, want in zip(genesis.nonzero(e, as_tuple=True), torch.nonzero(te, as_tuple=True)):
        assert_same(got, want)
    for call in (
        lambda: genesis.index_select(e, 0, GI([0], device)),
        lambda: genesis.take(e, GI([0], device)),
        lambda: genesis.gather(genesis.zeros(2, 0, device=device), 1, GI([[0]], device)),
    ):
        raises_on(device, IndexError, call)


# ---- out= ---------------------------------------------------------------------------------


OUT_READERS = {
    "index_select": (
        lambda x, out: genesis.index_select(x, 1, GI([2, 0, 2], x.device), out=out),
        lambda tx: torch.index_select(tx, 1, torch.tensor([2, 0, 2])),
    ),
    "gather": (
        lambda x, out: genesis.gather(x, 0, GI([[3, 0, 1], [0, 0, 2]], x.device), out=out),
        lambda tx: torch.gather(tx, 0, torch.tensor([[3, 0, 1], [0, 0, 2]])),
    ),
    "take_along_dim": (
        lambda x, out: genesis.take_along_dim(x, GI([[4, 0, 1]], x.device), dim=1, out=out),
        lambda tx: torch.take_along_dim(tx, torch.tensor([[4, 0, 1]]), dim=1),
    ),
    "masked_select": (
        lambda x, out: genesis.masked_select(x, x > 0, out=out),
        lambda tx: torch.masked_select(tx, tx > 0),
    ),
}


@pytest.mark.parametrize("name", sorted(OUT_READERS))
def test_out(device, name):
    ours, theirs = OUT_READERS[name]
    a = random_array((4, 5), F32, 53)
    x = G(a, F32, device)
    want = theirs(T(a))
    out = genesis.empty(*want.shape, device=device)
    assert ours(x, out) is out
    assert_same(out, want)
    if want.ndim == 2:  # a transposed out is written in place
        out = genesis.empty(*reversed(want.shape), device=device).t()
        assert ours(x, out) is out
        assert_same(out, want)
    wide = genesis.empty(*want.shape, dtype=F64, device=device)  # the result casts to out's dtype
    assert ours(x, wide) is wide
    assert_same(wide, want.double())
    # an out of another shape is resized, with PyTorch's warning (Note [out= arguments])
    other = genesis.empty(want.numel() + 1, device=device)
    with pytest.warns(UserWarning, match="was resized"):
        assert ours(x, other) is other
    assert_same(other, want)
    with pytest.raises(RuntimeError) as e:  # float32 cannot be cast to int64 (as in PyTorch)
        ours(x, genesis.empty(*want.shape, dtype=I64, device=device))
    check_message(e, name)


# ---- read-only tensors --------------------------------------------------------------------


def test_read_only_tensors():
    a = np.array(random_array((4, 5), F32, 54), copy=True)
    a.flags.writeable = False
    x = genesis.from_numpy(a)
    m = genesis.from_numpy(np.array(mask_of((4, 5), 55)))
    i = GI([3, 1], "cpu")
    writers = [
        ("masked_fill_", lambda: x.masked_fill_(m, 0.0)),
        ("masked_fill_", lambda: x.masked_fill_(m, genesis.tensor(0.0))),
        ("masked_scatter_", lambda: x.masked_scatter_(m, genesis.zeros(20))),
        ("index_fill_", lambda: x.index_fill_(0, i, 0.0)),
        ("index_copy_", lambda: x.index_copy_(0, i, genesis.zeros(2, 5))),
        ("scatter_", lambda: x.scatter_(0, i.reshape(2, 1), genesis.zeros(2, 1))),
        ("scatter_", lambda: x.scatter_(0, i.reshape(2, 1), 0.0)),
        ("masked_fill_", lambda: x[1:, ::-2].masked_fill_(m[1:, ::-2], 0.0)),  # a view of it
    ]
    for op, call in writers:
        with pytest.raises(ValueError) as e:
            call()
        check_message(e, op)
    np.testing.assert_array_equal(to_numpy(x), a)
    # The out-of-place forms write a copy, and the readers only read.
    ta, tm = T(a), T(to_numpy(m))
    assert_same(genesis.masked_fill(x, m, 0.0), torch.masked_fill(ta, tm, 0.0))
    assert_same(x.index_fill(0, i, 1.0), ta.index_fill(0, T([3, 1]), 1.0))
    assert_same(x.scatter(1, GI([[4]], "cpu"), 2.0), ta.scatter(1, T([[4]]), 2.0))
    assert_same(genesis.gather(x, 1, GI([[4, 0]], "cpu")), torch.gather(ta, 1, T([[4, 0]])))
    assert_same(x.masked_select(m), ta.masked_select(tm))
    # A read-only out is refused too.
    ro = np.zeros(2, dtype=np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        genesis.index_select(x[0], 0, i, out=genesis.from_numpy(ro))


# ---- bad input ----------------------------------------------------------------------------

# name -> call(index) over a (3, 4) float32 tensor on `device` (index: the bad-dtype index).
INDEX_TAKERS = {
    "index_select": lambda x, i: genesis.index_select(x, 0, i),
    "gather": lambda x, i: genesis.gather(x, 0, i.reshape(1, -1)),
    "take": lambda x, i: genesis.take(x, i),
    "take_along_dim": lambda x, i: genesis.take_along_dim(x, i.reshape(1, -1), 1),
    "take_along_dim_flat": lambda x, i: x.take_along_dim(i),
    "index_fill": lambda x, i: genesis.index_fill(x, 0, i, 1.0),
    "index_fill_": lambda x, i: x.index_fill_(0, i, 1.0),
    "index_copy": lambda x, i: x.index_copy(0, i, genesis.zeros(2, 4, device=x.device)),
    "index_copy_": lambda x, i: x.index_copy_(0, i, genesis.zeros(2, 4, device=x.device)),
    "scatter": lambda x, i: genesis.scatter(x, 0, i.reshape(1, -1), x),
    "scatter_": lambda x, i: x.scatter_(0, i.reshape(1, -1), 1.0),
}


@pytest.mark.parametrize("idt", [I32, I16, U8, B, F32], ids=dtype_id)
@pytest.mark.parametrize("name", sorted(INDEX_TAKERS))
def test_bad_index_dtype(device, name, idt):
    # index_select takes int32 or int64 indices, the others int64 only (as documented; PyTorch
    # also takes int32 for gather and scatter). genesis raises TypeError for a wrong dtype
    # where PyTorch raises RuntimeError or IndexError.
    if name == "index_select" and idt is I32:
        return
    x = G(random_array((3, 4), F32, 56), F32, device)
    i = genesis.tensor([1, 0], device=device).to(idt)
    with pytest.raises(TypeError) as e:
        INDEX_TAKERS[name](x, i)
    check_writer_message(e, name.replace("_flat", ""))
    assert_same(x, T(random_array((3, 4), F32, 56)))


def test_bad_shapes(device):
    def g(shape, dt=F32, seed=57):
        return G(random_array(shape, dt, seed, low=0, high=1), dt, device)

    x = g((3, 4))
    i = genesis.zeros(1, 4, dtype=I64, device=device)
    # Dims and sizes: RuntimeError, as in PyTorch.
    runtime = [
        ("gather", lambda: genesis.gather(x, 0, i.reshape(4))),  # ndim differs
        ("gather", lambda: genesis.gather(x, 0, genesis.zeros(1, 5, dtype=I64, device=device))),
        ("gather", lambda: x.gather(1, genesis.zeros(4, 1, dtype=I64, device=device))),
        ("take_along_dim", lambda: genesis.take_along_dim(x, i.reshape(4), 0)),
        ("scatter_", lambda: x.scatter_(0, i.reshape(4), x[0])),
        ("scatter_", lambda: x.scatter_(0, i.reshape(4), 1.0)),
        ("scatter_", lambda: x.clone().scatter_(1, i.reshape(4, 1), 1.0)),
        ("scatter", lambda: x.scatter(0, i.expand(2, 4), x[:1])),  # src too small
        ("scatter", lambda: x.scatter(0, i, x[:, :3])),
        ("index_copy", lambda: x.index_copy(0, i[0, :2], g((2, 3)))),  # PyTorch: IndexError
        ("index_copy_", lambda: x.index_copy_(0, i[0, :2], g((3, 4)))),
        ("index_copy_", lambda: x.index_copy_(0, i[0, :2], g((2, 4, 1)))),
        ("masked_fill_", lambda: x[:, :1].masked_fill_(x > 0, 1.0)),  # mask larger than self
        ("masked_fill", lambda: x.masked_fill(x > 0, genesis.ones(1, device=device))),
        ("index_fill", lambda: x.index_fill(0, i[0, :1], genesis.ones(1, device=device))),
        ("masked_scatter_", lambda: x.masked_scatter_(x > -1, genesis.zeros(11, device=device))),
        ("masked_scatter", lambda: x.masked_scatter(x > -1, genesis.zeros(3, 3, device=device))),
    ]
    for op, call in runtime:
        with pytest.raises(RuntimeError) as e:
            call()
        check_writer_message(e, op)
    # Indices that are not vectors, and dims out of range: IndexError (PyTorch raises
    # IndexError for these too, but RuntimeError for index_fill's index; genesis is uniform).
    index = [
        ("index_select", lambda: genesis.index_select(x, 0, i)),
        ("index_fill", lambda: x.index_fill(0, i, 1.0)),
        ("index_copy_", lambda: x.index_copy_(0, i, g((1, 4)))),
        ("index_select", lambda: x.index_select(2, i[0])),
        ("gather", lambda: genesis.gather(x, -3, i)),
        ("take_along_dim", lambda: x.take_along_dim(i, 2)),
        ("index_fill_", lambda: x.index_fill_(-3, i[0], 1.0)),
        ("index_copy", lambda: x.index_copy(2, i[0, :1], g((3, 4, 1)))),
        ("scatter_", lambda: x.scatter_(2, i, 1.0)),
    ]
    for op, call in index:
        with raises_index_error() as e:
            call()
        check_writer_message(e, op)
    # Shapes that do not broadcast: ValueError in genesis (Note [Broadcasting] errors are
    # ValueError), RuntimeError in PyTorch.
    m4 = genesis.ones(4, 3, dtype=B, device=device)
    value = [
        ("masked_select", lambda: genesis.masked_select(x, m4)),
        ("masked_fill", lambda: x.masked_fill(m4, 1.0)),
        ("masked_fill_", lambda: x.masked_fill_(m4, genesis.tensor(1.0, device=device))),
        ("masked_scatter_", lambda: x.masked_scatter_(m4, genesis.zeros(12, device=device))),
        ("take_along_dim", lambda: genesis.take_along_dim(x, i.expand(2, 4)[:, :2], 1)),
    ]
    for op, call in value:
        with pytest.raises(ValueError) as e:
            call()
        check_writer_message(e, op)
    assert_same(x, T(random_array((3, 4), F32, 57, low=0, high=1)))


def test_out_of_place_masked_ops_broadcast_the_input(device):
    # As PyTorch: torch.masked_fill(zeros(3, 1), ones(3, 4).bool(), 1) has shape (3, 4); the
    # in-place forms still need the mask to broadcast to self's shape.
    x = genesis.zeros(3, 1, device=device)
    m = genesis.ones(3, 4, dtype=B, device=device)
    tx, tm = torch.zeros(3, 1), torch.ones(3, 4, dtype=torch.bool)
    assert_same(genesis.masked_fill(x, m, 1.0), torch.masked_fill(tx, tm, 1.0))
    src = genesis.arange(12.0, device=device)
    assert_same(x.masked_scatter(m, src), tx.masked_scatter(tm, torch.arange(12.0)))
    with pytest.raises(RuntimeError) as e:
        x.masked_fill_(m, 1.0)
    check_writer_message(e, "masked_fill_")


@pytest.mark.parametrize("mdt", [U8, I64, F32], ids=dtype_id)
def test_masks_must_be_bool(device, mdt):
    # genesis raises TypeError for a non-bool mask; PyTorch raises RuntimeError.
    x = G(random_array((2, 3), F32, 58), F32, device)
    m = genesis.tensor([[1, 0, 1], [0, 1, 1]], device=device).to(mdt)
    for op, call in [
        ("masked_select", lambda: genesis.masked_select(x, m)),
        ("masked_select", lambda: x.masked_select(m)),
        ("masked_fill", lambda: genesis.masked_fill(x, m, 0.0)),
        ("masked_fill_", lambda: x.masked_fill_(m, 0.0)),
        ("masked_fill_", lambda: x.masked_fill_(m, genesis.tensor(0.0, device=device))),
        ("masked_scatter", lambda: x.masked_scatter(m, x)),
        ("masked_scatter_", lambda: x.masked_scatter_(m, x)),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        check_writer_message(e, op)


def test_source_dtype_must_match(device):
    # The written values have the tensor's dtype: TypeError in genesis, RuntimeError in PyTorch.
    x = G(random_array((2, 3), F32, 59), F32, device)
    d = genesis.ones(2, 3, dtype=F64, device=device)
    i = GI([1, 0], device)
    for op, call in [
        ("masked_scatter", lambda: x.masked_scatter(x > 0, d)),
        ("masked_scatter_", lambda: x.masked_scatter_(x > 0, d)),
        ("index_copy", lambda: genesis.index_copy(x, 0, i, d)),
        ("index_copy_", lambda: x.index_copy_(0, i, d)),
        ("scatter", lambda: genesis.scatter(x, 0, i.reshape(2, 1), d)),
        ("scatter_", lambda: x.scatter_(0, i.reshape(2, 1), d)),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        check_writer_message(e, op)


def test_masked_scatter_source_too_small(device):
    x = genesis.zeros(2, 3, device=device)
    m = genesis.tensor([[True, False, True], [True, True, False]], device=device)
    for call in (
        lambda: x.masked_scatter_(m, genesis.ones(3, device=device)),
        lambda: genesis.masked_scatter(x, m, genesis.ones(1, 3, device=device)),
        lambda: x.masked_scatter(m[0], genesis.ones(3, device=device)),  # broadcast: 4 selected
    ):
        with pytest.raises(RuntimeError) as e:
            call()
        check_writer_message(e, "masked_scatter")
    assert to_numpy(x).sum() == 0  # nothing written
    got = x.masked_scatter(m, genesis.arange(4.0, device=device))  # exactly enough
    assert_same(got, torch.zeros(2, 3).masked_scatter(T(to_numpy(m)), torch.arange(4.0)))


def test_where_takes_one_or_three_arguments(device):
    x = genesis.tensor([[0, 1], [2, 0]], device=device)
    got = genesis.where(condition=x)
    want = torch.where(torch.tensor([[0, 1], [2, 0]]))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        assert_same(g, w)
    with pytest.raises(TypeError) as e:
        genesis.where(x > 0, x)
    check_message(e, "where")
    assert_same(genesis.where(x > 0, x, -x), torch.tensor([[0, 1], [2, 0]]))


# name -> (op in the message, call(x, device)) over a (3, 4) float32 tensor: an index past the
# end (or before the start) of the indexed dim.
OUT_OF_RANGE = {
    "index_select": ("index_select", lambda x, d: genesis.index_select(x, 1, GI([0, 4], d))),
    "index_select_int32": ("index_select", lambda x, d: x.index_select(0, GI([3], d, I32))),
    "index_select_0d": ("index_select", lambda x, d: x.index_select(0, GI(5, d))),
    "gather": ("gather", lambda x, d: genesis.gather(x, 0, GI([[0, 3]], d))),
    "gather_dim1": ("gather", lambda x, d: x.gather(1, GI([[1], [4]], d))),
    "take": ("take", lambda x, d: genesis.take(x, GI([11, 12], d))),
    "take_negative": ("take", lambda x, d: x.take(GI([-13], d))),
    "take_along_dim": ("take_along_dim", lambda x, d: genesis.take_along_dim(x, GI([[4]], d), 1)),
    "take_along_dim_flat": ("take_along_dim", lambda x, d: x.take_along_dim(GI([12], d))),
    "index_fill": ("index_fill", lambda x, d: genesis.index_fill(x, 1, GI([4], d), 0.0)),
    "index_fill_": ("index_fill_", lambda x, d: x.index_fill_(0, GI([-4], d), 0.0)),
    "index_copy": ("index_copy", lambda x, d: x.index_copy(0, GI([3], d), x[:1])),
    "index_copy_": ("index_copy_", lambda x, d: x.index_copy_(1, GI([1, 7], d), x[:, :2])),
    "scatter": ("scatter", lambda x, d: genesis.scatter(x, 0, GI([[3]], d), x)),
    "scatter_": ("scatter_", lambda x, d: x.scatter_(1, GI([[0, 4]], d), x)),
    "scatter_value": ("scatter_", lambda x, d: x.scatter_(1, GI([[9]], d), 1.0)),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_RANGE))
def test_out_of_range_index(device, name):
    op, call = OUT_OF_RANGE[name]
    x = G(random_array((3, 4), F32, 60), F32, device)
    e = raises_on(device, IndexError, lambda: call(x, device))
    if device == "cpu":
        check_writer_message(e, op)


# ---- edge cases: negative indices, 0-d inputs, tensor values, expanded targets --------------

NEGATIVE_INDEX = {
    "gather": (lambda x, i: genesis.gather(x, 0, i), lambda t, i: torch.gather(t, 0, i)),
    "index_select": (lambda x, i: x.index_select(0, i), lambda t, i: t.index_select(0, i)),
    "index_copy": (lambda x, i: x.index_copy(0, i, x[:1]), lambda t, i: t.index_copy(0, i, t[:1])),
    "scatter": (lambda x, i: x.scatter(0, i, x), lambda t, i: t.scatter(0, i, t)),
    "scatter_value": (lambda x, i: x.scatter(0, i, 1.0), lambda t, i: t.scatter(0, i, 1.0)),
}


@pytest.mark.parametrize("name", sorted(NEGATIVE_INDEX))
def test_negative_index_counts_from_the_end(device, name):
    # A documented difference (user guide, "The index family"): genesis runs these as index
    # keys, so -1 is the last entry as in x[-1]; PyTorch rejects negative indices here.
    ours = NEGATIVE_INDEX[name][0]
    x = genesis.arange(3.0, device=device)
    want = to_numpy(ours(x, GI([2], device)).cpu())
    np.testing.assert_array_equal(to_numpy(ours(x, GI([-1], device)).cpu()), want)
    raises_on(device, IndexError, lambda: ours(x, GI([-4], device)))


@pytest.mark.parametrize("n", [0, 2])
def test_index_select_0d_input_needs_one_index(device, n):
    x = genesis.tensor(5.0, device=device)
    with pytest.raises(RuntimeError) as e:
        genesis.index_select(x, 0, GI(np.zeros(n, np.int64), device))
    check_message(e, "index_select")


@pytest.mark.parametrize("value", [1000, -129, float("nan"), float("inf")])
def test_masked_fill_tensor_value_out_of_range(device, value):
    x = genesis.zeros(3, dtype=I8, device=device)
    m = genesis.tensor([True, False, True], device=device)
    with pytest.raises(RuntimeError) as e:
        x.masked_fill_(m, genesis.tensor(value, device=device))
    check_message(e, "masked_fill_")


EXPANDED_WRITERS = {
    "index_copy_": (
        lambda x: x.index_copy_(1, GI([0], x.device), genesis.ones(2, 1, device=x.device)),
        lambda t: t.index_copy_(1, torch.tensor([0]), torch.ones(2, 1)),
    ),
    "masked_scatter_": (
        lambda x: x.masked_scatter_(x == x, genesis.ones(6, device=x.device)),
        lambda t: t.masked_scatter_(torch.ones(2, 3, dtype=torch.bool), torch.ones(6)),
    ),
    "scatter_": (
        lambda x: x.scatter_(1, GI([[0], [1]], x.device), genesis.ones(2, 1, device=x.device)),
        lambda t: t.scatter_(1, torch.tensor([[0], [1]]), torch.ones(2, 1)),
    ),
}


@pytest.mark.parametrize("name", sorted(EXPANDED_WRITERS))
def test_writes_into_expanded_tensor_raise(device, name):
    ours = EXPANDED_WRITERS[name][0]
    with pytest.raises(RuntimeError) as e:
        ours(genesis.zeros(1, 3, device=device).expand(2, 3))
    check_message(e, name)


def test_pytorch_behaviour_behind_the_edge_cases():
    # PyTorch's own behaviour in the cases above (genesis follows it but for negative indices).
    for _, theirs in NEGATIVE_INDEX.values():
        with pytest.raises((IndexError, RuntimeError)):
            theirs(torch.arange(3.0), torch.tensor([-1]))
    for n in (0, 2):
        with pytest.raises(RuntimeError):
            torch.index_select(torch.tensor(5.0), 0, torch.zeros(n, dtype=torch.int64))
    m = torch.tensor([True, False, True])
    for value in (1000, -129, float("nan"), float("inf")):
        with pytest.raises(RuntimeError):
            torch.zeros(3, dtype=torch.int8).masked_fill(m, torch.tensor(value))
    for _, theirs in EXPANDED_WRITERS.values():
        with pytest.raises(RuntimeError):
            theirs(torch.zeros(1, 3).expand(2, 3))


@pytest.mark.parametrize("dtype", [genesis.int8, genesis.float16, genesis.float32, genesis.float64])
@pytest.mark.parametrize("row", [(), (1,), (3,), (4,), (2, 8), (5, 7)])
def test_row_gathers(device, dtype, row):
    """x[idx] and index_select(0, idx) copy whole rows when the rows are dense (CUDA: in pieces of
    up to 16 bytes, Note [Row gathers]); rows of every width and alignment, a sliced source,
    negative and repeated indices, and an out-of-range index."""
    rng = np.random.default_rng(len(row))
    a = rng.integers(-50, 50, (9, *row)).astype(np.float64)
    x = genesis.tensor(a, dtype=dtype, device=device)
    idx = np.array([3, -1, 0, 3, 8, -9, 2])
    gi = genesis.tensor(idx, device=device)
    np.testing.assert_array_equal(to_numpy(x[gi]).astype(np.float64), a[idx])
    np.testing.assert_array_equal(
        to_numpy(x.index_select(0, gi % 9)).astype(np.float64), a[idx % 9]
    )
    sliced = x[1:]  # rows start one row in: another alignment
    np.testing.assert_array_equal(to_numpy(sliced[gi % 8]).astype(np.float64), a[1:][idx % 8])
    if row:
        inner = x[..., 1:] if row[-1] > 1 else x
        ref = a[..., 1:] if row[-1] > 1 else a
        np.testing.assert_array_equal(to_numpy(inner[gi]).astype(np.float64), ref[idx])
    with raises_index_error(match="out of bounds"):
        x[genesis.tensor([0, 9], device=device)]
    assert x[gi].sum().item() == x[gi].sum().item()  # the context is intact


@pytest.mark.parametrize("dtype", [genesis.int8, genesis.float16, genesis.float32, genesis.int64])
def test_gather_along_the_last_dim(device, dtype):
    """CUDA gathers along the last dim of contiguous tensors four items a thread when index rows
    are the input's rows and hold a multiple of 4 items; the other shapes take the general
    kernel. Both against torch, and an out-of-range index raising."""
    a = random_array((2, 5, 8), dtype, 40)
    x, tx = G(a, dtype, device), T(a, dtype)
    rng = np.random.default_rng(41)
    for ishape in [(2, 5, 8), (2, 5, 12), (2, 5, 4), (2, 3, 4), (1, 5, 8), (2, 5, 6)]:
        i = rng.integers(0, 8, ishape)
        assert_same(x.gather(-1, GI(i, device)), torch.gather(tx, -1, T(i)))
    flat = G(random_array((37,), dtype, 42), dtype, device)
    i = rng.integers(0, 37, (16,))
    assert_same(flat.gather(0, GI(i, device)), torch.gather(T(to_numpy(flat), dtype), 0, T(i)))
    with raises_index_error(match="out of bounds"):
        x.gather(-1, GI(np.full((2, 5, 8), 8), device))
    assert_same(x, tx)
