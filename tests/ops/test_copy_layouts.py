"""Copies between layouts large enough to take the blocked (CPU) and tiled (CUDA) transpose
paths, with and without casts, against NumPy."""

import numpy as np
import pytest
from conftest import assert_equal, dtype_id, random_array, to_numpy

import genesis


def permute(*dims):
    """The same view for a genesis tensor and a NumPy array."""
    return lambda x: x.permute(*dims) if isinstance(x, genesis.Tensor) else x.transpose(dims)


LAYOUTS = [
    # (shape, view applied to the source, for genesis and NumPy alike)
    ((67, 45), permute(1, 0)),
    ((128, 96), permute(1, 0)),
    ((5, 70, 33), permute(0, 2, 1)),
    ((40, 6, 50), permute(2, 1, 0)),
    ((64, 64), lambda x: permute(1, 0)(x)[::-1]),
    ((96, 80), lambda x: permute(1, 0)(x[::2, ::-3])),
    ((3, 4, 40, 36), permute(0, 1, 3, 2)),
]


@pytest.mark.parametrize("shape, view", LAYOUTS)
@pytest.mark.parametrize(
    "src_dtype, dst_dtype",
    [
        (genesis.float32, genesis.float32),
        (genesis.float16, genesis.float16),
        (genesis.int64, genesis.int64),
        (genesis.uint8, genesis.uint8),
        (genesis.float32, genesis.float16),
        (genesis.int32, genesis.float64),
        (genesis.float64, genesis.int16),
    ],
    ids=lambda d: d.name,
)
def test_contiguous_of_permuted_views(device, shape, view, src_dtype, dst_dtype):
    a = random_array(shape, src_dtype, seed=11)
    t = genesis.tensor(a, dtype=src_dtype, device=device)
    expected = view(a)  # NumPy views take the same arguments for these layouts
    got = view(t).to(dst_dtype).contiguous()
    assert got.is_contiguous()
    np_dst = np.dtype(dst_dtype.name)
    assert_equal(got, expected.astype(np_dst) if src_dtype != dst_dtype else expected)


@pytest.mark.parametrize("shape, view", LAYOUTS)
def test_copy_into_permuted_destination(device, shape, view):
    a = random_array(shape, genesis.float32, seed=5)
    dst = genesis.zeros(*shape, device=device)
    src_np = np.ascontiguousarray(view(a))
    view(dst).copy_(genesis.tensor(src_np, device=device))
    expected = np.zeros(shape, np.float32)
    view(expected)[...] = src_np  # only the viewed elements change
    assert_equal(dst, expected)


# Sizes around the multiples of the CUDA tiles (128 rows by 128 bytes, 16-byte vectors; Note
# [Tiled transposes] in kernels/transpose_tiles.cuh): with both sizes here, each side's rows are
# 16-byte aligned for some pairs and not for others.
EDGE_SIZES = (1, 31, 32, 33, 63, 64, 65, 127, 128, 129)


def test_tile_edge_sizes(device, dtype):
    for m in EDGE_SIZES:
        for n in EDGE_SIZES:
            a = random_array((m, n), dtype, seed=1000 * m + n)
            got = genesis.tensor(a, dtype=dtype, device=device).t().contiguous()
            assert got.dtype is dtype and got.shape == (n, m), (m, n)
            assert got.is_contiguous(), (m, n)
            np.testing.assert_array_equal(to_numpy(got), a.T, err_msg=f"{m}x{n}")


def flip(dim):
    """x reversed along dim, for a genesis tensor and a NumPy array alike."""
    return lambda x: x[(slice(None),) * dim + (slice(None, None, -1),)]


TILE_LAYOUTS = {
    # name: (shape, view applied to the source; the copy of the view is compared with NumPy's)
    "batched": ((3, 65, 130), permute(0, 2, 1)),
    "two_batch_dims": ((2, 33, 3, 64), permute(2, 0, 3, 1)),
    "rows_outermost": ((40, 6, 50), permute(2, 1, 0)),
    "negative_column_stride": ((129, 64), lambda x: flip(0)(x).T),
    "reversed_rows": ((64, 129), lambda x: flip(1)(x).T),
    "source_offset_by_one": ((64, 128), lambda x: x[:, 1:].T),
    "source_offset_by_a_row": ((65, 64), lambda x: x[1:].T),
    "padded_source_rows": ((130, 128), lambda x: x[:, :100].T),
    "strided_batch": ((6, 40, 48), lambda x: permute(0, 2, 1)(x[::2])),
}


