"""Copies between layouts large enough to take the blocked (CPU) and tiled (CUDA) transpose
paths, with and without casts, against NumPy."""

import numpy as np
import pytest
from conftest import assert_equal, random_array

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
