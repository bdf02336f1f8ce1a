"""matmul / @ / mm / bmm against NumPy: shapes, dtypes, layouts, zero sizes and errors."""

import numpy as np
import pytest
from conftest import (
    DTYPES,
    NP_DTYPE,
    check_message,
    dtype_id,
    make_tensor,
    random_array,
    requires_cuda,
    to_numpy,
)

import genesis

MM_DTYPES = [d for d in DTYPES if d is not genesis.bool]

# Error allowed relative to |a| @ |b| (the scale of a dot product's rounding error). 16-bit
# results round once to 8 or 11 bits; cuBLAS may also reduce partial sums in 16 bits.
RTOL = {
    genesis.float16: 2e-3,
    genesis.bfloat16: 1e-2,
    genesis.float32: 1e-5,
    genesis.float64: 1e-12,
}
CUDA_RTOL = {**RTOL, genesis.float16: 1e-2, genesis.bfloat16: 2e-2}


def supported(device, dtype):
    return device == "cpu" or dtype.is_floating_point


def operands(shape_a, shape_b, dtype, device, seed=0):
    """Random (genesis, NumPy) pairs; 16-bit floats stay small so sums cannot overflow."""
    kw = {"low": -4, "high": 4} if dtype in (genesis.float16, genesis.bfloat16) else {}
    a, an = make_tensor(shape_a, dtype, device, seed=seed, **kw)
    b, bn = make_tensor(shape_b, dtype, device, seed=seed + 1, **kw)
    return a, an, b, bn


def reference(an, bn, dtype):
    """NumPy's product: float64 for floats; integers wrap around in the dtype's width."""
    if dtype.is_floating_point:
        return np.asarray(np.matmul(an.astype(np.float64), bn.astype(np.float64)))
    wide = np.matmul(an.astype(np.int64).astype(np.uint64), bn.astype(np.int64).astype(np.uint64))
    return np.asarray(wide).astype(NP_DTYPE[dtype])


def check_product(t, an, bn, dtype, device):
    ref = reference(an, bn, dtype)
    assert isinstance(t, genesis.Tensor)
    assert t.dtype is dtype
    assert t.shape == ref.shape, (t.shape, ref.shape)
    assert t.is_contiguous()
    got = to_numpy(t)
    if not dtype.is_floating_point:
        np.testing.assert_array_equal(got, ref)
        return
    scale = np.asarray(np.matmul(np.abs(an.astype(np.float64)), np.abs(bn.astype(np.float64))))
    rtol = (CUDA_RTOL if device == "cuda" else RTOL)[dtype]
    err = np.abs(got.astype(np.float64) - ref)
    bad = err > rtol * scale
    assert not bad.any(), f"max error {err.max()} over {bad.sum()} elements (rtol {rtol})"