@pytest.mark.parametrize("layout", list(TILE_LAYOUTS))
def test_transpose_tile_layouts(device, dtype, layout):
    shape, view = TILE_LAYOUTS[layout]
    a = random_array(shape, dtype, seed=3)
    got = view(genesis.tensor(a, dtype=dtype, device=device)).contiguous()
    expected = view(a)
    assert got.dtype is dtype and got.shape == expected.shape
    assert got.is_contiguous()
    np.testing.assert_array_equal(to_numpy(got), expected)


@pytest.mark.parametrize("m, n", [(64, 64), (33, 130), (128, 31)])
def test_transpose_into_offset_destination(device, dtype, m, n):
    # The destination's rows start one item past 16-byte alignment (its row stride is aligned
    # where m is a multiple of 16).
    a = random_array((m, n), dtype, seed=7)
    big = genesis.zeros(n, m + 16, dtype=dtype, device=device)
    big[:, 1 : m + 1].copy_(genesis.tensor(a, dtype=dtype, device=device).t())
    expected = np.zeros((n, m + 16), a.dtype)
    expected[:, 1 : m + 1] = a.T
    np.testing.assert_array_equal(to_numpy(big), expected)


@pytest.mark.parametrize("dtype", [genesis.uint8, genesis.float64], ids=dtype_id)
def test_tile_batches_beyond_one_launch(device, dtype):
    # More matrices than one CUDA launch's grid holds (65535 a launch).
    a = random_array((70000, 2, 3), dtype, seed=9)
    got = genesis.tensor(a, device=device).permute(0, 2, 1).contiguous()
    np.testing.assert_array_equal(to_numpy(got), a.transpose(0, 2, 1))


@pytest.mark.parametrize(
    "dtype",
    [genesis.bool, genesis.uint8, genesis.float16, genesis.float32, genesis.int64],
    ids=dtype_id,
)
@pytest.mark.parametrize("m, n", [(300, 260), (1030, 1100), (8, 1000), (1000, 9)])
def test_transpose_spanning_many_tiles(device, dtype, m, n):
    # Several tiles each way (the CPU's register blocks take 128 x 128 tiles of 8x8, 4x4 or 2x2
    # blocks; Note [Transposing blocks in registers]), with partial tiles and blocks at both
    # ends, cut over threads.
    a = random_array((m, n), dtype, seed=m + n)
    t = genesis.tensor(a, dtype=dtype, device=device)
    np.testing.assert_array_equal(to_numpy(t.t().contiguous()), a.T)
    np.testing.assert_array_equal(to_numpy(t[1:, 3:].t().contiguous()), a[1:, 3:].T)


def mT(x):
    """The last two dims swapped, for a genesis tensor and a NumPy array alike."""
    return x.mT if isinstance(x, genesis.Tensor) else np.swapaxes(x, -1, -2)


NARROW_LAYOUTS = {
    # name: (shape, view); CUDA runs these through Note [Narrow transposes]
    "hwc_to_chw": ((37, 41, 3), permute(2, 0, 1)),  # 3 narrow rows, one span
    "hwc_to_chw_many_spans": ((200, 300, 3), permute(2, 0, 1)),
    "rgba_to_chw": ((64, 50, 4), permute(2, 0, 1)),
    "chw_to_hwc": ((3, 200, 300), permute(1, 2, 0)),  # 3 narrow columns
    "sixteen_rows": ((5000, 16), lambda x: x.T),
    "batched_images": ((5, 30, 20, 3), permute(0, 3, 1, 2)),
    "small_matrices": ((1000, 8, 8), mT),
    "matrices_33": ((300, 33, 33), mT),
    "odd_small_matrices": ((7, 5, 3), mT),
    "two_batch_dims": ((4, 6, 5, 7), mT),
    "one_small_matrix": ((9, 7), lambda x: x.T),
    "strided_batch_of_matrices": ((10, 8, 8), lambda x: mT(x[::2])),
    "sliced_columns": ((50, 40, 3), lambda x: permute(2, 0, 1)(x[:, 3:])),
    "reversed_width": ((20, 30, 3), lambda x: permute(2, 0, 1)(flip(1)(x))),
    "reversed_channels": ((20, 30, 3), lambda x: permute(2, 0, 1)(flip(2)(x))),
    "reversed_matrices": ((50, 6, 6), lambda x: mT(flip(0)(x))),
}


