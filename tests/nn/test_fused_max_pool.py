"""Max pooling's kernel (csrc/ops/max_pool.h) and its scatter-add backward against torch: 1-, 2-
and 3-D pools with strides, padding, dilation and ceil_mode, every floating dtype, NaN windows,
ties, non-contiguous input, values, indices and the input's gradient (test_pooling.py checks
the functional and module semantics)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy

import genesis

torch = pytest.importorskip("torch")

CASES = [
    (1, (2, 3, 11), dict(kernel_size=3, stride=2, padding=1)),
    (1, (2, 3, 10), dict(kernel_size=2, dilation=3, ceil_mode=True)),
    (2, (2, 3, 9, 8), dict(kernel_size=2)),
    (2, (2, 3, 9, 8), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True)),
    (2, (1, 2, 10, 9), dict(kernel_size=3, stride=2, dilation=2, padding=1)),
    (3, (2, 2, 5, 6, 7), dict(kernel_size=2, stride=(1, 2, 2), padding=(0, 1, 1))),
]


def _run(lib, a, nd, kw, device, dtype):
    opts = {"device": device} if lib is genesis else {}
    x = lib.tensor(a, **opts).to(getattr(lib, dtype)).requires_grad_()
    fn = getattr(lib.nn.functional, f"max_pool{nd}d")
    values, index = fn(x, return_indices=True, **kw)
    values.backward(lib.ones_like(values) * 2)
    return values, index, x.grad


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64) if t.is_floating_point() else t)
    return t.detach().double().numpy() if t.is_floating_point() else t.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_indices_and_gradient(device, case, dtype):
    nd, shape, kw = CASES[case]
    rng = np.random.default_rng(case)
    a = rng.standard_normal(shape)
    if dtype in ("float16", "bfloat16"):  # distinct values after rounding: no ties
        a = rng.permutation(np.arange(np.prod(shape))).reshape(shape) / 8.0
    got = _run(genesis, a, nd, kw, device, dtype)
    want = _run(torch, a, nd, kw, "cpu", dtype)
    for g, t in zip(got, want):
        assert tuple(g.shape) == tuple(t.shape)
        np.testing.assert_array_equal(_np(g), _np(t))


def test_nan_windows_and_ties(device):
    a = np.array([[[[1.0, np.nan, 3.0, 3.0], [np.nan, 0.0, 3.0, 3.0], [5.0, 5.0, 2.0, 1.0]]]])
    got = _run(genesis, a, 2, dict(kernel_size=2, ceil_mode=True), device, "float32")
    want = _run(torch, a, 2, dict(kernel_size=2, ceil_mode=True), "cpu", "float32")
    for g, t in zip(got, want):
        np.testing.assert_array_equal(_np(g), _np(t))


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)])
def test_nans_and_ties_inside_wide_rows(device, kw):
    # rows wide enough for the CPU's inner outputs (no bounds checks, bit-mask selects), with
    # NaNs, repeated values and infinities inside the windows
    rng = np.random.default_rng(11)
    a = rng.integers(-3, 4, size=(2, 3, 12, 40)).astype(np.float64)
    a[rng.random(a.shape) < 0.05] = np.nan
    a[rng.random(a.shape) < 0.03] = -np.inf
    a[rng.random(a.shape) < 0.03] = np.inf
    for dtype in ("float32", "float64", "bfloat16"):
        got = _run(genesis, a, 2, kw, device, dtype)
        want = _run(torch, a, 2, kw, "cpu", dtype)
        for g, t in zip(got, want):
            np.testing.assert_array_equal(_np(g), _np(t))


def test_non_contiguous_input(device):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 8, 6, 2))
    g = genesis.tensor(a, device=device).permute(0, 3, 1, 2)
    t = torch.tensor(a).permute(0, 3, 1, 2)
    gv, gi = genesis.nn.functional.max_pool2d(g, 2, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(t, 2, return_indices=True)
    np.testing.assert_array_equal(_np(gv), _np(tv))
    np.testing.assert_array_equal(_np(gi), _np(ti))