SHAPES = [
    ((5,), (5,)),
    ((3,), (3, 4)),
    ((4, 3), (3,)),
    ((3, 4), (4, 5)),
    ((1, 1), (1, 1)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((1, 3, 4), (6, 4, 5)),
    ((3, 1, 4, 5), (1, 2, 5, 6)),
    ((37, 300), (300, 41)),
    ((2, 70, 33), (33, 130)),
    ((300,), (300, 7)),
    ((70, 300), (300,)),
]


@pytest.mark.parametrize("dtype", MM_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_matches_numpy(device, dtype, shapes):
    a, an, b, bn = operands(*shapes, dtype, device)
    if not supported(device, dtype):
        with pytest.raises(TypeError) as e:
            genesis.matmul(a, b)
        check_message(e, "matmul")
        assert "integer matmul is not supported on CUDA" in str(e.value)
        return
    check_product(genesis.matmul(a, b), an, bn, dtype, device)


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
@pytest.mark.parametrize("shapes", [((200, 513), (513, 300)), ((3, 130, 257), (3, 257, 65))])
def test_large_float(device, dtype, shapes):
    # Several tiles, K blocks and threads in the CPU GEMM.
    a, an, b, bn = operands(*shapes, dtype, device, seed=5)
    check_product(a @ b, an, bn, dtype, device)


@pytest.mark.parametrize("transposed_b", [False, True])
@pytest.mark.parametrize("shapes", [((1000, 300), (300, 1100)), ((2, 576, 1100), (1100, 64))])
def test_tiles_sharing_packed_columns(device, shapes, transposed_b):
    # Note [CPU GEMM]: a thread's row blocks of one column block share each packed slice of B;
    # 3 row blocks on 2 threads split into 4; B column-major (a Linear's weight.T) packs alike.
    a, an, b, bn = operands(*shapes, genesis.float32, device, seed=7)
    if transposed_b:
        b = b.mT.contiguous().mT
    check_product(a @ b, an, bn, genesis.float32, device)


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
@pytest.mark.parametrize(
    "shapes",
    [
        ((1024, 70), (70, 96)),
        ((1001, 37), (37, 45)),
        ((13, 40), (40, 4100)),
        ((5, 97, 61), (61, 77)),
    ],
    ids=str,
)
def test_tiles_cut_at_whole_panels(device, dtype, shapes):
    # Note [Tiles cut at whole panels]: tiles whose bounds fall on panel boundaries, rows that
    # leave a short last panel, column tiles (few rows, many columns) and batches of tiles.
    a, an, b, bn = operands(*shapes, dtype, device, seed=11)
    check_product(a @ b, an, bn, dtype, device)


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
@pytest.mark.parametrize("row_stride", [0, 3, 1024])
@pytest.mark.parametrize("shapes", [((4, 130, 300), (300, 33)), ((1, 25, 7), (7, 40))], ids=str)
def test_row_major_a_read_in_place(device, dtype, shapes, row_stride):
    # Note [Row-major A read in place]: whole panels of rows read where they lie, the last
    # partial panel packed; k past one slice (300 > 256); A a column slice of a wider matrix
    # (its row stride larger than k), and a row stride of 4 KiB in float32, which packs
    a, an, b, bn = operands(*shapes, dtype, device, seed=17)
    if row_stride:
        k = shapes[0][-1]
        width = 1024 if row_stride == 1024 else k + row_stride
        wide = genesis.zeros(*shapes[0][:-1], width, dtype=dtype, device=device)
        wide[..., :k] = a
        a = wide[..., :k]
    check_product(a @ b, an, bn, dtype, device)


@pytest.mark.parametrize(
    "dtype", [genesis.float32, genesis.float64, genesis.bfloat16], ids=dtype_id
)
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("b_layout", ["rows", "columns", "wide rows", "wide columns"])
@pytest.mark.parametrize("a_layout", ["rows", "columns"])
@pytest.mark.parametrize("kn", [(1, 1), (7, 5), (300, 77), (64, 2100), (1029, 33)], ids=str)
def test_products_of_a_few_rows(device, dtype, rows, b_layout, a_layout, kn):
    # Note [Products of a few rows]: up to eight rows, B row-major (rows scaled into C) or
    # column-major (dot products), also as slices of wider matrices; A row- or column-major;
    # k and n past and short of whole vectors, groups of four and column chunks; bfloat16 by a
    # column-major B (a Linear's weight) widened as it streams, float32 sums rounded once.
    k, n = kn
    a, an, b, bn = operands((rows, k), (k, n), dtype, device, seed=23)
    if a_layout == "columns":
        a = a.mT.contiguous().mT
    if b_layout.endswith("columns"):
        b = b.mT.contiguous().mT
    if b_layout.startswith("wide"):
        if b_layout == "wide rows":
            wide = genesis.zeros(k, n + 3, dtype=dtype, device=device)
            wide[:, :n] = b
            b = wide[:, :n]
        else:
            wide = genesis.zeros(n, k + 3, dtype=dtype, device=device)
            wide[:, :k] = b.mT
            b = wide[:, :k].mT
    check_product(a @ b, an, bn, dtype, device)
    check_product(genesis.nn.functional.linear(a, b.mT), an, bn, dtype, device)


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_few_rows_batched_and_broadcast(device, dtype):
    # A batch of few-row products, B broadcast over it, and matrix @ vector (one row once
    # transposed); the values past k's groups of four carry infinities into no other column.
    a, an, b, bn = operands((6, 3, 37), (37, 45), dtype, device, seed=29)
    check_product(a @ b, an, bn, dtype, device)
    a, an, b, bn = operands((2, 1, 19), (2, 19, 1030), dtype, device, seed=31)
    check_product(a @ b, an, bn, dtype, device)
    m, mn, v, vn = operands((70, 45), (45,), dtype, device, seed=37)
    check_product(m @ v, mn, vn, dtype, device)
    bn = np.ones((6, 9), dtype=np.float64)
    bn[5, 3] = np.inf
    an = np.ones((2, 6), dtype=np.float64)
    an[1, 5] = 0.0
    got = to_numpy(
        genesis.tensor(an, dtype=dtype, device=device)
        @ genesis.tensor(bn, dtype=dtype, device=device)
    )
    with np.errstate(invalid="ignore"):
        want = an @ bn
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
@pytest.mark.parametrize("row_stride", [0, 5, 1024])
@pytest.mark.parametrize(
    "shapes",
    [((8, 300), (300, 100)), ((1, 70), (70, 64)), ((3, 40, 33), (33, 70)), ((47, 520), (520, 96))],
    ids=str,
)
def test_row_major_b_read_in_place(device, dtype, shapes, row_stride):
    # Note [Row-major B read in place]: products of few rows read B's whole column panels where
    # they lie and pack only a last panel of fewer columns; k past one slice (300, 520 > 256),
    # a batch of tiles, B a column slice of a wider matrix, a 4 KiB row stride in float32.
    a, an, b, bn = operands(*shapes, dtype, device, seed=19)
    if row_stride:
        n = shapes[1][-1]
        width = 1024 if row_stride == 1024 else n + row_stride
        wide = genesis.zeros(*shapes[1][:-1], width, dtype=dtype, device=device)
        wide[..., :n] = b
        b = wide[..., :n]
    check_product(a @ b, an, bn, dtype, device)


@pytest.mark.parametrize(
    "dtype", [genesis.float32, genesis.float64, genesis.bfloat16, genesis.float16], ids=dtype_id
)
@pytest.mark.parametrize(
    "shapes",
    [((130, 300), (130, 20)), ((3, 97, 200), (3, 97, 9)), ((2, 64, 150), (64, 7))],
    ids=str,
)
def test_weight_gradient_shaped_products(device, dtype, shapes):
    # Note [Transposed products on the CPU]: g.T @ x with a large column-major g and a small
    # row-major x runs as (x.T @ g).T: batched, with x broadcast over the batch, every dtype
    g, gn, x, xn = operands(*shapes, dtype, device, seed=19)
    an = np.swapaxes(gn, -1, -2)
    check_product(g.mT @ x, an, xn, dtype, device)


@pytest.mark.parametrize(
    "dtype", [genesis.float32, genesis.float64, genesis.bfloat16, genesis.float16], ids=dtype_id
)
@pytest.mark.parametrize(
    "shapes", [((5, 300), (400, 300)), ((2, 7, 64), (2, 150, 64)), ((3, 40), (2, 500, 40))], ids=str
)
def test_recurrence_shaped_products(device, dtype, shapes):
    # Note [Transposed products on the CPU], the mirror case: a small row-major h times a large
    # column-major W.T (h @ W_hh.T) runs as (W @ h.T).T
    h, hn, w, wn = operands(*shapes, dtype, device, seed=23)
    check_product(h @ w.mT, hn, np.swapaxes(wn, -1, -2), dtype, device)


@pytest.mark.parametrize("a_layout", ["rows", "columns"])
@pytest.mark.parametrize("b_layout", ["rows", "columns"])
@pytest.mark.parametrize(
    "shapes", [((32, 256), (256, 1024)), ((37, 301), (301, 70)), ((13, 7), (7, 40))], ids=str
)
def test_packs_through_transposed_blocks(device, shapes, a_layout, b_layout):
    # Note [CPU GEMM]: row-major A and column-major B (a Linear's weight.T) are packed through
    # 8 x 8 register transposes, the k past the last whole block of 8 and the rows past the
    # last block item by item.
    a, an, b, bn = operands(*shapes, genesis.float32, device, seed=13)
    if a_layout == "columns":
        a = a.mT.contiguous().mT
    if b_layout == "columns":
        b = b.mT.contiguous().mT
    check_product(a @ b, an, bn, genesis.float32, device)


@pytest.mark.parametrize(
    "shapes, layout",
    [
        (((3, 70, 301), (301, 45)), "plain"),  # edge tiles, 2 slices of k, an odd k
        (((64, 512), (512, 96)), "plain"),  # whole 32 x 32 tiles added over 2 slices of k
        (((2, 1, 33, 40), (5, 40, 31)), "plain"),  # broadcast batches
        (((50, 129), (129, 70)), "transposed"),  # column-major operands
        (((13, 1030), (1030, 33)), "plain"),  # a 12-row panel and one row, 3 slices of k
        (((37, 64), (64, 40)), "odd offset"),  # A's pairs at odd offsets: not word aligned
    ],
)
def test_bfloat16_products_on_the_tile_unit(device, shapes, layout):
    # Note [bfloat16 products on AMX]: where the CPU has AMX, bfloat16 products run on it, else
    # by pairs of k where it has AVX512-BF16 (Note [bfloat16 products by pairs]), else on the
    # float32 GEMM: float32 sums of exact products, rounded to bfloat16 once.
    a, an, b, bn = operands(*shapes, genesis.bfloat16, device, seed=11)
    if layout == "transposed":
        a, b = a.mT.contiguous().mT, b.mT.contiguous().mT
    if layout == "odd offset":
        wide = genesis.zeros(a.shape[0], a.shape[1] + 2, dtype=a.dtype, device=device)
        wide[:, 1:-1] = a
        a = wide[:, 1:-1]
        assert a.storage_offset() % 2 == 1 and a.stride(0) % 2 == 0
    check_product(a @ b, an, bn, genesis.bfloat16, device)


def test_forms_agree(device):
    a, an, b, bn = operands((3, 4), (4, 5), genesis.float32, device)
    ref = to_numpy(genesis.matmul(a, b))
    for t in (a @ b, a.matmul(b), b.__rmatmul__(a), genesis.mm(a, b), a.mm(b)):
        np.testing.assert_array_equal(to_numpy(t), ref)
    x, xn, y, yn = operands((2, 3, 4), (2, 4, 5), genesis.float64, device)
    ref = to_numpy(x @ y)
    for t in (genesis.bmm(x, y), x.bmm(y), genesis.matmul(x, y)):
        np.testing.assert_array_equal(to_numpy(t), ref)
    check_product(genesis.bmm(x, y), xn, yn, genesis.float64, device)


def test_dot_is_0d(device):
    a, an, b, bn = operands((7,), (7,), genesis.float64, device)
    t = a @ b
    assert t.shape == ()
    assert t.item() == pytest.approx(float(an @ bn), rel=1e-12)


def test_inputs_unchanged_and_result_is_new(device):
    a, an, b, bn = operands((3, 4), (4, 5), genesis.float32, device)
    c = a @ b
    assert c.untyped_storage().data_ptr() not in (
        a.untyped_storage().data_ptr(),
        b.untyped_storage().data_ptr(),
    )
    np.testing.assert_array_equal(to_numpy(a), an)
    np.testing.assert_array_equal(to_numpy(b), bn)


# --- layouts: transposed, sliced, reversed, broadcast (stride 0), permuted batches ---


def _layouts(dtype, device):
    """(name, genesis a, numpy a, genesis b, numpy b) with non-contiguous operands."""

    def mk(shape, seed):
        kw = {"low": -4, "high": 4} if dtype in (genesis.float16, genesis.bfloat16) else {}
        return make_tensor(shape, dtype, device, seed=seed, **kw)

    at, atn = mk((4, 6), 1)  # a = at.T: (6, 4), column-major
    bt, btn = mk((5, 4), 2)  # b = bt.T: (4, 5), column-major
    yield "both transposed", at.t(), atn.T, bt.t(), btn.T
    a, an = mk((6, 4), 3)
    yield "b transposed", a, an, bt.t(), btn.T
    b, bn = mk((4, 5), 4)
    yield "a transposed", at.t(), atn.T, b, bn
    a2, a2n = mk((6, 8), 5)
    b2, b2n = mk((8, 10), 6)
    yield "sliced", a2[:, ::2], a2n[:, ::2], b2[::2, 1::2], b2n[::2, 1::2]
    yield "reversed", a2[::-1, ::-2], a2n[::-1, ::-2], b2[::-2, ::-1], b2n[::-2, ::-1]
    row, rown = mk((1, 4), 7)
    col, coln = mk((4, 1), 8)
    yield (
        "expanded",
        row.expand(6, 4),
        np.broadcast_to(rown, (6, 4)),
        col.expand(4, 5),
        np.broadcast_to(coln, (4, 5)),
    )
    x, xn = mk((3, 2, 4), 9)  # (M, B, K) permuted to (B, M, K)
    y, yn = mk((2, 5, 4), 10)  # (B, N, K) -> mT (B, K, N)
    yield "batched permuted", x.permute(1, 0, 2), xn.transpose(1, 0, 2), y.mT, yn.transpose(0, 2, 1)
    z, zn = mk((2, 6, 3, 4), 11)  # batch dims (2, 3) after slicing: not one stride
    w, wn = mk((4, 5), 12)
    yield "unmergeable batch", z[:, ::2], zn[:, ::2], w, wn
    yield "unmergeable batch, 3-d right", z[:, ::2], zn[:, ::2], w.expand(3, 4, 5), wn


@pytest.mark.parametrize("dtype", MM_DTYPES, ids=dtype_id)
def test_non_contiguous_layouts(device, dtype):
    if not supported(device, dtype):
        pytest.skip("integer matmul is not supported on CUDA")
    for name, a, an, b, bn in _layouts(dtype, device):
        try:
            check_product(a @ b, np.ascontiguousarray(an), np.ascontiguousarray(bn), dtype, device)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from e


# --- zero sizes ---

ZERO_SHAPES = [
    ((3, 0), (0, 4)),
    ((0, 3), (3, 4)),
    ((3, 4), (4, 0)),
    ((0,), (0,)),
    ((0,), (0, 2)),
    ((2, 0, 3), (3, 4)),
    ((2, 3, 0), (2, 0, 4)),
    ((0, 2, 3), (3, 4)),
]


@pytest.mark.parametrize("dtype", MM_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", ZERO_SHAPES, ids=str)
def test_zero_size(device, dtype, shapes):
    if not supported(device, dtype):
        pytest.skip("integer matmul is not supported on CUDA")
    a, an, b, bn = operands(*shapes, dtype, device)
    t = a @ b
    check_product(t, an, bn, dtype, device)
    if t.numel():
        assert not to_numpy(t).any()  # K == 0 gives zeros


def test_bmm_zero_batch(device):
    a, an, b, bn = operands((0, 2, 3), (0, 3, 4), genesis.float32, device)
    assert genesis.bmm(a, b).shape == (0, 2, 4)


# --- integers wrap around in their own width (CPU) ---


@pytest.mark.parametrize(
    ("dtype", "a", "b", "want"),
    [
        (genesis.int8, [[100]], [[100]], 16),  # 10000 mod 256
        (genesis.uint8, [[200, 200]], [[2], [2]], 32),  # 800 mod 256
        (genesis.int16, [[300, 300]], [[300], [300]], 180000 - 3 * 65536),
        (genesis.int32, [[2**30, 2**30]], [[2], [2]], 0),
        (genesis.int64, [[2**62, 2**62]], [[2], [2]], 0),
    ],
)
def test_integer_wraparound(dtype, a, b, want):
    t = genesis.tensor(a, dtype=dtype) @ genesis.tensor(b, dtype=dtype)
    assert t.dtype is dtype
    assert t.tolist() == [[want]]


# --- errors ---


def test_shape_mismatch_message(device):
    a = genesis.zeros(3, 4, device=device)
    b = genesis.zeros(5, 6, device=device)
    with pytest.raises(RuntimeError) as e:
        genesis.matmul(a, b)
    assert str(e.value) == "[matmul] shapes (3, 4) and (5, 6) cannot be multiplied"
    with pytest.raises(RuntimeError) as e:
        genesis.zeros(3, device=device) @ genesis.zeros(4, device=device)
    check_message(e, "matmul")
    with pytest.raises(RuntimeError) as e:
        genesis.zeros(2, 3, 4, device=device) @ genesis.zeros(3, 4, 5, device=device)
    check_message(e, "matmul")


def test_0d_operands_raise(device):
    s = genesis.tensor(2.0, device=device)
    v = genesis.zeros(3, device=device)
    for x, y in ((s, v), (v, s), (s, s)):
        with pytest.raises(RuntimeError) as e:
            genesis.matmul(x, y)
        check_message(e, "matmul")


def test_dtype_mismatch_raises(device):
    a = genesis.zeros(3, 4, dtype=genesis.float32, device=device)
    b = genesis.zeros(4, 5, dtype=genesis.float64, device=device)
    with pytest.raises(RuntimeError) as e:
        a @ b
    check_message(e, "matmul")
    assert "same dtype" in str(e.value)
    with pytest.raises(RuntimeError) as e:
        genesis.mm(a, b)
    check_message(e, "mm")


def test_bool_raises_type_error(device):
    a = genesis.ones(3, 4, dtype=genesis.bool, device=device)
    b = genesis.ones(4, 5, dtype=genesis.bool, device=device)
    with pytest.raises(TypeError) as e:
        a @ b
    check_message(e, "matmul")


def test_mm_bmm_rank_and_batch_checks(device):
    m3 = genesis.zeros(2, 3, 4, device=device)
    m2 = genesis.zeros(4, 5, device=device)
    with pytest.raises(RuntimeError) as e:
        genesis.mm(m3, m2)
    check_message(e, "mm")
    with pytest.raises(RuntimeError) as e:
        genesis.mm(genesis.zeros(3, 4, device=device), genesis.zeros(5, 6, device=device))
    assert str(e.value) == "[mm] shapes (3, 4) and (5, 6) cannot be multiplied"
    with pytest.raises(RuntimeError) as e:
        genesis.bmm(m2, m2)
    check_message(e, "bmm")
    with pytest.raises(RuntimeError) as e:
        genesis.bmm(m3, genesis.zeros(3, 4, 5, device=device))
    check_message(e, "bmm")
    with pytest.raises(RuntimeError) as e:
        genesis.bmm(m3, genesis.zeros(2, 5, 5, device=device))
    check_message(e, "bmm")


def test_non_tensor_operand_is_type_error():
    a = genesis.ones(2, 2)
    with pytest.raises(TypeError):
        a @ 3
    with pytest.raises(TypeError):
        genesis.matmul(a, [[1.0, 0.0], [0.0, 1.0]])


# --- CUDA specifics ---


@requires_cuda
def test_device_mismatch_raises():
    a = genesis.zeros(3, 4)
    b = genesis.zeros(4, 5, device="cuda")
    with pytest.raises(RuntimeError) as e:
        a @ b
    check_message(e, "matmul")


@requires_cuda
@pytest.mark.parametrize("dtype", [d for d in MM_DTYPES if not d.is_floating_point], ids=dtype_id)
def test_cuda_integers_raise(dtype):
    a = genesis.ones(2, 2, dtype=dtype, device="cuda")
    with pytest.raises(TypeError) as e:
        a @ a
    assert str(e.value) == "[matmul] integer matmul is not supported on CUDA"


@requires_cuda
def test_cuda_float32_does_not_use_tf32():
    # Full-mantissa inputs: TF32 keeps 10 mantissa bits, so its rounding (about 1e-4 relative)
    # would fail rtol=1e-5 against the float64 reference.
    rng = np.random.default_rng(0)
    an = rng.uniform(1, 2, (128, 16)).astype(np.float32)
    bn = rng.uniform(1, 2, (16, 128)).astype(np.float32)
    got = to_numpy(genesis.tensor(an, device="cuda") @ genesis.tensor(bn, device="cuda"))
    np.testing.assert_allclose(got, an.astype(np.float64) @ bn.astype(np.float64), rtol=1e-5)
    # 1 + 2**-12 is exact in float32 but rounds to 1 in TF32: the alternating sum keeps only the
    # 2**-12 parts, exactly, in float32 (every partial sum fits 24 bits), and is 0 in TF32.
    xn = np.where(np.arange(32) % 2 == 0, 1 + 2.0**-12, -1.0).astype(np.float32)
    xn = np.tile(xn, (64, 1))
    yn = np.ones((32, 64), np.float32)
    got = to_numpy(genesis.tensor(xn, device="cuda") @ genesis.tensor(yn, device="cuda"))
    np.testing.assert_array_equal(got, np.full((64, 64), 16 * 2.0**-12, np.float32))


@requires_cuda
@pytest.mark.parametrize("dtype", [genesis.float16, genesis.float32], ids=dtype_id)
def test_cuda_on_a_side_stream(dtype):
    a, an, b, bn = operands((2, 64, 48), (48, 80), dtype, "cuda")
    s = genesis.cuda.Stream()
    # The operands' copies were queued on the current stream, which the side stream must wait
    # for (as in PyTorch): without it the product raced them (seen once under a loaded GPU).
    s.wait_stream(genesis.cuda.current_stream())
    with genesis.cuda.stream(s):
        c = a @ b
    s.synchronize()
    check_product(c, an, bn, dtype, "cuda")


@requires_cuda
def test_cuda_many_small_batches_and_random_values():
    an = random_array((1000, 3, 5), genesis.float32, seed=3)
    bn = random_array((1000, 5, 2), genesis.float32, seed=4)
    c = genesis.tensor(an, device="cuda") @ genesis.tensor(bn, device="cuda")
    check_product(c, an, bn, genesis.float32, "cuda")