@pytest.mark.parametrize("layout", list(NARROW_LAYOUTS))
def test_narrow_transposes(device, dtype, layout):
    shape, view = NARROW_LAYOUTS[layout]
    a = random_array(shape, dtype, seed=len(shape) + shape[-1])
    got = view(genesis.tensor(a, dtype=dtype, device=device)).contiguous()
    expected = view(a)
    assert got.dtype is dtype and got.shape == expected.shape and got.is_contiguous()
    np.testing.assert_array_equal(to_numpy(got), expected)


@pytest.mark.parametrize("dtype", [genesis.uint8, genesis.float32], ids=dtype_id)
def test_narrow_transpose_batches_beyond_one_launch(device, dtype):
    # Matrices that are not packed (every other one) take the narrow-rows kernel, one batch
    # entry a block row: more than one launch's 65535.
    a = random_array((140_001, 2, 3), dtype, seed=13)
    got = mT(genesis.tensor(a, device=device)[::2]).contiguous()
    np.testing.assert_array_equal(to_numpy(got), np.swapaxes(a[::2], -1, -2))


# Note [Wide words for same-dtype copies]: rows dense on both sides move 16-, 8- or 4-byte words
# when rows, outer strides and bases allow, else items; the layouts cover each word and the
# cases that must fall back (odd rows, a base one item off, reversed rows).
WIDE_LAYOUTS = {
    "heads_moved": ((2, 5, 3, 16), permute(0, 2, 1, 3)),
    "column_slice": ((40, 24), lambda x: x[:, 8:16]),
    "four_columns": ((33, 12), lambda x: x[:, 4:8]),
    "two_columns": ((33, 10), lambda x: x[:, 2:4]),
    "odd_columns": ((40, 25), lambda x: x[:, 3:10]),
    "base_one_item_off": ((30, 17), lambda x: x[:, 1:9]),
    "reversed_rows": ((30, 16), lambda x: x[::-1]),
    "every_other_row": ((30, 32), lambda x: x[::2, :24]),
    "many_rows": ((3000, 3, 64), permute(1, 0, 2)),
}


@pytest.mark.parametrize("layout", list(WIDE_LAYOUTS))
def test_rows_copied_in_wide_words(device, dtype, layout):
    shape, view = WIDE_LAYOUTS[layout]
    a = random_array(shape, dtype, seed=sum(shape))
    got = view(genesis.tensor(a, dtype=dtype, device=device)).contiguous()
    expected = view(a)
    assert got.dtype is dtype and got.shape == expected.shape and got.is_contiguous()
    np.testing.assert_array_equal(to_numpy(got), expected)


@pytest.mark.parametrize("widths", [(8, 16, 8), (4, 12), (2, 6, 3), (5, 8, 7)])
def test_cat_pieces_in_wide_words(device, dtype, widths):
    # Each piece lands in rows of the result that a wide word may or may not cover; the
    # pieces after an odd width start one item off.
    pieces = [random_array((6, 7, w), dtype, seed=w + i) for i, w in enumerate(widths)]
    got = genesis.cat([genesis.tensor(p, dtype=dtype, device=device) for p in pieces], dim=-1)
    np.testing.assert_array_equal(to_numpy(got), np.concatenate(pieces, axis=-1))


def test_copy_into_rows_of_a_wider_destination(device, dtype):
    src = random_array((12, 16), dtype, seed=3)
    dst_np = random_array((12, 40), dtype, seed=4)
    dst = genesis.tensor(dst_np, dtype=dtype, device=device)
    dst[:, 8:24].copy_(genesis.tensor(src, dtype=dtype, device=device))
    dst_np[:, 8:24] = src
    np.testing.assert_array_equal(to_numpy(dst), dst_np)
